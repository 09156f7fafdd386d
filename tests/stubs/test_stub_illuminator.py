"""The Roulette X multiplier illuminator's firmware stub (§ 617b.5(b), (d), (g)): IlluminatorSim behind
its register map. Driven over Modbus directly, each illumination shows the numbers and multipliers the
SimPy model with the same seed draws, in order ("00" as 37); the fault knobs are visible on the wire
as a faulty generator shows them (a number lit twice, a multiplier off the paytable, a draw before
the command); the Rules Submission and the rig's seed sequence come through ``--rules`` and the
control endpoint. The rig's ``ModbusIlluminator`` reports what the model reports, and garbage
registers are recorded ``bad_value`` wire faults, never a crash."""

from __future__ import annotations

import asyncio
import importlib.resources
from contextlib import contextmanager

import numpy as np
import pytest
from pymodbus.constants import ExcCodes

from command_scripts import adapter_rig, commands, of_kind, on_model
from devices.contracts import Illumination, MultiplierIlluminator
from devices.illuminator import IlluminatorParams, IlluminatorSim
from firmware_stubs import illuminator as stub_module
from firmware_stubs.board import load_rules
from firmware_stubs.control import generator
from firmware_stubs.illuminator import IlluminatorGlue, load_roulette_x
from firmware_stubs.launch import launch
from hil.adapters import modbus_illuminator
from hil.adapters.modbus_illuminator import ModbusIlluminator
from hil.adapters.stub_control import StubControlError, configure_stub
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire import registers
from hil.wire.registers import default_map, parse_register_map
from hil.clock import CLOCK_INFO_FIELDS
from rules.roulette_x import MAX_LIT, MIN_LIT, PAYTABLES

DEVICE = ROLE = "illuminator"
RMAP = default_map(DEVICE)
SEED = 17
#: the stub's and the rig's simulated seconds per wall second: a 1.5 s illumination takes ~40 ms
SCALE = 40
TIMEOUT_S = 30.0
N = 12
RULES = load_roulette_x()
PAYTABLE_B = RULES.model_copy(update={"paytable": "B"})
#: what an adapter's device_info adds to the model's: the link and the clock map
WIRE_INFO = ("url", *CLOCK_INFO_FIELDS)  # the link and the clock estimate (docs/wire/clock.md)


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k != "device_time_s"}


def illuminations(n: int, timeout_s: float = TIMEOUT_S):
    return commands(lambda dev, _: dev.illuminate(), range(n), timeout_s)


def sim(script, rng=None, rules=RULES, **knobs):
    """The same script on the SimPy model with the stub's seed; (results, events)."""
    return on_model(lambda env, sink: IlluminatorSim(env, IlluminatorParams(**knobs), rules, None,
                                                     rng or np.random.default_rng(SEED), sink), script)


def draws(results) -> list[tuple[tuple, tuple]]:
    return [(r.numbers, r.multipliers) for r in results]


# ------------------------------------------------------------------ the stub driven over Modbus directly
def shown(values: dict) -> tuple[tuple, tuple]:
    """The lit numbers and multipliers the result block shows (37 = "00")."""
    k = values["result_count"]
    return (tuple("00" if c == 37 else c for c in values["result_numbers"][:k]),
            tuple(values["result_multipliers"][:k]))


async def illuminate_over_the_wire(wire, n: int) -> list[tuple[int, int, dict]]:
    """``n`` illuminate commands, one after the other, each polled until its result is shown;
    each as (device clock before the command, device clock after it, the result poll)."""
    await wire.poll_until(lambda v: v["device_clock_ns"] > 3e9, "device_clock_ns")  # past early_s
    out = []
    for i in range(1, n + 1):
        before = (await wire.read("device_clock_ns"))["device_clock_ns"]
        await wire.command("illuminate")
        after = (await wire.read("device_clock_ns"))["device_clock_ns"]
        done, _ = await wire.poll_until(lambda v, i=i: v["result_op_id"] == i)
        out.append((before, after, done))
    return out


@contextmanager
def wire_to_stub(*args: str):
    """The stub in its own process (``--seed SEED``, ``--time-scale SCALE``, ``args``)."""
    with launch(DEVICE, "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE), "--seed", str(SEED),
                *args) as stub:
        yield stub


