"""Done-when of issue 12 § 1: a live automatic roulette wheel's serial log (six games, a power-up
and a power-off; tests/fixtures/slingshot/live-wheel.log, written from the issue's description of
the wheel, not by the project's stub) replayed over a pty at its own timing (20x compressed, the
rig's clock at the same scale) to ``croupier run`` in follow mode: ``croupier outcomes`` lists
6/6 results, the power-off voids its round within 1 s of the wheel's ``*P 0``, and no valid line
is counted as garbled. The same six results from ``croupier outcomes --from slingshot`` on the
log itself."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from firmware_stubs.slingshot_replay import Replayer
from hil.cli import app
from hil.trace import TraceReader
from hil.wire.slingshot import parse_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slingshot"
LOG = FIXTURES / "live-wheel.log"
SCENARIO = FIXTURES / "replay-scenario.yaml"
SCALE = 20
#: the games the log shows (spin#, number, rotor direction, rotor rpm of the game's first state-3 line)
GAMES = [(11, 27, "ccw", 176), (12, 15, "cw", 142), (13, 6, "ccw", 177), (14, 0, "cw", 133), (15, 32, "ccw", 168),
         (16, 9, "cw", 151)]
runner = CliRunner()


def _outcomes(*args: str) -> dict:
    got = runner.invoke(app, ["outcomes", *args, "--json"])
    assert got.exit_code == 0, got.output
    return json.loads(got.stdout)


def test_a_live_wheels_log_from_the_raw_file():
    out = _outcomes("--from", "slingshot", str(LOG))
    rows = out["outcomes"]
    assert [(r["spin"], r["result"], r["direction"], r["rotor_rpm"]) for r in rows if r["status"] == "settled"] == GAMES
    assert rows[0]["after_power_up"] and rows[0]["spin"] == 11  # the pending game, replayed after power-up
    (void,) = [r for r in rows if r["status"] == "void"]
    assert (void["spin"], void["void_reason"]) == (17, "power_off")
    counts = out["counts"][str(LOG)]
    assert counts["garbled"] == 0 and counts["bare"] == 6 and counts["power"] == 4 and counts["format"] == "seconds"
    assert counts["status"] + counts["bare"] + counts["power"] == counts["lines"]


def test_the_same_log_as_plain_lines(tmp_path: Path):
    _fmt, lines = parse_log(LOG.read_bytes())
    plain = tmp_path / "plain.log"
    plain.write_bytes(b"".join(ln.data + b"\r\n" for ln in lines))
    out = _outcomes("--from", "slingshot", str(plain))
    assert out["counts"][str(plain)]["format"] == "plain"
    assert [(r["spin"], r["result"]) for r in out["outcomes"] if r["status"] == "settled"] == [g[:2] for g in GAMES]
    assert all(r["time_s"] is None for r in out["outcomes"])


def test_replayed_over_a_pty_the_rig_follows_every_game_and_voids_the_power_off(tmp_path: Path):
    _fmt, lines = parse_log(LOG.read_bytes())
    rep = Replayer(lines, speed=SCALE).start()
    try:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "live-wheel-replay"\ntime_scale = {SCALE}\n'
                         f'[devices.ball_wheel]\nkind = "serial"\nurl = "{rep.path}?wheel=single-zero"\n'
                         'timeout_s = 0.5\n', encoding="utf-8")
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", str(SCENARIO), "--bench", str(bench), "--out", str(out)])
        assert res.exit_code in (0, 1, 3), res.output
        assert rep.done.is_set(), "the rig stopped before the log ended"
    finally:
        rep.close()
    assert rep.heard[:1] == [b"*X"] and b"*K" not in rep.heard  # followed, never commanded
    got = _outcomes(str(out))
    rows = got["outcomes"]
    settled = [r for r in rows if r["status"] == "settled"]
    assert [(r["spin"], r["result"], r["direction"], r["rotor_rpm"]) for r in settled] == GAMES  # 6/6
    assert [r["round"] for r in settled] == [1, 2, 3, 4, 5, 6]  # each settled by its own round
    (void,) = [r for r in rows if r["status"] == "void"]
    assert (void["spin"], void["void_reason"], void["direction"], void["rotor_rpm"]) == (17, "power_off", "ccw", 160)
    (trace,) = (out / "traces").glob("*.sqlite")
    with TraceReader(trace) as reader:
        events = list(reader.events())
    faults = [e.payload for e in events if e.kind == "wire_fault"]
    assert not [f for f in faults if f["kind"] in ("garbled_line", "truncated", "overlong", "missed_state",
                                                   "bare_mismatch")], faults  # no valid line counted as garbled
    off = next(e for e in events if e.kind == "wheel_power" and e.payload["what"] == "off")
    t_off = off.payload["device_time_s"]
    (hold,) = [e for e in events if e.device == "croupier" and e.kind == "round_hold"]
    assert hold.payload["reason"] == "power_off" and hold.round == 7
    assert 0 <= hold.sim_time - t_off <= 1.0, (hold.sim_time, t_off)  # held within 1 s of the *P 0 (rig time)
    voids = [e for e in events if e.device == "croupier" and e.kind == "spin_void"]
    assert [v.payload["reason"] for v in voids] == ["power_off"]
    assert 0 <= voids[0].sim_time - t_off <= 1.0, (voids[0].sim_time, t_off)  # and judged void
    ends = [e.payload for e in events if e.device == "croupier" and e.kind == "round_end"]
    assert [e["void"] for e in ends] == [False] * 6 + [True, True]
    assert {e["reason"] for e in ends if e["void"]} == {"wheel_power_off"}
    (wait,) = [e.payload for e in events if e.device == "croupier" and e.kind == "wheel_power_wait"]
    assert wait["powered_up"] is False and wait["waited_s"] <= wait["limit_s"] + 0.5  # waited once, bounded
    starts = [e.payload for e in events if e.device == "ball_wheel" and e.kind == "game_start"]
    assert [s["spin_id"] for s in starts] == [11, 12, 13, 14, 15, 16, 17] and starts[0]["after_power_up"]
    nmb = [e for e in events if e.device == "croupier" and e.kind == "no_more_bets"]
    assert [n.payload["source"] for n in nmb] == ["wheel"] * 6 + ["croupier"]  # the wheel's own, but the cut game
