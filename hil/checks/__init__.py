"""Regulation checks: the oracle. Each check cites its section and reads only the trace."""

from __future__ import annotations

from pathlib import Path

from hil.checks import crazy_time
from hil.checks.base import BenchView, Check, CheckConfig, CheckResult, RoundView
from hil.checks.bonus import BONUS_CHECKS
from hil.trace import TraceReader

#: Every check, in report order: the base game's (§§ 690.1–690.4), then the bonus games' (§§ 690.5–690.8).
ALL_CHECKS: tuple[type[Check], ...] = crazy_time.ALL_CHECKS + BONUS_CHECKS
CHECK_IDS: frozenset[str] = frozenset(c.id for c in ALL_CHECKS)


def run_checks(trace_path: Path, config: CheckConfig) -> list[CheckResult]:
    """Run every check over the trace at ``trace_path``, streaming it round by round."""
    checks: list[Check] = [cls(config) for cls in ALL_CHECKS]
    with TraceReader(trace_path) as reader:
        for n, events in reader.rounds():
            if n == 0:
                bench = BenchView.of(events)
                for c in checks:
                    c.setup(bench)
                continue
            rv = RoundView.of(n, events)
            for c in checks:
                try:
                    c.observe(rv)
                except (KeyError, TypeError, ValueError, IndexError) as exc:  # malformed evidence is a finding
                    c.finding(n, None, f"malformed evidence in this round: {type(exc).__name__}: {exc}")
    return [c.result() for c in checks]


__all__ = ["ALL_CHECKS", "CHECK_IDS", "CheckConfig", "CheckResult", "run_checks"]
