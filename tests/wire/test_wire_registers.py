"""Register maps: the shipped maps, load errors with file/line/field, encoding, read planning."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hil.config import ConfigError
from hil.wire.registers import (
    MAX_READ,
    COMMAND_DEVICES,
    REQUIRED,
    SCALABLE,
    WIDTH,
    Device,
    Point,
    ReadBlock,
    RegisterMap,
    Scalar,
    Value,
    default_map,
    load_register_map,
)

MAPS = Path(__file__).resolve().parents[2] / "hil" / "wire" / "maps"
FILES: dict[Device, str] = {"money-wheel": "money_wheel.toml", "top-slot": "top_slot.toml",
                            "wagering": "wagering.toml", "multiplier-board": "multiplier_board.toml",
                            "coin-flipper": "coin_flipper.toml", "pachinko-board": "pachinko_board.toml",
                            "crazy-time-world-wheel": "ctw_wheel.toml", "illuminator": "illuminator.toml",
                            "progressive-system": "progressive_system.toml"}
DEVICES = tuple(FILES)
ORDERS = [(b, w) for b in ("big", "little") for w in ("big", "little")]


def shipped_text(device: Device) -> str:
    return (MAPS / FILES[device]).read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"test edit {old!r} must match once"
    return text.replace(old, new)


def line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


# ---------------------------------------------------------------------- values for points
_INTS = {"uint16": (0, 2**16 - 1), "int16": (-(2**15), 2**15 - 1), "uint32": (0, 2**32 - 1),
         "int32": (-(2**31), 2**31 - 1), "uint64": (0, 2**64 - 1)}


def element(p: Point) -> st.SearchStrategy[Scalar]:
    if p.type == "bool":
        return st.booleans()
    if p.enum is not None:
        return st.sampled_from(sorted(p.enum.values()))
    if p.type == "float32":
        return st.floats(width=32, allow_nan=False)
    if p.type == "float64":
        return st.floats(allow_nan=False)
    lo, hi = _INTS[p.type]
    return st.integers(lo, hi).map(lambda raw: raw / p.scale) if p.scale != 1 else st.integers(lo, hi)


def value(p: Point) -> st.SearchStrategy[Value]:
    return element(p) if p.count == 1 else st.lists(element(p), min_size=p.count, max_size=p.count)


def with_points(base: RegisterMap, extra: Sequence[dict], **top: str) -> RegisterMap:
    data = base.model_dump(by_alias=True)
    return RegisterMap.model_validate({**data, **top, "points": [*data["points"], *extra]})


#: One point per type and scale, single and as an array, beside the wagering map.
_ENUM = {7: "seven", 300: "three-hundred", 65535: "max"}
_KINDS = [(t, s, n) for t in WIDTH if t != "bool" for s in ((1, 1000) if t in SCALABLE else (1,)) for n in (1, 3)]
TEST_POINTS = [
    {"name": f"x_{t}_{s}_{n}", "table": "holding", "address": 1000 + 100 * i, "type": t, "scale": s, "count": n,
     "access": "rw", **({"enum": _ENUM} if t == "enum16" else {})}
    for i, (t, s, n) in enumerate(_KINDS)
] + [{"name": "x_bool_1", "table": "coil", "address": 1000, "type": "bool"},
     {"name": "x_bool_3", "table": "coil", "address": 1001, "type": "bool", "count": 3}]
def typed_points(rmap: RegisterMap) -> list[Point]:
    return [p for p in rmap.points if p.name.startswith("x_")]


TYPED = {order: with_points(default_map("wagering"), TEST_POINTS, byte_order=order[0], word_order=order[1])
         for order in ORDERS}


# ---------------------------------------------------------------------- shipped maps
@pytest.mark.parametrize("device", DEVICES)
def test_shipped_map_loads_with_required_points(device: Device) -> None:
    rmap = default_map(device)
    assert rmap.device == device
    assert set(REQUIRED[device]) <= {p.name for p in rmap.points}
    assert load_register_map(MAPS / FILES[device], device) == rmap
    assert all(p.description for p in rmap.points), "every shipped point is documented"


@pytest.mark.parametrize("device", DEVICES)
def test_shipped_poll_is_one_read_per_table(device: Device) -> None:
    """The points polled together sit together: every live value of a table comes in one read.
    (The wheel's layout and the bonus devices' declarations are read once; the wagering device's
    press log only when presses came, the progressive system's wager log only when its entries
    came; the board's arrays only for a result that has them.)"""
    rmap = default_map(device)
    once = ("diameter_mm", "section_count", "sections", "rows", "spots", "clappers", "result_values",
            "result_permutation", "wheel", "paytable", "paytable_multipliers",
            # the progressive system's declaration
            "meter_count", "meter_names", "meter_seed_cents", "meter_reseed_cents", "meter_increment_num",
            "meter_increment_den", "meter_reserve_num", "meter_reserve_den", "linked", "link_id",
            "meter_reseed_source",
            # the seats' button stakes and the table's stake limits (read once, at connect); the
            # refusals of the supervisor key (never read by the rig: conformance, a lab's audit)
            "seat_button_stake_cents", "stake_min_cents", "stake_max_cents", "supervisor_refusals")
    live = [p.name for p in rmap.points if p.name not in once and not p.name.startswith(("press_log_", "wager_log_"))]
    if device in ("wagering", "progressive-system"):
        # their holding registers are commands, each with its supervisor key next to it (one FC16
        # request), so the table has gaps; the rig reads them once at connect (the seqs), never in a poll
        live = [n for n in live if rmap.point(n).table != "holding"]
    blocks = rmap.read_blocks(live)
    assert len(blocks) == len({b.table for b in blocks})


def test_command_devices_share_the_core_and_write_a_command_in_one_request() -> None:
    """The bonus devices' maps: the same core points; command, arguments and command_seq
    contiguous (one FC16 request); the status within one read; starts where the device has them."""
    core = {"command", "command_seq", "state", "op_id", "result_op_id", "result_command", "result_stop_ns",
            "device_clock_ns"}
    for device in COMMAND_DEVICES:
        rmap = default_map(device)
        assert core <= set(REQUIRED[device]) <= {p.name for p in rmap.points}
        assert rmap.point("state").enum == {0: "idle", 1: "busy", 2: "done", 3: "fault"}
        assert rmap.point("result_command").enum == rmap.point("command").enum
        written = sorted((p for p in rmap.points if p.table == "holding"), key=lambda p: p.address)
        assert [p.name for p in written[:2]] == ["command", "command_seq"]
        assert all(a.end == b.address for a, b in zip(written, written[1:])), "one contiguous write"
        assert ("op_start_ns" in REQUIRED[device]) == (device not in ("multiplier-board", "illuminator"))
    assert default_map("coin-flipper").width("result_launch_speed_mps") == 4
    assert default_map("multiplier-board").point("result_values").count == 108
    # room for what a faulty Roulette X generator shows: more than 5 numbers (§ 617b.5(d)), raw 16-bit values
    ill = default_map("illuminator")
    assert [(ill.point(n).type, ill.point(n).count) for n in ("result_numbers", "result_multipliers")] == [("uint16", 8)] * 2


def test_point_and_width() -> None:
    wheel = default_map("money-wheel")
    assert wheel.point("spin_start_ns").table == "input"
    assert [wheel.width(n) for n in ("state", "spin_id", "revolutions", "stop_ns", "on_peg")] == [1, 2, 2, 4, 1]
    assert wheel.point("sections").count == 54 and wheel.point("sections").span == 54
    assert default_map("wagering").point("seat_last_press_ns").span == 32
    with pytest.raises(KeyError, match="no point 'nope'"):
        wheel.point("nope")


# ---------------------------------------------------------------------- load errors
#: device, old text, new text (the line the error must name is marked "# here"), field, message.
BAD_EDITS = [
    ("money-wheel", 'name = "revolution_count"\ntable = "input"\naddress = 3',
     'name = "revolution_count"\ntable = "input"\naddress = 2  # here', "points.5.address", "overlaps 'spin_id'"),
    ("money-wheel", 'name = "on_peg"\ntable = "discrete"\naddress = 0\ntype = "bool"',
     'name = "on_peg"\ntable = "input"\naddress = 0\ntype = "bool"  # here', "points.2.type",
     "not allowed in the input table"),
    ("wagering", 'name = "lockout"\ntable = "coil"\naddress = 0\ntype = "bool"',
     'name = "lockout"\ntable = "coil"\naddress = 0\ntype = "uint16"  # here', "points.0.type",
     "not allowed in the coil table"),
    ("top-slot", 'name = "spin_id"\n', 'name = "spin_id"\ncolour = "red"  # here\n', "points.4.colour",
     "Extra inputs are not permitted"),
    ("top-slot", 'name = "state"\ntable = "input"\naddress = 0\ntype = "enum16"\n',
     'name = "state"\ntable = "input"\naddress = 0\ntype = "enum16"\naccess = "rw"  # here\n', "points.3.access",
     "read-only"),
    ("top-slot", "address = 15", "address = 65534  # here", "points.11.address", "past the last address"),
    ("multiplier-board", '3 = "auto_pick", 4 = "rescue" }\ndescription = "draw: ',
     '3 = "pick", 4 = "rescue" }  # here\ndescription = "draw: ', "points.5.enum", "labels ['auto_pick']"),
    ("pachinko-board", 'name = "arg_zone"\ntable = "holding"\naddress = 2\ntype = "uint16"\naccess = "rw"',
     'name = "arg_zone"\ntable = "holding"\naddress = 2\ntype = "uint16"\naccess = "r"  # here', "points.2.access",
     "the rig needs access 'rw' to 'arg_zone'"),
    ("money-wheel", '1 = "spinning", 2 = "at_rest", 3 = "fault" }',
     '1 = "turning", 2 = "at_rest", 3 = "fault" }  # here', "points.3.enum", "labels ['spinning']"),
    ("wagering", 'name = "press_count"', 'name = "seats"  # here', "points.7.name", "duplicate point name 'seats'"),
]


@pytest.mark.parametrize(("device", "old", "new", "field", "message"), BAD_EDITS)
def test_bad_map_names_file_line_and_field(tmp_path: Path, device: Device, old: str, new: str,
                                           field: str, message: str) -> None:
    text = edit(shipped_text(device), old, new)
    path = tmp_path / "vendor.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_register_map(path)
    err = info.value
    assert (err.source, err.line, err.field) == (str(path), line_of(text, "# here"), field)
    assert message in err.message
    assert str(err).startswith(f"{path}:{err.line}: {field}: ")


def test_missing_required_point_is_named(tmp_path: Path) -> None:
    text = shipped_text("money-wheel")
    block = re.search(r'\[\[points\]\]\nname = "on_peg"\n(?:[^\[].*\n)*', text)
    assert block is not None
    path = tmp_path / "wheel.toml"
    path.write_text(text.replace(block.group(0), ""))
    with pytest.raises(ConfigError, match="needs point\\(s\\) on_peg") as info:
        load_register_map(path)
    assert info.value.field == "points"
    assert info.value.line == line_of(text, "[[points]]")


def test_map_for_another_device_is_refused() -> None:
    with pytest.raises(ConfigError, match="a top-slot map, expected money-wheel") as info:
        load_register_map(MAPS / "top_slot.toml", "money-wheel")
    assert info.value.field == "device"
    assert info.value.line == line_of(shipped_text("top-slot"), 'device = "top-slot"')


# ---------------------------------------------------------------------- encoding
@pytest.mark.parametrize(("order", "words32", "words64"), [
    (("big", "big"), [0x0102, 0x0304], [0x0102, 0x0304, 0x0506, 0x0708]),
    (("big", "little"), [0x0304, 0x0102], [0x0708, 0x0506, 0x0304, 0x0102]),
    (("little", "big"), [0x0201, 0x0403], [0x0201, 0x0403, 0x0605, 0x0807]),
    (("little", "little"), [0x0403, 0x0201], [0x0807, 0x0605, 0x0403, 0x0201]),
])
def test_byte_and_word_order(order: tuple[str, str], words32: list[int], words64: list[int]) -> None:
    rmap = TYPED[order]
    assert rmap.encode("x_uint32_1_1", 0x01020304) == words32
    assert rmap.encode("x_uint64_1_1", 0x0102030405060708) == words64
    assert rmap.decode("x_uint64_1_1", words64) == 0x0102030405060708


def test_scale_and_enum_encoding() -> None:
    wheel = default_map("money-wheel")
    assert wheel.encode("revolutions", 7.125) == [0, 7125]
    assert wheel.decode("revolutions", [1, 0]) == 65.536
    assert wheel.encode("direction", "ccw") == [2]
    assert wheel.decode("sections", [7] + [0] * 53) == ["crazy-time"] + ["1"] * 53


@pytest.mark.parametrize(("point", "bad", "message"), [
    ("x_uint16_1_1", 65536, "does not fit uint16"),
    ("x_int16_1_1", -40000, "does not fit int16"),
    ("x_uint32_1000_1", 4294967.296, "does not fit uint32"),
    ("x_enum16_1_1", "eight", "is not one of"),
    ("x_uint16_1_3", [1, 2], "expected 3 values"),
    ("x_bool_1", 2, "bits must be bool"),
])
def test_encode_rejects_what_does_not_fit(point: str, bad: Value, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TYPED["big", "big"].encode(point, bad)


def test_decode_rejects_unknown_code_and_wrong_length() -> None:
    wagering = default_map("wagering")
    with pytest.raises(ValueError, match="seat_last_reason: code 9 is not in its enum"):
        wagering.decode("seat_last_reason", [0] * 7 + [9])
    with pytest.raises(ValueError, match="expected 4 registers, got 2"):
        wagering.decode("device_clock_ns", [0, 0])


@pytest.mark.parametrize("order", ORDERS)
@given(data=st.data())
def test_value_round_trip_every_type_and_scale(order: tuple[str, str], data: st.DataObject) -> None:
    rmap = TYPED[order]
    for p in typed_points(rmap):
        v = data.draw(value(p), label=p.name)
        words = rmap.encode(p, v)
        assert len(words) == p.span
        assert rmap.decode(p, words) == v


@pytest.mark.parametrize("order", ORDERS)
@given(data=st.data())
def test_register_round_trip_integer_types(order: tuple[str, str], data: st.DataObject) -> None:
    """Every register image of an integer point decodes and encodes back to itself."""
    rmap = TYPED[order]
    for p in typed_points(rmap):
        if p.type in _INTS:
            words = data.draw(st.lists(st.integers(0, 0xFFFF), min_size=p.span, max_size=p.span), label=p.name)
            assert rmap.encode(p, rmap.decode(p, words)) == words


# ---------------------------------------------------------------------- read planning
HOLEY = with_points(default_map("top-slot"), [
    {"name": "far_a", "table": "input", "address": 40, "type": "uint32"},
    {"name": "far_b", "table": "input", "address": 45, "type": "uint16"},
    {"name": "far_c", "table": "input", "address": 200, "type": "enum16", "count": 120, "enum": {0: "z"}},
    {"name": "trigger", "table": "holding", "address": 2, "type": "uint16", "access": "w"},
])
PLANNED = [default_map(d) for d in DEVICES] + [HOLEY]


def assert_plan_covers(rmap: RegisterMap, names: set[str], blocks: list[ReadBlock]) -> None:
    planned = [n for b in blocks for n in b.points]
    assert sorted(planned) == sorted(names), "each requested point in exactly one block, nothing else"
    for b in blocks:
        assert b.count <= MAX_READ["bits" if b.table in ("coil", "discrete") else "registers"]
        for n in b.points:
            p = rmap.point(n)
            assert p.table == b.table and b.start <= p.address and p.end <= b.start + b.count
        assert b.start == min(rmap.point(n).address for n in b.points)
        assert b.start + b.count == max(rmap.point(n).end for n in b.points)


@pytest.mark.parametrize("rmap", PLANNED, ids=[*DEVICES, "holey"])
@given(data=st.data())
def test_read_blocks_cover_exactly_the_requested_points(rmap: RegisterMap, data: st.DataObject) -> None:
    readable = sorted(p.name for p in rmap.points if "r" in p.access)
    names = data.draw(st.sets(st.sampled_from(readable), min_size=1))
    max_gap = data.draw(st.sampled_from([0, 4, 1000]))
    blocks = rmap.read_blocks(names, max_gap=max_gap)
    assert_plan_covers(rmap, names, blocks)
    assert len(blocks) <= len(rmap.read_blocks(names)), "a larger max_gap never needs more reads"


def test_read_blocks_bridge_only_defined_addresses_unless_asked() -> None:
    # 0..18 are all defined: one read from state to device_clock_ns; the holes 19..39 and 42..44 are not.
    assert [(b.table, b.start, b.count) for b in HOLEY.read_blocks(["state", "device_clock_ns", "far_a", "far_b"])] == [
        ("input", 0, 19), ("input", 40, 2), ("input", 45, 1)]
    assert [(b.start, b.count) for b in HOLEY.read_blocks(["far_a", "far_b"], max_gap=3)] == [(40, 6)]
    assert [(b.start, b.count) for b in HOLEY.read_blocks(["state", "far_b"], max_gap=43)] == [(0, 1), (45, 1)]
    assert [(b.start, b.count) for b in HOLEY.read_blocks(["state", "far_b"], max_gap=44)] == [(0, 46)]
    # 200..319 does not fit one read (125 registers) with 0..45: the planner splits.
    assert [(b.start, b.count) for b in HOLEY.read_blocks(["state", "far_c"], max_gap=1000)] == [(0, 1), (200, 120)]
    with pytest.raises(ValueError, match="write-only point\\(s\\) \\['trigger'\\]"):
        HOLEY.read_blocks(["trigger"])
    assert "trigger" not in {n for b in HOLEY.read_blocks() for n in b.points}


# ---------------------------------------------------------------------- a vendor's map
def vendor_text(device: Device) -> str:
    """The shipped map moved by 1000 addresses, little-endian both ways, enum codes + 10."""
    text = re.sub(r"^address = (\d+)$", lambda m: f"address = {int(m.group(1)) + 1000}",
                  shipped_text(device), flags=re.M)
    text = re.sub(r"(\d+) = \"", lambda m: f'{int(m.group(1)) + 10} = "', text)
    text = edit(text, 'byte_order = "big"', 'byte_order = "little"')
    return edit(text, 'word_order = "big"', 'word_order = "little"')


@pytest.fixture(scope="module")
def vendor_maps(tmp_path_factory: pytest.TempPathFactory) -> dict[Device, RegisterMap]:
    out = {}
    for device in DEVICES:
        path = tmp_path_factory.mktemp("vendor") / FILES[device]
        path.write_text(vendor_text(device))
        out[device] = load_register_map(path, device)
    return out


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_vendor_map_with_shifted_addresses_round_trips(vendor_maps: dict[Device, RegisterMap], device: Device,
                                                      data: st.DataObject) -> None:
    """A simulated device image written through the vendor map reads back, block by block, as written."""
    vendor = vendor_maps[device]
    values = {p.name: data.draw(value(p), label=p.name) for p in vendor.points}
    image: dict[str, dict[int, int | bool]] = {}  # what the device holds, per table
    for name, v in values.items():
        p = vendor.point(name)
        image.setdefault(p.table, {}).update(enumerate(vendor.encode(p, v), start=p.address))
    decoded: dict[str, Value] = {}
    for block in vendor.read_blocks():
        words = [image[block.table][a] for a in range(block.start, block.start + block.count)]
        decoded |= vendor.decode_block(block, words)
    assert decoded == values


def test_vendor_map_differs_from_shipped_only_in_placement(vendor_maps: dict[Device, RegisterMap]) -> None:
    for device in DEVICES:
        vendor, shipped = vendor_maps[device], default_map(device)
        assert (vendor.byte_order, vendor.word_order) == ("little", "little")
        assert vendor.encode("device_clock_ns", 0x0102030405060708) == [0x0807, 0x0605, 0x0403, 0x0201]
        for p in shipped.points:
            v = vendor.point(p.name)
            assert v.address == p.address + 1000
            assert v.model_dump(exclude={"address", "enum"}) == p.model_dump(exclude={"address", "enum"})
            assert v.enum == (None if p.enum is None else {c + 10: label for c, label in p.enum.items()})
