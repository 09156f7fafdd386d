"""Crazy Time checks (58 Pa. Code §§ 690.1–690.4). Each reads only the trace.

Each check's docstring quotes the regulation it verifies; its ``section`` cites it.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from fractions import Fraction

from scipy import stats

from hil.checks.base import BenchView, Check, Measurement, RoundView
from hil.checks.bonus import refused_for_limits, replay_bonus, result_spot
from rules.crazy_time import (BASE_ODDS, BONUS_SPOTS, SPOTS, TOP_SLOT_REEL1, TOP_SLOT_REEL2, WHEEL_SECTIONS, Spot,
                              TopSlotOutcome, Wager, layout_deviations, settle)
from rules.odds import ToOne
from rules.submission import RulesSubmission

MIN_REVOLUTIONS = 3
#: timestamps closer than this are simultaneous (float rounding of offsets added to clocks)
TIME_RESOLUTION_S = 1e-9
#: an offset this close to the lock-out budget is AT the budget (CT-lockout): a press offset's own
#: ± TIME_RESOLUTION_S plus the rounding of two clock readings subtracted (offsets of ~10 ms taken
#: from clocks at thousands of seconds carry ~1e-15 s of float noise)
BUDGET_TOLERANCE_S = 2 * TIME_RESOLUTION_S


def outcome_m(top: dict, spot: Spot) -> int:
    """The Top Slot multiplier a stop report ``top`` applies to ``spot`` (§ 690.3(c)(1)–(2))."""
    return int(top["multiplier"]) if top.get("aligned") and top.get("spot") == spot else 1


def _t(ev) -> float:
    """The device's own timestamp of an event (falls back to the rig's simulated time)."""
    return float(ev.payload.get("device_time_s", ev.sim_time))


class Layout(Check):
    """§ 690.1(a)–(b): "Crazy Time gaming shall be conducted at a circular wheel at least 5 feet
    in diameter. The rim of the wheel must be divided into 54 equally spaced sections with 21
    sections containing the number 1, 13 … 2, 7 … 5, 4 … 10, 4 … Coin Flip, 2 … Cash Hunt,
    2 … Pachinko and 1 … Crazy Time World", "arranged clockwise around the rim of the wheel in
    the following order: 1, 2, 5, 1, 2, Pachinko, …, Crazy Time World"."""

    id = "CT-690.1-layout"
    section = "§ 690.1(a)–(b)"
    title = "Wheel diameter, section counts and clockwise order"

    def setup(self, bench: BenchView) -> None:
        super().setup(bench)
        self.info = bench.info.get("wheel")
        if self.info:
            for msg in layout_deviations(self.info["sections"], self.info["diameter_m"]):
                self.finding(0, None, msg)

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1

    def verdict(self):
        if not self.info:
            return "indeterminate", "the wheel declared no layout (no device_info in round 0)", []
        m = [Measurement("diameter", self.info["diameter_m"], "m", limit=">= 1.524 m (5 ft)"),
             Measurement("sections", len(self.info["sections"]), "sections", limit="== 54")]
        if self.failed:
            return "fail", f"{self._findings_total} deviation(s) from § 690.1(a)–(b)", m
        return "pass", "54 sections in the regulation's clockwise order; diameter >= 5 ft", m


class NoMoreBets(Check):
    """§ 690.2(a): "Prior to the spinning of the Crazy Time wheel, the dealer shall announce
    'no more bets.'" """

    id = "CT-690.2a-no-more-bets"
    section = "§ 690.2(a)"
    title = '"No more bets" announced before every spin'

    def __init__(self, config):
        super().__init__(config)
        self.margins: list[float] = []

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        for a in rv.attempts:
            push = a.wheel_start or a.command
            nmb = rv.no_more_bets
            if nmb is None or nmb.seq > push.seq:
                seen = f"announced at t={nmb.sim_time:.3f} s" if nmb else "never announced"
                self.finding(rv.n, push, f"wheel spun at t={push.sim_time:.3f} s; 'no more bets' {seen}")
            else:
                self.margins.append(push.sim_time - nmb.sim_time)

    def verdict(self):
        m = [Measurement("spins_checked", len(self.margins) + self._findings_total, "spins"),
             Measurement("min_announcement_lead", min(self.margins) if self.margins else None, "s",
                         limit="> 0 s before the push")]
        if self.failed:
            return "fail", f"{self._findings_total} spin(s) without a prior 'no more bets'", m
        if not self.margins:
            return "indeterminate", "no spins in the trace", m
        return "pass", "'no more bets' preceded every spin", m


class ThreeRevolutions(Check):
    """§ 690.2(b): "The Crazy Time wheel shall be spun by the dealer in either direction and must
    complete at least three revolutions to constitute a valid spin."

    Evidence: the wheel's index-sensor pulses (one per turn) and its reported revolutions; a
    rotation of R turns passes the index floor(R) or floor(R)+1 times."""

    id = "CT-690.2b-three-revolutions"
    section = "§ 690.2(b)"
    title = "Every settled spin completed at least three revolutions"

    def __init__(self, config):
        super().__init__(config)
        self.revs: list[float] = []
        self.short_voided = 0
        self.directions: Counter[str] = Counter()

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        for a in rv.attempts:
            if a.outcome is not None and a.outcome.payload.get("reason") == "under_three_revolutions":
                self.short_voided += 1
        a = rv.valid_attempt
        if a is None:
            if rv.attempts and rv.end is not None and all(
                    x.outcome is not None and x.outcome.payload.get("reason") == "under_three_revolutions"
                    for x in rv.attempts):
                self.finding(rv.n, rv.end, f"no valid spin within {len(rv.attempts)} attempts: "
                             "every push completed fewer than 3 revolutions")
            return
        if a.wheel_stop is None:
            return  # result evidence is CT-690.2c's to judge
        revs = float(a.wheel_stop.payload["revolutions"])
        pulses = len(a.pulses)
        self.directions[a.wheel_stop.payload.get("direction", "?")] += 1
        if revs < MIN_REVOLUTIONS:
            self.finding(rv.n, a.wheel_stop, f"settled a spin of {revs:.2f} revolutions (< 3)")
        if pulses < MIN_REVOLUTIONS:
            self.finding(rv.n, a.wheel_stop, f"index sensor counted {pulses} revolution(s) (< 3) "
                         f"for a settled spin reported as {revs:.2f}")
        elif pulses not in (math.floor(revs), math.floor(revs) + 1):
            self.finding(rv.n, a.wheel_stop, f"index pulses {pulses} disagree with reported "
                         f"revolutions {revs:.2f} (expected {math.floor(revs)} or {math.floor(revs) + 1})")
        self.revs.append(revs)

    def verdict(self):
        m = [Measurement("settled_spins", len(self.revs), "spins"),
             Measurement("min_revolutions", min(self.revs) if self.revs else None, "rev", limit=">= 3 rev"),
             Measurement("mean_revolutions", statistics.fmean(self.revs) if self.revs else None, "rev"),
             Measurement("short_spins_voided", self.short_voided, "spins"),
             Measurement("spins_cw", self.directions["cw"], "spins"),
             Measurement("spins_ccw", self.directions["ccw"], "spins")]
        if self.failed:
            return "fail", f"{self._findings_total} spin(s) without 3 verified revolutions", m
        if not self.revs:
            return "indeterminate", "no settled spins", m
        return "pass", f"{len(self.revs)} settled spins, each >= 3 revolutions by index sensor", m


