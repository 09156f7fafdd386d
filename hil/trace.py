"""The durable trace: append-only events in a SQLite file, committed at least once per round.

Every event carries the round id, a sequence number (dense, per trace), the simulated time,
the wall-clock time in ns (``time.time_ns()``, for correlating with the lab's other records),
the device (or ``croupier`` for the rig's own steps), a kind and a JSON payload.

Each commit (one per round) is one row: its events and the table's state of that round in one compressed record
(deflate, with a preset dictionary: the trace's first full round), and its link in a hash chain
(SHA-256 of the link before it and the record's raw bytes), whose head the writer records when it
closes. A real bench writes every round's commit as the round ends; a simulated one writes up to
``GROUP_ROUNDS`` rounds' commits (at most ``GROUP_S`` of wall time) in one SQLite transaction.
docs/trace.md has the format.

The checks read only this file (``TraceReader``), round by round, in constant memory, so a
QA bench can run for hours and a lab can re-check a trace long after the run.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import os
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from isal import isal_zlib

#: 1: one SQLite row per event (read, never written); 2: one compressed record per commit, hash-chained
SCHEMA_VERSION = 2

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS commits (
    n         INTEGER PRIMARY KEY,  -- the writer's commits in order, dense from 1
    round     INTEGER NOT NULL,     -- the writer's round at the commit
    first_seq INTEGER NOT NULL,     -- the sequence number of its first event
    events    INTEGER NOT NULL,     -- how many events it holds
    state     INTEGER NOT NULL,     -- 1: the table's state of the round is in it
    zdict     INTEGER,              -- the commit whose raw record is its zlib dictionary (NULL: none)
    data      BLOB    NOT NULL,     -- zlib of the raw record (docs/trace.md)
    link      BLOB    NOT NULL      -- SHA-256(link of commit n - 1 || raw record): the hash chain
);
"""
#: SQLite's page: 1.5 KB records in 4 KB pages leave a quarter of each page empty, in 8 KB pages
#: ~10 % (16 KB: ~8 %, but 16 KB more per trace for its fixed pages and per commit in the WAL)
PAGE_SIZE = 8192
#: the deflate level of the records, ISA-L's (python-isal: the zlib format, stdlib ``zlib`` reads
#: it). Measured on 2,000 full Crazy Time rounds' records coded against their dictionary: ISA-L
#: level 1 is 15 µs and 1,129 B a round, stdlib zlib level 4 with Z_FILTERED (the writer's before)
#: 68 µs and 1,060 B, ISA-L level 2 16 µs and 1,123 B (docs/trace.md, "Cost of writing"). The reader
#: does not depend on the level or the coder.
ISAL_LEVEL = 1
#: a simulated bench's group commit: the records of the rounds that end wait for one SQLite
#: transaction until this many wait, or this much wall time has passed since the last
#: (``TraceWriter.group``)
GROUP_ROUNDS = 8
GROUP_S = 0.25
#: a commit of a round >= 1 with at least this many raw bytes becomes the dictionary of the later ones
ZDICT_MIN_BYTES = 512
#: the record format (the first element of a record's header; 1 was this session's first cut, never kept)
RECORD_VERSION = 2
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
_dumps = orjson.dumps
_time_ns = time.time_ns
_monotonic = time.monotonic
#: the event kinds that declare a device's clock uncertainty (``ClockDeclarations.observe``)
_DECLARING = frozenset(("clock_estimate", "device_info", "wire_reconnected"))

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
        if kind not in _DECLARING or not isinstance(payload, dict):
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


class TraceDamaged(TraceError, ValueError):
    """A trace whose records cannot be read (a changed byte, a record cut short): which commit and
    round, and why. Never a traceback: ``croupier check`` says it is no readable trace."""


@dataclass(frozen=True, slots=True)
class _Dictionary:
    """The record other records are coded against: its last 32 KB are their zlib preset dictionary,
    its templates the ones they name by number."""

    n: int
    zdict: bytes
    specs: list
    index: dict

    @classmethod
    def of(cls, n: int, raw: bytes) -> _Dictionary:
        specs = orjson.loads(raw[:raw.index(b"\n")])[0]
        index = {(d, k, None if keys is None else tuple(keys)): i for i, (d, k, keys) in enumerate(specs)
                 if isinstance(d, str)}
        return cls(n, raw[-32768:], specs, index)


