"""The durable trace: append-only events in a SQLite file, committed at least once per round.

Every event carries the round id, a sequence number (dense, per trace), the simulated time,
the wall-clock time in ns (``time.time_ns()``, for correlating with the lab's other records),
the device (or ``croupier`` for the rig's own steps), a kind and a JSON payload.

The checks read only this file (``TraceReader``), round by round, in constant memory, so a
QA bench can run for hours and a lab can re-check a trace long after the run.
"""

from __future__ import annotations

import fcntl
import hashlib
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
CREATE TABLE IF NOT EXISTS chain (
    n          INTEGER PRIMARY KEY,
    round      INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    state      INTEGER NOT NULL,
    link       TEXT    NOT NULL
);
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


#: the link before a trace's first commit
GENESIS = bytes(32)
#: the metadata key the writer records the chain's head in when it closes
CHAIN_META = "chain"


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
        self._link, self._commits, self._link_round = GENESIS, 0, 0
        if _reopen:
            self._seq = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
            last = self._db.execute("SELECT n, round, link FROM chain ORDER BY n DESC LIMIT 1").fetchone()
            if last is not None:
                self._commits, self._link_round, self._link = last[0], last[1], bytes.fromhex(last[2])
            # the head is recorded again when this writer closes (a reopened trace goes on growing)
            self._db.execute("DELETE FROM meta WHERE key = ?", (CHAIN_META,))
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
            state_text = None if state is None else orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS).decode()
            link = _link(self._link, self._pending, self.round, state_text)
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", self._pending)
            if state is not None:
                self._db.execute("INSERT OR REPLACE INTO state(round, state) VALUES (?, ?)", (self.round, state_text))
            self._db.execute("INSERT INTO chain VALUES (?, ?, ?, ?, ?)",
                             (self._commits + 1, self.round, self._seq, state is not None, link.hex()))
            self._db.execute("COMMIT")
            self._pending.clear()
            self._commits, self._link, self._link_round = self._commits + 1, link, self.round

    def close(self) -> None:
        self.commit(round_end=True)
        meta = {k: orjson.loads(v) for k, v in self._db.execute("SELECT key, value FROM meta")}
        self.set_meta({CHAIN_META: {"head": self._link.hex(), "commits": self._commits, "round": self._link_round,
                                    "meta": _meta_digest(meta)}})
        self._db.execute(_INDEX)
        # one self-contained file once closed: the WAL folded back in, no -wal/-shm left beside it
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            self._db.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.OperationalError:  # a reader holds it open this instant: its WAL stays, checkpointed
            pass
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

    def _chain_status(self) -> ChainStatus:
        db = self._db
        tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        meta = self.meta() if "meta" in tables else {}
        if "chain" not in tables or "events" not in tables:
            closed = CHAIN_META in meta
            brk = [ChainBreak(0, "the trace has no hash chain (recorded before it existed, or killed while "
                                 "it was being created)")] if closed or "events" in tables and self.count() else []
            return ChainStatus(brk, closed, 0, 0, GENESIS.hex())
        breaks: list[ChainBreak] = []
        states = dict(db.execute("SELECT round, state FROM state").fetchall()) if "state" in tables else {}
        used_states: set[int] = set()
        events = db.execute("SELECT seq, round, sim_time, wall_ns, device, kind, payload FROM events ORDER BY seq")
        pending = next(events, None)
        prev, last_seq, n, rnd = GENESIS, 0, 0, 0
        for n_row, rnd, last_seq_row, has_state, link_hex in db.execute(
                "SELECT n, round, last_seq, state, link FROM chain ORDER BY n"):
            rows = []
            while pending is not None and pending[0] <= last_seq_row:
                rows.append(pending)
                pending = next(events, None)
            if n_row != n + 1:
                breaks.append(ChainBreak(rnd, f"commit {n + 1} to {n_row - 1} missing before this round's commit {n_row}"))
            if rows and (rows[0][0] != last_seq + 1 or [r[0] for r in rows] != list(range(rows[0][0], rows[0][0] + len(rows)))):
                breaks.append(ChainBreak(rnd, f"events missing or inserted: sequence numbers {rows[0][0]}..{rows[-1][0]} "
                                              f"after {last_seq}"))
            state_text = states.get(rnd) if has_state else None
            if has_state:
                used_states.add(rnd)
            try:
                link = bytes.fromhex(link_hex)
            except (ValueError, TypeError):
                link = b""
            if _link(prev, rows, rnd, state_text) != link:
                breaks.append(ChainBreak(rnd, f"the events or the state of commit {n_row} (round {rnd}) do not hash to "
                                              "its chain link: changed, moved, deleted or inserted"))
            prev, last_seq, n = link, last_seq_row, n_row
        if pending is not None:
            extra = 1 + sum(1 for _ in events)
            breaks.append(ChainBreak(pending[1], f"{extra} event(s) from seq {pending[0]} on are in no commit of the chain"))
        if stray := sorted(set(states) - used_states):
            breaks.append(ChainBreak(stray[0], f"a table state of round(s) {stray[:5]} is in no commit of the chain"))
        head = meta.get(CHAIN_META)
        closed = head is not None
        if closed:
            if not isinstance(head, dict) or not all(k in head for k in ("head", "commits", "round")):
                breaks.append(ChainBreak(rnd, "the chain head recorded at close is unreadable"))
            else:
                if head["commits"] != n or head["head"] != prev.hex():
                    first_missing = rnd + 1 if isinstance(head["round"], int) and head["round"] > rnd else head["round"]
                    breaks.append(ChainBreak(first_missing, f"the trace ends at round {rnd} (commit {n}) but its writer "
                                                            f"closed it after round {head['round']} (commit {head['commits']}, "
                                                            f"head {head['head'][:16]}…): truncated or its last rounds changed"))
                if head.get("meta") is not None and head["meta"] != _meta_digest(meta):
                    breaks.append(ChainBreak(0, "the trace's metadata changed after its writer closed it"))
        return ChainStatus(breaks, closed, n, rnd, head["head"] if closed and isinstance(head, dict) and "head" in head
                           else prev.hex())

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TraceReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _link(prev: bytes, rows: list[tuple], rnd: int, state_text: str | None) -> bytes:
    """The chain link of one commit: SHA-256 of the link before it and the canonical bytes of what
    the commit made durable (the writer's round, every event with both clocks and its payload text,
    and the table's state when one was committed with it)."""
    return hashlib.sha256(prev + orjson.dumps([rnd, [list(r) for r in rows], state_text])).digest()