class ResultEvidence(Check):
    """§ 690.1(e): "The wheel must contain a clapper capable of selecting a particular section of
    the wheel upon the conclusion of the spin." § 690.2(c): "A wager shall be settled in accordance
    with the wager's position on the layout when the clapper comes to rest in a section of the
    wheel."

    Every push has the wheel's start and rest report; every rest report is the clapper's selection
    of one particular section — a section index of the wheel (0..53 of its declared layout) naming
    that section's symbol — or its rest between two sections (``on_peg``, § 690.2(d)'s to void); a
    settled result is the section the clapper rests in, as the wheel reported it and as its
    declared layout names it."""

    id = "CT-690.2c-result-evidence"
    section = "§ 690.1(e), § 690.2(c)"
    title = "Each result rests on complete wheel telemetry"

    def __init__(self, config):
        super().__init__(config)
        self.spins = self.forced = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        layout = (self.bench.info.get("wheel") or {}).get("sections")
        selects: dict[int, bool] = {}  # id(attempt) -> its rest report selects one particular section
        for a in rv.attempts:
            self.spins += 1
            if a.wheel_start is None:
                self.finding(rv.n, a.command, "push without a spin_start report from the wheel")
            if a.wheel_stop is None:
                self.finding(rv.n, a.outcome or a.command, "spin without a rest report (spin_stop) from the wheel: "
                             "no section the clapper selected is on record (§ 690.1(e))")
            else:
                selects[id(a)] = self._selects_section(rv, a.wheel_stop, layout)
        a = rv.valid_attempt
        if a is None or a.wheel_stop is None or not rv.settled or not selects.get(id(a)):
            return
        stop = a.wheel_stop.payload
        result = rv.end.payload.get("result")
        if layout and layout[stop["section_index"]] != stop["spot"]:
            self.finding(rv.n, a.wheel_stop, f"section {stop['section_index']} is {layout[stop['section_index']]!r} "
                         f"in the declared layout but the wheel reported {stop['spot']!r}")
        forced = next((e for e in rv.events if e.device == "croupier" and e.kind == "forced_result"), None)
        if forced is not None:  # the lab's forced-outcome test mode: recorded, and counted
            self.forced += 1
            if forced.payload.get("wheel_spot") != stop["spot"] or result != forced.payload.get("spot"):
                self.finding(rv.n, forced, f"forced outcome {forced.payload.get('spot')!r} on a wheel that rested on "
                             f"{stop['spot']!r} recorded as {forced.payload.get('wheel_spot')!r}; settled on {result!r}")
        elif result != stop["spot"]:
            self.finding(rv.n, rv.end, f"settled on {result!r} but the clapper rested on {stop['spot']!r}")

    def _selects_section(self, rv: RoundView, ev, layout) -> bool:
        """§ 690.1(e): the rest report ``ev`` is the clapper's selection of one particular section (a
        section index of the wheel and that section's symbol), or its rest between two sections
        (``on_peg`` true: § 690.2(d) voids the spin). A finding, and False, when it is neither."""
        stop = ev.payload if isinstance(ev.payload, dict) else {}
        idx, spot, on_peg = stop.get("section_index"), stop.get("spot"), stop.get("on_peg", False)
        n = len(layout) if layout else len(WHEEL_SECTIONS)
        if not isinstance(on_peg, bool):
            self.finding(rv.n, ev, f"§ 690.1(e): the rest report's on_peg is {on_peg!r}, neither resting in a "
                         "section nor between two")
            return False
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < n:
            self.finding(rv.n, ev, f"§ 690.1(e): the clapper selected section {idx!r}: no section of the wheel "
                         f"(sections 0..{n - 1}); the clapper must select a particular section")
            return False
        if spot not in SPOTS:
            self.finding(rv.n, ev, f"§ 690.1(e): the clapper selected section {idx} showing {spot!r}, which is no "
                         f"symbol of the wheel (one of {', '.join(SPOTS)})")
            return False
        return True

    def verdict(self):
        m = [Measurement("spins", self.spins, "spins"), Measurement("rounds_forced_outcome", self.forced, "rounds")]
        if self.failed:
            return "fail", f"{self._findings_total} gap(s) in the result evidence", m
        if not self.spins:
            return "indeterminate", "no spins in the trace", m
        return "pass", "every spin reported start and rest; results match the wheel", m


class BetweenSections(Check):
    """§ 690.2(d): "If the clapper comes to rest between two numbers or symbols upon completion
    of the spin of the wheel, the spin shall be void and the dealer shall respin the wheel." """

    id = "CT-690.2d-between-sections"
    section = "§ 690.2(d)"
    title = "A clapper resting between sections voids the spin; it is respun, never settled"

    def __init__(self, config):
        super().__init__(config)
        self.spins = 0
        self.on_peg = 0
        self.respun = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        for i, a in enumerate(rv.attempts):
            self.spins += 1
            if a.wheel_stop is None or not a.wheel_stop.payload.get("on_peg"):
                continue
            self.on_peg += 1
            if a.valid:
                self.finding(rv.n, a.outcome, f"spin {i + 1} rested between two sections and was settled")
            elif a.outcome is None or a.outcome.kind != "spin_void":
                self.finding(rv.n, a.wheel_stop, f"spin {i + 1} rested between two sections; not declared void")
            elif i + 1 < len(rv.attempts):
                self.respun += 1
            elif not (rv.end and rv.end.payload.get("void")):
                self.finding(rv.n, a.outcome, f"void spin {i + 1} was not respun")

    def verdict(self):
        m = [Measurement("spins", self.spins, "spins"),
             Measurement("between_sections", self.on_peg, "spins"),
             Measurement("between_sections_rate", self.on_peg / self.spins if self.spins else None, "1"),
             Measurement("respun", self.respun, "spins")]
        if self.failed:
            return "fail", f"{self._findings_total} between-sections spin(s) mishandled", m
        if not self.spins:
            return "indeterminate", "no spins in the trace", m
        return "pass", f"{self.on_peg} between-sections spin(s), each void and respun", m


