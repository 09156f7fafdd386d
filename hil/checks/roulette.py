"""Checks of a Roulette table: Roulette X (§ 617b.5), Roulette Up (§ 617b.4), the wheel.

Each check reads only the trace: the devices' reports (the ball wheel's ``ball_result``, the
illuminator's ``illumination``, the wagering device's ``press`` and ``lockout_command``) and the
croupier's records (``wager``, ``collect``/``pay``, ``streak``, ``up_settle``, ``meter_*``), and
judges the croupier's records against the devices' reports and the regulation (``rules``).
Round 0 gives the table (``table``: wheel, paytables, progressive terms) and the meter.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from fractions import Fraction
from typing import Any

from scipy import stats

from hil.checks.base import Check, Measurement, RoundView
from hil.checks.crazy_time import Lockout, _t
from hil.trace import Event
from rules.odds import ToOne
from rules.roulette import Wheel, parse_pocket, pockets
from rules.roulette_up import UP_METER, ProgressiveMeter as MeterRow, meter_spec, paytable as up_paytable, settle_streak, track
from rules.roulette_x import LitNumbers, RouletteXError, paytable_for, straight_odds

CROUPIER = "croupier"
#: the Roulette Up spot on the wagering device (hil.roulette.UP_SPOT)
UP_SPOTS = ("roulette-up",)


def owed_up_presses(rv: RoundView, config) -> tuple[dict[int, Event], list[tuple[Event, str]]]:
    """The Roulette Up presses the croupier owes an answer for, on the attribution re-derived from
    the trace (``RoundView.owed_wager_presses``, the rule of CT-690.2e-settlement and the Blackjack
    wager checks): accepted by the device before "no more bets", not the rig's probe, less a real
    player's press refused "not made by the rig" (where the scenario does not settle them,
    ``CheckConfig.foreign_presses``) or a duplicate of an actuation, each refusal held to the
    attribution. Returns press id -> the device's ``press``, and the refusals the trace does not
    bear out (each a finding; that press stays owed). Each owed press must be a Roulette Up wager or
    refused on record under § 617b.4(a) or (d)."""
    settle = config.foreign_presses == "settle"
    return rv.owed_wager_presses(UP_SPOTS, settle), rv.press_excuses(settle)[1]


def up_refusals(rv: RoundView) -> dict[int, Event]:
    """press id -> the croupier's refusal of that press as a Roulette Up wager (kind ``up``)."""
    return {r.payload["press_id"]: r for r in rv.by_croupier("wager_rejected")
            if r.payload.get("kind") == "up" and r.payload.get("press_id") is not None}


def up_wagers_by_press(rv: RoundView) -> dict[int, Event]:
    """press id -> the croupier's Roulette Up wager on that press."""
    return {w.payload["press_id"]: w for w in rv.by_croupier("wager")
            if w.payload.get("kind") == "up" and w.payload.get("press_id") is not None}


# --------------------------------------------------------------------------- the round's evidence
def valid_ball(rv: RoundView) -> Event | None:
    """The wheel's ``ball_result`` of the spin the croupier validated (None: no valid spin)."""
    last = None
    for e in rv.events:
        if e.kind == "ball_result" and e.device != CROUPIER:
            last = e
        elif e.device == CROUPIER and e.kind == "spin_valid":
            return last
    return None


def pocket_key(p: Any) -> str:
    return str(p)


class TableCheck(Check):
    """A check that knows the table of round 0."""

    def setup(self, bench) -> None:
        super().setup(bench)
        self.table: dict[str, Any] = bench.croupier.get("table") or {}
        self.wheel = Wheel(self.table.get("wheel", "single-zero"))
        self.pockets = pockets(self.wheel)


def _lit(table: dict[str, Any], wheel: Wheel, ev: Event) -> LitNumbers:
    """The illumination as § 617b.5 allows it (RouletteXError if it does not)."""
    p = ev.payload
    rx = table["roulette_x"]
    return LitNumbers.of(zip(p["numbers"], p["multipliers"]), paytable_for(rx["paytable"], wheel), wheel)


# --------------------------------------------------------------------------- Roulette X
class IlluminationAfterWagers(TableCheck):
    """§ 617b.5(d): "After all wagers have been placed, the random number generator shall be
    initiated and will select between 2 and 5 numbers". The generator's draw (the illuminator's
    own time) must follow the announcement of "no more bets" and every wager accepted in the
    round; and no wager may be accepted after "no more bets". A Roulette Up wager placed by a press
    is placed when the wagering device stamped that press (its ``press`` report, not the croupier's
    ``placed_s``), and every Roulette Up press the croupier owes an answer for (``owed_up_presses``:
    a wager, even one it dropped) was placed before the draw."""

    id = "RX-617b.5d-after-wagers"
    section = "§ 617b.5(d)"
    title = "Multipliers drawn only after all wagers are placed"

    def __init__(self, config):
        super().__init__(config)
        self.illuminations = 0
        self.margin: float | None = None

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        nmb = rv.no_more_bets
        wagers = rv.by_croupier("wager")
        pressed = {p.payload["press_id"]: _t(p) for p in rv.presses}
        placed = {}  # wager id -> when it was placed: a pressed wager's time is the device's stamp
        for w in wagers:
            pid = w.payload.get("press_id")
            placed[w.payload["wager_id"]] = pressed.get(pid, float(w.payload["placed_s"])) \
                if pid is not None else float(w.payload["placed_s"])
        owed = [_t(p) for p in owed_up_presses(rv, self.config)[0].values()]
        if nmb is not None:
            for w in wagers:
                if placed[w.payload["wager_id"]] >= nmb.sim_time:
                    self.finding(rv.n, w, f"wager {w.payload['wager_id']} placed at "
                                 f"{placed[w.payload['wager_id']]:.3f} s accepted after \"no more bets\" "
                                 f"({nmb.sim_time:.3f} s)")
        for ev in rv.by_devices("illumination"):
            self.illuminations += 1
            t = _t(ev)
            if nmb is None or t < nmb.sim_time:
                self.finding(rv.n, ev, f"numbers drawn at {t:.3f} s, before \"no more bets\""
                             + ("" if nmb is None else f" ({nmb.sim_time:.3f} s)"))
                continue
            last = max([*placed.values(), *owed], default=-math.inf)
            if t < last:
                self.finding(rv.n, ev, f"numbers drawn at {t:.3f} s, before a wager placed at {last:.3f} s")
            gap = t - max(last, nmb.sim_time)
            self.margin = gap if self.margin is None else min(self.margin, gap)

    def verdict(self):
        m = [Measurement("illuminations", self.illuminations, "illuminations")]
        if self.margin is not None:
            m.append(Measurement("min_draw_after_close", self.margin, "s", limit=">= 0 s"))
        if self.failed:
            return "fail", f"{self._findings_total} draw(s) or wager(s) out of order", m
        if not self.illuminations:
            return "indeterminate", "no illumination in the trace", m
        return "pass", f"all {self.illuminations} draws after \"no more bets\" and the last wager", m


