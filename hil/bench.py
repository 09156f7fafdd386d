"""The bench: which implementation stands behind each device role, and its parameters.

A bench file is versioned TOML. Each device role (Crazy Time: ``wheel``, ``top_slot``,
``wagering`` and the bonus games' devices; a Roulette table: ``ball_wheel``, ``illuminator``,
``roulette_wagering``) names its ``kind`` — ``"sim"`` (a SimPy model from ``devices``) or, from the real-device path
issue on, ``"modbus"`` / ``"serial"`` — and its parameters. Swapping a simulated device for the
real one is one line. Sim parameters are the model's frozen params dataclass, validated here
with pydantic so a typo fails at load with file, line and field.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import importlib
import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pydantic
import simpy

from devices.coin_flipper import CoinFlipperParams, CoinFlipperSim
from devices.contracts import (Actuator, CoinFlipper, CrazyTimeWorldWheel, LockoutCounter, MoneyWheel, MultiplierBoard,
                               MultiplierIlluminator, PachinkoBoard, ProgressiveSystem, RouletteWheel, Telemetry,
                               TopSlot, WageringDevice)
from devices.card_shoe import CardShoeParams, CardShoeSim
from devices.ctw_wheel import CtwWheelParams, CtwWheelSim
from devices.illuminator import IlluminatorParams, IlluminatorSim
from devices.money_wheel import MoneyWheelParams, MoneyWheelSim
from devices.multiplier_board import MultiplierBoardParams, MultiplierBoardSim
from devices.pachinko import PachinkoParams, PachinkoSim
from devices.progressive import ProgressiveParams, ProgressiveTableSim
from devices.roulette_wheel import RouletteWheelParams, RouletteWheelSim
from devices.top_slot import TopSlotParams, TopSlotSim
from devices.wagering import WageringParams, WageringSim
from devices.actuator import PROGRESSIVE_SPOTS, WAGERING_SPOTS, ActuatorParams, SimActuator, Wiring
from hil.clock import DEFAULT_MAX_DRIFT_PPM, max_clock_drift
from hil.config import ConfigError, did_you_mean, dotted, parse_toml, read_text, validate
from hil.wire.supervisor import redact as redact_key
from hil.wire.url import ModbusUrl
from hil.transport.visa import CounterConfig
from hil.wire.registers import default_map, load_register_map
from rules.roulette_x import RouletteXSubmission
from rules.parsing import data_problem, describe
from rules.submission import RulesSubmission

#: The base game's device roles: a bench file must name each.
BASE_ROLES = ("wheel", "top_slot", "wagering")
#: The bonus games' device roles (§§ 690.5–690.8): a bench file that leaves one out gets its
#: SimPy model with default parameters (a lab testing a real wheel keeps simulated bonus devices).
BONUS_ROLES = ("board", "coin_flipper", "pachinko", "ctw_wheel")
#: A Roulette table's device roles (§§ 617b.4–617b.5): the ball wheel, the Roulette X illuminator and
#: the wagering device with the dealer's lock-out (the Roulette Up progressive's, § 617b.4(c)).
ROULETTE_ROLES = ("ball_wheel", "illuminator", "roulette_wagering")
#: Every role, in the order their seeds are spawned (new roles are appended: old streams unchanged).
#: A card table's: the shoe with its card reader, the progressive table game system (§ 605a.7).
CARD_ROLES = ("shoe", "progressive")
ROLES = BASE_ROLES + BONUS_ROLES + ROULETTE_ROLES + CARD_ROLES + ("actuator",)
#: The roles a game's scenarios use (only those are built for a scenario).
GAME_ROLES = {"crazy-time": BASE_ROLES + BONUS_ROLES, "roulette": ROULETTE_ROLES, "blackjack": CARD_ROLES,
              # the poker tables: the shoe (one deck) with its card reader; Crazy 4 Poker's wager
              # placement (§ 657a.7) needs no device (its progressive and bonus wagering devices are
              # not modelled: the players' requests are recorded with their instrument)
              "uth": ("shoe",), "criss-cross": ("shoe",), "crazy-4": ()}
Role = Literal["wheel", "top_slot", "wagering", "board", "coin_flipper", "pachinko", "ctw_wheel",
               "ball_wheel", "illuminator", "roulette_wagering", "shoe", "progressive", "actuator"]
#: The rig's actuator (docs/wire/actuator.md): a relay / DO module wired across the seat buttons of
#: the table's wagering role (``WAGERING_ROLE``). Not built unless the bench (or a scenario's
#: ``bench.actuator``) names it; its seed is spawned after every other role's.
ACTUATOR = "actuator"
#: the fields of ``[devices.actuator]`` (``devices.actuator.ActuatorParams``), for every kind
ACTUATOR_FIELDS = tuple(f.name for f in dataclasses.fields(ActuatorParams))
#: a game's wagering role: the device whose seat buttons the actuator presses, and its spot enum
#: the buttons a terminal of the table has, where fewer than its device's spot enum: the default
#: wiring wires only these (docs/wire/actuator.md, "Default wiring")
TABLE_SPOTS = {"crazy-time": tuple(s for s in WAGERING_SPOTS if s != "roulette-up")}
WAGERING_ROLE = {"crazy-time": ("wagering", WAGERING_SPOTS), "roulette": ("roulette_wagering", None),
                 "blackjack": ("progressive", PROGRESSIVE_SPOTS)}

#: role -> (sim model name, params dataclass)
SIM_MODELS: dict[str, tuple[str, type]] = {
    "wheel": ("money-wheel", MoneyWheelParams),
    "top_slot": ("top-slot", TopSlotParams),
    "wagering": ("wagering", WageringParams),
    "board": ("multiplier-board", MultiplierBoardParams),
    "coin_flipper": ("coin-flipper", CoinFlipperParams),
    "pachinko": ("pachinko-board", PachinkoParams),
    "ctw_wheel": ("crazy-time-world-wheel", CtwWheelParams),
    "ball_wheel": ("roulette-wheel", RouletteWheelParams),
    "illuminator": ("illuminator", IlluminatorParams),
    # the Roulette Up wagers' progressive table game system (§ 617b.4(c)); a table without a
    # progressive paytable has no meters in its overrides and gets the plain wagering device
    "roulette_wagering": ("progressive-system", ProgressiveParams),
    "shoe": ("card-shoe", CardShoeParams),
    "progressive": ("progressive-system", ProgressiveParams),
    "actuator": ("actuator", ActuatorParams),
}

DEFAULT_BENCH_RESOURCE = "data/default_bench.toml"


class DeviceConfig(pydantic.BaseModel):
    """One device role: its SimPy model (``kind = "sim"``, with ``params``), or the real device
    over Modbus (``url`` ``tcp://HOST:PORT`` or ``rtu://PATH?baudrate=N``, ``unit``,
    ``register_map``) or over the serial framed protocol (``url``: any pyserial URL). A firmware
    stub also has a ``control`` endpoint (``tcp://127.0.0.1:PORT``) through which the rig sets
    the model's parameters and fault knobs for each scenario."""

    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)

    kind: Literal["sim", "modbus", "serial"]
    model: str | None = None
    params: dict[str, Any] = {}
    url: str | None = None
    unit: int = pydantic.Field(1, ge=0, le=247)
    register_map: str = "default"
    timeout_s: float = pydantic.Field(0.5, gt=0, le=60)
    poll_period_s: float = pydantic.Field(0.002, gt=0, le=10)
    control: str | None = None
    #: the actuator's fields (role ``actuator`` only; docs/wire/actuator.md)
    pulse_s: float | None = None
    contact_delay_s: float | None = None
    contact_jitter_s: float | None = None
    match_window_s: float | None = None
    buttons: dict[str, int] | None = None

    def actuator_fields(self) -> dict[str, Any]:
        """The actuator fields the file sets."""
        return {k: getattr(self, k) for k in ACTUATOR_FIELDS if getattr(self, k) is not None}
    #: the most this device's clock may drift against the rig's (ppm); beyond it a ``clock_drift``
    #: wire fault is recorded (docs/wire/clock.md). None: the bench's ``max_clock_drift_ppm``
    max_clock_drift_ppm: float | None = pydantic.Field(None, gt=0, le=1e6)

    @pydantic.model_validator(mode="after")
    def _fields_of_kind(self) -> DeviceConfig:
        if self.kind == "sim":
            if self.url or self.control:
                raise ValueError("a sim device takes params, not url/control")
        else:
            if not self.url:
                raise ValueError(f"a {self.kind} device needs its url")
            if self.params:
                raise ValueError(f"a {self.kind} device has no sim params: its fault knobs go through "
                                 "its stub's control endpoint (scenario faults), or are the hardware's own")
        return self