class TopSlotCheck(Check):
    """§ 690.3(b): "The Top Slot multiplier shall consist of the following two reels: (1) The first
    reel shall contain each of the betting options available to players: 1, 2, 5, 10, Coin Flip …,
    Cash Hunt …, Pachinko … and Crazy Time World bonus game. (2) The second reel shall contain
    potential multipliers consisting of 1, 2, 3, 4, 5, 7, 10, 15 and 20." The Top Slot declares its
    two reels (``device_info``): reel 1 each of the eight betting options and nothing else, reel 2
    exactly those nine multipliers; every stop shows a symbol of reel 1 and a multiplier of reel 2.

    § 690.3(c): "The Top Slot multiplier shall be spun during each round of Crazy Time. The Top
    Slot multiplier spin shall commence concurrently with the spinning of the Crazy Time wheel
    … (1) If the first reel (betting option) and second reel (multiplier) align, then the
    multiplier shown shall be applied to the betting option shown. (2) If [they] do not align …
    then no Top Slot multiplier shall be applied." "Concurrently": the Top Slot's start stamp less
    the wheel's within ±``top_slot_start_tolerance_s``, judged with both devices' clock
    uncertainties (docs/wire/clock.md): a spin in between is undecided, never a pass."""

    id = "CT-690.3-top-slot"
    section = "§ 690.3(b), (b)(1)–(2), (c), (c)(1)–(2)"
    title = "Top Slot spun with every spin, concurrently, applied only when aligned"

    def __init__(self, config):
        super().__init__(config)
        self.offsets: list[float] = []
        self.undecided: list[tuple[int, float, float]] = []  # (round, offset, the two clocks' uncertainty)
        self.aligned = 0
        self.settled = 0

    def setup(self, bench: BenchView) -> None:
        super().setup(bench)
        info = bench.info.get("top_slot")
        if info is None or info.get("reels_declared") is False:
            return  # no reels of the device's own (an adapter whose wire has no strips): its stops are judged below
        reels = [k for k in info if re.fullmatch(r"reel\d+", k)]
        if sorted(reels) != ["reel1", "reel2"]:
            self.finding(0, None, f"§ 690.3(b): the Top Slot declares reels {sorted(reels)}; it consists of two "
                         "reels (reel1, reel2)")
        reel1, reel2 = info.get("reel1") or [], info.get("reel2") or []
        want1, want2 = [str(s) for s in TOP_SLOT_REEL1], list(TOP_SLOT_REEL2)
        if missing := [s for s in want1 if s not in reel1]:
            self.finding(0, None, f"§ 690.3(b)(1): the first reel lacks betting option(s) {missing}; it shall contain "
                         f"each of {', '.join(want1)}")
        if extra := [s for s in reel1 if s not in want1]:
            self.finding(0, None, f"§ 690.3(b)(1): the first reel carries {extra}, which are no betting options")
        if missing := [m for m in want2 if m not in reel2]:
            self.finding(0, None, f"§ 690.3(b)(2): the second reel lacks multiplier(s) {missing}")
        if extra := [m for m in reel2 if m not in want2]:
            self.finding(0, None, f"§ 690.3(b)(2): the second reel carries multiplier(s) {extra}; its potential "
                         f"multipliers consist of {', '.join(map(str, want2))}")

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        tol = self.config.top_slot_start_tolerance_s
        for a in rv.attempts:
            if a.top_start is None or a.top_stop is None:
                self.finding(rv.n, a.command, "Top Slot not spun (no start/stop report) with this spin")
                continue
            if a.wheel_start is not None:
                # each start on its device's clock, mapped into the rig's time with an uncertainty
                # (a real device's clock map; 0 in simulation): concurrent only when the offset is
                # within the tolerance by more than the two uncertainties, not concurrent only when it
                # is outside by more than them; in between the spin is undecided, never a pass
                off = _t(a.top_start) - _t(a.wheel_start)
                u = (rv.clock_uncertainty_s.get(a.top_start.device, 0.0)
                     + rv.clock_uncertainty_s.get(a.wheel_start.device, 0.0))
                self.offsets.append(off)
                if abs(off) - u > tol:
                    self.finding(rv.n, a.top_start, f"Top Slot started {off * 1e3:+.1f} ms from the wheel "
                                 f"(tolerance ±{tol * 1e3:.1f} ms" + (f"; the clocks' uncertainty ±{u * 1e3:.1f} ms)"
                                                                      if u else ")"))
                elif abs(off) + u > tol:
                    self.undecided.append((rv.n, off, u))
            stop = a.top_stop.payload
            off1, off2 = stop.get("spot") not in TOP_SLOT_REEL1, stop.get("multiplier") not in TOP_SLOT_REEL2
            if off1 or off2:
                para = "(b)(1)–(2)" if off1 and off2 else "(b)(1)" if off1 else "(b)(2)"
                self.finding(rv.n, a.top_stop, f"Top Slot showed {stop.get('spot')!r} × {stop.get('multiplier')!r}: "
                             f"not on its reels (§ 690.3{para})")
                continue
            stuck = [r for r in (1, 2) if stop.get(f"reel{r}_steps", 0) <= 0]
            if stuck:
                self.finding(rv.n, a.top_stop, f"reel(s) {stuck} did not move during the spin")
        a = rv.valid_attempt
        if not rv.settled or a is None or a.top_stop is None:
            return
        self.settled += 1
        top = a.top_stop.payload
        self.aligned += bool(top["aligned"])
        outcome = TopSlotOutcome(Spot(top["spot"]), int(top["multiplier"]), bool(top["aligned"]))
        for pay in rv.pays:
            spot = Spot(pay.payload["spot"])
            if spot in BONUS_SPOTS:  # § 690.5(e)–690.8(f): applied to the bonus board (the bonus checks)
                continue
            base = BASE_ODDS[spot].ratio
            expected = base * outcome.multiplier_for(spot)
            paid = Fraction(pay.payload["odds_ratio"])
            if paid != expected:
                why = (f"§ 690.3(c)(1): reels aligned on {top['spot']} ×{top['multiplier']}" if top["aligned"]
                       else f"§ 690.3(c)(2): reels not aligned ({top['spot']} ×{top['multiplier']}), so no "
                            "Top Slot multiplier")
                self.finding(rv.n, pay, f"wager {pay.payload['wager_id']} on {spot} paid at {paid} to 1; "
                             f"expected {expected} to 1 ({why})")

    def verdict(self):
        worst = max(self.offsets, key=abs) if self.offsets else None
        m = [Measurement("start_offset_worst", worst, "s",
                         limit=f"|offset| <= {self.config.top_slot_start_tolerance_s} s"),
             Measurement("rounds_settled", self.settled, "rounds"),
             Measurement("aligned_rate", self.aligned / self.settled if self.settled else None, "1"),
             Measurement("start_offsets_undecided", len(self.undecided), "spins",
                         limit="0 (|offset| within the tolerance by more than the clocks' uncertainty)")]
        if self.failed:
            return "fail", f"{self._findings_total} Top Slot deviation(s)", m
        if not self.offsets:
            return "indeterminate", "no Top Slot spins in the trace", m
        if self.undecided:
            n, off, u = max(self.undecided, key=lambda x: abs(x[1]))
            return "indeterminate", (f"{len(self.undecided)} spin(s) whose Top Slot start is within the clocks' "
                                     f"uncertainty of the ±{self.config.top_slot_start_tolerance_s * 1e3:.1f} ms "
                                     f"tolerance (round {n}: {off * 1e3:+.1f} ± {u * 1e3:.1f} ms): not provably "
                                     "concurrent"), m
        return "pass", "Top Slot spun with every push, concurrently, applied only when aligned", m