class DistinctNumbers(TableCheck):
    """§ 617b.5(d): the random number generator "will select between 2 and 5 numbers on the
    layout that are the multipliers" — distinct numbers of the table's wheel."""

    id = "RX-617b.5d-two-to-five-distinct"
    section = "§ 617b.5(d)"
    title = "2 to 5 distinct numbers of the wheel lit"

    def __init__(self, config):
        super().__init__(config)
        self.illuminations = 0
        self.sizes: Counter[int] = Counter()

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        for ev in rv.by_devices("illumination"):
            self.illuminations += 1
            numbers = ev.payload["numbers"]
            self.sizes[len(numbers)] += 1
            keys = []
            for n in numbers:
                try:
                    keys.append(parse_pocket(n, self.wheel))
                except ValueError:
                    self.finding(rv.n, ev, f"{n!r} is not a number of the {self.wheel} wheel")
            if len(set(keys)) != len(keys):
                dup = sorted({str(k) for k in keys if keys.count(k) > 1})
                self.finding(rv.n, ev, f"numbers lit twice: {', '.join(dup)} (lit: {numbers})")
            if not 2 <= len(numbers) <= 5:
                self.finding(rv.n, ev, f"{len(numbers)} numbers lit (2 to 5)")
            if len(ev.payload["multipliers"]) != len(numbers):
                self.finding(rv.n, ev, "not one payout per lit number")

    def verdict(self):
        m = [Measurement("illuminations", self.illuminations, "illuminations")]
        m += [Measurement(f"lit_{k}", n, "illuminations") for k, n in sorted(self.sizes.items())]
        if self.failed:
            return "fail", f"{self._findings_total} faulty selection(s)", m
        if not self.illuminations:
            return "indeterminate", "no illumination in the trace", m
        return "pass", f"all {self.illuminations} selections: 2–5 distinct numbers of the wheel", m


class PaytableValues(TableCheck):
    """§ 617b.5(c): "Roulette X may be played on either a single zero or double zero roulette
    wheel." The ball wheel declares (``device_info``) a single zero or a double zero wheel — the
    table's — with exactly that wheel's compartments, and every number it reports is one of them.

    § 617b.5(g): the multipliers are those of the certificate holder's selected paytable
    (A: 50, 100, 250, 500 to 1 on either wheel; B: 50, 100, 175, 250 to 1, double zero wheel
    only); the generator declares that paytable."""

    id = "RX-617b.5g-paytable-values"
    section = "§ 617b.5(c), (g)"
    title = "A single or double zero wheel, the table's; lit payouts from the selected paytable"

    def __init__(self, config):
        super().__init__(config)
        self.values = 0

    def setup(self, bench) -> None:
        super().setup(bench)
        rx = self.table.get("roulette_x")
        self.allowed: set[int] = set()
        if rx is None:
            return
        try:
            t = paytable_for(rx["paytable"], self.wheel)
            self.allowed = {int(m.ratio) for m in t.multipliers}
        except RouletteXError as exc:
            self.finding(0, None, str(exc))
        for name, info in bench.info.items():
            if "multipliers" in info and "paytable" in info:
                if info["paytable"] != rx["paytable"] or info.get("wheel") != str(self.wheel):
                    self.finding(0, None, f"{name} declares Paytable {info['paytable']} on a {info.get('wheel')} "
                                 f"wheel; the table is Paytable {rx['paytable']}, {self.wheel}")
            elif "pockets" in info and "wheel" in info:  # the ball wheel (§ 617b.5(c))
                declared = info.get("wheel")
                if declared not in tuple(Wheel):
                    self.finding(0, None, f"§ 617b.5(c): {name} declares a {declared!r} wheel; Roulette X is played "
                                 "on a single zero or a double zero roulette wheel")
                elif declared != str(self.wheel):
                    self.finding(0, None, f"§ 617b.5(c): {name} declares a {declared} wheel; the table is played on "
                                 f"a {self.wheel} wheel")
                try:
                    got = sorted(pocket_key(parse_pocket(p, Wheel.DOUBLE_ZERO)) for p in info.get("pockets") or [])
                except ValueError:
                    got = None
                if got != sorted(pocket_key(p) for p in self.pockets):
                    self.finding(0, None, f"§ 617b.5(c): {name} declares the compartments {info.get('pockets')}; "
                                 f"a {self.wheel} wheel has {len(self.pockets)}: "
                                 f"{', '.join(map(str, self.pockets))}")

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.table.get("roulette_x") is not None:
            for ball in rv.by_devices("ball_result"):
                try:
                    parse_pocket(ball.payload.get("pocket"), self.wheel)
                except ValueError:
                    self.finding(rv.n, ball, f"§ 617b.5(c): the ball came to rest in {ball.payload.get('pocket')!r}, "
                                 f"no compartment of the {self.wheel} wheel")
        for ev in rv.by_devices("illumination"):
            for n, m in zip(ev.payload["numbers"], ev.payload["multipliers"]):
                self.values += 1
                if int(m) not in self.allowed:
                    self.finding(rv.n, ev, f"{n} lit at {m} to 1: not a multiplier of the paytable "
                                 f"({', '.join(map(str, sorted(self.allowed)))} to 1)")

    def verdict(self):
        m = [Measurement("lit_values", self.values, "values")]
        if self.failed:
            return "fail", f"{self._findings_total} value(s) off the paytable", m
        if not self.values:
            return "indeterminate", "no illumination in the trace", m
        return "pass", f"all {self.values} lit payouts from the paytable", m


