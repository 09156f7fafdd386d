"""``REQUIRED`` (and the optional ``FEATURES``) are exactly the points the adapters touch.

Each Modbus adapter runs against its firmware stub (another process, time-compressed) through
every command of its Protocol, with ``RegisterMap.point`` recorded: every point an adapter asked
its map for must be required or belong to a feature the map has (else a vendor map that loads
could fail later with a KeyError), and every required or feature point must have been asked for
(else ``REQUIRED`` demands what the rig never reads). Maps without the optional feature load.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from firmware_stubs.launch import launch
from hil.clock import WallClockEnvironment
from hil.config import ConfigError
from hil.transport.ioloop import IoLoop
from hil.wire.registers import (BUTTON_STAKES, FEATURES, INJECTION, REQUIRED, STAKE_LIMITS, RegisterMap, default_map, known_points,
                                parse_register_map)

SCALE = 20
#: a bench-top money wheel: ~2 turns in ~2 s (sim), so a spin comes to rest at once at SCALE
FAST_WHEEL = ("inertia_kg_m2=1.0", "push_speed_mean_rps=3.0", "peg_loss_j=0.3", "clapper_barrier_j=0.4",
              "bearing_friction_torque_n_m=10.0")
#: the most meters a progressive-system map carries, so every meter's wager-log columns are read
FOUR_METERS = [{"name": n, "seed_cents": 100_000 * (i + 1)} for i, n in enumerate(("mega", "major", "minor", "mini"))]
FAST_TOP_SLOT = ("spin_duration_mean_s=0.5", "spin_duration_sd_s=0", "min_spin_duration_s=0.2", "reel2_extra_s=0.2")


@contextmanager
def touched_points(monkeypatch) -> Iterator[dict[str, set[str]]]:
    """device -> the names of the points any code asked a map of that device for."""
    seen: dict[str, set[str]] = {}
    lock = threading.Lock()
    original = RegisterMap.point

    def point(self, name):
        p = original(self, name)
        with lock:
            seen.setdefault(self.device, set()).add(p.name)
        return p

    monkeypatch.setattr(RegisterMap, "point", point)
    yield seen


def _run(env: WallClockEnvironment, ev, limit_s: float = 30.0):
    env.run(until=env.any_of([ev, env.timeout(limit_s)]))
    assert ev.triggered, "the adapter's command was never answered"
    return ev.value


def _money_wheel(env, dev) -> None:
    _run(env, dev.spin("cw"))


def _top_slot(env, dev) -> None:
    _run(env, dev.spin())


def _board(env, dev) -> None:
    hunt = _run(env, dev.generate("cash-hunt"))
    _run(env, dev.apply_multiplier(hunt.board_id, 2))
    _run(env, dev.shuffle(hunt.board_id))
    _run(env, dev.draw(hunt.board_id, "auto_pick", 10))
    pachinko = _run(env, dev.generate("pachinko"))
    _run(env, dev.draw(pachinko.board_id, "drop_zone", 10))
    _run(env, dev.rescue(pachinko.board_id))


def _coin(env, dev) -> None:
    _run(env, dev.flip())


def _pachinko(env, dev) -> None:
    _run(env, dev.drop(7))


def _ctw(env, dev) -> None:
    _run(env, dev.spin())


def _illuminator(env, dev) -> None:
    _run(env, dev.illuminate())


def _wagering(env, dev, spot: str = "5") -> None:
    def round_():
        dev.open_betting()
        yield env.timeout(0.05)
        pressed = dev.press(1, spot, 500)
        yield env.timeout(0.05)
        armed = dev.arm_probe(2, spot, 100, [0.0, 0.001, 0.05])
        yield env.timeout(0.05)
        dev.lock_out()
        yield env.all_of([pressed, *armed]) | env.timeout(10)
        return pressed

    _run(env, env.process(round_()))


def _progressive(env, dev) -> None:
    _wagering(env, dev, "progressive")
    presses = [p for p in dev.recorded if p[1] == "press" and p[2]["accepted"]]
    _run(env, dev.confirm_wagers([presses[0][2]["press_id"]] if presses else []))
    _run(env, dev.light_win(1, True))
    _run(env, dev.meters())
    _run(env, dev.pay_meter(dev.names[0], 100, 1))


def _adapter(device: str):
    from hil.adapters import (modbus_board, modbus_coin_flipper, modbus_ctw_wheel, modbus_illuminator,
                              modbus_money_wheel, modbus_pachinko, modbus_progressive, modbus_top_slot,
                              modbus_wagering)
    return {"money-wheel": modbus_money_wheel.ModbusMoneyWheel, "top-slot": modbus_top_slot.ModbusTopSlot,
            "wagering": modbus_wagering.ModbusWageringDevice,
            "multiplier-board": modbus_board.ModbusMultiplierBoard,
            "coin-flipper": modbus_coin_flipper.ModbusCoinFlipper,
            "pachinko-board": modbus_pachinko.ModbusPachinkoBoard,
            "crazy-time-world-wheel": modbus_ctw_wheel.ModbusCtwWheel,
            "illuminator": modbus_illuminator.ModbusIlluminator,
            "progressive-system": modbus_progressive.ModbusProgressiveSystem}[device]


EXERCISE: dict[str, tuple[tuple[str, ...], Callable]] = {
    "money-wheel": (FAST_WHEEL, _money_wheel), "top-slot": (FAST_TOP_SLOT, _top_slot),
    "wagering": ((), _wagering), "multiplier-board": ((), _board), "coin-flipper": ((), _coin),
    "pachinko-board": ((), _pachinko), "crazy-time-world-wheel": ((), _ctw), "illuminator": ((), _illuminator),
    "progressive-system": ((f"meters={json.dumps(FOUR_METERS)}",), _progressive),
}


@pytest.mark.parametrize("device", EXERCISE)
def test_required_is_what_the_adapter_touches(device, monkeypatch):
    params, exercise = EXERCISE[device]
    args = [a for p in params for a in ("--param", p)]
    rmap = default_map(device)
    with touched_points(monkeypatch) as seen, \
            launch(device, "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE), *args) as stub, IoLoop() as io:
        env = WallClockEnvironment(time_scale=SCALE)
        recorded: list = []
        dev = _adapter(device)(env, io, stub.url, 1, rmap, lambda d, k, p: recorded.append((d, k, p)), device,
                               0.5, 0.002)
        dev.recorded = recorded
        try:
            exercise(env, dev)
        finally:
            dev.close()
    faults = [p for _, k, p in recorded if k == "wire_fault"]
    assert not faults, faults
    touched = seen.get(device, set())
    allowed = set(known_points(device))
    assert touched - allowed == set(), "touched but neither required nor in a feature: a vendor map may lack them"
    assert allowed - touched == set(), "required (or in a feature) but never touched by the adapter"


# ---------------------------------------------------------------------- optional features
def _without(device: str, prefixes: tuple[str, ...]) -> str:
    """The shipped map's TOML with every point whose name starts with one of ``prefixes`` cut out."""
    from importlib.resources import files

    text = files("hil.wire").joinpath(f"maps/{dict(_FILES)[device]}").read_text(encoding="utf-8")
    head, *blocks = text.split("[[points]]")
    kept = [b for b in blocks if not any(f'name = "{p}' in b for p in prefixes)]
    return "[[points]]".join([head, *kept])