@pytest.mark.parametrize("wheel", ["single-zero", "double-zero"])
def test_draws_over_the_wire_equal_the_models_with_the_same_seed(kit, wheel):
    async def go(url):
        async with kit.connect(url, RMAP) as wire:
            declared = await wire.read("wheel", "paytable", "paytable_multipliers")
            return declared, await illuminate_over_the_wire(wire, N)

    with wire_to_stub("--param", f"wheel={wheel}") as stub:
        declared, polls = asyncio.run(go(stub.url))
    want, sim_events = sim(illuminations(N), wheel=wheel)
    assert [shown(done) for _, _, done in polls] == draws(want)
    assert all(MIN_LIT <= len(n) <= MAX_LIT for n, _ in draws(want))
    if wheel == "double-zero":
        assert any("00" in numbers for numbers, _ in draws(want)), "the seed lights 00: its code is tested"
    assert declared == {"wheel": wheel, "paytable": "A", "paytable_multipliers": [50, 100, 250, 500]}
    assert of_kind(sim_events, "device_info")[0] == {"wheel": wheel, "paytable": "A", "multipliers": [50, 100, 250, 500]}
    for i, (before, after, done) in enumerate(polls, 1):
        assert done["state"] == "done" and done["op_id"] == i and done["result_command"] == "illuminate"
        assert before <= done["result_time_ns"] <= after  # drawn at the command
        lit_ns = done["result_stop_ns"] - done["result_time_ns"]
        assert lit_ns == pytest.approx(IlluminatorParams().illuminate_s * 1e9, abs=1e3)  # lit 1.5 s later
        k = done["result_count"]
        assert done["result_numbers"][k:] == [0] * (8 - k) and done["result_multipliers"][k:] == [0] * (8 - k)


@pytest.mark.parametrize("knob", ["duplicate_numbers=1", "off_paytable_value=1", "lit_early=true"])
def test_fault_knobs_are_visible_on_the_wire(kit, knob):
    """What the faulty generator drew is what the registers show: a number lit twice, a multiplier
    of 1000 (on no § 617b.5(g) paytable), a draw ``early_s`` = 2 s before the command."""
    async def go(url):
        async with kit.connect(url, RMAP) as wire:
            return await illuminate_over_the_wire(wire, 4)

    with wire_to_stub("--param", knob) as stub:
        polls = asyncio.run(go(stub.url))
    name, value = knob.split("=")
    want, _ = sim(illuminations(4), **{name: value == "true" or float(value)})
    got = [shown(done) for _, _, done in polls]
    assert got == draws(want)
    if name == "duplicate_numbers":
        assert all(len(set(numbers)) < len(numbers) for numbers, _ in got)
    elif name == "off_paytable_value":
        assert all(1000 in mults for _, mults in got)
        assert all(1000 not in [m.ratio for m in t.multipliers] for t in PAYTABLES.values())
    else:
        early_ns = round(IlluminatorParams().early_s * 1e9)
        for before, after, done in polls:
            assert before - early_ns <= done["result_time_ns"] <= after - early_ns  # before the command


def test_rules_file_and_control_carry_the_submission_and_the_rigs_seed_sequence(kit, tmp_path):
    """``--rules`` and the control endpoint's ``rules`` (a Roulette X submission, as the rig dumps it)
    select what the generator draws from; with the rig's SeedSequence the stub draws exactly what
    the bench's IlluminatorSim would. A Crazy Time submission or an unknown knob is refused and the
    running model stays."""
    b_file = tmp_path / "roulette_x_b.toml"
    text = importlib.resources.files("rules").joinpath("data/roulette_x_reference.toml").read_text(encoding="utf-8")
    assert text.count('paytable = "A"') == 1
    b_file.write_text(text.replace('paytable = "A"', 'paytable = "B"'), encoding="utf-8")
    ss = np.random.SeedSequence(2024).spawn(9)[4]
    seed = {"entropy": ss.entropy, "spawn_key": list(ss.spawn_key)}

    async def read(url, n):
        async with kit.connect(url, RMAP) as wire:
            declared = await wire.read("wheel", "paytable", "paytable_multipliers")
            return declared, [shown(done) for _, _, done in await illuminate_over_the_wire(wire, n)]

    with wire_to_stub("--rules", str(b_file), "--param", "wheel=double-zero",
                      "--control", "tcp://127.0.0.1:0") as stub:
        from_file = asyncio.run(read(stub.url, 3))
        params = configure_stub(stub.control, {"wheel": "double-zero"}, seed, PAYTABLE_B)
        with pytest.raises(StubControlError, match="roulette-x"):
            configure_stub(stub.control, {}, 0, load_rules())  # a Crazy Time submission
        with pytest.raises(StubControlError, match="unknown parameter"):
            configure_stub(stub.control, {"brightness": 3}, seed, PAYTABLE_B)
        from_control = asyncio.run(read(stub.url, N))
    assert from_file[0] == {"wheel": "double-zero", "paytable": "B", "paytable_multipliers": [50, 100, 175, 250]}
    assert from_file[1] == draws(sim(illuminations(3), rules=PAYTABLE_B, wheel="double-zero")[0])
    assert params["wheel"] == "double-zero" and from_control[0] == from_file[0]
    want, _ = sim(illuminations(N), rng=np.random.Generator(np.random.PCG64(ss)), rules=PAYTABLE_B,
                  wheel="double-zero")
    assert from_control[1] == draws(want) and any("00" in numbers for numbers, _ in from_control[1])
    assert generator(seed).integers(1 << 30) == np.random.Generator(np.random.PCG64(ss)).integers(1 << 30)