class SettlementCheck(Check):
    """§ 690.2(e)–(f), § 690.4(a)–(c): "the dealer shall first collect all losing wagers and then pay off
    all winning wagers in accordance with § 690.4 (relating to payout odds)"; for a bonus game
    symbol "the dealer shall first collect all losing wagers. The dealer shall then proceed to play
    the winning bonus game to determine the payout odds and pay off all winning wagers"; § 690.4(a)
    paytable, (b) a bonus game's odds set by playing it (§§ 690.5–690.8), (c) Top Slot multiplier
    applied to the winning odds.

    § 690.1(c): each section displays its base odds "except when … (1) The final payout odds for each
    wager may be increased based upon the results of the Top Slot multiplier as outlined under
    § 690.3 … (2) The final payout odds for any bonus game shall be established during the play of
    the bonus game". The wheel's painted odds are out of scope; its two exceptions are what a winner
    is paid instead, and that is judged here: a number's § 690.4(a) odds raised only by the Top Slot
    of § 690.3 ((c)(1)), a bonus symbol's odds those its game established ((c)(2)).

    § 690.1(d): "The sections containing bonus game symbols trigger a subsequent bonus game." A
    round settled on a bonus game symbol plays that game (``bonus_start`` naming it) before its
    winners are paid; a round settled on 1, 2, 5 or 10 plays none.

    On a bonus game symbol every losing wager is collected before the game starts (``bonus_start``)
    and the winners are paid after it; a bonus game that could not finish (``bonus_void``) voids
    only the wagers on it (refunded) — a losing wager refunded then is a finding.

    The expected settlement is recomputed from the trace alone: the wagers the wagering device
    accepted (less those the croupier refused as outside the table's limits, CT-690.1g4-limits),
    the section the clapper rested in (or the lab's recorded forced outcome), the Top Slot
    shown, the Rules Submission — and, for a bonus result, each seat's final multiplier as the
    bonus-game replay (``hil.checks.bonus.replay_bonus``) derives it, never the croupier's own."""

    id = "CT-690.2e-settlement"
    section = "§ 690.1(c)(1)–(2), (d), § 690.2(e)–(f), § 690.4(a)–(c)"
    title = "Losing wagers collected first, then winners paid the § 690.4 odds"

    def __init__(self, config):
        super().__init__(config)
        self.rules: RulesSubmission | None = None
        self.wagers = self.paid = self.collected = self.settled = self.bonus_rounds = self.bonus_voided = 0

    def setup(self, bench: BenchView) -> None:
        super().setup(bench)
        if bench.rules is not None:
            self.rules = RulesSubmission.model_validate(bench.rules)

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        # the wagers: the players' presses the device accepted before "no more bets" (never a late
        # press inside the lock-out latency, never the rig's probe): RoundView.wager_presses; less the
        # ones the croupier refused as outside the table's limits (CT-690.1g4-limits judges those)
        accepted = {f"{rv.n}-{pid}": p for pid, p in rv.wager_presses().items()}
        for wid in refused_for_limits(rv):
            accepted.pop(wid, None)
        self._not_the_players(rv, accepted)
        settled_ids = [e.payload["wager_id"] for e in rv.collects + rv.pays + rv.refunds]
        for wid in settled_ids:
            if wid not in accepted:
                self.finding(rv.n, None, f"wager {wid} settled but it is no press the wagering device accepted "
                             "from a player before \"no more bets\" (§ 690.2(a))")
        missing = sorted(set(accepted) - set(settled_ids))
        if rv.end is not None and missing:
            self.finding(rv.n, rv.end, f"accepted wager(s) {missing[:5]} never settled")
        if rv.end is not None and rv.end.payload.get("void") and rv.end.payload.get("reason") == "bonus_void":
            self._bonus_void(rv, accepted)
            return
        if rv.end is None or not rv.settled:
            return
        self.settled += 1
        if rv.collects and rv.pays and max(e.seq for e in rv.collects) > min(e.seq for e in rv.pays):
            self.finding(rv.n, rv.pays[0], "a winning wager was paid before all losing wagers were collected")
        a = rv.valid_attempt
        result = result_spot(rv)
        self._bonus_trigger(rv, result)
        self._bonus_order(rv, result)
        if a is None or a.top_stop is None or a.wheel_stop is None or self.rules is None or result is None:
            self.finding(rv.n, rv.end, "settled without a valid spin, Top Slot result or Rules Submission on record")
            return
        top = a.top_stop.payload
        wagers = [Wager(wid, p.payload["seat"], Spot(p.payload["spot"]), p.payload["stake_cents"])
                  for wid, p in accepted.items()]
        bonus_odds = None
        unknown: set[str] = set()  # winning wagers whose bonus odds the trace does not establish
        if result in BONUS_SPOTS:  # § 690.4(b): the odds its bonus game set, per seat
            self.bonus_rounds += 1
            replay = replay_bonus(rv, self.rules)
            bonus_odds = {seat: ToOne(v) for seat, v in replay.final.items()}
            for w in wagers:
                if w.spot == result and w.seat not in replay.final:
                    unknown.add(w.wager_id)
            if unknown:
                self.finding(rv.n, rv.end, f"§ 690.4(b): the {result} bonus game on record does not establish the "
                             f"payout odds of wager(s) {sorted(unknown)[:5]} ({replay.undetermined or 'no result'}); "
                             "they cannot have been paid per §§ 690.5–690.8")
        expected = settle([w for w in wagers if w.wager_id not in unknown], result,
                          TopSlotOutcome(Spot(top["spot"]), int(top["multiplier"]), bool(top["aligned"])),
                          self.rules.limits.max_payout_per_round_cents, bonus_odds=bonus_odds)
        exp_collect = {c.wager_id: c.stake_cents for c in expected.collections}
        got_collect = {e.payload["wager_id"]: e.payload["stake_cents"] for e in rv.collects}
        if exp_collect != got_collect:
            self.finding(rv.n, rv.collects[0] if rv.collects else rv.end,
                         f"collections {sorted(got_collect)} differ from the losing wagers {sorted(exp_collect)}")
        exp_pay = {p.wager_id: p for p in expected.payments}
        for e in rv.pays:
            wid, win = e.payload["wager_id"], e.payload["win_cents"]
            if wid in unknown:
                continue
            want = exp_pay.get(wid)
            if want is None or want.win_cents != win:
                odds = f"{want.odds} gives {want.win_cents} cents" if want else "it is no winning wager"
                if result in BONUS_SPOTS:
                    basis = "§ 690.1(c)(2), § 690.4(b): the odds its bonus game established, the replayed final multiplier"
                elif want is not None and outcome_m(top, result) > 1:
                    basis = (f"§ 690.1(c)(1), § 690.4(c): the § 690.4(a) odds times the Top Slot's "
                             f"×{outcome_m(top, result)} on {result}")
                else:
                    basis = "§ 690.4(a) odds (no Top Slot multiplier on this betting option)"
                self.finding(rv.n, e, f"wager {wid}: paid {win} cents at {e.payload.get('odds')}; {basis} "
                             f"{odds}")
        if set(exp_pay) | unknown != {e.payload["wager_id"] for e in rv.pays} | unknown:
            self.finding(rv.n, rv.end, "the set of paid wagers differs from the winning wagers")
        self.wagers += len(wagers)
        self.collected += sum(exp_collect.values())
        self.paid += sum(e.payload["win_cents"] for e in rv.pays)

    def _bonus_trigger(self, rv: RoundView, result: Spot | None) -> None:
        """§ 690.1(d): a bonus game symbol triggers its bonus game; 1, 2, 5 and 10 trigger none."""
        starts = rv.by_croupier("bonus_start")
        if result is None:
            return
        if result not in BONUS_SPOTS:
            if starts:
                self.finding(rv.n, starts[0], f"§ 690.1(d): a {starts[0].payload.get('game')!r} bonus game was "
                             f"played on a round settled on {result}; only the sections containing bonus game "
                             "symbols trigger a bonus game")
            return
        if not starts:
            self.finding(rv.n, rv.end, f"§ 690.1(d): the round was settled on {result}, a bonus game symbol, but no "
                         "bonus game followed (no bonus_start); the section triggers a subsequent bonus game")
        elif starts[0].payload.get("game") != result:
            self.finding(rv.n, starts[0], f"§ 690.1(d): the round was settled on {result} but the "
                         f"{starts[0].payload.get('game')!r} bonus game was played")
        elif (r := replay_bonus(rv, self.rules)) is not None and r.generated is None and r.void is None:
            self.finding(rv.n, starts[0], f"§ 690.1(d): the round was settled on {result}, a bonus game symbol, but no "
                         "bonus game followed: it was announced (bonus_start) and never played (no board of "
                         "multipliers generated); the section triggers a subsequent bonus game")

    def _bonus_order(self, rv: RoundView, result: Spot | None) -> None:
        """§ 690.2(f): on a bonus game symbol every losing wager is collected before the game starts
        (``bonus_start``), and the winning wagers are paid only after it (their odds are its result)."""
        if result not in BONUS_SPOTS:
            return
        start = next(iter(rv.by_croupier("bonus_start")), None)
        if start is None:
            return  # no game played: the bonus checks' (§ 690.4(b)) to judge
        late = [e for e in rv.collects if e.seq > start.seq]
        if late:
            self.finding(rv.n, late[0], f"§ 690.2(f): {len(late)} losing wager(s) (first {late[0].payload['wager_id']}) "
                         f"collected after the {result} bonus game started (bonus_start, seq {start.seq}); the dealer "
                         "shall first collect all losing wagers, then play the bonus game")
        early = [e for e in rv.pays if e.seq < start.seq]
        if early:
            self.finding(rv.n, early[0], f"§ 690.2(f): wager {early[0].payload['wager_id']} paid before the {result} "
                         "bonus game that determines its payout odds was played")

    def _not_the_players(self, rv: RoundView, accepted: dict) -> None:
        """An accepted press that is no player's wager has a recorded rejection with its reason
        (docs/wire/actuator.md): a press the rig did not make (a real player at the table) refused
        "not made by the rig" where the scenario does not settle them, or a duplicate of an
        actuation. Only these two reasons excuse an on-time accepted press from settlement, and each
        is held to the attribution re-derived from the trace: the rig's own press refused as foreign,
        or a duplicate that no actuation doubles, is a finding (and stays owed); so is a real player's
        press refused where the scenario settles them (``CheckConfig.foreign_presses``)."""
        att = rv.attribution if rv.actuations else None
        for pid, ev in rv.rejected_presses().items():
            wid = f"{rv.n}-{pid}"
            if wid not in accepted:
                continue
            reason = str(ev.payload.get("reason"))
            if reason == "not made by the rig":
                if att is not None and pid in att.matched:
                    self.finding(rv.n, ev, f"press {pid} refused as not made by the rig, but it is the rig's actuation "
                                 f"{att.matched[pid]}")
                    continue
                if self.config.foreign_presses == "settle":  # the scenario settles them: no excuse
                    self.finding(rv.n, ev, f"press {pid} refused as not made by the rig, but the scenario settles "
                                 "real players' presses (players.foreign_presses: settle)")
                    continue
                accepted.pop(wid)
            elif reason.startswith("duplicate of actuation"):
                if att is not None and pid not in att.duplicates:
                    self.finding(rv.n, ev, f"press {pid} refused as a duplicate, but no actuation of the trace doubles it")
                    continue
                accepted.pop(wid)

    def _bonus_void(self, rv: RoundView, accepted: dict) -> None:
        """A bonus game that could not finish (``bonus_void``): its own wagers are void and refunded;
        the losing wagers were to be collected before it (§ 690.2(f)) and stay collected — a refund of
        one gives back a wager the player lost. Nothing is paid."""
        self.bonus_voided += 1
        result = result_spot(rv)
        if result not in BONUS_SPOTS:
            self.finding(rv.n, rv.end, f"a round voided for its bonus game, but it was not settled on a bonus game "
                         f"symbol (result {result!r})")
            return
        self._bonus_order(rv, result)
        for e in rv.pays:
            self.finding(rv.n, e, f"wager {e.payload['wager_id']} paid in a round whose {result} bonus game was void")
        losing = {wid for wid, p in accepted.items() if p.payload["spot"] != result}
        for e in rv.refunds:
            if e.payload["wager_id"] in losing:
                self.finding(rv.n, e, f"§ 690.2(f): losing wager {e.payload['wager_id']} (on "
                             f"{accepted[e.payload['wager_id']].payload['spot']}) refunded when the {result} bonus game "
                             "was void; the dealer collects all losing wagers first, and the bonus game's void "
                             "voids only the wagers on it")
        got = {e.payload["wager_id"] for e in rv.collects}
        if want := sorted(losing - got - {e.payload["wager_id"] for e in rv.refunds}):
            self.finding(rv.n, rv.end, f"§ 690.2(f): losing wager(s) {want[:5]} neither collected nor refunded")
        if wrong := sorted(got - losing):
            self.finding(rv.n, rv.collects[0], f"wager(s) {wrong[:5]} on {result} collected; the void bonus game's "
                         "wagers are refunded")

    def verdict(self):
        m = [Measurement("rounds_settled", self.settled, "rounds"),
             Measurement("bonus_rounds_settled", self.bonus_rounds, "rounds"),
             Measurement("bonus_void_rounds", self.bonus_voided, "rounds"),
             Measurement("wagers_settled", self.wagers, "wagers"),
             Measurement("collected", self.collected, "cents"),
             Measurement("paid", self.paid, "cents")]
        if self.failed:
            return "fail", f"{self._findings_total} settlement deviation(s)", m
        if not self.settled and not self.bonus_voided:
            return "indeterminate", "no settled rounds", m
        return "pass", ("every round collected losers first and paid § 690.4 odds (bonus results: losers collected "
                        f"before the game, the replayed final multipliers paid, {self.bonus_rounds} round(s); "
                        f"{self.bonus_voided} void bonus game(s): only its wagers refunded)"), m


