"""Which bundled scenarios the stubs-versus-simulation comparisons run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from pathlib import Path

import yaml


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


def compress(doc: dict) -> dict:
    """A scenario document with the comparison's pause between rounds (never longer than its own)."""
    cr = doc.setdefault("croupier", {}) or {}
    doc["croupier"] = cr
    cr["between_rounds_s"] = min(float(cr.get("between_rounds_s", 5.0)), COMPARE_BETWEEN_ROUNDS_S)
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


# --- running a comparison's scenarios concurrently -------------------------------------------------
# A stub comparison waits on the wall clock (its stubs run the devices' time at ``time_scale`` ×
# real time) and uses a fraction of a core meanwhile, so its scenarios are split into shards, each
# run by its own ``croupier run`` process against its own stubs (their own ports), all at once. A
# scenario's verdicts do not depend on which shard ran it: the stubs are configured and seeded per
# scenario through their control endpoints.

ROOT = Path(__file__).resolve().parents[2]
#: a shard's ``croupier run`` may take this long before it is killed (generous: a shared machine)
SHARD_TIMEOUT_S = 600.0


def shards(items: list, k: int, cost=lambda item: 1.0) -> list[list]:
    """``items`` in ``k`` shards of about equal total ``cost`` (longest first onto the least
    loaded shard); each shard keeps the items' order; no empty shard."""
    k = max(1, min(k, len(items)))
    load, out = [0.0] * k, [[] for _ in range(k)]
    for i in sorted(range(len(items)), key=lambda i: -cost(items[i])):
        j = load.index(min(load))
        load[j] += cost(items[i])
        out[j].append(i)
    return [[items[i] for i in sorted(idx)] for idx in out]


def croupier_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def stub_launches(roles: dict[str, str], wire: str, time_scale: float, extra: dict[str, list[str]] | None = None):
    """One (not yet entered) ``firmware_stubs.launch`` per role (role -> device), each with a
    control endpoint, as ``tests/e2e/conftest.py``'s ``stub_control`` starts them: (role, launch)."""
    from firmware_stubs.launch import launch

    where = ["--modbus", "tcp://127.0.0.1:0"] if wire == "modbus" else ["--pty"]
    return [(role, launch(device, *where, "--time-scale", str(time_scale), "--control", "tcp://127.0.0.1:0",
                          *(extra or {}).get(role, []))) for role, device in roles.items()]


#: how many stubs start at a time: a stub's start is ≈ 0.7 s of CPU (its imports), so more at once
#: on two cores only makes each later (and a loaded machine can then miss a stub's READY timeout)
STARTS_AT_ONCE = 3


class Shards:
    """What ``shards_on_stubs`` yields: ``results`` (each shard's completed ``croupier`` process,
    in order) is set once the block is left."""

    results: list[subprocess.CompletedProcess]


@contextmanager
def shards_on_stubs(work: list[tuple[list, object]], timeout_s: float = SHARD_TIMEOUT_S):
    """Each shard of ``work`` — (its ``stub_launches``, ``argv_for``: role -> (url, control) to the
    ``croupier`` arguments, e.g. ``run FILES --bench B --out O``) — on stubs of its own, in two
    phases so that no shard's scenarios share the CPU with a start: (1) while the block runs
    (the caller's simulated side), every shard's stubs start, ``STARTS_AT_ONCE`` at a time;
    (2) on leaving the block, every shard's ``croupier`` starts at once in its own process, and
    when all have ended (a process past ``timeout_s`` is killed by its pid) the stubs are ended
    by their pids and ``.results`` set on the yielded ``Shards``."""
    handle = Shards()
    cmd = [sys.executable, "-c", "from hil.cli import main; main()"]
    flat = [(i, role, cm) for i, (launches, _) in enumerate(work) for role, cm in launches]
    with ExitStack() as stack:
        with ThreadPoolExecutor(max_workers=max(1, min(len(flat), STARTS_AT_ONCE))) as pool:
            futures = [pool.submit(cm.__enter__) for _, _, cm in flat]
            try:
                yield handle
            finally:
                wait(futures)
                first_error = None
                for (_, _, cm), f in zip(flat, futures):
                    if f.exception() is None:
                        stack.push(cm.__exit__)
                    else:
                        first_error = first_error or f.exception()
            if first_error is not None:
                raise first_error
        stubs = [f.result() for f in futures]
        urls: list[dict[str, tuple[str, str]]] = [{} for _ in work]
        for (i, role, _), stub in zip(flat, stubs):
            urls[i][role] = (stub.url, stub.control)
        argvs = [argv_for(u) for (_, argv_for), u in zip(work, urls)]
        logs, procs = [], []
        try:
            for argv in argvs:
                out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()  # never a full pipe
                logs.append((out, err))
                procs.append(subprocess.Popen([*cmd, *argv], cwd=ROOT, env=croupier_env(), stdout=out, stderr=err))
            deadline = time.monotonic() + timeout_s
            for p in procs:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            results = []
            for argv, p, (out, err) in zip(argvs, procs, logs):
                out.seek(0)
                err.seek(0)
                results.append(subprocess.CompletedProcess([*cmd, *argv], p.returncode,
                                                           out.read().decode(errors="replace"),
                                                           err.read().decode(errors="replace")))
            handle.results = results
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            for out, err in logs:
                out.close()
                err.close()
            for stub in stubs:  # all at once; each launch then waits for its own on the way out
                stub.proc.terminate()


def merged_reports(outs: list[Path]) -> dict:
    """The report.json of each shard's output folder, their scenarios in one list (in order)."""
    reports = [json.loads((o / "report.json").read_text(encoding="utf-8")) for o in outs]
    return {"scenarios": [s for r in reports for s in r["scenarios"]]}


def output(proc: subprocess.CompletedProcess) -> str:
    """What a failing shard said (its exit code and the tails of its output)."""
    return f"exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
