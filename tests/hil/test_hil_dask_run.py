"""``croupier run`` suites as Dask tasks (issue 15 "Dask past one machine", docs/cluster.md): one
LocalCluster for the module (2 workers on 127.0.0.1, no dashboard), reached the way a real one is
(``--cluster tcp://HOST:PORT``) or through its client.

* three bundled scenarios on the cluster give the in-process (jobs=1) run's results, verdicts and
  measurements, in input order; the progress hooks hear each one's rounds and outcome;
* a stub-backed bench runs only on the worker that declares its resource (``bench:<name>``), one
  scenario at a time; a device that is not there is the run's BenchRefused, as in-process;
* a bench no worker holds is exit 2 at once, nothing run; ``--jobs`` with ``--cluster`` is bad input.

Every process started is ended by its pid: the stub by ``launch``, the workers with the cluster
(checked after it closes).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from firmware_stubs.launch import launch
from hil.applicability import BenchRefused
from hil.cli import app, load_run_inputs
from hil.cluster import ClusterError, grant_resources, worker_pids
from hil.dask_run import run_suite_dask, suite_client
from hil.progress import SuiteProgress
from hil.report import WALL_CLOCK_FIELDS
from hil.runner import run_suite
from hil.trace import TraceReader

ROOT = Path(__file__).resolve().parents[2]
SMALL = [ROOT / "scenarios" / "roulette" / "roulette_normal_play.yaml",
         ROOT / "scenarios" / "crazy_time" / "normal_play.yaml",
         ROOT / "scenarios" / "uth" / "uth_normal_play.yaml"]
SCALE = 20
runner = CliRunner()


def _sockets() -> set[tuple]:
    return {(c.fd, c.laddr, c.raddr) for c in psutil.Process().net_connections("inet")}


def _live_children() -> set[int]:
    """Our live child processes, but Python's own multiprocessing resource tracker (it lives as
    long as this interpreter, started with the first spawned process)."""
    return {p.pid for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE
            and "multiprocessing.resource_tracker" not in " ".join(p.cmdline())}


def _dask_workers() -> set[int]:
    """The local cluster's worker processes (spawned by its nannies, in this process; Dask retitles
    them ``dask worker [ADDRESS]`` once started)."""
    return {p.pid for p in psutil.Process().children(recursive=True)
            if p.cmdline() and (p.cmdline()[0].startswith("dask worker") or "spawn_main" in " ".join(p.cmdline()))}


@pytest.fixture(autouse=True)
def _no_leaks():
    """This module's own (tests/conftest.py's, per test, would count the module's cluster: its
    scheduler and nannies run in this process): each test ends what it started but the cluster's
    workers (a killed one is restarted); the ``cluster`` fixture checks, once closed, that nothing
    of it is left."""
    before = _live_children()
    yield
    assert _live_children() <= before | _dask_workers(), _live_children() - before


@pytest.fixture(scope="module")
def cluster():
    threads, sockets, children = set(threading.enumerate()), _sockets(), _live_children()
    quiet = logging.getLogger("distributed")  # the in-process scheduler's INFO lines: not this test's
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    _, simulated, _, _ = load_run_inputs(SMALL[:1], None, None, None, None)
    with suite_client(simulated, 2, "local") as client:  # croupier run --cluster local --workers 2
        pids = worker_pids(client)
        assert len(pids) == 2 and set(pids) == _dask_workers()
        assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures) == 0  # never re-run
        yield client
    for pid in pids:  # closed with the cluster: no stray worker
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, pid
    assert not _live_children() - children, [psutil.Process(p).cmdline() for p in _live_children() - children]
    quiet.setLevel(level)

    def new_threads() -> list[threading.Thread]:  # Dask's process-wide offload pool stays, idle
        return [t for t in threading.enumerate()
                if t not in threads and t.is_alive() and not t.name.startswith("Dask-Offload")]

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (_sockets() - sockets or new_threads()):
        time.sleep(0.05)
    assert not _sockets() - sockets, _sockets() - sockets
    assert not new_threads(), new_threads()


def _without_wall_clock(value):
    if isinstance(value, dict):
        return {k: _without_wall_clock(v) for k, v in value.items() if k not in WALL_CLOCK_FIELDS}
    if isinstance(value, list):
        return [_without_wall_clock(v) for v in value]
    return value


class _Heard(SuiteProgress):
    """What the runner reported, by scenario index (called from the client's event thread)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.rounds: dict[int, list[int]] = {}
        self.outcomes: dict[int, str] = {}

    def _on_rounds(self, i: int) -> None:
        self.rounds.setdefault(i, []).append(self.scenarios[i].done)

    def _on_finish(self, i: int) -> None:
        self.outcomes[i] = self.scenarios[i].outcome


def test_a_suite_on_the_cluster_is_the_in_process_run(cluster, tmp_path):
    scenarios, bench, rules, rx = load_run_inputs(SMALL, None, None, None, 3)
    alone = run_suite(scenarios, bench, rules, tmp_path / "alone", jobs=1, roulette_x=rx)
    heard = _Heard.for_suite([(s.scenario.name, s.scenario.rounds) for s in scenarios])
    on_dask, where = run_suite_dask(cluster, scenarios, bench, rules, tmp_path / "dask", roulette_x=rx,
                                    progress=heard)
    assert [r["name"] for r in on_dask] == [s.scenario.name for s in scenarios]  # input order
    assert _without_wall_clock(on_dask) == _without_wall_clock(alone)
    assert [r["outcome"] for r in on_dask] == ["not decisive", "not decisive", "met"]  # 3 rounds: too few for a chi2
    assert all(r["checks"] and r["error"] is None for r in on_dask)
    for r in on_dask:  # the worker wrote each trace where the run's out folder says
        with TraceReader(tmp_path / "dask" / r["trace"]) as reader:
            assert reader.meta()["scenario"] == r["name"]
    workers = set(cluster.scheduler_info(n_workers=-1)["workers"])
    assert set(where) == {s.scenario.name for s in scenarios} and set(where.values()) <= workers
    # the progress hooks heard every scenario's rounds up to the last, and its outcome
    assert heard.outcomes == {i: r["outcome"] for i, r in enumerate(on_dask)}
    assert all(heard.rounds[i][-1] == 3 for i in range(3)), heard.rounds


def test_croupier_run_on_a_scheduler_address(cluster, tmp_path):
    address = cluster.scheduler.address
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(SMALL[2]), "--max-rounds", "2", "--cluster", address, "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["expectations_met"] == 1
    placed = report["provenance"]["cluster"]
    assert placed["scheduler"] == address
    assert placed["workers"]["uth-normal-play"] in cluster.scheduler_info(n_workers=-1)["workers"]
    assert (out / "traces" / "uth-normal-play.sqlite").exists()
    both = runner.invoke(app, ["run", str(SMALL[2]), "--jobs", "2", "--cluster", address, "--out", str(out)])
    assert both.exit_code == 2 and "one or the other" in both.output


def _bench(tmp_path: Path, name: str, url: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'schema = 1\nname = "{name}"\ntime_scale = {SCALE}\n'
                    f'[devices.wagering]\nkind = "modbus"\nurl = "{url}"\n')
    return path


def _small(tmp_path: Path, name: str) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"schema: 1\nname: {name}\ngame: crazy-time\nseed: 5\nrounds: 1\n")
    return p


