"""Exact RTP of the poker side wagers: Ultimate Texas Hold 'Em Trips E, Bad Beat C, Play the Board
A–C, Ultimate Pairs A–F (ch. 653b) and Criss-Cross Ultimate Pairs A–E (§ 674b.1).

RTP is the expected amount returned per unit wagered, the returned stake of a winning wager
included: Σ over hand classes P(class)·(1 + N) for a row paying "N to 1", 0 for a losing class.
Every class is paid through the paytable's own ``row_for`` — the code that settles a round — so
RTP and settlement cannot disagree. Ultimate Texas Hold 'Em and Criss-Cross are dealt from one
52-card deck; every deal equally likely; no payout limit; no rounding to the cent.

Where the probabilities come from (all exact integers over the number of deals):

* Trips: the player's best five of seven cards, C(52, 7) = 133,784,560 hands by category —
  cached in ``rules/data/uth_exact_counts.toml`` (``uth_counts().seven_card``), re-derived two
  independent ways (``rules.poker.category_counts(7)``, by rank multiset and suit pattern, ~1 s;
  and ``derive_uth_counts()``, every deal ranked by the evaluator, ~1–2 min).
* Play the Board: the five community cards, C(52, 5) = 2,598,960 boards, by category and pair
  rank (``rules.poker.category_counts(5)`` / ``pair_rank_counts(5)``, milliseconds), checked
  against the cache.
* Bad Beat: every ordered deal of board (5), player (2) and dealer (2): C(52,5)·C(47,2)·C(45,2) =
  2,781,381,002,400 deals, counted by ``derive_uth_counts()`` and cached (see there). With the
  reading ``PLAYER_LOSES`` the wager wins on the deals where the player's hand loses with
  three-of-a-kind or better; with ``LOSING_HAND`` also where the dealer's hand loses so: the
  player and the dealer are exchangeable (two cards each from the same deck), so those deals are
  as many, class by class, and the two events are disjoint — exactly twice the counts.
* Ultimate Pairs / Criss-Cross Ultimate Pairs: every one of the C(52, 2) = 1,326 two-card hands
  settled; for UTH paytable F each also against the dealer's C(50, 2) = 1,225 two-card hands,
  taken as "dealer ace/ace" (C(aces left, 2) of them) or not.

Entry point for the CLI: ``RTP_WAGERS[name](paytable, decks)`` and ``PAYTABLES_OF[name]``.
Regenerate the cache: ``python -m rules.poker_side_rtp --write-cache`` (overwrites the file).
"""

from __future__ import annotations

import sys
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from itertools import combinations
from math import comb
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from rules import criss_cross, uth
from rules.cards import ACE, deck
from rules.poker import (
    HAND_VALUES, HandCategory, category_counts, category_of_rank, pair_rank_counts, pair_rank_of_rank, rank5, rank7,
)
from rules.uth import BadBeatReading, CategoryPaytable, HandClass, PairsPaytable

UTH_COUNTS_RESOURCE = "data/uth_exact_counts.toml"
#: Ordered UTH deals: board (5) x player (2) x dealer (2) from one deck.
UTH_DEALS = comb(52, 5) * comb(47, 2) * comb(45, 2)


# --------------------------------------------------------------------------- exact counts

@dataclass(frozen=True)
class UthCounts:
    """Exact counts over one 52-card deck.

    ``seven_card``: the C(52, 7) seven-card hands by the category of their best five.
    ``board`` / ``board_pair_rank``: the C(52, 5) five-card boards by category / one-pair boards
    by the rank of the pair. ``player_loses``: of the ``deals`` ordered deals (board, player's two,
    dealer's two), those where the player's hand loses to the dealer's, by the player's category;
    ``ties``: those where the two hands tie."""

    seven_card: Mapping[HandCategory, int]
    board: Mapping[HandCategory, int]
    board_pair_rank: Mapping[int, int]
    player_loses: Mapping[HandCategory, int]
    ties: int
    deals: int


