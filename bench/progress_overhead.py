"""What run_suite's progress hooks cost, side by side in one run (this machine is shared and noisy:
read the ratios).

1. Per trace event: ``TraceWriter.record`` through the ``hil.progress.TraceObserver`` that wraps it,
   against the same call unwrapped (a writer that only counts, so the wrapper's share is visible).
2. Per run: the bundled Crazy Time normal play for ROUNDS rounds in-process (``run_suite`` jobs 1,
   traces and checks included) with the hooks and a live ``SuiteProgress``, against the same run
   with ``TraceObserver`` replaced by a no-op (no hooks at all); REPS of each, alternated, the
   fastest of each compared.

The last line is JSON.

    .venv/bin/python bench/progress_overhead.py [ROUNDS] [REPS]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hil.runner as runner  # noqa: E402
from hil.cli import load_run_inputs  # noqa: E402
from hil.progress import SuiteProgress, TraceObserver  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "crazy_time" / "normal_play.yaml"


class _NoHooks:
    """TraceObserver's interface, doing nothing: the run as it was before progress."""

    def __init__(self, *args, **kw) -> None:
        pass

    def start(self, *args) -> None:
        pass

    def flush(self) -> None:
        pass


class _CountingWriter:
    def __init__(self) -> None:
        self.before_commit: list = []
        self.n = 0

    def record(self, device, kind, payload=None) -> int:
        self.n += 1
        return self.n


def per_event_ns() -> tuple[float, float]:
    plain, observed = _CountingWriter(), _CountingWriter()
    TraceObserver(observed, "bench", None)
    payload = {"x": 1}
    out = []
    for w in (plain, observed):
        out.append(min(timeit.repeat(lambda: w.record("wheel", "telemetry", payload), number=100_000, repeat=5))
                   / 100_000 * 1e9)
    return out[0], out[1]


def per_run_s(rounds: int, reps: int) -> tuple[list[float], list[float], float]:
    scenarios, bench, rules, rx = load_run_inputs([SCENARIO], None, None, None, rounds)
    times: dict[str, list[float]] = {"hooks": [], "none": []}
    events_per_round = 0.0
    for _ in range(reps):
        for mode in ("hooks", "none"):
            runner.TraceObserver = TraceObserver if mode == "hooks" else _NoHooks
            progress = SuiteProgress.for_suite([(s.scenario.name, s.scenario.rounds) for s in scenarios])
            with tempfile.TemporaryDirectory() as d:
                t = time.perf_counter()
                runner.run_suite(scenarios, bench, rules, Path(d), jobs=1, roulette_x=rx, progress=progress)
                times[mode].append(time.perf_counter() - t)
                if not events_per_round:
                    from hil.trace import TraceReader

                    with TraceReader(next(Path(d).glob("traces/*.sqlite"))) as r:
                        events_per_round = r.count() / rounds
    runner.TraceObserver = TraceObserver
    return times["hooks"], times["none"], events_per_round


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    plain_ns, observed_ns = per_event_ns()
    hooks, none, epr = per_run_s(rounds, reps)
    per_round_us = (observed_ns - plain_ns) * epr / 1000
    round_ms = min(none) / rounds * 1000
    print(f"record(): {plain_ns:.0f} ns unwrapped, {observed_ns:.0f} ns through TraceObserver "
          f"(+{observed_ns - plain_ns:.0f} ns a call)")
    print(f"{epr:.1f} events a round -> +{per_round_us:.1f} us a round against {round_ms:.2f} ms a round "
          f"({per_round_us / 1000 / round_ms:.2%})")
    print(f"run of {rounds} rounds x{reps}: hooks {' '.join(f'{t:.2f}' for t in hooks)} s; "
          f"no hooks {' '.join(f'{t:.2f}' for t in none)} s; fastest hooks/no hooks {min(hooks) / min(none):.3f}")
    print(json.dumps({"record_ns": plain_ns, "record_observed_ns": observed_ns, "events_per_round": epr,
                      "hook_us_per_round": per_round_us, "round_ms": round_ms,
                      "run_ratio_fastest": min(hooks) / min(none)}))


if __name__ == "__main__":
    main()