class StraightPayouts(TableCheck):
    """§ 617b.5(e)–(f): a winning straight wager on a lit number is paid the lit payout; a
    winning straight wager on a number not lit is paid the paytable's straight odds (28 to 1 on
    A, 30 to 1 on B); losing straight wagers are collected. The number is the wheel's report. (An
    illumination § 617b.5 does not allow is not honoured: the straight odds apply.)"""

    id = "RX-617b.5ef-straight-payouts"
    section = "§ 617b.5(e)–(f)"
    title = "Straight wagers paid at the lit payout or the straight odds"

    def __init__(self, config):
        super().__init__(config)
        self.wagers = self.winners = self.lit_winners = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        wagers = {e.payload["wager_id"]: e for e in rv.by_croupier("wager") if e.payload["kind"] == "straight"}
        settled: dict[str, Event] = {}
        for e in rv.collects + rv.pays + rv.refunds:
            if e.payload.get("kind") == "straight":
                if e.payload["wager_id"] in settled:
                    self.finding(rv.n, e, f"wager {e.payload['wager_id']} settled twice")
                settled[e.payload["wager_id"]] = e
        for wid in settled.keys() - wagers.keys():
            self.finding(rv.n, settled[wid], f"{wid} settled but never accepted")
        if not rv.settled:
            return
        ball = valid_ball(rv)
        if ball is None:
            self.finding(rv.n, rv.end, "round settled without a valid spin reported by the wheel")
            return
        result = ball.payload["pocket"]
        rx = self.table.get("roulette_x")
        lit = None
        if rx is not None and (ill := rv.by_devices("illumination")):
            try:
                lit = _lit(self.table, self.wheel, ill[-1])
            except RouletteXError:
                lit = None
        for wid, w in wagers.items():
            self.wagers += 1
            p, s = w.payload, settled.get(wid)
            if s is None:
                self.finding(rv.n, w, f"wager {wid} never settled")
                continue
            if pocket_key(p["number"]) != pocket_key(result):
                if s.kind != "collect":
                    self.finding(rv.n, s, f"{wid} on {p['number']} lost ({result} spun) but was {s.kind}ed")
                continue
            self.winners += 1
            if rx is None:
                odds = ToOne(int(self.table.get("straight_odds_without_x", 35)))
            elif lit is not None:
                odds = straight_odds(p["number"], result, lit)
            else:
                odds = paytable_for(rx["paytable"], self.wheel).straight
            if lit is not None and odds != paytable_for(rx["paytable"], self.wheel).straight:
                self.lit_winners += 1
            want = odds.profit_cents(int(p["stake_cents"]))
            if s.kind != "pay" or int(s.payload["win_cents"]) != want:
                got = f"paid {s.payload.get('win_cents')} ({s.payload.get('odds')})" if s.kind == "pay" else s.kind + "ed"
                self.finding(rv.n, s, f"{wid}: {p['stake_cents']} on {p['number']} won at {odds} = {want}; {got}")

    def verdict(self):
        m = [Measurement("straight_wagers", self.wagers, "wagers"), Measurement("winners", self.winners, "wagers"),
             Measurement("lit_winners", self.lit_winners, "wagers")]
        if self.failed:
            return "fail", f"{self._findings_total} straight wager(s) settled wrong", m
        if not self.winners:
            return "indeterminate", "no winning straight wager in the trace", m
        return "pass", f"{self.wagers} straight wagers settled right ({self.lit_winners} lit winners)", m


def without_replacement_chi2(observed: list[int], var: float) -> float:
    """Pearson's statistic for counts of N categories from selections of k_i distinct categories
    each (uniform, without replacement), ``var`` = Σᵢ pᵢ(1−pᵢ) with pᵢ = k_i/N: the counts'
    covariance is var·N/(N−1)·(I − J/N), so (N−1)/N · Σ (O − E)² / var is χ² with N − 1 dof."""
    n = len(observed)
    expected = sum(observed) / n
    return (n - 1) / n * sum((o - expected) ** 2 for o in observed) / var


class LitUniformity(TableCheck):
    """§ 617b.5(b), (d): the random number generator selects the multipliers' numbers. A fair
    generator lights each number of the wheel with probability k/N in a selection of k. Pearson's
    statistic of the lit counts against Σk/N, corrected for drawing without replacement: the k
    numbers of one selection are distinct, so the counts vary less than multinomial counts —
    Var(count) = Σ p(1−p) and Cov = −Σ p(1−p)/(N−1) per selection (p = k/N). The statistic
    X² = (N−1)/N · Σ (O − E)² / Σᵢ pᵢ(1−pᵢ) is χ² with N−1 degrees of freedom."""

    id = "RX-617b.5d-lit-uniformity"
    section = "§ 617b.5(b), (d)"
    title = "Lit numbers uniform over the wheel (χ², without-replacement corrected)"

    def __init__(self, config):
        super().__init__(config)
        self.counts: Counter[str] = Counter()
        self.selections = 0
        self.var = 0.0  # Σ p(1−p) over the selections

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        n = len(self.pockets)
        for ev in rv.by_devices("illumination"):
            numbers = {pocket_key(x) for x in ev.payload["numbers"]}
            self.selections += 1
            p = len(numbers) / n
            self.var += p * (1 - p)
            self.counts.update(numbers)

    def verdict(self):
        n = len(self.pockets)
        m = [Measurement("selections", self.selections, "selections", limit=f">= {self.config.chi2_min_spins // 4}")]
        if self.selections < self.config.chi2_min_spins // 4 or not self.var:
            return "indeterminate", f"{self.selections} selections: too few for the χ² test", m
        total = sum(self.counts.values())
        expected = total / n
        observed = [self.counts.get(pocket_key(p), 0) for p in self.pockets]
        x2 = without_replacement_chi2(observed, self.var)
        pv = float(stats.chi2.sf(x2, n - 1))
        naive = sum((o - expected) ** 2 for o in observed) / expected
        alpha = self.config.chi2_alpha
        m += [Measurement("chi2_corrected", x2, "1"), Measurement("chi2_uncorrected", naive, "1"),
              Measurement("p_value", pv, "1", limit=f">= {alpha}"), Measurement("dof", n - 1, "1")]
        if pv < alpha:
            top = max(range(n), key=lambda i: observed[i])
            self.finding(0, None, f"X² = {x2:.1f} on {n - 1} dof, p = {pv:.3g} < {alpha}; most lit: "
                         f"{self.pockets[top]} ({observed[top]} times, expected {expected:.1f})")
            return "fail", f"lit numbers not uniform: p = {pv:.3g}", m
        return "pass", f"uniform at α = {alpha}: p = {pv:.3g} over {self.selections} selections", m


