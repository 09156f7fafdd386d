"""The progressive table game system over Modbus TCP, its firmware stub in another process, seeded
through the control endpoint: the rig's ``ModbusProgressiveSystem`` gets the answers, the dealer's
confirmation (increments of the confirmed wagers only, the probe's presses void, an unknown id
refused), meters and payouts the SimPy model gets with the same seed and script — lost increments
and the lock-out boundary included — and a stub that dies is a recorded wire fault, never a crash."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import simpy

from devices.contracts import ProgressiveSystem
from devices.progressive import MeterSpec, ProgressiveParams, ProgressiveTableSim
from firmware_stubs.control import generator
from firmware_stubs.launch import end, launch
from hil.adapters.modbus_progressive import ModbusProgressiveSystem
from hil.adapters.stub_control import configure_stub
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map

#: simulated seconds per wall second, stub and rig alike
SCALE = 10
#: the rig's per-device seed stream, as the runner hands it to a stub
SEED = {"entropy": 20240615, "spawn_key": [4]}
METERS = [{"name": "mega", "seed_cents": 1_000_000, "increment_rate": "14%", "reserve_rate": "1%"},
          {"name": "major", "seed_cents": 500_000, "increment_rate": "6%"},
          {"name": "minor", "seed_cents": 250_000, "increment_rate": "4%"}]
#: probe presses after the lock-out command (device clock): the boundary is the seeded latency draw
OFFSETS_S = [0.001 * i for i in range(12)]
WAIT_S = 5.0  # simulated; the safety net of every await (tests assert behaviour, not time)
UNTIMED = ("device_time_s", "answer_time_s")


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in UNTIMED}


@contextmanager
def rig(params: dict) -> Iterator[tuple[WallClockEnvironment, ModbusProgressiveSystem, list, object]]:
    """The stub in its own process, configured with ``params`` and ``SEED`` through its control
    endpoint, and the rig's adapter on it; yields (env, adapter, [(kind, payload)], the stub)."""
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE),
                "--control", "tcp://127.0.0.1:0") as stub, IoLoop() as io:
        configure_stub(stub.control, params, SEED, None)
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, dict]] = []
        dev = ModbusProgressiveSystem(env, io, stub.url, 1, default_map("progressive-system"),
                                      lambda _d, k, p: events.append((k, p)))
        try:
            yield env, dev, events, stub
        finally:
            dev.close()


def on_model(params: dict, script):
    """``script(env, dev, events)`` on the SimPy model with ``params`` and ``SEED``; (result, events)."""
    env, events = simpy.Environment(), []
    knobs = {**params, "meters": tuple(MeterSpec(**m) for m in params["meters"])}
    dev = ProgressiveTableSim(env, ProgressiveParams(**knobs), generator(SEED), lambda _d, k, p: events.append((k, p)))
    return env.run(env.process(script(env, dev, events))), events


def _await(env, ev):
    return ev | env.timeout(WAIT_S)


def a_round(env, dev: ProgressiveSystem, _events: list):
    """Wagers at four seats, the lock-out with the rig's probe at seat 5, the dealer's confirmation
    of the four wagers (and of an id never pressed), the meters, a win light, the minor meter won by
    two players, the meters again."""
    dev.open_betting()
    yield env.timeout(0.2)
    answers = []
    for seat, stake in ((1, 125), (2, 125), (3, 500), (4, 100)):
        ev = dev.press(seat, "progressive", stake)
        yield _await(env, ev)
        answers.append(ev.value if ev.triggered else None)
    armed = dev.arm_probe(5, "progressive", 100, OFFSETS_S)
    yield env.timeout(0.2)
    dev.lock_out()
    yield env.all_of(armed) | env.timeout(WAIT_S)
    answers += [ev.value if ev.triggered else None for ev in armed]
    confirmed = dev.confirm_wagers([a.press_id for a in answers[:4] if a is not None and a.accepted] + [999])
    yield _await(env, confirmed)
    before = dev.meters()
    yield _await(env, before)
    dev.light_win(3, True)
    paid = dev.pay_meter("minor", 100, 2)
    yield _await(env, paid)
    after = dev.meters()
    yield _await(env, after)
    yield env.timeout(0.2)  # the win light's read-back
    return answers, before.value, paid.value, after.value, confirmed.value if confirmed.triggered else None