def test_start_refuses_what_the_generator_cannot_serve(tmp_path):
    """Paytable B on a single zero wheel (§ 617b.5(g)), an unreadable ``--rules``, serial frames."""
    from firmware_stubs.__main__ import main

    b_file = tmp_path / "b.toml"
    text = importlib.resources.files("rules").joinpath("data/roulette_x_reference.toml").read_text(encoding="utf-8")
    b_file.write_text(text.replace('paytable = "A"', 'paytable = "B"'), encoding="utf-8")
    with pytest.raises(SystemExit, match="Paytable B is authorized on a double-zero wheel only"):
        main([DEVICE, "--modbus", "tcp://127.0.0.1:0", "--rules", str(b_file)])
    with pytest.raises(SystemExit, match="--rules"):
        main([DEVICE, "--modbus", "tcp://127.0.0.1:0", "--rules", str(tmp_path / "missing.toml")])
    with pytest.raises(SystemExit):
        main([DEVICE, "--pty"])


# ------------------------------------------------------------------ the rig's adapter on the stub
@contextmanager
def rig(*params: str, wire: str = "tcp"):
    """The stub in its own process (``--seed SEED``), the rig's adapter on it; yields (env, dev, events)."""
    def make(env, io, url, sink):
        return ModbusIlluminator(env, io, url, 1, RMAP, sink)
    with adapter_rig(DEVICE, make, *params, seed=SEED, scale=SCALE, wire=wire) as (env, dev, ev, _):
        yield env, dev, ev


@pytest.mark.parametrize("wire", ["tcp", "rtu"])
def test_adapter_reports_what_the_model_reports(wire):
    with rig("wheel=double-zero", wire=wire) as (env, dev, events):
        def script(env, dev):
            out = []
            for _ in range(N):
                t, ev = env.now, dev.illuminate()
                yield ev | env.timeout(TIMEOUT_S)
                out.append((t, env.now, ev.value if ev.triggered else None))
            return out

        got = env.run(env.process(script(env, dev)))
    want, sim_events = sim(illuminations(N), wheel="double-zero")
    assert isinstance(dev, MultiplierIlluminator) and dev.name == ROLE
    assert all(isinstance(r, Illumination) for _, _, r in got)
    assert [_untimed(vars(r)) for _, _, r in got] == [_untimed(vars(r)) for r in want]
    flow = [(k, _untimed(p)) for k, p in events if k not in ("device_info", "wire_fault")]
    assert flow == [(k, _untimed(p)) for k, p in sim_events if k != "device_info"]
    [info] = of_kind(events, "device_info")
    assert {k: v for k, v in info.items() if k not in WIRE_INFO} == of_kind(sim_events, "device_info")[0]
    assert not of_kind(events, "wire_fault")
    # device_time_s is the draw, in the rig's time: at the command, before the multipliers were lit
    slack = 0.05 * SCALE  # the clock map's uncertainty and the poll period, generously
    for commanded, resolved, r in got:
        assert commanded - slack <= r.device_time_s <= resolved - IlluminatorParams().illuminate_s + slack


class GarbageGlue(IlluminatorGlue):
    """A device showing what is no illumination: illumination 1 a count beyond the arrays,
    illumination 2 a number code that is no pocket; then healthy again."""

    def result_fields(self, command, result):
        fields = super().result_fields(command, result)
        if result.illumination_id == 1:
            return fields | {"result_count": 9}
        if result.illumination_id == 2:
            return fields | {"result_numbers": [40] + fields["result_numbers"][1:]}
        return fields