def _encode(rnd: int, first_seq: int, rows: list[tuple], state: bytes | None, base: _Dictionary | None = None) -> bytes:
    """The raw record of one commit (its canonical bytes: what the chain hashes). ``rows``:
    ``(round, sim_time, wall_ns, device, kind, payload)``, the payload a dict (its JSON re-dumps to
    the text recorded) or the recorded text itself (bytes or str: kept as it is).

    Three lines: the events, column by column; the table's state (JSON; empty when none); the
    header ``[version, round, first_seq, rounds, sim_times, wall_ns, has_state]``. The events line is
    ``[templates, template_of_each_event, columns]``: a template is ``[device, kind, keys]`` (keys
    null: the payload kept as its text), or the number of that template in the dictionary record
    ``base``; the columns of a template hold, key by key, the values of its events in order (of a
    template with one event: its values, flat). ``rounds``: 0 when every event is of ``round``, else
    each event's round minus it; ``sim_times``: null where an event's time equals the one before it,
    a string where it is not finite; ``wall_ns``: the first, then differences."""
    templates: dict[tuple, int] = {}
    specs: list[Any] = []
    members: list[list[Any]] = []  # per template: its events' payloads, in order
    which: list[int] = []
    named = base.index if base is not None else {}
    for _, _, _, device, kind, payload in rows:
        keys = tuple(payload) if isinstance(payload, dict) else None
        key = (device, kind, keys)
        i = templates.get(key)
        if i is None:
            i = templates[key] = len(specs)
            specs.append(named[key] if key in named else [device, kind, None if keys is None else list(keys)])
            members.append([])
        which.append(i)
        members[i].append(payload)
    columns = [(list(ps[0].values()) if len(ps) == 1 else [list(col) for col in zip(*(p.values() for p in ps))])
               if key[2] is not None
               else [[p.decode("utf-8", "replace") if isinstance(p, bytes) else str(p) for p in ps]]
               for key, ps in zip(templates, members)]
    rounds: int | list[int] = [r[0] - rnd for r in rows]
    if not any(rounds):
        rounds = 0
    times: list[Any] = []
    prev_t = None
    for r in rows:
        t = float(r[1])  # a numpy float64 clock too (SimPy keeps the type of the delays it adds)
        times.append(None if prev_t is not None and t == prev_t else t if math.isfinite(t) else repr(float(t)))
        prev_t = t
    walls = [int(r[2]) for r in rows]
    walls[1:] = [b - a for a, b in zip(walls, walls[1:])]
    return b"\n".join((orjson.dumps([specs, which, columns], option=orjson.OPT_NON_STR_KEYS), state or b"",
                       orjson.dumps([RECORD_VERSION, rnd, first_seq, rounds, times, walls, state is not None])))


def _read_back(pending: list[tuple]) -> list[tuple]:
    """The writer's pending events with each payload as its JSON read back (one parse for all), which
    re-dumps to the text recorded; the text itself where it would not (no object, or two keys alike
    once strings)."""
    if not pending:
        return []
    values = orjson.loads(b"[" + b",".join([p[5] for p in pending]) + b"]")
    return [(r, t, w, d, k, v if isinstance(v, dict) and len(v) == n else text)
            for (r, t, w, d, k, text, n), v in zip(pending, values)]