class BettingAreas(Check):
    """§ 690.1(g)(2): the layout shall contain "Specific betting areas for the placement of wagers,
    including spaces for 1, 2, 5, 10, Coin Flip bonus game, Cash Hunt bonus game, Pachinko bonus game
    and Crazy Time World bonus game."

    The printed felt is out of the rig's sight; the wagering device is where a wager is placed in a
    betting area, and its ``press`` reports name the area. Every press it accepted names one of the
    eight betting areas; a press on one of them is refused only for the round's state or the press
    itself (``betting_closed``, ``locked_out``, ``invalid_seat``, ``invalid_stake``) — a refusal for
    any other reason (a simulated device lacking the area says ``no_betting_area``) means the area
    takes no wager. The wagers per area are measured."""

    id = "CT-690.1g2-betting-areas"
    section = "§ 690.1(g)(2)"
    title = "A betting area for each of the eight betting options takes wagers"

    #: refusals that say nothing about the betting area (the round's state, the seat, the stake)
    NOT_THE_AREA = frozenset({"betting_closed", "locked_out", "invalid_seat", "invalid_stake"})

    def __init__(self, config):
        super().__init__(config)
        self.accepted: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()  # area -> presses refused for the area itself

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        for p in rv.presses:
            pl = p.payload if isinstance(p.payload, dict) else {}
            spot = pl.get("spot")
            if pl.get("accepted"):
                if spot not in SPOTS:
                    self.finding(rv.n, p, f"§ 690.1(g)(2): the wagering device accepted press {pl.get('press_id')} "
                                 f"on {spot!r}, which is no betting area of the layout ({', '.join(SPOTS)})")
                else:
                    self.accepted[spot] += 1
            elif spot in SPOTS and pl.get("reason") not in self.NOT_THE_AREA:
                self.refused[spot] += 1
                self.finding(rv.n, p, f"§ 690.1(g)(2): seat {pl.get('seat')}'s press on the {spot} betting area "
                             f"was refused ({pl.get('reason')!r}); the layout has a betting area for each of "
                             f"{', '.join(SPOTS)}")

    def verdict(self):
        m = [Measurement(f"presses_accepted_{s}", self.accepted[s], "presses") for s in SPOTS]
        m += [Measurement("presses_refused_for_the_area", sum(self.refused.values()), "presses", limit="== 0")]
        if self.failed:
            areas = ", ".join(f"{s} ({n})" for s, n in self.refused.items()) or "see the findings"
            return "fail", (f"{self._findings_total} deviation(s) from § 690.1(g)(2); presses refused for the "
                            f"betting area: {areas}"), m
        if not self.accepted:
            return "indeterminate", "no accepted press in the trace", m
        unused = [s for s in SPOTS if not self.accepted[s]]
        return "pass", (f"{sum(self.accepted.values())} presses accepted, every one on a betting area"
                        + (f"; no press on {', '.join(unused)} in this trace" if unused else
                           "; each of the eight areas took wagers")), m


