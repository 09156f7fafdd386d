"""The games of a roulette wheel, one row each: ``croupier outcomes`` (docs/wire/slingshot-roulette.md,
"Outcomes").

Two sources, one table:

* **a trace** (``croupier run``'s ``*.sqlite``, or a run's out folder: every trace in its
  ``traces/``): the ball wheel's own reports (``game_start`` / ``game_unseen``, ``ball_result``,
  ``game_void``; a commanded simulated wheel reports only ``ball_result``) joined with the
  croupier's judgement of each spin (``spin_valid`` / ``spin_void``) and its round;
* **a raw wheel log** (``--from slingshot FILE``, as labs receive them from studios): the lines
  fed through the rig's own ``hil.wire.slingshot.GameTracker``, so a log and a live wheel are read
  by the same code. Two line formats, decided per file (``read_log``): plain lines (the wheel's
  lines as they came, no times), or each line after a timestamp and exactly one space or tab —
  seconds (``12.250``) or ISO 8601 (``2026-11-30T14:02:11.250``, ``Z`` or an offset allowed; a
  space instead of ``T`` too). Blank lines and lines starting with ``#`` are skipped; CR LF or LF.

Each row: ``spin`` (the device's spin number), ``result`` (the pocket, ``"00"`` for 37 on a double
zero wheel), ``direction`` (of the rotor), ``rotor_rpm``, ``time_s`` (the result's time: the
trace's rig time, or the log's seconds / ISO time; None for a plain log), ``time`` (a trace: the
wall clock of the result, UTC ISO 8601; an ISO log: its timestamp), ``status`` (``settled``:
the wheel showed its number and nothing voided it; ``void`` with ``void_reason``; ``open``: the
source ended mid-game) and, from a trace, ``round`` (the round that settled on it, or None).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hil.wire.slingshot import DOUBLE_ZERO_WIN, Game, GameTracker, LineError, LogLine, parse_line, parse_log

#: the columns, in order
COLUMNS = ("source", "game", "spin", "result", "direction", "rotor_rpm", "time_s", "time", "status", "void_reason",
           "round", "start_seen", "after_power_up", "line")



class OutcomesError(ValueError):
    """A source that cannot be read (``croupier outcomes`` exits 2 with it)."""


@dataclass
class Outcome:
    source: str
    game: int
    spin: int | None
    result: int | str | None
    direction: str | None
    rotor_rpm: int | None
    time_s: float | None
    time: str | None  # a trace's wall clock of the result (UTC, ISO 8601); a log's own ISO timestamp
    status: str  # settled | void | open
    void_reason: str | None = None
    round: int | None = None
    start_seen: bool | None = None
    after_power_up: bool | None = None
    line: int | None = None  # the log's line number of the result (or the void)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Outcomes:
    rows: list[Outcome] = field(default_factory=list)
    #: per source: lines by class (status, bare, power, garbled, skipped) or the trace's counts
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        settled = sum(r.status == "settled" for r in self.rows)
        return {"games": len(self.rows), "settled": settled, "void": sum(r.status == "void" for r in self.rows),
                "open": sum(r.status == "open" for r in self.rows), "counts": self.counts,
                "outcomes": [r.to_json() for r in self.rows]}

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in self.rows:
            d = r.to_json()
            w.writerow(["" if d[c] is None else d[c] for c in COLUMNS])
        return buf.getvalue()


def _pocket(win: int | None, wheel: str) -> int | str | None:
    if win is None:
        return None
    return "00" if win == DOUBLE_ZERO_WIN and wheel == "double-zero" else win


# --------------------------------------------------------------------------- a raw wheel log
def read_log(path: Path) -> tuple[str, list[LogLine]]:
    """A raw wheel log's format and lines (``hil.wire.slingshot.parse_log``)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise OutcomesError(f"{path}: {exc.strerror or exc}") from None
    try:
        return parse_log(raw)
    except ValueError as exc:
        raise OutcomesError(f"{path}: {exc}") from None


def from_slingshot_log(path: Path, wheel: str = "single-zero") -> Outcomes:
    """A raw Slingshot-style wheel log, read by the rig's ``GameTracker``: one row per game."""
    fmt, lines = read_log(path)
    tracker = GameTracker()
    counts = {"lines": len(lines), "status": 0, "bare": 0, "power": 0, "garbled": 0}
    at: dict[int, tuple[int, str | None]] = {}  # game index -> (line number, ISO text) of its result / void
    garbled: list[int] = []
    for n, (lineno, t, stamp, data) in enumerate((ln.lineno, ln.t, ln.stamp, ln.data) for ln in lines):
        try:
            item = parse_line(data)
        except LineError:
            counts["garbled"] += 1
            garbled.append(lineno)
            continue
        for kind, what in tracker.feed(item, t if t is not None else float(n)):
            if kind in ("result", "void") and isinstance(what, Game) and what.index not in at:
                at[what.index] = (lineno, stamp)
    counts.update({k: v for k, v in tracker.counts.items()})
    out = Outcomes(counts={str(path): counts | {"format": fmt, "garbled_lines": garbled[:20]}})  # type: ignore[dict-item]
    for g in tracker.games:
        lineno, stamp = at.get(g.index, (None, None))
        when = g.result_s if g.result_s is not None else g.void_s
        out.rows.append(Outcome(
            source=str(path), game=g.index, spin=g.spin, result=_pocket(g.win, wheel),
            direction=None if g.direction is None else ("cw", "ccw")[g.direction], rotor_rpm=g.speed_rpm,
            time_s=None if fmt == "plain" else when, time=stamp, status=g.status, void_reason=g.void,
            start_seen=g.start_seen, after_power_up=g.after_power_up, line=lineno))
    return out


