"""The wall-clock-paced environment: never early, woken by other threads, lateness recorded.
(Only lower bounds of time are asserted: they hold however loaded the machine is.)"""

from __future__ import annotations

import threading
import time

import pytest

from hil.clock import WallClockEnvironment


@pytest.mark.parametrize("scale", [1.0, 20.0])
def test_events_never_run_before_their_wall_time(scale):
    env = WallClockEnvironment(time_scale=scale)
    seen = []

    def proc():
        for _ in range(5):
            yield env.timeout(0.01 * scale)
            seen.append((env.now, env.wall_now()))

    env.run(env.process(proc()))
    assert [round(t, 9) for t, _ in seen] == [round(0.01 * scale * (i + 1), 9) for i in range(5)]
    for sim_t, wall_t in seen:
        assert wall_t >= sim_t  # the wall clock had reached the event's time
    summary = env.lateness.drain()
    assert summary["n"] >= 5 and summary["p50_us"] >= 0
    assert env.lateness.drain() is None


def test_another_thread_wakes_the_environment_at_the_current_time():
    env = WallClockEnvironment()
    got = env.event()
    posted = {}

    def io_thread():
        time.sleep(0.02)
        posted["t"] = env.wall_now()
        env.call_soon_threadsafe(lambda: got.succeed(env.now))

    t = threading.Thread(target=io_thread)
    t.start()
    # The only scheduled event is far away: the post must wake the loop long before it.
    far = env.timeout(30.0)
    value = env.run(got)
    t.join()
    assert value >= posted["t"] and not far.processed


def test_run_until_a_time():
    env = WallClockEnvironment(time_scale=100.0)
    env.run(until=0.5)
    assert env.now == pytest.approx(0.5)
    assert env.wall_now() >= 0.5


def test_rejects_a_bad_scale():
    with pytest.raises(ValueError):
        WallClockEnvironment(time_scale=0)


@pytest.mark.parametrize("aligned", [True, False])
def test_a_schedule_made_while_the_bench_was_built_starts_when_the_run_does(aligned):
    """The table's rounds are a process made before ``run``, while the bench connected (here 2 s of
    wall clock, 40 s simulated at 20×). Yielding ``aligned()`` first, its betting window's presses
    (1, 2 and 3 s in) come each at its own time after the run starts. Without it they are the
    catch-up's: all at the wall's now, 37-39 s after they were due (the burst that overran a vendor
    device's 16-entry press log, its presses after its own "no more bets")."""
    build_ns = [0]
    env = WallClockEnvironment(time_scale=20.0, clock_ns=lambda: time.perf_counter_ns() + build_ns[0])
    fired = []

    def rounds():
        if aligned:
            yield env.aligned()
        start = env.now
        for at in (1.0, 2.0, 3.0):
            yield env.timeout(start + at - env.now)
            fired.append((env.now - start, env.wall_now()))
        return start

    proc = env.process(rounds())
    build_ns[0] = 2_000_000_000  # the bench took 2 s to connect
    start = env.run(proc)
    assert [round(t, 9) for t, _ in fired] == [1.0, 2.0, 3.0]
    if aligned:
        assert start >= 40.0
        for offset, wall in fired:
            assert wall >= start + offset  # never early
    else:
        assert start == 0.0
        assert all(wall >= 40.0 for _, wall in fired)  # each 37-39 s late: the catch-up's burst
