"""Modbus register maps: where each device keeps each value, and how it is encoded.

A register map is versioned TOML data (STYLE.md § 2), not code: a vendor whose device uses
other addresses writes their own file and names it in the bench (``register_map = "path"``).
The rig's adapters and the firmware stubs read the same map, so a map describes the encoding
completely: table, 0-based protocol address, type, array length, scale, byte and word order.

Values: ``bool`` in the bit tables (coils, discrete inputs); in the register tables an ``int``,
a ``float`` (``float32``, ``float64``, or any point with ``scale`` > 1: stored = round(value × scale)),
or for ``enum16`` the label (``str``). A point with ``count`` > 1 holds a list of ``count`` values.

Two kinds of device: *spinning* devices (money wheel, Top Slot) are commanded and then report a
live status; *command* devices (the bonus games' multiplier board, coin flipper, Pachinko board,
Crazy Time World wheel; Roulette X's multiplier illuminator) answer each command with one result.
``REQUIRED`` names exactly the points the rig's adapters touch (tests/wire/test_wire_registers_required.py
proves it); ``FEATURES`` names optional groups a map has whole or not at all (the wagering devices'
``injection``: press injection and the armed probe), which ``RegisterMap.features`` reports.
Every command device has the same
core (``REQUIRED``, from ``_commanded``): ``command`` + arguments + ``command_seq`` in one write, then ``state``,
``op_id``, and the result block of the last completed operation (``result_op_id``,
``result_command``, ``result_stop_ns``); see ``hil.adapters.modbus_command``.
"""

from __future__ import annotations

import functools
import importlib.resources
import itertools
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, NamedTuple

import pydantic
from pymodbus.client.mixin import ModbusClientMixin

from hil.config import ConfigError, dotted, parse_toml, read_text
from rules.crazy_time import SPOTS

Device = Literal["money-wheel", "top-slot", "wagering", "multiplier-board", "coin-flipper", "pachinko-board",
                 "crazy-time-world-wheel", "illuminator", "progressive-system"]
Table = Literal["coil", "discrete", "holding", "input"]
PointType = Literal["bool", "uint16", "int16", "uint32", "int32", "uint64", "float32", "float64", "enum16"]
Access = Literal["r", "rw", "w"]
Scalar = bool | int | float | str
Value = Scalar | list[Scalar]

BIT_TABLES: frozenset[Table] = frozenset({"coil", "discrete"})
READ_ONLY_TABLES: frozenset[Table] = frozenset({"discrete", "input"})
#: Registers per element of each type (bits for ``bool``).
WIDTH: dict[PointType, int] = {"bool": 1, "uint16": 1, "int16": 1, "enum16": 1,
                               "uint32": 2, "int32": 2, "float32": 2, "uint64": 4, "float64": 4}
SCALABLE: frozenset[PointType] = frozenset({"uint16", "int16", "uint32", "int32"})
#: Most a single request may carry: FC16 writes 123 registers, FC3/FC4 read 125; FC15 writes
#: 1968 coils, FC1/FC2 read 2000 bits. A point must fit one write, so it is read and written whole.
MAX_POINT_SPAN = {"bits": 1968, "registers": 123}
MAX_READ = {"bits": 2000, "registers": 125}

_DT = ModbusClientMixin.DATATYPE
_DATATYPE = {"uint16": _DT.UINT16, "int16": _DT.INT16, "enum16": _DT.UINT16, "uint32": _DT.UINT32,
             "int32": _DT.INT32, "uint64": _DT.UINT64, "float32": _DT.FLOAT32, "float64": _DT.FLOAT64}
_MAP_FILES: dict[Device, str] = {"money-wheel": "money_wheel.toml", "top-slot": "top_slot.toml",
                                 "wagering": "wagering.toml", "multiplier-board": "multiplier_board.toml",
                                 "coin-flipper": "coin_flipper.toml", "pachinko-board": "pachinko_board.toml",
                                 "crazy-time-world-wheel": "ctw_wheel.toml", "illuminator": "illuminator.toml",
                                 "progressive-system": "progressive_system.toml"}


