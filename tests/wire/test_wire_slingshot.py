"""The Slingshot-style roulette wheel's line protocol (docs/wire/slingshot-roulette.md):
status-line grammar, the line splitter, and the rig's adapter against a scripted wheel on a pty —
garbled lines never crash anything and are recorded with their bytes."""

from __future__ import annotations

import os
import queue
import random
import re
import select
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_stubs.pty import open_pty
from hil.adapters.serial_roulette_wheel import SlingshotRouletteWheel, split_url
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.lines import LineLink
from hil.wire.lines import MAX_LINE, Line, LineParser
from hil.wire.slingshot import (DOUBLE_ZERO_WIN, MAX_SPIN, STATES, WARNINGS, BareWin, GameTracker, LineError, Power,
                                Status, format_bare, format_power, format_status, parse_line, parse_status, pocket_of,
                                win_code)

WAIT_S = 5.0

statuses = st.builds(Status, state=st.sampled_from(sorted(STATES)), spin=st.integers(0, MAX_SPIN),
                     win=st.integers(0, DOUBLE_ZERO_WIN), warning=st.integers(0, 15), speed_rpm=st.integers(0, 999),
                     direction=st.integers(0, 1))


# --------------------------------------------------------------------------- grammar
def test_status_line_byte_by_byte():
    line = format_status(Status(state=5, spin=7, win=32, warning=8 | 1, speed_rpm=30, direction=1))
    assert line == b"*X;5;007;32;9;030;1\r\n"
    assert parse_status(line) == Status(5, 7, 32, 9, 30, 1)
    assert Status(5, 7, 32, 9, 30, 1).warnings() == ["ball_removed", "void_game"]
    assert format_status(Status(6, 0, 0, 15, 0, 0)) == b"*X;6;000; 0;F;000;0\r\n"  # space-padded, as the wheel
    assert format_status(Status(6, 0, 0, 15, 0, 0), pad="zero") == b"*X;6;000;00;F;000;0\r\n"


@settings(max_examples=300, deadline=None)
@given(s=statuses)
def test_round_trip(s: Status):
    line = format_status(s)
    assert line.endswith(b"\r\n") and len(line) <= 32
    assert parse_status(line) == s == parse_status(line[:-2]) == parse_status(line[:-1])


@pytest.mark.parametrize("line", [b"*X;1;1;0;0;0;0", b"*X;3;123456789;5;a;7;1\n", b"*X;2;0042;07;f;999;0\r\n"])
def test_widths_vary_and_hex_is_either_case(line: bytes):
    s = parse_status(line)
    assert format_status(s) == b"*X;%d;%03d;%2d;%X;%03d;%d\r\n" % (s.state, s.spin, s.win, s.warning, s.speed_rpm,
                                                                      s.direction)


@pytest.mark.parametrize(("line", "reason"), [
    (b"", "not a status line"),
    (b"hello", "not a status line"),
    (b"*K", "not a status line"),
    (b"*X:5:007:32:0:030:1", "not a status line"),  # another separator
    (b"*X;7;001;00;0;000;0", "malformed status line"),  # no state 7
    (b"*X;0;001;00;0;000;0", "malformed status line"),
    (b"*X;5;001;38;0;000;0", "win# 38 is not 0..37"),
    (b"*X;5;001;00;G;000;0", "malformed status line"),
    (b"*X;5;001;00;0;000;2", "malformed status line"),  # direction 0 or 1
    (b"*X;5;001;00;0;1000;0", "malformed status line"),  # speed has three digits at most
    (b"*X;5;001;00;0;000;0;", "malformed status line"),
    (b" *X;5;001;00;0;000;0", "not a status line"),
    (b"*X;5;001;00;0;000;0\r\r\n", "malformed status line"),
    (b"*X;5;001;  6;0;000;0", "malformed status line"),  # two spaces
    (b"*X;5;001;6 ;0;000;0", "malformed status line"),  # padded on the wrong side
    (b"*X;\xff;001;00;0;000;0", "malformed status line"),
    (b"*X;5;\xd9\xa3;00;0;000;0", "malformed status line"),  # a non-ASCII digit is no digit
])
def test_garbled_lines_are_refused_with_a_reason(line: bytes, reason: str):
    with pytest.raises(LineError) as err:
        parse_status(line)
    assert err.value.reason == reason and err.value.raw == line


