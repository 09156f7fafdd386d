"""The binary framed protocol of the event-stream devices, over any pyserial URL.

Both peers use this module: the rig's adapters and the firmware stubs. Every message encodes
and decodes here; ``docs/wire/serial-frames.md`` is the byte-by-byte description (a test
keeps it equal to ``MESSAGES``).

A frame, all integers little-endian::

    offset  size  field    meaning
    0       2     sync     0xA5 0x5A
    2       2     length   bytes from version through the end of the payload: 4 + payload
    4       1     version  VERSION (1)
    5       2     seq      per sender, +1 per frame sent, wraps 65535 -> 0
    7       1     type     the message type code (``MESSAGES``)
    8       P     payload  the message's fields, packed without padding
    8+P     2     crc      CRC-16/CCITT-FALSE over length .. payload (offsets 2 .. 7+P)

``FrameParser`` turns a byte stream into ``Frame``s, stamping each with the caller's
arrival time, and counts every byte and frame it rejects; ``SeqTracker`` finds lost and
repeated frames in one sender's sequence numbers.
"""

from __future__ import annotations

import binascii
import struct
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from rules.crazy_time import SPOTS

SYNC = b"\xa5\x5a"
VERSION = 1
HEADER = struct.Struct("<BHB")  # version, seq, type: the first 4 bytes that `length` counts
CRC_INIT = 0xFFFF
MIN_BODY = HEADER.size
MAX_BODY = 512  # the largest `length` a receiver accepts
OVERHEAD = len(SYNC) + 2 + 2  # sync, length, crc: a frame is `length` + 6 bytes

Value = int | bool | str


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0."""
    return binascii.crc_hqx(data, CRC_INIT)


# --------------------------------------------------------------------------- code tables
#: Spot codes: the betting options in the order of § 690.3(b)(1).
SPOT_CODES: tuple[str, ...] = tuple(s.value for s in SPOTS)
DIRECTION_CODES: tuple[str, ...] = ("cw", "ccw")
#: Why a press was rejected (``PressAnswer.reason``; "none" when accepted).
REASON_CODES: tuple[str, ...] = ("none", "locked_out", "betting_closed", "invalid_seat", "invalid_stake")
ACK_STATUS_CODES: tuple[str, ...] = ("ok", "bad_args", "busy", "unknown_command", "refused")
#: The supervisor key's bytes in a frame (``OPEN_BETTING``'s ``key_0`` … ``key_15``; hil.wire.supervisor)
KEY_SLOTS = 16
DEVICE_KIND_CODES: tuple[str, ...] = ("host", "money_wheel", "top_slot", "wagering")
FLAG_CODES: tuple[bool, ...] = (False, True)

class FrameError(ValueError):
    """A body that does not decode; ``kind`` names the ``FrameParser.stats`` counter."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


@dataclass(frozen=True)
class Field:
    """One payload field: ``fmt`` is its struct code (B, H, I, Q = uint8/16/32/64); with
    ``codes`` the value is ``codes[wire integer]``, else the unsigned integer itself."""

    name: str
    fmt: str
    meaning: str
    codes: tuple[Value, ...] | None = None

    @property
    def size(self) -> int:
        return struct.calcsize("<" + self.fmt)

    def to_wire(self, msg: str, value: object) -> int:
        if self.codes is not None:
            if value not in self.codes:
                raise ValueError(f"{msg}.{self.name}={value!r}: expected one of {self.codes}")
            return self.codes.index(value)
        if not isinstance(value, int) or not 0 <= value < 1 << 8 * self.size:
            raise ValueError(f"{msg}.{self.name}={value!r}: expected an integer 0..{(1 << 8 * self.size) - 1}")
        return value

    def from_wire(self, msg: str, wire: int) -> Value:
        if self.codes is None:
            return wire
        if wire >= len(self.codes):
            raise FrameError("bad_payload", f"{msg}.{self.name}: code {wire} is not in {self.codes}")
        return self.codes[wire]


def u8(name: str, meaning: str, codes: tuple[Value, ...] | None = None) -> Field:
    return Field(name, "B", meaning, codes)


def u16(name: str, meaning: str) -> Field:
    return Field(name, "H", meaning)


def u32(name: str, meaning: str) -> Field:
    return Field(name, "I", meaning)


