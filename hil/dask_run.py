"""``croupier run`` suites as Dask tasks (``--cluster local|tcp://HOST:PORT``, ``--workers N``):
DESIGN.md "Scale", docs/cluster.md.

Each scenario is one task: the same per-scenario job the process pool of ``hil.runner.run_suite``
runs (``hil.runner._run_one``: ``run_scenario``, its start and finish logged), so its trace,
checks and result are the in-process run's, whichever worker runs it. Results come back in input
order.

- **Pinned benches.** A bench that is not fully simulated (``BenchConfig.real_time``: a Modbus or
  serial device, a stub, an instrument) is wired to one machine. Its scenarios ask for one unit of
  the worker resource that names it: ``bench:<name>`` (the bench's ``name``) or
  ``bench:<sha256 prefix>`` (at least 8 hex digits of the bench file's sha256, as report.json's
  provenance gives it). A worker declares it (``dask worker ... --resources "bench:<name>=1"``): at
  most one of that bench's scenarios at a time runs there, and nowhere else. A simulated bench
  needs none. Before anything is submitted, the scheduler's workers' resources are read: a bench
  no worker holds is a ``ClusterError`` (exit 2), never a run that waits forever; so is a worker
  that cannot see the run's out folder. A run whose every holder leaves the cluster records each
  scenario left as NOT MET, saying so (within ``WATCH_S``), and ends.
- **Shared out folder.** Workers write the traces themselves, into the out folder at the same
  absolute path (on a real cluster a shared file system): a trace is committed round by round on
  the machine that runs the scenario, so a killed run keeps what it committed and ``--resume``
  goes on from it. The check is a marker file the client writes there and every eligible worker
  must see.
- **Progress and logs.** Each task publishes its committed rounds, its outcome and its
  ``croupier`` log records on a Dask event topic of its own run (``Worker.log_event``); the client
  subscribes to it (``Client.subscribe_topic``) and hands them to ``hil.progress`` and its own log
  handlers, as the process pool's queue does. Outcomes are also reported from the results.
- **Refusals and crashes.** A ``BenchRefused`` inside a task stops the suite as in-process: the
  tasks not yet started are cancelled, the ones running finish, and every scenario that ran is
  kept (``exc.results``). A task that dies outside the scenario's own crash handling (its worker
  lost) is that scenario's crash: NOT MET with the error, its trace's checks kept.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
import traceback
import uuid
from collections.abc import Iterator
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

from hil.applicability import BenchRefused
from hil.bench import LoadedBench
from hil.cluster import ClusterError, dask_client, grant_resources
from hil.progress import SuiteProgress
from hil.runner import _run_one, check_config, effective_seed, judge
from hil.scenario import LoadedScenario

_log = logging.getLogger("croupier.run")

#: a bench name usable as a resource name on ``dask worker --resources`` (no spaces, commas, '=')
_TOKEN = re.compile(r"[A-Za-z0-9_.\-]+")
#: the shortest sha256 prefix that names a bench
MIN_SHA_PREFIX = 8
#: seconds the client waits, after the last result, for the tasks' last progress and log events
EVENTS_GRACE_S = 2.0
#: how often (s) a waiting run checks that a worker still holds its bench
WATCH_S = 2.0


def bench_sha256(bench: LoadedBench) -> str:
    import hashlib

    return hashlib.sha256(bench.text.encode()).hexdigest()


def bench_resource(bench: LoadedBench) -> str | None:
    """The resource a worker declares to hold ``bench`` (None: a simulated bench needs none):
    ``bench:<name>``, or ``bench:<first 12 hex digits of its sha256>`` when the name is not a
    plain token."""
    if not bench.config.real_time:
        return None
    name = bench.config.name
    return f"bench:{name}" if _TOKEN.fullmatch(name) else f"bench:{bench_sha256(bench)[:12]}"


def _names_bench(key: str, bench: LoadedBench) -> bool:
    if not key.startswith("bench:"):
        return False
    suffix = key.removeprefix("bench:")
    if suffix == bench.config.name:
        return True
    return len(suffix) >= MIN_SHA_PREFIX and bench_sha256(bench).startswith(suffix.lower())


#: how long ``placement`` waits for a worker when the scheduler lists none
NO_WORKER_WAIT_S = 10.0


def worker_resources(client: Any) -> dict[str, dict[str, float]]:
    """worker address -> the resources it declares, as the scheduler has them now."""
    return {addr: dict(w.get("resources") or {}) for addr, w in client.scheduler_info(n_workers=-1)["workers"].items()}


def placement(client: Any, bench: LoadedBench) -> tuple[str | None, list[str]]:
    """(the resource key the bench's tasks ask for, the workers that may run them). A simulated
    bench: (None, every worker). ``ClusterError`` when the cluster has no worker, or none that holds
    a real bench (the message says which resource names to declare)."""
    workers = worker_resources(client)
    if not workers:  # none registered just now (a worker restarting, a loaded machine): wait a moment
        try:
            client.wait_for_workers(1, timeout=NO_WORKER_WAIT_S)
        except (TimeoutError, OSError):
            pass
        workers = worker_resources(client)
    if not workers:
        raise ClusterError(f"the Dask cluster at {client.scheduler.address} has no worker "
                           f"(none within {NO_WORKER_WAIT_S:g} s)")
    if not bench.config.real_time:
        return None, sorted(workers)
    keys: dict[str, list[str]] = {}
    for addr, res in workers.items():
        for key, amount in res.items():
            if amount >= 1 and _names_bench(key, bench):
                keys.setdefault(key, []).append(addr)
    if not keys:
        declared = sorted({k for res in workers.values() for k in res}) or ["none"]
        raise ClusterError(
            f"no worker of the Dask cluster at {client.scheduler.address} holds bench {bench.config.name!r} "
            f"(not fully simulated: it runs only on the machine wired to its devices); start one there with "
            f"`dask worker {client.scheduler.address} --resources \"{bench_resource(bench)}=1\"` (or "
            f"bench:<a sha256 prefix of {bench_sha256(bench)[:12]}...>); the workers declare: {', '.join(declared)}")
    # the name first, then the longest prefix: one key, so the tasks' pinning is one rule
    key = min(keys, key=lambda k: (k.removeprefix("bench:") != bench.config.name, -len(k)))
    return key, sorted(keys[key])


def _sees(paths: list[str]) -> list[str]:
    """On a worker: the paths it cannot see."""
    return [p for p in paths if not os.path.exists(p)]


def check_shared_out(client: Any, out_dir: Path, workers: list[str]) -> None:
    """Every worker in ``workers`` sees ``out_dir`` (a marker file the client writes there):
    ``ClusterError`` naming the ones that do not."""
    marker = out_dir / f".croupier-cluster-{uuid.uuid4().hex}"
    marker.write_text("a croupier run checks that its Dask workers share this folder\n")
    try:
        missing = client.run(_sees, [str(marker)], workers=workers)
    finally:
        marker.unlink(missing_ok=True)
    blind = sorted(addr for addr, lost in missing.items() if lost)
    if blind:
        raise ClusterError(f"the run's out folder {out_dir} is not shared with Dask worker(s) {', '.join(blind)}: "
                           "the workers write the traces there, at the same path (docs/cluster.md)")


# ---------------------------------------------------------------------------------- worker side

def _plain(value: Any) -> Any:
    """``value`` as msgpack takes it (an event's message): lists, str-keyed dicts, scalars."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return repr(value)


class _TaskLogs(logging.Handler):
    """In a worker process: the ``croupier`` records of each running task to its run's topic (by
    the thread that logs; a device's I/O thread's records go to the task when it runs alone)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.senders: dict[int, Any] = {}

    def emit(self, record: logging.LogRecord) -> None:
        send = self.senders.get(threading.get_ident())
        if send is None and len(self.senders) == 1:
            send = next(iter(self.senders.values()))
        if send is None:
            return
        fields = dict(record.__dict__)
        fields.update(msg=record.getMessage(), args=None, exc_info=None,
                      exc_text=_FORMAT.formatException(record.exc_info) if record.exc_info else record.exc_text)
        send(["log", _plain(fields)])


_FORMAT = logging.Formatter()
_TASK_LOGS: _TaskLogs | None = None
_TASK_LOGS_LOCK = threading.Lock()


def _task_logs(level: int) -> _TaskLogs:
    global _TASK_LOGS
    with _TASK_LOGS_LOCK:
        root = logging.getLogger("croupier")
        if _TASK_LOGS is None:
            _TASK_LOGS = _TaskLogs()
            root.addHandler(_TASK_LOGS)
            root.propagate = False  # the client's handlers print them, never the worker's stderr
        if root.level == logging.NOTSET or level < root.level:
            root.setLevel(level)
        return _TASK_LOGS


def _task(i: int, args: tuple, topic: str, level: int) -> tuple[dict[str, Any], str]:
    """Scenario ``i`` on a Dask worker: ``hil.runner._run_one``, its progress and log records to
    ``topic``; returns (its result, the worker's address)."""
    from distributed import get_worker

    worker = get_worker()

    def send(msg: Any) -> None:
        try:
            worker.log_event(topic, _plain(msg))
        except Exception:  # noqa: BLE001 — progress never stops a scenario
            pass

    logs = _task_logs(level)
    me = threading.get_ident()
    logs.senders[me] = send
    send(["started", i])
    try:
        return _run_one(i, args, send), worker.address
    finally:
        logs.senders.pop(me, None)
        send(["done", i])


# ---------------------------------------------------------------------------------- client side

class _Events:
    """The client's side of a run's topic: progress to ``progress``, log records to the client's
    ``croupier`` handlers; ``drain`` waits for every task's last event."""

    def __init__(self, progress: SuiteProgress | None, n: int) -> None:
        self.progress, self.n = progress, n
        self.started: set[int] = set()  # the tasks a worker began (a cancel would not stop them)
        self.done: set[int] = set()
        self._all = threading.Event()

    def __call__(self, event: tuple[float, Any]) -> None:
        try:
            msg = event[1]
            kind = msg[0]
            if kind == "log":
                record = logging.makeLogRecord(msg[1])
                logger = logging.getLogger(record.name)
                if logger.isEnabledFor(record.levelno):
                    logger.handle(record)
            elif kind == "rounds" and self.progress is not None:
                self.progress.rounds_done(msg[1], msg[2], msg[3])
            elif kind == "finished" and self.progress is not None:
                self.progress.scenario_finished(msg[1], {"outcome": msg[2]})
            elif kind == "started":
                self.started.add(msg[1])
            elif kind == "done":
                self.done.add(msg[1])
                if len(self.done) >= self.n:
                    self._all.set()
        except Exception:  # noqa: BLE001 — progress and logs never stop a run
            _log.debug("progress event dropped", exc_info=True)

    def drain(self, expected: set[int], timeout_s: float = EVENTS_GRACE_S) -> None:
        deadline = time.monotonic() + timeout_s
        while not expected <= self.done and time.monotonic() < deadline:
            self._all.wait(0.05)


def _lost(loaded: LoadedScenario, out_dir: Path, seed_override: int | None, error: str) -> dict[str, Any]:
    """The result of a scenario whose task died outside its own crash handling (its worker lost):
    NOT MET with the error, the checks of whatever trace it committed."""
    from hil.checks import run_checks

    sc = loaded.scenario
    trace_rel = Path("traces") / f"{sc.name}.sqlite"
    trace_path = out_dir / trace_rel
    checks = [c.to_json() for c in run_checks(trace_path, check_config(sc))] if trace_path.exists() else []
    return {
        "name": sc.name, "game": sc.game, "file": loaded.path, "sha256": loaded.sha256,
        "description": sc.description, "seed": effective_seed(sc.seed, sc.name, seed_override),
        "rounds_requested": sc.rounds, "trace": str(trace_rel) if trace_path.exists() else None,
        "expected_failures": sorted(sc.expect.fail), "expected_passes": sorted(sc.expect.pass_),
        "cut_from_rounds": loaded.cut_from_rounds, "forced_result": sc.croupier.force_result,
        "stats": {}, "sim_time_s": 0.0, "wall_s": 0.0, "error": error, "checks": checks,
        **judge(checks, sc.expect.fail, error, expected_pass=sc.expect.pass_, cut_from_rounds=loaded.cut_from_rounds),
    }


def run_suite_dask(
    client: Any, scenarios: list[LoadedScenario], bench: LoadedBench, rules: Any, out_dir: Path,
    seed_override: int | None = None, roulette_x: Any = None, resume: bool = False,
    progress: SuiteProgress | None = None,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every scenario as a task on ``client``'s cluster; (results in input order, scenario name ->
    the address of the worker that ran it). ``ClusterError`` before anything runs when no worker
    can hold the bench or see the out folder; ``BenchRefused`` as ``hil.runner.run_suite`` (its
    ``results`` and ``placement`` the scenarios that ran)."""
    from distributed import wait

    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    key, eligible = placement(client, bench)
    check_shared_out(client, out_dir, eligible)
    resources = {key: 1} if key is not None else None
    args = [(s, bench, rules, out_dir, seed_override, roulette_x, resume) for s in scenarios]
    topic = f"croupier-run-{uuid.uuid4().hex}"
    events = _Events(progress, len(args))
    client.subscribe_topic(topic, events)
    level = logging.getLogger("croupier").getEffectiveLevel()
    futures = {}
    for i, a in enumerate(args):
        name = scenarios[i].scenario.name
        futures[i] = client.submit(_task, i, a, topic, level, key=f"{topic}-{i}-{name}", pure=False, retries=0,
                                   resources=resources, priority=scenarios[i].scenario.rounds)  # longest first
    index = {f.key: i for i, f in futures.items()}
    results: dict[int, dict[str, Any]] = {}
    where: dict[str, str] = {}
    refused: BenchRefused | None = None
    ran: set[int] = set()
    pending = set(futures.values())
    try:
        while pending:
            try:
                with client.as_current():  # our client, never a process-wide default
                    done, pending = wait(pending, timeout=WATCH_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                if key is not None and not any(res.get(key, 0) >= 1 for res in worker_resources(client).values()):
                    # never a wait for a worker that may not come: each scenario not started is NOT MET,
                    # saying why; one running goes on (it ends, or its worker is lost: its crash)
                    idle = sorted((f for f in pending if index[f.key] not in events.started),
                                  key=lambda f: index[f.key])
                    if idle:
                        client.cancel(idle)
                        _log.warning("bench left the cluster", extra={"resource": key, "not_run": len(idle)})
                    for f in idle:
                        i = index[f.key]
                        results[i] = _lost(scenarios[i], out_dir, seed_override,
                                           f"not run: every Dask worker holding {key} left the cluster at "
                                           f"{client.scheduler.address} before this scenario started")
                        if progress is not None:
                            progress.scenario_finished(i, results[i])
                    pending -= set(idle)
                continue
            for f in sorted(done, key=lambda f: index[f.key]):
                i = index[f.key]
                try:
                    results[i], where[scenarios[i].scenario.name] = f.result()
                    ran.add(i)
                except BenchRefused as exc:
                    ran.add(i)
                    if refused is None:
                        refused = exc
                        idle = [p for p in pending if index[p.key] not in events.started]
                        client.cancel(idle)  # not started: never run; the running ones finish and are kept
                        pending -= set(idle)
                except Exception as exc:  # noqa: BLE001 — its worker lost, or the task could not run: its crash
                    if isinstance(exc, CancelledError):
                        continue
                    error = "".join(traceback.format_exception(exc)) or repr(exc)
                    results[i] = _lost(scenarios[i], out_dir, seed_override,
                                       f"the Dask task of this scenario failed: {error}")
                if progress is not None and i in results:
                    progress.scenario_finished(i, results[i])
        events.drain(ran)  # the tasks that ended on a worker sent their last event
    finally:
        with contextlib.suppress(Exception):
            client.unsubscribe_topic(topic)
    if refused is not None:
        _log.info("bench refused the run", extra={"scenario": getattr(refused, "scenario", None),
                                                  "kind": refused.kind, "role": refused.role,
                                                  "reason": refused.message})
        refused.results = [results[i] for i in range(len(args)) if i in results]
        refused.placement = where
        raise refused
    return [results[i] for i in range(len(args))], where


@contextlib.contextmanager
def suite_client(bench: LoadedBench, workers: int, cluster: str | None) -> Iterator[Any]:
    """The Dask client of a ``croupier run`` (``hil.cluster.dask_client``): with a local cluster
    and a bench that is not fully simulated, one worker is given the bench's resource (its
    scenarios run there, one at a time)."""
    import dask

    # a scenario whose worker died is not run again elsewhere (its trace is append-only): a local
    # scheduler reports it at once (KilledWorker), the scenario's crash; a real one: docs/cluster.md
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            dask_client(workers, cluster or "local") as client:
        if (cluster is None or cluster == "local") and (key := bench_resource(bench)) is not None:
            grant_resources(client, {key: 1}, n=1)
        yield client


def cluster_provenance(client: Any, where: dict[str, str]) -> dict[str, Any]:
    """report.json ``provenance.cluster``: the scheduler, and which worker ran each scenario."""
    return {"scheduler": client.scheduler.address, "workers": dict(sorted(where.items()))}
