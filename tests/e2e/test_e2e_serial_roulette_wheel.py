"""The roulette ball wheel over the Slingshot-style line protocol on a pty, its firmware stub in
another process at 20x time compression and seeded through its control endpoint: the rig's
adapter reports the pockets the SimPy model draws with the same seed, a void game is a misspin,
and a stub killed mid-game is a recorded wire fault, never a crash."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import simpy

from devices.roulette_wheel import RouletteWheelParams, RouletteWheelSim, pocket_order
from firmware_stubs.launch import launch
from hil.adapters.serial_roulette_wheel import SlingshotRouletteWheel
from hil.adapters.stub_control import request
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop

TIME_SCALE = 20
ENTROPY = 20240917
#: Default physics: the launcher waits for a rotor angle the wheel's RNG drew, so where the rotor
#: stood when the command arrived (the link's timing) does not change the pocket.
PHYSICS: dict = {}


def seed_of(i: int) -> dict:
    ss = np.random.SeedSequence(ENTROPY).spawn(i + 1)[i]
    return {"entropy": ss.entropy, "spawn_key": list(ss.spawn_key)}


def model_results(params: dict, seed: dict, n: int) -> tuple[list, list[str]]:
    """What ``RouletteWheelSim`` draws with ``seed``: ``n`` games, one after the other (the
    results, and the kinds of its telemetry in order)."""
    env = simpy.Environment()
    ss = np.random.SeedSequence(seed["entropy"], spawn_key=tuple(seed["spawn_key"]))
    events: list = []
    sim = RouletteWheelSim(env, RouletteWheelParams(**params), np.random.Generator(np.random.PCG64(ss)),
                           lambda d, k, p: events.append((k, p)))
    results = []

    def go():
        for _ in range(n):
            results.append((yield sim.spin()))
            yield env.timeout(3.0)

    env.run(env.process(go()))
    return results, [k for k, _ in events]


@contextmanager
def seeded_stub(params: dict, seed: dict) -> Iterator[tuple[object, str]]:
    with launch("roulette-wheel", "--pty", "--time-scale", str(TIME_SCALE), "--control", "tcp://127.0.0.1:0",
                "--param", "profile=model") as st:  # the model's commanded wheel (kept through configure)
        effective = request(st.control, {"op": "configure", "params": params, "seed": seed})["params"]
        assert {k: effective[k] for k in params} == params
        yield st.proc, st.url


def play(url: str, io: IoLoop, n: int, wait_s: float = 60.0):
    """``n`` games through the adapter; returns their events and the telemetry (kind, payload)."""
    env = WallClockEnvironment(time_scale=TIME_SCALE)
    events: list[tuple[str, dict]] = []
    wheel = SlingshotRouletteWheel(env, io, url, lambda _d, k, p: events.append((k, p)), "ball_wheel", 0.5,
                                   mode="command")
    try:
        def go():
            done = []
            for _ in range(n):
                ev = wheel.spin()
                yield ev | env.timeout(wait_s)
                done.append(ev)
                if not ev.triggered:
                    break
            yield env.timeout(0.5)
            return done

        done = env.run(env.process(go()))
    finally:
        wheel.close()
    return done, events


@pytest.mark.parametrize("wheel", ["single-zero", "double-zero"])
def test_the_pockets_are_the_seeded_models(wheel: str):
    seed, n = seed_of(3), 6
    params = {**PHYSICS, "wheel": wheel}
    want, model_kinds = model_results(params, seed, n)
    with seeded_stub(params, seed) as (_proc, path), IoLoop() as io:
        done, events = play(f"{path}?wheel={wheel}", io, n)
    assert all(ev.triggered for ev in done) and len(done) == n
    got = [ev.value for ev in done]
    kinds = [k for k, _ in events]
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]
    info = events[0][1]
    assert events[0][0] == "device_info" and info["wheel"] == wheel and info["pockets"] == list(pocket_order(wheel))
    assert [r.pocket for r in got] == [r.pocket for r in want]
    assert [r.pocket_index for r in got] == [r.pocket_index for r in want]
    assert [r.spin_id for r in got] == [r.spin_id for r in want] == list(range(1, n + 1))
    assert [r.rotor_direction for r in got] == [r.rotor_direction for r in want] == ["cw", "ccw"] * (n // 2)
    assert [r.misspin for r in got] == [r.misspin for r in want]
    for g, w in zip(got, want):  # the speed field is whole rpm, of the game's first state-3 line (the rotor coasts)
        assert abs(g.rotor_speed_rps - w.rotor_speed_rps) <= 1.0 / 60
        assert g.ball_revolutions is None and g.launch_speed_rps == 0.0
        assert g.start_time_s < g.launch_time_s < g.stop_time_s and g.drop_time_s is None
    # the model's telemetry, in the same order: its drop is the commanded wheel's state 4 (bets closed)
    assert [k for k in kinds if k not in ("wheel_state", "game_start")] == \
        [{"ball_drop": "bets_closed"}.get(k, k) for k in model_kinds]
    states = [p["state"] for k, p in events if k == "wheel_state"]
    # the rig starts each game while the wheel still shows the last number (state 5 holds 2 s)
    assert states[:1 + 5 * n] == [6] + [1, 2, 3, 4, 5] * n and states[1 + 5 * n:] in ([], [6])


def test_void_games_are_misspins():
    seed = seed_of(5)
    failure = {**PHYSICS, "launch_failure_probability": 1.0}
    want, model_kinds = model_results(failure, seed, 2)
    with seeded_stub(failure, seed) as (_proc, path), IoLoop() as io:
        done, events = play(path, io, 2)
    got = [ev.value for ev in done]
    assert [r.misspin for r in got] == [True, True] == [r.misspin for r in want]
    assert [r.pocket for r in got] == [r.pocket for r in want]  # the ball stays where it lay
    assert all(r.launch_time_s is None and r.drop_time_s is None for r in got)
    kinds = [k for k, _ in events]
    assert [k for k in kinds if k not in ("wheel_state", "game_start", "wheel_warning")] == model_kinds
    assert "ball_launch" not in kinds
    assert [p["bit"] for k, p in events if k == "wheel_warning"] == [8, 8]  # the wheel's void game, each game
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]
    assert {p["warning"] for k, p in events if k == "wheel_state" and p["state"] == 5} == {8}

    weak = {"ball_speed_scale": 0.5}  # launched, but too few revolutions on the rim
    with seeded_stub(weak, seed_of(6)) as (_proc, path), IoLoop() as io:
        done, events = play(path, io, 1)
    (r,) = [ev.value for ev in done]
    assert r.misspin and r.launch_time_s is not None and r.drop_time_s is None  # the drop is not on the wire
    assert "wire_fault" not in [k for k, _ in events]


def test_a_stub_killed_mid_game_is_a_wire_fault_and_the_game_never_resolves():
    with seeded_stub(PHYSICS, seed_of(7)) as (proc, path), IoLoop() as io:
        env = WallClockEnvironment(time_scale=TIME_SCALE)
        events: list[tuple[str, dict]] = []
        gone = env.event()

        def telemetry(_d, kind, p):
            events.append((kind, p))
            if kind == "ball_launch":
                proc.kill()  # by its pid, mid-game
            elif kind == "wire_fault" and not gone.triggered:
                gone.succeed(p)

        wheel = SlingshotRouletteWheel(env, io, path, telemetry, "ball_wheel", 0.5, mode="command")
        try:
            def go():
                ev = wheel.spin()
                yield ev | gone | env.timeout(60.0)
                return ev

            ev = env.run(env.process(go()))
        finally:
            wheel.close()  # at once: the dead stub's pty number may soon be another test's
        proc.wait(timeout=10)
    assert gone.triggered and gone.value["kind"] == "disconnected", gone.value if gone.triggered else events
    assert not ev.triggered, "no result was reported: nothing to settle on"
    kinds = [k for k, _ in events]
    assert "ball_launch" in kinds and "ball_result" not in kinds