# --------------------------------------------------------------------------- Roulette Up
class UpCheck(TableCheck):
    """Follows the croupier's streak tracker (its ``streak`` records) across rounds."""

    def setup(self, bench) -> None:
        super().setup(bench)
        self.up = self.table.get("roulette_up")
        resumed = bench.croupier.get("streak_resumed") or {}
        self.numbers: list[Any] = list(resumed.get("numbers", []))  # the croupier's streak so far
        self.streak_wagers: list[dict[str, Any]] = list(resumed.get("wagers", []))

    def follow(self, rv: RoundView) -> None:
        """After the round: the croupier's tracker as its last ``streak`` record left it."""
        for w in rv.by_croupier("wager"):
            if w.payload["kind"] == "up" and rv.settled:
                self.streak_wagers.append(w.payload)
        for s in rv.by_croupier("streak"):
            self.numbers = [] if s.payload["ended"] else list(s.payload["numbers"])
            if s.payload["ended"]:
                self.streak_wagers = []


class StreakRules(UpCheck):
    """§ 617b.4(f)–(g): the number after the Roulette Up wagers are placed is the starting number
    (box 1); the streak continues while each number is greater than the one before (on a double
    zero wheel 0 < 00 < 1), and ends on a number less than or equal to the preceding one, on 36,
    or at the longest streak of the paytable. Each round's number (the wheel's report) must move
    the croupier's tracker exactly so; a streak starts only when Roulette Up wagers were placed."""

    id = "RU-617b.4g-streak"
    section = "§ 617b.4(f)–(g)(2)(iii)"
    title = "Streak tracked by the rules (greater continues; ≤, 36 or the longest ends)"

    def __init__(self, config):
        super().__init__(config)
        self.steps = self.ended = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.up is None:
            return
        for r in rv.by_croupier("streak_resumed"):  # a restart in this trace: the streak it goes on with
            got = [pocket_key(x) for x in r.payload.get("numbers", [])]
            if got != [pocket_key(x) for x in self.numbers]:
                self.finding(rv.n, r, f"the streak resumed at {got}; the trace before the restart leaves it at "
                             f"{[pocket_key(x) for x in self.numbers]}")
                self.numbers = list(r.payload.get("numbers", []))
        recs = rv.by_croupier("streak")
        ball = valid_ball(rv) if rv.settled else None
        new_up = any(w.payload["kind"] == "up" for w in rv.by_croupier("wager"))
        active = bool(self.numbers) or (new_up and rv.settled)
        if ball is None or not active:
            for r in recs:
                self.finding(rv.n, r, "streak moved without a Roulette Up streak in play and a valid spin")
            self.follow(rv)
            return
        if len(recs) != 1:
            self.finding(rv.n, rv.end, f"{len(recs)} streak records for one number (1 expected)")
            self.follow(rv)
            return
        want = track(self.wheel, self.up["paytable"], [*self.numbers, ball.payload["pocket"]])
        got = recs[0].payload
        self.steps += 1
        exp = {"numbers": [pocket_key(x) for x in want.numbers], "length": want.length, "ended": want.ended}
        seen = {"numbers": [pocket_key(x) for x in got["numbers"]], "length": got["length"], "ended": got["ended"]}
        if exp != seen:
            why = f" ({want.end_reason})" if want.ended else ""
            self.finding(rv.n, recs[0], f"after {ball.payload['pocket']}: tracker at box {got['length']}, "
                         f"{'ended' if got['ended'] else 'going on'}; {self._clause(want, got)}: box {want.length}, "
                         f"{'ended' + why if want.ended else 'going on'}")
        self.ended += bool(got["ended"])
        self.follow(rv)

    def _clause(self, want, got: dict[str, Any]) -> str:
        """The subclause the croupier's tracker broke."""
        longest = up_paytable(self.up["paytable"]).longest
        if want.end_reason is not None and want.end_reason.name == "LONGEST" or got.get("end_reason") == "LONGEST" \
                or int(got["length"]) > longest:
            return f"§ 617b.4(g)(2)(iii), the longest Roulette Up streak of {self.up['label']} is {longest}"
        if want.end_reason is not None and want.end_reason.name == "THIRTY_SIX":
            return "§ 617b.4(g)(2)(ii)"
        if want.end_reason is not None and want.end_reason.name == "NOT_GREATER":
            return "§ 617b.4(g)(2)(i)"
        return "§ 617b.4(f)–(g)(1)"

    def verdict(self):
        m = [Measurement("numbers_tracked", self.steps, "numbers"), Measurement("streaks_ended", self.ended, "streaks")]
        if self.failed:
            return "fail", f"{self._findings_total} tracker step(s) against § 617b.4(g)", m
        if not self.steps:
            return "indeterminate", "no Roulette Up streak in the trace", m
        return "pass", f"{self.steps} numbers tracked, {self.ended} streaks ended by the rules", m