def test_double_zero_is_37():
    assert win_code("00") == DOUBLE_ZERO_WIN == 37 and win_code(0) == 0 and win_code(36) == 36
    assert pocket_of(37, "double-zero") == "00" and pocket_of(0, "single-zero") == 0
    with pytest.raises(ValueError, match="00"):
        pocket_of(37, "single-zero")


@pytest.mark.parametrize(("url", "port", "ours"), [
    ("/dev/ttyUSB0", "/dev/ttyUSB0", {}),
    ("/dev/pts/3?wheel=double-zero", "/dev/pts/3", {"wheel": "double-zero"}),
    ("socket://127.0.0.1:7000?logging=debug&baudrate=19200", "socket://127.0.0.1:7000?logging=debug",
     {"baudrate": "19200"}),
])
def test_the_adapters_query_keys_are_taken_out_of_the_url(url: str, port: str, ours: dict):
    assert split_url(url) == (port, ours)


# --------------------------------------------------------------------------- line splitter
def test_lines_split_at_every_byte_boundary_keep_their_bytes():
    stream = b"".join(format_status(Status(s, 1, 2, 0, 30, 0)) for s in range(1, 7)) + b"*X;6;1;2;0;0;0\n"
    for cut in range(len(stream) + 1):
        p = LineParser()
        lines = p.feed(stream[:cut], 1) + p.feed(stream[cut:], 2)
        assert b"".join(ln.raw for ln in lines) == stream and p.pending == 0
        assert [parse_status(ln.text).state for ln in lines] == [1, 2, 3, 4, 5, 6, 6]
        assert all(ln.cut is None for ln in lines) and p.stats["lines"] == 7


def test_partial_line_expires_as_truncated_and_overlong_is_cut():
    p = LineParser()
    assert p.feed(b"*X;5;00", 100) == [] and p.pending == 7
    assert p.expire(now_ns=149, timeout_ns=50) == []
    assert p.expire(now_ns=150, timeout_ns=50) == [Line(b"*X;5;00", 100, "truncated")]
    long = b"x" * (MAX_LINE + 10)
    lines = p.feed(long + b"\r\n*X;6;0;0;0;0;0\r\n", 200)
    assert [(len(ln.raw), ln.cut) for ln in lines] == [(MAX_LINE, "overlong"), (12, None), (16, None)]
    assert p.stats == {"lines": 2, "blank": 0, "truncated": 1, "overlong": 1, "bytes": 7 + len(long) + 18}


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.binary(max_size=300), max_size=30), timeout=st.booleans())
def test_every_byte_is_accounted_for(chunks: list[bytes], timeout: bool):
    p = LineParser()
    lines = [ln for i, c in enumerate(chunks) for ln in p.feed(c, i)]
    if timeout:
        lines += p.expire(now_ns=10**9, timeout_ns=1)
    assert sum(len(ln.raw) for ln in lines) + p.pending == sum(map(len, chunks))
    assert all(len(ln.raw) <= MAX_LINE or ln.cut == "overlong" for ln in lines)
    for ln in lines:  # never anything but a Status or a LineError
        try:
            parse_status(ln.text)
        except LineError:
            pass


MUTATIONS = ("none", "bitflip", "truncate", "insert", "delete", "random", "duplicate")


