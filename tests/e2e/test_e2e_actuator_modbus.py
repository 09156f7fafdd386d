"""A black-box wagering device over Modbus (a vendor map without the injection feature), pressed
through a Modbus DO module whose coils are wired across its seat buttons — the stub serves both,
in another process: every actuation is found in the device's press log with the device's button
stake, and the lock-out boundary, bracketed by the rig's own clock, holds the stub's latency."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from devices.actuator import WAGERING_SPOTS, ActuatorParams, Entry, Wiring, attribute
from firmware_stubs.launch import launch
from hil.adapters.actuator_modbus import ModbusActuator
from hil.adapters.modbus_wagering import ModbusWageringDevice
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
import hil.wire
from hil.wire.registers import parse_register_map

LATENCY_S = 0.04  # the stub's lock-out latency: wide against a loaded machine's write round trips


def _map_without_injection():
    """The shipped map less its injection and armed-probe points: a black-box vendor device."""
    text = (Path(hil.wire.__file__).parent / "maps" / "wagering.toml").read_text(encoding="utf-8")
    head, *blocks = text.split("[[points]]")
    kept = [b for b in blocks if not re.search(r'^name = "(press_inject_|probe_)', b, re.M)]
    assert len(kept) < len(blocks)
    return parse_register_map("[[points]]".join([head, *kept]), "vendor-without-injection.toml", "wagering")


@dataclass(frozen=True)
class Relay:
    url: str
    unit: int = 1
    timeout_s: float = 0.5


def test_presses_through_the_do_module_are_the_device_log_entries():
    rmap = _map_without_injection()
    assert "injection" not in rmap.features
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0",
                "--param", f"lockout_latency_mean_s={LATENCY_S}", "--param", "lockout_latency_jitter_s=0",
                "--param", "button_stake_cents=700") as stub, IoLoop() as io:
        assert stub.actuator is not None
        env = WallClockEnvironment()
        events: list[tuple[str, str, dict]] = []
        sink = lambda d, k, p: events.append((d, k, p))  # noqa: E731
        dev = ModbusWageringDevice(env, io, stub.url, 1, rmap, sink, "wagering", 0.5, 0.002)
        params = ActuatorParams(pulse_s=0.03)
        relay = ModbusActuator(env, io, Relay(stub.actuator), params, Wiring.of(WAGERING_SPOTS, 7, None), sink)
        presses, acts = [], []
        dev.watch(presses.append)
        try:
            assert not dev.injection
            with pytest.raises(ValueError, match="actuator"):
                dev.press(1, "1", 100)

            def round_():
                dev.open_betting()
                yield env.timeout(0.05)
                for seat, spot in ((1, "2"), (2, "crazy-time"), (3, "10")):  # the players' wagers
                    acts.append(relay.press(seat, spot))
                yield env.timeout(0.1)
                dev.lock_out()
                t_lock = env.now
                for i, off in enumerate([0.0, 0.01, 0.025, 0.055, 0.07, 0.09]):  # the probe, one button each
                    yield env.timeout(max(0.0, t_lock + off - env.now))
                    acts.append(relay.press(7, WAGERING_SPOTS[i], "probe"))
                yield env.timeout(0.3)

            env.run(env.process(round_()))
        finally:
            relay.close()
            dev.close()
    assert all(a.triggered and a.value.ok for a in acts)
    assert not [p for d, k, p in events if k == "wire_fault"]
    assert {p.stake_cents for p in presses} == {700}  # the device's button stake, never the rig's
    att = attribute([a.value for a in acts], [Entry(p.press_id, p.seat, p.spot, p.device_time_s) for p in presses],
                    dev.clock.uncertainty_s, params.match_window_s)
    assert len(att.matched) == len(acts) and not att.lost and not att.foreign and not att.duplicates
    cmd = next(p for _, k, p in events if k == "lockout_command")
    assert cmd["command_lo_s"] <= cmd["command_hi_s"]
    by_press = {p.press_id: p for p in presses}
    by_act = {a.value.actuation_id: a.value for a in acts}
    for pid, aid in att.matched.items():
        a, p = by_act[aid], by_press[pid]
        if a.purpose != "probe":
            assert p.accepted
            continue
        lo, hi = a.closed_lo_s - cmd["command_hi_s"], a.closed_hi_s - cmd["command_lo_s"]
        if p.accepted:  # accepted => the latency is past the offset's lower end
            assert lo < LATENCY_S
        else:  # locked out => the latency is within the offset's upper end
            assert p.reason == "locked_out" and hi >= LATENCY_S - 1e-6
    assert any(by_press[pid].accepted for pid, aid in att.matched.items() if by_act[aid].purpose == "probe")
    assert any(not by_press[pid].accepted for pid, aid in att.matched.items() if by_act[aid].purpose == "probe")
