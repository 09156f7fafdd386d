"""The trace: durable per round, reproducible from the seed, readable round by round."""

from __future__ import annotations

import sqlite3

import pytest

from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader, TraceWriter

TEXT = """\
schema: 1
name: det
game: crazy-time
seed: 77
rounds: 25
players: {count: 4}
faults:
  wheel: {clapper_wear: 15.0}
checks: {max_void_spin_ratio: 0.5}  # a worn clapper: respins are the point
"""


def _rows(path):
    with TraceReader(path) as reader:
        return [(e.seq, e.round, e.sim_time, e.device, e.kind, e.payload) for e in reader.events()]


def _strip(result):
    return {k: v for k, v in result.items() if k not in ("wall_s",)}


def test_same_seed_same_trace_and_result(tmp_path):
    sc = parse_scenario(TEXT, "det.yaml")
    a = run_scenario(sc, load_bench(), load_rules(), tmp_path / "a")
    b = run_scenario(sc, load_bench(), load_rules(), tmp_path / "b")
    assert _strip(a) == _strip(b)
    ra, rb = _rows(tmp_path / "a" / a["trace"]), _rows(tmp_path / "b" / b["trace"])
    assert ra == rb and len(ra) > 25 * 10


def test_seed_override_changes_the_run(tmp_path):
    sc = parse_scenario(TEXT, "det.yaml")
    a = run_scenario(sc, load_bench(), load_rules(), tmp_path / "a")
    b = run_scenario(sc, load_bench(), load_rules(), tmp_path / "b", seed_override=1)
    assert _rows(tmp_path / "a" / a["trace"]) != _rows(tmp_path / "b" / b["trace"])


def test_rounds_are_contiguous_and_complete(tmp_path):
    sc = parse_scenario(TEXT, "det.yaml")
    r = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    with TraceReader(tmp_path / r["trace"]) as reader:
        rounds = [n for n, _ in reader.rounds()]
        assert rounds == list(range(0, 26))
        for n, events in reader.rounds():
            if n:
                assert events[0].kind == "round_start" and events[-1].kind == "round_end"
            seqs = [e.seq for e in events]
            assert seqs == sorted(seqs)
        assert reader.meta()["seed"] == 77


def test_trace_is_durable_per_round_and_keeps_data_after_a_crash(tmp_path, monkeypatch):
    """A device that crashes mid-run: every committed round stays, the error is recorded."""
    import devices.money_wheel as mw

    calls = {"n": 0}
    real_spin = mw.MoneyWheelSim.spin

    def flaky(self, direction):
        calls["n"] += 1
        if calls["n"] == 8:
            raise RuntimeError("wheel controller fault")
        return real_spin(self, direction)

    monkeypatch.setattr(mw.MoneyWheelSim, "spin", flaky)
    sc = parse_scenario(TEXT.replace("faults:\n  wheel: {clapper_wear: 15.0}\n", ""), "det.yaml")
    r = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert "wheel controller fault" in r["error"] and r["expectation_met"] is False
    with TraceReader(tmp_path / r["trace"]) as reader:
        kinds = [(e.round, e.kind) for e in reader.events()]
    ends = [n for n, k in kinds if k == "round_end"]
    assert ends == list(range(1, 8))
    assert kinds[-1][1] == "run_error"


def test_writer_refuses_to_overwrite(tmp_path):
    p = tmp_path / "t.sqlite"
    TraceWriter(p, {}).close()
    with pytest.raises(FileExistsError):
        TraceWriter(p, {})


def test_committed_rounds_visible_to_a_concurrent_reader(tmp_path):
    p = tmp_path / "t.sqlite"
    w = TraceWriter(p, {"k": 1})
    w.round = 1
    w.record("croupier", "round_start", {"round": 1})
    w.commit()
    w.round = 2
    w.record("croupier", "round_start", {"round": 2})  # not committed yet
    with TraceReader(p) as r:
        assert [e.round for e in r.events()] == [1]
    w.close()