def _encode_pending(rnd: int, first_seq: int, pending: list[tuple], state: bytes | None,
                    base: _Dictionary | None = None) -> bytes:
    """``_encode(rnd, first_seq, _read_back(pending), state, base)`` in one pass over the writer's
    pending events: the very same bytes (``tests/hil/test_hil_trace_compact.py`` holds it to that),
    at about half the CPU (the writer's commit is the hot path of a simulated run)."""
    values = orjson.loads(b"[" + b",".join([p[5] for p in pending]) + b"]") if pending else []
    templates: dict[tuple, int] = {}
    specs: list[Any] = []
    members: list[list[Any]] = []
    which: list[int] = []
    named = base.index if base is not None else {}
    get = templates.get
    for p, v in zip(pending, values):
        if v.__class__ is dict and len(v) == p[6]:  # re-dumps to the text recorded
            key = (p[3], p[4], tuple(v))
        else:  # kept as its text
            key, v = (p[3], p[4], None), p[5]
        i = get(key)
        if i is None:
            i = templates[key] = len(specs)
            keys = key[2]
            specs.append(named[key] if key in named else [key[0], key[1], None if keys is None else list(keys)])
            members.append([v])
        else:
            members[i].append(v)
        which.append(i)
    columns = [(list(ps[0].values()) if len(ps) == 1 else [list(col) for col in zip(*[p.values() for p in ps])])
               if key[2] is not None
               else [[p.decode("utf-8", "replace") if isinstance(p, bytes) else str(p) for p in ps]]
               for key, ps in zip(templates, members)]
    rounds: int | list[int] = [p[0] - rnd for p in pending]
    if not any(rounds):
        rounds = 0
    times: list[Any] = []
    append = times.append
    isfinite = math.isfinite
    prev_t = None
    for p in pending:
        t = float(p[1])  # a numpy float64 clock too (SimPy keeps the type of the delays it adds)
        append(None if t == prev_t else t if isfinite(t) else repr(t))
        prev_t = t
    walls = [int(p[2]) for p in pending]
    walls[1:] = [b - a for a, b in zip(walls, walls[1:])]
    events = [specs, which, columns]
    try:  # values read back from JSON: JSON's own types, the very bytes the option gives, cheaper
        line = _dumps(events)
    except TypeError:
        line = _dumps(events, option=orjson.OPT_NON_STR_KEYS)
    return b"\n".join((line, state or b"",
                       _dumps([RECORD_VERSION, rnd, first_seq, rounds, times, walls, state is not None])))


def _payload(text: str) -> Any:
    """A payload kept as its text, read as today's reader reads a payload: its JSON, or the
    ``MalformedPayload`` of a text that is no JSON."""
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError):
        return MalformedPayload(text)


def _decode(raw: bytes, base: _Dictionary | None = None) -> tuple[int, int, list[tuple], bytes | None]:
    """``(round, first_seq, rows, state)`` of a raw record (``_encode``, the templates it names by
    number those of ``base``), each row's payload read (a dict; a kept text as ``_payload`` reads
    it); ValueError if it is none."""
    parts = raw.split(b"\n")
    if len(parts) != 3:
        raise ValueError(f"{len(parts)} part(s), not 3")
    try:
        version, rnd, first_seq, rounds, times, walls, has_state = orjson.loads(parts[2])
        specs, which, columns = orjson.loads(parts[0])
    except (orjson.JSONDecodeError, ValueError, TypeError) as exc:
        raise ValueError(f"unreadable ({exc})") from None
    if version != RECORD_VERSION:
        raise ValueError(f"record version {version!r}, this Croupier reads {RECORD_VERSION}")
    n = len(which)
    if len(times) != n or len(walls) != n or rounds != 0 and len(rounds) != n or len(columns) != len(specs):
        raise ValueError("its columns differ in length")
    for k, spec in enumerate(specs):
        if isinstance(spec, int) and not isinstance(spec, bool):
            if base is None or not 0 <= spec < len(base.specs):
                raise ValueError(f"it names template {spec} of a dictionary record that has none such")
            specs[k] = base.specs[spec]
    counts = [0] * len(specs)
    for k in which:
        counts[k] += 1
    for k, (spec, cols) in enumerate(zip(specs, columns)):
        if counts[k] == 1 and spec[2] is not None:  # one event: its values, flat
            columns[k] = [[v] for v in cols]
    state = parts[1] if has_state else None
    at = [0] * len(specs)
    rows = []
    t = wall = 0
    for i, k in enumerate(which):
        device, kind, keys = specs[k]
        cols = columns[k]
        j = at[k]
        at[k] = j + 1
        payload = _payload(cols[0][j]) if keys is None else {key: col[j] for key, col in zip(keys, cols, strict=True)}
        t = t if times[i] is None else float(times[i])
        wall = walls[i] if i == 0 else wall + walls[i]
        rows.append((rnd + (rounds[i] if rounds else 0), t, wall, str(device), str(kind), payload))
    if any(len(col) != used for cols, used in zip(columns, at) for col in cols):
        raise ValueError("its columns hold more values than its events")
    return rnd, first_seq, rows, state