class WagerLimits(Check):
    """§ 690.1(g)(4): the layout shall contain "The minimum or maximum wagers, or both, that may be
    placed and the maximum payout limit per round, if applicable."

    The limits are the Rules Submission's (``limits``). Every wager the croupier settled (collected,
    paid or refunded) has a stake — as the wagering device accepted it — within the minimum and
    maximum wager (``Limits.wager_deviation``); one outside them is refused (``wager_rejected``, kind
    ``limits``) and a wager within them is never refused for the limits. The wins paid to one seat
    in one round never exceed the maximum payout limit per round."""

    id = "CT-690.1g4-limits"
    section = "§ 690.1(g)(4)"
    title = "Wagers within the minimum and maximum wager; wins within the payout limit per round"

    def __init__(self, config):
        super().__init__(config)
        self.rules: RulesSubmission | None = None
        self.checked = self.refused = self.capped = 0
        self.max_seat_win = 0

    def setup(self, bench: BenchView) -> None:
        super().setup(bench)
        if bench.rules is not None:
            self.rules = RulesSubmission.model_validate(bench.rules)

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.rules is None:
            return
        limits = self.rules.limits
        stakes = {f"{rv.n}-{pid}": p.payload["stake_cents"] for pid, p in rv.wager_presses().items()}
        for wid, e in refused_for_limits(rv).items():
            self.refused += 1
            stake = stakes.get(wid, e.payload.get("stake_cents"))
            if limits.wager_deviation(stake) is None:
                self.finding(rv.n, e, f"wager {wid} of {stake} cents refused as outside the limits; the Rules "
                             f"Submission admits {limits.min_wager_cents}–{limits.max_wager_cents} cents")
        seen: set[str] = set()
        for e in rv.collects + rv.pays + rv.refunds:
            wid = e.payload["wager_id"]
            if wid in seen:
                continue
            seen.add(wid)
            self.checked += 1
            stake = stakes.get(wid, e.payload.get("stake_cents"))
            if (why := limits.wager_deviation(stake)) is not None:
                self.finding(rv.n, e, f"wager {wid} ({e.payload.get('spot')}, seat {e.payload.get('seat')}) was "
                             f"settled ({e.kind}): {why}; the croupier must refuse it")
        wins: Counter[int] = Counter()
        for e in rv.pays:
            wins[e.payload["seat"]] += e.payload["win_cents"]
            self.capped += bool(e.payload.get("capped"))
        if wins:
            self.max_seat_win = max(self.max_seat_win, max(wins.values()))
        cap = limits.max_payout_per_round_cents
        for seat, won in sorted(wins.items()):
            if cap is not None and won > cap:
                first = next(e for e in rv.pays if e.payload["seat"] == seat)
                self.finding(rv.n, first, f"seat {seat} was paid {won} cents of wins in this round; the maximum "
                             f"payout limit per round is {cap} cents")

    def verdict(self):
        cap = self.rules.limits.max_payout_per_round_cents if self.rules is not None else None
        lim = f"{self.rules.limits.min_wager_cents}–{self.rules.limits.max_wager_cents} cents" if self.rules else None
        m = [Measurement("wagers_checked", self.checked, "wagers", limit=lim),
             Measurement("wagers_refused_outside_limits", self.refused, "wagers"),
             Measurement("payments_capped", self.capped, "payments"),
             Measurement("max_seat_win_per_round", self.max_seat_win, "cents",
                         limit=f"<= {cap} cents" if cap is not None else None)]
        if self.rules is None:
            return "indeterminate", "no Rules Submission on record: no limits to judge by", m
        if self.failed:
            return "fail", f"{self._findings_total} deviation(s) from the table's limits", m
        if not self.checked and not self.refused:
            return "indeterminate", "no settled wagers", m
        return "pass", (f"{self.checked} wagers within {lim}, {self.refused} outside them refused; no seat paid past "
                        f"the payout limit ({self.capped} payment(s) capped)"), m


