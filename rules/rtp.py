"""Exact return to player (RTP) of each Crazy Time wager under a Rules Submission.

RTP is the expected amount returned per unit wagered, the returned stake of a winning wager
included. It is derived by enumerating every Top Slot outcome (§ 690.3) against every wheel
section (§ 690.1(b)) and settling one wager per betting option with ``settle`` — the same code
that settles a round — so the RTP and the settlement cannot disagree. A bonus result is settled
at the bonus game's exact expected final odds given the Top Slot multiplier applied to it
(``bonus_expected_odds``); the expectation is linear, so this is the expected payout.

Assumptions: a fair wheel (each of the 54 sections 1/54), a Top Slot independent of the wheel,
no maximum payout limit, exact odds (no rounding to the cent), a player who always plays the
bonus game (Cash Hunt pick, Crazy Time World clapper) — by the model below the pick does not
change the expectation. The bonus-game model (the Rules Submission's PAR, ``rules.submission``):

* every cell of a board is drawn independently from the game's ``multiplier_weights``; for
  Pachinko and Crazy Time World, with ``double_probability`` one cell, uniform over the cells,
  shows "Double" instead;
* Coin Flip: a fair coin (1/2 each side), also for the Rescue Flip, which is activated with
  ``rescue_probability`` when § 690.5(f)(1)–(3) hold as the Rules Submission's ``rescue_reading``
  judges them (``rules.bonus.rescue_value``: on the displayed multipliers, or on them before the
  Top Slot multiplier) — the same rule the croupier (hil/bonus.py) plays and the checks replay;
* Cash Hunt: the shuffle is uniform, so any pick (the player's or the random one) is a uniform
  cell: E = m·E[W];
* Pachinko: each drop is released from a drop zone uniform over ``DROP_ZONES`` (4..13) and lands
  by the lattice's exact zone matrix; every redrop is from a new uniform zone, independent of the
  last; a Double doubles the others, becomes 50× and the puck drops again (a later 2×/3×/4× may
  still activate a Rescue if none has been); a Rescue Drop is activated with
  ``rescue_probability`` on a 2×/3×/4× (judged by ``rescue_reading`` as for the Coin Flip: the
  displayed value, or the value before the Top Slot multiplier), at most once per game, raises the lower
  multipliers to the trigger and the puck drops again (onto the Double too: Double rules, then no
  more Rescue). Landing on the same cell again is allowed (after a Double the former Double pays
  50×; after a Rescue the trigger cell pays the trigger);
* Crazy Time World: the section under the player's clapper is uniform on every spin, independent
  of the board and of earlier spins; a Double doubles every multiplier and spins again; the
  second Double doubles again, becomes 50× and spins again.

The 50× replacing a Double is literal: not multiplied by the Top Slot, not doubled (see
``rules.bonus``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any, TypeVar

from rules.bonus import (
    COIN_SIDES, CTW_SECTIONS, DEFAULT_RESCUE_READING, DOUBLE_REPLACEMENT, PACHINKO_SPOTS, pachinko_rescue_eligible,
    rescue_flip_eligible,
)
from rules.crazy_time import (
    BONUS_SPOTS, SPOTS, TOP_SLOT_REEL1, TOP_SLOT_REEL2, WHEEL_SECTIONS, Spot, TopSlotOutcome, Wager, settle,
)
from rules.odds import ToOne
from rules.submission import RulesSubmission

#: A probability: exact (``Fraction``) for the RTP, ``float`` for the calibration's search.
P = TypeVar("P", Fraction, float)


@dataclass(frozen=True)
class WagerRtp:
    """The RTP of one wager (``method`` "exact": derived in exact arithmetic)."""

    wager: str
    rtp_exact: Fraction
    method: str

    def to_json(self) -> dict[str, Any]:
        return {
            "wager": self.wager,
            "rtp": float(self.rtp_exact),
            "rtp_exact": f"{self.rtp_exact.numerator}/{self.rtp_exact.denominator}",
            "method": self.method,
        }


# --------------------------------------------------------------------------- bonus games
# Each takes ``dist``: base multiplier -> probability of one cell (summing to 1), and the Top Slot
# multiplier ``m``; works in Fraction (exact) or float (calibration search) alike.

def coin_flip_expected_odds(dist: Mapping[int, P], m: int, rescue: P, reading: str = DEFAULT_RESCUE_READING) -> P:
    """§ 690.5: E[final odds] of a Coin Flip whose two sides are drawn independently from
    ``dist`` and multiplied by ``m`` before the flip (§ 690.5(e)); a fair coin; a Rescue Flip
    activated with probability ``rescue`` when ``rescue_flip_eligible`` holds as the Rules
    Submission's ``reading`` judges it (on the displayed sides, or on them before the Top Slot's
    ×``m``: ``rules.bonus.rescue_value``, the croupier's and the checks' rule); its result final."""
    total = 0 * rescue
    half = 0.5 if isinstance(rescue, float) else Fraction(1, 2)
    for (a, pa), (b, pb) in product(dist.items(), repeat=2):
        values = (m * a, m * b)
        mean = (values[0] + values[1]) * half
        e = 0 * rescue
        for face, v in zip(COIN_SIDES, values, strict=True):
            eligible = rescue_flip_eligible(values, face, reading, m)
            e += ((1 - rescue) * v + rescue * mean) if eligible else v
        total += pa * pb * e * half
    return total


def cash_hunt_expected_odds(dist: Mapping[int, P], m: int) -> P:
    """§ 690.6: a uniform shuffle makes any pick a uniform cell: E = m·E[W]."""
    return m * sum(p * w for w, p in dist.items())


def crazy_time_world_expected_odds(dist: Mapping[int, P], m: int, double: P) -> P:
    """§ 690.8: the player's section uniform over the 64 on every spin. With probability
    ``double`` one section shows Double (per spin 1/64 to hit it):

    E = (1 − d/64)·m·E[W] + (d/64)·[(63/64)·2m·E[W] + (1/64)·((63/64)·4m·E[W] + (1/64)·50)].
    """
    n = CTW_SECTIONS
    ev = m * sum(p * w for w, p in dist.items())
    hit = 1 / n if isinstance(double, float) else Fraction(1, n)
    miss = 1 - hit
    return (1 - double * hit) * ev + double * hit * (
        miss * 2 * ev + hit * (miss * 4 * ev + hit * DOUBLE_REPLACEMENT))


def pachinko_expected_odds(dist: Mapping[int, P], m: int, double: P, rescue: P, landing: Sequence[P],
                           reading: str = DEFAULT_RESCUE_READING) -> P:
    """§ 690.7: E[final odds] of a Pachinko game.

    ``landing[k]``: P(a drop lands in spot k+1), the same for every drop (zone uniform over
    ``DROP_ZONES``, drops independent). Board: with probability ``double`` one spot, uniform over
    the ``len(landing)`` spots, shows Double; every other spot independently ``m·W``, W ~ ``dist``. Exact by
    conditioning on the (at most three) cells a game's drops visit — their values are independent
    of each other and of where the puck lands; landing on a visited cell again is accounted for.

    A Rescue Drop's trigger is judged as the Rules Submission's ``reading`` says
    (``rules.bonus.pachinko_rescue_eligible``: the displayed ``m·W`` or, after a Double, ``2·m·W``;
    or, "before-top-slot", ``W`` or ``2·W``). Either way every multiplied cell of a board carries
    the same ×``m``, so the Rescue raises the cells whose displayed value is below the trigger's
    to the trigger's displayed value (``rules.bonus.pachinko_rescue``), and the literal 50× of a
    Double is never below a 2×–4× trigger: it stays 50×.
    """
    R = DOUBLE_REPLACEMENT
    pv = {m * w: p for w, p in dist.items()}  # displayed value -> probability
    ev = sum(p * v for v, p in pv.items())

    def e_max(t: int, k: int = 1) -> P:  # E[max(k·V, t)]
        return sum(p * max(k * v, t) for v, p in pv.items())

    def triggers(v: int) -> bool:  # a displayed (non-literal) value on which a Rescue Drop may be activated
        return pachinko_rescue_eligible(v, reading, m)

    trig = [(v, p, e_max(v)) for v, p in pv.items() if triggers(v)]               # first-board triggers
    trig2 = [(2 * v, p, e_max(2 * v, 2)) for v, p in pv.items() if triggers(2 * v)]  # after a Double
    n = len(landing)
    s2 = sum(q * q for q in landing)
    # No Double on the board: land v; a Rescue on v in T redrops: same cell v, another max(V', v).
    no_double = ev + rescue * (1 - s2) * sum(p * (mx - v) for v, p, mx in trig)
    with_double = 0 * ev
    for d, qd in enumerate(landing):
        # First drop lands on the Double: others doubled, Double -> 50, drop again.
        x = qd * R
        for k, qk in enumerate(landing):
            if k == d:
                continue
            # the Rescue drop: on k again (u), on the former Double (its literal 50x, never raised), elsewhere
            gain = sum(p * (qk * u + qd * R + (1 - qk - qd) * mx - u) for u, p, mx in trig2)
            x += qk * (2 * ev + rescue * gain)
        # First drop lands on another spot k with value v; Rescue on v in T; the Rescue drop may
        # land on k again (v), on the Double (double, 50, drop: 50 / 2v / 2·max(V'', v)) or elsewhere.
        y = 0 * ev
        for k, qk in enumerate(landing):
            if k == d:
                continue
            rest = 1 - qk - qd
            gain = sum(p * (qk * v + qd * (qd * R + qk * 2 * v + rest * 2 * mx) + rest * mx - v)
                       for v, p, mx in trig)
            y += qk * (ev + rescue * gain)
        with_double += qd * x + y
    return (1 - double) * no_double + double * with_double / n


def bonus_expected_odds(spot: Spot, sub: RulesSubmission, multiplier: int) -> Fraction:
    """E[final odds] ("N to 1") of bonus game ``spot`` when the Top Slot multiplier ``multiplier``
    is applied to it (1: none), exactly, under the model in this module's docstring."""
    spot = Spot(spot)
    if isinstance(multiplier, bool) or not isinstance(multiplier, int) or multiplier < 1:
        raise ValueError(f"a Top Slot multiplier is a positive int, not {multiplier!r}")
    if spot is Spot.COIN_FLIP:
        par = sub.coin_flip
        return coin_flip_expected_odds(_dist(par.multiplier_weights), multiplier, par.rescue_probability,
                                       sub.rescue_reading)
    if spot is Spot.CASH_HUNT:
        return cash_hunt_expected_odds(_dist(sub.cash_hunt.multiplier_weights), multiplier)
    if spot is Spot.PACHINKO:
        par = sub.pachinko
        landing = par.lattice.landing_probabilities()
        assert len(landing) == PACHINKO_SPOTS
        return pachinko_expected_odds(_dist(par.multiplier_weights), multiplier, par.double_probability,
                                      par.rescue_probability, landing, sub.rescue_reading)
    if spot is Spot.CRAZY_TIME:
        par = sub.crazy_time_world
        return crazy_time_world_expected_odds(_dist(par.multiplier_weights), multiplier, par.double_probability)
    raise ValueError(f"{spot} is no bonus game (§ 690.1(d))")


