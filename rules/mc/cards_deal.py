"""Vectorised dealing and hand evaluation for the card side wagers' Monte Carlo kernels (issue 15).

Independent maths: nothing here reads the exact-RTP code (``rules.bj_deal``, ``rules.poker``,
``rules.poker_side_rtp``). The cards are dealt and evaluated, a chunk of hands at a time, with
numpy over the chunk.

**Dealing.** Every hand is dealt from a fresh shoe, as ``croupier rtp`` counts it (the first
cards of a round from a full shoe of ``decks`` 52-card decks: §§ 633b.17–633b.21; one 52-card
deck for Ultimate Texas Hold 'Em and Criss-Cross: ch. 653b, § 674b.1). ``deal`` draws the k cards
of every hand one position at a time, each uniform over the cards still in the shoe: a position
draws a physical card uniformly from the whole shoe and only the rows whose draw is a card that
row already holds draw that position again (rejection, so each position is uniform over what is
left: an exact draw without replacement). A physical card ``c`` of the shoe (0 .. 52·decks − 1)
is the card identity ``c % 52``: every identity is in the shoe ``decks`` times.

**Card identities** (0..51): ``rank = id % 13`` (0 is a two … 8 a ten, 9 J, 10 Q, 11 K, 12 A),
``suit = id // 13`` (0 clubs, 1 diamonds, 2 hearts, 3 spades).

**Poker hands** (one deck). A set of cards is a 64-bit mask with the card of rank r and suit s at
bit 16·s + r, so the four 13-bit suit masks are ``(mask >> 16 s) & 0x1FFF``. From them, bit-
parallel over the 13 ranks: the ranks held at least twice, three times, four times; a flush (a
suit mask with ≥ 5 bits); straights by a lookup over the 8,192 rank masks (the ace also low:
A-2-3-4-5). ``poker_key`` gives a 32-bit integer that orders hands as poker does, best five of
the cards: ``category << 26 | primary << 13 | kickers``, where ``primary`` and ``kickers`` are
rank masks (a mask of k ranks compared as an integer compares the ranks high to low), the
categories numbered as ``rules.poker.HandCategory`` (0 high card … 8 straight flush, 9 royal
flush).
"""

from __future__ import annotations

import numpy as np

RANK_BITS = 0x1FFF
#: rank indices (``id % 13``)
TWO, SEVEN, TEN, JACK, QUEEN, KING, ACE = 0, 5, 8, 9, 10, 11, 12
#: suit indices (``id // 13``)
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL_FLUSH = range(10)
CATEGORY_SHIFT = 26


# --------------------------------------------------------------------------- dealing

def deal(rng: np.random.Generator, n: int, k: int, decks: int = 1) -> np.ndarray:
    """``n`` hands of ``k`` card identities each (``(n, k)`` uint8), every hand from a fresh shoe
    of ``decks`` decks, position by position without replacement (see the module doc)."""
    if n < 0 or k < 1 or decks < 1 or k > 52 * decks:
        raise ValueError(f"cannot deal {k} cards to {n} hands from {decks} deck(s)")
    size = 52 * decks
    cards = np.empty((n, k), dtype=np.uint16)
    for j in range(k):
        col = rng.integers(0, size, n, dtype=np.uint16)
        if j:
            held = cards[:, :j]
            bad = np.flatnonzero((held == col[:, None]).any(axis=1))
            while bad.size:
                redo = rng.integers(0, size, bad.size, dtype=np.uint16)
                col[bad] = redo
                bad = bad[(held[bad] == redo[:, None]).any(axis=1)]
        cards[:, j] = col
    return (cards % 52).astype(np.uint8) if decks > 1 else cards.astype(np.uint8)


