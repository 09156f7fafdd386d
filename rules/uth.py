"""Ultimate Texas Hold 'Em side wagers (58 Pa. Code ch. 653b, Pa.B. 54-1537): Trips paytable E
(§ 653b.2), Bad Beat bonus paytable C (§ 653b.3), Play the Board (§ 653b.4), Ultimate Pairs
(§ 653b.5) — paytables and settlement.

Pure: frozen dataclasses and functions, no I/O. Odds are exact ``rules.odds.ToOne`` ("N to 1":
the stake is returned and N times the stake paid); money is integer cents. Hands are ranked by
``rules.poker`` (best five of the player's two cards and the five community cards, § 653a.1
"Hand"). One 52-card deck: a card appears once.

The paytables are transcribed below as the rows of the Bulletin's tables, header first, and parsed
at import, so a reviewer can compare them with the regulation row by row. A cell "n/a" is a row
the paytable does not have.

Which hand each wager reads:

* Trips (§ 653b.2): the player's hand — the best five of the player's two cards and the board.
* Bad Beat (§ 653b.3): the *losing* hand against the other, three-of-a-kind or better. Whose hand
  that is, is in § 653a.7(d)(6) / § 653a.12(g), which are not among the supplied texts; both
  readings are implemented and must be chosen explicitly (``BadBeatReading``; see
  docs/rules-poker-side-wagers.md). A tie loses nothing and wins nothing for either hand: neither
  hand "loses", so the wager loses.
* Play the Board (§ 653b.4(e)): the five community cards alone.
* Ultimate Pairs (§ 653b.5(e)): the player's two individual cards; paytable F also the dealer's
  two cards (row "Ace/ace and dealer ace/ace").

A wager that wins is paid at the row of its hand; a hand on more than one row (an ace of hearts
and ace of diamonds is also "Ace/ace"; suited ace/king is also "Ace/king") is paid at the one row
that pays most — on every paytable that is the more specific row. A folded player's Play the
Board and Ultimate Pairs wagers stay on the table until settled (§ 653b.4(c), § 653b.5(c)), so
settlement reads the cards only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from rules.cards import ACE, JACK, KING, QUEEN, Card
from rules.odds import ToOne
from rules.poker import HandCategory, HandValue, as_cards, evaluate

# --------------------------------------------------------------------------- paytables as text

#: § 653b.2(b), verbatim.
TRIPS_ROWS = """
| Hand | Paytable E |
|---|
| Royal flush | 50 to 1 |
| Straight flush | 40 to 1 |
| Four-of-a-kind | 30 to 1 |
| Full house | 7 to 1 |
| Flush | 6 to 1 |
| Straight | 5 to 1 |
| Three-of-a-kind | 3 to 1 |
"""

#: § 653b.3(b), verbatim.
BAD_BEAT_ROWS = """
| Hand | Paytable C |
|---|
| Straight flush | 2,500 to 1 |
| Four-of-a-kind | 500 to 1 |
| Full house | 50 to 1 |
| Flush | 30 to 1 |
| Straight | 20 to 1 |
| Three-of-a-kind | 9 to 1 |
"""

#: § 653b.4(f), verbatim.
PLAY_THE_BOARD_ROWS = """
| Hand | Paytable A | Paytable B | Paytable C |
|---|
| Royal flush | 1,000 to 1 | 1,000 to 1 | 1,000 to 1 |
| Straight flush | 200 to 1 | 200 to 1 | 200 to 1 |
| Four-of-a-kind | 100 to 1 | 100 to 1 | 100 to 1 |
| Full house | 50 to 1 | 50 to 1 | 50 to 1 |
| Flush | 40 to 1 | 40 to 1 | 40 to 1 |
| Straight | 25 to 1 | 25 to 1 | 20 to 1 |
| Three-of-a-kind | 7 to 1 | 6 to 1 | 6 to 1 |
| Two pair | 3 to 1 | 3 to 1 | 3 to 1 |
| Pair—10s or better | 1 to 1 | 1 to 1 | 1 to 1 |
"""

#: § 653b.5(f), verbatim: the two tables (A–C, D–F).
ULTIMATE_PAIRS_ROWS = """
| Player's Individual Two Cards | Paytable A | Paytable B | Paytable C |
|---|
| Ace/ace and dealer ace/ace | n/a | n/a | n/a |
| Ace of hearts and ace of diamonds | n/a | n/a | 100 to 1 |
| Ace/ace | 30 to 1 | 30 to 1 | 30 to 1 |
| Ace/king (suited) | 25 to 1 | 20 to 1 | 20 to 1 |
| Ace/queen (suited) or player ace/jack (suited) | 20 to 1 | 20 to 1 | 20 to 1 |
| Ace/king | 15 to 1 | 10 to 1 | 10 to 1 |
| King/king, queen/queen or jack/jack | 10 to 1 | 5 to 1 | 4 to 1 |
| Ace/queen or ace/jack | 5 to 1 | 10 to 1 | 10 to 1 |
| Pair—10s or less | 3 to 1 | 5 to 1 | 4 to 1 |
| Player's Individual Two Cards | Paytable D | Paytable E | Paytable F |
|---|
| Ace/ace and dealer ace/ace | n/a | n/a | 1,000 to 1 |
| Ace of hearts and ace of diamonds | 50 to 1 | n/a | n/a |
| Ace/ace | 25 to 1 | 25 to 1 | 30 to 1 |
| Ace/king (suited) | 20 to 1 | 20 to 1 | 25 to 1 |
| Ace/queen (suited) or player ace/jack (suited) | 20 to 1 | 20 to 1 | 20 to 1 |
| Ace/king | 10 to 1 | 10 to 1 | 15 to 1 |
| King/king, queen/queen or jack/jack | 5 to 1 | 5 to 1 | 10 to 1 |
| Ace/queen or ace/jack | 10 to 1 | 10 to 1 | 5 to 1 |
| Pair—10s or less | 5 to 1 | 5 to 1 | 3 to 1 |
"""


# --------------------------------------------------------------------------- parsing

def _payout(cell: str) -> ToOne | None:
    """One cell: "N to 1" (commas allowed) or "n/a" (None)."""
    cell = cell.strip()
    if cell == "n/a":
        return None
    m = re.fullmatch(r"([\d,]+) to 1", cell)
    if m is None:
        raise ValueError(f"not a payout cell: {cell!r}")
    return ToOne(int(m[1].replace(",", "")))


def parse_table_rows(text: str) -> dict[str, tuple[tuple[str, ToOne | None], ...]]:
    """Paytable name -> ((row label, payout or None for "n/a"), …) in the text's order.

    The text is one or more tables, each a header row "| <what> | Paytable A | … |", a "|---|"
    line and its rows "| label | cell | … |"."""
    tables: dict[str, list[tuple[str, ToOne | None]]] = {}
    names: list[str] = []
    for line in text.strip().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["---"]:
            continue
        if all(c.startswith("Paytable ") for c in cells[1:]) and len(cells) > 1:
            names = [c.removeprefix("Paytable ") for c in cells[1:]]
            for n in names:
                if n in tables:
                    raise ValueError(f"paytable {n} transcribed twice")
                tables[n] = []
            continue
        label, *payouts = cells
        if len(payouts) != len(names):
            raise ValueError(f"row {label!r} has {len(payouts)} cells for {len(names)} paytables")
        for n, cell in zip(names, payouts, strict=True):
            tables[n].append((label, _payout(cell)))
    return {n: tuple(rows) for n, rows in tables.items()}


# --------------------------------------------------------------------------- paytables

#: A hand class read by the category paytables: (category, rank of the pair for a one-pair hand).
HandClass = tuple[HandCategory, int | None]


def hand_class(value: HandValue) -> HandClass:
    return value.category, value.pair_rank


def _category_row(label: str) -> Callable[[HandClass], bool]:
    """The hand classes a row of §§ 653b.2–653b.4 names: a category, or "Pair—10s or better"."""
    if label == "Pair—10s or better":
        return lambda hc: hc[0] is HandCategory.PAIR and hc[1] is not None and hc[1] >= 10
    cat = HandCategory.parse(label)
    return lambda hc: hc[0] is cat


@dataclass(frozen=True)
class PokerPaytable:
    """One paytable: its rows as the regulation lists them (``rows``: label, payout; "n/a" rows
    dropped), the wager it belongs to and the subsection it is transcribed from."""

    wager: str
    name: str
    section: str
    rows: tuple[tuple[str, ToOne], ...]

    @property
    def label(self) -> str:
        return f"{self.wager} Paytable {self.name} ({self.section})"

    def payout(self, row: str) -> ToOne:
        for label, p in self.rows:
            if label == row:
                return p
        raise ValueError(f"{self.label} has no row {row!r}")


@dataclass(frozen=True)
class CategoryPaytable(PokerPaytable):
    """A paytable of hand categories (Trips, Bad Beat, Play the Board)."""

    def row_for(self, hc: HandClass) -> str | None:
        """The row that pays hand class ``hc`` (None: no row, the wager loses). A royal flush is
        a straight flush on a paytable without a "Royal flush" row (Bad Beat C)."""
        cat, pair = hc
        if cat is HandCategory.ROYAL_FLUSH and not any(_category_row(r)(hc) for r, _ in self.rows):
            hc = (HandCategory.STRAIGHT_FLUSH, pair)
        paying = [(p.ratio, r) for r, p in self.rows if _category_row(r)(hc)]
        return max(paying)[1] if paying else None


def _category_tables(wager: str, section: str, text: str) -> Mapping[str, CategoryPaytable]:
    out = {}
    for name, rows in parse_table_rows(text).items():
        for label, _ in rows:
            _category_row(label)  # every label must name a hand class: fail at import otherwise
        out[name] = CategoryPaytable(wager, name, section, tuple((r, p) for r, p in rows if p is not None))
    return MappingProxyType(out)


TRIPS_PAYTABLES = _category_tables("Trips", "§ 653b.2(b)", TRIPS_ROWS)
BAD_BEAT_PAYTABLES = _category_tables("Bad Beat", "§ 653b.3(b)", BAD_BEAT_ROWS)
PLAY_THE_BOARD_PAYTABLES = _category_tables("Play the Board", "§ 653b.4(f)", PLAY_THE_BOARD_ROWS)


# --------------------------------------------------------------------------- Ultimate Pairs

def _pair_of(cards: tuple[Card, ...], ranks: Iterable[int]) -> bool:
    a, b = cards
    return a.rank == b.rank and a.rank in set(ranks)


def _ranks_are(cards: tuple[Card, ...], *choices: frozenset[int]) -> bool:
    return frozenset(c.rank for c in cards) in choices


def _suited(cards: tuple[Card, ...]) -> bool:
    return cards[0].suit == cards[1].suit


_AK, _AQ, _AJ = frozenset({ACE, KING}), frozenset({ACE, QUEEN}), frozenset({ACE, JACK})

#: Row label (verbatim, § 653b.5(f) / § 674b.1(f)) -> does (player's two cards, dealer's two cards
#: or None) make it.
PAIRS_ROWS: Mapping[str, Callable[[tuple[Card, ...], tuple[Card, ...] | None], bool]] = MappingProxyType({
    "Ace/ace and dealer ace/ace": lambda p, d: _pair_of(p, [ACE]) and d is not None and _pair_of(d, [ACE]),
    "Ace of hearts and ace of diamonds": lambda p, d: set(p) == {Card(ACE, "h"), Card(ACE, "d")},
    "Ace/ace": lambda p, d: _pair_of(p, [ACE]),
    "Ace/king (suited)": lambda p, d: _ranks_are(p, _AK) and _suited(p),
    "Ace/queen (suited) or player ace/jack (suited)": lambda p, d: _ranks_are(p, _AQ, _AJ) and _suited(p),
    "Ace/king": lambda p, d: _ranks_are(p, _AK),
    "King/king, queen/queen or jack/jack": lambda p, d: _pair_of(p, [KING, QUEEN, JACK]),
    "Ace/queen or ace/jack": lambda p, d: _ranks_are(p, _AQ, _AJ),
    "Pair—10s or less": lambda p, d: _pair_of(p, range(2, 11)),
})


@dataclass(frozen=True)
class PairsPaytable(PokerPaytable):
    """An Ultimate Pairs paytable (§ 653b.5(f), § 674b.1(f)): rows of the player's two cards."""

    @property
    def uses_dealer_cards(self) -> bool:
        """§ 653b.5(e): paytable F also reads the dealer's two cards."""
        return any(r == "Ace/ace and dealer ace/ace" for r, _ in self.rows)

    def row_for(self, player: tuple[Card, ...], dealer: tuple[Card, ...] | None = None) -> str | None:
        """The row that pays (the highest-paying row the cards make), None if none."""
        if self.uses_dealer_cards and dealer is None:
            raise ValueError(f"{self.label} reads the dealer's two cards too (§ 653b.5(e)): give them")
        paying = [(p.ratio, r) for r, p in self.rows if PAIRS_ROWS[r](player, dealer)]
        return max(paying)[1] if paying else None