def mutate(line: bytes, how: str, rng: random.Random) -> bytes:
    at = rng.randrange(len(line))
    return {"none": lambda: line,
            "bitflip": lambda: line[:at] + bytes([line[at] ^ 1 << rng.randrange(8)]) + line[at + 1:],
            "truncate": lambda: line[:at],
            "insert": lambda: line[:at] + rng.randbytes(rng.randint(1, 4)) + line[at:],
            "delete": lambda: line[:at] + line[at + 1:],
            "random": lambda: rng.randbytes(rng.randrange(40)),
            "duplicate": lambda: line + line}[how]()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(st.tuples(statuses, st.sampled_from(MUTATIONS)), min_size=1, max_size=40),
       seed=st.integers(0, 2**32 - 1))
def test_fuzz_mutated_streams_lose_no_good_line(plan, seed):
    """Every unmutated line that follows a line end comes through; nothing raises."""
    rng = random.Random(seed)
    stream, wanted = b"", []
    for s, how in plan:
        line = format_status(s)
        if how == "none" and (not stream or stream.endswith(b"\n")):
            wanted.append(s)
        stream += mutate(line, how, rng)
    p = LineParser()
    cuts = sorted(rng.randrange(len(stream) + 1) for _ in range(3))
    pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    lines = [ln for i, c in enumerate(pieces) for ln in p.feed(c, i)] + p.expire(10**9, 1)
    got = []
    for ln in lines:
        try:
            got.append(parse_status(ln.text))
        except LineError:
            pass
    it = iter(got)
    assert all(any(g == w for g in it) for w in wanted), "a good line was lost"
    assert sum(len(ln.raw) for ln in lines) == len(stream)


def test_line_link_over_loop_hands_over_every_line_with_its_arrival_stamp():
    lines: queue.SimpleQueue[Line] = queue.SimpleQueue()
    link = LineLink("loop://", on_line=lines.put, silence_s=60)
    link.open()
    try:
        tx = [link.send_line(b"*X;6;000;00;0;000;0"), link.send_line("*K")]
        link.write_raw(b"\x00junk\r\n")
        got = [lines.get(timeout=WAIT_S) for _ in range(3)]
        with pytest.raises(TypeError):
            link.send("HEARTBEAT", clock_ns=0)
    finally:
        link.close()
    assert [ln.raw for ln in got] == [b"*X;6;000;00;0;000;0\r\n", b"*K\r\n", b"\x00junk\r\n"]
    assert all(ln.rx_ns >= t for ln, t in zip(got, tx))
    assert link.stats["lines"] == 3 and link.stats["tx_lines"] == 2 and link.state == "closed"


# --------------------------------------------------------------------------- the adapter vs a scripted wheel
IDLE = b"*X;6;000;00;0;000;0\r\n"


class ScriptedWheel:
    """The wheel's side of a pty, played by the test: answers ``*X`` with ``status``, records
    every host line; ``say`` writes lines. Its thread is joined by ``close``."""

    def __init__(self) -> None:
        self.pair = open_pty()
        os.set_blocking(self.pair.master_fd, False)
        self.status = IDLE
        self.heard: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scripted-wheel", daemon=True)
        self._thread.start()

    @property
    def path(self) -> str:
        return self.pair.peer_path

    def say(self, *lines: bytes) -> None:
        os.write(self.pair.master_fd, b"".join(lines))

    def _run(self) -> None:
        buf = b""
        while not self._stop.is_set():
            ready, _, _ = select.select([self.pair.master_fd], [], [], 0.02)
            if not ready:
                continue
            try:
                buf += os.read(self.pair.master_fd, 4096)
            except OSError:
                time.sleep(0.01)
                continue
            while b"\r\n" in buf:
                line, buf = buf.split(b"\r\n", 1)
                self.heard.append(line)
                if line == b"*X":
                    self.say(self.status)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.pair.close()


def line(state: int, spin: int, win: int = 0, warning: int = 0, speed: int = 30, direction: int = 0) -> bytes:
    return format_status(Status(state, spin, win, warning, speed, direction))


