"""Crazy Time as code: the wheel of § 690.1, the Top Slot of § 690.3, the payout odds of
§ 690.4 and the settlement order of § 690.2(e)–(f).

Pure: frozen dataclasses and functions, no I/O, no clocks. Money is integer cents, odds are
exact (``rules.odds.ToOne``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType

from rules.frozen import quick_init
from rules.odds import ToOne


class Spot(StrEnum):
    """A symbol on the wheel and the betting option of the same name (§ 690.1(a), § 690.1(g)(2))."""

    ONE = "1"
    TWO = "2"
    FIVE = "5"
    TEN = "10"
    COIN_FLIP = "coin-flip"
    """The Coin Flip bonus game symbol (§ 690.5)."""
    CASH_HUNT = "cash-hunt"
    """The Cash Hunt bonus game symbol (§ 690.6)."""
    PACHINKO = "pachinko"
    """The Pachinko bonus game symbol (§ 690.7)."""
    CRAZY_TIME = "crazy-time"
    """The Crazy Time World bonus game symbol (§ 690.8) — not the name of the whole game."""


#: The betting options in the order of § 690.3(b)(1) (and § 690.1(g)(2)).
SPOTS: tuple[Spot, ...] = tuple(Spot)

#: The 54 sections clockwise around the rim, in the order of § 690.1(b); index 0 is the first
#: section the regulation lists. A physical wheel's index 0 may sit anywhere on the circle.
WHEEL_SECTIONS: tuple[Spot, ...] = tuple(map(Spot, """
    1 2 5 1 2 pachinko 1 5 1 2 1 coin-flip 1 2 1 10 2 cash-hunt 1 2 1 5 1 coin-flip
    1 5 2 10 1 pachinko 1 2 5 1 2 coin-flip 1 10 1 5 1 cash-hunt 1 2 5 1 2 coin-flip
    2 1 10 2 1 crazy-time
