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
        start = env.now  # the run's start (the process was made before it)
        for _ in range(5):
            yield env.timeout(0.01 * scale)
            seen.append((env.now - start, env.wall_now() - start))

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


def test_a_process_made_while_the_bench_was_built_starts_when_the_run_does():
    """The table's rounds are a process made before ``run``, while the bench connected (here 2 s of
    wall clock, 40 s simulated at 20×): it starts at the wall's now when the run starts, and its
    betting window's presses (1, 2 and 3 s in) come each at its own time. A bare event made before
    ``run`` is the catch-up's: it fires at once, 39 s after it was due — as a process's schedule
    did before (the burst that overran a vendor device's 16-entry press log, its presses after its
    own "no more bets")."""
    build_ns = [0]
    env = WallClockEnvironment(time_scale=20.0, clock_ns=lambda: time.perf_counter_ns() + build_ns[0])
    fired, bare = [], env.timeout(1.0)
    bare.callbacks.append(lambda _e: fired.append(("bare", env.now, env.wall_now())))

    def rounds():
        start = env.now
        for at in (1.0, 2.0, 3.0):
            yield env.timeout(start + at - env.now)
            fired.append(("press", env.now - start, env.wall_now()))
        return start

    proc = env.process(rounds())
    build_ns[0] = 2_000_000_000  # the bench took 2 s to connect
    start = env.run(proc)
    assert start >= 40.0
    (kind, t, wall), *presses = fired
    assert (kind, t) == ("bare", 1.0) and wall >= 40.0  # due at 1 s, fired in the catch-up
    assert [(k, round(t, 9)) for k, t, _ in presses] == [("press", 1.0), ("press", 2.0), ("press", 3.0)]
    for _, offset, wall in presses:
        assert wall >= start + offset  # never early


def test_a_process_made_while_the_run_runs_starts_at_once():
    env = WallClockEnvironment(time_scale=50.0)
    seen = []

    def child():
        seen.append(env.now)
        yield env.timeout(0.5)
        seen.append(env.now)

    def parent():
        yield env.timeout(1.0)
        at = env.now
        yield env.process(child())
        return at

    at = env.run(env.process(parent()))
    assert seen == [at, at + 0.5]