def test_a_stub_backed_bench_runs_on_the_worker_that_holds_it(cluster, tmp_path):
    holder = grant_resources(cluster, {"bench:stub-rig": 1}, n=1)[0]
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE)) as stub:
        scenarios, bench, rules, rx = load_run_inputs(
            [_small(tmp_path, "first"), _small(tmp_path, "second")], _bench(tmp_path, "stub-rig", stub.url),
            None, None, None)
        results, where = run_suite_dask(cluster, scenarios, bench, rules, tmp_path / "out", roulette_x=rx)
    assert [r["outcome"] for r in results] == ["met", "met"], [r.get("error") for r in results]
    assert where == {"first": holder, "second": holder}  # pinned: never the other worker
    spans = []
    for r in results:  # one unit of the resource: one scenario at a time on the device
        with TraceReader(tmp_path / "out" / r["trace"]) as reader:
            stamps = [e.wall_ns for e in reader.events()]
        spans.append((min(stamps), max(stamps)))
    spans.sort()
    assert spans[0][1] < spans[1][0], spans


def test_a_device_that_is_not_there_is_the_runs_refusal(cluster, tmp_path):
    grant_resources(cluster, {"bench:dead-rig": 1}, n=1)
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    scenarios, bench, rules, rx = load_run_inputs([_small(tmp_path, "a")], _bench(tmp_path, "dead-rig",
                                                  f"tcp://127.0.0.1:{port}"), None, None, None)
    with pytest.raises(BenchRefused) as refused:
        run_suite_dask(cluster, scenarios, bench, rules, tmp_path / "out", roulette_x=rx)
    assert refused.value.kind in ("unreachable", "connect") and refused.value.scenario == "a"
    assert str(port) in refused.value.message
    assert refused.value.results == []