@dataclass(frozen=True, slots=True)
class ChainBreak:
    """Where a trace's hash chain does not hold: the round (of the commit) and what is wrong."""

    round: int
    message: str


@dataclass(frozen=True)
class ChainStatus:
    """What ``chain_status`` found. ``closed``: the writer closed the trace and recorded the head
    (a run killed mid-way leaves none: its chain verifies up to ``last_round``, the last committed
    round, and ``breaks`` can still be empty). ``head``: the recorded head when closed, else the
    last commit's link (hex)."""

    breaks: list[ChainBreak]
    closed: bool
    commits: int
    last_round: int
    head: str

    @property
    def ok(self) -> bool:
        return not self.breaks

    def describe(self) -> str:
        if self.breaks:
            return "; ".join(f"round {b.round}: {b.message}" for b in self.breaks[:5]) + (
                f" and {len(self.breaks) - 5} more" if len(self.breaks) > 5 else "")
        if self.closed:
            return f"chain intact: {self.commits} commit(s) up to round {self.last_round}, head {self.head}"
        return (f"chain intact up to round {self.last_round} ({self.commits} commit(s)), but no head was "
                "recorded: the writer never closed (a killed run)")


def _meta_digest(meta: dict[str, Any]) -> str:
    return hashlib.sha256(orjson.dumps({k: v for k, v in meta.items() if k != CHAIN_META},
                                       option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)).hexdigest()


def chain_status(path: Path) -> ChainStatus:
    """Verify the per-round hash chain of the trace at ``path`` (see ``verify_chain``) and say
    whether its writer closed it (``ChainStatus.closed``). TraceError when it is no trace."""
    with TraceReader(path) as r:
        return r._chain_status()


def verify_chain(path: Path) -> list[ChainBreak]:
    """Every place the trace's hash chain does not hold: [] when each commit's events and state
    hash, with the link before it, to its own link, the commits are dense and in order, and the last
    matches the head recorded at close. A changed event or state, a round deleted, inserted or moved,
    and a trace truncated after its writer closed are each a ``ChainBreak`` naming the round.
    A trace a killed run left (no head recorded) verifies up to its last committed round: use
    ``chain_status`` to tell it from a closed one."""
    return chain_status(path).breaks


def chain_head(path: Path) -> str:
    """The hex SHA-256 chain link of the trace's last commit: the head its writer recorded at close,
    or for a trace a killed run left, the link of its last committed round."""
    return chain_status(path).head