def u64(name: str, meaning: str) -> Field:
    return Field(name, "Q", meaning)


@dataclass(frozen=True)
class Message:
    """One message type. ``array``, if set, follows the fixed fields on the wire as a uint8
    count ``n`` then ``n`` elements; in ``Frame.fields`` it is a tuple under its own name."""

    name: str
    code: int
    direction: Literal["event", "command", "both"]  # event: device → host; command: host → device
    meaning: str
    fields: tuple[Field, ...] = ()
    array: Field | None = None
    head: struct.Struct = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fmt = "<" + "".join(f.fmt for f in self.fields) + ("B" if self.array else "")
        object.__setattr__(self, "head", struct.Struct(fmt))

    @property
    def max_body(self) -> int:
        return MIN_BODY + self.head.size + (255 * self.array.size if self.array else 0)

    def pack(self, values: Mapping[str, object]) -> bytes:
        names = [f.name for f in self.fields] + ([self.array.name] if self.array else [])
        if sorted(values) != sorted(names):
            raise ValueError(f"{self.name}: expected fields {names}, got {list(values)}")
        wire = [f.to_wire(self.name, values[f.name]) for f in self.fields]
        if self.array is None:
            return self.head.pack(*wire)
        items = values[self.array.name]
        if not isinstance(items, (tuple, list)) or len(items) > 255:
            raise ValueError(f"{self.name}.{self.array.name}: expected a sequence of at most 255 items")
        elems = [self.array.to_wire(self.name, v) for v in items]
        return self.head.pack(*wire, len(elems)) + struct.pack(f"<{len(elems)}{self.array.fmt}", *elems)

    def unpack(self, payload: bytes) -> dict[str, Value | tuple[Value, ...]]:
        if len(payload) < self.head.size:
            raise FrameError("bad_payload", f"{self.name}: {len(payload)} payload bytes, expected {self.head.size}")
        wire = self.head.unpack_from(payload)
        size = self.head.size + (wire[-1] * self.array.size if self.array else 0)
        if len(payload) != size:
            raise FrameError("bad_payload", f"{self.name}: {len(payload)} payload bytes, expected {size}")
        values: dict[str, Value | tuple[Value, ...]] = {
            f.name: f.from_wire(self.name, w) for f, w in zip(self.fields, wire)}
        if self.array is not None:
            elems = struct.unpack_from(f"<{wire[-1]}{self.array.fmt}", payload, self.head.size)
            values[self.array.name] = tuple(self.array.from_wire(self.name, w) for w in elems)
        return values


_SPOT = "spot code (table Spot codes)"
#: ARM_PROBE carries its offsets in this many fixed slots (see docs/wire/serial-frames.md, ARM_PROBE).
PROBE_SLOTS = 16