def test_void_spin_is_respun_and_each_attempt_recorded(tmp_path):
    """§ 690.2(d) respin path: a between-sections spin is void, respun, and only the valid
    attempt is settled; every attempt is in the trace."""
    r = run_scenario(parse_scenario(TEXT.replace("rounds: 25", "rounds: 150"), "det.yaml"),
                     load_bench(), load_rules(), tmp_path)
    assert r["stats"]["void_spins"] > 0 and r["expectation_met"]
    respun = 0
    with TraceReader(tmp_path / r["trace"]) as reader:
        for n, events in reader.rounds():
            kinds = [(e.device, e.kind, e.payload) for e in events]
            voids = [p for d, k, p in kinds if k == "spin_void"]
            if not voids or n == 0:
                continue
            respun += 1
            commands = [p["attempt"] for d, k, p in kinds if k == "spin_command"]
            assert commands == list(range(1, len(commands) + 1))
            assert all(v["reason"] in ("between_sections", "under_three_revolutions") for v in voids)
            stops = [p for d, k, p in kinds if k == "spin_stop"]
            assert len(stops) == len(commands)
            valid = [p for d, k, p in kinds if k == "spin_valid"]
            if valid:  # settled on the last attempt, whose rest was in a section
                assert not stops[-1]["on_peg"] and valid[0]["attempt"] == len(commands)
                assert kinds[-1][2]["result"] == stops[-1]["spot"]
    assert respun > 0


def test_a_trace_killed_before_its_first_commit_is_judged_and_resumed_afresh(tmp_path):
    """A run killed between creating its trace and committing anything leaves a file with (part
    of) its metadata and no event: the checks still give verdicts (failing: nothing was recorded),
    never a traceback, and --resume starts that scenario afresh (nothing recorded is lost)."""
    from hil.checks import run_checks

    loaded = parse_scenario(TEXT, "det.yaml")
    path = tmp_path / "traces" / "det.sqlite"
    path.parent.mkdir()
    TraceWriter(path, {}).close_quietly()  # as a kill leaves it: created, nothing committed, never closed
    verdicts = {c.id: c.verdict for c in run_checks(path)}
    assert "pass" not in verdicts.values()  # nothing recorded: no check passes
    from hil.runner import check_config

    verdicts = {c.id: c.verdict for c in run_checks(path, check_config(loaded.scenario))}
    assert verdicts["EVIDENCE-link"] == "fail"  # 0 of the 25 rounds asked for
    r = run_scenario(loaded, load_bench(), load_rules(), tmp_path, resume=True)
    assert r["error"] is None and r["expectation_met"], r["error"]
    with TraceReader(path) as reader:
        ends = [e.round for e in reader.events() if e.kind == "round_end"]
    assert ends == list(range(1, 26))


def _rounds_written(p) -> list[int]:
    with TraceReader(p) as r:
        return sorted({e.round for e in r.events()})


def _end_round(w: TraceWriter, n: int, state=None) -> None:
    w.round = n
    w.record("croupier", "round_start", {"round": n})
    w.record("croupier", "round_end", {"round": n})
    w.commit(state=state, round_end=True)


def test_a_group_writes_its_rounds_in_one_transaction_each_round_its_own_record(tmp_path):
    """``group(3, ...)``: the first two rounds wait, the third's end writes all three, each round one
    commit with its own state; a commit that ends no round (the run's last) writes what waits."""
    p = tmp_path / "t.sqlite"
    w = TraceWriter(p, {})
    w.group(3, 3600.0)
    _end_round(w, 1, {"m": 1})
    _end_round(w, 2, {"m": 2})
    assert _rounds_written(p) == []
    _end_round(w, 3, {"m": 3})
    assert _rounds_written(p) == [1, 2, 3]
    _end_round(w, 4, {"m": 4})
    assert _rounds_written(p) == [1, 2, 3]
    w.commit()
    assert _rounds_written(p) == [1, 2, 3, 4]
    with TraceReader(p) as r:
        assert list(r.states()) == [(n, {"m": n}) for n in (1, 2, 3, 4)]
        assert [(c.n, c.round) for c in r._commits()] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    w.close()
    with TraceReader(p) as r:
        assert r.chain_status().breaks == [] and r.chain_status().closed


def test_a_kill_inside_a_group_loses_whole_rounds_and_the_state_stays_with_its_round(tmp_path):
    """The rounds waiting for the group's transaction are lost to a kill (``close_quietly``), whole:
    the trace is the last written round's, events and state, and the writer reopened goes on from it."""
    p = tmp_path / "t.sqlite"
    w = TraceWriter(p, {})
    w.group(2, 3600.0)
    for n in (1, 2, 3):
        _end_round(w, n, {"m": n})
    w.round = 4
    w.record("croupier", "round_start", {"round": 4})
    w.close_quietly()
    point = TraceWriter.resume_point(p)
    assert (point.last_round, point.state) == (2, {"m": 2}) and _rounds_written(p) == [1, 2]
    w = TraceWriter.reopen(p)
    _end_round(w, 3, {"m": 30})
    w.close()
    with TraceReader(p) as r:
        assert [e.round for e in r.events() if e.kind == "round_end"] == [1, 2, 3]
        assert list(r.states())[-1] == (3, {"m": 30}) and r.chain_status().breaks == []


