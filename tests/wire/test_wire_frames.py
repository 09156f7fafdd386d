"""hil.wire.frames: encode/decode of every message, the stream parser, sequence tracking."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from hil.wire.frames import (BY_NAME, MAX_BODY, MESSAGES, SPOT_CODES, STATS, SYNC, Field, Frame, FrameError,
                             FrameParser, Message, SeqTracker, crc16, decode_body, encode)
from rules.crazy_time import SPOTS


# --------------------------------------------------------------------------- strategies
def values(f: Field) -> st.SearchStrategy:
    return st.sampled_from(f.codes) if f.codes is not None else st.integers(0, (1 << 8 * f.size) - 1)


def message_fields(msg: Message) -> st.SearchStrategy[dict]:
    parts = {f.name: values(f) for f in msg.fields}
    if msg.array is not None:
        parts[msg.array.name] = st.lists(values(msg.array), max_size=255).map(tuple)
    return st.fixed_dictionaries(parts)


def frame_with(body: bytes) -> bytes:
    """A frame around any body, with a correct length and CRC."""
    covered = len(body).to_bytes(2, "little") + body
    return SYNC + covered + crc16(covered).to_bytes(2, "little")


def sample(name: str, seq: int = 0) -> bytes:
    fields = {f.name: (f.codes[-1] if f.codes else (1 << 8 * f.size) - 1) for f in BY_NAME[name].fields}
    if (a := BY_NAME[name].array) is not None:
        fields[a.name] = tuple(SPOT_CODES)
    return encode(name, seq, **fields)


def decoded(data: bytes, rx_ns: int = 0) -> Frame:
    (frame,) = FrameParser().feed(data, rx_ns)
    return frame


# --------------------------------------------------------------------------- encode / decode
def test_crc_is_ccitt_false_known_answer():
    assert crc16(b"123456789") == 0x29B1


def test_frame_layout_byte_by_byte():
    frame = encode("SPIN_START", 0x1234, spin_id=0x01020304, direction="ccw", t_ns=5)
    assert frame[:2] == b"\xa5\x5a"
    assert int.from_bytes(frame[2:4], "little") == len(frame) - 6 == 4 + 4 + 1 + 8
    assert frame[4] == 1 and frame[5:7] == b"\x34\x12" and frame[7] == 0x11
    assert frame[8:12] == b"\x04\x03\x02\x01" and frame[12] == 1 and frame[13:21] == (5).to_bytes(8, "little")
    assert int.from_bytes(frame[-2:], "little") == crc16(frame[2:-2])


def test_spot_codes_are_the_rules_spots():
    assert SPOT_CODES == ("1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time")
    assert SPOT_CODES == tuple(SPOTS)


def test_every_message_fits_the_body_limit():
    longest = encode("WHEEL_LAYOUT", 0, diameter_mm=1, sections=("1",) * 255)
    assert len(longest) - 6 <= MAX_BODY
    assert all(m.max_body <= MAX_BODY for m in MESSAGES)


@pytest.mark.parametrize("msg", MESSAGES, ids=lambda m: m.name)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), seq=st.integers(0, 0xFFFF), rx_ns=st.integers(0, 2**63))
def test_round_trip(msg: Message, data, seq: int, rx_ns: int):
    fields = data.draw(message_fields(msg))
    frame = encode(msg.name, seq, **fields)
    expected = Frame(msg.name, seq, fields, rx_ns)
    assert decode_body(frame[4:-2], rx_ns) == expected
    assert decoded(frame, rx_ns) == expected
    assert encode(msg.name, seq, **expected.fields) == frame


@pytest.mark.parametrize(("args", "fields", "match"), [
    (("NOPE", 0), {}, "unknown message type"),
    (("SPIN", 65536), {"direction": "cw"}, "seq=65536"),
    (("SPIN", -1), {"direction": "cw"}, "seq=-1"),
    (("SPIN", 0), {}, "expected fields"),
    (("SPIN", 0), {"direction": "cw", "speed": 1}, "expected fields"),
    (("SPIN", 0), {"direction": "up"}, r"SPIN.direction='up'"),
    (("ACK", 0), {"acked_seq": 65536, "status": "ok"}, r"ACK.acked_seq=65536: expected an integer 0..65535"),
    (("ACK", 0), {"acked_seq": 1.0, "status": "ok"}, "acked_seq=1.0"),
    (("PRESS", 0), {"seat": 1, "spot": "crazy-time", "stake_cents": -1}, "stake_cents=-1"),
    (("PRESS", 0), {"seat": 1, "spot": "7", "stake_cents": 100}, "spot='7'"),
    (("SPIN_STOP", 0), dict(spin_id=1, section_index=0, on_peg=2, direction="cw", revolutions_milli=0,
                            pegs_passed=0, start_ns=0, stop_ns=0), "on_peg=2"),
    (("WHEEL_LAYOUT", 0), {"diameter_mm": 1600, "sections": ("1",) * 256}, "at most 255"),
    (("WHEEL_LAYOUT", 0), {"diameter_mm": 1600, "sections": ("1", "3")}, "sections='3'"),
])
def test_encode_rejects_bad_arguments(args, fields, match):
    with pytest.raises(ValueError, match=match):
        encode(*args, **fields)


@pytest.mark.parametrize(("body", "kind"), [
    (b"\x01\x00\x00", "bad_length"),
    (b"\x02\x00\x00\x10\x00", "bad_version"),
    (b"\x01\x00\x00\x7f", "unknown_type"),
    (b"\x01\x00\x00\x10", "bad_payload"),  # SPIN without its direction
    (b"\x01\x00\x00\x10\x00\x00", "bad_payload"),  # SPIN with one byte too many
    (b"\x01\x00\x00\x10\x02", "bad_payload"),  # direction code 2
    (b"\x01\x00\x00\x14\x40\x06\x02\x00", "bad_payload"),  # WHEEL_LAYOUT: n = 2, one section
    (b"\x01\x00\x00\x14\x40\x06\x01\x08", "bad_payload"),  # spot code 8
    (b"\x01\x00\x00\x14\x40\x06", "bad_payload"),  # WHEEL_LAYOUT without n
])
def test_decode_body_names_the_rejection(body: bytes, kind: str):
    with pytest.raises(FrameError) as e:
        decode_body(body, 0)
    assert e.value.kind == kind


def test_flags_decode_to_bool_and_reject_other_values():
    frame = decoded(sample("PRESS_ANSWER"))
    assert frame.fields["accepted"] is True and frame.fields["reason"] == "invalid_stake"
    body = bytearray(sample("PRESS_ANSWER")[4:-2])
    body[4 + 10] = 2  # accepted
    with pytest.raises(FrameError, match="accepted"):
        decode_body(bytes(body), 0)


# --------------------------------------------------------------------------- parser
ALL = [sample(m.name, seq) for seq, m in enumerate(MESSAGES)]
STREAM = b"".join(ALL)
ENDS = [sum(map(len, ALL[:i + 1])) for i in range(len(ALL))]


def clean_stats(parser: FrameParser, **expected: int) -> None:
    assert parser.stats == dict.fromkeys(STATS, 0) | expected


def test_split_at_every_byte_boundary():
    for cut in range(len(STREAM) + 1):
        parser = FrameParser()
        frames = parser.feed(STREAM[:cut], 1) + parser.feed(STREAM[cut:], 2)
        assert [f.seq for f in frames] == list(range(len(MESSAGES))), cut
        assert [f.rx_ns for f in frames] == [1 if end <= cut else 2 for end in ENDS], cut
        clean_stats(parser, frames_ok=len(MESSAGES))
        assert parser.pending == 0


def test_byte_by_byte_stamps_each_frame_with_its_last_byte():
    parser = FrameParser()
    frames = [f for i, b in enumerate(STREAM) for f in parser.feed(bytes([b]), i)]
    assert [f.rx_ns for f in frames] == [end - 1 for end in ENDS]


@pytest.mark.parametrize("garbage", [b"\x00", b"\xa5", b"\x5a\xa5", b"\xa5\x5a", b"\xa5\x5a\x05", b"\xa5\x5a\x05\x00",
                                     b"\xa5\x5a\x05\x00\x01", bytes(range(256)), b"\xa5" * 7])
def test_garbage_before_and_between_frames(garbage: bytes):
    parser = FrameParser()
    stream = garbage + ALL[0] + garbage + ALL[1] + garbage + ALL[2]
    frames = parser.feed(stream, 0)
    assert [f.seq for f in frames] == [0, 1, 2]
    assert parser.stats["frames_ok"] == 3 and parser.pending == 0
    assert parser.stats["garbage_bytes"] == 3 * len(garbage)


def test_good_frame_inside_a_bad_candidates_span_is_recovered():
    # A frame cut short: its length claims the following frame's bytes; the CRC fails.
    parser = FrameParser()
    frames = parser.feed(ALL[6][:-5] + ALL[7], 0)
    assert [f.seq for f in frames] == [7]
    clean_stats(parser, frames_ok=1, crc_error=1, garbage_bytes=len(ALL[6]) - 5)


@pytest.mark.parametrize(("bad", "kind", "skipped"), [
    (ALL[3][:9] + bytes([ALL[3][9] ^ 0x01]) + ALL[3][10:], "crc_error", len(ALL[3])),
    (b"\xa5\x5a\x03\x00", "bad_length", 4),
    (b"\xa5\x5a" + (MAX_BODY + 1).to_bytes(2, "little"), "bad_length", 4),
    (frame_with(b"\x02\x00\x00\x10\x00"), "bad_version", 11),
    (frame_with(b"\x01\x00\x00\x7f"), "unknown_type", 10),
    (frame_with(b"\x01\x00\x00\x10\x00\x00"), "bad_payload", 12),
    (frame_with(b"\x01\x00\x00\x13" + bytes(31)), "bad_payload", 41),
])
def test_each_rejection_is_counted_and_the_next_frame_recovered(bad: bytes, kind: str, skipped: int):
    parser = FrameParser()
    frames = parser.feed(ALL[0] + bad + ALL[1], 0)
    assert [f.seq for f in frames] == [0, 1]
    clean_stats(parser, frames_ok=2, garbage_bytes=skipped, **{kind: 1})


def test_expire_discards_a_truncated_frame_only_after_the_timeout():
    parser = FrameParser()
    assert parser.feed(ALL[0] + ALL[1][:10], 100) != []
    assert parser.expire(now_ns=149, timeout_ns=50) == [] and parser.pending == 10
    assert parser.expire(now_ns=150, timeout_ns=50) == []
    clean_stats(parser, frames_ok=1, truncated=1, garbage_bytes=10)
    assert parser.pending == 0
    assert [f.seq for f in parser.feed(ALL[2], 200)] == [2]


def test_expire_recovers_a_good_frame_held_behind_a_false_candidate():
    parser = FrameParser()
    assert parser.feed(b"\xa5\x5a\x00\x02", 10) == []  # claims 512 bytes: waits for them
    assert parser.feed(ALL[4], 20) == [] and parser.feed(b"\xa5", 30) == []
    frames = parser.expire(now_ns=1030, timeout_ns=1000)
    assert [(f.seq, f.rx_ns) for f in frames] == [(4, 20)]
    clean_stats(parser, frames_ok=1, truncated=1, garbage_bytes=5)


def test_a_last_sync_byte_waits_for_the_next_chunk():
    parser = FrameParser()
    assert parser.feed(b"\x00\xa5", 1) == [] and parser.pending == 1
    assert [f.seq for f in parser.feed(ALL[0][1:], 2)] == [0]
    clean_stats(parser, frames_ok=1, garbage_bytes=1)


def test_parser_accounts_for_every_byte_of_random_input():
    rng = random.Random(1)
    chunks = [rng.randbytes(rng.randrange(64)) for _ in range(500)]
    parser = FrameParser()
    for chunk in chunks:
        assert parser.feed(chunk, 0) == []
    assert parser.expire(now_ns=1, timeout_ns=1) == []
    assert parser.pending == 0 and parser.stats["garbage_bytes"] == sum(map(len, chunks))


# --------------------------------------------------------------------------- fuzz: mutated frames
MUTATIONS = ("none", "duplicate", "bitflip", "truncate", "insert", "delete", "random")


def random_fields(msg: Message, rng: random.Random) -> dict:
    def value(f: Field):
        top = (1 << 8 * f.size) - 1
        return rng.choice(f.codes) if f.codes is not None else rng.choice((0, top, rng.randint(0, top)))
    fields = {f.name: value(f) for f in msg.fields}
    if msg.array is not None:
        fields[msg.array.name] = tuple(value(msg.array) for _ in range(rng.randrange(60)))
    return fields


def mutate(frame: bytes, mutation: str, rng: random.Random) -> bytes:
    at = rng.randrange(len(frame))
    return {
        "none": lambda: frame,
        "duplicate": lambda: frame + frame,
        "bitflip": lambda: frame[:at] + bytes([frame[at] ^ 1 << rng.randrange(8)]) + frame[at + 1:],
        "truncate": lambda: frame[:at],
        "insert": lambda: frame[:at] + rng.randbytes(rng.randint(1, 4)) + frame[at:],
        "delete": lambda: frame[:at] + frame[at + 1:],
        "random": lambda: rng.randbytes(rng.randrange(65)),
    }[mutation]()


@st.composite
def batches(draw, size: int) -> tuple[list[tuple[str, bytes, tuple[str, dict]]], random.Random]:
    """``size`` frames, each (mutation, bytes sent, (type, fields)); frame i has seq i, so each
    is identifiable. Hypothesis picks the types and mutations; a seeded PRNG fills in field
    values and mutation details (drawing every byte through Hypothesis costs ~100x more)."""
    plan = draw(st.lists(st.tuples(st.sampled_from(MESSAGES), st.sampled_from(MUTATIONS)),
                         min_size=size, max_size=size))
    rng = random.Random(draw(st.integers(0, 2**64)))
    batch = []
    for seq, (msg, mutation) in enumerate(plan):
        fields = random_fields(msg, rng)
        batch.append((mutation, mutate(encode(msg.name, seq, **fields), mutation, rng), (msg.name, fields)))
    return batch, rng


def check_batch(batch, rng: random.Random) -> tuple[int, int]:
    """Feed a batch in random chunks; assert what the parser guarantees. Returns the number of
    frames fed and of corrupted candidates that passed the CRC by chance."""
    stream = b"".join(data for _, data, _ in batch)
    parser, frames, pos, chunk_ends = FrameParser(), [], 0, []
    while pos < len(stream):
        step = rng.choice((1, 2, 7, 64, 600))
        frames += parser.feed(stream[pos:pos + step], len(chunk_ends))
        pos = min(pos + step, len(stream))
        chunk_ends.append(pos)
    frames += parser.expire(now_ns=len(chunk_ends) + 10, timeout_ns=10)

    # Every byte is in a decoded frame or counted as discarded; nothing is left waiting.
    assert parser.pending == 0
    decoded_bytes = sum(len(encode(f.msg_type, f.seq, **f.fields)) for f in frames)
    assert decoded_bytes + parser.stats["garbage_bytes"] == len(stream)
    assert parser.stats["frames_ok"] == len(frames)
    # What must come out: every frame sent that is intact in the stream — within its piece or
    # pieced together across a mutation — in order, stamped with the chunk that brought its
    # last byte; where two intact frames overlap, the one that starts first. Anything else is
    # a corrupted candidate that passed the CRC by chance (p = 2**-16 per candidate; decoded,
    # or rejected as a frame), which may hide the frames that begin inside its span.
    sent = [encode(name, seq, **fields) for seq, (_, _, (name, fields)) in enumerate(batch)]
    intact = sorted((at, seq) for seq, frame in enumerate(sent) for at in find_all(stream, frame))
    expected, taken = [], 0
    for at, seq in intact:
        if at >= taken:
            taken = at + len(sent[seq])
            expected.append((seq, *batch[seq][2], next(i for i, e in enumerate(chunk_ends) if e >= taken)))
    got = [(f.seq, f.msg_type, f.fields, f.rx_ns) for f in frames]
    false_passes = sum(g not in expected for g in got) + sum(
        parser.stats[k] for k in ("bad_version", "unknown_type", "bad_payload"))
    assert got == expected or false_passes, (got, expected)
    return sum(2 if m == "duplicate" else 1 for m, _, _ in batch), false_passes


def find_all(data: bytes, part: bytes) -> list[int]:
    at = data.find(part)
    found = []
    while at >= 0:
        found.append(at)
        at = data.find(part, at + 1)
    return found


@pytest.mark.parametrize(("examples", "per_batch"), [
    (100, 120),
    # 140k batches, a third of a minute on one core: the soak tier (the live stubs are fuzzed with 10^4
    # frames per wire in the default suite, tests/stubs/test_stub_fuzz.py)
    pytest.param(700, 200, marks=[pytest.mark.slow, pytest.mark.soak]),
])
def test_fuzz_random_and_mutated_frames(examples: int, per_batch: int):
    results: list[tuple[int, int]] = []

    # Derandomized: the same batches on every run, so the false-pass bound below (a CRC-16 count, heavy
    # tailed: one CI run's fresh draw found 4 in 13,579 frames) is a fixed fact of this code, not a coin
    # toss per run; the soak tier's 140k batches are the volume sample.
    # No shrinking: a batch's field values and mutations come from one seeded PRNG, so a
    # smaller plan is a different batch; the failing example is reported as found.
    @settings(max_examples=examples, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate),
              suppress_health_check=[HealthCheck.large_base_example])
    @given(batch_rng=batches(per_batch))
    def run(batch_rng):
        results.append(check_batch(*batch_rng))

    run()
    fed, false_passes = map(sum, zip(*results))
    assert fed >= 10_000
    assert false_passes <= 2 + fed // 50_000  # measured: 3 in 686k frames fed (CRC-16: 2**-16 per candidate)


# --------------------------------------------------------------------------- sequence numbers
def test_seq_tracker_in_order_with_wrap():
    tracker = SeqTracker()
    assert [tracker.observe(s) for s in (65534, 65535, 0, 1)] == [0, 0, 0, 0]
    assert (tracker.lost, tracker.repeated, tracker.expected) == (0, 0, 2)


def test_seq_tracker_counts_lost_and_repeated_frames():
    tracker = SeqTracker()
    assert [tracker.observe(s) for s in (10, 11, 14, 14, 12, 15, 65534)] == [0, 0, 2, -1, -3, 0, -18]
    assert (tracker.lost, tracker.repeated, tracker.expected) == (2, 3, 16)
    tracker.reset()
    assert tracker.observe(0) == 0 and tracker.expected == 1


def test_seq_tracker_gap_across_the_wrap():
    tracker = SeqTracker()
    assert tracker.observe(65530) == 0 and tracker.observe(4) == 9
    assert tracker.lost == 9