class BenchConfig(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = pydantic.Field(alias="schema")
    name: str
    description: str = ""
    #: simulated seconds per wall second when any device is real (the stubs must use the same)
    time_scale: float = pydantic.Field(1.0, gt=0, le=1_000)
    devices: dict[Role, DeviceConfig]
    #: the most a real device's clock may drift against the rig's (ppm), unless its device says
    #: otherwise (docs/wire/clock.md): a crystal is within ±100, a ceramic resonator ±5,000
    max_clock_drift_ppm: float = pydantic.Field(DEFAULT_MAX_DRIFT_PPM, gt=0, le=1e6)
    #: optional instruments: ``lockout_counter`` (a VISA time-interval counter, docs/wire/visa-counter.md)
    instruments: dict[Literal["lockout_counter"], CounterConfig] = {}

    def device(self, role: str) -> DeviceConfig:
        """The role's configuration; a role the file leaves out is its default SimPy model (a lab
        testing a real roulette wheel needs no Crazy Time devices in its bench file)."""
        return self.devices.get(role) or DeviceConfig(kind="sim")

    @property
    def real_time(self) -> bool:
        return bool(self.instruments) or any(d.kind != "sim" for d in self.devices.values())


@dataclass(frozen=True)
class LoadedBench:
    config: BenchConfig
    source: str  # file path, or "embedded:<resource>"
    text: str  # the exact bytes hashed into provenance


@functools.cache
def params_adapter(role: str) -> pydantic.TypeAdapter:
    return pydantic.TypeAdapter(SIM_MODELS[role][1])


#: Bounds of a device parameter by what its name says it is (STYLE.md § 4: names carry units), for
#: the device models' params (``devices/``) and the bench's instruments: a value past them is a typo
#: (``1e30``), never a test. A duration at most 10^7 s (116 days of table time), a rate or a clock
#: error at most 10^6 per second / ppm, an amount at most 10^12 cents; the counts that size a model
#: (seats, decks, rows) at most what a table has.
MAGNITUDE_BOUNDS: tuple[tuple[str, float, str], ...] = (
    ("_s", 1e7, "s (116 days)"), ("_hz", 1e6, "Hz"), ("_rps", 1e6, "rev/s"), ("_sps", 1e6, "steps/s"),
    ("_mps", 1e6, "m/s"), ("_ppm", 1e6, "ppm"), ("_cents", 1e12, "cents"), ("seats", 64, "seats"),
    ("decks", 8, "decks"), ("rows", 64, "rows"),
)


def magnitude_problems(values: dict[str, Any]) -> list[tuple[tuple, str]]:
    """(loc, message) for each number of ``values`` (a params mapping) past its name's bound
    (``MAGNITUDE_BOUNDS``)."""
    out = []
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        for suffix, most, unit in MAGNITUDE_BOUNDS:
            if str(key).endswith(suffix) and abs(value) > most:
                out.append(((key,), f"{value!r} is past the bound of {most:,.0f} {unit} for {key}"))
                break
    return out


def _unknown(role: str, params: dict[str, Any]) -> list[str]:
    known = {f.name for f in dataclasses.fields(SIM_MODELS[role][1])}
    return [k for k in params if k not in known]


def sim_params(role: str, *layers: dict[str, Any]) -> Any:
    """The params dataclass for ``role`` from the defaults overlaid by each layer in turn."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    if unknown := _unknown(role, merged):
        known = [f.name for f in dataclasses.fields(SIM_MODELS[role][1])]
        raise ValueError(f"unknown {role} parameter(s) {unknown}{did_you_mean(unknown[0], known)}")
    return params_adapter(role).validate_python(merged)


def check_params(role: str, params: dict[str, Any]) -> list[tuple[tuple, str]]:
    """Validation errors (loc, message) of sim params for ``role``; empty when they are valid."""
    if role not in SIM_MODELS:
        return [((), f"unknown device role {role!r}{did_you_mean(role, ROLES)} (known: {', '.join(ROLES)})")]
    if unknown := _unknown(role, params):
        names = [f.name for f in dataclasses.fields(SIM_MODELS[role][1])]
        return [((k,), f"unknown parameter {k!r}{did_you_mean(str(k), names)} (known: {', '.join(names)})")
                for k in unknown]
    try:
        validated = params_adapter(role).validate_python(params)
    except pydantic.ValidationError as exc:
        return [describe(e, SIM_MODELS[role][1]) for e in exc.errors()]
    except (TypeError, KeyError, IndexError, OverflowError, MemoryError, RecursionError) as exc:
        # a params dataclass whose own checks choke on a value of the wrong kind: refused, never a traceback
        return [((), f"invalid {role} parameters: {type(exc).__name__}: {exc}")]
    values = dataclasses.asdict(validated)
    if (problem := data_problem(values)) is not None:  # 1e30 coerced to an int
        return [problem]
    return magnitude_problems({k: v for k, v in values.items() if k in params})  # as read ("1.0e30" a float)


def parse_bench(text: str, source: str) -> LoadedBench:
    data, lines = parse_toml(text, source)
    config = validate(BenchConfig, data, source, lines)
    for name, instrument in config.instruments.items():
        for loc, msg in magnitude_problems(instrument.model_dump()):
            path = ("instruments", name, *loc)
            raise ConfigError(source, lines.line(path), dotted(path), msg)
    for role, dev in config.devices.items():
        if role != ACTUATOR:
            if given := [k for k in ACTUATOR_FIELDS if getattr(dev, k) is not None]:
                raise ConfigError(source, lines.line(("devices", role, given[0])), f"devices.{role}.{given[0]}",
                                  "an actuator field: only [devices.actuator] takes it")
        else:
            if dev.params:
                raise ConfigError(source, lines.line(("devices", role, "params")), f"devices.{role}.params",
                                  "the actuator takes its fields directly (pulse_s, contact_delay_s, "
                                  "contact_jitter_s, match_window_s, buttons), not params")
            for loc, msg in check_params(role, dev.actuator_fields()):
                path = ("devices", role, *loc)
                raise ConfigError(source, lines.line(path), dotted(path), msg)
            for spots in (WAGERING_SPOTS, PROGRESSIVE_SPOTS):
                try:
                    if dev.buttons is not None and any(k.partition(":")[2] in spots for k in dev.buttons):
                        Wiring.of(spots, 8, dev.buttons)
                except ValueError as exc:
                    raise ConfigError(source, lines.line(("devices", role, "buttons")), f"devices.{role}.buttons",
                                      str(exc)) from None
            if dev.kind == "modbus":
                try:
                    ModbusUrl.parse(dev.url)
                except ValueError as exc:
                    raise ConfigError(source, lines.line(("devices", role, "url")), f"devices.{role}.url",
                                      str(exc)) from None
            continue
        if dev.kind != "sim" and (role, dev.kind) not in ADAPTERS:
            raise ConfigError(source, lines.line(("devices", role, "kind")), f"devices.{role}.kind",
                              f"no {dev.kind} protocol for {role}: kind is one of "
                              f"{', '.join(['sim'] + [k for r, k in ADAPTERS if r == role])}")
        if dev.kind == "modbus":
            try:
                ModbusUrl.parse(dev.url)
                if dev.register_map != "default":
                    load_register_map(_relative(dev.register_map, source), MAP_DEVICE[role])
            except ValueError as exc:
                raise ConfigError(source, lines.line(("devices", role, "url")), f"devices.{role}.url", str(exc)) from None
            continue
        if dev.kind == "serial":
            continue
        expected_model = SIM_MODELS[role][0]
        if dev.model not in (None, expected_model):
            raise ConfigError(source, lines.line(("devices", role, "model")), f"devices.{role}.model",
                              f"unknown sim model {dev.model!r} for {role} (expected {expected_model!r})")
        for loc, msg in check_params(role, dev.params):
            path = ("devices", role, "params", *loc)
            raise ConfigError(source, lines.line(path), dotted(path), msg)
    return LoadedBench(config, source, text)


def load_bench(path: Path | None = None) -> LoadedBench:
    """The bench file at ``path``, or the embedded default simulated bench."""
    if path is None:
        res = importlib.resources.files("hil").joinpath(DEFAULT_BENCH_RESOURCE)
        return parse_bench(res.read_text(encoding="utf-8"), f"embedded:hil/{DEFAULT_BENCH_RESOURCE}")
    return parse_bench(read_text(path), str(path))


@dataclass
class Devices:
    wheel: MoneyWheel
    top_slot: TopSlot
    wagering: WageringDevice
    board: MultiplierBoard | None = None
    coin_flipper: CoinFlipper | None = None
    pachinko: PachinkoBoard | None = None
    ctw_wheel: CrazyTimeWorldWheel | None = None
    ball_wheel: RouletteWheel | None = None
    illuminator: MultiplierIlluminator | None = None
    roulette_wagering: WageringDevice | None = None
    shoe: CardShoeSim | None = None
    progressive: ProgressiveSystem | None = None
    lockout_counter: LockoutCounter | None = None
    actuator: Actuator | None = None


def _relative(path: str, source: str) -> Path:
    """A path in a bench file is relative to the bench file's folder."""
    p = Path(path)
    return p if p.is_absolute() or source.startswith("embedded:") else Path(source).parent / p


#: role -> the device kind name of its register map and stub
MAP_DEVICE = {"wheel": "money-wheel", "top_slot": "top-slot", "wagering": "wagering",
              "board": "multiplier-board", "coin_flipper": "coin-flipper", "pachinko": "pachinko-board",
              "ctw_wheel": "crazy-time-world-wheel", "ball_wheel": "roulette-wheel", "illuminator": "illuminator",
              "roulette_wagering": "progressive-system", "progressive": "progressive-system"}
#: (role, kind) -> "module:Class" of the adapter implementing the role's Protocol
ADAPTERS = {
    ("wheel", "modbus"): "hil.adapters.modbus_money_wheel:ModbusMoneyWheel",
    ("top_slot", "modbus"): "hil.adapters.modbus_top_slot:ModbusTopSlot",
    ("wagering", "modbus"): "hil.adapters.modbus_wagering:ModbusWageringDevice",
    ("board", "modbus"): "hil.adapters.modbus_board:ModbusMultiplierBoard",
    ("coin_flipper", "modbus"): "hil.adapters.modbus_coin_flipper:ModbusCoinFlipper",
    ("pachinko", "modbus"): "hil.adapters.modbus_pachinko:ModbusPachinkoBoard",
    ("ctw_wheel", "modbus"): "hil.adapters.modbus_ctw_wheel:ModbusCtwWheel",
    ("illuminator", "modbus"): "hil.adapters.modbus_illuminator:ModbusIlluminator",
    # the Roulette Up wagers' progressive table game system (§ 617b.4(c)); at a table whose Roulette Up
    # paytable is not progressive its meter is never confirmed (docs/rules-roulette.md)
    ("roulette_wagering", "modbus"): "hil.adapters.modbus_progressive:ModbusProgressiveSystem",
    ("progressive", "modbus"): "hil.adapters.modbus_progressive:ModbusProgressiveSystem",
    ("wheel", "serial"): "hil.adapters.serial_money_wheel:SerialMoneyWheel",
    ("top_slot", "serial"): "hil.adapters.serial_top_slot:SerialTopSlot",
    ("wagering", "serial"): "hil.adapters.serial_wagering:SerialWageringDevice",
    # the vendor's line protocol (docs/wire/slingshot-roulette.md), not the project's frames
    ("ball_wheel", "serial"): "hil.adapters.serial_roulette_wheel:SlingshotRouletteWheel",
    # the rig's actuator (docs/wire/actuator.md): a Modbus DO module, a serial relay board
    ("actuator", "modbus"): "hil.adapters.actuator_modbus:ModbusActuator",
    ("actuator", "serial"): "hil.adapters.actuator_serial:SerialActuator",
}


def _need(roulette_x: RouletteXSubmission | None) -> RouletteXSubmission:
    if roulette_x is None:
        raise ValueError("the Roulette X illuminator needs the Roulette X Rules Submission")
    return roulette_x


@contextlib.contextmanager
def _refused_at_connect(role: str, dev: DeviceConfig):
    """A real device that cannot be reached at connect, or is not the device the bench says (its
    clock at another time scale), stops the run: ``hil.applicability.BenchRefused``."""
    from hil.adapters.stub_control import StubControlUnauthorised, redact
    from hil.applicability import BenchRefused
    from hil.clock import ClockRateMismatch

    try:
        yield
    except ClockRateMismatch as exc:
        raise BenchRefused("mismatch", role, f"devices.{role}: {exc}") from None
    except BenchRefused:
        raise
    except StubControlUnauthorised as exc:  # no token in the bench's control URL, or the wrong one
        raise BenchRefused("unauthorised", role, f"devices.{role}.control: {exc}") from None
    except Exception as exc:  # noqa: BLE001 — whatever stopped the connect is named, once
        from hil.adapters.stub_control import StubControlError
        from hil.transport.modbus import WireError
        from hil.transport.serial import SerialWireError

        where = redact_key(dev.url) + (f" (control {redact(dev.control)})" if dev.control else "")
        unreachable = (OSError, TimeoutError, concurrent.futures.TimeoutError, StubControlError, WireError,
                       SerialWireError)
        # a device that answered (a Modbus exception response) was reached: its connect sequence failed
        answered = isinstance(exc, WireError) and exc.kind == "exception_response"
        reached = isinstance(exc, unreachable) and not answered
        what = ("could not be reached or configured" if isinstance(exc, StubControlError)
                else "could not be reached" if reached
                else "answered its connect sequence with an exception" if answered else "failed at connect")
        raise BenchRefused("unreachable" if reached else "connect", role,
                           f"devices.{role}: the {dev.kind} device at {where} {what}: "
                           f"{str(exc) or type(exc).__name__}") from None


@dataclass
class Built:
    devices: Devices
    params: dict[str, dict[str, Any]]  # effective params per role (sim models and configured stubs)
    closers: list[Callable[[], None]]
    #: role -> what a stub's control endpoint says it is (``info``: device, time scale, clock ppm)
    stubs: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)

    def close(self) -> None:
        for close in reversed(self.closers):
            close()


