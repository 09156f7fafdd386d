"""Compact traces (issue 14): one compressed record per commit, with the same information as one
row per event had — every event, its two clocks, its payload, the table's state, the metadata —
in one self-contained file once closed (docs/trace.md)."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import orjson
import pytest

from hil import trace as T
from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import load_scenario
from hil.trace import MalformedPayload, TraceReader, TraceWriter, verify_chain
from tests.hil import trace_surgery

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "crazy_time" / "normal_play.yaml"
ROUNDS = 20
#: the pages every trace has whatever its length: SQLite's schema, the metadata, the records' b-tree root
FIXED_PAGES = 3


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    loaded = load_scenario(SCENARIO)
    loaded = type(loaded)(**{**loaded.__dict__, "scenario": loaded.scenario.model_copy(update={"rounds": ROUNDS})})
    out = tmp_path_factory.mktemp("compact")
    result = run_scenario(loaded, load_bench(), load_rules(), out)
    assert result["error"] is None, result["error"]
    return out, out / result["trace"]


def test_a_full_crazy_time_round_costs_at_most_2_kb(run):
    _, path = run
    with TraceReader(path) as r:
        rounds = [n for n, _ in r.rounds() if n]
        per_round = r.count() / len(rounds)
    assert len(rounds) == ROUNDS and per_round > 40  # full rounds: betting, presses, spin, settlement
    size = path.stat().st_size
    bytes_per_round = (size - FIXED_PAGES * T.PAGE_SIZE) / ROUNDS
    print(f"\n{ROUNDS} Crazy Time rounds, {per_round:.0f} events a round: {size} B, {bytes_per_round:.0f} B a round")
    assert bytes_per_round <= 2048, bytes_per_round


def test_a_closed_trace_is_one_file_and_reading_it_leaves_none(run):
    out, path = run
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # the run's checks have read it too
    with TraceReader(path) as r:
        assert r.count() > ROUNDS * 40
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        db.close()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    assert verify_chain(path) == []


WIDE = 2**64 + 5


def _written(path: Path) -> list[tuple]:
    """A trace of awkward events, and what a reader must give back for each (as the row-per-event
    trace gave it): ``(round, sim_time, device, kind, payload)``."""
    clock = type("Clock", (), {"now": 0})()
    w = TraceWriter(path, {"game": "crazy-time", "note": "ünïcode"})
    w.clock = clock
    expected = []

    def rec(device, kind, payload, now):
        clock.now = now
        w.record(device, kind, payload)
        want = orjson.loads(orjson.dumps(T._wide_ints(payload or {}), option=orjson.OPT_NON_STR_KEYS))
        expected.append((w.round, float(now), device, kind, want))

    rec("wheel", "device_info", {"pockets": 54, "counter": WIDE, "nested": {"big": [-WIDE, 1]}}, 0)
    rec("wheel\nodd", "kind\x1fodd", {"text": "line\nbreak \x1f ünï", 7: "int key"}, 0)
    w.commit()
    w.round = 1
    rec("croupier", "round_start", {"round": 1}, 0.1)
    rec("croupier", "same_time", {}, 0.1)
    rec("croupier", "none", None, 1e-300)
    rec("wagering", "press", {"press_id": 1, "device_time_s": 1 / 3, "accepted": True, "reason": None}, 2 / 3)
    rec("croupier", "late", {"x": float("nan")}, float("inf"))
    rec("croupier", "list", [1, 2], 5)  # a payload that is no object: read back as what it is
    rec("croupier", "dup", {1: "a", "1": "b"}, 5)  # two keys alike once strings: as JSON reads it
    rec("croupier", "round_end", {"round": 1}, 6)
    w.commit(state={"meter": WIDE // 2**8, 3: "x"}, round_end=True)
    w.close()
    return expected


def test_every_event_reads_back_as_written_with_both_clocks(tmp_path):
    path = tmp_path / "odd.sqlite"
    expected = _written(path)
    with TraceReader(path) as r:
        events = list(r.events())
        states = list(r.states())
        meta = r.meta()
    assert [e.seq for e in events] == list(range(1, len(expected) + 1))
    got = [(e.round, e.sim_time, e.device, e.kind, e.payload) for e in events]
    for g, want in zip(got, expected, strict=True):
        assert g == want, (g, want)
    assert events[0].payload["counter"] == str(WIDE) and events[0].payload["nested"]["big"] == [str(-WIDE), 1]
    assert events[7].payload == [1, 2] and events[8].payload == {"1": "b"}
    assert events[6].sim_time == math.inf and events[6].payload == {"x": None}  # NaN: JSON's null, as before
    walls = [e.wall_ns for e in events]
    assert walls == sorted(walls) and all(w > 1_600_000_000 * 10**9 for w in walls)  # time.time_ns() kept
    assert states == [(1, {"meter": WIDE // 2**8, "3": "x"})]
    assert meta["note"] == "ünïcode" and meta["trace_schema"] == T.SCHEMA_VERSION


def test_a_payload_that_is_no_json_reads_as_malformed(tmp_path):
    path = tmp_path / "odd.sqlite"
    _written(path)
    assert trace_surgery.set_payloads(path, lambda row: row[4] == "press", "{not json") == 1
    with TraceReader(path) as r:
        (press,) = [e for e in r.events() if e.kind == "press"]
    assert isinstance(press.payload, MalformedPayload) and press.payload == "{not json"


def test_a_trace_of_the_row_per_event_layout_still_reads(tmp_path):
    """trace_schema 1 (an earlier Croupier's trace): read as before; it has no chain to verify."""
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE state (round INTEGER PRIMARY KEY, state TEXT NOT NULL);
        CREATE TABLE events (seq INTEGER PRIMARY KEY, round INTEGER NOT NULL, sim_time REAL NOT NULL,
                             wall_ns INTEGER NOT NULL, device TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL);
        INSERT INTO meta VALUES ('trace_schema', '1'), ('game', '"crazy-time"');
        INSERT INTO events VALUES (1, 0, 0.0, 5, 'wheel', 'device_info', '{"pockets":54}'),
                                  (2, 1, 1.5, 6, 'croupier', 'round_start', '{"round":1}'),
                                  (3, 1, 2.5, 7, 'croupier', 'odd', '{not json');
        INSERT INTO state VALUES (1, '{"m":1}');
    """)
    db.close()
    with TraceReader(path) as r:
        assert r.schema == 1 and r.count() == 3 and r.last_seq() == 3
        events = list(r.events())
        assert [(e.seq, e.round, e.sim_time, e.wall_ns, e.kind) for e in events] == [
            (1, 0, 0.0, 5, "device_info"), (2, 1, 1.5, 6, "round_start"), (3, 1, 2.5, 7, "odd")]
        assert isinstance(events[2].payload, MalformedPayload)
        assert list(r.states()) == [(1, {"m": 1})] and r.meta()["game"] == "crazy-time"
        assert [e.seq for e in r.events(since_seq=2)] == [3]
    (brk,) = verify_chain(path)
    assert brk.round == 0 and "no hash chain" in brk.message
    with pytest.raises(T.TraceError, match="earlier Croupier"):
        TraceWriter.resume_point(path)


def test_a_reopened_trace_reads_on_with_the_same_dictionary(tmp_path):
    path = tmp_path / "t.sqlite"
    w = TraceWriter(path, {})
    for rnd in range(1, 4):
        w.round = rnd
        for i in range(60):
            w.record("wagering", "press", {"press_id": rnd * 100 + i, "spot": "coin-flip", "accepted": True})
        w.record("croupier", "round_end", {"round": rnd})
        w.commit(round_end=True)
    w.close_quietly()  # killed
    point = TraceWriter.resume_point(path)
    assert (point.last_round, point.last_seq) == (3, 183)
    w = TraceWriter.reopen(path)
    w.round = 4
    w.record("croupier", "round_end", {"round": 4})
    w.commit(round_end=True)
    w.close()
    with TraceReader(path) as r:
        events = list(r.events())
    assert [e.seq for e in events] == list(range(1, 185)) and events[-1].round == 4
    rows = trace_surgery.commits(path)
    assert [c["zdict"] for c in rows] == [None, 1, 1, 1]  # round 1's record: the dictionary of the later ones
    assert verify_chain(path) == []


def test_the_writers_one_pass_encoder_gives_the_reference_bytes(run):
    """``TraceWriter.commit`` codes its pending events in one pass (``_encode_pending``, the hot path of a
    simulated run); the record must be byte for byte the one ``_encode`` makes of the events read back
    (``_read_back``): the chain hashes these bytes. Every round of a real run, plus the odd payloads: a
    kept text (two keys alike once strings; no object), numpy values, a wide integer, clocks not finite
    or repeated, events of another round."""
    import numpy as np

    _, path = run
    with TraceReader(path) as r:
        rounds = list(r.rounds())
        zd = r._db.execute("SELECT zdict FROM commits WHERE zdict IS NOT NULL LIMIT 1").fetchone()
        base = r._dictionary(zd[0]) if zd else None
    assert base is not None and len(rounds) > ROUNDS

    def pending(device, kind, payload, rnd=3, t=1.0):
        p = payload or {}
        try:
            text = orjson.dumps(p, option=T._JSON_OPTIONS)
        except TypeError:
            text = orjson.dumps(T._wide_ints(p), option=T._JSON_OPTIONS)
        return (rnd, t, 1_700_000_000_000_000_000 + len(text), device, kind, text, len(p) if isinstance(p, dict) else -1)

    batches = [[pending(e.device, e.kind, e.payload, e.round, e.sim_time) for e in events] for _, events in rounds]
    batches.append([
        pending("a", "k", {"x": 1}), pending("a", "k", {1: 2, "1": 3}), pending("a", "k", {"x": np.float32(1.5)}, 4, np.float64(2.5)),
        pending("b", "k", [1, 2], t=math.inf), pending("b", "k", None, t=math.inf), pending("b", "k", {"y": (1, 2)}, t=math.nan),
        pending("b", "k", {"y": 2**70}, t=math.nan), pending("a", "k", {"x": 2}), pending("a", "k", {2: 1}, t=-0.0),
    ])
    batches.append([])
    for rows in batches:
        for state in (None, b"", b'{"streak":[1,2]}'):
            for zd in (None, base):
                want = T._encode(5, 11, T._read_back(rows), state, zd)
                assert T._encode_pending(5, 11, rows, state, zd) == want
    assert T._decode(T._encode_pending(3, 1, batches[-2], None), None)[2][1][5] == {"1": 3}  # the kept text, read


def test_record_codes_every_payload_as_the_json_options_do(tmp_path):
    """``record`` tries orjson's plain coding first (half the cost) and the options (non-str keys,
    numpy) only where it refuses: the text recorded is the options' own, byte for byte, whatever the
    payload (an int past 64 bits: its decimal string)."""
    import enum

    import numpy as np

    class Key(str):
        pass

    class Colour(enum.Enum):
        RED = 1

    payloads = [None, {}, {"a": 1, "b": [1.5, None, True, "x\u2028"]}, {"t": np.float64(0.1)}, {"n": np.int64(3)},
                {"v": np.array([1.0, 2.5])}, {"f": np.float32(0.1)}, {1: "one", "1": "uno"}, {"d": {2: 3}},
                {Key("k"): 1}, {"c": Colour.RED}, {"tuple": (1, 2)}, {"nan": math.nan, "inf": -math.inf},
                {"wide": 2**70, "ok": 2**64 - 1}, [1, 2], {"b": np.bool_(True)}, {None: 1, True: 2}]
    w = TraceWriter(tmp_path / "t.sqlite", {})
    try:
        for p in payloads:
            w.record("dev", "kind", p)
            try:
                want = orjson.dumps(p or {}, option=T._JSON_OPTIONS)
            except TypeError:
                want = orjson.dumps(T._wide_ints(p or {}), option=T._JSON_OPTIONS)
            assert w._pending[-1][5] == want, p
    finally:
        w.close()
    assert b'"wide":"1180591620717411303424"' in orjson.dumps(T._wide_ints(payloads[13]))