def run_script(url_query: str, script, timeout_s: float = 0.3):
    """The adapter on a scripted wheel; ``script(env, wheel, fake)`` is a SimPy process."""
    fake = ScriptedWheel()
    events: list[tuple[str, dict]] = []
    try:
        with IoLoop() as io:
            env = WallClockEnvironment(time_scale=1.0)
            wheel = SlingshotRouletteWheel(env, io, fake.path + url_query, lambda d, k, p: events.append((k, p)),
                                           "ball_wheel", timeout_s)
            try:
                out = env.run(env.process(script(env, wheel, fake)))
                env.run(env.timeout(0.05))  # what the reader posted meanwhile
            finally:
                wheel.close()
    finally:
        fake.close()
    return events, out, fake


def test_adapter_turns_a_game_into_the_models_telemetry_and_double_zero_into_00():
    def script(env, wheel, fake):
        ev = wheel.spin()
        yield env.timeout(0.05)
        fake.say(line(1, 1), line(2, 1, speed=31))
        yield env.timeout(0.02)
        fake.say(line(3, 1, speed=30))
        yield env.timeout(0.02)
        fake.say(line(4, 1), line(4, 1))  # the periodic line repeats the state: no new event
        yield env.timeout(0.02)
        fake.say(line(5, 1, win=37, speed=29, direction=0), line(5, 1, win=37), line(6, 1, win=37))
        yield ev | env.timeout(WAIT_S)
        return ev

    events, ev, fake = run_script("?wheel=double-zero&mode=command", script)
    assert fake.heard[:2] == [b"*X", b"*K"]
    kinds = [k for k, _ in events]
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]
    info = events[0][1]
    assert kinds[0] == "device_info" and info["wheel"] == "double-zero" and info["model"] == "slingshot-serial"
    assert len(info["pockets"]) == 38 and "00" in info["pockets"] and info["spin"] == 0
    assert [k for k in kinds if k != "wheel_state"] == ["device_info", "game_start", "ball_launch", "bets_closed",
                                                         "ball_result"]
    assert [p["state"] for k, p in events if k == "wheel_state"] == [6, 1, 2, 3, 4, 5, 6]
    r = ev.value
    assert r.pocket == "00" and info["pockets"][r.pocket_index] == "00" and r.spin_id == 1
    assert r.ball_revolutions is None and r.launch_speed_rps == 0.0 and not r.misspin
    assert r.rotor_speed_rps == 30 / 60 and r.rotor_direction == "cw"  # the game's first state-3 line's speed
    assert r.start_time_s < r.launch_time_s < r.stop_time_s and r.drop_time_s is None  # the drop is not on the wire
    result = next(p for k, p in events if k == "ball_result")
    assert {k: result[k] for k in vars(r)} == vars(r) and result["start_seen"] and result["rotor_speed_rpm"] == 30


