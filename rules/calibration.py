"""Calibration of the reference Rules Submission's PAR to target RTPs (``rules.rtp``).

The targets (``PUBLISHED_RTP``) are third-party published per-wager RTP figures for the
commercial game. They are not part of chapter 690 and not any operator's filing; the
distributions found here are OUR calibration — one of many PARs that reproduce those figures —
not the commercial game's official PAR.

What is chosen by hand (``REFERENCE_DESIGN``, ``REEL2_WEIGHTS``) and what is solved:

* Top Slot (§ 690.3). The second reel's symbols are fixed by § 690.3(b)(2); its weights are kept
  (``REEL2_WEIGHTS``, E[m₂] = 3.3). The align probability and the first reel's weights are solved
  through one trick: with reel-1 weights ``w_s`` and ``align_probability = Σw / D``
  (D = ``TOP_SLOT_DENOMINATOR``), the probability that the multiplier lands on spot s is
  a·p₁(s) = w_s / D exactly, and each spot's RTP depends on its own w_s only:
  RTP_s = P(section)·Σ_m P_s(m)·(1 + E[odds | m]) with P_s(1) = 1 − x_s + x_s·p₂(1),
  P_s(m) = x_s·p₂(m) (m > 1), x_s = w_s / D — linear in x_s.
* Number spots: x_s = ((RTP_s / P(section) − 1) / odds_s − 1) / (E[m₂] − 1), rounded to 1/D.
* Bonus games: each board's ``multiplier_weights`` are a mix (1 − t)·light + t·heavy of two
  hand-made shapes over the same multipliers (``BonusDesign``); t in [0, 1] is found by bisection
  (float) so that the RTP is on target at the design's Top Slot share x; the mix is rounded to
  integer weights summing to ``BOARD_WEIGHT_TOTAL`` (largest remainder, exact); then x_s is
  solved exactly for the rounded board and rounded to 1/D, which absorbs the board's rounding.
  Rescue and Double probabilities are design choices, not solved.

Deterministic: the search uses only float +, −, ×, / and comparisons (correctly rounded by IEEE
754, the same on every platform), everything after it is exact. Pure: returns models and text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

from rules.crazy_time import BASE_ODDS, BONUS_SPOTS, SECTION_COUNTS, SPOTS, TOP_SLOT_REEL2, WHEEL_SECTIONS, Spot
from rules.pachinko import Lattice
from rules.rtp import (
    cash_hunt_expected_odds, coin_flip_expected_odds, crazy_time_world_expected_odds, pachinko_expected_odds,
)
from rules.submission import (
    CashHuntPar, CoinFlipPar, CrazyTimeWorldPar, PachinkoPar, RulesSubmission, TopSlotPar,
)

#: Third-party published RTP per wager of the commercial game (not official, not chapter 690).
PUBLISHED_RTP: Mapping[Spot, Fraction] = MappingProxyType({
    Spot.ONE: Fraction("0.9608"), Spot.TWO: Fraction("0.9595"), Spot.FIVE: Fraction("0.9578"),
    Spot.TEN: Fraction("0.9573"), Spot.COIN_FLIP: Fraction("0.9570"), Spot.CASH_HUNT: Fraction("0.9527"),
    Spot.PACHINKO: Fraction("0.9433"), Spot.CRAZY_TIME: Fraction("0.9441"),
})
#: a·p₁(s) = w_s / TOP_SLOT_DENOMINATOR (resolution of the Top Slot share per spot).
TOP_SLOT_DENOMINATOR = 100_000
#: Each bonus board's integer multiplier weights sum to this.
BOARD_WEIGHT_TOTAL = 10_000
#: The second reel's weights, kept from the illustrative PAR (E[m₂] = 3.3).
REEL2_WEIGHTS: Mapping[int, int] = MappingProxyType({1: 30, 2: 25, 3: 15, 4: 10, 5: 8, 7: 5, 10: 4, 15: 2, 20: 1})


@dataclass(frozen=True)
class BonusDesign:
    """The hand-made part of a bonus game's PAR: two shapes over the same multipliers (relative
    weights), the Top Slot share x = a·p₁ the board is tuned at, and the fixed probabilities."""

    light: Mapping[int, int]
    heavy: Mapping[int, int]
    top_slot_share: Fraction
    rescue_probability: Fraction | None = None
    double_probability: Fraction | None = None

    def __post_init__(self) -> None:
        if set(self.light) != set(self.heavy):
            raise ValueError("light and heavy shapes must cover the same multipliers")


REFERENCE_DESIGN: Mapping[Spot, BonusDesign] = MappingProxyType({
    # § 690.5: 2x-100x, mostly small; Rescue Flip when 2x/3x faces a big (> 15x) side.
    Spot.COIN_FLIP: BonusDesign(
        light={2: 300, 3: 250, 4: 150, 5: 120, 6: 80, 8: 60, 10: 50, 12: 25, 15: 20, 20: 15, 25: 10, 50: 5, 100: 2},
        heavy={2: 100, 3: 100, 4: 90, 5: 90, 6: 80, 8: 80, 10: 80, 12: 60, 15: 60, 20: 50, 25: 40, 50: 35,
               100: 25},
        top_slot_share=Fraction(7, 100), rescue_probability=Fraction(1, 2)),
    # § 690.6: 5x-500x on 108 cells.
    Spot.CASH_HUNT: BonusDesign(
        light={5: 250, 7: 200, 10: 200, 15: 120, 20: 90, 25: 60, 30: 30, 40: 20, 50: 20, 75: 8, 100: 6, 150: 3,
               200: 2, 250: 1, 500: 1},
        heavy={5: 150, 7: 130, 10: 150, 15: 110, 20: 100, 25: 80, 30: 50, 40: 40, 50: 40, 75: 20, 100: 16, 150: 8,
               200: 6, 250: 3, 500: 3},
        top_slot_share=Fraction(6, 100)),
    # § 690.7: 2x-400x on 16 spots, a Double on half the boards, Rescue Drop on 2x/3x/4x.
    Spot.PACHINKO: BonusDesign(
        light={2: 200, 3: 160, 4: 140, 5: 120, 7: 100, 10: 90, 15: 60, 20: 40, 25: 30, 30: 20, 40: 12, 50: 10,
               75: 6, 100: 5, 150: 3, 200: 2, 300: 1, 400: 1},
        heavy={2: 100, 3: 90, 4: 90, 5: 90, 7: 90, 10: 100, 15: 80, 20: 70, 25: 60, 30: 50, 40: 40, 50: 35,
               75: 20, 100: 18, 150: 8, 200: 6, 300: 3, 400: 3},
        top_slot_share=Fraction(6, 100), rescue_probability=Fraction(1, 3), double_probability=Fraction(1, 2)),
    # § 690.8: 15x-400x on 64 sections, a Double on half the wheels.
    Spot.CRAZY_TIME: BonusDesign(
        light={15: 300, 20: 220, 25: 160, 30: 100, 40: 80, 50: 70, 75: 30, 100: 20, 150: 8, 200: 6, 250: 2,
               300: 2, 400: 2},
        heavy={15: 150, 20: 140, 25: 120, 30: 100, 40: 100, 50: 100, 75: 60, 100: 50, 150: 25, 200: 20, 250: 8,
               300: 7, 400: 7},
        top_slot_share=Fraction(5, 100), double_probability=Fraction(1, 2)),
})


@dataclass(frozen=True)
class Calibration:
    """A calibrated PAR: the Top Slot and the four bonus games, and the mix found per game."""

    top_slot: TopSlotPar
    coin_flip: CoinFlipPar
    cash_hunt: CashHuntPar
    pachinko: PachinkoPar
    crazy_time_world: CrazyTimeWorldPar
    mix: Mapping[Spot, Fraction] = field(default_factory=dict)

    def apply(self, sub: RulesSubmission) -> RulesSubmission:
        """``sub`` with this PAR (limits, names and notes kept)."""
        return sub.model_copy(update={"top_slot": self.top_slot, "coin_flip": self.coin_flip,
                                      "cash_hunt": self.cash_hunt, "pachinko": self.pachinko,
                                      "crazy_time_world": self.crazy_time_world})

    def toml(self) -> str:
        """The ``[top_slot]`` and bonus-game tables as TOML text, in the reference file's layout."""
        ts = self.top_slot
        a = sum(ts.reel1_weights.values())
        out = ["[top_slot]", f'align_probability = "{a}/{TOP_SLOT_DENOMINATOR}"', "",
               "[top_slot.reel1_weights]"]
        out += [f"{_key(s)} = {ts.reel1_weights[s]}" for s in SPOTS]
        out += ["", "[top_slot.reel2_weights]"] + [f'"{m}" = {ts.reel2_weights[m]}' for m in TOP_SLOT_REEL2]
        for name, par in (("coin_flip", self.coin_flip), ("cash_hunt", self.cash_hunt),
                          ("pachinko", self.pachinko), ("crazy_time_world", self.crazy_time_world)):
            out += ["", f"[{name}]"]
            if isinstance(par, PachinkoPar):
                out.append(f"rows = {par.rows}")
            for key in ("double_probability", "rescue_probability"):
                if (p := getattr(par, key, None)) is not None:
                    out.append(f'{key} = "{p.numerator}/{p.denominator}"')
            out.append(f"[{name}.multiplier_weights]")
            out += [f'"{m}" = {w}' for m, w in par.multiplier_weights.items()]
        return "\n".join(out) + "\n"