_FILES = (("wagering", "wagering.toml"), ("progressive-system", "progressive_system.toml"))


@pytest.mark.parametrize("device", ["wagering", "progressive-system"])
def test_a_map_without_injection_loads_and_says_so(device):
    shipped = default_map(device)
    assert INJECTION in shipped.features and shipped.has("press_inject_seq") and shipped.has("probe_arm_seq")
    bare = parse_register_map(_without(device, ("press_inject_", "probe_", "seat_button_", "stake_m")), "bare.toml",
                              device)
    assert bare.features == frozenset() and not bare.has("press_inject_seq") and not bare.has("probe_seat")
    assert set(REQUIRED[device]) <= {p.name for p in bare.points}


@pytest.mark.parametrize("device", ["wagering", "progressive-system"])
def test_without_features_is_the_map_without_the_group(device):
    shipped = default_map(device)
    bare = shipped.without_features(INJECTION)
    assert bare.features == {BUTTON_STAKES, STAKE_LIMITS} and shipped.features == {INJECTION, BUTTON_STAKES, STAKE_LIMITS}
    assert {p.name for p in shipped.points} - {p.name for p in bare.points} == set(FEATURES[device][INJECTION])
    assert bare == parse_register_map(_without(device, ("press_inject_", "probe_")), "bare.toml", device)
    with pytest.raises(ValueError, match="no optional feature"):
        default_map("money-wheel").without_features(INJECTION)


def test_a_half_feature_is_refused_naming_what_it_lacks():
    text = _without("wagering", ("probe_",))
    with pytest.raises(ConfigError) as err:
        parse_register_map(text, "half.toml", "wagering")
    assert "'injection' feature is all or nothing" in str(err.value) and "probe_arm_seq" in str(err.value)


@pytest.mark.parametrize("device", ["wagering", "progressive-system"])
def test_a_map_without_the_press_log_is_refused_at_load(device):
    with pytest.raises(ConfigError) as err:
        parse_register_map(_without(device, ("press_log_",)), "nolog.toml", device)
    assert "needs point(s) press_log_id" in str(err.value)


def test_features_and_required_are_disjoint():
    for device, groups in FEATURES.items():
        for group in groups.values():
            assert not set(group) & set(REQUIRED[device])