class _FieldError(ValueError):
    """A validation error that knows the field it is about (relative to the model raising it)."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


class Point(pydantic.BaseModel):
    """One named value (or array of ``count`` values) at ``address`` in ``table``."""

    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)

    name: str = pydantic.Field(pattern=r"^[a-z][a-z0-9_]*$")
    table: Table
    address: int = pydantic.Field(ge=0, le=65535)
    type: PointType
    count: int = pydantic.Field(1, ge=1)
    unit: str = ""
    scale: int = pydantic.Field(1, ge=1)
    access: Access = "r"
    enum: dict[int, str] | None = None
    description: str = ""

    @property
    def bits(self) -> bool:
        return self.table in BIT_TABLES

    @property
    def span(self) -> int:
        """Registers (bits in a bit table) the point occupies."""
        return WIDTH[self.type] * self.count

    @property
    def end(self) -> int:
        """One past the last address."""
        return self.address + self.span

    @cached_property
    def codes(self) -> dict[str, int]:
        """``enum`` reversed: label -> code."""
        return {label: code for code, label in (self.enum or {}).items()}

    @pydantic.model_validator(mode="after")
    def _consistent(self) -> Point:
        if (self.type == "bool") != self.bits:
            raise _FieldError(("type",), f"type {self.type!r} is not allowed in the {self.table} table "
                              f"({'only bool' if self.bits else 'bool is for coils and discrete inputs'})")
        if self.table in READ_ONLY_TABLES and self.access != "r":
            raise _FieldError(("access",), f"the {self.table} table is read-only: access must be 'r'")
        if (self.enum is not None) != (self.type == "enum16"):
            raise _FieldError(("enum",), "enum16 needs an enum table" if self.enum is None
                              else f"enum is only for enum16, not {self.type}")
        if self.enum is not None:
            if bad := [c for c in self.enum if not 0 <= c <= 65535]:
                raise _FieldError(("enum",), f"codes {bad} are outside 0..65535")
            if len(set(self.enum.values())) != len(self.enum):
                raise _FieldError(("enum",), "labels must be unique")
        if self.scale != 1 and self.type not in SCALABLE:
            raise _FieldError(("scale",), f"scale is for {', '.join(sorted(SCALABLE))}, not {self.type}")
        kind = "bits" if self.bits else "registers"
        if self.span > MAX_POINT_SPAN[kind]:
            raise _FieldError(("count",), f"spans {self.span} {kind}: more than one request carries "
                              f"({MAX_POINT_SPAN[kind]})")
        if self.end > 65536:
            raise _FieldError(("address",), f"ends at {self.end - 1}, past the last address 65535")
        return self


class Need(NamedTuple):
    """What the rig needs of a required point: a bit or a register, the access, enum labels."""

    bits: bool
    access: Access = "r"
    labels: tuple[str, ...] = ()


_STATE = ("idle", "spinning", "at_rest", "fault")
_SPOTS = tuple(str(s) for s in SPOTS)
_R, _BIT = Need(bits=False), Need(bits=True)
#: ``state`` of a command device: ``busy`` from accepting a command until its result is shown
#: (``result_op_id`` == ``op_id``: ``done``).
COMMAND_STATE = ("idle", "busy", "done", "fault")


def _commanded(commands: tuple[str, ...], start: bool, **points: Need) -> dict[str, Need]:
    """The points of a command device: the shared core, a start report (``op_start_ns``,
    ``result_start_ns``) for a device whose operation starts after the command (a launch, a
    release, a spin), and the device's own arguments and result fields."""
    core = {
        "command": Need(False, "rw", ("none", *commands)), "command_seq": Need(False, "rw"),
        "state": Need(False, "r", COMMAND_STATE), "op_id": _R, "result_op_id": _R,
        "result_command": Need(False, "r", commands), "result_stop_ns": _R, "device_clock_ns": _R,
    }
    if start:
        core |= {"op_start_ns": _R, "result_start_ns": _R}
    return core | points


