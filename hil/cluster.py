"""A Dask client for work that spreads over processes or machines (``croupier mc``, and later
``croupier run`` suites): ``with dask_client(workers, cluster) as client:``.

- ``cluster`` None and ``workers`` <= 1: no Dask at all; ``client`` is None and the caller runs
  in-process.
- ``cluster`` None (or ``"local"``) and ``workers`` > 1: a ``distributed.LocalCluster`` of
  ``workers`` single-threaded worker processes on 127.0.0.1, no dashboard, with the BLAS / OpenMP
  thread counts set to 1 before each worker process starts (one core, one worker), closed with
  its processes on exit.
- ``cluster`` ``"tcp://HOST:PORT"`` (or any address Dask's comms take, e.g. ``tls://``): a client
  of a running scheduler (``dask scheduler`` + ``dask worker``: docs/mc.md); ``workers`` is then
  ignored (the cluster has the workers it has). An unreachable scheduler raises ``ClusterError``
  within ``timeout_s`` with one line that says where and why.

No home-made cluster: this is a thin factory over Dask's own.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

#: What each local worker process gets before it starts (one thread of BLAS / OpenMP per worker).
WORKER_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "NUMEXPR_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1"}


class ClusterError(RuntimeError):
    """The cluster cannot be started or reached (one line: where and why)."""


def _check(workers: int, cluster: str | None) -> None:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ClusterError(f"--workers is a whole number >= 1, not {workers!r}")
    if cluster is not None and cluster != "local" and "://" not in cluster:
        raise ClusterError(f"--cluster is 'local' or a scheduler address such as tcp://HOST:PORT, not {cluster!r}")


@contextlib.contextmanager
def dask_client(workers: int = 1, cluster: str | None = None, *, timeout_s: float = 5.0,
                resources: dict[str, float] | None = None, **cluster_kwargs: Any) -> Iterator[Any]:
    """A ``distributed.Client`` for ``workers`` local processes or the scheduler at ``cluster``;
    None when the work should run in-process (one worker, no cluster). ``resources`` are given to
    each local worker (e.g. ``{"bench": 1}``) so tasks can be pinned with ``resources=``."""
    _check(workers, cluster)
    if cluster is None and workers <= 1:
        yield None
        return
    import dask
    from distributed import Client, LocalCluster

    if cluster is not None and cluster != "local":
        _probe(cluster, timeout_s)
        try:
            client = Client(cluster, timeout=f"{timeout_s}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(f"cannot reach the Dask scheduler at {cluster} within {timeout_s:g} s: {reason}") from None
        try:
            try:  # a scheduler without workers would take the work and never do it
                client.wait_for_workers(1, timeout=timeout_s)
            except TimeoutError:
                raise ClusterError(f"the Dask scheduler at {cluster} has no worker (none joined within "
                                   f"{timeout_s:g} s): start `dask worker {cluster}` (docs/mc.md)") from None
            yield client
        finally:
            client.close()
        return
    # Dask's default MALLOC_TRIM_THRESHOLD_ fixes glibc's mmap threshold, so every large numpy
    # array of a kernel is a fresh mmap and its page faults: measured twice the CPU a chunk. Dropped.
    environ = {**{k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()
                  if k != "MALLOC_TRIM_THRESHOLD_"}, **WORKER_ENV}
    # the workers' statistical profiler samples every 10 ms and takes the GIL from the kernels:
    # off (it serves the dashboard, which is off too)
    with dask.config.set({"distributed.nanny.pre-spawn-environ": environ,
                          "distributed.worker.profile.enabled": False}):
        try:
            local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                 dashboard_address=None, silence_logs=logging.CRITICAL, resources=resources,
                                 # no dashboard; the scheduler's bare HTTP routes (health, metrics)
                                 # on a free loopback port, not Dask's fixed 8787
                                 scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                                 **cluster_kwargs)
        except (OSError, TimeoutError, RuntimeError) as exc:
            raise ClusterError(f"cannot start a local Dask cluster of {workers} workers: {exc}") from None
    try:
        client = Client(local, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        local.close()


def _probe(address: str, timeout_s: float) -> None:
    """A refused or unroutable tcp:// scheduler fails at once (Dask itself retries until its
    timeout); other schemes are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ClusterError(f"--cluster {address}: {exc}") from None
    if not host or port is None:
        raise ClusterError(f"--cluster {address}: a scheduler address is tcp://HOST:PORT")
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}") from None


def worker_pids(client: Any) -> list[int]:
    """The process ids of the cluster's workers (for tests and diagnostics)."""
    return sorted(client.run(os.getpid).values()) if client is not None else []


async def _set_resources(resources: dict[str, float], dask_worker: Any = None) -> None:
    await dask_worker.set_resources(**resources)


def grant_resources(client: Any, resources: dict[str, float], n: int = 1) -> list[str]:
    """Give ``resources`` to ``n`` of the cluster's workers (the first by address), e.g. one worker
    of a local cluster holds a stub-backed bench (``{"bench:<name>": 1}``: ``croupier run``'s tasks
    that need it run there, one at a time). Returns their addresses; the scheduler knows on return."""
    addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])[:n]
    client.run(_set_resources, resources, workers=addresses)
    return addresses
