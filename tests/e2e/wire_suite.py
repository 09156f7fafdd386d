"""Which bundled scenarios the stubs-versus-simulation comparisons run."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from hil.bench import GAME_ROLES


#: dealer-procedure faults that still depend on what the devices report at the lock-out: kept in
#: the stub comparisons (a late press's timing is the device's)
DEVICE_TIMED_DEALER_FAULTS = frozenset({"settle_late_presses"})


def on_the_wire(path: Path) -> bool:
    """Whether a bundled scenario belongs in a stubs-versus-simulation comparison. A fault
    scenario whose only faults are the croupier's (``faults.croupier``: a wrong dealer procedure)
    runs the same croupier code on any bench — the devices are healthy and their reports are what
    the comparison proves on the wire already in the normal and device-fault scenarios — so it is
    left out (it runs in simulation in tests/hil/test_hil_suite.py), except where the fault acts on
    device-timed presses. A scenario pressed through the simulated actuator (``bench.actuator``) is
    left out too, and so is a late-bet adversary's (``adversary``)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if "adversary" in doc:
        # the late-bet adversary presses around "no more bets": a press's wire latency decides which of
        # them the device took in time — a difference between the two runs, not a finding; its own
        # Modbus run is tests/e2e/test_e2e_adversary_modbus.py
        return False
    if "actuator" in (doc.get("bench") or {}):
        # pressed through the simulated actuator: it closes a simulated device's buttons, and a stub
        # bench has no actuator (refused, exit 2); the Modbus DO module path has its own e2e tests
        return False
    faults = doc.get("faults") or {}
    if not faults or set(faults) != {"croupier"}:
        return True
    return bool(set(faults["croupier"] or {}) & DEVICE_TIMED_DEALER_FAULTS)


#: a comparison's pause between rounds: shorter than a live table's (the same on both sides, so the
#: verdicts and stats must still be equal). The betting window keeps its length: a shorter one packs
#: the players' presses towards "no more bets", where a press's wire latency on a loaded machine
#: decides whether the device took it in time — a difference between the two runs, not a finding
COMPARE_BETWEEN_ROUNDS_S = 0.5
#: rounds per scenario of the whole-suite stub comparisons: one in ``make test`` (every scenario still
#: compared, every frame kind on the wire: the real-time tier is the suite's critical path, and these
#: comparisons were 245 s of its 988 s), two in the soak tier (``make soak``)
COMPARE_ROUNDS = "2" if os.environ.get("CROUPIER_SOAK") == "1" else "1"


#: a comparison's card shoe shuffle: the shuffling machine's cycle (45 s by default, 2.25 s of wall
#: time at 20x before every Blackjack scenario's first round, nothing on the wire meanwhile) cut short
#: (the same on both sides: the shoe is simulated in both runs, and its shuffle's cards do not depend
#: on how long it takes)
COMPARE_SHUFFLE_S = 5.0


def compress(doc: dict) -> dict:
    """A scenario document with the comparison's pause between rounds and, where a card shoe deals,
    its shuffle (``COMPARE_SHUFFLE_S``), each never longer than its own."""
    cr = doc.setdefault("croupier", {}) or {}
    doc["croupier"] = cr
    cr["between_rounds_s"] = min(float(cr.get("between_rounds_s", 5.0)), COMPARE_BETWEEN_ROUNDS_S)
    if "shoe" in GAME_ROLES.get(doc.get("game"), ()):
        bench = doc.setdefault("bench", {}) or {}
        doc["bench"] = bench
        shoe = bench.setdefault("shoe", {}) or {}
        bench["shoe"] = shoe
        shoe["shuffle_s"] = min(float(shoe.get("shuffle_s", 45.0)), COMPARE_SHUFFLE_S)
    return doc


def compressed_copies(paths: list[Path], where: Path) -> list[str]:
    """``paths`` as scenario files in ``where``, each ``compress``-ed."""
    where.mkdir(parents=True, exist_ok=True)
    out = []
    for p in paths:
        doc = compress(yaml.safe_load(p.read_text(encoding="utf-8")))
        dest = where / p.name
        dest.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        out.append(str(dest))
    return out
