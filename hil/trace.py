"""The durable trace: append-only events in a SQLite file, committed at least once per round.

Every event carries the round id, a sequence number (dense, per trace), the simulated time,
the wall-clock time in ns (``time.time_ns()``, for correlating with the lab's other records),
the device (or ``croupier`` for the rig's own steps), a kind and a JSON payload.

The checks read only this file (``TraceReader``), round by round, in constant memory, so a
QA bench can run for hours and a lab can re-check a trace long after the run.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

SCHEMA_VERSION = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS state (round INTEGER PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq      INTEGER PRIMARY KEY,
    round    INTEGER NOT NULL,
    sim_time REAL    NOT NULL,
    wall_ns  INTEGER NOT NULL,
    device   TEXT    NOT NULL,
    kind     TEXT    NOT NULL,
    payload  TEXT    NOT NULL
);
"""
# Built when the trace is closed: maintaining it per insert costs ~40 % of the write time.
_INDEX = "CREATE INDEX IF NOT EXISTS events_round ON events(round)"


class MalformedPayload(str):
    """The raw text of an event payload that is not JSON (a damaged trace): no JSON object."""


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    round: int
    sim_time: float
    wall_ns: int
    device: str
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class ResumePoint:
    """Where a trace killed mid-run goes on: the last round committed whole (its ``round_end``
    and the table's state of that round, committed in one transaction), and the next sequence
    number."""

    last_round: int
    last_seq: int
    state: dict[str, Any] | None
    meta: dict[str, Any]
    complete: bool  # the run finished (metadata ``run_end``)


class TraceError(RuntimeError):
    pass


_JSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY

#: the ``clock_estimate`` reason a wagering device's adapter records just before the croupier
#: decides a round's wagers (docs/wire/clock.md, "The uncertainty a wager is decided with")
DECISION = "decision"


class ClockDeclarations:
    """The clock-map uncertainties (``clock_uncertainty_s``) the devices declared, followed record by
    record in a round (docs/wire/clock.md, "The uncertainty a wager is decided with"). The rig's
    ``TraceWriter`` keeps one as it records and ``hil.checks.run_checks`` one as it reads, fed the same
    records in the same order, so the croupier's decision and the checks' judgement of a round's
    wagers use one value, derived from the trace.

    ``since_start[device]``: the largest uncertainty in force for the device from the round's start
    (the last one declared before it) up to the last record; a ``device_info`` (a run that connected
    afresh: a resumed run's preamble) starts it again from that one. ``decided[device]``: its value at
    the device's ``clock_estimate`` reason ``decision`` of this round (absent when none was recorded)."""

    __slots__ = ("in_force", "since_start", "decided")

    def __init__(self) -> None:
        self.in_force: dict[str, float] = {}
        self.since_start: dict[str, float] = {}
        self.decided: dict[str, float] = {}

    def new_round(self) -> None:
        self.since_start = dict(self.in_force)
        self.decided = {}

    def observe(self, device: str, kind: str, payload: dict[str, Any] | None) -> None:
        if kind not in ("clock_estimate", "device_info", "wire_reconnected") or not isinstance(payload, dict):
            return
        u = payload.get("clock_uncertainty_s")
        if not isinstance(u, (int, float)) or isinstance(u, bool):
            return
        u = float(u)
        if kind == "device_info":
            self.in_force[device] = self.since_start[device] = u
        elif kind == "clock_estimate":
            self.in_force[device] = u
            self.since_start[device] = m = max(self.since_start.get(device, 0.0), u)
            if payload.get("reason") == DECISION:
                self.decided[device] = m
        else:  # a reconnected link measured its clock afresh: the map in force from here on
            self.in_force[device] = u