def _dist(weights: Mapping[int, int]) -> dict[int, Fraction]:
    total = sum(weights.values())
    return {w: Fraction(n, total) for w, n in weights.items()}


# --------------------------------------------------------------------------- the RTP

def crazy_time_rtp(sub: RulesSubmission) -> tuple[WagerRtp, ...]:
    """Exact RTP of each betting option, in the order of § 690.3(b)(1), all ``method`` "exact".

    Number spot s: P(section)·Σ_m P(m)·(1 + odds_s·m). Bonus spot: P(section)·Σ_m P(Top Slot
    multiplier m applied to it)·(1 + E[final odds | m]) (``bonus_expected_odds``).

    Every Top Slot outcome (aligned or not × reel 1 × reel 2) is enumerated and its probability
    added to the multiplier it applies to each section (``TopSlotOutcome.multiplier_for``); each
    (section, multiplier) is then settled once with one wager per betting option.
    """
    par = sub.top_slot
    applied: Counter[tuple[Spot, int]] = Counter()  # (section, multiplier applied to it) -> P
    for aligned, spot, m in product((True, False), TOP_SLOT_REEL1, TOP_SLOT_REEL2):
        top_slot = TopSlotOutcome(spot, m, aligned)
        p = ((par.align_probability if aligned else 1 - par.align_probability)
             * par.reel1_probability(spot) * par.reel2_probability(m))
        for section in SPOTS:
            applied[section, top_slot.multiplier_for(section)] += p
    wagers = [Wager(spot, seat=0, spot=spot, stake_cents=1) for spot in SPOTS]
    counts = Counter(WHEEL_SECTIONS)
    rtp = dict.fromkeys(SPOTS, Fraction(0))
    for (section, m), p_m in applied.items():
        if not p_m:
            continue
        odds = {0: ToOne(bonus_expected_odds(section, sub, m))} if section in BONUS_SPOTS else None
        for payment in settle(wagers, section, TopSlotOutcome(section, m, True), bonus_odds=odds).payments:
            rtp[payment.spot] += p_m * Fraction(counts[section], len(WHEEL_SECTIONS)) * (1 + payment.odds.ratio)
    return tuple(WagerRtp(str(spot), rtp[spot], "exact") for spot in SPOTS)