class UpWagerTiming(UpCheck):
    """§ 617b.4(d): "A player who has placed a Roulette wager ... may place a Roulette Up wager
    prior to the starting number for the Roulette Up streak being established." An accepted
    Roulette Up wager must come from a player with a Roulette wager in the round, while the
    tracker is empty, before "no more bets".

    And the converse, on the device's press log: every Roulette Up press the wagering device
    accepted from a player before "no more bets" (``owed_up_presses``: the attribution re-derived
    from the trace, never the croupier's — a real player's press refused "not made by the rig" is
    excused only where the scenario does not settle them and the trace does not match it to one of
    the rig's actuations) is a wager the player was allowed to place, unless it is refused on record
    for a reason § 617b.4 gives and the trace bears out: the streak had started (§ 617b.4(d)), or
    the seat placed no Roulette wager in the round (§ 617b.4(a)). A press silently dropped is a
    finding."""

    id = "RU-617b.4d-wager-timing"
    section = "§ 617b.4(a), (d)"
    title = "Roulette Up wagers only before the starting number, by Roulette players"

    def __init__(self, config):
        super().__init__(config)
        self.accepted = self.refused = self.presses = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.up is None:
            return
        wagers = rv.by_croupier("wager")
        seats = {w.payload["seat"] for w in wagers if w.payload["kind"] == "straight"}
        owed, wrong = owed_up_presses(rv, self.config)
        for ev, why in wrong:
            self.finding(rv.n, ev, why)
        taken, refused = up_wagers_by_press(rv), up_refusals(rv)
        misattributed = {ev.payload["press_id"] for ev, _why in wrong}  # their finding is made
        for pid, press in owed.items():
            self.presses += 1
            seat = press.payload["seat"]
            if pid in taken or pid in misattributed:
                continue
            r = refused.get(pid)
            if r is None:
                self.finding(rv.n, press, f"Roulette Up press {pid} (seat {seat}) accepted by the device before "
                             "\"no more bets\" is neither a wager nor refused on record (dropped)")
                continue
            reason = str(r.payload.get("reason"))
            if "617b.4(d)" in reason:
                if not self.numbers:
                    self.finding(rv.n, r, f"press {pid} refused as after the starting number (§ 617b.4(d)); "
                                 "the streak tracker was empty")
            elif "617b.4(a)" in reason:
                if seat in seats:
                    self.finding(rv.n, r, f"press {pid} refused as by a player without a Roulette wager "
                                 f"(§ 617b.4(a)); seat {seat} placed one this round")
            else:
                self.finding(rv.n, r, f"press {pid} refused ({reason}): not a reason § 617b.4(a), (d) gives")
        nmb = rv.no_more_bets
        for w in wagers:
            p = w.payload
            if p["kind"] != "up":
                continue
            self.accepted += 1
            if self.numbers:
                self.finding(rv.n, w, f"Roulette Up wager {p['wager_id']} accepted with the streak at "
                             f"{self.numbers} (starting number already established)")
            if p["seat"] not in seats:
                self.finding(rv.n, w, f"Roulette Up wager {p['wager_id']} by seat {p['seat']}, who placed no "
                             "Roulette wager")
            if nmb is not None and float(p["placed_s"]) >= nmb.sim_time:
                self.finding(rv.n, w, f"Roulette Up wager {p['wager_id']} placed after \"no more bets\"")
        self.refused += sum(1 for r in rv.by_croupier("wager_rejected") if r.payload.get("kind") == "up")
        self.follow(rv)

    def verdict(self):
        m = [Measurement("up_wagers_accepted", self.accepted, "wagers"),
             Measurement("up_wagers_refused", self.refused, "wagers"),
             Measurement("up_presses_owed", self.presses, "presses")]
        if self.failed:
            return "fail", (f"{self._findings_total} Roulette Up wager(s) accepted out of time or press(es) "
                            "refused or dropped against § 617b.4(a), (d)"), m
        if not self.accepted:
            return "indeterminate", "no Roulette Up wager in the trace", m
        return "pass", (f"{self.accepted} accepted before their starting number; {self.refused} refused; "
                        f"all {self.presses} presses owed a wager or a refusal answered"), m


class UpSettlement(UpCheck):
    """§ 617b.4(h): "Once the Roulette Up streak has ended, the Roulette Up wager shall be settled"
    by the paytable in the Rules Submission — "N to 1" returns the wager and N times it, "N for 1"
    N times it (the wager included), a push returns the wager, a loss collects it; "100% of
    progressive meter" pays the meter (shared equally by the streak's winning wagers). Every
    wager of the streak, once, at the length the tracker ended on."""

    id = "RU-617b.4h-settlement"
    section = "§ 617b.4(h)–(h)(2)"
    title = "Roulette Up wagers settled by the paytable when the streak ends"

    def __init__(self, config):
        super().__init__(config)
        self.settled = 0
        self.by_payout: Counter[str] = Counter()

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.up is None:
            return
        pending = {w["wager_id"]: w for w in self.streak_wagers}
        if rv.settled:
            pending.update({w.payload["wager_id"]: w.payload for w in rv.by_croupier("wager") if w.payload["kind"] == "up"})
        ended = [s for s in rv.by_croupier("streak") if s.payload["ended"]]
        settles = rv.by_croupier("up_settle")
        if not ended:
            for s in settles:
                self.finding(rv.n, s, f"{s.payload['wager_id']} settled while its streak goes on")
            self.follow(rv)
            return
        length = int(ended[-1].payload["length"])
        seen = {}
        for s in settles:
            p = s.payload
            wid = p["wager_id"]
            if wid in seen:
                self.finding(rv.n, s, f"{wid} settled twice")
            seen[wid] = s
            w = pending.get(wid)
            if w is None:
                self.finding(rv.n, s, f"{wid} settled but not a wager of this streak")
                continue
            payout = up_paytable(self.up["paytable"]).payout(length)
            meter = int(p["meter_share_cents"]) if "meter_share_cents" in p else None
            try:
                want = settle_streak(self.up["paytable"], length, int(w["stake_cents"]), meter_cents=meter)
            except ValueError as exc:
                self.finding(rv.n, s, f"{wid}: {exc}")
                continue
            self.settled += 1
            self.by_payout[str(payout)] += 1
            if int(p["returned_cents"]) != want.returned_cents or int(p["length"]) != length:
                self.finding(rv.n, s, f"{wid}: {w['stake_cents']} on a streak of {length} ({payout}) returns "
                             f"{want.returned_cents}; {p['returned_cents']} returned at length {p['length']}")
        for wid in pending.keys() - seen.keys():
            self.finding(rv.n, ended[-1], f"{wid} never settled when its streak ended")
        self.follow(rv)

    def verdict(self):
        m = [Measurement("up_wagers_settled", self.settled, "wagers")]
        m += [Measurement(f"settled_{k.replace(' ', '_')}", v, "wagers") for k, v in sorted(self.by_payout.items())]
        if self.failed:
            return "fail", f"{self._findings_total} Roulette Up settlement(s) wrong", m
        if not self.settled:
            return "indeterminate", "no Roulette Up wager settled in the trace", m
        return "pass", f"{self.settled} Roulette Up wagers settled by {self.up['label']}", m


def same_figure(declared: Any, row: int | str) -> bool:
    """A meter figure a system declares is its row's, exactly (§ 617b.4(h)(2)): its decimal text read
    as a fraction — 1000000, "1000000" and 1e6 are 1,000,000 cents and "0.18" is 9/50, but 1000000.5
    is not 1,000,000 cents (never truncated to whole cents), and a figure that is no number (None,
    True, "ten", "1/0") is no row's."""
    try:
        return Fraction(str(declared)) == Fraction(row)
    except (ValueError, ZeroDivisionError):
        return False


