"""hil.transport.serial.SerialLink over pyserial's ``loop://``: what is sent comes back as frames
stamped where the bytes arrived; garbage and corrupted frames are counted and reported, and the
link keeps going; commands nobody ACKs time out; ``close()`` ends the reader thread."""

from __future__ import annotations

import queue
import time

from hil.transport.serial import SerialLink
from hil.wire.frames import encode

WAIT_S = 5.0


def collect(q: queue.SimpleQueue, n: int) -> list:
    return [q.get(timeout=WAIT_S) for _ in range(n)]


def test_frames_round_trip_with_arrival_stamps():
    frames, faults = queue.SimpleQueue(), queue.SimpleQueue()
    link = SerialLink("loop://", timeout_s=5.0, on_frame=frames.put, on_fault=lambda k, d: faults.put(k))
    link.open()
    try:
        sent = [link.send_event("HEARTBEAT", clock_ns=i) for i in range(3)]
        sent.append(link.send_event("WHEEL_LAYOUT", diameter_mm=1830, sections=("1", "2", "crazy-time")))
        got = collect(frames, 4)
    finally:
        link.close()
    assert [f.msg_type for f in got] == ["HEARTBEAT"] * 3 + ["WHEEL_LAYOUT"]
    assert [f.seq for f in got] == [seq for seq, _ in sent] == [0, 1, 2, 3]
    assert [f.fields["clock_ns"] for f in got[:3]] == [0, 1, 2]
    assert got[3].fields["sections"] == ("1", "2", "crazy-time")
    assert all(f.rx_ns >= tx for f, (_, tx) in zip(got, sent))  # stamped on arrival, after the write
    assert link.stats["frames_ok"] == 4 and link.stats["seq_lost"] == 0 and faults.empty()
    assert link.state == "closed"


def test_garbled_bytes_are_counted_and_the_link_keeps_going():
    frames, faults = queue.SimpleQueue(), queue.SimpleQueue()
    link = SerialLink("loop://", timeout_s=5.0, on_frame=frames.put, on_fault=lambda k, d: faults.put(k))
    link.open()
    try:
        link.send_event("HEARTBEAT", clock_ns=1)
        bad = bytearray(encode("HEARTBEAT", 1, clock_ns=2))
        bad[-1] ^= 0xFF  # CRC broken
        link.write_raw(b"\x00\x13garbage" + bytes(bad))
        link.send_event("HEARTBEAT", clock_ns=3)  # seq 1 again: the corrupted one used seq 1 "on paper"
        link.write_raw(b"\xa5\x5a\xff\xff")  # a length no frame has
        link.send_event("HEARTBEAT", clock_ns=4)
        got = collect(frames, 3)
        kinds = set()
        deadline = time.monotonic() + WAIT_S
        while not {"crc_error", "bad_length"} <= kinds and time.monotonic() < deadline:
            kinds.add(faults.get(timeout=WAIT_S))
        stats = link.stats
    finally:
        link.close()
    assert [f.fields["clock_ns"] for f in got] == [1, 3, 4]
    assert {"crc_error", "bad_length"} <= kinds
    assert stats["crc_error"] >= 1 and stats["bad_length"] >= 1 and stats["garbage_bytes"] > 0
    assert stats["frames_ok"] == 3


def test_a_command_nobody_acks_times_out_and_a_gap_is_a_seq_fault():
    frames, faults = queue.SimpleQueue(), queue.SimpleQueue()
    link = SerialLink("loop://", timeout_s=0.05, on_frame=frames.put, on_fault=lambda k, d: faults.put((k, d)))
    link.open()
    try:
        link.send("SPIN", direction="cw")  # loop:// hands it back to us; no device ACKs it
        assert frames.get(timeout=WAIT_S).msg_type == "SPIN"
        kind, detail = faults.get(timeout=WAIT_S)
        assert kind == "timeout" and "SPIN" in detail
        link.write_raw(encode("HEARTBEAT", 7, clock_ns=0))  # seq 1..6 never came
        assert frames.get(timeout=WAIT_S).seq == 7
        assert faults.get(timeout=WAIT_S) == ("seq_gap", "6 frame(s) lost before seq 7")
    finally:
        link.close()
    assert link.stats["seq_lost"] == 6
