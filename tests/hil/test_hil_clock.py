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