class Lockout(Check):
    """§ 690.2(a) with the wagering device's lock-out: after the dealer announces "no more bets"
    and presses lock-out, no wager may be recognised once the lock-out took effect, and the
    device must take effect within the scenario's latency budget.

    The latency of each round is bracketed by the rig's probe presses: the last accepted and
    the first rejected press after the command. Each press's offset after the command is the
    device's own (its press stamp less its lock-out command stamp, both on its clock: immune to
    the relay and the link), cross-checked against the rig's independent bracket of the press (its
    actuator's closing) and of the command (the write's round trip) and intersected with it. A
    device stamp outside the rig's bracket by more than the clock map's uncertainty means the
    bench's declared contact delay (or the device's clock) is wrong: the round is judged on the
    device's stamps alone, the delay measured is reported, and the check is then never a pass
    (docs/wire/actuator.md, "Timing and its uncertainty"). A lock-out counter's reading (an
    independent edge-to-edge figure) is judged with its own uncertainty: over the budget by more
    than it is a violation, straddling the budget at best indeterminate, never a pass.

    At the budget itself (the croupier's sentinel press): "within the budget" is a latency <= the
    budget, so a press accepted at the budget (its offset within ``BUDGET_TOLERANCE_S``, the
    trace's resolution plus the float rounding of two clock readings, of the budget or later) is a
    violation and a press locked out at the budget proves the round within it. A round is
    undecided (straddles) only when its bracket's lower end is below the budget and its upper end
    above it by more than that tolerance — with the device's own stamps and the sentinel, never;
    with an actuator, only a latency within the closing's spread of the budget."""

    id = "CT-lockout"
    section = "§ 690.2(a)"
    title = "No wager recognised after the lock-out; latency within budget"

    def __init__(self, config):
        super().__init__(config)
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.brackets: dict[int, tuple[float, float]] = {}  # round -> (lower, upper) latency, s
        self.straddle = 0
        self.rejected_late = 0
        self.counter: list[float] = []  # the lock-out counter's independent intervals
        self.counter_u: list[float] = []  # each reading's uncertainty (its half-width, s)
        self.counter_straddle = 0  # readings whose bracket straddles the budget
        self.actuation_u = 0.0  # the largest half-width of an actuator press's closing bracket (s)
        #: the device's press stamps outside the rig's brackets of their actuations: (round, press id,
        #: how far past the bracket, s: > 0 late — an undeclared contact delay — < 0 early)
        self.stamp_excess: list[tuple[int, int, float]] = []
        #: rounds whose lock-out command stamp lies outside the command write's round trip: (round, s)
        self.command_excess: list[tuple[int, float]] = []
        self.unverified: set[int] = set()  # rounds judged on the device's stamps alone
        self.verified_presses = 0  # probe presses whose device stamp agrees with the rig's bracket

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        budget = self.config.lockout_budget_s
        for ev in rv.lockout_intervals:
            interval = float(ev.payload["interval_s"])
            u = float(ev.payload.get("uncertainty_s", 0.0))  # the instrument's, as the bench configured it
            self.counter.append(interval)
            self.counter_u.append(u)
            if interval - u > budget + BUDGET_TOLERANCE_S:
                self.finding(rv.n, ev, f"the lock-out counter timed {interval * 1e3:.6f} ± {u * 1e3:.6f} ms from the "
                             f"button to the lock-out indicator (budget {budget * 1e3:.3f} ms)")
            elif interval + u > budget + BUDGET_TOLERANCE_S:
                self.counter_straddle += 1  # possibly over the budget: not a pass
        cmd = rv.lockout_command
        if cmd is None:
            return
        after = self._offsets(rv, cmd)
        if not after:
            return
        accepted = [(o_lo, o_hi, p) for o_lo, o_hi, p in after if p.payload["accepted"]]
        rejected = [(o_lo, o_hi, p) for o_lo, o_hi, p in after
                    if not p.payload["accepted"] and p.payload.get("reason") == "locked_out"]
        self.rejected_late += len(rejected)
        # accepted at an offset in [o_lo, o_hi] => latency > o_lo; locked out => latency <= o_hi
        lo = max((o_lo for o_lo, _, _ in accepted), default=0.0)
        hi = min((o_hi for _, o_hi, _ in rejected if o_hi > lo), default=math.inf)
        for o_lo, o_hi, p in accepted:
            # accepted at an offset at or past the budget: the lock-out had not taken effect within it
            if o_lo >= budget - BUDGET_TOLERANCE_S:
                within = f" (its closing bracketed to ±{(o_hi - o_lo) * 5e2:.3f} ms)" if o_hi - o_lo > 4 * TIME_RESOLUTION_S else ""
                self.finding(rv.n, p, f"wager recognised {o_lo * 1e3:.6f} ms after the lock-out command{within}: "
                             f"at or past the budget ({budget * 1e3:.3f} ms)")
        if rejected and accepted and max(o_lo for o_lo, _, _ in accepted) > min(o_hi for _, o_hi, _ in rejected):
            self.finding(rv.n, accepted[-1][2], "a press was accepted after an earlier press had been locked out")
        if math.isinf(hi):
            return  # no press rejected after the last accepted one: this round is not bracketed
        self.lower.append(lo)
        self.upper.append(hi)
        self.brackets[rv.n] = (lo, hi)
        if self.bracket_state(lo, hi) == "straddle":
            self.straddle += 1  # possibly over the budget, possibly within it: this round decides nothing

    def bracket_state(self, lo_s: float, hi_s: float) -> str:
        """A round's latency bracket (lo, hi] against the budget: "over" (the lock-out had not taken
        effect at the budget: a press accepted there or later), "within" (locked out at or before it)
        or "straddle" (either; the round decides nothing) — at the budget within BUDGET_TOLERANCE_S."""
        budget = self.config.lockout_budget_s
        if lo_s >= budget - BUDGET_TOLERANCE_S:
            return "over"
        return "within" if hi_s <= budget + BUDGET_TOLERANCE_S else "straddle"

    def _offsets(self, rv: RoundView, cmd) -> list[tuple[float, float, object]]:
        """Each press at or after the lock-out command, with its offset after the command as a
        bracket (s). The device's offset is its press stamp less its command stamp (one clock when
        the command is the device's own ``lockout_command``: a point; else the
        two clock maps' uncertainties). A press the rig's actuator made also has the rig's bracket,
        from its closing bracket and the command's (``command_lo_s`` / ``command_hi_s``, the
        command write's round trip; else the device's time ± its clock uncertainty) —
        docs/wire/actuator.md, "Timing and its uncertainty": where the device's stamps lie inside
        the rig's brackets (± the clock map's uncertainty) the offset is the intersection of the
        two; where one does not, the excess is recorded (``stamp_excess`` / ``command_excess``), the
        round is judged on the device's offset alone and marked ``unverified``. Any other press:
        the device's offset. Sorted by the lower end."""
        t_cmd = _t(cmd)
        u = rv.clock_uncertainty_s.get(cmd.device, 0.0)
        c_lo = float(cmd.payload.get("command_lo_s", t_cmd - u))
        c_hi = float(cmd.payload.get("command_hi_s", t_cmd + u))
        cmd_ok = True
        if "command_lo_s" in cmd.payload:
            past = t_cmd - (c_hi + u) if t_cmd > c_hi + u else (t_cmd - (c_lo - u) if t_cmd < c_lo - u else 0.0)
            if abs(past) > TIME_RESOLUTION_S:
                cmd_ok = False
                self.command_excess.append((rv.n, past))
        by_act = {e.payload["actuation_id"]: e for e in rv.actuations}
        matched = rv.attribution.matched if rv.actuations else {}
        out = []
        for p in rv.presses:
            aid = matched.get(p.payload.get("press_id"))
            d = _t(p) - t_cmd
            e = TIME_RESOLUTION_S  # one clock: the map's offset cancels (its rate error over ms is ns)
            if p.device != cmd.device:  # two clocks: each map's uncertainty
                e += rv.clock_uncertainty_s.get(p.device, 0.0) + u
            dev = (d - e, d + e)
            if aid is not None:
                a = by_act[aid].payload
                self.actuation_u = max(self.actuation_u, float(a.get("uncertainty_s", 0.0)))
                if d + e < 0 and float(a["closed_hi_s"]) - c_lo < 0:
                    continue  # before the command by both accounts
                up = rv.clock_uncertainty_s.get(p.device, 0.0) + TIME_RESOLUTION_S
                lo_b, hi_b = float(a["closed_lo_s"]) - up, float(a["closed_hi_s"]) + up
                past = _t(p) - hi_b if _t(p) > hi_b else (_t(p) - lo_b if _t(p) < lo_b else 0.0)
                rig = (float(a["closed_lo_s"]) - c_hi, float(a["closed_hi_s"]) - c_lo)
                lo, hi = max(rig[0], dev[0]), min(rig[1], dev[1])
                if not past and cmd_ok and lo > hi:  # each stamp near its bracket, their difference outside the rig's
                    past = d - rig[1] if d > rig[1] else d - rig[0]
                if past or not cmd_ok:
                    if past:  # how late (early) the contact closed against the rig's estimate: from its middle
                        mid = (float(a["closed_lo_s"]) + float(a["closed_hi_s"])) / 2
                        self.stamp_excess.append((rv.n, int(p.payload.get("press_id", -1)), _t(p) - mid))
                    self.unverified.add(rv.n)
                    lo, hi = dev
                else:
                    self.verified_presses += 1
            elif d + e >= 0:
                lo, hi = dev
            else:
                continue
            out.append((max(lo, 0.0), max(hi, 0.0), p))
        if not cmd_ok and out:
            self.unverified.add(rv.n)
        return sorted(out, key=lambda x: (x[0], x[1]))

    def verdict(self):
        budget = self.config.lockout_budget_s
        m = [Measurement("rounds_bracketed", len(self.upper), "rounds"),
             Measurement("presses_locked_out", self.rejected_late, "presses")]
        if self.actuation_u:
            m.append(Measurement("actuation_uncertainty_max", self.actuation_u, "s"))
        if self.upper:
            mids = [(a + b) / 2 for a, b in zip(self.lower, self.upper)]
            m += [Measurement("lockout_latency_max", (max(self.lower) + max(self.upper)) / 2, "s",
                              (max(self.lower), max(self.upper)), limit=f"<= {budget} s"),
                  Measurement("lockout_latency_median", statistics.median(mids), "s",
                              (statistics.median(self.lower), statistics.median(self.upper))),
                  Measurement("bracket_width_max", max(b - a for a, b in zip(self.lower, self.upper)), "s")]
        if self.counter:
            i = max(range(len(self.counter)), key=lambda k: self.counter[k] + self.counter_u[k])
            worst, u = self.counter[i], self.counter_u[i]
            m += [Measurement("lockout_latency_counter_max", worst, "s", (worst - u, worst + u), limit=f"<= {budget} s"),
                  Measurement("lockout_latency_counter_median", statistics.median(self.counter), "s"),
                  Measurement("counter_uncertainty_max", max(self.counter_u), "s")]
        if self.verified_presses:
            m.append(Measurement("presses_verified", self.verified_presses, "presses"))
        if self.stamp_excess:
            late = sorted(x for _, _, x in self.stamp_excess)
            med = statistics.median(late)
            m += [Measurement("contact_late_median", med, "s", (late[0], late[-1])),
                  Measurement("presses_outside_bracket", len(late), "presses")]
        if self.command_excess:
            m.append(Measurement("command_stamp_past_bracket_max", max((x for _, x in self.command_excess), key=abs),
                                 "s"))
        if self.unverified:
            m.append(Measurement("rounds_unverified", len(self.unverified), "rounds"))
        if self.failed:
            return "fail", f"{self._findings_total} lock-out violation(s)", m
        if self.unverified:
            return "indeterminate", self._unverified_summary(), m
        if self.counter_straddle:
            return ("indeterminate", f"{self.counter_straddle} lock-out counter reading(s) within their uncertainty "
                    f"of the {budget * 1e3:.3f} ms budget (the bracket straddles it): not provably within it", m)
        if not self.upper:
            return "indeterminate", "no presses after a lock-out command: latency not measured", m
        if not self.straddle and max(self.upper) > budget + BUDGET_TOLERANCE_S:  # every bracket must end within it
            return "indeterminate", (f"a latency bracket ends at {max(self.upper) * 1e3:.6f} ms, past the "
                                     f"{budget * 1e3:.3f} ms budget, without a violation found: not a pass"), m
        if self.straddle:
            return ("indeterminate", f"{self.straddle} round(s) whose latency bracket straddles the "
                    f"{budget * 1e3:.3f} ms budget: no presses close to it (enable lockout.probe, or "
                    "refine its step)", m)
        return "pass", (f"lock-out took effect within the {budget * 1e3:.3f} ms budget in all {len(self.upper)} "
                        f"rounds; worst latency in [{max(self.lower) * 1e3:.3f}, {max(self.upper) * 1e3:.3f}] ms"), m

    def _unverified_summary(self) -> str:
        """Why the rounds judged on the device's stamps alone cannot pass: the delay measured."""
        parts = []
        if self.stamp_excess:
            late = sorted(x for _, _, x in self.stamp_excess)
            med = statistics.median(late)
            delay = float((self.bench.info.get("actuator") or {}).get("contact_delay_s", 0.0))
            way = "after" if med > 0 else "before"
            parts.append(f"{len(late)} press stamp(s) of the device lie {way} the rig's bracket of their actuation "
                         f"(median {abs(med) * 1e3:.3f} ms from its middle, {late[0] * 1e3:.3f} to "
                         f"{late[-1] * 1e3:.3f} ms): the "
                         f"bench's contact_delay_s ({delay * 1e3:.3f} ms) is wrong — the contacts close about "
                         f"{(delay + med) * 1e3:.3f} ms after the output is set (declare it, or the device's clock "
                         "is not the one it stamps its presses with)")
        if self.command_excess:
            worst = max((x for _, x in self.command_excess), key=abs)
            parts.append(f"the device's lock-out command stamp lies {worst * 1e3:+.3f} ms outside the command "
                         f"write's round trip in {len(self.command_excess)} round(s)")
        hi = f"; by the device's own stamps the worst latency is in [{max(self.lower) * 1e3:.3f}, " \
             f"{max(self.upper) * 1e3:.3f}] ms" if self.upper else ""
        return (f"{len(self.unverified)} round(s) not verified by the rig: " + "; ".join(parts) + hi +
                " — not a pass on the device's word alone")


