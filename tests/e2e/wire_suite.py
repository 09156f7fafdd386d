"""Which bundled scenarios the stubs-versus-simulation comparisons run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
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


@contextmanager
def all_at_once(contexts: list):
    """Enter every context manager of ``contexts`` at the same time (each in a thread: a peer's or
    a stub's start is mostly waiting for it to say it is up); yields their values in order; exits
    all of them (in reverse) when done, and those that entered if another one failed."""
    with ExitStack() as stack, ThreadPoolExecutor(max_workers=max(1, len(contexts))) as pool:
        futures = [pool.submit(cm.__enter__) for cm in contexts]
        values, first_error = [], None
        for cm, f in zip(contexts, futures):
            try:
                values.append(f.result())
            except BaseException as exc:  # noqa: BLE001 - re-raised below, after the others are ended
                first_error = first_error or exc
                continue
            stack.push(cm.__exit__)
        if first_error is not None:
            raise first_error
        yield values


def croupier_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def stub_launches(roles: dict[str, str], wire: str, time_scale: float, extra: dict[str, list[str]] | None = None):
    """One (not yet entered) ``firmware_stubs.launch`` per role (role -> device), each with a
    control endpoint, as ``tests/e2e/conftest.py``'s ``stub_control`` starts them: (role, launch)."""
    from firmware_stubs.launch import launch

    where = ["--modbus", "tcp://127.0.0.1:0"] if wire == "modbus" else ["--pty"]
    return [(role, launch(device, *where, "--time-scale", str(time_scale), "--control", "tcp://127.0.0.1:0",
                          *(extra or {}).get(role, []))) for role, device in roles.items()]


def _croupier_on_stubs(launches, argv_for, timeout_s: float) -> subprocess.CompletedProcess:
    """One shard: its stubs started (one after the other), ``croupier ARGV`` run in its own process
    with ``argv_for(role -> (url, control url))``, the stubs ended by their pids."""
    cmd = [sys.executable, "-c", "from hil.cli import main; main()"]
    with ExitStack() as stack:
        urls, procs = {}, []
        for role, cm in launches:
            stub = stack.enter_context(cm)
            urls[role] = (stub.url, stub.control)
            procs.append(stub.proc)
        argv = argv_for(urls)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:  # never a full pipe
            proc = subprocess.Popen([*cmd, *argv], cwd=ROOT, env=croupier_env(), stdout=out, stderr=err)
            try:
                proc.wait(timeout=timeout_s)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            for stub in procs:  # all at once; each launch then waits for its own
                stub.terminate()
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess([*cmd, *argv], proc.returncode, out.read().decode(errors="replace"),
                                               err.read().decode(errors="replace"))


@contextmanager
def shards_on_stubs(work: list[tuple[list, object]], timeout_s: float = SHARD_TIMEOUT_S):
    """Each shard of ``work`` — (its ``stub_launches``, ``argv_for``: role -> (url, control) to the
    ``croupier`` arguments, e.g. ``run FILES --bench B --out O``) — in a thread of its own: its
    stubs started, its ``croupier`` run, its stubs ended, all shards at once. Yields while they
    run (the caller may run the simulated side meanwhile); on leaving, waits for every shard and
    sets ``.results`` (each shard's completed process, in order) on the yielded object."""
    class Shards:
        results: list[subprocess.CompletedProcess]

    handle = Shards()
    with ThreadPoolExecutor(max_workers=max(1, len(work))) as pool:
        futures = [pool.submit(_croupier_on_stubs, launches, argv_for, timeout_s) for launches, argv_for in work]
        try:
            yield handle
        finally:
            wait(futures)
    handle.results = [f.result() for f in futures]


def merged_reports(outs: list[Path]) -> dict:
    """The report.json of each shard's output folder, their scenarios in one list (in order)."""
    reports = [json.loads((o / "report.json").read_text(encoding="utf-8")) for o in outs]
    return {"scenarios": [s for r in reports for s in r["scenarios"]]}


def output(proc: subprocess.CompletedProcess) -> str:
    """What a failing shard said (its exit code and the tails of its output)."""
    return f"exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