def _key(spot: Spot) -> str:
    return f'"{spot}"' if spot[0].isdigit() else str(spot)


def _section_probability(spot: Spot) -> Fraction:
    return Fraction(SECTION_COUNTS[spot], len(WHEEL_SECTIONS))


def number_share(spot: Spot, target: Fraction, reel2: Mapping[int, Fraction]) -> Fraction:
    """x = a·p₁ that gives number ``spot`` the RTP ``target`` exactly (§ 690.4(a) odds)."""
    e2 = sum(m * p for m, p in reel2.items())
    expected_m = (target / _section_probability(spot) - 1) / BASE_ODDS[spot].ratio
    return (expected_m - 1) / (e2 - 1)


def _expected_odds(spot: Spot, design: BonusDesign, dist: Mapping[int, object], m: int, landing):
    if spot is Spot.COIN_FLIP:
        return coin_flip_expected_odds(dist, m, _as(design.rescue_probability, dist))
    if spot is Spot.CASH_HUNT:
        return cash_hunt_expected_odds(dist, m)
    if spot is Spot.PACHINKO:
        return pachinko_expected_odds(dist, m, _as(design.double_probability, dist),
                                      _as(design.rescue_probability, dist), landing)
    return crazy_time_world_expected_odds(dist, m, _as(design.double_probability, dist))