_GAMES = ("coin-flip", "cash-hunt", "pachinko", "crazy-time")
_PURPOSES = ("shuffle", "drop_zone", "auto_pick", "rescue")
_FACES = ("red", "blue")
#: the progressive wagers a progressive-system map must be able to carry (a vendor's may add more)
_PROGRESSIVE_SPOTS = ("progressive",)

#: Meters a progressive-system map carries (its per-meter arrays and wager-log columns): up to 4.
PROGRESSIVE_METERS = 4


def _press_log(spots: tuple[str, ...], reasons: tuple[str, ...]) -> dict[str, Need]:
    """The press log of a wagering device (a ring of every answered press, read when ``press_count`` moved)."""
    return {"press_log_id": _R, "press_log_seat": _R, "press_log_spot": Need(False, "r", spots),
            "press_log_stake_cents": _R, "press_log_status": Need(False, "r", ("none", "accepted", "rejected")),
            "press_log_reason": Need(False, "r", reasons), "press_log_press_ns": _R, "press_log_answer_ns": _R}


def _injection(spots: tuple[str, ...]) -> dict[str, Need]:
    """The injection feature of a wagering device: the rig asks the device itself to press a seat
    (``press_inject_*``) and to press at device-timed offsets after the lock-out (the armed probe,
    ``probe_*``). A test-mode shortcut for firmware developers who have it; a device without it is
    pressed through the bench's actuator (docs/wire/actuator.md)."""
    return {"press_inject_seat": Need(False, "rw"), "press_inject_spot": Need(False, "rw", spots),
            "press_inject_stake_cents": Need(False, "rw"), "press_inject_seq": Need(False, "rw"),
            "probe_seat": Need(False, "rw"), "probe_spot": Need(False, "rw", spots),
            "probe_stake_cents": Need(False, "rw"), "probe_count": Need(False, "rw"),
            "probe_offsets_us": Need(False, "rw"), "probe_arm_seq": Need(False, "rw")}


#: The dealer's next round (docs/wire/modbus-wagering.md, "Opening a round"): one FC16 write of a new
#: ``round_open_seq`` with the device's supervisor key — the only way betting opens. (Coil
#: ``betting_open`` — read-only, what the device shows — is the rig's no more: a map may keep it.)
_ROUND_OPEN = {"round_open_seq": Need(False, "rw"), "round_open_key": Need(False, "rw")}