""".split()))

#: How many sections show each symbol (§ 690.1(a)).
SECTION_COUNTS: Mapping[Spot, int] = MappingProxyType({
    Spot.ONE: 21, Spot.TWO: 13, Spot.FIVE: 7, Spot.TEN: 4,
    Spot.COIN_FLIP: 4, Spot.CASH_HUNT: 2, Spot.PACHINKO: 2, Spot.CRAZY_TIME: 1,
})
assert len(WHEEL_SECTIONS) == 54 and Counter(WHEEL_SECTIONS) == SECTION_COUNTS, "§ 690.1(a)/(b) disagree"

#: "at least 5 feet in diameter" (§ 690.1(a)): 5 ft = 1.524 m exactly.
MIN_DIAMETER_M = Fraction(1524, 1000)


def layout_deviations(sections: Sequence[str], diameter_m: float) -> list[str]:
    """Every way a wheel deviates from § 690.1(a)–(b); empty if it complies.

    ``sections`` lists the wheel's symbols clockwise from the wheel's own index 0, which may sit
    anywhere on the circle: any rotation of ``WHEEL_SECTIONS`` complies, its mirror image does not.
    """
    n = len(WHEEL_SECTIONS)
    deviations = [
        f"§ 690.1(a): section {i} shows {s!r}, which is no symbol of the wheel "
        f"(expected one of {', '.join(SPOTS)})"
        for i, s in enumerate(sections) if s not in SPOTS
    ]
    if len(sections) != n:
        deviations.append(f"§ 690.1(a): the rim must have {n} equally spaced sections; found {len(sections)}")
    seen = Counter(s for s in sections if s in SPOTS)
    deviations += [
        f"§ 690.1(a): {seen[spot]} sections show {spot}; expected {count}"
        for spot, count in SECTION_COUNTS.items() if seen[spot] != count
    ]
    if len(sections) == n and not any(s not in SPOTS for s in sections):
        differ = [[i for i in range(n) if sections[i] != WHEEL_SECTIONS[(i + r) % n]] for r in range(n)]
        best = min(range(n), key=lambda r: len(differ[r]))
        if any(all(s == WHEEL_SECTIONS[(r - j) % n] for j, s in enumerate(sections)) for r in range(n)):
            deviations.append("§ 690.1(b): the sections are in the regulation's order but counter-clockwise; "
                              "they must be arranged clockwise")
        elif differ[best]:
            i = differ[best][0]
            deviations.append(
                f"§ 690.1(b): sections are not in the regulation's clockwise order; best match takes "
                f"your section 0 as the regulation's section {best} ({len(differ[best])} of {n} differ); "
                f"first difference at your section {i}: expected {WHEEL_SECTIONS[(i + best) % n]}, "
                f"found {sections[i]}"
            )
    if not diameter_m >= MIN_DIAMETER_M:
        deviations.append(
            f"§ 690.1(a): wheel diameter {diameter_m} m is not at least 5 feet ({float(MIN_DIAMETER_M)} m)"
        )
    return deviations


#: The minimum payout odds of § 690.4(a). For a bonus game the final odds are set by playing
#: it (§ 690.4(b), §§ 690.5–690.8).
BASE_ODDS: Mapping[Spot, ToOne] = MappingProxyType({
    Spot.ONE: ToOne(1), Spot.TWO: ToOne(2), Spot.FIVE: ToOne(5), Spot.TEN: ToOne(10),
    Spot.COIN_FLIP: ToOne(2), Spot.CASH_HUNT: ToOne(5), Spot.PACHINKO: ToOne(2), Spot.CRAZY_TIME: ToOne(15),
})

#: Sections that "trigger a subsequent bonus game" (§ 690.1(d)).
BONUS_SPOTS: frozenset[Spot] = frozenset({Spot.COIN_FLIP, Spot.CASH_HUNT, Spot.PACHINKO, Spot.CRAZY_TIME})

#: The Top Slot's first reel: each of the betting options (§ 690.3(b)(1)).
TOP_SLOT_REEL1: tuple[Spot, ...] = SPOTS
#: The Top Slot's second reel: the potential multipliers (§ 690.3(b)(2)).
TOP_SLOT_REEL2: tuple[int, ...] = (1, 2, 3, 4, 5, 7, 10, 15, 20)


@dataclass(frozen=True)
class TopSlotOutcome:
    """What the Top Slot showed in one round (§ 690.3(c)): a betting option on reel 1, a
    multiplier on reel 2, and whether the two reels align."""

    spot: Spot
    multiplier: int
    aligned: bool

    def __post_init__(self) -> None:
        if self.spot not in TOP_SLOT_REEL1:
            raise ValueError(f"§ 690.3(b)(1): {self.spot!r} is not on the first reel")
        object.__setattr__(self, "spot", Spot(self.spot))
        if isinstance(self.multiplier, bool) or self.multiplier not in TOP_SLOT_REEL2:
            raise ValueError(f"§ 690.3(b)(2): {self.multiplier!r} is not on the second reel {TOP_SLOT_REEL2}")

    def multiplier_for(self, spot: Spot) -> int:
        """The multiplier applied to ``spot``: the one shown if the reels align on this betting
        option (§ 690.3(c)(1)), else 1 — no multiplier (§ 690.3(c)(2))."""
        return self.multiplier if self.aligned and self.spot == spot else 1


def winning_odds(result: Spot, top_slot: TopSlotOutcome, bonus_odds: ToOne | None = None) -> ToOne:
    """The odds paid on a winning wager on ``result``.

    A number (1, 2, 5, 10): the § 690.4(a) odds times the Top Slot multiplier (§ 690.4(c)): 7× on
    5 pays 35 to 1; ``bonus_odds`` is ignored.

    A bonus game: its odds are set by playing it (§ 690.2(f), § 690.4(b), §§ 690.5–690.8), so
    ``bonus_odds`` — the final odds of the bonus game for this wager — is required and returned
    as it is. The Top Slot multiplier is already inside it: the bonus game multiplies its board by
    it before play (§ 690.5(e), § 690.6(g), § 690.7(f), § 690.8(f)), so a 10× Coin Flip under 7×
    is 70 to 1 (§ 690.4(c)), not 70 × 7.
    """
    result = Spot(result)
    if result not in BONUS_SPOTS:
        return BASE_ODDS[result] * top_slot.multiplier_for(result)
    if bonus_odds is None:
        raise ValueError(f"§ 690.4(b): a {result} result is paid at the odds its bonus game sets; none given")
    if not isinstance(bonus_odds, ToOne):
        raise TypeError(f"bonus odds must be ToOne (\"N to 1\", § 690.4(a)), not {bonus_odds!r}")
    return bonus_odds


@quick_init
@dataclass(frozen=True)
class Wager:
    """A stake of ``stake_cents`` placed by ``seat`` on a betting option (§ 690.1(g)(2))."""

    wager_id: str
    seat: int
    spot: Spot
    stake_cents: int

    def __post_init__(self) -> None:
        if not isinstance(self.wager_id, str) or not self.wager_id:
            raise ValueError(f"wager_id must be a non-empty string, not {self.wager_id!r}")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int):
            raise ValueError(f"wager {self.wager_id}: seat must be an int, not {self.seat!r}")
        if self.spot not in SPOTS:
            raise ValueError(f"wager {self.wager_id}: {self.spot!r} is no betting option (§ 690.1(g)(2))")
        object.__setattr__(self, "spot", Spot(self.spot))
        if isinstance(self.stake_cents, bool) or not isinstance(self.stake_cents, int) or self.stake_cents <= 0:
            raise ValueError(f"wager {self.wager_id}: stake_cents must be a positive int, not {self.stake_cents!r}")


@quick_init
@dataclass(frozen=True)
class Collection:
    """A losing wager, collected by the dealer (§ 690.2(e)–(f))."""

    wager_id: str
    seat: int
    spot: Spot
    stake_cents: int


@dataclass(frozen=True)
class Payment:
    """A winning wager: its stake is returned and ``win_cents`` paid at ``odds`` (§ 690.4).

    ``odds``: the § 690.4(a) odds times the Top Slot multiplier for a number, the seat's final
    bonus-game odds for a bonus result (``winning_odds``).
    ``capped``: ``win_cents`` was reduced by the maximum payout limit per round (§ 690.1(g)(4)).
    """

    wager_id: str
    seat: int
    spot: Spot
    stake_cents: int
    odds: ToOne
    win_cents: int
    capped: bool


@dataclass(frozen=True)
class Settlement:
    """The settlement of one round, in wager order within each step."""

    result: Spot
    top_slot: TopSlotOutcome
    collections: tuple[Collection, ...]
    payments: tuple[Payment, ...]

    def steps(self) -> Iterator[Collection | Payment]:
        """The dealer's steps: "first collect all losing wagers and then pay off all winning
        wagers" (§ 690.2(e); § 690.2(f) for a bonus result)."""
        yield from self.collections
        yield from self.payments