def _wide_ints(value: Any) -> Any:
    """``value`` with every int outside orjson's range ([-2^63, 2^64 - 1]) as its decimal string."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return str(value)
    if isinstance(value, dict):
        return {k: _wide_ints(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_wide_ints(v) for v in value]
    return value


def _writer_lock(path: Path) -> int:
    """An exclusive advisory lock (flock, beside SQLite's own fcntl locks) held by the one process
    writing the trace at ``path``; the kernel releases it when that process dies, kill -9 included.
    TraceError when another live process holds it (e.g. a worker a killed parent left behind)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise TraceError(f"{path}: another process is writing this trace") from None
    return fd


class TraceWriter:
    """Appends events; ``commit()`` makes everything so far durable (called once per round),
    together with the table's durable state of that round (table ``state``) in the same SQLite
    transaction: a kill -9 at any instant leaves the state equal to the last committed round.

    WAL journal: a crash of the rig loses nothing committed, and a reader (a live dashboard,
    a lab re-running the checks) may read while the run goes on. ``TraceWriter.reopen`` goes on
    appending to a trace a killed run left (``croupier run --resume``).
    """

    def __init__(self, path: Path, meta: dict[str, Any], *, _reopen: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and not _reopen:
            raise FileExistsError(f"{self.path}: a trace is append-only; refusing to overwrite it")
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._lock = _writer_lock(self.path)  # one writer per trace: a second one is refused
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_DDL)
        self._seq = 0
        if _reopen:
            self._seq = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        self._pending: list[tuple] = []
        self.round = 0
        self.clock: Any = None  # anything with a ``now`` (the simpy.Environment); None = time 0
        #: called at each commit, before writing (e.g. to record the clock's lateness)
        self.before_commit: list[Callable[[], None]] = []
        self.hold = False
        #: the devices' declared clock uncertainties, round by round (``ClockDeclarations``): what the
        #: croupier decides a round's wagers with
        self.clock_declarations = ClockDeclarations()
        self._declarations_round: int | None = None
        if not _reopen:
            self.set_meta({"trace_schema": SCHEMA_VERSION, **meta})

    @staticmethod
    def resume_point(path: Path) -> ResumePoint:
        """Where the trace at ``path`` goes on. TraceError when it cannot: a round committed
        without its ``round_end`` after the last whole one (a run that ended by an error, not a
        kill: resuming would mix two rounds' events)."""
        os.close(_writer_lock(Path(path)))  # no process is writing it any more (a kill -9 released it)
        with TraceReader(path) as r:
            db = r._db
            tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "events"} <= tables:  # killed while creating it: nothing recorded
                return ResumePoint(0, 0, None, {}, False)
            meta = r.meta()
            last = db.execute("SELECT COALESCE(MAX(round), 0) FROM events WHERE device='croupier' "
                              "AND kind='round_end'").fetchone()[0]
            beyond = db.execute("SELECT COUNT(*) FROM events WHERE round > ?", (last,)).fetchone()[0]
            complete = meta.get("run_end") is not None
            try:
                row = db.execute("SELECT round, state FROM state ORDER BY round DESC LIMIT 1").fetchone()
            except sqlite3.OperationalError:  # killed before it created its tables: no state
                row = None
            last_seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        if beyond:
            raise TraceError(f"{path}: {beyond} event(s) of a round after round {last} were committed without "
                             "its round_end (the run ended by an error): it cannot be resumed")
        if row is not None and row[0] > last:
            raise TraceError(f"{path}: the state of round {row[0]} is ahead of the last committed round {last}")
        state = orjson.loads(row[1]) if row is not None else None
        return ResumePoint(last, last_seq, state, meta, complete)

    @classmethod
    def reopen(cls, path: Path) -> TraceWriter:
        """Go on appending to an existing trace (its metadata kept)."""
        return cls(path, {}, _reopen=True)

    def set_meta(self, meta: dict[str, Any]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            [(k, orjson.dumps(v).decode()) for k, v in meta.items()],
        )

    def record(self, device: str, kind: str, payload: dict[str, Any] | None = None) -> int:
        """Append one event stamped now (both clocks); returns its sequence number. An integer JSON
        cannot hold exactly (past 64 bits: a device's wide counter) is recorded as its decimal
        string (``_wide_ints``), never a crash and never rounded."""
        self._seq += 1
        try:
            text = orjson.dumps(payload or {}, option=_JSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: "Integer exceeds 64-bit range"
            text = orjson.dumps(_wide_ints(payload or {}), option=_JSON_OPTIONS)
        self._pending.append(
            (self._seq, self.round, self.clock.now if self.clock else 0.0, time.time_ns(), device, kind, text.decode())
        )
        if self._declarations_round != self.round:
            self._declarations_round = self.round
            self.clock_declarations.new_round()
        self.clock_declarations.observe(device, kind, payload)
        return self._seq

    def commit(self, state: dict[str, Any] | None = None, *, round_end: bool = False) -> None:
        """Make every event so far durable; with ``state``, the table's durable state after round
        ``self.round`` is written in the same transaction (never ahead of the events, never behind).

        While ``hold`` is set (a resumed run's preamble: the devices' ``device_info`` and the
        ``resumed`` record) only the commit at the end of a round (``round_end=True``) writes, so a
        kill before that round ends leaves the trace exactly as the last whole round left it."""
        if self.hold and not round_end:
            return
        self.hold = False
        for hook in self.before_commit:
            hook()
        if self._pending or state is not None:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", self._pending)
            if state is not None:
                self._db.execute("INSERT OR REPLACE INTO state(round, state) VALUES (?, ?)",
                                 (self.round, orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS).decode()))
            self._db.execute("COMMIT")
            self._pending.clear()

    def close(self) -> None:
        self.commit(round_end=True)
        self._db.execute(_INDEX)
        self._db.close()
        os.close(self._lock)

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TraceReader:
    """Reads a trace file: its metadata and its events, round by round."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(self.path)
        self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)

    def meta(self) -> dict[str, Any]:
        return {k: orjson.loads(v) for k, v in self._db.execute("SELECT key, value FROM meta")}

    def events(self, *, with_wall: bool = True) -> Iterator[Event]:
        """Every event in order. A payload that is not JSON (a damaged trace) is read as the
        ``MalformedPayload`` of its text: no evidence a check can read, never a crash
        (``hil.checks.run_checks`` fails every check on its round, naming the event)."""
        for row in self._db.execute("SELECT * FROM events ORDER BY seq"):
            try:
                payload = orjson.loads(row[6])
            except (orjson.JSONDecodeError, TypeError):
                payload = MalformedPayload(row[6])
            yield Event(row[0], row[1], row[2], row[3] if with_wall else 0, row[4], row[5], payload)

    def rounds(self) -> Iterator[tuple[int, list[Event]]]:
        """Yield ``(round, events)`` in order; round 0 is the bench set-up."""
        current: list[Event] = []
        rnd = None
        for ev in self.events():
            if ev.round != rnd and current:
                yield rnd, current
                current = []
            rnd = ev.round
            current.append(ev)
        if current:
            yield rnd, current

    def states(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """The table's committed state per round (``TraceWriter.commit(state=...)``)."""
        try:
            rows = self._db.execute("SELECT round, state FROM state ORDER BY round").fetchall()
        except sqlite3.OperationalError:  # a trace written before the state table existed
            return
        for rnd, text in rows:
            yield rnd, orjson.loads(text)

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TraceReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