class ProgressiveMeter(UpCheck):
    """§ 617b.4(h)(2): a progressive paytable's row gives the meter its "Seed/Reseed" (N× the
    progressive wager), its "Incrementation" and its "Reserve Rate"; § 617b.4(c): the meter is
    the progressive table game system's. The system's declared meter (``device_info``) must be
    that row's, for the paytable and progressive wager the table declares (the regulation's rows,
    ``rules.roulette_up``, never the croupier's figures). The presses are judged on the
    attribution re-derived from the trace (``owed_up_presses``): a press refused as a real player's
    ("not made by the rig") or a duplicate is no wager, and an increment for it is one for no wager;
    a press the croupier owes an answer for that is neither a wager nor refused on record lacks its
    increment. Then, from the system's own reports:
    the meter starts at the seed; each Roulette Up wager of a played round — a press the device
    accepted from a player before "no more bets" that the croupier took as a wager — increments it
    once, exactly (fractions of a cent carried), and nothing else does (a late press, the rig's
    probe, a refused press, a void round); the reserve grows by the reserve rate × each wager and
    funds the reseed; a streak that wins "100% of progressive meter" is paid by the system
    (``meter_hit``): 100 % of the meter split equally among the streak's wagers (whole cents, the
    remainder kept on the meter), the meter reseeded at the seed. A lost increment, a meter reset by
    a power loss, a misconfigured meter or a wrong split shows as a meter that is not what the
    regulation, the wagers and the hits make it."""

    id = "RU-617b.4h2-meter"
    section = "§ 617b.4(c), (h)(2)"
    title = "Progressive meter: the row's seed and rates on the system, exact increments, reserve, hit and reseed"

    def __init__(self, config):
        super().__init__(config)
        self.increments = self.hits = 0
        self.spec: dict[str, Any] | None = None
        self.meter = self.reserve = Fraction(0)

    def setup(self, bench) -> None:
        super().setup(bench)
        if self.up is None:
            return
        name = self.up["paytable"]
        try:
            table = up_paytable(name)
        except ValueError as exc:
            self.finding(0, None, str(exc))
            return
        if table.progressive is None:
            return
        stake = (self.up.get("progressive") or {}).get("stake_cents")
        if not isinstance(stake, int):
            self.finding(0, None, f"{table.label} is progressive but the table declares no progressive wager")
            return
        self.spec = meter_spec(table, stake)
        self.meter, self.reserve = Fraction(self.spec["seed_cents"]), Fraction(0)
        self.label = table.label
        # the system's declared meter against the regulation's row
        infos = {d: i for d, i in bench.info.items() if "meters" in i}
        info = infos.get("roulette_wagering") or next(iter(infos.values()), None)
        declared = {m["name"]: m for m in (info or {}).get("meters", [])}
        got = declared.get(UP_METER)
        if got is None:
            self.finding(0, None, f"{table.label} needs a progressive table game system with its meter "
                         f"(§ 617b.4(c)); the wagering device declares "
                         f"{'no meter' if not declared else 'meters ' + ', '.join(declared)}")
        else:
            for key in ("seed_cents", "reseed_cents", "increment_rate", "reserve_rate"):
                want = self.spec[key]
                have = got.get(key)
                if not same_figure(have, want):
                    self.finding(0, None, f"the system's meter declares {key} {have}; {table.label}'s row "
                                 f"(§ 617b.4(h)(2)) on a {stake}-cent progressive wager is {want}")
            if got.get("reseed_from_reserve"):
                self.finding(0, None, f"the system's meter restarts from its reserve; {table.label}'s row "
                             f"(§ 617b.4(h)(2)) reseeds it at a fixed {self.spec['reseed_cents']} cents")
        resumed = bench.croupier.get("streak_resumed")  # a trace begun from another trace's state
        if resumed is not None and resumed.get("meters"):
            self._adopt(resumed["meters"])

    def _adopt(self, meters: list[dict[str, Any]]) -> None:
        m = next((m for m in meters if m["name"] == UP_METER), None)
        if m is not None:
            self.meter = int(m["value_cents"]) + Fraction(m["residue"])
            self.reserve = int(m["reserve_cents"]) + Fraction(m["reserve_residue"])

    def _expect(self, rv: RoundView, ev: Event, shown: int, what: str) -> None:
        want = math.floor(self.meter)
        if shown != want:
            self.finding(rv.n, ev, f"the meter shows {shown} {what}; its seed, wagers and payouts make it {want}")
            self.meter = Fraction(shown)  # resynchronise: one finding per discrepancy

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.spec is None:
            return
        spec = self.spec
        rate, rrate, reseed = Fraction(spec["increment_rate"]), Fraction(spec["reserve_rate"]), spec["reseed_cents"]
        for r in rv.by_croupier("streak_resumed"):  # a restart in this trace: the restored meter is the one followed
            for m in r.payload.get("meters") or []:
                if m["name"] == UP_METER and int(m["value_cents"]) + Fraction(m["residue"]) != self.meter:
                    self.finding(rv.n, r, f"the meter restored at {m['value_cents']} + {m['residue']}; the trace "
                                 f"before the restart leaves it at {float(self.meter):.4f}")
            self._adopt(r.payload.get("meters") or [])
        # the wagers that feed the meter: the croupier's Roulette Up wagers of a played round whose
        # press the device accepted from a player before "no more bets" (RoundView.wager_presses)
        presses, wrong = owed_up_presses(rv, self.config)
        for ev, why in wrong:
            self.finding(rv.n, ev, why)
        ups = [w for w in rv.by_croupier("wager") if w.payload["kind"] == "up"]
        if rv.settled:  # a played round: an owed press neither a wager nor refused lacks its increment
            taken, refused = up_wagers_by_press(rv), up_refusals(rv)
            misattributed = {ev.payload["press_id"] for ev, _why in wrong}  # their finding is made
            for pid, press in presses.items():
                if pid not in taken and pid not in refused and pid not in misattributed:
                    self.finding(rv.n, press, f"press {pid} (seat {press.payload['seat']}), accepted before \"no "
                                 "more bets\", is neither a Roulette Up wager nor refused: the meter lacks its "
                                 "increment")
        feed = {w.payload["press_id"]: (w, presses[w.payload["press_id"]]) for w in ups
                if rv.settled and w.payload.get("press_id") in presses}
        incremented: set[int] = set()
        hits = []
        for e in rv.events:
            if e.device == CROUPIER:
                continue
            if e.kind == "meter_increment" and e.payload["meter"] == UP_METER:
                pid = e.payload["press_id"]
                if pid not in feed:
                    self.finding(rv.n, e, f"the meter incremented for press {pid}, which is no Roulette Up wager of "
                                 "a played round (a late press, the rig's probe, a refused press or a void round)")
                    self.meter = Fraction(int(e.payload["value_cents"]))
                    continue
                if pid in incremented:
                    self.finding(rv.n, e, f"the meter incremented twice for press {pid}")
                incremented.add(pid)
                stake = int(feed[pid][1].payload["stake_cents"])
                before = self.meter
                self.meter += rate * stake
                self.reserve += rrate * stake
                self.increments += 1
                if int(e.payload["amount_cents"]) != math.floor(self.meter) - math.floor(before) \
                        or int(e.payload["value_cents"]) != math.floor(self.meter):
                    self.finding(rv.n, e, f"press {pid}: the meter went {e.payload['amount_cents']} up to "
                                 f"{e.payload['value_cents']}; {rate} × {stake} on {float(before):.4f} makes "
                                 f"{math.floor(self.meter)} (+{math.floor(self.meter) - math.floor(before)})")
                    self.meter = Fraction(int(e.payload["value_cents"]))
            elif e.kind == "meter_reading" and e.payload.get("link_up", True) and UP_METER in e.payload["meters"]:
                self._expect(rv, e, int(e.payload["meters"][UP_METER]), "when read")
            elif e.kind == "meter_hit" and e.payload["meter"] == UP_METER:
                hits.append(e)
                self._hit(rv, e, reseed)
        for pid, (w, _press) in feed.items():
            if pid not in incremented:
                self.finding(rv.n, w, f"Roulette Up wager {w.payload['wager_id']} (press {pid}) did not increment "
                             "the meter")
        self._hit_due(rv, hits)
        self.follow(rv)

    def _hit(self, rv: RoundView, e: Event, reseed: int) -> None:
        p = e.payload
        self.hits += 1
        self._expect(rv, e, int(p["jackpot_cents"]), "when paid")
        jackpot = math.floor(self.meter)
        winners = int(p["winners"])
        share, rest = divmod(jackpot, winners) if winners > 0 else (0, jackpot)
        if int(p["percent"]) != 100:
            self.finding(rv.n, e, f"the system paid {p['percent']} % of the meter; {self.label} pays "
                         "\"100% of progressive meter\"")
        if int(p["paid_cents"]) != share or int(p["remainder_cents"]) != rest:
            self.finding(rv.n, e, f"the meter {jackpot} split {winners} ways is {share} each (remainder {rest}); "
                         f"the system paid {p['paid_cents']} each (remainder {p['remainder_cents']})")
        if int(p["reseed_cents"]) != reseed:
            self.finding(rv.n, e, f"the meter reseeded at {p['reseed_cents']}; the row's Seed/Reseed is {reseed}")
        self.reserve -= min(self.reserve, Fraction(reseed))  # the reserve funds the reseed as far as it goes
        self.meter = reseed + rest + (self.meter - jackpot)
        self._expect(rv, e, int(p["value_cents"]), "after the payout (reseed + remainder)")
        if int(p["reserve_cents"]) != math.floor(self.reserve):
            self.finding(rv.n, e, f"the reserve is {p['reserve_cents']} after funding the reseed; "
                         f"{self.spec['reserve_rate']} of the wagers less the reseeds funded make it "
                         f"{math.floor(self.reserve)}")
            self.reserve = Fraction(int(p["reserve_cents"]))

    def _hit_due(self, rv: RoundView, hits: list[Event]) -> None:
        """A streak that ended on the "100% of progressive meter" row is paid by the system, once,
        shared by the streak's wagers; no other meter payout."""
        ended = [s for s in rv.by_croupier("streak") if s.payload["ended"]]
        wagers = len(self.streak_wagers) + sum(1 for w in rv.by_croupier("wager")
                                                if w.payload["kind"] == "up" and rv.settled)
        due = False
        if ended:
            try:
                due = isinstance(up_paytable(self.up["paytable"]).payout(int(ended[-1].payload["length"])), MeterRow)
            except ValueError:
                due = False
        due = due and wagers > 0
        if due and not hits:
            self.finding(rv.n, ended[-1], f"the streak of {ended[-1].payload['length']} won \"100% of progressive "
                         "meter\" but the system paid no meter (no meter_hit)")
        if not due and hits:
            self.finding(rv.n, hits[0], "the system paid the meter; no streak won \"100% of progressive meter\"")
        for h in hits[:1] if due else []:
            if int(h.payload["winners"]) != wagers:
                self.finding(rv.n, h, f"the meter shared by {h.payload['winners']}; the streak has {wagers} "
                             "Roulette Up wagers, each a winner")
            for s in rv.by_croupier("up_settle"):
                if "meter_share_cents" in s.payload and int(s.payload["meter_share_cents"]) != int(h.payload["paid_cents"]):
                    self.finding(rv.n, s, f"{s.payload['wager_id']} paid a meter share of "
                                 f"{s.payload['meter_share_cents']}; the system paid {h.payload['paid_cents']} each")

    def verdict(self):
        m = [Measurement("increments", self.increments, "wagers"), Measurement("meter_hits", self.hits, "hits")]
        if self.spec is None:
            if self.failed:
                return "fail", f"{self._findings_total} meter error(s)", m
            return "indeterminate", "no progressive paytable at this table", m
        m += [Measurement("meter_end_cents", float(self.meter), "cents"),
              Measurement("reserve_end_cents", float(self.reserve), "cents")]
        if self.failed:
            return "fail", f"{self._findings_total} meter error(s)", m
        if not self.increments:
            return "indeterminate", "no progressive wager in the trace", m
        return "pass", f"{self.increments} increments and {self.hits} hit(s) exact, on {self.label}'s row", m