#: Every message type: the single source of truth for the code, the docs and their drift test.
MESSAGES: tuple[Message, ...] = (
    # ----------------------------------------------------------------- common
    Message("ACK", 0x01, "event", "the device's answer to every command frame it received", (
        u16("acked_seq", "seq of the command frame answered"),
        u8("status", "0 ok, 1 bad args, 2 busy, 3 unknown command (not one this device kind obeys), 4 refused (wrong supervisor key)",
           ACK_STATUS_CODES),
    )),
    Message("HELLO", 0x02, "both",
            "host: sent on connect; device: sent at power-up and in answer to the host's HELLO", (
        u8("device_kind", "0 host, 1 money wheel, 2 Top Slot, 3 wagering device", DEVICE_KIND_CODES),
        u8("protocol_version", "highest frame version the sender speaks (1)"),
        u64("clock_ns", "the sender's clock, ns"),
    )),
    Message("HEARTBEAT", 0x03, "event", "the device is alive; its clock for offset tracking", (
        u64("clock_ns", "device clock, ns"),
    )),
    # ----------------------------------------------------------------- money wheel
    Message("SPIN", 0x10, "command", "the dealer pushes the wheel now", (
        u8("direction", "0 cw, 1 ccw", DIRECTION_CODES),
    )),
    Message("SPIN_START", 0x11, "event", "the wheel started turning", (
        u32("spin_id", "counts up from 1 per spin"),
        u8("direction", "0 cw, 1 ccw", DIRECTION_CODES),
        u64("t_ns", "device clock at the start, ns"),
    )),
    Message("INDEX_PULSE", 0x12, "event", "one turn of the wheel past its index sensor", (
        u32("spin_id", "the spin this pulse belongs to"),
        u16("count", "pulses so far in this spin, from 1"),
        u64("t_ns", "device clock at the pulse edge, ns"),
    )),
    Message("SPIN_STOP", 0x13, "event", "the wheel came to rest (the SpinStop result)", (
        u32("spin_id", "the spin that ended"),
        u16("section_index", "section under the clapper, index into WHEEL_LAYOUT.sections"),
        u8("on_peg", "1: clapper resting on a peg top, between two sections (§ 690.2(d))", FLAG_CODES),
        u8("direction", "0 cw, 1 ccw", DIRECTION_CODES),
        u32("revolutions_milli", "total rotation during the spin, turns × 1000, rounded"),
        u32("pegs_passed", "pegs the clapper passed"),
        u64("start_ns", "device clock at the start, ns"),
        u64("stop_ns", "device clock at rest, ns"),
    )),
    Message("WHEEL_LAYOUT", 0x14, "event", "the wheel's declared layout, sent after each HELLO the wheel sends", (
        u16("diameter_mm", "wheel diameter, mm"),
    ), array=u8("sections", f"{_SPOT} of each section clockwise from section index 0", SPOT_CODES)),
    # ----------------------------------------------------------------- Top Slot
    Message("TOP_SLOT_SPIN", 0x20, "command", "spin the Top Slot now (together with the wheel)"),
    Message("TOP_SLOT_START", 0x21, "event", "the reels started", (
        u32("spin_id", "counts up from 1 per spin"),
        u64("t_ns", "device clock at the start, ns"),
    )),
    Message("TOP_SLOT_STOP", 0x22, "event", "both reels stopped (the TopSlotStop result)", (
        u32("spin_id", "the spin that ended"),
        u8("spot", f"reel 1: {_SPOT} on the payline", SPOT_CODES),
        u8("multiplier", "reel 2: the multiplier on the payline (1, 2, 3, 4, 5, 7, 10, 15, 20)"),
        u8("aligned", "1: both reels stopped on a symbol on the payline (§ 690.3(c)(1))", FLAG_CODES),
        u16("reel1_steps", "symbols reel 1 travelled (0 = did not move)"),
        u16("reel2_steps", "symbols reel 2 travelled (0 = did not move)"),
        u64("start_ns", "device clock at the start, ns"),
        u64("stop_ns", "device clock when reel 2 stopped, ns"),
    )),
    # ----------------------------------------------------------------- wagering device
    Message("OPEN_BETTING", 0x30, "command", "the dealer's next round: re-enable wagering (needs the supervisor key)", tuple(
        u8(f"key_{i}", f"byte {i} of the device's supervisor key") for i in range(KEY_SLOTS))),
    Message("LOCK_OUT", 0x31, "command", "the dealer's lock-out button: no more bets"),
    Message("PRESS", 0x32, "command", "the rig's actuator presses a seat button (stubs and test benches)", (
        u8("seat", "seat number"),
        u8("spot", _SPOT, SPOT_CODES),
        u32("stake_cents", "stake, cents"),
    )),
    Message("BETTING_OPEN", 0x33, "event", "wagering is enabled", (
        u64("t_ns", "device clock when betting opened, ns"),
    )),
    Message("LOCKOUT_COMMAND", 0x34, "event", "the lock-out command reached the device", (
        u64("t_ns", "device clock when the command reached the device, ns"),
    )),
    Message("PRESS_ANSWER", 0x35, "event", "a seat's press and the device's answer (the PressAnswer result)", (
        u32("press_id", "counts up from 1 per press"),
        u8("seat", "seat number"),
        u8("spot", _SPOT, SPOT_CODES),
        u32("stake_cents", "stake, cents"),
        u8("accepted", "1: the wager was accepted", FLAG_CODES),
        u8("reason", "why rejected (table Reason codes); 0 when accepted", REASON_CODES),
        u64("press_ns", "device clock when the press reached the device, ns"),
        u64("answer_ns", "device clock when the device answered, ns"),
    )),
    Message("ARM_PROBE", 0x36, "command",
            "arm the rig's actuator: press a seat at each offset after the next LOCK_OUT reaches the device", (
        u8("seat", "seat number"),
        u8("spot", _SPOT, SPOT_CODES),
        u32("stake_cents", "stake, cents"),
        u8("count", f"offsets in use, 0..{PROBE_SLOTS}: offset_us_0 .. offset_us_(count-1); more is bad args"),
        *(u32(f"offset_us_{i}", "µs after the lock-out command reached the device (unused: 0)")
          for i in range(PROBE_SLOTS)),
    )),
    Message("WAGERING_INFO", 0x37, "event", "the wagering device's seats and stake limits, sent after each HELLO it sends", (
        u8("seats", "seats 1..seats have a wagering device"),
        u32("min_stake_cents", "the table's minimum stake, cents: a PRESS or ARM_PROBE of less is bad args"),
        u32("max_stake_cents", "the table's maximum stake, cents: a PRESS or ARM_PROBE of more is bad args"),
    )),
)