#: The points each device kind must have; a vendor map may add more, and may give enums more labels.
REQUIRED: dict[Device, dict[str, Need]] = {
    "money-wheel": {
        "command": Need(False, "rw", ("none", "spin_cw", "spin_ccw")), "command_seq": Need(False, "rw"),
        "state": Need(False, "r", _STATE), "spin_id": _R, "revolution_count": _R, "peg_count": _R,
        "section_index": _R, "on_peg": _BIT, "direction": Need(False, "r", ("cw", "ccw")),
        "revolutions": _R, "pegs_passed": _R, "spin_start_ns": _R, "last_pulse_ns": _R, "stop_ns": _R,
        "device_clock_ns": _R, "duration_us": _R, "diameter_mm": _R, "section_count": _R,
        "sections": Need(False, "r", _SPOTS),
    },
    "top-slot": {
        "command": Need(False, "rw", ("none", "spin")), "command_seq": Need(False, "rw"),
        "state": Need(False, "r", _STATE), "spin_id": _R, "spot": Need(False, "r", _SPOTS),
        "multiplier": _R, "aligned": _BIT, "reel1_steps": _R, "reel2_steps": _R, "start_ns": _R,
        "stop_ns": _R, "device_clock_ns": _R,
    },
    # what the wagering adapter polls: the counters, the press log (every answered press, whoever
    # pressed); ``seat_last_*`` (a per-seat summary some maps carry) is never read
    "wagering": {
        "lockout": Need(True, "rw"), **_ROUND_OPEN,
        "seats": _R, "lockout_command_ns": _R, "press_count": _R, "device_clock_ns": _R,
        **_press_log(_SPOTS, ("none", "locked_out", "betting_closed", "invalid_seat", "invalid_stake")),
    },
    "multiplier-board": _commanded(
        ("generate", "apply_multiplier", "shuffle", "draw", "rescue"), False,
        arg_game=Need(False, "rw", _GAMES), arg_board_id=Need(False, "rw"), arg_multiplier=Need(False, "rw"),
        arg_purpose=Need(False, "rw", ("drop_zone", "auto_pick")), arg_n=Need(False, "rw"),
        result_board_id=_R, result_game=Need(False, "r", _GAMES), result_multiplier=_R,
        result_purpose=Need(False, "r", _PURPOSES), result_n=_R, result_value=_R, result_cells=_R,
        result_time_ns=_R, result_values=_R, result_permutation=_R),
    "coin-flipper": _commanded(
        ("flip",), True, result_face=Need(False, "r", _FACES), result_start_face=Need(False, "r", _FACES),
        result_half_turns=_R, result_launch_speed_mps=_R, result_spin_rate_rps=_R),
    "pachinko-board": _commanded(
        ("drop",), True, arg_zone=Need(False, "rw"), op_zone=_R, result_zone=_R, result_spot=_R,
        result_rows=_R, result_path=_R, rows=_R, spots=_R),
    "crazy-time-world-wheel": _commanded(
        ("spin",), True, result_sections=_R, result_turns=_R, section_count=_R, clappers=_R),
    "illuminator": _commanded(
        ("illuminate",), False, result_count=_R, result_numbers=_R, result_multipliers=_R, result_time_ns=_R,
        wheel=Need(False, "r", ("single-zero", "double-zero")), paytable=Need(False, "r", ("A", "B")),
        paytable_multipliers=_R),
    # the wagering map's lock-out and press log, with win lights, meters, a pay command,
    # the confirm command and its wager log, link and power-loss status (docs/wire/modbus-progressive-system.md)
    "progressive-system": {
        "lockout": Need(True, "rw"), **_ROUND_OPEN, "win_light": _BIT,
        "pay_meter": Need(False, "rw"), "pay_percent": Need(False, "rw"), "pay_winners": Need(False, "rw"),
        "pay_seq": Need(False, "rw"), "pay_key": Need(False, "rw"),
        # the win lights change only by the keyed command (a lit light names a winner to be paid)
        "win_light_seat": Need(False, "rw"), "win_light_on": Need(False, "rw"), "win_light_seq": Need(False, "rw"),
        "win_light_key": Need(False, "rw"),
        "seats": _R, "press_count": _R, "lockout_command_ns": _R, "device_clock_ns": _R,
        "link_state": Need(False, "r", ("up", "lost")), "link_lost_count": _R, "link_restored_count": _R,
        "link_lost_ns": _R, "link_restored_ns": _R, "power_loss_count": _R, "power_loss_ns": _R, "win_light_ns": _R,
        "meter_value_cents": _R, "link_restored_meter_cents": _R, "pay_count": _R, "pay_result_meter": _R,
        "pay_result_percent": _R, "pay_result_winners": _R, "pay_result_jackpot_cents": _R,
        "pay_result_paid_cents": _R, "pay_result_remainder_cents": _R, "pay_result_reseed_cents": _R,
        "pay_result_value_cents": _R, "pay_result_reserve_cents": _R, "pay_result_ns": _R,
        **_press_log(_PROGRESSIVE_SPOTS, ("none", "locked_out", "betting_closed", "invalid_seat", "invalid_stake",
                                          "link_lost")),
        # the dealer's confirmation of the round's wagers: only confirmed presses increment the meters
        "confirm_count": Need(False, "rw"), "confirm_press_ids": Need(False, "rw"),
        "confirm_final": Need(False, "rw", ("more", "final")), "confirm_seq": Need(False, "rw"),
        "confirm_key": Need(False, "rw"),
        "wager_count": _R, "wager_log_id": _R, "wager_log_press_id": _R,
        "wager_log_outcome": Need(False, "r", ("none", "confirmed", "void", "refused")),
        "wager_log_reason": Need(False, "r", ("none", "not_confirmed")), "wager_log_ns": _R,
        "wager_log_increment_mask": _R,
        # one increment and one value column per meter the arrays hold (the adapter reads the declared ones)
        **{f"wager_log_meter{k}_{f}_cents": _R for k in range(1, PROGRESSIVE_METERS + 1) for f in ("increment", "value")},
        "meter_count": _R, "meter_names": _R, "meter_seed_cents": _R, "meter_reseed_cents": _R,
        "meter_increment_num": _R, "meter_increment_den": _R, "meter_reserve_num": _R, "meter_reserve_den": _R,
        "meter_reseed_source": Need(False, "r", ("fixed", "reserve")),
        "linked": Need(False, "r", ("standalone", "linked")), "link_id": _R,
    },
}
#: The press-injection and armed-probe feature (``_injection``).
INJECTION = "injection"
#: The stake a press of each seat's physical buttons wagers (``seat_button_stake_cents``: the
#: device's own configuration, read at connect into ``device_info``; docs/wire/actuator.md).
BUTTON_STAKES = "button_stakes"
#: The table's stake limits the device enforces (``stake_min_cents``, ``stake_max_cents``: read at
#: connect into ``device_info``; docs/wire/modbus-wagering.md, "Stake limits").
STAKE_LIMITS = "stake_limits"
#: Optional feature groups: a map has every point of a group (the feature) or none of them (a
#: device without it); ``RegisterMap.features`` names the groups a map has, and the rig touches a
#: group's points only when the map has it. Together with ``REQUIRED`` these are every point an
#: adapter can touch (tests/wire/test_wire_registers_required.py proves it).
FEATURES: dict[Device, dict[str, dict[str, Need]]] = {
    "wagering": {INJECTION: _injection(_SPOTS), BUTTON_STAKES: {"seat_button_stake_cents": _R},
                 STAKE_LIMITS: {"stake_min_cents": _R, "stake_max_cents": _R}},
    "progressive-system": {INJECTION: _injection(_PROGRESSIVE_SPOTS), BUTTON_STAKES: {"seat_button_stake_cents": _R},
                           STAKE_LIMITS: {"stake_min_cents": _R, "stake_max_cents": _R}},
}