def pairs_tables(wager: str, section: str, text: str) -> Mapping[str, PairsPaytable]:
    out = {}
    for name, rows in parse_table_rows(text).items():
        unknown = [label for label, _ in rows if label not in PAIRS_ROWS]
        if unknown:
            raise ValueError(f"{wager} Paytable {name}: unknown rows {unknown}")
        out[name] = PairsPaytable(wager, name, section, tuple((r, p) for r, p in rows if p is not None))
    return MappingProxyType(out)


ULTIMATE_PAIRS_PAYTABLES = pairs_tables("Ultimate Pairs", "§ 653b.5(f)", ULTIMATE_PAIRS_ROWS)


def paytable_key(name: str) -> str:
    """A paytable's name as the regulation gives it: "c", "Paytable C" and "paytable c" are "C"."""
    return str(name).strip().upper().removeprefix("PAYTABLE").strip()


def pick_paytable(tables: Mapping[str, PokerPaytable], name: str, wager: str, section: str) -> PokerPaytable:
    """``tables[name]`` ("c" or "Paytable C" also); ValueError naming the paytables there are."""
    key = paytable_key(name)
    if key not in tables:
        raise ValueError(f"no {wager} paytable {name!r}: {section} has {', '.join(tables)}")
    return tables[key]


# --------------------------------------------------------------------------- settlement