def _as(p: Fraction | None, dist: Mapping[int, object]) -> Fraction | float:
    if p is None:
        raise ValueError("the design lacks a probability this game needs")
    return float(p) if isinstance(next(iter(dist.values())), float) else p


def _bonus_rtp(spot, design, dist, share, reel2, landing):
    """RTP of bonus ``spot`` for board distribution ``dist`` at Top Slot share ``share``, and the
    two coefficients of its linear form RTP = P·(1 + E₁ + x·Σ_m p₂(m)(E_m − E₁))."""
    e = {m: _expected_odds(spot, design, dist, m, landing) for m in reel2}
    slope = sum(p * (e[m] - e[1]) for m, p in reel2.items())
    p_section = _section_probability(spot)
    if isinstance(share, float):
        p_section = float(p_section)
    return p_section * (1 + e[1] + share * slope), e[1], slope


def _mix(design: BonusDesign, t: Fraction | float) -> dict[int, Fraction | float]:
    lt, ht = sum(design.light.values()), sum(design.heavy.values())
    return {m: (1 - t) * design.light[m] / lt + t * design.heavy[m] / ht for m in sorted(design.light)}


def integer_weights(probabilities: Mapping[int, Fraction], total: int) -> dict[int, int]:
    """Integer weights summing to ``total``, each >= 1, closest to ``probabilities`` × ``total``:
    floors, then the largest remainders (ties: the smaller multiplier first)."""
    exact = {m: p * total for m, p in probabilities.items()}
    weights = {m: max(1, int(x)) for m, x in exact.items()}
    short = total - sum(weights.values())
    order = sorted(exact, key=lambda m: (-(exact[m] - int(exact[m])), m))
    for m in order[:max(short, 0)]:
        weights[m] += 1
    if short < 0 or sum(weights.values()) != total:
        raise ValueError(f"cannot round to integer weights summing to {total}")
    return weights