def known_points(device: Device) -> dict[str, Need]:
    """Every point the rig may touch on a ``device``: ``REQUIRED`` and every feature's."""
    out = dict(REQUIRED[device])
    for group in FEATURES.get(device, {}).values():
        out |= group
    return out


#: How the illuminator's ``result_numbers`` carry a Roulette pocket: 0..36 as themselves, "00" as 37.
DOUBLE_ZERO_CODE = 37


def pocket_code(pocket: int | str) -> int:
    """A pocket as a register value (``DOUBLE_ZERO_CODE`` for "00")."""
    return DOUBLE_ZERO_CODE if pocket == "00" else int(pocket)


def code_pocket(code: int) -> int | str | None:
    """The pocket a register value stands for; None for a value that is none."""
    if 0 <= code <= 36:
        return code
    return "00" if code == DOUBLE_ZERO_CODE else None


def ascii_words(text: str | None, registers: int) -> list[int]:
    """A name as ``registers`` registers (the progressive system's ``meter_names``, ``link_id``):
    ASCII, two characters per register (the first in the high byte), NUL-padded. ValueError for
    text that is not ASCII or does not fit."""
    text = text or ""
    if not text.isascii() or "\0" in text or len(text) > 2 * registers:
        raise ValueError(f"{text!r} must be at most {2 * registers} ASCII characters")
    raw = text.encode("ascii").ljust(2 * registers, b"\0")
    return [(raw[i] << 8) | raw[i + 1] for i in range(0, len(raw), 2)]


