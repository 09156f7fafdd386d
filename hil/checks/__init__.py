"""Regulation checks: the oracle. Each check cites its section and reads only the trace."""

from __future__ import annotations

from pathlib import Path

from hil.checks.base import BenchView, Check, CheckConfig, CheckResult, RoundView
from hil.checks.crazy_time import ALL_CHECKS
from hil.trace import TraceReader

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
                except (KeyError, TypeError, ValueError) as exc:  # malformed evidence is a finding
                    c.finding(n, None, f"malformed evidence in this round: {type(exc).__name__}: {exc}")
    return [c.result() for c in checks]


__all__ = ["CHECK_IDS", "CheckConfig", "CheckResult", "run_checks"]