def settle(
    wagers: Sequence[Wager],
    result: Spot,
    top_slot: TopSlotOutcome,
    max_payout_per_round_cents: int | None = None,
    bonus_odds: Mapping[int, ToOne] | None = None,
) -> Settlement:
    """Settle one round's wagers on the section the clapper selected (§ 690.2(c), (e)–(f)).

    A winning wager is paid ``floor(stake × odds)`` cents (``winning_odds``):

    * a number result (1, 2, 5, 10): the § 690.4(a) odds times the Top Slot multiplier
      (§ 690.4(c)); ``bonus_odds`` is ignored (pass None);
    * a bonus result: ``bonus_odds[seat]``, the seat's FINAL odds from its bonus game
      (§ 690.2(f), § 690.4(b)) — per seat, because players pick their own Cash Hunt symbol and
      Crazy Time World clapper (§ 690.6(f), § 690.8(c)). The Top Slot multiplier is already inside
      (it multiplied the bonus board before play, § 690.4(c)) and is not applied again. A winning
      wager whose seat has no entry raises ``ValueError``.

    With a maximum payout limit per round (§ 690.1(g)(4)) the wins paid to one seat in one round
    never exceed it: wagers are paid in the order given and the one that reaches the limit, and
    every later win of that seat, is reduced (``capped=True``). Stakes of winning wagers are always
    returned.
    """
    result = Spot(result)
    if max_payout_per_round_cents is not None and max_payout_per_round_cents < 0:
        raise ValueError(f"max_payout_per_round_cents must be >= 0, not {max_payout_per_round_cents}")
    ids = Counter(w.wager_id for w in wagers)
    if duplicated := sorted(i for i, c in ids.items() if c > 1):
        raise ValueError(f"duplicate wager_id(s): {', '.join(duplicated)}")
    is_bonus = result in BONUS_SPOTS
    if is_bonus:
        seats = sorted({w.seat for w in wagers if w.spot == result} - set(bonus_odds or {}))
        if seats:
            raise ValueError(f"§ 690.4(b): {result} was played; no bonus-game odds for winning seat(s) "
                             f"{', '.join(map(str, seats))}")
    paid_cents: Counter[int] = Counter()
    payments = []
    for w in wagers:
        if w.spot != result:
            continue
        odds = winning_odds(result, top_slot, bonus_odds[w.seat] if is_bonus else None)  # type: ignore[index]
        win_cents = full_cents = odds.profit_cents(w.stake_cents)
        if max_payout_per_round_cents is not None:
            win_cents = min(full_cents, max_payout_per_round_cents - paid_cents[w.seat])
        payments.append(Payment(w.wager_id, w.seat, w.spot, w.stake_cents, odds, win_cents,
                                capped=win_cents < full_cents))
        paid_cents[w.seat] += win_cents
    return Settlement(
        result=result,
        top_slot=top_slot,
        collections=tuple(Collection(w.wager_id, w.seat, w.spot, w.stake_cents) for w in wagers if w.spot != result),
        payments=tuple(payments),
    )
