"""The trace's per-round hash chain (docs/trace.md, "Hash chain"): each commit's link is SHA-256 of
the link before it and the commit's raw record (its events with both clocks and payloads, and the
table's state), the head is recorded when the writer closes. Every tamper below is caught and
names the round; a trace a killed run left verifies up to its last committed round and says it
was never closed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from hil import trace as T
from hil.trace import TraceDamaged, TraceReader, TraceWriter, chain_head, chain_status, verify_chain
from tests.hil import trace_surgery as surgery

ROUNDS = 6


def _write(path: Path, *, close: bool = True) -> None:
    """A hand-made trace: a set-up (round 0), then ROUNDS rounds of a few events each, every round
    committed with the table's state (as a stateful table does)."""
    w = TraceWriter(path, {"game": "crazy-time", "seed": 7})
    w.record("wheel", "device_info", {"pockets": 54})
    w.commit()
    for rnd in range(1, ROUNDS + 1):
        w.round = rnd
        w.record("croupier", "round_start", {"round": rnd})
        for i in range(8):
            w.record("wagering", "press", {"press_id": rnd * 10 + i, "stake_cents": 100 * i, "wide": 2**70 + rnd,
                                           "spot": "coin-flip", "accepted": True})
        w.record("croupier", "round_end", {"round": rnd, "void": False})
        w.commit(state={"meter_cents": 1000 * rnd, "streak": [rnd]}, round_end=True)
    if close:
        w.close()
    else:
        w.close_quietly()  # as a kill -9 leaves it: committed rounds, no head


@pytest.fixture()
def trace(tmp_path) -> Path:
    path = tmp_path / "t.sqlite"
    _write(path)
    return path


def _rounds(breaks) -> set[int]:
    return {b.round for b in breaks}


def test_an_intact_trace_verifies_and_its_head_is_recorded(trace):
    # round 1's record is the dictionary the later ones are coded against (docs/trace.md)
    assert [c["zdict"] for c in surgery.commits(trace)] == [None, None] + [2] * (ROUNDS - 1)
    assert verify_chain(trace) == []
    status = chain_status(trace)
    assert status.closed and status.ok and status.commits == ROUNDS + 1 and status.last_round == ROUNDS
    with TraceReader(trace) as r:
        head = r.meta()[T.CHAIN_META]
    assert chain_head(trace) == head["head"] == status.head and len(bytes.fromhex(status.head)) == 32
    assert "chain intact" in status.describe()


def _change_round(trace: Path, rnd: int, change) -> None:
    def fn(n, rows, state):
        if rows and rows[0][0] == rnd:
            return change(rows, state)
        return None
    assert surgery.rewrite(trace, fn) == 1


def test_a_changed_payload_is_caught_naming_its_round(trace):
    def more_stake(rows, state):
        rows[2][5] = {**rows[2][5], "stake_cents": 999_999}
        return rows, state
    _change_round(trace, 3, more_stake)
    breaks = verify_chain(trace)
    assert _rounds(breaks) == {3}, breaks
    assert "do not hash to its chain link" in breaks[0].message


def test_a_changed_dictionary_record_is_caught_naming_its_round(trace):
    def fewer_presses(rows, state):
        return rows[:3] + rows[4:], state
    _change_round(trace, 1, fewer_presses)
    breaks = verify_chain(trace)
    assert min(_rounds(breaks)) == 1 and "round 1" in breaks[0].message, breaks


@pytest.mark.parametrize("column", [1, 2], ids=["sim_time", "wall_ns"])
def test_a_changed_clock_is_caught_naming_its_round(trace, column):
    def shift(rows, state):
        rows[1][column] += 1
        return rows, state
    _change_round(trace, 2, shift)
    assert _rounds(verify_chain(trace)) == {2}