@dataclass(frozen=True)
class SideWagerSettlement:
    """The settlement of one side wager.

    ``hand``: which hand decided it and what it is; ``row``: the paytable row paid (None: the
    wager lost); ``returned_cents``: everything handed back, stake included (0 on a loss; stake +
    N·stake, rounded down to the cent, for "N to 1")."""

    wager: str
    paytable: str
    hand: str
    row: str | None
    payout: ToOne | None
    stake_cents: int
    returned_cents: int

    @property
    def won(self) -> bool:
        return self.row is not None

    @property
    def stake_returned(self) -> bool:
        """"N to 1": a winning wager keeps its stake; a losing one loses it."""
        return self.won

    @property
    def win_cents(self) -> int:
        """The player's gain (negative: the stake lost)."""
        return self.returned_cents - self.stake_cents


def _stake(stake_cents: int) -> int:
    if isinstance(stake_cents, bool) or not isinstance(stake_cents, int) or stake_cents <= 0:
        raise ValueError(f"a stake is a positive number of cents, not {stake_cents!r}")
    return stake_cents


def settle_row(table: PokerPaytable, row: str | None, hand: str, stake_cents: int) -> SideWagerSettlement:
    stake = _stake(stake_cents)
    payout = None if row is None else table.payout(row)
    returned = 0 if payout is None else stake + payout.profit_cents(stake)
    return SideWagerSettlement(table.wager, table.name, hand, row, payout, stake, returned)


