"""``croupier mc GAME`` (issue 15): the same JSON figures for 1 and 2 workers (one LocalCluster,
its worker processes gone by pid afterwards), bad options exit 2, an unreachable scheduler exits 2."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys

import orjson
import pytest
from typer.testing import CliRunner

from hil.cli import app

ARGS = ["mc", "roulette-up", "--rounds", "300000", "--seed", "9", "--chunk", "65536", "--json"]


def _run(args):
    res = CliRunner().invoke(app, args, env={"COLUMNS": "150"})
    return res


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # a zombie is gone for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    return True


#: The two-worker run, in its own process (Dask keeps a thread pool for the life of the process,
#: which this suite's leak check rightly refuses): the CLI with ``dask_client`` wrapped to record
#: the worker processes' pids, printed on the last stderr line once the cluster is closed.
TWO_WORKERS = """
import contextlib, sys
import hil.cluster
real, pids = hil.cluster.dask_client, []
@contextlib.contextmanager
def recording(workers, cluster, **kw):
    with real(workers, cluster, **kw) as client:
        pids.extend(hil.cluster.worker_pids(client))
        yield client
hil.cluster.dask_client = recording
from hil.cli import app
try:
    app(sys.argv[1:])
finally:
    sys.stderr.write("pids " + " ".join(map(str, pids)) + "\\n")
"""


def test_json_figures_are_identical_for_one_and_two_workers_and_no_worker_outlives_the_run(tmp_path):
    one = _run(ARGS)
    assert one.exit_code == 0, one.output
    proc = subprocess.run([sys.executable, "-c", TWO_WORKERS, *ARGS, "--workers", "2"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pids = [int(p) for p in proc.stderr.strip().splitlines()[-1].removeprefix("pids ").split()]
    assert len(set(pids)) == 2 and os.getpid() not in pids  # two worker processes really played
    assert proc.stdout == one.stdout  # byte for byte
    doc = orjson.loads(one.stdout)
    assert doc["chunks"] == 5 and len(doc["wagers"]) == 12 and "timing" not in doc
    assert all(w["exact_in_ci"] is not None for w in doc["wagers"])
    assert "2 workers" in proc.stderr and "1 worker" in one.stderr
    assert not [p for p in pids if _alive(p)], "a Dask worker process outlived the run"


@pytest.mark.parametrize("args, said", [
    (["mc", "no-such-game"], "unknown game"),
    (["mc", "roulete-up"], "did you mean 'roulette-up'"),
    (["mc", "roulette-up", "--paytable", "Z"], "no Roulette Up paytable"),
    (["mc", "roulette-up", "--wheel", "triple"], "--wheel"),
    (["mc", "roulette-up", "--decks", "6"], "--paytable and --wheel only"),
    (["mc", "roulette-x", "--paytable", "B", "--wheel", "single"], "double-zero wheel only"),
    (["mc", "roulette-up", "--confidence", "1.5"], "confidence"),
    (["mc", "roulette-up", "--chunk", str(2 ** 21)], "2**20"),
    (["mc", "roulette-up", "--cluster", "somewhere"], "tcp://HOST:PORT"),
    (["mc", "roulette-x", "--rules", "no/such/file.toml"], "no/such/file.toml"),
])
def test_bad_options_exit_2_with_one_clear_line(args, said):
    res = _run(args)
    assert res.exit_code == 2, res.output
    assert said in res.stderr and "Traceback" not in res.output
    assert res.stderr.startswith("error: ") and "nothing was run" in res.stderr


def test_an_unreachable_scheduler_exits_2():
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = _run(["mc", "roulette-up", "--rounds", "1000", "--cluster", f"tcp://127.0.0.1:{port}"])
    assert res.exit_code == 2, res.output
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in res.stderr
    assert res.stdout == ""


def test_the_table_shows_each_wager_against_exact():
    res = _run(["mc", "roulette-x", "--rounds", "20000", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert "straight (Paytable A, single-zero)" in res.stdout and "straight (Paytable A, double-zero)" in res.stdout
    assert "spins/s" in res.stdout


def test_the_cluster_factory_runs_in_process_for_one_worker_and_refuses_bad_addresses():
    from hil.cluster import ClusterError, dask_client

    with dask_client(1, None) as client:
        assert client is None  # no Dask for one worker
    for workers, cluster, said in ((0, None, "--workers"), (2, "localhost:8786", "tcp://HOST:PORT"),
                                   (1, "tcp://127.0.0.1", "tcp://HOST:PORT")):
        with pytest.raises(ClusterError, match=said), dask_client(workers, cluster):
            pass