def test_adapter_records_garbage_warnings_timeouts_and_impossible_numbers():
    garbage = [b"hello\r\n", b"*X;9;000;00;0;000;0\r\n", b"\x00\xff\x13\r\n", b"*X;5;001;38;0;000;0\r\n",
               b"x" * (MAX_LINE + 1) + b"\r\n", b"\r\n"]

    def script(env, wheel, fake):
        fake.say(*garbage)
        fake.say(line(6, 0, warning=1 | 4), line(6, 0, warning=1 | 4), line(6, 0, warning=2 | 4))
        unanswered = wheel.spin()  # nobody answers: a timeout, the event stays untriggered
        yield env.timeout(0.6)
        impossible = wheel.spin()
        yield env.timeout(0.05)
        fake.say(line(1, 1), line(2, 1), line(3, 1), line(4, 1), line(5, 1, win=37))  # 00 on a single-zero wheel
        yield env.timeout(0.1)
        return unanswered, impossible

    events, (unanswered, impossible), _fake = run_script("?mode=command", script)
    assert not unanswered.triggered
    assert impossible.triggered and impossible.value.reason == "bad_win"  # the game is void: nothing to settle
    faults = [p for k, p in events if k == "wire_fault"]
    by_kind = [f["kind"] for f in faults]
    # warnings 1 and 2 between games are the wheel's warnings, not faults; 4 (sensor/motor) is a fault
    assert by_kind == ["garbled_line"] * 4 + ["overlong", "garbled_line"] + ["sensor_fault", "timeout", "bad_win"]
    assert [p["bit"] for k, p in events if k == "wheel_warning"] == [1, 4, 2]
    sent = b"".join(garbage[:5])
    recorded = b"".join(bytes.fromhex(f["raw_hex"]) for f in faults[:6])
    assert recorded == sent, "every garbled byte is in the trace"
    assert faults[0]["line"] == "hello\\r\\n" and "\\x00\\xff" in faults[2]["line"]
    assert "ball_result" not in [k for k, _ in events]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk=st.lists(st.binary(min_size=1, max_size=60), min_size=1, max_size=20))
def test_fuzz_the_adapter_never_raises_and_records_every_bad_line(junk: list[bytes]):
    lines = [Line(j, 0) for j in junk]

    def script(env, wheel, _fake):
        for ln in lines:
            wheel._on_line(ln)  # as the reader thread would
        yield env.timeout(0.02)
        return None

    events, _, _ = run_script("", script)
    bad = [ln for ln in lines if not ln.blank and not _parses(ln.raw)]
    faults = [p for k, p in events if k == "wire_fault"]
    assert [bytes.fromhex(f["raw_hex"]) for f in faults if f["kind"] == "garbled_line"] == [ln.raw for ln in bad]


def _parses(raw: bytes) -> bool:
    try:
        parse_line(raw)
    except LineError:
        return False
    return True


PAGE = Path(__file__).resolve().parents[2] / "docs" / "wire" / "slingshot-roulette.md"


def test_the_pages_tables_are_the_codes():
    page = PAGE.read_text(encoding="utf-8")

    def table(heading: str) -> dict[int, str]:
        section = page.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
        return {int(code): name for code, name in re.findall(r"^\| (\d+) \| `(\w+)` \|", section, re.M)}

    assert table("States") == STATES
    assert table("Warnings") == WARNINGS
    assert "**37 is `00`**" in page and DOUBLE_ZERO_WIN == 37
    assert "`*K`" in page and "`*u 1`" in page and "`*X`" in page


# --------------------------------------------------------------------------- the real wheel (issue 12, section 1)
@pytest.mark.parametrize(("line", "item"), [
    (b"*X;5;013; 6;0;177;1\r\n", Status(5, 13, 6, 0, 177, 1)),  # a one-digit number, space-padded
    (b"*X;5;013;06;0;177;1", Status(5, 13, 6, 0, 177, 1)),  # zero-padded is taken too
    (b"27\r\n", BareWin(27)), (b" 6", BareWin(6)), (b"0", BareWin(0)), (b"37", BareWin(37)),
    (b"*P 1\r\n", Power("on")), (b"*P 0", Power("off")), (b"*P OK", Power("ok")),
])
def test_the_real_wheels_lines_are_all_valid(line: bytes, item):
    assert parse_line(line) == item


@pytest.mark.parametrize(("line", "reason"), [
    (b"38", "bare win# 38 is not 0..37"), (b"*P 2", "malformed power line"), (b"*P  1", "malformed power line"),
    (b"*Pok", "malformed power line"), (b"  6", "not a status line"), (b"6 ", "not a status line"),
])
def test_near_misses_of_the_real_lines_are_refused(line: bytes, reason: str):
    with pytest.raises(LineError) as err:
        parse_line(line)
    assert err.value.reason == reason