def build_devices(
    env: simpy.Environment,
    bench: LoadedBench,
    overrides: dict[str, dict[str, Any]],
    rules: RulesSubmission,
    seeds: np.random.SeedSequence,
    telemetry: Telemetry,
    io: Any = None,
    roles: tuple[str, ...] = GAME_ROLES["crazy-time"],
    roulette_x: RouletteXSubmission | None = None,
) -> Built:
    """Instantiate each of ``roles``: a SimPy model, or an adapter to the real device over ``io``
    (an ``IoLoop``). A stub with a ``control`` endpoint is first configured with the scenario's
    params and fault knobs (and a seed), so a fault scenario runs the same on a stub. The
    illuminator draws from ``roulette_x`` (the Roulette X Rules Submission)."""
    cfg = bench.config
    role_seeds = dict(zip(ROLES, seeds.spawn(len(ROLES))))
    built = Built(Devices(None, None, None), {}, [])  # type: ignore[arg-type]
    try:
        for role in roles:
            dev = cfg.device(role)
            if dev.kind == "sim":
                p = sim_params(role, dev.params, overrides.get(role, {}))
                rng = np.random.Generator(np.random.PCG64(role_seeds[role]))
                if role == "roulette_wagering" and "meters" not in {**dev.params, **overrides.get(role, {})}:
                    p = p.wagering  # no progressive paytable: the plain wagering device (docs/rules-roulette.md)
                model = {"wheel": lambda: MoneyWheelSim(env, p, rng, telemetry, name=role),
                         "top_slot": lambda: TopSlotSim(env, p, rules.top_slot, rng, telemetry, name=role),
                         "wagering": lambda: WageringSim(env, p, rng, telemetry, name=role),
                         "board": lambda: MultiplierBoardSim(env, p, rules, rng, telemetry, name=role),
                         "coin_flipper": lambda: CoinFlipperSim(env, p, rng, telemetry, name=role),
                         "pachinko": lambda: PachinkoSim(env, p, rng, telemetry, name=role),
                         "ctw_wheel": lambda: CtwWheelSim(env, p, rng, telemetry, name=role),
                         "ball_wheel": lambda: RouletteWheelSim(env, p, rng, telemetry, name=role),
                         "illuminator": lambda: IlluminatorSim(env, p, _need(roulette_x), None, rng, telemetry,
                                                               name=role),
                         "roulette_wagering": lambda: (ProgressiveTableSim(env, p, rng, telemetry, name=role)
                                                       if isinstance(p, ProgressiveParams)
                                                       else WageringSim(env, p, rng, telemetry, name=role)),
                         "shoe": lambda: CardShoeSim(env, p, rng, telemetry, name=role),
                         "progressive": lambda: ProgressiveTableSim(env, p, rng, telemetry, name=role)}[role]()
                setattr(built.devices, role, model)
                built.params[role] = dataclasses.asdict(p)
                continue
            with _refused_at_connect(role, dev):  # unreachable / mismatched: hil.applicability.BenchRefused
                if dev.control:
                    from hil.adapters.stub_control import configure_stub, stub_info

                    ss = role_seeds[role]  # the stub's model draws exactly what the SimPy model would
                    seed = {"entropy": ss.entropy, "spawn_key": list(ss.spawn_key)}
                    stub_rules = _need(roulette_x) if role == "illuminator" else rules
                    built.params[role] = configure_stub(dev.control, overrides.get(role, {}), seed, stub_rules)
                    built.stubs[role] = stub_info(dev.control)
                else:
                    built.params[role] = {"kind": dev.kind, "url": redact_key(dev.url)}  # the trace never holds a key
                module, cls = ADAPTERS[(role, dev.kind)].split(":")
                adapter_cls = getattr(importlib.import_module(module), cls)
                with max_clock_drift(dev.max_clock_drift_ppm or cfg.max_clock_drift_ppm):
                    if dev.kind == "modbus":
                        rmap = (default_map(MAP_DEVICE[role]) if dev.register_map == "default"
                                else load_register_map(_relative(dev.register_map, bench.source), MAP_DEVICE[role]))
                        adapter = adapter_cls(env, io, dev.url, dev.unit, rmap, telemetry, role, dev.timeout_s,
                                              dev.poll_period_s)
                    else:
                        adapter = adapter_cls(env, io, dev.url, telemetry, role, dev.timeout_s)
            setattr(built.devices, role, adapter)
            built.closers.append(adapter.close)
        if ACTUATOR in cfg.devices or ACTUATOR in overrides:
            built.devices.actuator = _build_actuator(env, bench, overrides.get(ACTUATOR, {}), built, roles,
                                                     role_seeds[ACTUATOR], telemetry, io)
        if (counter_cfg := cfg.instruments.get("lockout_counter")) is not None:
            from hil.adapters.visa_counter import VisaLockoutCounter

            built.devices.lockout_counter = VisaLockoutCounter(env, io, counter_cfg, telemetry)
            built.closers.append(built.devices.lockout_counter.close)
    except BaseException:
        built.close()
        raise
    return built