def deal_one_deck(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """``n`` hands of ``k`` cards from a fresh 52-card deck each: the identities (``(n, k)``
    uint16) and each position's poker-mask bit (k uint64 arrays). The same draw as ``deal`` with
    one deck, the collisions found with a running mask of the cards dealt."""
    if n < 0 or not 1 <= k <= 52:
        raise ValueError(f"cannot deal {k} cards to {n} hands from one deck")
    ids = np.empty((n, k), dtype=np.uint16)
    bits: list[np.ndarray] = []
    held = np.zeros(n, dtype=np.uint64)
    for j in range(k):
        col = rng.integers(0, 52, n, dtype=np.uint16)
        b = BIT[col]
        if j:
            bad = np.flatnonzero(held & b)
            while bad.size:
                redo = rng.integers(0, 52, bad.size, dtype=np.uint16)
                rb = BIT[redo]
                col[bad], b[bad] = redo, rb
                bad = bad[(held[bad] & rb) != 0]
        held |= b
        ids[:, j] = col
        bits.append(b)
    return ids, bits


def rank_of(ids: np.ndarray) -> np.ndarray:
    return ids % 13


def suit_of(ids: np.ndarray) -> np.ndarray:
    return ids // 13


# --------------------------------------------------------------------------- rank-mask tables

def _popcount13() -> np.ndarray:
    m = np.arange(1 << 13, dtype=np.int64)
    return np.array([bin(x).count("1") for x in m.tolist()], dtype=np.uint8)


POPCOUNT = _popcount13()


def _straight_high() -> np.ndarray:
    """rank mask -> the bit of the highest straight's top card (0: no straight of five)."""
    out = np.zeros(1 << 13, dtype=np.int32)
    m = np.arange(1 << 13, dtype=np.int64)
    wheel = 0b1000000001111  # A 2 3 4 5: a five-high straight
    out[(m & wheel) == wheel] = 1 << 3
    for top in range(4, 13):
        run = 0b11111 << (top - 4)
        out[(m & run) == run] = 1 << top
    return out


STRAIGHT_HIGH = _straight_high()


def _top_bits(k: int) -> np.ndarray:
    """rank mask -> the mask of its ``k`` highest ranks."""
    out = np.zeros(1 << 13, dtype=np.int32)
    for m in range(1 << 13):
        kept, left = 0, k
        for r in range(12, -1, -1):
            if left and m >> r & 1:
                kept |= 1 << r
                left -= 1
        out[m] = kept
    return out


TOP1, TOP2, TOP3, TOP5 = (_top_bits(k) for k in (1, 2, 3, 5))

#: card identity -> its bit number in a poker mask (16·suit + rank)
MASK_BIT = np.array([16 * (i // 13) + i % 13 for i in range(52)], dtype=np.uint64)
#: card identity -> its poker-mask bit
BIT = np.left_shift(np.uint64(1), MASK_BIT)


def card_masks(ids: np.ndarray) -> np.ndarray:
    """The poker mask (uint64) of each row of card identities (distinct cards within a row)."""
    ids = np.asarray(ids)
    out = BIT[ids[..., 0]]
    for j in range(1, ids.shape[-1]):
        out = out | BIT[ids[..., j]]
    return out


def suit_masks(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The four 13-bit rank masks (clubs, diamonds, hearts, spades) of poker masks, as int32."""
    lo = np.uint64(RANK_BITS)
    c, d, h, s = ((np.right_shift(mask, np.uint64(16 * suit)) & lo).astype(np.int32) for suit in range(4))
    return c, d, h, s


# --------------------------------------------------------------------------- poker evaluation

def poker_key(mask: np.ndarray) -> np.ndarray:
    """The poker value (int32, higher beats lower, equal ties) of the best five cards of each
    row's 5 to 7 cards (one deck: no card twice), see the module doc."""
    s0, s1, s2, s3 = suit_masks(mask)
    ranks = s0 | s1 | s2 | s3
    m2 = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    m3 = (s0 & s1 & s2) | (s0 & s1 & s3) | (s0 & s2 & s3) | (s1 & s2 & s3)
    m4 = s0 & s1 & s2 & s3
    n2 = POPCOUNT[m2]

    def key(cat: int, primary: np.ndarray, kickers: np.ndarray | int = 0) -> np.ndarray:
        return (cat << CATEGORY_SHIFT) | (primary << 13) | kickers

    out = key(HIGH_CARD, TOP5[ranks])
    one = n2 == 1
    out = np.where(one, key(PAIR, m2, TOP3[ranks & ~m2]), out)
    two_pairs = TOP2[m2]
    out = np.where(n2 >= 2, key(TWO_PAIR, two_pairs, TOP1[ranks & ~two_pairs]), out)
    has3 = m3 != 0
    trip = TOP1[m3]
    out = np.where(has3 & one, key(TRIPS, m3, TOP2[ranks & ~m3]), out)
    sh = STRAIGHT_HIGH[ranks]
    out = np.where(sh != 0, key(STRAIGHT, sh), out)
    # the flush suit's rank mask (0: none; of 7 cards at most one suit holds five)
    flush = np.where(POPCOUNT[s3] >= 5, s3, 0)
    for suit in (s2, s1, s0):
        flush = np.where(POPCOUNT[suit] >= 5, suit, flush)
    out = np.where(flush != 0, key(FLUSH, TOP5[flush]), out)
    out = np.where(has3 & (n2 >= 2), key(FULL_HOUSE, trip, TOP1[m2 & ~trip]), out)
    out = np.where(m4 != 0, key(QUADS, m4, TOP1[ranks & ~m4]), out)
    sfh = STRAIGHT_HIGH[flush]
    out = np.where(sfh != 0, key(STRAIGHT_FLUSH, sfh), out)
    out = np.where(sfh == 1 << ACE, key(ROYAL_FLUSH, sfh), out)
    return out


def category_of_key(key: np.ndarray) -> np.ndarray:
    return key >> CATEGORY_SHIFT


def pair_rank_of_key(key: np.ndarray) -> np.ndarray:
    """The rank index (0 a two … 12 an ace) of the pair of one-pair keys: the primary mask's
    one bit (meaningless for the other categories)."""
    primary = (key >> 13) & RANK_BITS
    return np.log2(np.maximum(primary, 1)).astype(np.int64)