def test_padding_and_the_bare_and_power_lines_round_trip():
    s = Status(5, 13, 6, 0, 177, 1)
    assert format_status(s) == b"*X;5;013; 6;0;177;1\r\n" and parse_line(format_status(s)) == s
    assert format_bare(6) == b" 6\r\n" and format_bare(6, "zero") == b"06\r\n" and format_bare(27) == b"27\r\n"
    assert [format_power(w) for w in ("on", "off", "ok")] == [b"*P 1\r\n", b"*P 0\r\n", b"*P OK\r\n"]


def feed(tracker: GameTracker, *lines: bytes, t0: float = 0.0, dt: float = 0.5) -> list[tuple[str, object]]:
    out = []
    for i, ln in enumerate(lines):
        out += tracker.feed(parse_line(ln), t0 + i * dt)
    return out


def game_lines(spin: int, win: int, speed: int = 150, direction: int = 1, first: int = 2) -> list[bytes]:
    s = lambda st, w, v: format_status(Status(st, spin, w, 0, v, direction))  # noqa: E731
    return ([s(1, 0, 20)] if first == 1 else []) + [s(2, 0, 0), s(2, 0, 90), s(3, 0, speed), s(3, 0, speed - 1),
                                                    s(4, 0, speed - 2), format_bare(win), s(5, win, speed - 3)]


def test_games_by_state_transitions_power_up_replay_and_power_off():
    tr = GameTracker()
    six = format_status(Status(6, 11, 19, 0, 0, 0))
    kinds = feed(tr, six, six, b"*P 1", b"*P OK", *game_lines(11, 27, 176, first=1), *game_lines(12, 6, 142, 0),
                 *game_lines(13, 0, 133)[:4], b"*P 0", b"*P OK", format_status(Status(6, 13, 6, 0, 120, 1)),
                 format_status(Status(6, 13, 6, 0, 0, 1)))
    assert [g.spin for g in tr.games] == [11, 12, 13]
    g11, g12, g13 = tr.games
    assert g11.after_power_up and g11.start_seen and (g11.win, g11.bare_win, g11.status) == (27, 27, "settled")
    assert g11.speed_rpm == 176 and g11.direction == 1  # its own state-3 line, not a state-2 line
    assert g12.states == [2, 3, 4, 5] and not g12.after_power_up and g12.speed_rpm == 142 and g12.direction == 0
    p0 = 4 + 8 + 7 + 4  # the *P 0 line's index: voided at once, at its time
    assert (g13.status, g13.void, g13.void_s) == ("void", "power_off", p0 * 0.5)
    assert not tr.powered and [k for k, _ in kinds].count("fault") == 0
    # the wheel comes back: state 6 showing the pending game's number, *P 1 / *P OK, state 1, the game replayed
    feed(tr, format_status(Status(6, 13, 6, 0, 0, 1)), b"*P 1", b"*P OK", *game_lines(13, 32, 168, first=1), t0=100)
    assert [g.spin for g in tr.games] == [11, 12, 13, 13] and tr.powered
    assert tr.games[3].after_power_up and tr.games[3].status == "settled" and tr.games[3].win == 32
    assert tr.counts == {"status": 2 + 7 + 6 + 4 + 2 + 1 + 7, "bare": 3, "power": 6}  # every line valid


def test_a_game_already_under_way_is_recorded_not_taken_for_one_whose_start_was_seen():
    tr = GameTracker()
    kinds = [k for k, _ in feed(tr, *game_lines(7, 5)[3:])]  # the rig began to listen in state 3
    assert kinds[0] == "game_unseen" and "game_start" not in kinds and "result" in kinds
    assert not tr.games[0].start_seen and tr.games[0].win == 5
    kinds = [k for k, _ in feed(tr, *game_lines(8, 9))]
    assert kinds[0] == "game_start" and tr.games[1].start_seen
    tr2 = GameTracker()
    assert [k for k, _ in feed(tr2, *game_lines(7, 5)[1:])][0] == "game_unseen"  # state 2 at connect: not seen either