def _canonical_boards() -> tuple[np.ndarray, np.ndarray]:
    """The suit-isomorphism classes of the C(52, 5) boards: (keys, weights).

    A board is its four per-suit rank masks (13 bits each); a permutation of the suits permutes
    the masks, so the sorted masks are the class. ``key`` packs them (suit 0 the smallest mask);
    ``weight``: how many of the 2,598,960 boards are in the class (134,459 classes)."""
    from itertools import chain

    ids = np.fromiter(chain.from_iterable(combinations(range(52), 5)), dtype=np.int64,
                      count=comb(52, 5) * 5).reshape(-1, 5)
    suit, rank = ids & 3, ids >> 2
    masks = np.stack([((suit == s) << rank).sum(axis=1) for s in range(4)], axis=1)
    masks.sort(axis=1)
    key = masks[:, 0] | (masks[:, 1] << 13) | (masks[:, 2] << 26) | (masks[:, 3] << 39)
    keys, weights = np.unique(key, return_counts=True)
    return keys, weights


def _board_of_key(key: int) -> list[int]:
    out = []
    for s in range(4):
        m = (key >> (13 * s)) & 0x1FFF
        out += [r * 4 + s for r in range(13) if m >> r & 1]
    return out


def derive_uth_counts(batch: int = 2000, progress: Callable[[int, int], None] | None = None) -> UthCounts:
    """Derive ``UthCounts`` by exact enumeration (~1–2 minutes on one core).

    For each suit-isomorphism class of the board (134,459, weighted to 2,598,960 boards), the
    C(47, 2) = 1,081 hole pairs of the other 47 cards are ranked as seven-card hands by the
    evaluator (``rules.poker.rank7``, phevaluator). For a player's pair p = {i, j} the dealer's
    pairs that beat it and share no card with it are, by inclusion–exclusion,
    #(pairs better than p) − #(better pairs holding i) − #(better pairs holding j) — no better
    pair holds both i and j (that is p itself). Ties likewise (+1: p ties itself). Each seven-card
    hand is a board and a hole pair in C(7, 2) = 21 ways, so the seven-card counts are the
    board-weighted hole-pair counts / 21."""
    keys, weights = _canonical_boards()
    pairs = np.array(list(combinations(range(47), 2)), dtype=np.int64)  # (1081, 2)
    n_pairs = len(pairs)
    holding = np.zeros((47, 46), dtype=np.int64)  # pairs holding each of the 47 cards
    fill = np.zeros(47, dtype=np.int64)
    for k, (i, j) in enumerate(pairs):
        holding[i, fill[i]] = k
        holding[j, fill[j]] = k
        fill[i] += 1
        fill[j] += 1
    lut = np.array([0] + [int(category_of_rank(r)) for r in range(1, HAND_VALUES + 1)], dtype=np.int64)
    span = 8192  # > HAND_VALUES: one block of ranks per row in a flattened search
    seven = np.zeros(10, dtype=np.int64)
    loses = np.zeros(10, dtype=np.int64)
    board_cat = np.zeros(10, dtype=np.int64)
    board_pair: dict[int, int] = {}
    ties = 0
    pi, pj = pairs[:, 0], pairs[:, 1]
    pair_list = [(int(i), int(j)) for i, j in pairs]
    for start in range(0, len(keys), batch):
        ks, ws = keys[start:start + batch].tolist(), weights[start:start + batch]
        b = len(ks)
        sc = np.empty((b, n_pairs), dtype=np.int64)
        for row, key in enumerate(ks):
            board = _board_of_key(key)
            on_board = set(board)
            rest = [c for c in range(52) if c not in on_board]
            c1, c2, c3, c4, c5 = board
            sc[row] = [rank7(c1, c2, c3, c4, c5, rest[i], rest[j]) for i, j in pair_list]
            r5 = rank5(c1, c2, c3, c4, c5)
            w = int(ws[row])
            board_cat[int(category_of_rank(r5))] += w
            if category_of_rank(r5) is HandCategory.PAIR:
                pr = pair_rank_of_rank(r5)
                board_pair[pr] = board_pair.get(pr, 0) + w
        # "better" = a smaller phevaluator rank. All pairs of a board:
        base = (np.arange(b, dtype=np.int64) * span)[:, None]
        flat = (np.sort(sc, axis=1) + base).ravel()
        q = (sc + base).ravel()
        first = (np.arange(b, dtype=np.int64) * n_pairs)[:, None]
        better_all = np.searchsorted(flat, q, "left").reshape(b, n_pairs) - first
        equal_all = np.searchsorted(flat, q, "right").reshape(b, n_pairs) - first - better_all
        # The 46 pairs holding each card, per board:
        rows = np.arange(b, dtype=np.int64)[:, None] * 47
        per_card = np.sort(sc[:, holding], axis=2) + ((rows + np.arange(47)) * span)[:, :, None]
        flat_c = per_card.ravel()

        def count(card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            qc = sc + (rows + card[None, :]) * span
            lo = np.searchsorted(flat_c, qc.ravel(), "left").reshape(b, n_pairs)
            hi = np.searchsorted(flat_c, qc.ravel(), "right").reshape(b, n_pairs)
            row0 = (rows + card[None, :]) * 46
            return lo - row0, hi - lo

        better_i, equal_i = count(pi)
        better_j, equal_j = count(pj)
        dealer_better = better_all - better_i - better_j
        tie = equal_all - equal_i - equal_j + 1
        cats = lut[sc].ravel()
        wcol = ws.astype(np.int64)[:, None]
        # float64 sums of integers well below 2**53 in a batch: exact, then back to int64
        loses += np.bincount(cats, (dealer_better * wcol).ravel(), 10).round().astype(np.int64)
        seven += np.bincount(cats, np.broadcast_to(wcol, sc.shape).ravel(), 10).round().astype(np.int64)
        ties += int((tie * wcol).sum())
        if progress is not None:
            progress(start + b, len(keys))
    assert (seven % 21 == 0).all()
    cats_desc = list(reversed(HandCategory))
    return UthCounts(
        seven_card=MappingProxyType({c: int(seven[c]) // 21 for c in cats_desc}),
        board=MappingProxyType({c: int(board_cat[c]) for c in cats_desc}),
        board_pair_rank=MappingProxyType({r: board_pair.get(r, 0) for r in range(14, 1, -1)}),
        player_loses=MappingProxyType({c: int(loses[c]) for c in cats_desc}),
        ties=ties,
        deals=UTH_DEALS,
    )


def _check(counts: UthCounts) -> UthCounts:
    assert sum(counts.seven_card.values()) == comb(52, 7), "seven-card counts do not sum to C(52, 7)"
    assert sum(counts.board.values()) == comb(52, 5), "board counts do not sum to C(52, 5)"
    assert sum(counts.board_pair_rank.values()) == counts.board[HandCategory.PAIR]
    # every deal: the player loses, the dealer loses (as many, by symmetry) or they tie
    assert 2 * sum(counts.player_loses.values()) + counts.ties == counts.deals == UTH_DEALS
    return counts


def counts_to_toml(counts: UthCounts, provenance: Mapping[str, Any]) -> str:
    """The cache file's text."""
    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def table(name: str, comment: str, items: Mapping[Any, int], extra: Mapping[str, int] | None = None) -> list[str]:
        out = [f"# {comment}", f"[{name}]"]
        out += [f"{k} = {v}" for k, v in (extra or {}).items()]
        out += [f"{q(str(k))} = {v}" for k, v in items.items()]
        return out + [""]

    lines = ["# Exact counts for Ultimate Texas Hold 'Em (one 52-card deck: board 5, player 2, dealer 2 cards).",
             "# Generated by `python -m rules.poker_side_rtp --write-cache`; do not edit by hand.",
             "# Tests re-derive every number (the slow ones by full enumeration).", "",
             "[provenance]"]
    lines += [f"{k} = {q(str(v))}" for k, v in provenance.items()] + [""]
    lines += table("seven_card", "The player's best five of seven cards: all C(52, 7) hands by category.",
                   counts.seven_card, {"total": comb(52, 7)})
    lines += table("board", "The five community cards: all C(52, 5) boards by category.",
                   counts.board, {"total": comb(52, 5)})
    lines += table("board_pair_rank", "One-pair boards by the rank of the pair (14 = aces).", counts.board_pair_rank)
    lines += table("player_loses",
                   "Ordered deals (board, player's 2, dealer's 2) where the player's hand loses to the dealer's, "
                   "by the player's category.", counts.player_loses, {"deals": counts.deals, "ties": counts.ties})
    return "\n".join(lines)


def counts_from_toml(text: str) -> tuple[UthCounts, dict[str, str]]:
    """Parse the cache file's text; checks its totals."""
    doc = tomllib.loads(text)

    def cats(t: dict[str, int]) -> Mapping[HandCategory, int]:
        return MappingProxyType({HandCategory.parse(k): v for k, v in t.items() if k not in ("total", "deals", "ties")})

    if doc["seven_card"]["total"] != comb(52, 7) or doc["board"]["total"] != comb(52, 5):
        raise ValueError("the UTH counts cache has the wrong totals")
    counts = UthCounts(
        seven_card=cats(doc["seven_card"]), board=cats(doc["board"]),
        board_pair_rank=MappingProxyType({int(k): v for k, v in doc["board_pair_rank"].items()}),
        player_loses=cats(doc["player_loses"]), ties=doc["player_loses"]["ties"], deals=doc["player_loses"]["deals"])
    return _check(counts), dict(doc["provenance"])


@cache
def uth_counts() -> UthCounts:
    """The cached exact counts (``rules/data/uth_exact_counts.toml``)."""
    return counts_from_toml((resources.files("rules") / UTH_COUNTS_RESOURCE).read_text(encoding="utf-8"))[0]


def uth_counts_provenance() -> dict[str, str]:
    return counts_from_toml((resources.files("rules") / UTH_COUNTS_RESOURCE).read_text(encoding="utf-8"))[1]


# --------------------------------------------------------------------------- RTP

@dataclass(frozen=True)
class SideWagerRtp:
    """The RTP of one side wager under one paytable. ``outcomes``: paytable row (or "loses") ->
    number of the ``total`` equally likely deals ending there."""

    wager: str
    paytable: str
    rtp_exact: Fraction
    method: str
    outcomes: Mapping[str, int]
    total: int

    def to_json(self) -> dict[str, Any]:
        return {"wager": self.wager, "rtp": float(self.rtp_exact),
                "rtp_exact": f"{self.rtp_exact.numerator}/{self.rtp_exact.denominator}",
                "method": self.method, "paytable": self.paytable}

    @property
    def hit_probability(self) -> Fraction:
        return Fraction(self.total - self.outcomes.get("loses", 0), self.total)


def _rtp(wager: str, table: uth.PokerPaytable, outcomes: Mapping[str | None, int], total: int) -> SideWagerRtp:
    assert sum(outcomes.values()) == total, (wager, sum(outcomes.values()), total)
    ret = sum((k * (1 + table.payout(row).ratio) for row, k in outcomes.items() if row is not None), Fraction(0))
    named = {("loses" if r is None else r): k for r, k in outcomes.items()}
    order = [r for r, _ in table.rows if r in named] + (["loses"] if "loses" in named else [])
    return SideWagerRtp(wager, table.name, ret / total, "exact", MappingProxyType({r: named[r] for r in order}), total)


def _by_row(table: CategoryPaytable, classes: Mapping[HandClass, int]) -> dict[str | None, int]:
    out: dict[str | None, int] = {}
    for hc, k in classes.items():
        row = table.row_for(hc)
        out[row] = out.get(row, 0) + k
    return out


def _category_classes(counts: Mapping[HandCategory, int], table: CategoryPaytable) -> dict[HandClass, int]:
    if any(r == "Pair—10s or better" for r, _ in table.rows):
        raise ValueError(f"{table.label} reads the rank of a pair: category counts are not enough")
    return {(c, None): k for c, k in counts.items()}


def trips_rtp(paytable: str) -> SideWagerRtp:
    """§ 653b.2: the player's best five of seven over all C(52, 7) hands."""
    t = uth.pick_paytable(uth.TRIPS_PAYTABLES, paytable, "Trips", "§ 653b.2(b)")
    assert isinstance(t, CategoryPaytable)
    counts = uth_counts().seven_card
    return _rtp("uth-trips", t, _by_row(t, _category_classes(counts, t)), comb(52, 7))


def play_the_board_rtp(paytable: str) -> SideWagerRtp:
    """§ 653b.4: the five community cards over all C(52, 5) boards (by category and pair rank)."""
    t = uth.pick_paytable(uth.PLAY_THE_BOARD_PAYTABLES, paytable, "Play the Board", "§ 653b.4(f)")
    assert isinstance(t, CategoryPaytable)
    classes: dict[HandClass, int] = {(c, None): k for c, k in category_counts(5).items() if c is not HandCategory.PAIR}
    classes |= {(HandCategory.PAIR, r): k for r, k in pair_rank_counts(5).items()}
    return _rtp("play-the-board", t, _by_row(t, classes), comb(52, 5))


BAD_BEAT_WAGER_NAMES = MappingProxyType({
    BadBeatReading.LOSING_HAND: "uth-bad-beat (losing hand, player's or dealer's)",
    BadBeatReading.PLAYER_LOSES: "uth-bad-beat (player's hand loses)",
})


def bad_beat_rtp(paytable: str, reading: BadBeatReading | str) -> SideWagerRtp:
    """§ 653b.3 under ``reading``, over all 2,781,381,002,400 ordered deals (see module doc)."""
    reading = BadBeatReading(reading)
    t = uth.pick_paytable(uth.BAD_BEAT_PAYTABLES, paytable, "Bad Beat", "§ 653b.3(b)")
    assert isinstance(t, CategoryPaytable)
    c = uth_counts()
    k = 2 if reading is BadBeatReading.LOSING_HAND else 1
    paid = _by_row(t, _category_classes({cat: k * n for cat, n in c.player_loses.items()}, t))
    lost = paid.pop(None, 0) + c.deals - k * sum(c.player_loses.values())
    return _rtp(BAD_BEAT_WAGER_NAMES[reading], t, paid | {None: lost}, c.deals)


def pairs_rtp(wager: str, table: PairsPaytable) -> SideWagerRtp:
    """Every two-card hand of one deck settled by ``table.row_for``; a paytable that reads the
    dealer's cards (UTH F) against every dealer two-card hand of the other 50 cards, split into
    "dealer ace/ace" (C(aces left, 2)) and the rest, each settled with one representative."""
    cards = deck()
    outcomes: dict[str | None, int] = {}
    for player in combinations(cards, 2):
        if not table.uses_dealer_cards:
            row = table.row_for(player)
            outcomes[row] = outcomes.get(row, 0) + 1
            continue
        left = [c for c in cards if c not in player]
        aces = [c for c in left if c.rank == ACE]
        others = [c for c in left if c.rank != ACE]
        n_aa = comb(len(aces), 2)
        for dealer, n in (((aces[0], aces[1]) if n_aa else None, n_aa), ((others[0], others[1]), comb(50, 2) - n_aa)):
            if n:
                assert dealer is not None
                row = table.row_for(player, dealer)
                outcomes[row] = outcomes.get(row, 0) + n
    total = comb(52, 2) * (comb(50, 2) if table.uses_dealer_cards else 1)
    return _rtp(wager, table, outcomes, total)


def ultimate_pairs_rtp(paytable: str) -> SideWagerRtp:
    t = uth.pick_paytable(uth.ULTIMATE_PAIRS_PAYTABLES, paytable, "Ultimate Pairs", "§ 653b.5(f)")
    assert isinstance(t, PairsPaytable)
    return pairs_rtp("ultimate-pairs", t)


def criss_cross_ultimate_pairs_rtp(paytable: str) -> SideWagerRtp:
    return pairs_rtp("criss-cross-ultimate-pairs", criss_cross.paytable(paytable))


# --------------------------------------------------------------------------- CLI entry point

#: CLI wager name -> its paytables, as the regulation names them.
PAYTABLES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "uth-trips": tuple(uth.TRIPS_PAYTABLES),
    "uth-bad-beat": tuple(uth.BAD_BEAT_PAYTABLES),
    "play-the-board": tuple(uth.PLAY_THE_BOARD_PAYTABLES),
    "ultimate-pairs": tuple(uth.ULTIMATE_PAIRS_PAYTABLES),
    "criss-cross-ultimate-pairs": tuple(criss_cross.ULTIMATE_PAIRS_PAYTABLES),
})

_GAME = {"uth-trips": "Ultimate Texas Hold 'Em", "uth-bad-beat": "Ultimate Texas Hold 'Em",
         "play-the-board": "Ultimate Texas Hold 'Em", "ultimate-pairs": "Ultimate Texas Hold 'Em",
         "criss-cross-ultimate-pairs": "Criss-Cross Poker"}


RtpFunction = Callable[[str | None, int | None], tuple[SideWagerRtp, ...]]


def _entry(name: str, one: Callable[[str], tuple[SideWagerRtp, ...]]) -> RtpFunction:
    def rtp(paytable: str | None, decks: int | None = None) -> tuple[SideWagerRtp, ...]:
        if decks is not None and (isinstance(decks, bool) or decks != 1):
            raise ValueError(f"{name}: {_GAME[name]} is dealt from one 52-card deck; the exact RTP is for one "
                             f"deck (decks 1 or none given), not decks={decks!r}")
        names = PAYTABLES_OF[name]
        if paytable is None:
            return tuple(e for n in names for e in one(n))
        key = uth.paytable_key(paytable)
        if key not in names:
            raise ValueError(f"{name}: no paytable {paytable!r}; the regulation has {', '.join(names)}")
        return one(key)

    rtp.__name__ = rtp.__qualname__ = f"rtp_{name.replace('-', '_')}"
    rtp.__doc__ = f"Exact RTP of {name} under ``paytable`` ({', '.join(PAYTABLES_OF[name])}; None: all)."
    return rtp


#: CLI wager name -> (paytable or None for all, decks None/1) -> RTP entries (``.to_json()``).
#: "uth-bad-beat" gives one entry per ``BadBeatReading`` (losing hand first).
RTP_WAGERS: Mapping[str, RtpFunction] = MappingProxyType({
    "uth-trips": _entry("uth-trips", lambda p: (trips_rtp(p),)),
    "uth-bad-beat": _entry("uth-bad-beat", lambda p: tuple(bad_beat_rtp(p, r) for r in BadBeatReading)),
    "play-the-board": _entry("play-the-board", lambda p: (play_the_board_rtp(p),)),
    "ultimate-pairs": _entry("ultimate-pairs", lambda p: (ultimate_pairs_rtp(p),)),
    "criss-cross-ultimate-pairs": _entry("criss-cross-ultimate-pairs", lambda p: (criss_cross_ultimate_pairs_rtp(p),)),
})


def rtp_table() -> tuple[SideWagerRtp, ...]:
    """Every wager under every paytable."""
    return tuple(e for f in RTP_WAGERS.values() for e in f(None, None))


# --------------------------------------------------------------------------- cache regeneration

def write_cache(path: Path) -> UthCounts:
    """Derive the counts (``derive_uth_counts``), check them and write the cache file."""
    import platform
    from importlib.metadata import version

    t0 = time.perf_counter()
    counts = _check(derive_uth_counts())
    elapsed = time.perf_counter() - t0
    assert dict(counts.seven_card) == category_counts(7), "the evaluator and the combinatorial counts disagree"
    assert dict(counts.board) == category_counts(5) and dict(counts.board_pair_rank) == pair_rank_counts(5)
    provenance = {
        "method": "exact enumeration: the 134,459 suit-isomorphism classes of the 5-card board (weights summing to "
                  "C(52,5) = 2,598,960) x the C(47,2) = 1,081 hole pairs of the other 47 cards, each 7-card hand ranked "
                  "by the evaluator; the dealer's pairs beating or tying each player pair counted by inclusion-exclusion "
                  "on the two shared cards; 7-card counts = board-weighted hole-pair counts / 21",
        "derived_by": "rules.poker_side_rtp.derive_uth_counts",
        "evaluator": f"phevaluator {version('phevaluator')}",
        "cross_checked": "seven_card and board equal rules.poker.category_counts(7) / (5) and pair_rank_counts(5) "
                         "(rank multiset x suit pattern, no evaluator)",
        "compute_time_s": f"{elapsed:.0f}",
        "python": platform.python_version(),
    }
    path.write_text(counts_to_toml(counts, provenance) + "\n", encoding="utf-8")
    return counts


if __name__ == "__main__":  # pragma: no cover - regeneration by hand
    if sys.argv[1:] != ["--write-cache"]:
        sys.exit("usage: python -m rules.poker_side_rtp --write-cache")
    target = Path(__file__).with_name("data") / Path(UTH_COUNTS_RESOURCE).name
    write_cache(target)
    print(f"wrote {target}")

#: the deck counts ``croupier rtp`` shows by default: these games deal from one 52-card deck
DEFAULT_DECKS = (1,)
