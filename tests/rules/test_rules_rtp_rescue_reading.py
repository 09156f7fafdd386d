"""rules.rtp under the Rules Submission's ``rescue_reading`` (§ 690.5(f), § 690.7(g)): the exact RTP of
rules/data/crazy_time_rescue_before_top_slot.toml, pinned as fractions and derived here again by a
small enumeration of its own, written from the regulation's words rather than from rules/rtp.py's
helpers (nor rules.bonus's Rescue functions): the Coin Flip's two sides and coin, and the Pachinko
game cell by cell, each cell's multiplier drawn when the puck first lands on it (the cells are
independent, and the Double is uniform over the cells not yet seen). The same enumeration under the
"displayed" reading gives the reference submission's figures, so it tells the readings apart."""

from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import rules.submission
from rules.crazy_time import WHEEL_SECTIONS, Spot
from rules.pachinko import Lattice
from rules.rtp import crazy_time_rtp
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

DATA = Path(rules.submission.__file__).parent
REFERENCE = parse_rules_submission((DATA / DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8"), "reference")
BEFORE_TOP_SLOT = parse_rules_submission(
    (DATA / "data" / "crazy_time_rescue_before_top_slot.toml").read_text(encoding="utf-8"), "before-top-slot")

#: `croupier rtp crazy-time --rules rules/data/crazy_time_rescue_before_top_slot.toml --json`
#: (Monte Carlo, 50,000,000 rounds, seed 1: Coin Flip 96.06 % ± 0.22, Pachinko 95.34 % ± 0.36 at 95 %)
PINNED_BEFORE_TOP_SLOT = {
    "coin-flip": Fraction(433246162930261, 450000000000000),                                   # 96.2769 %
    "pachinko": Fraction(13270576167990707743109885093, 13915694039040000000000000000),         # 95.3641 %
}
#: the reference submission ("displayed"): unchanged by the reading's fix
PINNED_REFERENCE = {
    "coin-flip": Fraction(430648208869051, 450000000000000),                                   # 95.6996 %
    "pachinko": Fraction(26253309942693410728433917501, 27831388078080000000000000000),         # 94.3299 %
}

DOUBLE = "Double"
FIFTY = 50                       # § 690.7(e)(2): "The "Double" shall be replaced with 50×."
TRIGGERS = {2, 3, 4}             # § 690.7(g): "a 2×, 3× or 4× multiplier"
SPOTS = 16                       # § 690.7(b)


def judged(value, m, reading, literal=False):
    """What the Rescue conditions read of a cell showing ``value`` under a Top Slot ×``m``: the value as
    shown, or (before-top-slot) the multiplier without the Top Slot's ×m; the literal 50× of a Double
    was never multiplied."""
    return Fraction(value) if reading == "displayed" or literal else Fraction(value, m)


def dist_of(weights):
    total = sum(weights.values())
    return {w: Fraction(n, total) for w, n in weights.items()}


# ------------------------------------------------------------------ Coin Flip § 690.5

def coin_flip_odds(sub, m, reading):
    """E[final odds]: sides drawn independently, shown ×m (§ 690.5(e)); a fair coin (§ 690.5(d)); a
    Rescue Flip (fair, final: § 690.5(g)) activated with ``rescue_probability`` when "(1) The small
    multiplier was 2× or 3×. (2) The big multiplier was greater than 15×. (3) The coin landed with the
    small multiplier facing up." (§ 690.5(f))."""
    dist, r = dist_of(sub.coin_flip.multiplier_weights), sub.coin_flip.rescue_probability
    e = Fraction(0)
    for a, pa in dist.items():
        for b, pb in dist.items():
            shown = (m * a, m * b)
            read = [judged(v, m, reading) for v in shown]
            for up in (0, 1):
                other = 1 - up
                rescue = (read[up] < read[other] and read[up] in (2, 3) and read[other] > 15)
                final = (1 - r) * shown[up] + r * Fraction(shown[0] + shown[1], 2) if rescue else Fraction(shown[up])
                e += pa * pb * Fraction(1, 2) * final
    return e


# ------------------------------------------------------------------ Pachinko § 690.7

class Pachinko:
    """E[final odds] of one Pachinko game under a Top Slot ×``m``, by walking the drops.

    State: the cells seen so far (cell -> (shown value, literal 50×)), whether the Double is still
    hidden, whether the Double and the Rescue Drop were used, and what happened to the cells not yet
    seen (``ops``: doubled, raised to a trigger), applied to ``m·W`` when one is first landed on."""

    def __init__(self, sub, m, reading):
        par = sub.pachinko
        self.m, self.reading = m, reading
        self.dist = dist_of(par.multiplier_weights)
        self.double, self.rescue = par.double_probability, par.rescue_probability
        self.landing = Lattice(par.rows).landing_probabilities()  # a drop from a uniform zone of 4..13
        assert len(self.landing) == SPOTS and sum(self.landing) == 1
        self._mean: dict = {}

    def shown(self, w, ops):
        v = self.m * w
        for op in ops:
            if op == "x2":                                   # § 690.7(e)(1): the others doubled
                v = 2 * v
            else:                                            # § 690.7(g)(1)–(2): lower ones raised
                _, trigger, t = op
                if judged(v, self.m, self.reading) < t:
                    v = trigger
        return v

    def mean_unseen(self, ops):
        if ops not in self._mean:
            self._mean[ops] = sum(p * self.shown(w, ops) for w, p in self.dist.items())
        return self._mean[ops]

    def value(self):
        """E[final odds] of the game: no Double on the board, or one uniform over the 16 spots."""
        return ((1 - self.double) * self.drop({}, False, False, False, ())
                + self.double * self.drop({}, True, False, False, ()))

    def drop(self, seen, hidden_double, double_used, rescue_used, ops):
        return sum(q * self.land(k, seen, hidden_double, double_used, rescue_used, ops)
                   for k, q in enumerate(self.landing))

    def land(self, k, seen, hidden_double, double_used, rescue_used, ops):
        if k in seen:
            value, literal = seen[k]
            return self.rest(k, value, literal, seen, hidden_double, double_used, rescue_used, ops)
        p_double = Fraction(1, SPOTS - len(seen)) if hidden_double else Fraction(0)
        e = Fraction(0)
        if p_double:                                         # § 690.7(e): others doubled, 50×, drop again
            doubled = {c: (v if lit else 2 * v, lit) for c, (v, lit) in seen.items()}
            doubled[k] = (FIFTY, True)
            e += p_double * self.drop(doubled, False, True, rescue_used, ops + ("x2",))
        if rescue_used:                                      # nothing more can happen on a new cell
            return e + (1 - p_double) * self.mean_unseen(ops)
        for w, p in self.dist.items():
            value = self.shown(w, ops)
            e += (1 - p_double) * p * self.rest(k, value, False, {**seen, k: (value, False)}, hidden_double,
                                                double_used, rescue_used, ops)
        return e

    def rest(self, k, value, literal, seen, hidden_double, double_used, rescue_used, ops):
        """The puck rests on ``value``: final, unless a Rescue Drop is activated on it (§ 690.7(g))."""
        t = judged(value, self.m, self.reading, literal)
        if rescue_used or t not in TRIGGERS:
            return Fraction(value)
        raised = {c: (value if judged(v, self.m, self.reading, lit) < t else v, lit) for c, (v, lit) in seen.items()}
        again = self.drop(raised, hidden_double, double_used, True, ops + (("raise", value, t),))
        return (1 - self.rescue) * value + self.rescue * again   # "No additional Rescue Drops shall follow."


# ------------------------------------------------------------------ the wagers' RTP

def wager_rtp(sub, spot, odds_given_m):
    """P(section)·Σ_m P(m applied to ``spot``)·(1 + E[odds | m]) (§ 690.3(c), § 690.4(c))."""
    ts = sub.top_slot
    on = ts.align_probability * ts.reel1_probability(spot)
    p_m = Counter({m: on * ts.reel2_probability(m) for m in ts.reel2_weights})
    p_m[1] += 1 - on
    share = Fraction(Counter(WHEEL_SECTIONS)[spot], len(WHEEL_SECTIONS))
    return share * sum(p * (1 + odds_given_m(m)) for m, p in p_m.items())


_ODDS: dict = {}


def odds(game, sub, m, reading):
    """E[final odds] of ``game`` under ×``m``, enumerated once per (submission, m, reading)."""
    key = game, sub.name, m, reading
    if key not in _ODDS:
        _ODDS[key] = coin_flip_odds(sub, m, reading) if game == "coin-flip" else Pachinko(sub, m, reading).value()
    return _ODDS[key]


def enumerated(sub, reading):
    return {"coin-flip": wager_rtp(sub, Spot.COIN_FLIP, lambda m: odds("coin-flip", sub, m, reading)),
            "pachinko": wager_rtp(sub, Spot.PACHINKO, lambda m: odds("pachinko", sub, m, reading))}


def test_before_top_slot_rtp_is_pinned_and_enumerated_again():
    assert BEFORE_TOP_SLOT.rescue_reading == "before-top-slot"
    got = {w.wager: w.rtp_exact for w in crazy_time_rtp(BEFORE_TOP_SLOT)}
    ref = {w.wager: w.rtp_exact for w in crazy_time_rtp(REFERENCE)}
    assert {k: got[k] for k in PINNED_BEFORE_TOP_SLOT} == PINNED_BEFORE_TOP_SLOT
    assert enumerated(BEFORE_TOP_SLOT, "before-top-slot") == PINNED_BEFORE_TOP_SLOT
    # the reading moves the Coin Flip and Pachinko wagers only (the files differ in it alone)
    assert {k: v for k, v in got.items() if k not in PINNED_BEFORE_TOP_SLOT} == \
        {k: v for k, v in ref.items() if k not in PINNED_BEFORE_TOP_SLOT}


def test_reference_rtp_unchanged_and_the_enumeration_tells_the_readings_apart():
    assert REFERENCE.rescue_reading == "displayed"
    got = {w.wager: w.rtp_exact for w in crazy_time_rtp(REFERENCE)}
    assert {k: got[k] for k in PINNED_REFERENCE} == PINNED_REFERENCE
    assert enumerated(REFERENCE, "displayed") == PINNED_REFERENCE
    # more boards are rescued when the Top Slot's ×m is taken off first: both wagers pay more
    assert all(PINNED_BEFORE_TOP_SLOT[k] > PINNED_REFERENCE[k] for k in PINNED_REFERENCE)


@pytest.mark.parametrize("m", [1, 2, 3, 20])
@pytest.mark.parametrize("game", ["coin-flip", "pachinko"])
def test_the_readings_differ_only_under_a_top_slot_multiplier(game, m):
    """With no Top Slot multiplier (×1) the readings are one; under ×2, ×3, ×20 they are not. (The
    two files' PAR is the same: only the reading, name and notes differ.)"""
    same = {"name", "notes", "rescue_reading"}
    assert BEFORE_TOP_SLOT.model_dump(exclude=same) == REFERENCE.model_dump(exclude=same)
    displayed, before = odds(game, REFERENCE, m, "displayed"), odds(game, BEFORE_TOP_SLOT, m, "before-top-slot")
    assert (displayed == before) == (m == 1), (game, m, float(displayed), float(before))