def words_ascii(words: Sequence[int]) -> str:
    """The name ``ascii_words`` stored (trailing NULs dropped); ValueError for bytes that are not ASCII."""
    try:
        return bytes(b for w in words for b in (w >> 8, w & 0xFF)).rstrip(b"\0").decode("ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not an ASCII name: {exc}") from None


#: The command devices (``hil.adapters.modbus_command``).
COMMAND_DEVICES: tuple[Device, ...] = ("multiplier-board", "coin-flipper", "pachinko-board", "crazy-time-world-wheel",
                                       "illuminator")


@dataclass(frozen=True)
class ReadBlock:
    """One read request: ``count`` registers (bits) of ``table`` from ``start``, covering ``points``."""

    table: Table
    start: int
    count: int
    points: tuple[str, ...]


def _swap_bytes(words: Iterable[int]) -> list[int]:
    return [((w & 0xFF) << 8) | (w >> 8) for w in words]


class RegisterMap(pydantic.BaseModel):
    """A device's register map (``schema = 1``)."""

    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = pydantic.Field(alias="schema")
    device: Device
    name: str
    description: str = ""
    byte_order: Literal["big", "little"] = "big"
    word_order: Literal["big", "little"] = "big"
    points: tuple[Point, ...]

    @pydantic.model_validator(mode="after")
    def _layout(self) -> RegisterMap:
        seen: dict[str, int] = {}
        by_table: dict[Table, list[tuple[int, Point]]] = {}
        for i, p in enumerate(self.points):
            if p.name in seen:
                raise _FieldError(("points", i, "name"),
                                  f"duplicate point name {p.name!r} (also points.{seen[p.name]})")
            seen[p.name] = i
            by_table.setdefault(p.table, []).append((i, p))
        for entries in by_table.values():
            entries.sort(key=lambda e: e[1].address)
            for (_, a), (j, b) in itertools.pairwise(entries):
                if b.address < a.end:
                    raise _FieldError(("points", j, "address"), f"{b.name!r} ({b.table} {b.address}..{b.end - 1}) "
                                      f"overlaps {a.name!r} ({a.address}..{a.end - 1})")
        required = dict(REQUIRED[self.device])
        if missing := [n for n in required if n not in seen]:
            raise _FieldError(("points",), f"a {self.device} map needs point(s) {', '.join(missing)}")
        for feature, group in FEATURES.get(self.device, {}).items():
            present = [n for n in group if n in seen]
            if present and (lacking := [n for n in group if n not in seen]):
                raise _FieldError(("points", seen[present[0]], "name"),
                                  f"the {feature!r} feature is all or nothing: the map has {', '.join(present)} "
                                  f"but not {', '.join(lacking)}")
            if present:
                required |= group
        for name, need in required.items():
            i, p = seen[name], self.points[seen[name]]
            if p.bits != need.bits:
                raise _FieldError(("points", i, "table"), f"{name!r} must be in a "
                                  f"{'bit table (coil, discrete)' if need.bits else 'register table (holding, input)'}")
            if not set(need.access) <= set(p.access):
                raise _FieldError(("points", i, "access"), f"the rig needs access {need.access!r} to {name!r}")
            if lacking := [x for x in need.labels if x not in p.codes]:
                raise _FieldError(("points", i, "enum"), f"{name!r} must be enum16 with labels {lacking}")
        return self

    @cached_property
    def _index(self) -> dict[str, Point]:
        return {p.name: p for p in self.points}

    @cached_property
    def features(self) -> frozenset[str]:
        """The optional feature groups (``FEATURES``) this map has, e.g. ``{"injection"}``."""
        names = {p.name for p in self.points}
        return frozenset(f for f, group in FEATURES.get(self.device, {}).items() if set(group) <= names)

    def has(self, name: str) -> bool:
        """Does the map have the point ``name``?"""
        return name in self._index

    def without_features(self, *features: str) -> RegisterMap:
        """This map with every point of the optional feature groups ``features`` dropped (a device
        that lacks them); ``ValueError`` for a feature this kind of device does not have."""
        groups = FEATURES.get(self.device, {})
        if unknown := [f for f in features if f not in groups]:
            raise ValueError(f"a {self.device} map has no optional feature {', '.join(unknown)} "
                             f"(features: {', '.join(groups) or 'none'})")
        drop = {n for f in features for n in groups[f]}
        return RegisterMap.model_validate({**self.model_dump(by_alias=True),
                                           "points": [p.model_dump() for p in self.points if p.name not in drop]})

    def point(self, name: str | Point) -> Point:
        """The point named ``name`` (a ``Point`` passes through)."""
        if isinstance(name, Point):
            return name
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"{self.name}: no point {name!r}") from None

    def width(self, point: str | Point) -> int:
        """Registers per element of ``point`` (1 for a bit)."""
        return WIDTH[self.point(point).type]

    # ------------------------------------------------------------------ encoding
    def encode(self, point: str | Point, value: Value) -> list[int] | list[bool]:
        """``value`` (a list of ``count`` values when ``count`` > 1) as the point's registers or bits."""
        p = self.point(point)
        items = list(value) if p.count > 1 and isinstance(value, list | tuple) else [value]
        if len(items) != p.count:
            raise ValueError(f"{p.name}: expected {p.count} values, got {len(items)}")
        if p.bits:
            if any(not isinstance(v, bool | int) or v not in (0, 1) for v in items):
                raise ValueError(f"{p.name}: bits must be bool, got {value!r}")
            return [bool(v) for v in items]
        try:
            raw = [self._raw(p, v) for v in items]
            words = ModbusClientMixin.convert_to_registers(raw, _DATATYPE[p.type], self.word_order)
        except (struct.error, OverflowError, TypeError) as exc:
            raise ValueError(f"{p.name}: {value!r} does not fit {p.type} (scale {p.scale}): {exc}") from None
        return words if self.byte_order == "big" else _swap_bytes(words)

    def decode(self, point: str | Point, words: Sequence[int] | Sequence[bool]) -> Value:
        """The point's value(s) from exactly its ``span`` registers (or bits)."""
        p = self.point(point)
        if len(words) != p.span:
            raise ValueError(f"{p.name}: expected {p.span} {'bits' if p.bits else 'registers'}, got {len(words)}")
        if p.bits:
            items: list[Scalar] = [bool(w) for w in words]
        else:
            regs = list(words) if self.byte_order == "big" else _swap_bytes(words)
            raw = ModbusClientMixin.convert_from_registers(regs, _DATATYPE[p.type], self.word_order)
            items = [self._value(p, r) for r in (raw if isinstance(raw, list) else [raw])]
        return items if p.count > 1 else items[0]

    @staticmethod
    def _raw(p: Point, v: Any) -> int | float:
        if p.enum is not None:
            if v not in p.codes:
                raise ValueError(f"{p.name}: {v!r} is not one of {sorted(p.codes)}")
            return p.codes[v]
        return round(v * p.scale) if p.scale != 1 else v

    @staticmethod
    def _value(p: Point, raw: Any) -> Scalar:
        if p.enum is not None:
            if raw not in p.enum:
                raise ValueError(f"{p.name}: code {raw} is not in its enum {p.enum}")
            return p.enum[raw]
        return raw / p.scale if p.scale != 1 else raw

    # ------------------------------------------------------------------ polling
    def read_blocks(self, names: Iterable[str] | None = None, *, max_gap: int = 0) -> list[ReadBlock]:
        """Few contiguous reads that cover ``names`` (default: every readable point).

        Neighbouring points share a read when the addresses between them belong to readable
        points of the map, or when the hole is at most ``max_gap`` addresses: a device may
        answer a read of an undefined address with exception 2, so holes are read only on request.
        """
        wanted = sorted({self.point(n).name for n in names} if names is not None else
                        {p.name for p in self.points if "r" in p.access},
                        key=lambda n: (self._index[n].table, self._index[n].address))
        if unreadable := [n for n in wanted if "r" not in self._index[n].access]:
            raise ValueError(f"{self.name}: write-only point(s) {unreadable} cannot be read")
        readable = {(p.table, a) for p in self.points if "r" in p.access for a in range(p.address, p.end)}
        blocks: list[ReadBlock] = []
        for name in wanted:
            p = self._index[name]
            if blocks and (b := blocks[-1]).table == p.table:
                gap = range(b.start + b.count, p.address)
                end = max(b.start + b.count, p.end)
                limit = MAX_READ["bits" if p.bits else "registers"]
                if end - b.start <= limit and (len(gap) <= max_gap or all((p.table, a) in readable for a in gap)):
                    blocks[-1] = ReadBlock(p.table, b.start, end - b.start, (*b.points, name))
                    continue
            blocks.append(ReadBlock(p.table, p.address, p.span, (name,)))
        return blocks

    def decode_block(self, block: ReadBlock, words: Sequence[int] | Sequence[bool]) -> dict[str, Value]:
        """The values of ``block.points`` from the answer to ``block`` (bit answers may be padded)."""
        if len(words) < block.count:
            raise ValueError(f"{self.name}: the {block.table} block at {block.start} needs {block.count} words, "
                             f"got {len(words)}")
        out = {}
        for name in block.points:
            p = self._index[name]
            out[name] = self.decode(p, words[p.address - block.start:p.end - block.start])
        return out


