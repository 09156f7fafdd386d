"""Regulation checks: the oracle. Each check cites its section and reads only the trace."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from hil.checks import crazy_time
from hil.checks.adversary import ADVERSARY_CHECKS
from hil.checks.base import BenchView, Check, CheckConfig, CheckResult, Finding, RoundView
from hil.checks.bonus import BONUS_CHECKS
from hil.checks.cards import BLACKJACK_CHECKS
from hil.checks.evidence import EVIDENCE_CHECKS
from hil.checks.poker import CRAZY4_CHECKS, CRISS_CROSS_CHECKS, UTH_CHECKS
from hil.checks.roulette import ROULETTE_CHECKS
from hil.checks.sequential import SEQUENTIAL_CHECKS
from hil.trace import ClockDeclarations, TraceReader

#: Each game's checks, in report order. Crazy Time: the base game's (§§ 690.1–690.4), then the
#: bonus games' (§§ 690.5–690.8); Roulette: Roulette X (§ 617b.5), Roulette Up (§ 617b.4), the wheel.
GAME_CHECKS: dict[str, tuple[type[Check], ...]] = {
    "crazy-time": crazy_time.ALL_CHECKS + BONUS_CHECKS,
    "roulette": ROULETTE_CHECKS + SEQUENTIAL_CHECKS,
    "blackjack": BLACKJACK_CHECKS,
    # the poker tables: UTH side wagers (§§ 653b.2–653b.5), Criss-Cross Ultimate Pairs (§ 674b.1),
    # Crazy 4 Poker wager placement (§ 657a.7)
    "uth": UTH_CHECKS,
    "criss-cross": CRISS_CROSS_CHECKS,
    "crazy-4": CRAZY4_CHECKS,
}
# every table's late-bet adversary (hil.adversary: indeterminate where a scenario has none), and the
# run judged on its own evidence (wire faults, void spins and rounds)
GAME_CHECKS = {game: checks + ADVERSARY_CHECKS[game] + EVIDENCE_CHECKS for game, checks in GAME_CHECKS.items()}
ALL_CHECKS: tuple[type[Check], ...] = tuple(dict.fromkeys(c for checks in GAME_CHECKS.values() for c in checks))
CHECK_IDS: frozenset[str] = frozenset(c.id for c in ALL_CHECKS)


def checks_for(game: str) -> tuple[type[Check], ...]:
    return GAME_CHECKS[game]


#: how a finding on evidence a check cannot read begins (``_result`` fails such a check)
MALFORMED = "malformed evidence"


def run_checks(trace_path: Path, config: CheckConfig | None = None) -> list[CheckResult]:
    """Run the checks of the trace's game over the trace at ``trace_path``, streaming it round
    by round, with ``config`` — by default the limits the trace recorded (``check_config``)."""
    return [_result(c) for c in observe_checks(trace_path, config)]


def observe_checks(trace_path: Path, config: CheckConfig | None = None,
                   make: Callable[[str, CheckConfig], list[Check]] | None = None) -> list[Check]:
    """Feed the trace at ``trace_path`` to checks, round by round, exactly as ``run_checks`` judges
    it, and return the checks (their verdicts not yet taken). ``make(game, config)`` builds them (by
    default the game's checks): the HTML report's plots (``hil.plots``) read what a check accumulated,
    so a plot never disagrees with its verdict."""
    with TraceReader(trace_path) as reader:
        if config is None:
            config = CheckConfig.from_json(reader.meta().get("check_config"))
        game = reader.meta().get("game", "crazy-time")
        checks: list[Check] = make(game, config) if make else [cls(config) for cls in checks_for(game)]
        uncertainty: dict[str, float] = {}  # device -> its clock map's uncertainty (real devices)
        declared = ClockDeclarations()  # the same declarations, up to the croupier's decision of the wagers
        set_up = False
        for n, events in reader.rounds():
            if n != 0 and not set_up:  # no round 0: the trace lacks its set-up (judged on nothing declared)
                _setup(checks, BenchView())
                set_up = True
            if malformed := [e for e in events if not isinstance(e.payload, dict)]:
                # an event whose payload is no JSON object is no evidence a check can read: every check
                # fails on this round, naming the events, and judges the others
                for c in checks:
                    c.finding(n, None, f"{MALFORMED} in this round: " + ", ".join(
                        f"event {e.seq} ({e.device}/{e.kind}) has a payload that is no JSON object" for e in malformed[:5])
                        + (f" and {len(malformed) - 5} more" if len(malformed) > 5 else ""))
                events = [e for e in events if isinstance(e.payload, dict)]
            declared.new_round()
            for e in events:
                declared.observe(e.device, e.kind, e.payload)
            if n == 0:
                set_up = True
                bench = BenchView.of(events)
                uncertainty = {d: float(i["clock_uncertainty_s"]) for d, i in bench.info.items()
                               if isinstance(i, dict) and isinstance(i.get("clock_uncertainty_s"), (int, float))}
                _setup(checks, bench)  # a declaration missing a field is malformed evidence, never a crash
                continue
            rv = RoundView.of(n, events)
            # A device time in this round was mapped with the estimate in force at the round's start
            # or with one recorded during it (``clock_estimate``, docs/wire/clock.md): the round is
            # judged with the largest of their uncertainties; the last one carries on. A reconnected
            # link measured its clock afresh: from the next round on.
            round_u = dict(uncertainty)
            for e in events:
                u = e.payload.get("clock_uncertainty_s")
                if not isinstance(u, (int, float)) or isinstance(u, bool):
                    continue
                if e.kind == "clock_estimate":
                    round_u[e.device] = max(round_u.get(e.device, 0.0), float(u))
                    uncertainty[e.device] = float(u)
                elif e.kind == "wire_reconnected":
                    uncertainty[e.device] = float(u)
            rv.clock_uncertainty_s = round_u
            # Which presses are wagers is judged with what the croupier decided them with: the largest
            # uncertainty in force from the round's start up to the wagering device's "decision" estimate
            # (docs/wire/clock.md, "The uncertainty a wager is decided with"); a round without one (a
            # simulated device, a trace recorded before it) with the round's largest, as above.
            rv.wager_clock_uncertainty_s = {**round_u, **declared.decided}
            for c in checks:
                try:
                    c.observe(rv)
                except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:  # malformed evidence: a finding
                    c.finding(n, None, f"{MALFORMED} in this round: {type(exc).__name__}: {exc}")
        if not set_up:  # an empty trace (a run killed before it recorded anything)
            _setup(checks, BenchView())
    return checks


def _setup(checks: list[Check], bench: BenchView) -> None:
    for c in checks:
        try:
            c.setup(bench)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            c.finding(0, None, f"{MALFORMED} in the set-up: {type(exc).__name__}: {exc}")


def _result(c: Check) -> CheckResult:
    """A check's verdict; a check that cannot reach one on this evidence fails, saying why — and so
    does one that read malformed evidence (its findings say where), whatever it made of the rest:
    a damaged trace is never a pass, nor merely too short to judge."""
    try:
        res = c.result()
        if res.verdict != "fail" and any(f.message.startswith(MALFORMED) for f in res.findings):
            res = dataclasses.replace(res, verdict="fail", summary=f"malformed evidence; {res.summary}")
        return res
    except Exception as exc:  # noqa: BLE001 — a verdict on evidence the check cannot read is a failure
        regulation = " ".join((c.__doc__ or "").split())
        return CheckResult(c.id, c.section, c.title, regulation, "fail",
                           f"no verdict on this evidence: {type(exc).__name__}: {exc}", (),
                           (Finding(0, None, f"the check could not judge this trace: {type(exc).__name__}: {exc}"),),
                           1, c.rounds)


__all__ = ["ALL_CHECKS", "CHECK_IDS", "GAME_CHECKS", "CheckConfig", "CheckResult", "checks_for", "observe_checks",
           "run_checks"]
