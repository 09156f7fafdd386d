"""Trace size and write time: the same simulated run written in the row-per-event layout
(trace_schema 1: one SQLite row per event, its index built at close) and in the compact one
(trace_schema 2: one zlib record per commit, hash-chained; docs/trace.md), side by side in one run
(this machine is shared and noisy: read the ratios).

The run: the bundled Crazy Time normal play (full rounds: 6 players, lock-out probing, wheel ∥
Top Slot, settlement) for ROUNDS rounds, recorded once by the rig; its events (both clocks, the
payloads) are then replayed commit by commit into each layout's writer, so both files hold the
same events. Printed per layout: bytes per round (the file, and what is left beside it), the
write time per round (record + commit, CPU), the time to read it back round by round as the
checks do (CPU), and the ratios. The last line is JSON.

    .venv/bin/python bench/trace_size.py [ROUNDS]
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hil.trace as T  # noqa: E402
from hil.bench import load_bench  # noqa: E402
from hil.runner import load_rules, run_scenario  # noqa: E402
from hil.scenario import load_scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "crazy_time" / "normal_play.yaml"

_OLD_DDL = """
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


class RowPerEventWriter:
    """The trace_schema 1 writer as it was (hil/trace.py before issue 14): one row per event,
    WAL, synchronous=NORMAL, one transaction per commit, the round index built at close."""

    def __init__(self, path: Path, meta: dict) -> None:
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_OLD_DDL)
        self._db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                             [(k, orjson.dumps(v).decode()) for k, v in {"trace_schema": 1, **meta}.items()])
        self._seq = 0
        self._pending: list[tuple] = []
        self.round = 0
        self.clock = None

    def record(self, device: str, kind: str, payload: dict | None = None) -> None:
        self._seq += 1
        text = orjson.dumps(payload or {}, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)
        self._pending.append((self._seq, self.round, self.clock.now if self.clock else 0.0, T.time.time_ns(),
                              device, kind, text.decode()))

    def commit(self, state: dict | None = None, *, round_end: bool = False) -> None:
        if self._pending or state is not None:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", self._pending)
            if state is not None:
                self._db.execute("INSERT OR REPLACE INTO state(round, state) VALUES (?, ?)",
                                 (self.round, orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS).decode()))
            self._db.execute("COMMIT")
            self._pending.clear()

    def close(self) -> None:
        self.commit()
        self._db.execute("CREATE INDEX IF NOT EXISTS events_round ON events(round)")
        self._db.close()


class _Replay:
    """Plays recorded commits into a writer: the recorded sim time as its clock, the recorded wall
    time as ``time.time_ns()`` (patched in hil.trace for the replay), the recorded state."""

    def __init__(self, commits: list[tuple[int, list, dict | None]]) -> None:
        self.commits = commits
        self.now = 0.0
        self._walls: list[int] = []

    def time_ns(self) -> int:
        return self._walls.pop()

    def into(self, writer) -> float:
        """Replay every commit; returns the CPU seconds it took (the writer's record + commit + close,
        and the replay's own few steps, the same for both layouts)."""
        real_time = T.time
        T.time = self  # the writers stamp time.time_ns() through hil.trace's module
        writer.clock = self
        t0 = time.process_time()  # once around it all: a process_time() call costs ~0.1 ms here
        try:
            for rnd, events, state in self.commits:
                self._walls = [e.wall_ns for e in reversed(events)]
                for e in events:
                    self.now = e.sim_time
                    writer.round = e.round
                    writer.record(e.device, e.kind, e.payload)
                writer.round = rnd
                writer.commit(state=state, round_end=True)
            writer.close()
            spent = time.process_time() - t0
        finally:
            T.time = real_time
        return spent


def _recorded_run(rounds: int, out: Path) -> tuple[Path, dict]:
    loaded = load_scenario(SCENARIO)
    loaded = type(loaded)(**{**loaded.__dict__, "scenario": loaded.scenario.model_copy(update={"rounds": rounds})})
    result = run_scenario(loaded, load_bench(), load_rules(), out)
    if result["error"]:
        raise SystemExit(f"the run failed: {result['error']}")
    return out / result["trace"], result


