"""docs/wire/serial-frames.md says what hil.wire.frames does: every table is checked against
the code's message table, so the page a firmware engineer implements from cannot drift."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hil.wire.frames import (ACK_STATUS_CODES, DEVICE_KIND_CODES, DIRECTION_CODES, HEADER, MAX_BODY, MESSAGES,
                             MIN_BODY, REASON_CODES, SPOT_CODES, STATS, SYNC, FrameParser, crc16, encode)

DOC = Path(__file__).parents[2] / "docs" / "wire" / "serial-frames.md"
TYPES = {"B": "uint8", "H": "uint16", "I": "uint32", "Q": "uint64"}


def sections() -> dict[str, str]:
    """Heading text -> the text under it, up to the next heading."""
    parts = re.split(r"^#{2,3} (.+)$", DOC.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def table(text: str) -> list[list[str]]:
    """The rows of the first table in ``text``, without its header and separator."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


SECTIONS = sections()
MESSAGE_HEADINGS = {h.split("`")[1]: h for h in SECTIONS if h.startswith("`")}


def test_frame_layout_table():
    assert HEADER.format == "<BHB" and SYNC == b"\xa5\x5a" and (MIN_BODY, MAX_BODY) == (4, 512)
    rows = [row[:3] for row in table(SECTIONS["Frame"])]
    assert rows == [["0", "2", "`sync`"], ["2", "2", "`length`"], ["4", "1", "`version`"], ["5", "2", "`seq`"],
                    ["7", "1", "`type`"], ["8", "P", "`payload`"], ["8 + P", "2", "`crc`"]]
    assert "0xA5, 0x5A" in table(SECTIONS["Frame"])[0][3] and "4..512" in table(SECTIONS["Frame"])[1][3]


def test_crc_parameters_and_known_answer():
    text = SECTIONS["CRC"]
    assert crc16(b"123456789") == 0x29B1 and "**0x29B1**" in text
    assert all(p in text for p in ("0x1021", "0xFFFF", "not reflected", "0x0000", "little-endian"))


def test_message_type_summary_table():
    expected = [[f"`{m.name}`", f"0x{m.code:02X}", m.direction,
                 f"{MIN_BODY + m.head.size}" + (" + n" if m.array else ""), m.meaning] for m in MESSAGES]
    assert table(SECTIONS["Message types"]) == expected


def test_one_section_per_message_with_code_and_direction():
    assert list(MESSAGE_HEADINGS) == [m.name for m in MESSAGES]
    for m in MESSAGES:
        assert f"— 0x{m.code:02X}, {m.direction}" in MESSAGE_HEADINGS[m.name]


@pytest.mark.parametrize("msg", MESSAGES, ids=lambda m: m.name)
def test_message_payload_table(msg):
    rows, offset, expected = table(SECTIONS[MESSAGE_HEADINGS[msg.name]]), 0, []
    for f in msg.fields:
        expected.append([str(offset), str(f.size), TYPES[f.fmt], f"`{f.name}`", f.meaning])
        offset += f.size
    if msg.array is not None:
        a = msg.array
        assert rows[-2][:4] == [str(offset), "1", "uint8", "`n`"]
        expected += [rows[-2], [str(offset + 1), "n", f"{TYPES[a.fmt]}[n]", f"`{a.name}`", a.meaning]]
    assert rows == expected
    assert ("No payload" in SECTIONS[MESSAGE_HEADINGS[msg.name]]) == (not expected)


@pytest.mark.parametrize(("heading", "codes"), [
    ("Spot codes", SPOT_CODES), ("Reason codes", REASON_CODES), ("ACK status codes", ACK_STATUS_CODES),
    ("Direction codes", DIRECTION_CODES), ("Device kind codes", DEVICE_KIND_CODES),
])
def test_code_tables(heading: str, codes: tuple[str, ...]):
    assert table(SECTIONS[heading]) == [[str(i), f"`{c}`"] for i, c in enumerate(codes)]


def test_rejection_counters_table():
    assert [row[0] for row in table(SECTIONS["Receiving: the parser's rules and rejection counters"])] == \
        [f"`{k}`" for k in STATS]
    assert list(FrameParser().stats) == list(STATS)


def test_test_vectors_encode_and_decode():
    rows = table(SECTIONS["Test vectors"])
    assert {row[0] for row in rows} >= {"`SPIN`", "`WHEEL_LAYOUT`", "`PRESS_ANSWER`"}
    for name, seq, fields, frame in rows:
        name, fields, frame = name.strip("`"), json.loads(fields.strip("`")), bytes.fromhex(frame.strip("`"))
        assert encode(name, int(seq), **fields) == frame, name
        (decoded,) = FrameParser().feed(frame, 0)
        assert decoded.msg_type == name and decoded.seq == int(seq)
        assert {k: list(v) if isinstance(v, tuple) else v for k, v in decoded.fields.items()} == fields