def _solve_mix(spot, design, target, reel2_f, landing_f, steps: int = 60) -> float:
    """t in [0, 1] with the float RTP at the design's share on ``target`` (RTP grows with t)."""
    goal, share = float(target), float(design.top_slot_share)

    def rtp(t: float) -> float:
        return _bonus_rtp(spot, design, _mix(design, t), share, reel2_f, landing_f)[0]

    lo, hi = 0.0, 1.0
    if not rtp(lo) <= goal <= rtp(hi):
        raise ValueError(f"{spot}: target RTP {goal} is outside [{rtp(lo):.6f}, {rtp(hi):.6f}] reachable "
                         f"by mixing its light and heavy shapes at Top Slot share {share}")
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rtp(mid) < goal else (lo, mid)
    return (lo + hi) / 2


def calibrate(
    targets: Mapping[Spot, Fraction] = PUBLISHED_RTP,
    design: Mapping[Spot, BonusDesign] = REFERENCE_DESIGN,
    reel2_weights: Mapping[int, int] = REEL2_WEIGHTS,
    pachinko_rows: int = 12,
) -> Calibration:
    """The PAR (Top Slot and bonus boards) whose exact per-wager RTP (``rules.rtp``) is closest to
    ``targets`` under the method of this module's docstring. Deterministic."""
    if set(targets) != set(SPOTS):
        raise ValueError(f"targets for every betting option needed: {', '.join(SPOTS)}")
    total2 = sum(reel2_weights.values())
    reel2 = {m: Fraction(reel2_weights[m], total2) for m in TOP_SLOT_REEL2}
    reel2_f = {m: float(p) for m, p in reel2.items()}
    landing = Lattice(pachinko_rows).landing_probabilities()
    landing_f = [float(q) for q in landing]
    shares: dict[Spot, Fraction] = {}
    boards: dict[Spot, dict[int, int]] = {}
    mixes: dict[Spot, Fraction] = {}
    for spot in SPOTS:
        if spot not in BONUS_SPOTS:
            shares[spot] = number_share(spot, targets[spot], reel2)
            continue
        d = design[spot]
        t = Fraction(_solve_mix(spot, d, targets[spot], reel2_f, landing_f))
        mixes[spot] = t
        boards[spot] = integer_weights(_mix(d, t), BOARD_WEIGHT_TOTAL)
        dist = {m: Fraction(w, BOARD_WEIGHT_TOTAL) for m, w in boards[spot].items()}
        _, e1, slope = _bonus_rtp(spot, d, dist, Fraction(0), reel2, landing)
        shares[spot] = (targets[spot] / _section_probability(spot) - 1 - e1) / slope
    reel1 = {s: round(shares[s] * TOP_SLOT_DENOMINATOR) for s in SPOTS}
    if any(w < 1 for w in reel1.values()) or sum(reel1.values()) > TOP_SLOT_DENOMINATOR:
        raise ValueError(f"no Top Slot fits: shares a·p1 {({str(s): float(x) for s, x in shares.items()})} "
                         f"need each > 0 and a total <= 1")
    top = TopSlotPar(align_probability=Fraction(sum(reel1.values()), TOP_SLOT_DENOMINATOR),
                     reel1_weights=reel1, reel2_weights=dict(reel2_weights))
    cf, ch, pa, ctw = (design[s] for s in (Spot.COIN_FLIP, Spot.CASH_HUNT, Spot.PACHINKO, Spot.CRAZY_TIME))
    return Calibration(
        top_slot=top,
        coin_flip=CoinFlipPar(multiplier_weights=boards[Spot.COIN_FLIP], rescue_probability=cf.rescue_probability),
        cash_hunt=CashHuntPar(multiplier_weights=boards[Spot.CASH_HUNT]),
        pachinko=PachinkoPar(multiplier_weights=boards[Spot.PACHINKO], rows=pachinko_rows,
                             double_probability=pa.double_probability, rescue_probability=pa.rescue_probability),
        crazy_time_world=CrazyTimeWorldPar(multiplier_weights=boards[Spot.CRAZY_TIME],
                                           double_probability=ctw.double_probability),
        mix=MappingProxyType(mixes),
    )