def _commits_of(path: Path) -> tuple[dict, list[tuple[int, list, dict | None]]]:
    with T.TraceReader(path) as r:
        meta = {k: v for k, v in r.meta().items() if k not in ("trace_schema", T.CHAIN_META)}
        commits = []
        for c in r._commits():
            events = [T.Event(c.first_seq + i, *row) for i, row in enumerate(c.rows)]
            commits.append((c.round, events, orjson.loads(c.state) if c.state is not None else None))
    return meta, commits


def _read(path: Path) -> tuple[float, list[tuple]]:
    """(CPU seconds to read every event as the checks do, the events)."""
    t0 = time.process_time()
    with T.TraceReader(path) as r:
        events = [(e.seq, e.round, e.sim_time, e.wall_ns, e.device, e.kind, e.payload)
                  for _, round_events in r.rounds() for e in round_events]
    return time.process_time() - t0, events


def _on_disk(path: Path) -> tuple[int, int]:
    """(the trace file's bytes, the bytes of what is left beside it: -wal, -shm)."""
    beside = sum(p.stat().st_size for p in (path.with_name(path.name + s) for s in ("-wal", "-shm")) if p.exists())
    return path.stat().st_size, beside


def main(rounds: int = 200) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        recorded, result = _recorded_run(rounds, tmp / "run")
        meta, commits = _commits_of(recorded)
        played = sum(1 for rnd, _, _ in commits if rnd >= 1)
        events = sum(len(ev) for _, ev, _ in commits)
        old_path, new_path = tmp / "old.sqlite", tmp / "new.sqlite"
        replay = _Replay(commits)
        old_cpu = replay.into(RowPerEventWriter(old_path, meta))
        # a reader after the writer closed, as the run's checks read it: the old layout leaves -wal/-shm
        sqlite3.connect(f"file:{old_path}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM events").fetchone()
        new_cpu = replay.into(T.TraceWriter(new_path, meta))
        new_read, new_events = _read(new_path)
        old_read, old_events = _read(old_path)
        same = new_events == old_events
        old_bytes, old_beside = _on_disk(old_path)
        new_bytes, new_beside = _on_disk(new_path)
    out = {
        "rounds": played, "events_per_round": round(events / played, 1),
        "old_bytes_per_round": round(old_bytes / played), "old_beside_bytes": old_beside,
        "new_bytes_per_round": round(new_bytes / played), "new_beside_bytes": new_beside,
        "ratio": round(old_bytes / new_bytes, 2),
        "old_write_us_per_round": round(old_cpu / played * 1e6), "new_write_us_per_round": round(new_cpu / played * 1e6),
        "write_time_ratio_new_to_old": round(new_cpu / old_cpu, 2) if old_cpu else None,
        "old_read_us_per_round": round(old_read / played * 1e6), "new_read_us_per_round": round(new_read / played * 1e6),
        "read_time_ratio_new_to_old": round(new_read / old_read, 2) if old_read else None,
        "same_events": same,
    }
    print(f"{played} full Crazy Time rounds ({out['events_per_round']} events a round), the same events in both layouts: "
          f"{'yes' if same else 'NO'}")
    print(f"  row per event (trace_schema 1): {out['old_bytes_per_round']:>6} B a round "
          f"(+{old_beside} B of -wal/-shm left beside it), {out['old_write_us_per_round']} µs CPU a round to write")
    print(f"  compact       (trace_schema 2): {out['new_bytes_per_round']:>6} B a round "
          f"(+{new_beside} B beside it), {out['new_write_us_per_round']} µs CPU a round to write")
    print(f"  reading every event round by round (as the checks do): {out['old_read_us_per_round']} µs a round row per "
          f"event, {out['new_read_us_per_round']} µs compact")
    print(f"  ratio old/new bytes: {out['ratio']}; write time new/old: {out['write_time_ratio_new_to_old']}; "
          f"read time new/old: {out['read_time_ratio_new_to_old']}")
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