# --------------------------------------------------------------------------- a trace
def trace_paths(path: Path) -> list[Path]:
    """``path`` itself (a ``.sqlite`` trace), or every trace of a run's out folder."""
    path = Path(path)
    if path.is_dir():
        found = sorted((path / "traces").glob("*.sqlite")) or sorted(path.glob("*.sqlite"))
        if not found:
            raise OutcomesError(f"{path}: no traces (*.sqlite) in it or in its traces/")
        return found
    if not path.exists():
        raise OutcomesError(f"{path}: no such trace or out folder")
    return [path]


def _wall(wall_ns: int) -> str | None:
    """The trace's wall clock (UTC) of an event, ISO 8601 to the millisecond."""
    import datetime as dt

    if not wall_ns:
        return None
    return dt.datetime.fromtimestamp(wall_ns / 1e9, dt.timezone.utc).isoformat(timespec="milliseconds")


def from_trace(path: Path) -> Outcomes:
    """The ball wheel's games in one trace, each with the croupier's judgement and round."""
    import sqlite3

    from hil.trace import TraceReader

    try:
        reader = TraceReader(path)
        events = list(reader.events())
        reader.close()
    except (sqlite3.DatabaseError, ValueError) as exc:
        raise OutcomesError(f"{path}: not a Croupier trace ({exc})") from None
    wheel_dev, wheel = None, "single-zero"
    for e in events:
        if e.kind == "device_info" and "pockets" in e.payload and "wheel" in e.payload \
                and "multipliers" not in e.payload:
            wheel_dev, wheel = e.device, str(e.payload["wheel"])
            break
    out = Outcomes(counts={str(path): {"events": len(events)}})
    if wheel_dev is None:
        return out
    rows: list[Outcome] = []
    open_row: Outcome | None = None  # the game under way (its start reported), no result yet
    last_result: Outcome | None = None  # the last game with a result or a void, for the croupier's judgement
    faults: dict[str, int] = {}
    for e in events:
        p = e.payload
        if e.device == wheel_dev:
            if e.kind == "wire_fault":
                faults[str(p.get("kind"))] = faults.get(str(p.get("kind")), 0) + 1
            elif e.kind in ("game_start", "game_unseen"):
                open_row = Outcome(str(path), len(rows) + 1, p.get("spin_id"), None, None, None, None, None, "open",
                                   start_seen=e.kind == "game_start", after_power_up=p.get("after_power_up", False))
                rows.append(open_row)
            elif e.kind == "ball_result":
                row = open_row if open_row is not None and open_row.spin == p.get("spin_id") else None
                if row is None:  # a commanded wheel: the result is the game
                    row = Outcome(str(path), len(rows) + 1, p.get("spin_id"), None, None, None, None, None, "open")
                    rows.append(row)
                rpm = p.get("rotor_speed_rpm")
                row.result, row.direction = p.get("pocket"), p.get("rotor_direction")
                row.rotor_rpm = int(rpm) if rpm is not None else round(float(p.get("rotor_speed_rps", 0.0)) * 60)
                row.time_s = float(p.get("stop_time_s", e.sim_time))
                row.time = _wall(e.wall_ns)
                row.status = "void" if p.get("misspin") else "settled"
                row.void_reason = "misspin" if p.get("misspin") else None
                open_row, last_result = None, row
            elif e.kind == "game_void":
                row = open_row if open_row is not None and open_row.spin == p.get("spin_id") else None
                if row is None:
                    row = Outcome(str(path), len(rows) + 1, p.get("spin_id"), None, None, None, None, None, "open")
                    rows.append(row)
                row.status, row.void_reason = "void", str(p.get("reason"))
                row.direction = row.direction or p.get("rotor_direction")
                row.rotor_rpm = row.rotor_rpm if row.rotor_rpm is not None else p.get("rotor_speed_rpm")
                row.time_s = float(p.get("device_time_s", e.sim_time))
                row.time = _wall(e.wall_ns)
                open_row, last_result = None, row
        elif e.device == "croupier" and last_result is not None:
            if e.kind == "spin_valid":
                last_result.round = e.round
            elif e.kind == "spin_void" and last_result.status == "settled":
                last_result.status, last_result.void_reason = "void", str(p.get("reason"))  # e.g. invalid_pocket
    out.rows = rows
    out.counts[str(path)]["wire_faults"] = sum(faults.values())
    out.counts[str(path)].update({f"wire_fault:{k}": v for k, v in sorted(faults.items())})
    return out


def outcomes(path: Path, source: str | None = None, wheel: str = "single-zero") -> Outcomes:
    """``croupier outcomes``: a trace or a run's out folder, or (``source="slingshot"``) a raw log."""
    if source is not None:
        if source != "slingshot":
            raise OutcomesError(f"--from {source!r}: the raw logs read are: slingshot")
        if not Path(path).is_file():
            raise OutcomesError(f"{path}: no such log file")
        return from_slingshot_log(path, wheel)
    total = Outcomes()
    for p in trace_paths(path):
        one = from_trace(p)
        total.rows += one.rows
        total.counts.update(one.counts)
    return total
