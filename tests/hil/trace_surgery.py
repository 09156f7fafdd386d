"""Changing a closed trace's records the way damage or an attacker would, for the tests of the
damaged-trace handling and of the hash chain (docs/trace.md). Test code only: the rig never
rewrites a trace.

``rewrite(path, fn)`` re-encodes the records ``fn`` changes: ``fn(n, rows, state)`` gets a commit's
number, its rows ``[round, sim_time, wall_ns, device, kind, payload]`` (a payload is a dict, or a
string kept as the recorded text: how a payload that is no JSON object is written) and its state
(bytes or None), and returns ``(rows, state)`` or None to leave it. The chain links are left as
they were (the tamper the chain must catch) unless ``relink``: then every link and the head are
recomputed (damage the chain cannot see, so what the checks make of it shows).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson

from hil import trace as T


def _records(db: sqlite3.Connection) -> list[list]:
    return [list(r) for r in db.execute("SELECT n, round, first_seq, events, state, zdict, data, link "
                                        "FROM commits ORDER BY n")]


def raws(path: Path) -> dict[int, bytes]:
    """Every commit's raw record."""
    with T.TraceReader(path) as r:
        return {c.n: c.raw for c in r._commits()}


def write(path: Path, records: dict[int, bytes], *, relink: bool = False, delete: tuple[int, ...] = ()) -> None:
    """Store ``records`` (commit number -> raw record) compressed as the trace compresses them
    (dictionaries re-derived), delete the commits ``delete``; with ``relink`` recompute the chain."""
    db = sqlite3.connect(path)
    try:
        rows = {r[0]: r for r in _records(db)}
        for n in delete:
            db.execute("DELETE FROM commits WHERE n = ?", (n,))
            rows.pop(n)
        prev = T.GENESIS
        for n, (_, _, _, _, _, zd, data, link) in sorted(rows.items()):
            raw = records[n]
            base = T._Dictionary.of(zd, records[zd]) if zd is not None else None
            zdict = base.zdict if base is not None else None
            rnd, first_seq, decoded, state = T._decode(raw, base)
            new_link = hashlib.sha256(prev + raw).digest() if relink else link
            db.execute("UPDATE commits SET round = ?, first_seq = ?, events = ?, state = ?, data = ?, link = ? "
                       "WHERE n = ?", (rnd, first_seq, len(decoded), state is not None, T._compress(raw, zdict),
                                       new_link, n))
            prev = new_link
        if relink:
            meta = {k: orjson.loads(v) for k, v in db.execute("SELECT key, value FROM meta")}
            head = meta.get(T.CHAIN_META)
            if head is not None:
                head.update(head=prev.hex(), commits=len(rows))
                db.execute("UPDATE meta SET value = ? WHERE key = ?", (orjson.dumps(head).decode(), T.CHAIN_META))
        db.commit()
    finally:
        db.close()


def rewrite(path: Path, fn: Callable[[int, list[list], bytes | None], tuple[list[list], bytes | None] | None],
            *, relink: bool = False) -> int:
    """Apply ``fn`` to every commit (see the module's doc); returns how many it changed. Every record
    is coded again against its dictionary record as that now is: byte for byte as before where
    neither it nor its dictionary changed."""
    records = raws(path)
    zdicts = {c["n"]: c["zdict"] for c in commits(path)}
    decoded: dict[int, tuple] = {}
    changed = 0
    for n, raw in records.items():
        base = T._Dictionary.of(zdicts[n], records[zdicts[n]]) if zdicts[n] is not None else None
        rnd, first_seq, rows, state = T._decode(raw, base)
        out = fn(n, [list(r) for r in rows], state)
        if out is not None:
            changed += 1
            rows, state = out
        decoded[n] = (rnd, first_seq, [tuple(r) for r in rows], state)
    new: dict[int, bytes] = {}
    for n in sorted(records, key=lambda n: (zdicts[n] is not None, n)):  # the dictionaries first
        base = T._Dictionary.of(zdicts[n], new[zdicts[n]]) if zdicts[n] is not None else None
        new[n] = T._encode(*decoded[n], base)
    write(path, new, relink=relink)
    return changed


def set_payloads(path: Path, where: Callable[[list], bool], payload: dict | str, *, relink: bool = True) -> int:
    """Every event ``where(row)`` selects gets ``payload`` (a string: recorded as that text);
    returns how many events changed."""
    count = 0

    def fn(n, rows, state):
        nonlocal count
        hit = [r for r in rows if where(r)]
        for r in hit:
            r[5] = payload
        count += len(hit)
        return (rows, state) if hit else None

    rewrite(path, fn, relink=relink)
    return count


def commits(path: Path) -> list[dict]:
    """The commits table as rows (``n, round, first_seq, events, state, zdict, data, link``) plus each
    one's ``raw`` record."""
    db = sqlite3.connect(path)
    try:
        keys = ("n", "round", "first_seq", "events", "state", "zdict", "data", "link")
        out = [dict(zip(keys, r)) for r in _records(db)]
    finally:
        db.close()
    by_n = raws(path)
    for c in out:
        c["raw"] = by_n[c["n"]]
    return out


def replace_all(path: Path, rows: list[dict]) -> None:
    """Store ``rows`` (as ``commits`` gives them; moved, dropped or added) as the whole commits
    table, numbered 1.. in list order, each row's ``data`` and ``link`` as it holds them."""
    db = sqlite3.connect(path)
    try:
        db.execute("DELETE FROM commits")
        db.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       [(i, c["round"], c["first_seq"], c["events"], c["state"], c["zdict"], c["data"], c["link"])
                        for i, c in enumerate(rows, 1)])
        db.commit()
    finally:
        db.close()