BY_NAME: Mapping[str, Message] = MappingProxyType({m.name: m for m in MESSAGES})
BY_CODE: Mapping[int, Message] = MappingProxyType({m.code: m for m in MESSAGES})
assert len(BY_NAME) == len(BY_CODE) == len(MESSAGES), "duplicate message name or type code"
assert all(m.max_body <= MAX_BODY for m in MESSAGES), "a message exceeds MAX_BODY"


# --------------------------------------------------------------------------- encode / decode
@dataclass(frozen=True)
class Frame:
    """A decoded frame; ``rx_ns`` is when its last byte arrived (``time.perf_counter_ns``)."""

    msg_type: str
    seq: int
    fields: dict[str, Value | tuple[Value, ...]]
    rx_ns: int


def encode(msg_type: str, seq: int, **fields: object) -> bytes:
    """The complete frame (sync through CRC). Raises ``ValueError`` naming a bad argument."""
    if msg_type not in BY_NAME:
        raise ValueError(f"unknown message type {msg_type!r}")
    if not isinstance(seq, int) or not 0 <= seq <= 0xFFFF:
        raise ValueError(f"seq={seq!r}: expected an integer 0..65535")
    msg = BY_NAME[msg_type]
    body = HEADER.pack(VERSION, seq, msg.code) + msg.pack(fields)
    covered = len(body).to_bytes(2, "little") + body
    return SYNC + covered + crc16(covered).to_bytes(2, "little")


def decode_body(body: bytes, rx_ns: int) -> Frame:
    """Decode a frame's body (version through payload: the bytes ``length`` counts) whose CRC
    has been checked. Raises ``FrameError`` (kind ``bad_length``, ``bad_version``,
    ``unknown_type`` or ``bad_payload``)."""
    if not MIN_BODY <= len(body) <= MAX_BODY:
        raise FrameError("bad_length", f"body of {len(body)} bytes, expected {MIN_BODY}..{MAX_BODY}")
    version, seq, code = HEADER.unpack_from(body)
    if version != VERSION:
        raise FrameError("bad_version", f"version {version}, expected {VERSION}")
    if code not in BY_CODE:
        raise FrameError("unknown_type", f"type 0x{code:02X}")
    msg = BY_CODE[code]
    return Frame(msg.name, seq, msg.unpack(body[HEADER.size:]), rx_ns)


# --------------------------------------------------------------------------- stream parser
STATS: tuple[str, ...] = ("frames_ok", "crc_error", "bad_length", "bad_version", "unknown_type",
                          "bad_payload", "truncated", "garbage_bytes")