class UpWagersOnDevice(UpCheck):
    """§ 617b.4(c)(1): offered as a progressive wager, the Roulette Up wager is placed on the
    progressive table game system, which "must include ... A wagering device that acknowledges or
    accepts the placement of the progressive wager." Every Roulette Up wager the croupier takes —
    and so settles or refunds — must be a press that wagering device reports accepted, from a
    player (not the rig's probe), before "no more bets" (``RoundView.wager_presses``), with the
    wager's seat and stake; no press is two wagers."""

    id = "RU-617b.4c1-device-accepted"
    section = "§ 617b.4(c)(1)"
    title = "Every Roulette Up wager is a press the wagering device accepted in time"

    def __init__(self, config):
        super().__init__(config)
        self.wagers = 0
        self.applies = False

    def setup(self, bench) -> None:
        super().setup(bench)
        try:
            self.applies = self.up is not None and up_paytable(self.up["paytable"]).progressive is not None
        except ValueError:
            self.applies = False

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if not self.applies:
            return
        presses = rv.wager_presses(UP_SPOTS)
        used: set[int] = set()
        for w in rv.by_croupier("wager"):
            p = w.payload
            if p["kind"] != "up":
                continue
            self.wagers += 1
            pid = p.get("press_id")
            press = presses.get(pid) if pid is not None else None
            if press is None:
                why = "no press" if pid is None else f"press {pid}, which the device did not accept from a player " \
                                                        "before \"no more bets\""
                self.finding(rv.n, w, f"Roulette Up wager {p['wager_id']} (seat {p['seat']}) taken on {why}")
                continue
            if pid in used:
                self.finding(rv.n, w, f"press {pid} taken as two Roulette Up wagers")
            used.add(pid)
            if (press.payload["seat"], int(press.payload["stake_cents"])) != (p["seat"], int(p["stake_cents"])):
                self.finding(rv.n, w, f"Roulette Up wager {p['wager_id']}: seat {p['seat']}, {p['stake_cents']} "
                             f"cents; the device accepted press {pid} from seat {press.payload['seat']} for "
                             f"{press.payload['stake_cents']} cents")

    def verdict(self):
        m = [Measurement("up_wagers", self.wagers, "wagers")]
        if not self.applies:
            return "indeterminate", "no progressive Roulette Up paytable at this table (§ 617b.4(c))", m
        if self.failed:
            return "fail", f"{self._findings_total} Roulette Up wager(s) without a press the device accepted", m
        if not self.wagers:
            return "indeterminate", "no Roulette Up wager in the trace", m
        return "pass", f"all {self.wagers} Roulette Up wagers are presses the device accepted in time", m