class SectionUniformity(Check):
    """§ 690.1(a): "The rim of the wheel must be divided into 54 equally spaced sections" — a
    fair wheel selects each section with probability 1/54. Pearson's χ² test of the settled
    sections against the uniform distribution: over all spins, and per spin direction (an
    off-centre mass biases the two directions differently, and alternating directions can hide
    it in the pooled counts), with a Bonferroni correction over the tests made."""

    id = "CT-690.1a-section-chi2"
    section = "§ 690.1(a)"
    title = "Sections selected uniformly (χ² test, pooled and per direction)"

    def __init__(self, config):
        super().__init__(config)
        self.counts: dict[str, Counter[int]] = {"cw": Counter(), "ccw": Counter()}

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        a = rv.valid_attempt
        if a is not None and a.wheel_stop is not None:
            stop = a.wheel_stop.payload
            self.counts.setdefault(stop.get("direction", "?"), Counter())[int(stop["section_index"])] += 1

    def verdict(self):
        k = len((self.bench.info.get("wheel") or {}).get("sections", ())) or 54
        pooled = sum(self.counts.values(), Counter())
        n = sum(pooled.values())
        alpha = self.config.chi2_alpha
        m = [Measurement("spins", n, "spins", limit=f">= {self.config.chi2_min_spins} spins")]
        if n < self.config.chi2_min_spins:
            return "indeterminate", f"{n} spins: too few for the χ² test", m
        samples = {"pooled": pooled}
        samples.update({d: c for d, c in self.counts.items() if sum(c.values()) >= 5 * k})
        level = alpha / len(samples)  # Bonferroni
        worst = None
        for name, counts in samples.items():
            observed = [counts.get(i, 0) for i in range(k)]
            chi2, p = stats.chisquare(observed)
            m += [Measurement(f"chi2_{name}", float(chi2), "1"),
                  Measurement(f"p_value_{name}", float(p), "1", limit=f">= {level:.4g} (α = {alpha} / {len(samples)})")]
            if p < level:
                top = max(range(k), key=lambda i: observed[i])
                total = sum(observed)
                self.finding(0, None, f"{name}: χ² = {chi2:.1f} on {k - 1} dof, p = {p:.3g} < {level:.4g}; "
                             f"most frequent section {top} ({observed[top]} of {total}, expected {total / k:.1f})")
            worst = p if worst is None else min(worst, p)
        m.append(Measurement("dof", k - 1, "1"))
        if self.failed:
            return "fail", f"sections not uniform: smallest p = {worst:.3g} < {level:.4g}", m
        return "pass", f"uniform at α = {alpha} ({len(samples)} tests): smallest p = {worst:.3g}", m


ALL_CHECKS: tuple[type[Check], ...] = (
    Layout, NoMoreBets, ThreeRevolutions, ResultEvidence, BetweenSections, TopSlotCheck,
    SettlementCheck, BettingAreas, WagerLimits, Lockout, SectionUniformity,
)