# ---------------------------------------------------------------------- loading
class _MapLines:
    """Line lookup for a map file: understands ``[[points]]`` (the i-th header is ``points.i``)."""

    def __init__(self, text: str, fallback: Any) -> None:
        self.lines, self.fallback = text.splitlines(), fallback
        self.headers = [i for i, raw in enumerate(self.lines) if raw.strip() == "[[points]]"]

    def line(self, loc: Sequence[Any]) -> int | None:
        if loc[:1] != ("points",) or not self.headers:
            return self.fallback.line(loc)
        if len(loc) == 1 or not isinstance(loc[1], int) or loc[1] >= len(self.headers):
            return self.headers[0] + 1
        start = self.headers[loc[1]]
        if len(loc) > 2:
            for i in range(start + 1, len(self.lines)):
                stripped = self.lines[i].strip()
                if stripped.startswith("["):
                    break
                if stripped.split("=", 1)[0].strip().strip('"') == str(loc[2]):
                    return i + 1
        return start + 1


def parse_register_map(text: str, source: str, device: Device | None = None) -> RegisterMap:
    """The register map in TOML ``text``; a bad map raises ``ConfigError`` (file, line, field).
    With ``device``, a map for another kind of device is an error too.

    Not ``hil.config.validate``: that names the model's location, and the cross-point checks
    (overlap, required points) would all be reported at the top of the file. A ``_FieldError``
    carries the field it is about, e.g. ``points.5.address``."""
    data, toml_lines = parse_toml(text, source)
    lines = _MapLines(text, toml_lines)
    try:
        rmap = RegisterMap.model_validate(data)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        loc, msg = tuple(err["loc"]), err["msg"]
        if isinstance(cause := err.get("ctx", {}).get("error"), _FieldError):
            loc, msg = loc + cause.loc, str(cause)
        raise ConfigError(source, lines.line(loc), dotted(loc), msg) from None
    if device is not None and rmap.device != device:
        raise ConfigError(source, lines.line(("device",)), "device", f"a {rmap.device} map, expected {device}")
    return rmap


def load_register_map(path: str | Path, device: Device | None = None) -> RegisterMap:
    """The register map file at ``path`` (see ``parse_register_map``)."""
    return parse_register_map(read_text(Path(path)), str(path), device)


@functools.cache
def default_map(device: Device) -> RegisterMap:
    """The map shipped with Croupier for ``device`` (``hil/wire/maps/``)."""
    res = importlib.resources.files("hil.wire").joinpath(f"maps/{_MAP_FILES[device]}")
    return parse_register_map(res.read_text(encoding="utf-8"), f"embedded:hil/wire/maps/{_MAP_FILES[device]}", device)