def test_a_changed_state_is_caught_naming_its_round(trace):
    def reset_meter(rows, state):
        return rows, orjson.dumps({"meter_cents": 0, "streak": [4]})
    _change_round(trace, 4, reset_meter)
    assert _rounds(verify_chain(trace)) == {4}


def test_rounds_moved_deleted_or_inserted_are_caught_naming_the_round(trace, tmp_path):
    rows = surgery.commits(trace)
    assert [c["round"] for c in rows] == list(range(ROUNDS + 1))
    # two rounds swapped, each row whole (its record and its link)
    swapped = tmp_path / "swapped.sqlite"
    swapped.write_bytes(trace.read_bytes())
    surgery.replace_all(swapped, rows[:2] + [rows[3], rows[2]] + rows[4:])
    assert {2, 3} <= _rounds(verify_chain(swapped))
    # round 3 deleted
    deleted = tmp_path / "deleted.sqlite"
    deleted.write_bytes(trace.read_bytes())
    surgery.replace_all(deleted, rows[:3] + rows[4:])
    breaks = verify_chain(deleted)
    assert 4 in _rounds(breaks), breaks  # the round after the gap: its link does not follow
    assert any("events missing or inserted" in b.message for b in breaks)
    # round 2 played twice (a copy inserted after it)
    inserted = tmp_path / "inserted.sqlite"
    inserted.write_bytes(trace.read_bytes())
    surgery.replace_all(inserted, rows[:3] + [rows[2]] + rows[3:])
    assert 2 in _rounds(verify_chain(inserted))


def test_a_truncated_trace_is_caught_naming_where_it_ends(trace):
    rows = surgery.commits(trace)
    surgery.replace_all(trace, rows[:-2])  # the last two rounds cut, every remaining link intact
    (brk,) = verify_chain(trace)
    assert brk.round == ROUNDS - 1 and "truncated" in brk.message and f"round {ROUNDS}" in brk.message


def test_metadata_changed_after_close_is_caught(trace):
    db = sqlite3.connect(trace)
    db.execute("UPDATE meta SET value = '8' WHERE key = 'seed'")
    db.commit()
    db.close()
    (brk,) = verify_chain(trace)
    assert brk.round == 0 and "metadata" in brk.message


def test_a_damaged_record_is_caught_and_never_read_as_evidence(trace, tmp_path):
    rows = surgery.commits(trace)
    data = bytearray(rows[5]["data"])
    data[len(data) // 2] ^= 0x01  # one bit of round 5's compressed record
    rows[5]["data"] = bytes(data)
    surgery.replace_all(trace, rows)
    assert 5 in _rounds(verify_chain(trace))
    with TraceReader(trace) as r, pytest.raises(TraceDamaged, match=r"commit 6 \(round 5\) is damaged"):
        list(r.events())


def test_a_trace_a_killed_run_left_verifies_up_to_its_last_round_and_says_it_was_not_closed(tmp_path):
    path = tmp_path / "killed.sqlite"
    _write(path, close=False)
    assert verify_chain(path) == []
    status = chain_status(path)
    assert not status.closed and status.last_round == ROUNDS and "never closed" in status.describe()
    assert chain_head(path) == surgery.commits(path)[-1]["link"].hex()
    _change_round(path, 2, lambda rows, state: ([r for r in rows if r[4] != "press"], state))  # presses dropped
    breaks = verify_chain(path)
    assert min(_rounds(breaks)) == 2 and "do not hash" in breaks[0].message, breaks


def test_a_reopened_trace_goes_on_chaining_and_records_a_new_head(trace):
    w = TraceWriter.reopen(trace)
    with TraceReader(trace) as r:
        assert T.CHAIN_META not in r.meta()  # open for writing again: no head until it closes
    w.round = ROUNDS + 1
    w.record("croupier", "round_end", {"round": ROUNDS + 1})
    w.commit(state={"meter_cents": 0}, round_end=True)
    w.close()
    status = chain_status(trace)
    assert status.ok and status.closed and status.last_round == ROUNDS + 1
