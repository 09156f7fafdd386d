"""The durable trace: append-only events in a SQLite file, committed at least once per round.

Every event carries the round id, a sequence number (dense, per trace), the simulated time,
the wall-clock time in ns (``time.time_ns()``, for correlating with the lab's other records),
the device (or ``croupier`` for the rig's own steps), a kind and a JSON payload.

The checks read only this file (``TraceReader``), round by round, in constant memory, so a
QA bench can run for hours and a lab can re-check a trace long after the run.
"""

from __future__ import annotations

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


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    round: int
    sim_time: float
    wall_ns: int
    device: str
    kind: str
    payload: dict[str, Any]


class TraceWriter:
    """Appends events; ``commit()`` makes everything so far durable (called once per round).

    WAL journal: a crash of the rig loses nothing committed, and a reader (a live dashboard,
    a lab re-running the checks) may read while the run goes on.
    """

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            raise FileExistsError(f"{self.path}: a trace is append-only; refusing to overwrite it")
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_DDL)
        self._seq = 0
        self._pending: list[tuple] = []
        self.round = 0
        self.clock: Any = None  # anything with a ``now`` (the simpy.Environment); None = time 0
        #: called at each commit, before writing (e.g. to record the clock's lateness)
        self.before_commit: list[Callable[[], None]] = []
        self.set_meta({"trace_schema": SCHEMA_VERSION, **meta})

    def set_meta(self, meta: dict[str, Any]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            [(k, orjson.dumps(v).decode()) for k, v in meta.items()],
        )

    def record(self, device: str, kind: str, payload: dict[str, Any] | None = None) -> int:
        """Append one event stamped now (both clocks); returns its sequence number."""
        self._seq += 1
        self._pending.append(
            (self._seq, self.round, self.clock.now if self.clock else 0.0, time.time_ns(), device, kind,
             orjson.dumps(payload or {}, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY).decode())
        )
        return self._seq

    def commit(self) -> None:
        for hook in self.before_commit:
            hook()
        if self._pending:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", self._pending)
            self._db.execute("COMMIT")
            self._pending.clear()

    def close(self) -> None:
        self.commit()
        self._db.execute(_INDEX)
        self._db.close()

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
        for row in self._db.execute("SELECT * FROM events ORDER BY seq"):
            yield Event(row[0], row[1], row[2], row[3] if with_wall else 0, row[4], row[5],
                        orjson.loads(row[6]))

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

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TraceReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