def _compress(raw: bytes, zdict: bytes | None) -> bytes:
    """The zlib stream of ``raw`` (against the preset dictionary ``zdict``), coded by ISA-L."""
    c = isal_zlib.compressobj(ISAL_LEVEL, isal_zlib.DEFLATED, 15, 8, 0, zdict) if zdict \
        else isal_zlib.compressobj(ISAL_LEVEL, isal_zlib.DEFLATED, 15, 8, 0)
    return c.compress(raw) + c.flush()


def _decompress(data: bytes, zdict: bytes | None) -> bytes:
    d = zlib.decompressobj(15, zdict) if zdict else zlib.decompressobj()
    raw = d.decompress(data) + d.flush()
    if not d.eof or d.unused_data:
        raise zlib.error("the compressed record is cut short or has bytes after its end")
    return raw


@dataclass(frozen=True, slots=True)
class _Commit:
    n: int
    round: int
    first_seq: int
    count: int
    rows: list[tuple]
    state: bytes | None
    raw: bytes
    link: bytes


class TraceWriter:
    """Appends events; ``commit()`` makes everything so far durable (called once per round),
    together with the table's durable state of that round (table ``state``) in the same record,
    one SQLite transaction: a kill -9 at any instant leaves the state equal to the last committed
    round.

    ``group(rounds, seconds)`` (a simulated bench: ``hil.runner``): each round is still one record
    (coded and chained as it ends), but its transaction waits until ``rounds`` records are waiting
    or ``seconds`` of wall time have passed: one SQLite transaction for the group. A kill -9 then
    loses at most those whole rounds of simulation — never a part of a round, never a state ahead
    of or behind its round — and ``--resume`` goes on after the last round written. A commit that
    is not a round's end (the set-up's, the run's last, ``close``) writes every record waiting.

    WAL journal while it writes: a crash of the rig loses nothing committed, and a reader (a live
    dashboard, a lab re-running the checks) may read while the run goes on. ``close`` records the
    chain's head, folds the WAL back in and leaves one self-contained file (journal_mode DELETE).
    ``TraceWriter.reopen`` goes on appending to a trace a killed run left (``croupier run --resume``).
    """

    def __init__(self, path: Path, meta: dict[str, Any], *, _reopen: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and not _reopen:
            raise FileExistsError(f"{self.path}: a trace is append-only; refusing to overwrite it")
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._lock = _writer_lock(self.path)  # one writer per trace: a second one is refused
        self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new file only (then fixed)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._seq = 0
        self._link, self._commits, self._link_round = GENESIS, 0, 0
        self._zdict: _Dictionary | None = None
        self._db.execute("BEGIN")  # the tables and the metadata at once: a kill leaves all or nothing
        tables = {t for (t,) in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if _reopen and "events" in tables:
            self._db.execute("ROLLBACK")
            self.close_quietly()
            raise TraceError(f"{self.path}: recorded by an earlier Croupier (trace_schema 1): it cannot be resumed")
        for statement in _DDL.split(";"):  # executescript would commit the transaction
            if statement.strip():
                self._db.execute(statement)
        if _reopen:
            last = self._db.execute("SELECT n, round, first_seq, events, link FROM commits "
                                    "ORDER BY n DESC LIMIT 1").fetchone()
            if last is not None:
                self._commits, self._link_round, self._link = last[0], last[1], bytes(last[4])
                self._seq = last[2] + last[3] - 1
            zd = self._db.execute("SELECT zdict FROM commits WHERE zdict IS NOT NULL ORDER BY n DESC LIMIT 1").fetchone()
            if zd is not None:
                with TraceReader(self.path) as r:
                    self._zdict = r._dictionary(zd[0])
            # the head is recorded again when this writer closes (a reopened trace goes on growing)
            self._db.execute("DELETE FROM meta WHERE key = ?", (CHAIN_META,))
        else:
            self.set_meta({"trace_schema": SCHEMA_VERSION, **meta})
        self._db.execute("COMMIT")
        self._pending: list[tuple] = []
        self.round = 0
        self.clock: Any = None  # anything with a ``now`` (the simpy.Environment); None = time 0
        #: called at each commit, before writing (e.g. to record the clock's lateness)
        self.before_commit: list[Callable[[], None]] = []
        #: called after each SQLite transaction that wrote commits (``group``: after the group's)
        self.after_write: list[Callable[[], None]] = []
        self._watched: dict[str, list[Callable[[str, str, Any], None]]] = {}
        self.hold = False
        #: a round's commit put off (``group``): rounds, wall seconds (1 round: every round written)
        self.group_rounds, self.group_s = 1, 0.0
        #: the next round's commit is written, whatever the group (a run that ends at that round)
        self.commit_now = False
        self._rows: list[tuple] = []  # records coded and chained, waiting for the group's transaction
        self._written_at = _monotonic()
        #: the devices' declared clock uncertainties, round by round (``ClockDeclarations``): what the
        #: croupier decides a round's wagers with
        self.clock_declarations = ClockDeclarations()
        # the only kinds ``ClockDeclarations.observe`` reads, first of every kind's watchers
        self.watch(_DECLARING, lambda device, kind, payload: self.clock_declarations.observe(device, kind, payload))
        self._declarations_round: int | None = None

    def close_quietly(self) -> None:
        """Let the file go as a kill leaves it: what was committed stays, no head is recorded and
        the WAL is not folded back in (an error path, and the tests' stand-in for a kill -9)."""
        self._db.close()
        os.close(self._lock)

    @staticmethod
    def resume_point(path: Path) -> ResumePoint:
        """Where the trace at ``path`` goes on. TraceError when it cannot: a round committed
        without its ``round_end`` after the last whole one (a run that ended by an error, not a
        kill: resuming would mix two rounds' events), or a trace an earlier Croupier wrote."""
        os.close(_writer_lock(Path(path)))  # no process is writing it any more (a kill -9 released it)
        with TraceReader(path) as r:
            if r.schema == 0:  # killed while creating it: nothing recorded
                return ResumePoint(0, 0, None, {}, False)
            if r.schema == 1:
                raise TraceError(f"{path}: recorded by an earlier Croupier (trace_schema 1): it cannot be resumed")
            meta = r.meta()
            last, last_seq, per_round = 0, 0, {}
            state: tuple[int, bytes] | None = None
            for c in r._commits():
                for rnd, _, _, device, kind, _ in c.rows:
                    per_round[rnd] = per_round.get(rnd, 0) + 1
                    if kind == "round_end" and device == "croupier":
                        last = max(last, rnd)
                if c.rows:
                    last_seq = c.first_seq + len(c.rows) - 1
                if c.state is not None:
                    state = (c.round, c.state)
        complete = meta.get("run_end") is not None
        if beyond := sum(n for rnd, n in per_round.items() if rnd > last):
            raise TraceError(f"{path}: {beyond} event(s) of a round after round {last} were committed without "
                             "its round_end (the run ended by an error): it cannot be resumed")
        if state is not None and state[0] > last:
            raise TraceError(f"{path}: the state of round {state[0]} is ahead of the last committed round {last}")
        return ResumePoint(last, last_seq, orjson.loads(state[1]) if state is not None else None, meta, complete)

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
        p = payload or {}
        try:  # JSON's own types only: the very bytes the options give, at half the cost
            text = _dumps(p)
        except TypeError:  # a numpy value, a key that is no str, an int past 64 bits, ...
            try:
                text = _dumps(p, option=_JSON_OPTIONS)
            except TypeError:  # orjson.JSONEncodeError: "Integer exceeds 64-bit range"
                text = _dumps(_wide_ints(p), option=_JSON_OPTIONS)
        clock, rnd = self.clock, self.round
        self._pending.append((rnd, clock.now if clock else 0.0, _time_ns(), device, kind, text,
                              len(p) if isinstance(p, dict) else -1))
        if self._declarations_round != rnd:
            self._declarations_round = rnd
            self.clock_declarations.new_round()
        if kind in self._watched:
            for watcher in self._watched[kind]:
                watcher(device, kind, payload)
        return self._seq

    def watch(self, kinds: Iterable[str], watcher: Callable[[str, str, Any], None]) -> None:
        """``watcher(device, kind, payload)`` is called as each event of one of ``kinds`` is recorded
        (after it is numbered and pending): what the rig's progress and logging read, with no wrapper
        around ``record`` for the events nobody watches."""
        for kind in kinds:
            self._watched.setdefault(kind, []).append(watcher)

    def group(self, rounds: int = GROUP_ROUNDS, seconds: float = GROUP_S) -> None:
        """Group commit (a simulated bench): the records of a round's commit wait, coded and chained,
        until ``rounds`` of them are waiting or ``seconds`` of wall time have passed since the last
        transaction; then they are written in one."""
        if rounds < 1 or not seconds >= 0:
            raise ValueError(f"a group is >= 1 round and >= 0 s, not {rounds} and {seconds}")
        self.group_rounds, self.group_s = int(rounds), float(seconds)

    def commit(self, state: dict[str, Any] | None = None, *, round_end: bool = False) -> None:
        """Make every event so far durable; with ``state``, the table's durable state after round
        ``self.round`` is written in the same record (never ahead of the events, never behind).

        ``round_end``: round ``self.round`` has ended whole: in a group (``group``) its record may
        wait for the group's transaction. While ``hold`` is set (a resumed run's preamble: the
        devices' ``device_info`` and the ``resumed`` record) only the commit at the end of a round
        writes, so a kill before that round ends leaves the trace exactly as the last whole round
        left it."""
        if self.hold and not round_end:
            return
        self.hold = False
        for hook in self.before_commit:
            hook()
        if self._pending or state is not None:
            state_bytes = None if state is None else orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS)
            first = self._seq - len(self._pending) + 1
            raw = _encode_pending(self.round, first, self._pending, state_bytes, self._zdict)
            link = hashlib.sha256(self._link + raw).digest()
            n = self._commits + 1
            zd = self._zdict
            self._rows.append((n, self.round, first, len(self._pending), state is not None,
                               zd.n if zd else None, _compress(raw, zd.zdict if zd else None), link))
            self._pending.clear()
            self._commits, self._link, self._link_round = n, link, self.round
            if zd is None and self.round >= 1 and len(raw) >= ZDICT_MIN_BYTES:
                self._zdict = _Dictionary.of(n, raw)  # the first full round: the later rounds' dictionary
        if round_end and len(self._rows) < self.group_rounds and not self.commit_now \
                and _monotonic() - self._written_at < self.group_s:
            return  # the group's transaction writes it
        self._write()

    def _write(self) -> None:
        """The records waiting, in one transaction. A transaction that fails (a full disk) writes
        none of them and leaves them waiting, in order, for the next one: the chain never skips."""
        self.commit_now = False
        self._written_at = _monotonic()
        rows = self._rows
        if not rows:
            return
        if len(rows) == 1:
            self._db.execute("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows[0])
        else:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        self._rows = []
        for hook in self.after_write:
            hook()

    def close(self) -> None:
        self.hold = False
        self.commit()  # everything recorded, with the records of a group still waiting
        meta = {k: orjson.loads(v) for k, v in self._db.execute("SELECT key, value FROM meta")}
        self.set_meta({CHAIN_META: {"head": self._link.hex(), "commits": self._commits, "round": self._link_round,
                                    "meta": _meta_digest(meta)}})
        # one self-contained file once closed: the WAL folded back in, no -wal/-shm left beside it
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            self._db.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.OperationalError:  # a reader holds it open this instant: its WAL stays, checkpointed
            pass
        self.close_quietly()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TraceReader:
    """Reads a trace file: its metadata and its events, round by round. Opens it read-only and
    leaves nothing beside it. A record that cannot be read raises ``TraceDamaged`` (which commit
    and round); a payload that is no JSON is read as its ``MalformedPayload``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(self.path)
        self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        self._schema: int | None = None
        self._dicts: dict[int, _Dictionary] = {}

    @property
    def schema(self) -> int:
        """2: one record per commit (this Croupier); 1: one row per event (an earlier one, read
        only); 0: no tables yet (a run killed while it created the file)."""
        if self._schema is None:
            tables = {t for (t,) in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            self._schema = 2 if "commits" in tables else 1 if "events" in tables else 0
        return self._schema

    def meta(self) -> dict[str, Any]:
        return {k: orjson.loads(v) for k, v in self._db.execute("SELECT key, value FROM meta")}

    def _dictionary(self, n: int) -> _Dictionary:
        """Commit ``n`` as the dictionary of later ones."""
        if n not in self._dicts:
            row = self._db.execute("SELECT zdict, data FROM commits WHERE n = ?", (n,)).fetchone()
            if row is None:
                raise ValueError(f"its dictionary, commit {n}, is not in the trace")
            if row[0] is not None:
                raise ValueError(f"its dictionary, commit {n}, has a dictionary itself")
            self._dicts[n] = _Dictionary.of(n, _decompress(row[1], None))
        return self._dicts[n]

    def _commits(self, since_seq: int = 0, *, strict: bool = True) -> Iterator[_Commit]:
        """Every commit in order (those holding an event after ``since_seq``). With ``strict``, a record
        that cannot be read raises TraceDamaged; without, it is yielded with ``raw`` b"" and no rows."""
        if self.schema != 2:
            return
        dict_ids = {n for (n,) in self._db.execute("SELECT DISTINCT zdict FROM commits WHERE zdict IS NOT NULL")}
        where = "" if since_seq <= 0 else " WHERE first_seq + events - 1 > ? OR n IN (SELECT zdict FROM commits)"
        for n, rnd, first_seq, count, _, zd, data, link in self._db.execute(
                "SELECT n, round, first_seq, events, state, zdict, data, link FROM commits" + where + " ORDER BY n",
                (since_seq,) if since_seq > 0 else ()):
            try:
                base = self._dictionary(zd) if zd is not None else None
                raw = _decompress(data, base.zdict if base is not None else None)
                if n in dict_ids and zd is None:
                    self._dicts[n] = _Dictionary.of(n, raw)
                h_round, h_first, rows, state = _decode(raw, base)
                if (h_round, h_first, len(rows)) != (rnd, first_seq, count):
                    raise ValueError(f"it says round {h_round}, events {h_first}.. ({len(rows)}), its row says "
                                     f"round {rnd}, events {first_seq}.. ({count})")
            except (ValueError, TypeError, IndexError, zlib.error) as exc:
                if strict:
                    raise TraceDamaged(f"{self.path}: commit {n} (round {rnd}) is damaged: {exc}") from None
                yield _Commit(n, rnd, first_seq, count, [], None, b"", bytes(link) if isinstance(link, bytes) else b"")
                continue
            if first_seq + count - 1 > since_seq:
                yield _Commit(n, rnd, first_seq, count, rows, state, raw, bytes(link) if isinstance(link, bytes) else b"")

    def events(self, *, with_wall: bool = True, since_seq: int = 0) -> Iterator[Event]:
        """Every event in order (those after sequence number ``since_seq``). A payload that is not
        JSON (a damaged trace) is read as the ``MalformedPayload`` of its text: no evidence a check
        can read, never a crash (``hil.checks.run_checks`` fails every check on its round, naming the
        event)."""
        if self.schema == 1:
            yield from self._legacy_events(with_wall, since_seq)
            return
        for c in self._commits(since_seq):
            for i, (rnd, t, wall, device, kind, payload) in enumerate(c.rows):
                if c.first_seq + i > since_seq:
                    yield Event(c.first_seq + i, rnd, t, wall if with_wall else 0, device, kind, payload)

    def _legacy_events(self, with_wall: bool, since_seq: int) -> Iterator[Event]:
        for row in self._db.execute("SELECT * FROM events WHERE seq > ? ORDER BY seq", (since_seq,)):
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
        """The table's committed state per round (``TraceWriter.commit(state=...)``), in round order;
        a round committed with a state twice: the later one."""
        found: dict[int, bytes] = {}
        if self.schema == 1:
            try:
                found = dict(self._db.execute("SELECT round, state FROM state").fetchall())
            except sqlite3.OperationalError:  # a trace written before the state table existed
                return
        for c in self._commits():
            if c.state is not None:
                found[c.round] = c.state
        for rnd in sorted(found):
            yield rnd, orjson.loads(found[rnd])

    def count(self) -> int:
        """How many events the trace holds. sqlite3.OperationalError for a file with no trace tables."""
        if self.schema == 2:
            return self._db.execute("SELECT COALESCE(SUM(events), 0) FROM commits").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def check_records(self) -> None:
        """Read every record: TraceDamaged (a ValueError) naming the first commit and round that
        cannot be read."""
        for _ in self._commits():
            pass

    def last_seq(self) -> int:
        """The sequence number of the last committed event (0: none)."""
        if self.schema == 2:
            row = self._db.execute("SELECT first_seq + events - 1 FROM commits WHERE events > 0 "
                                   "ORDER BY n DESC LIMIT 1").fetchone()
            return row[0] if row else 0
        if self.schema == 1:
            return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        return 0

    def chain_status(self) -> ChainStatus:
        """``hil.trace.chain_status`` of this trace."""
        if self.schema != 2:
            meta = self.meta() if self.schema == 1 else {}
            brk = [ChainBreak(0, f"recorded by an earlier Croupier (trace_schema {meta.get('trace_schema', 1)}): "
                                 "it has no hash chain")] if self.schema == 1 else []
            return ChainStatus(brk, False, 0, 0, GENESIS.hex())
        meta = self.meta()
        breaks: list[ChainBreak] = []
        prev, last_seq, n, rnd = GENESIS, 0, 0, 0
        for c in self._commits(strict=False):
            if c.n != n + 1:
                breaks.append(ChainBreak(c.round, f"commit(s) {n + 1}..{c.n - 1} missing before this round's commit {c.n}"))
            if c.first_seq != last_seq + 1:
                breaks.append(ChainBreak(c.round, f"commit {c.n} begins at event {c.first_seq}, the one before it "
                                                  f"ended at event {last_seq}: events missing or inserted"))
            if not c.raw:
                breaks.append(ChainBreak(c.round, f"commit {c.n} (round {c.round}) is damaged: its record cannot be read"))
            elif hashlib.sha256(prev + c.raw).digest() != c.link:
                breaks.append(ChainBreak(c.round, f"the events or the state of commit {c.n} (round {c.round}) do not hash "
                                                  "to its chain link: changed, moved, deleted or inserted"))
            prev, n, rnd, last_seq = c.link, c.n, c.round, c.first_seq + c.count - 1
        head = meta.get(CHAIN_META)
        closed = head is not None
        if closed:
            if not isinstance(head, dict) or not all(k in head for k in ("head", "commits", "round")):
                breaks.append(ChainBreak(rnd, "the chain head recorded at close is unreadable"))
                head = {"head": prev.hex()}
            elif head["commits"] != n or head["head"] != prev.hex():
                closed_round = head["round"] if isinstance(head["round"], int) else rnd
                breaks.append(ChainBreak(rnd + 1 if closed_round > rnd else closed_round,
                                         f"the trace ends at round {rnd} (commit {n}) but its writer closed it after "
                                         f"round {head['round']} (commit {head['commits']}, head {str(head['head'])[:16]}…): "
                                         "truncated, or its last rounds changed"))
            if head.get("meta") is not None and head["meta"] != _meta_digest(meta):
                breaks.append(ChainBreak(0, "the trace's metadata changed after its writer closed it"))
        return ChainStatus(breaks, closed, n, rnd, str(head["head"]) if closed else prev.hex())

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TraceReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
        return r.chain_status()


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