def _deal(n_player: int, player: object, board: object, *others: tuple[str, int, object]) -> list[tuple[Card, ...]]:
    """Parse and check one deal: the player's two cards, the board's five, other hands; distinct."""
    parts = [("player", n_player, player), ("board", 5, board), *others]
    out = [as_cards(cards) for _, _, cards in parts]  # type: ignore[arg-type]
    for (who, n, _), cs in zip(parts, out, strict=True):
        if len(cs) != n:
            raise ValueError(f"the {who} has {n} cards, not {len(cs)}")
    as_cards([c for cs in out for c in cs])  # one deck: no card twice across the hands
    return out


def settle_trips(paytable: str, player: object, board: object, stake_cents: int) -> SideWagerSettlement:
    """§ 653b.2: the Trips wager on the player's hand (best five of two + five)."""
    table = pick_paytable(TRIPS_PAYTABLES, paytable, "Trips", "§ 653b.2(b)")
    p, b = _deal(2, player, board)
    v = evaluate(p + b)
    assert isinstance(table, CategoryPaytable)
    return settle_row(table, table.row_for(hand_class(v)), f"player's hand: {v}", stake_cents)


def settle_play_the_board(paytable: str, board: object, stake_cents: int) -> SideWagerSettlement:
    """§ 653b.4(e): the Play the Board wager on the five community cards, a pair of tens or better."""
    table = pick_paytable(PLAY_THE_BOARD_PAYTABLES, paytable, "Play the Board", "§ 653b.4(f)")
    b = as_cards(board)
    if len(b) != 5:
        raise ValueError(f"the board has 5 community cards, not {len(b)}")
    v = evaluate(b)
    assert isinstance(table, CategoryPaytable)
    what = f"pair of {v.pair_rank}s" if v.pair_rank else str(v)
    return settle_row(table, table.row_for(hand_class(v)), f"community cards: {what}", stake_cents)