def test_a_group_is_bounded_by_wall_time_and_commit_now_writes_at_once(tmp_path, monkeypatch):
    import hil.trace as T

    now = [100.0]
    monkeypatch.setattr(T, "_monotonic", lambda: now[0])
    p = tmp_path / "t.sqlite"
    w = TraceWriter(p, {})
    w.group(100, 0.25)
    _end_round(w, 1)
    now[0] += 0.2
    _end_round(w, 2)
    assert _rounds_written(p) == []
    now[0] += 0.05  # 0.25 s since the last transaction: written
    _end_round(w, 3)
    assert _rounds_written(p) == [1, 2, 3]
    _end_round(w, 4)
    w.commit_now = True  # a run that ends at this round (the sequential monitor's decision)
    _end_round(w, 5)
    assert _rounds_written(p) == [1, 2, 3, 4, 5] and not w.commit_now
    w.close()


def test_a_group_is_one_round_or_more(tmp_path):
    w = TraceWriter(tmp_path / "t.sqlite", {})
    for bad in ((0, 1.0), (2, -1.0), (2, float("nan"))):
        with pytest.raises(ValueError, match="a group is"):
            w.group(*bad)
    w.close()


def test_a_simulated_run_groups_its_commits_and_reads_as_one_written_a_round_at_a_time(tmp_path, monkeypatch):
    """``hil.runner`` groups a simulated bench's commits (``TraceWriter.group``): fewer transactions
    than rounds, and the trace is the same, round by round, as one written a round at a time."""
    import hil.trace as T

    transactions = []
    write = T.TraceWriter._write
    monkeypatch.setattr(T.TraceWriter, "_write", lambda self: (transactions.append(len(self._rows)), write(self))[1])
    sc = parse_scenario(TEXT, "det.yaml")
    r = run_scenario(sc, load_bench(), load_rules(), tmp_path / "grouped")
    grouped = [n for n in transactions if n]
    transactions.clear()
    monkeypatch.setattr(T.TraceWriter, "group", lambda self, *a, **k: None)
    ungrouped = run_scenario(sc, load_bench(), load_rules(), tmp_path / "one-by-one")
    assert max(grouped) == T.GROUP_ROUNDS and len(grouped) < r["stats"]["rounds"] <= sum(grouped)
    assert max(transactions) == 1 and len([n for n in transactions if n]) == sum(grouped)
    with TraceReader(tmp_path / "grouped" / r["trace"]) as a, \
            TraceReader(tmp_path / "one-by-one" / ungrouped["trace"]) as b:
        assert [(c.round, c.count) for c in a._commits()] == [(c.round, c.count) for c in b._commits()]
        assert [(e.seq, e.round, e.kind, e.payload) for e in a.events()] == \
            [(e.seq, e.round, e.kind, e.payload) for e in b.events()]


class _FailingOnce:
    """The writer's connection, whose next INSERT fails (a full disk) once."""

    def __init__(self, db):
        self.db, self.armed = db, True

    def __getattr__(self, name):
        return getattr(self.db, name)

    def _fail(self, sql):
        if self.armed and sql.startswith("INSERT"):
            self.armed = False
            raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql, *a):
        self._fail(sql)
        return self.db.execute(sql, *a)

    def executemany(self, sql, *a):
        self._fail(sql)
        return self.db.executemany(sql, *a)


@pytest.mark.parametrize("group", [1, 3])
def test_a_transaction_that_fails_leaves_its_records_waiting_and_the_chain_whole(tmp_path, group):
    """The group's (or the round's) transaction fails: nothing of it is written, its records wait in
    order, and the next transaction writes them: every round once, the chain unbroken."""
    p = tmp_path / "t.sqlite"
    w = TraceWriter(p, {})
    w.group(group, 3600.0)
    real = w._db
    w._db = _FailingOnce(real)
    for n in range(1, group):
        _end_round(w, n, {"m": n})
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        _end_round(w, group, {"m": group})
    assert _rounds_written(p) == [] and not real.in_transaction
    _end_round(w, group + 1, {"m": group + 1})
    w._db = real
    w.close()
    with TraceReader(p) as r:
        assert [e.round for e in r.events() if e.kind == "round_end"] == list(range(1, group + 2))
        assert r.chain_status().breaks == [] and r.chain_status().closed