def test_garbage_registers_are_bad_values_never_a_crash():
    """The rig's map codes ``wheel`` differently from the device (a wrong vendor map): device_info
    declares no wheel and a ``bad_value`` is recorded. Illuminations 1 and 2 cannot be read as
    illuminations: each is recorded once, resolves nothing, and polling goes on — illumination 3
    reports as the model's third."""
    from firmware_stubs.modbus import ModbusStub, ModelClock

    toml = importlib.resources.files("hil.wire").joinpath("maps/illuminator.toml").read_text(encoding="utf-8")
    shipped = 'enum = { 0 = "none", 1 = "single-zero", 2 = "double-zero" }'
    assert toml.count(shipped) == 1
    rig_map = parse_register_map(toml.replace(shipped, 'enum = { 0 = "none", 5 = "single-zero", 6 = "double-zero" }'),
                                 "vendor.toml", DEVICE)
    clock = ModelClock(SCALE)
    stub = ModbusStub(RMAP, GarbageGlue(clock, IlluminatorParams(), RULES, np.random.default_rng(SEED), RMAP), clock)
    with IoLoop() as io:
        port = io.run(stub.start_tcp("127.0.0.1", 0), timeout_s=10)
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, dict]] = []
        dev = ModbusIlluminator(env, io, f"tcp://127.0.0.1:{port}", 1, rig_map, lambda d, k, p: events.append((k, p)))
        try:
            got = env.run(env.process(illuminations(3, timeout_s=5.0)(env, dev)))
        finally:
            dev.close()
            io.run(stub.stop(), timeout_s=10)
    assert got[:2] == [None, None]
    assert _untimed(vars(got[2])) == _untimed(vars(sim(illuminations(3))[0][2]))
    [info] = of_kind(events, "device_info")
    assert info["wheel"] is None and info["paytable"] == "A" and info["multipliers"] == [50, 100, 250, 500]
    faults = of_kind(events, "wire_fault")
    assert [f["kind"] for f in faults] == ["bad_value"] * 3, faults
    assert "wheel" in faults[0]["detail"]
    assert "result_count 9" in faults[1]["detail"] and "result_numbers[0]" in faults[2]["detail"]
    assert [p["illumination_id"] for p in of_kind(events, "illumination")] == [3]


# ------------------------------------------------------------------ the glue, register by register
def test_registers_go_busy_then_done_with_the_models_illumination(clock, kit):
    glue = IlluminatorGlue(clock, IlluminatorParams(illuminate_s=20.0, wheel="double-zero"), RULES,
                           np.random.default_rng(SEED), RMAP)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            before = await wire.read()
            await wire.command("illuminate")
            right_after = await wire.read("state", "op_id", "result_op_id")
            await wire.command("illuminate", seq=wire.seq)  # the same seq: not a new command
            again = await wire.read("state", "op_id")
            cmd, seq = RMAP.point("command"), RMAP.point("command_seq")
            bad = await wire.client.write_registers(cmd.address, [2, 7], device_id=1)  # no command 2
            done, _ = await wire.poll_until(lambda v: v["state"] == "done")
            return before, right_after, again, bad, done, await wire.read(seq.name)

    before, right_after, again, bad, done, seq = asyncio.run(go())
    assert before == {**before, "state": "idle", "op_id": 0, "result_op_id": 0, "result_command": "none",
                      "result_count": 0, "result_numbers": [0] * 8, "result_multipliers": [0] * 8,
                      "result_time_ns": 0, "wheel": "double-zero", "paytable": "A",
                      "paytable_multipliers": [50, 100, 250, 500]}
    assert right_after == {"state": "busy", "op_id": 1, "result_op_id": 0}
    assert again == {"state": "busy", "op_id": 1}
    assert bad.isError() and bad.exception_code == ExcCodes.ILLEGAL_VALUE and seq == {"command_seq": 1}
    (lit,) = tap.of("illumination")
    k = len(lit["numbers"])
    assert done == {**done, "op_id": 1, "result_op_id": 1, "result_command": "illuminate", "result_count": k,
                    "result_numbers": [37 if n == "00" else n for n in lit["numbers"]] + [0] * (8 - k),
                    "result_multipliers": list(lit["multipliers"]) + [0] * (8 - k),
                    "result_time_ns": clock.ns(lit["device_time_s"])}
    assert done["result_stop_ns"] - done["result_time_ns"] == pytest.approx(20e9, abs=1e3)


def test_glue_refuses_a_map_too_small_and_a_paytable_the_wheel_may_not_use(clock):
    data = RMAP.model_dump(by_alias=True)
    data["points"] = [{**p, "count": MAX_LIT - 1} if p["name"] == "result_numbers" else p for p in data["points"]]
    small = type(RMAP).model_validate(data)
    with pytest.raises(ValueError, match="result_numbers holds 4 entries"):
        IlluminatorGlue(clock, IlluminatorParams(), RULES, np.random.default_rng(SEED), small)
    with pytest.raises(ValueError, match="§ 617b.5\\(g\\)"):
        IlluminatorGlue(clock, IlluminatorParams(), PAYTABLE_B, np.random.default_rng(SEED), RMAP)


def test_the_stub_and_the_rig_code_00_alike():
    assert stub_module.pocket_code("00") == registers.DOUBLE_ZERO_CODE == 37 and modbus_illuminator.pocket(37) == "00"
    assert [modbus_illuminator.pocket(stub_module.pocket_code(p)) for p in (0, "00", 1, 36)] == [0, "00", 1, 36]
    with pytest.raises(ValueError, match="no number"):
        modbus_illuminator.pocket(38)