class BenchError(ValueError):
    """A bench that cannot run this scenario (exit 2 with the message)."""


def _build_actuator(env, bench: LoadedBench, override: dict[str, Any], built: Built, roles: tuple[str, ...],
                    seed: np.random.SeedSequence, telemetry: Telemetry, io: Any) -> Actuator:
    """The actuator, wired across the seat buttons of the table's wagering role (``roles`` tell the
    game): the bench's ``[devices.actuator]`` fields overlaid by the scenario's ``bench.actuator``."""
    dev = bench.config.device(ACTUATOR)
    game = next((g for g, r in GAME_ROLES.items() if r == roles), None)
    role, spots = WAGERING_ROLE.get(game, (None, None))
    if role is None:
        raise BenchError(f"devices.actuator: a {game} table has no wagering device whose buttons it could press")
    target = getattr(built.devices, role)
    if spots is None:  # the Roulette table's: a progressive system, or the plain wagering device
        spots = PROGRESSIVE_SPOTS if hasattr(target, "confirm_wagers") else WAGERING_SPOTS
    p = sim_params(ACTUATOR, dev.actuator_fields(), override)
    seats = int(getattr(getattr(target, "params", None), "seats", 0) or getattr(target, "seats", 0) or 8)
    # the default wiring: only the buttons a terminal of this table has (GAPS.md B6)
    wiring = Wiring.of(spots, seats, p.buttons, TABLE_SPOTS.get(game))
    built.params[ACTUATOR] = {**dataclasses.asdict(p), "kind": dev.kind, "wired_to": role}
    if dev.kind == "sim":
        if not hasattr(target, "button"):
            raise BenchError(f"devices.actuator: a sim actuator presses a simulated device's buttons; "
                             f"devices.{role} is {bench.config.device(role).kind}")
        return SimActuator(env, p, wiring, target, np.random.Generator(np.random.PCG64(seed)), telemetry)
    module, cls = ADAPTERS[(ACTUATOR, dev.kind)].split(":")
    adapter = getattr(importlib.import_module(module), cls)(env, io, dev, p, wiring, telemetry)
    built.closers.append(adapter.close)
    return adapter