class BadBeatReading(StrEnum):
    """Whose hand the Bad Beat bonus wager reads (§ 653a.7(d)(6) and § 653a.12(g): not supplied).

    ``LOSING_HAND`` ("two-way"): the hand that loses, the player's to the dealer's or the dealer's
    to the player's, paid at its row. ``PLAYER_LOSES``: only the player's hand, when it loses to
    the dealer's."""

    LOSING_HAND = "losing-hand"
    PLAYER_LOSES = "player-loses"


def settle_bad_beat(paytable: str, player: object, dealer: object, board: object, stake_cents: int, *,
                    reading: BadBeatReading | str) -> SideWagerSettlement:
    """§ 653b.3: the Bad Beat bonus wager. ``reading`` must be given (see ``BadBeatReading``)."""
    reading = BadBeatReading(reading)
    table = pick_paytable(BAD_BEAT_PAYTABLES, paytable, "Bad Beat", "§ 653b.3(b)")
    p, b, d = _deal(2, player, board, ("dealer", 2, dealer))
    vp, vd = evaluate(p + b), evaluate(d + b)
    assert isinstance(table, CategoryPaytable)
    if vp < vd:
        loser, hand = vp, f"player's hand ({vp}) loses to the dealer's ({vd})"
    elif vd < vp and reading is BadBeatReading.LOSING_HAND:
        loser, hand = vd, f"dealer's hand ({vd}) loses to the player's ({vp})"
    else:
        what = "tie" if vp == vd else "the player's hand beats the dealer's"
        return settle_row(table, None, f"{what}: player {vp}, dealer {vd}", stake_cents)
    return settle_row(table, table.row_for(hand_class(loser)), hand, stake_cents)


def settle_ultimate_pairs(paytable: str, player: object, stake_cents: int,
                          dealer: object | None = None) -> SideWagerSettlement:
    """§ 653b.5(e): the Ultimate Pairs wager on the player's two cards (paytable F: and the
    dealer's two cards)."""
    table = pick_paytable(ULTIMATE_PAIRS_PAYTABLES, paytable, "Ultimate Pairs", "§ 653b.5(f)")
    assert isinstance(table, PairsPaytable)
    return settle_pairs(table, player, stake_cents, dealer)


def settle_pairs(table: PairsPaytable, player: object, stake_cents: int,
                 dealer: object | None = None) -> SideWagerSettlement:
    p = as_cards(player)  # type: ignore[arg-type]
    if len(p) != 2:
        raise ValueError(f"the player has 2 cards, not {len(p)}")
    d = None if dealer is None else as_cards(dealer)  # type: ignore[arg-type]
    if d is not None:
        if len(d) != 2:
            raise ValueError(f"the dealer has 2 cards, not {len(d)}")
        as_cards(p + d)
    hand = f"player's two cards {' '.join(map(str, p))}" + (f", dealer's {' '.join(map(str, d))}" if d else "")
    return settle_row(table, table.row_for(p, d if table.uses_dealer_cards else None), hand, stake_cents)