def wheel_no_more_bets(rv: RoundView) -> Event | None:
    """An automatic wheel's own "no more bets" that the croupier followed this round: the wheel's
    last ``bets_closed`` report before the croupier's ``no_more_bets`` (None: a commanded wheel)."""
    last = None
    for e in rv.events:
        if e.device != CROUPIER and e.kind == "bets_closed":
            last = e
        elif e.device == CROUPIER and e.kind == "no_more_bets":
            return last
    return None


class UpLockout(Lockout):
    """§ 617b.4(c)(2): the progressive table game system includes "a mechanism, such as a
    lock-out button, that prevents the recognition of any progressive wager that a player
    attempts to place after the dealer has announced 'no more bets'" — no wager recognised once
    the lock-out took effect, and the device must take effect within the scenario's latency
    budget. Bracketed by the rig's probe presses, as at a Crazy Time table. At a table whose
    automatic wheel announces "no more bets" itself (the croupier follows its cycle) the latency
    is measured from the wheel's announcement (its ``bets_closed`` report: the receive time of its
    state-4 line) to the lock-out taking effect, the rig's reaction and the command's wire time
    included."""

    id = "RU-617b.4c2-lockout"
    section = "§ 617b.4(c)(2)"
    title = "No progressive wager recognised after the lock-out; latency within budget"

    def __init__(self, config):
        super().__init__(config)
        self.from_wheel = 0

    def observe(self, rv: RoundView) -> None:
        wheel = wheel_no_more_bets(rv)
        self._following = wheel is not None and rv.lockout_command is not None
        if self._following:
            self.from_wheel += 1
            rv = dataclasses.replace(rv, lockout_command=wheel)  # the reference instant: the wheel's line
        super().observe(rv)
        self._following = False

    _following = False

    def finding(self, rnd: int, ev, message: str) -> None:
        if self._following:  # say which instant the latency was timed from
            message = message.replace("after the lock-out command", "after the wheel's \"no more bets\"")
        super().finding(rnd, ev, message)

    def verdict(self):
        verdict, summary, m = super().verdict()
        if self.from_wheel:
            m = [*m, Measurement("rounds_timed_from_wheel", self.from_wheel, "rounds")]
            summary += f" (timed from the wheel's own \"no more bets\" in {self.from_wheel} rounds)"
        return verdict, summary, m


# --------------------------------------------------------------------------- the wheel
class PocketUniformity(TableCheck):
    """§ 617b.4(f), § 617b.5(e): the number is "the compartment the ball comes to rest in"; the
    paytables of §§ 617b.4(h) and 617b.5(g) (and their RTP) presume each compartment equally
    likely. Pearson's χ² test of the numbers of the valid spins against the uniform distribution
    (N − 1 degrees of freedom)."""

    id = "RW-pocket-chi2"
    section = "§ 617b.4(f), § 617b.5(e)"
    title = "Numbers uniform over the wheel's compartments (χ² test)"

    def __init__(self, config):
        super().__init__(config)
        self.counts: Counter[str] = Counter()

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        ball = valid_ball(rv)
        if ball is not None:
            self.counts[pocket_key(ball.payload["pocket"])] += 1

    def verdict(self):
        n = sum(self.counts.values())
        k = len(self.pockets)
        alpha = self.config.chi2_alpha
        m = [Measurement("spins", n, "spins", limit=f">= {self.config.chi2_min_spins} spins")]
        if n < self.config.chi2_min_spins:
            return "indeterminate", f"{n} spins: too few for the χ² test", m
        observed = [self.counts.get(pocket_key(p), 0) for p in self.pockets]
        if (other := n - sum(observed)) > 0:
            self.finding(0, None, f"{other} spins on numbers not on the {self.wheel} wheel")
        chi2, p = stats.chisquare(observed)
        m += [Measurement("chi2", float(chi2), "1"), Measurement("p_value", float(p), "1", limit=f">= {alpha}"),
              Measurement("dof", k - 1, "1")]
        if p < alpha:
            top = max(range(k), key=lambda i: observed[i])
            self.finding(0, None, f"χ² = {chi2:.1f} on {k - 1} dof, p = {p:.3g} < {alpha}; most frequent "
                         f"{self.pockets[top]} ({observed[top]} of {n}, expected {n / k:.1f})")
        if self.failed:
            return "fail", f"numbers not uniform: p = {p:.3g}", m
        return "pass", f"uniform at α = {alpha}: p = {p:.3g} over {n} spins", m


ROULETTE_CHECKS: tuple[type[Check], ...] = (
    IlluminationAfterWagers, DistinctNumbers, PaytableValues, StraightPayouts, LitUniformity,
    StreakRules, UpWagerTiming, UpSettlement, ProgressiveMeter, UpWagersOnDevice, UpLockout, PocketUniformity,
)

__all__ = ["ROULETTE_CHECKS"]