def test_a_new_game_is_seen_by_its_transition_even_under_the_same_spin_number():
    tr = GameTracker()
    feed(tr, format_status(Status(6, 0, 0, 0, 0, 0)), *game_lines(4, 1), *game_lines(4, 2))
    assert [(g.spin, g.win, g.start_seen) for g in tr.games] == [(4, 1, True), (4, 2, True)]


@pytest.mark.parametrize(("bits", "state", "void", "fault"), [
    (1, 3, "ball_removed", None), (2, 4, "wrong_direction", None), (8, 3, "void_game", None),
    (4, 2, "sensor_fault", "sensor_fault"), (1, 2, None, None), (2, 2, None, None),
])
def test_warnings_void_or_fault_as_the_page_says(bits: int, state: int, void, fault):
    tr = GameTracker()
    lines = [format_status(Status(6, 0, 0, 0, 0, 0))] + game_lines(3, 14)
    at = next(i for i, ln in enumerate(lines) if ln.startswith(b"*X;%d;" % state))
    lines = lines[:at] + [ln.replace(b";0;", b";%X;" % bits, 1) if ln.startswith(b"*X") else ln for ln in lines[at:]]
    out = feed(tr, *lines)
    (g,) = tr.games
    assert g.void == void and g.status == ("settled" if void is None else "void")
    assert [p["bit"] for k, p in out if k == "warning"] == [bits]
    assert [p["kind"] for k, p in out if k == "fault"] == ([fault] if fault else [])


def test_state_6_mid_game_without_power_off_is_wheel_idle_and_skipped_states_are_a_fault():
    tr = GameTracker()
    feed(tr, format_status(Status(6, 0, 0, 0, 0, 0)), *game_lines(1, 3)[:3], format_status(Status(6, 1, 0, 0, 0, 1)))
    assert tr.games[0].void == "wheel_idle"
    s = lambda st, w=0: format_status(Status(st, 2, w, 0, 150, 0))  # noqa: E731
    out = feed(tr, s(2), s(5, 17))
    assert [p["kind"] for k, p in out if k == "fault"] == ["missed_state"] and tr.games[1].win == 17
    out = feed(tr, format_status(Status(2, 3, 17, 0, 0, 1)), format_status(Status(3, 3, 17, 0, 150, 1)),
               format_status(Status(4, 3, 17, 0, 150, 1)), b"21", format_status(Status(5, 3, 22, 0, 150, 1)))
    assert [p["kind"] for k, p in out if k == "fault"] == ["bare_mismatch"]


def test_the_adapter_never_binds_a_command_to_a_game_whose_start_it_did_not_see():
    def script(env, wheel, fake):
        ev = wheel.spin()  # *K pending
        yield env.timeout(0.05)
        fake.say(*(ln + b"\r\n" if not ln.endswith(b"\r\n") else ln for ln in game_lines(9, 4)[3:]))  # 3, 4, 5 only
        yield env.timeout(0.2)
        return ev

    events, ev, _fake = run_script("?mode=command", script, timeout_s=5.0)
    assert not ev.triggered  # recorded, never settled on
    kinds = [k for k, _ in events]
    assert "game_unseen" in kinds and "game_start" not in kinds
    result = next(p for k, p in events if k == "ball_result")
    assert result["start_seen"] is False and result["spin_id"] == 9 and "wire_fault" not in kinds


def test_a_tracker_with_a_memory_limit_keeps_the_last_games_and_counts_on():
    tr = GameTracker(keep=3)
    lines = [format_status(Status(6, 0, 0, 0, 0, 0))]
    for spin in range(1, 11):
        lines += game_lines(spin, spin % 37)
    feed(tr, *lines)
    assert [g.spin for g in tr.games] == [8, 9, 10] and [g.index for g in tr.games] == [8, 9, 10]