def test_scenarios_not_started_when_the_bench_leaves_are_not_met(cluster, tmp_path, monkeypatch):
    """The worker holding the bench drops it after the run checked and before its scenarios start:
    the run ends (never a wait for a holder that may not come), each scenario NOT MET saying why."""
    import hil.dask_run as dask_run

    holder = grant_resources(cluster, {"bench:leaving-rig": 1}, n=1)
    shared = dask_run.check_shared_out

    def then_leave(client, out_dir, workers):
        shared(client, out_dir, workers)
        grant_resources(client, {"bench:leaving-rig": 0}, n=1)

    monkeypatch.setattr(dask_run, "check_shared_out", then_leave)
    monkeypatch.setattr(dask_run, "WATCH_S", 0.2)
    bench_file = _bench(tmp_path, "leaving-rig", "tcp://127.0.0.1:9")
    scenarios, bench, rules, rx = load_run_inputs([_small(tmp_path, "a"), _small(tmp_path, "b")], bench_file,
                                                  None, None, None)
    assert dask_run.placement(cluster, bench)[1] == holder
    heard = _Heard.for_suite([(s.scenario.name, s.scenario.rounds) for s in scenarios])
    results, where = run_suite_dask(cluster, scenarios, bench, rules, tmp_path / "out", roulette_x=rx, progress=heard)
    assert where == {} and [r["outcome"] for r in results] == ["not met", "not met"]
    assert all("not run: every Dask worker holding bench:leaving-rig left the cluster" in r["error"] for r in results)
    assert heard.outcomes == {0: "not met", 1: "not met"}


def test_a_bench_no_worker_holds_is_exit_2_at_once(cluster, tmp_path):
    bench = _bench(tmp_path, "rig-nobody-holds", "tcp://127.0.0.1:9")
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(_small(tmp_path, "a")), "--bench", str(bench),
                              "--cluster", cluster.scheduler.address, "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "no worker of the Dask cluster" in text and "holds bench 'rig-nobody-holds'" in text
    assert '--resources "bench:rig-nobody-holds=1"' in text and "Traceback" not in text
    assert not (out / "traces").exists() and not (out / "report.json").exists()
    scenarios, loaded, rules, rx = load_run_inputs([_small(tmp_path, "b")], bench, None, None, None)
    with pytest.raises(ClusterError, match="holds bench"):
        run_suite_dask(cluster, scenarios, loaded, rules, tmp_path / "direct", roulette_x=rx)


class _DiesOnUse:
    """Rules whose first use ends the worker process that runs the scenario: a worker lost."""

    def __getattr__(self, name: str):
        if name == "submission":
            os._exit(1)
        raise AttributeError(name)


def test_a_scenario_whose_worker_dies_is_its_crash_and_the_others_are_kept(cluster, tmp_path):
    scenarios, bench, _, rx = load_run_inputs([SMALL[1], SMALL[2]], None, None, None, 2)
    results, where = run_suite_dask(cluster, scenarios, bench, _DiesOnUse(), tmp_path / "out", roulette_x=rx)
    lost, kept = results  # the Crazy Time scenario reads its rules; the UTH one has none
    assert lost["name"] == "normal-play" and lost["outcome"] == "not met" and lost["expectation_met"] is False
    assert "the Dask task of this scenario failed" in lost["error"] and "KilledWorker" in lost["error"]
    assert kept["outcome"] == "met" and list(where) == ["uth-normal-play"]  # never re-run on another worker


def test_a_local_cluster_gives_one_worker_the_bench(cluster, tmp_path, monkeypatch):
    """``--cluster local`` with a bench not fully simulated: one worker holds its resource, named by
    the bench's name, or by its sha256 prefix when the name is no plain token."""
    import contextlib

    import hil.dask_run as dask_run

    monkeypatch.setattr(dask_run, "dask_client", lambda workers, where: contextlib.nullcontext(cluster))
    path = _bench(tmp_path, "local-rig", "tcp://127.0.0.1:9")
    path.write_text(path.read_text().replace('name = "local-rig"', 'name = "local rig, bench 2"'))
    _, bench, _, _ = load_run_inputs([_small(tmp_path, "a")], path, None, None, None)
    key = dask_run.bench_resource(bench)
    assert key == f"bench:{dask_run.bench_sha256(bench)[:12]}"
    with dask_run.suite_client(bench, 2, "local") as client:
        holders = [a for a, res in dask_run.worker_resources(client).items() if res.get(key) == 1]
        assert len(holders) == 1
        assert dask_run.placement(client, bench) == (key, holders)


def test_a_worker_that_cannot_see_the_out_folder_stops_the_run(tmp_path):
    """The marker the client writes must be seen by every worker that may run the scenarios; the
    ones that do not are named (a stand-in client: a worker's own file system cannot be hidden
    from it on one machine)."""
    from hil.dask_run import check_shared_out

    class _Blind:
        def run(self, fn, paths, workers):
            assert all(Path(p).exists() for p in paths)  # written before the workers look
            return {w: (list(paths) if w.endswith(":2") else []) for w in workers}

    with pytest.raises(ClusterError, match=r"not shared with Dask worker\(s\) tcp://b:2: the workers write"):
        check_shared_out(_Blind(), tmp_path, ["tcp://a:1", "tcp://b:2"])
    assert list(tmp_path.iterdir()) == []  # the marker removed
    check_shared_out(type("Sighted", (), {"run": lambda self, fn, paths, workers: dict.fromkeys(workers, [])})(),
                     tmp_path, ["tcp://a:1"])
