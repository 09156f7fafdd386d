"""``make test``: the suite's tiers side by side, so none decides another's verdicts.

* **The real-time tier** (marker ``quiet_machine``, set by ``tests/conftest.py`` on tests/e2e,
  tests/conformance, tests/stubs and the few other files with stubs, Dask workers or a wall clock:
  stubs and wheels in their own processes over ptys and loopback, time-compressed up to 40×, judged
  on wall-clock timing or real timeouts) runs **one test at a time** per lane, at normal priority.
  At 20× a 5 ms stall of the rig is 100 ms of simulated time: six fresh-clone runs that shared the
  CPUs with it (two workers, or the CPU-bound tests beside it at normal priority) each lost one to
  three of its verdicts to a neighbour (a Top Slot start 101.9 ms from the wheel against ±100 ms, a
  press stamped past "no more bets", a clock-rate clause undecided); alone, none. (A stub test left
  in the idle tier once lost a reply to the starvation: it is in this tier now.)
* **Its second lane** (marker ``second_lane`` too: ``SECOND_LANE`` in ``tests/conftest.py``) runs
  beside the first, one test at a time, also at normal priority: long tests that mostly wait on the
  wall clock (a fifth to half of a core: a run at time scale 1, two suite comparisons, the drifting
  clocks, a dying link), never a CPU-bound one. A lane's tests never share the machine with a busy
  neighbour at their own priority; the real-time tier's wall time is the suite's (it was 12.5 min
  in one lane).
* **The CPU-bound tier** (everything else: rules, checks, simulated suites, Monte Carlo, statistics)
  runs at the same time over ``WORKERS`` xdist workers with scheduling policy ``SCHED_IDLE``
  (``nice 19`` where that is refused): it takes only the CPU the real-time lanes leave, and the
  kernel preempts it at once when a real-time test's process wakes.

The lanes' and the tier's outputs are held and printed one after another, so they never interleave.
The exit status is the worst of the three (pytest's codes; "no tests collected" in one, as when
``PYTEST_ARGS`` names only another's files, is not a failure while another ran tests).

    python tests/run_phases.py [pytest args...]        # WORKERS=2 by default
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

#: pytest's "no tests were collected"
NO_TESTS = 5


def combine(*rcs: int) -> int:
    """The suite's exit status from its tiers' and lanes' (the first failing one's code)."""
    codes = [rc for rc in rcs if rc != NO_TESTS]
    if not codes:
        return NO_TESTS
    return next((rc for rc in codes if rc != 0), 0)


def _lowest_priority() -> None:  # in the child, before exec: xdist's workers inherit it
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


def commands(args: list[str], workers: str, python: str = sys.executable) -> tuple[list[str], list[str], list[str]]:
    """(the CPU-bound tier's pytest command, the real-time tier's first lane's, its second lane's)."""
    cpu = [python, "-m", "pytest", "-n", workers, "--maxschedchunk", "1", "-m", "not quiet_machine", *args]
    first = [python, "-m", "pytest", "-n", "0", "-m", "quiet_machine and not second_lane", *args]
    second = [python, "-m", "pytest", "-n", "0", "-m", "quiet_machine and second_lane", *args]
    return cpu, first, second


def _end(proc: subprocess.Popen) -> None:
    """End a tier still running (interrupted) by its pid: never leave one behind."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str]) -> int:
    cpu, first, second = commands(argv, os.environ.get("WORKERS", "2"))
    with tempfile.TemporaryFile("w+b") as cpu_log, tempfile.TemporaryFile("w+b") as second_log:
        tier = subprocess.Popen(cpu, stdout=cpu_log, stderr=subprocess.STDOUT, preexec_fn=_lowest_priority)
        lane = subprocess.Popen(second, stdout=second_log, stderr=subprocess.STDOUT)
        try:
            print("== the real-time tier (tests/e2e, tests/conformance, tests/stubs, ...), one test at a time in "
                  "each of two lanes (the second's output below); the CPU-bound tier runs beside them at idle "
                  "priority, its output last", flush=True)
            first_rc = subprocess.call(first)
            second_rc = lane.wait()
            cpu_rc = tier.wait()
        finally:
            _end(lane)
            _end(tier)
        for title, log in (("the real-time tier's second lane", second_log), ("the CPU-bound tier", cpu_log)):
            print(f"\n== {title}", flush=True)
            log.seek(0)
            sys.stdout.buffer.write(log.read())
            sys.stdout.flush()
    rc = combine(cpu_rc, first_rc, second_rc)
    print(f"\n== make test: CPU-bound tier exit {cpu_rc}, real-time tier exit {first_rc} (first lane) and {second_rc} "
          f"(second lane): exit {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