class FrameParser:
    """Frames from a byte stream. Never raises on any input.

    Rules (the firmware's parser should do the same):

    * Scan for the sync word; bytes before it are skipped.
    * ``length`` outside 4..512 (``bad_length``) or a CRC mismatch (``crc_error``): the
      candidate was no frame; skip its first byte and scan again, so a good frame that
      starts inside a bad candidate's span is still found.
    * CRC good but ``bad_version``, ``unknown_type`` or ``bad_payload``: it is a frame the
      receiver cannot use; skip all of it.
    * An incomplete candidate waits for more bytes; ``expire`` gives it up (``truncated``)
      when no byte arrived for ``timeout_ns``, then scans the bytes after its first.

    ``stats`` counts each rejection, ``frames_ok``, and in ``garbage_bytes`` every byte
    discarded: bytes fed = bytes of the frames returned + ``garbage_bytes`` + bytes still
    waiting in the buffer.
    """

    def __init__(self) -> None:
        self.stats: dict[str, int] = dict.fromkeys(STATS, 0)
        self._buf = bytearray()
        self._base = 0  # stream offset of _buf[0]
        self._chunks: deque[tuple[int, int]] = deque()  # (stream offset past a chunk, its rx_ns)
        self._last_rx_ns = 0

    @property
    def pending(self) -> int:
        """Bytes buffered, waiting to complete a frame."""
        return len(self._buf)

    def feed(self, data: bytes, rx_ns: int) -> list[Frame]:
        """Add bytes that arrived at ``rx_ns``; return the frames completed so far."""
        if data:
            self._buf += data
            self._chunks.append((self._base + len(self._buf), rx_ns))
            self._last_rx_ns = rx_ns
        return self._parse(flush=False)

    def expire(self, now_ns: int, timeout_ns: int) -> list[Frame]:
        """If no byte arrived for ``timeout_ns`` before ``now_ns``, give up on the incomplete
        frame(s) in the buffer; return any good frames found behind them."""
        if not self._buf or now_ns - self._last_rx_ns < timeout_ns:
            return []
        return self._parse(flush=True)

    def _parse(self, flush: bool) -> list[Frame]:
        buf, stats, frames = self._buf, self.stats, []
        n, i = len(buf), 0
        while True:
            j = buf.find(SYNC, i)
            if j < 0:  # keep a last 0xA5 unless flushing: it may begin a sync word
                j = n - 1 if n > i and buf[-1] == SYNC[0] and not flush else n
            stats["garbage_bytes"] += j - i
            i = j
            if n - i < len(SYNC):
                break
            length = int.from_bytes(buf[i + 2:i + 4], "little") if n - i >= 4 else None
            end = n + 1 if length is None else i + OVERHEAD + length
            if length is not None and not MIN_BODY <= length <= MAX_BODY:
                rejected = "bad_length"
            elif end > n:
                if not flush:
                    break
                rejected = "truncated"
            elif crc16(buf[i + 2:end - 2]) != int.from_bytes(buf[end - 2:end], "little"):
                rejected = "crc_error"
            else:
                try:
                    frames.append(decode_body(bytes(buf[i + 4:end - 2]), self._rx_ns(self._base + end)))
                    stats["frames_ok"] += 1
                except FrameError as e:  # a frame, but not one this receiver can use
                    stats[e.kind] += 1
                    stats["garbage_bytes"] += end - i
                i = end
                continue
            stats[rejected] += 1  # the candidate was no frame: skip its first byte, scan again
            stats["garbage_bytes"] += 1
            i += 1
        del buf[:i]
        self._base += i
        while self._chunks and self._chunks[0][0] <= self._base:
            self._chunks.popleft()
        return frames

    def _rx_ns(self, end: int) -> int:
        """rx_ns of the chunk that brought the byte before stream offset ``end``."""
        chunks = self._chunks
        while chunks[0][0] < end:
            chunks.popleft()
        return chunks[0][1]


# --------------------------------------------------------------------------- sequence numbers
@dataclass
class SeqTracker:
    """Lost and repeated frames in one sender's ``seq`` (a serial link does not reorder).

    Call ``reset`` when the sender restarted (its HELLO): it counts from any seq again.
    """

    expected: int | None = None
    lost: int = 0
    repeated: int = 0

    def observe(self, seq: int) -> int:
        """Account for one received ``seq``; return its signed distance from the expected
        one: 0 in order, ``n > 0`` = ``n`` frames lost before it, ``< 0`` = a repeat of an
        earlier frame (-1: the previous one again), which does not move ``expected``."""
        if self.expected is None:
            self.expected = seq
        gap = (seq - self.expected + 0x8000) % 0x10000 - 0x8000
        if gap < 0:
            self.repeated += 1
        else:
            self.lost += gap
            self.expected = (seq + 1) % 0x10000
        return gap

    def reset(self) -> None:
        self.expected = None
