"""``make test``: the suite's two tiers side by side, so neither decides the other's verdicts.

* **The real-time tier** (marker ``quiet_machine``, set by ``tests/conftest.py`` on tests/e2e,
  tests/conformance, tests/stubs and the few other files with stubs, Dask workers or a wall clock:
  stubs and wheels in their own processes over ptys and loopback, time-compressed up to 40×, judged
  on wall-clock timing or real timeouts) runs **one test at a time**, at normal priority. At 20×
  a 5 ms stall of the rig is 100 ms of simulated time: six fresh-clone runs that shared the CPUs
  with it (two workers, or the CPU-bound tests beside it) each lost one to three of its verdicts
  to a neighbour (a Top Slot start 101.9 ms from the wheel against ±100 ms, a press stamped past
  "no more bets", a clock-rate clause undecided); alone, none. (A stub test left in the idle tier
  once lost a reply to the starvation: it is in this tier now.)
* **The CPU-bound tier** (everything else: rules, checks, simulated suites, Monte Carlo, statistics)
  runs at the same time over ``WORKERS`` xdist workers with scheduling policy ``SCHED_IDLE``
  (``nice 19`` where that is refused): it takes only the CPU the real-time tier leaves, and the
  kernel preempts it at once when a real-time test's process wakes. Its output is held and printed
  after the real-time tier's, so the two never interleave.

The exit status is the worse of the two (pytest's codes; "no tests collected" in one tier, as when
``PYTEST_ARGS`` names only the other's files, is not a failure while the other ran tests).

    python tests/run_phases.py [pytest args...]        # WORKERS=2 by default
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

#: pytest's "no tests were collected"
NO_TESTS = 5


def combine(cpu_rc: int, real_time_rc: int) -> int:
    """The suite's exit status from its two tiers'."""
    codes = [rc for rc in (cpu_rc, real_time_rc) if rc != NO_TESTS]
    if not codes:
        return NO_TESTS
    return next((rc for rc in codes if rc != 0), 0)


def _lowest_priority() -> None:  # in the child, before exec: xdist's workers inherit it
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


def commands(args: list[str], workers: str, python: str = sys.executable) -> tuple[list[str], list[str]]:
    """(the CPU-bound tier's pytest command, the real-time tier's)."""
    cpu = [python, "-m", "pytest", "-n", workers, "--maxschedchunk", "1", "-m", "not quiet_machine", *args]
    real_time = [python, "-m", "pytest", "-n", "0", "-m", "quiet_machine", *args]
    return cpu, real_time


def main(argv: list[str]) -> int:
    cpu, real_time = commands(argv, os.environ.get("WORKERS", "2"))
    with tempfile.TemporaryFile("w+b") as log:
        tier = subprocess.Popen(cpu, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_lowest_priority)
        try:
            print("== the real-time tier (tests/e2e, tests/conformance, tests/stubs, ...), one test at a time; the CPU-bound "
                  "tier runs beside it at idle priority, its output below", flush=True)
            rt_rc = subprocess.call(real_time)
            cpu_rc = tier.wait()
        finally:
            if tier.poll() is None:  # interrupted: end the tier by its pid, never leave it running
                tier.terminate()
                try:
                    tier.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    tier.kill()
                    tier.wait()
        print("\n== the CPU-bound tier", flush=True)
        log.seek(0)
        sys.stdout.buffer.write(log.read())
        sys.stdout.flush()
    rc = combine(cpu_rc, rt_rc)
    print(f"\n== make test: CPU-bound tier exit {cpu_rc}, real-time tier exit {rt_rc}: exit {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