def test_a_round_on_the_stub_equals_the_model_with_the_same_seed():
    params = {"meters": METERS, "lost_increment_probability": 0.3, "lockout_latency_mean_s": 0.005,
              "lockout_latency_jitter_s": 0.002}
    with rig(params) as (env, dev, events, _stub):
        got = env.run(env.process(a_round(env, dev, events)))
    want, model_events = on_model(params, a_round)
    answers, before, paid, after, confirmed = got
    assert all(a is not None for a in answers)
    assert [_untimed(vars(a)) for a in answers] == [_untimed(vars(a)) for a in want[0]]
    assert any(a.accepted for a in answers[4:]) and any(not a.accepted for a in answers[4:]), "the boundary is probed"
    assert (before.meters, before.link_up) == (want[1].meters, want[1].link_up)
    assert _untimed(vars(paid)) == _untimed(vars(want[2]))
    assert after.meters == want[3].meters
    assert confirmed is not None and confirmed == want[4]
    for kind in ("press", "meter_increment", "press_void", "confirm_refused", "meter_hit", "win_light",
                 "meter_reading"):
        assert [_untimed(p) for k, p in events if k == kind] == [_untimed(p) for k, p in model_events if k == kind], kind
    wagers = {a.press_id for a in answers[:4] if a.accepted}
    lost = wagers - {p["press_id"] for k, p in events if k == "meter_increment"}
    assert lost, "with this seed some increments are lost — on the stub as on the model"
    assert set(confirmed) == wagers - lost
    # the probe's accepted presses were never confirmed: void, never a meter's
    assert {p["press_id"] for k, p in events if k == "press_void"} == {a.press_id for a in answers[4:] if a.accepted}
    assert [p["press_id"] for k, p in events if k == "confirm_refused"] == [999]
    [confirm_t] = {p["device_time_s"] for k, p in events if k in ("meter_increment", "press_void")}
    assert confirm_t > max(a.answer_time_s for a in answers)  # the increments are at the confirmation
    [info] = [p for k, p in events if k == "device_info"]
    [model_info] = [p for k, p in model_events if k == "device_info"]
    assert {k: v for k, v in info.items() if k in model_info} == model_info
    assert not [p for k, p in events if k == "wire_fault"]
    # the probe's presses are device-timed: the same offsets after the command as on the model
    cmd = next(p for k, p in events if k == "lockout_command")["device_time_s"]
    assert [round(a.device_time_s - cmd, 6) for a in answers[4:]] == [round(o, 6) for o in OFFSETS_S]


def a_lost_link(env, dev: ProgressiveSystem, events: list):
    """A wager before the link is lost, one while it is lost, one after it came back."""
    dev.open_betting()
    yield env.timeout(0.2)
    first = dev.press(1, "progressive", 500)
    yield _await(env, first)
    yield _await(env, dev.confirm_wagers([first.value.press_id]))
    for _ in range(200):  # the device's clock decides when the link goes: wait for its report
        if any(k == "link_lost" for k, _ in events):
            break
        yield env.timeout(0.05)
    during = dev.press(2, "progressive", 500)
    yield _await(env, during)
    frozen = dev.meters()
    yield _await(env, frozen)
    for _ in range(200):
        if any(k == "link_restored" for k, _ in events):
            break
        yield env.timeout(0.05)
    reread = dev.meters()
    yield _await(env, reread)
    after = dev.press(3, "progressive", 500)
    yield _await(env, after)
    yield _await(env, dev.confirm_wagers([after.value.press_id]))
    return [first.value, during.value, after.value], frozen.value, reread.value


def test_a_lost_link_refuses_wagers_on_the_stub_as_on_the_model():
    params = {"meters": METERS, "link_loss_at_s": 3.0, "link_loss_duration_s": 3.0}
    with rig(params) as (env, dev, events, _stub):
        got = env.run(env.process(a_lost_link(env, dev, events)))
    want, model_events = on_model(params, a_lost_link)
    presses, frozen, reread = got
    assert [(a.accepted, a.reason) for a in presses] == [(True, None), (False, "link_lost"), (True, None)]
    assert [_untimed(vars(a)) for a in presses] == [_untimed(vars(a)) for a in want[0]]
    assert not frozen.link_up and reread.link_up
    assert frozen.meters == want[1].meters and reread.meters == want[2].meters
    [lost] = [p for k, p in events if k == "link_lost"]
    [restored] = [p for k, p in events if k == "link_restored"]
    assert abs(restored["device_time_s"] - lost["device_time_s"] - 3.0) < 1e-6  # the device's clock, mapped
    assert restored["meters"] == [p for k, p in model_events if k == "link_restored"][0]["meters"]
    assert [_untimed(p) for k, p in events if k == "meter_increment"] == [
        _untimed(p) for k, p in model_events if k == "meter_increment"]


def test_a_stub_that_dies_is_a_wire_fault_and_the_rig_carries_on():
    with rig({"meters": METERS}) as (env, dev, events, stub):
        def go():
            dev.open_betting()
            yield env.timeout(0.2)
            ok = dev.press(1, "progressive", 100)
            yield _await(env, ok)
            end(stub.proc)  # the device goes away
            for _ in range(100):  # the poll in flight may take its whole timeout to fail
                yield env.timeout(0.5)
                if any(k == "wire_fault" for k, _ in events):
                    break
            reading = dev.meters()
            paid = dev.pay_meter("mega", 100, 1)
            yield env.timeout(2.0)
            return ok, reading, paid

        ok, reading, paid = env.run(env.process(go()))
    assert ok.triggered and ok.value.accepted
    assert not reading.triggered and not paid.triggered  # the croupier's timeout voids what needed them
    assert {f["kind"] for k, f in events if k == "wire_fault"} & {"disconnected", "timeout"}
