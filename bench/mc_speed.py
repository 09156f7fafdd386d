"""Monte Carlo engine speed (issue 15): per core (one process, no Dask, no trace) next to numpy's
own PCG64 integer throughput measured in the same run (the RNG limit), then the 2-worker Dask
scaling ratio with the figures checked bit-identical. This machine is shared and noisy: read the
ratios.

Measured (CPU seconds of this process: one core):
  * rng_ints_per_s        — ``Generator(PCG64).integers(0, 54, size=2**24)`` (int64): the limit;
  * ct_base_rounds_per_s  — Crazy Time base game (the number wagers 1, 2, 5, 10; ``--base``);
  * ct_full_rounds_per_s  — Crazy Time with the four bonus games and the Top Slot;
  * roulette_spins_per_s  — Roulette with Roulette Up: every § 617b.4(h) paytable settled, spins
                            counted as the streaks deal them (the ending spin included);
  * roulette_x_spins_per_s — Roulette X (lit numbers and their payouts drawn every spin);
  * cards_hands_per_s     — the slowest card side wager's kernel (each one listed);
each also as a ratio to the RNG limit and to the issue's goal. A game whose kernel is not built
prints "not built" and its key is null.

Scaling: one game (Crazy Time full if built, else Roulette X) for ~``--seconds`` at 1 worker
in-process and at 2 Dask workers on a LocalCluster started (and warmed up) beforehand; wall time
W=1 / W=2 is the ratio (goal >= 1.7x), the figures must be equal; a short run checks 4 workers too.
The last line is JSON.

    .venv/bin/python bench/mc_speed.py [--seconds 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hil.cluster import dask_client  # noqa: E402
from hil.mc import DEFAULT_CHUNK, run_mc  # noqa: E402
from rules.mc import GAMES, GameNotBuilt  # noqa: E402

GOALS = {"ct_base_rounds_per_s": 20e6, "ct_full_rounds_per_s": 2e6, "roulette_spins_per_s": 20e6,
         "cards_hands_per_s": 1e6}
CARD_GAMES = ("twenty-one-plus-three", "royal-match", "kings-bounty", "blazing-sevens", "blazing-sevens-multi",
              "uth-trips", "uth-bad-beat", "play-the-board", "ultimate-pairs", "criss-cross-ultimate-pairs")


def cpu_rate(fn, units_per_call: int, min_s: float, repeat: int) -> float:
    """Best of ``repeat`` measurements of units per CPU second (each at least ``min_s``)."""
    best = 0.0
    for _ in range(repeat):
        calls, t0 = 0, time.process_time()
        while True:
            fn()
            calls += 1
            dt = time.process_time() - t0
            if dt >= min_s:
                break
        best = max(best, calls * units_per_call / dt)
    return best


def rng_limit(min_s: float, repeat: int) -> float:
    rng = np.random.Generator(np.random.PCG64(1))
    size = 1 << 24
    return cpu_rate(lambda: rng.integers(0, 54, size=size), size, min_s, repeat)


def game(name: str):
    try:
        return GAMES[name]
    except (GameNotBuilt, KeyError):
        return None


def _try(g, kw: dict) -> dict | None:
    try:
        return g.options(**kw)
    except ValueError:
        return None


def kernel_rate(name: str, options_kw: dict, min_s: float, repeat: int, n: int = DEFAULT_CHUNK) -> float | None:
    g = game(name)
    if g is None:
        return None
    try:
        options = g.options(**options_kw)
    except ValueError:  # a game that plays one paytable a run: its first
        options = next(o for o in (_try(g, {**options_kw, "paytable": p}) for p in ("A", "1", "P1")) if o)
    rng = np.random.Generator(np.random.PCG64(7))
    g.kernel(rng, 1024, options)  # warm (imports, tables)
    return cpu_rate(lambda: g.kernel(rng, n, options), n, min_s, repeat)


def roulette_rate(min_s: float, repeat: int) -> tuple[float | None, float | None]:
    """(spins per CPU second, spins per streak) of the Roulette Up kernel, every paytable."""
    g = game("roulette-up")
    if g is None:
        return None, None
    from rules.mc.roulette import roulette_up_spins

    options = g.options()
    n = DEFAULT_CHUNK
    spins = roulette_up_spins(np.random.Generator(np.random.PCG64(3)), n, options)
    streaks_per_s = kernel_rate("roulette-up", {}, min_s, repeat, n)
    return streaks_per_s * spins / n, spins / n


def _cpu(procs) -> float:
    total = 0.0
    for p in procs:
        t = p.cpu_times()
        total += t.user + t.system
    return total


def _warm(_: int) -> int:
    import os
    return os.getpid()


def plain_processes(name: str, rounds: int, chunk: int, options: dict) -> dict:
    """The same chunks on two plain processes (no Dask: half the chunks each, one task each, imports
    warmed first): the most two processes get out of this machine's two cores on this work, so the
    Dask ratio is read against it. Its CPU per chunk against one process's shows what running on
    both cores at once costs each (shared caches and memory, a host's sibling threads)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    import psutil

    from hil.mc import chunk_sizes, play_chunks

    sizes = chunk_sizes(rounds, chunk)
    seeds = np.random.SeedSequence(2026).spawn(len(sizes))
    with ProcessPoolExecutor(2, mp_context=mp.get_context("spawn")) as ex:
        procs = [psutil.Process(p) for p in set(ex.map(_warm, range(8)))]
        list(ex.map(play_chunks, [name] * 2, [sizes[:1]] * 2, [seeds[:1]] * 2, [options] * 2))  # warm the kernel
        before, t0 = _cpu(procs), time.perf_counter()
        halves = [ex.submit(play_chunks, name, sizes[i::2], seeds[i::2], options) for i in (0, 1)]
        for f in halves:
            f.result()
        wall = time.perf_counter() - t0
        cpu = _cpu(procs) - before
    return {"wall_s": wall, "cpu_s": cpu, "processes": len(procs)}


def scaling(seconds: float, single_rate: dict) -> dict:
    """W=1 in-process against W=2 Dask workers on the same rounds, seed and chunks."""
    import os

    import psutil

    name = "crazy-time" if game("crazy-time") else "roulette-x"
    g = game(name)
    if g is None:
        return {"game": None}
    options = g.options()
    rate = single_rate.get(name) or 1e6
    chunk = DEFAULT_CHUNK
    chunks = max(16, 2 * math.ceil(rate * seconds / chunk / 2))
    rounds = chunks * chunk
    me = psutil.Process()
    c0, t0 = time.process_time(), time.perf_counter()
    one = run_mc(name, rounds, 2026, options, chunk=chunk)
    w1, cpu1 = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    with dask_client(2) as client:
        startup = time.perf_counter() - t0
        workers = [psutil.Process(p) for p in client.run(os.getpid).values()]
        run_mc(name, 2 * chunk, 1, options, chunk=chunk, client=client)  # warm both workers' imports
        before, main_before, t0 = _cpu(workers), _cpu([me]), time.perf_counter()
        two = run_mc(name, rounds, 2026, options, chunk=chunk, client=client)
        w2 = time.perf_counter() - t0
        cpu2_workers, cpu2_main = _cpu(workers) - before, _cpu([me]) - main_before
    plain = plain_processes(name, rounds, chunk, options)
    small = 8 * (chunk // 64)
    ref = run_mc(name, small, 5, options, chunk=chunk // 64)
    with dask_client(4) as client4:
        four = run_mc(name, small, 5, options, chunk=chunk // 64, client=client4)
    cpu_ratio = (cpu2_workers + cpu2_main) / cpu1
    return {"game": name, "rounds": rounds, "chunk": chunk, "chunks": chunks, "wall_s_1": w1, "wall_s_2": w2,
            "cpu_s_1": cpu1, "cpu_s_2_workers": cpu2_workers, "cpu_s_2_main": cpu2_main,
            "cluster_startup_s": startup, "ratio_2_workers": w1 / w2,
            "worker_core_share": cpu2_workers / (2 * w2), "dask_cpu_overhead": cpu_ratio,
            "ratio_2_workers_on_idle_cores": 2 / cpu_ratio,
            "wall_s_2_plain": plain["wall_s"], "cpu_s_2_plain": plain["cpu_s"],
            "ratio_2_plain_processes": w1 / plain["wall_s"], "dask_against_plain": plain["wall_s"] / w2,
            "bit_identical_1_2": one.figures_json() == two.figures_json(),
            "bit_identical_1_4": ref.figures_json() == four.figures_json()}


def fmt(x: float | None) -> str:
    return "not built" if x is None else f"{x / 1e6:10.2f} M/s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0, help="W=1 wall time of the scaling run, s")
    ap.add_argument("--min-s", type=float, default=0.5, help="CPU seconds per measurement")
    ap.add_argument("--repeat", type=int, default=3, help="measurements per figure (the best is kept)")
    args = ap.parse_args()

    out: dict = {"rng_ints_per_s": rng_limit(args.min_s, args.repeat)}
    out["ct_base_rounds_per_s"] = kernel_rate("crazy-time", {"base": True}, args.min_s, args.repeat)
    out["ct_full_rounds_per_s"] = kernel_rate("crazy-time", {}, args.min_s, args.repeat, n=DEFAULT_CHUNK // 4)
    out["roulette_spins_per_s"], out["roulette_spins_per_streak"] = roulette_rate(args.min_s, args.repeat)
    out["roulette_x_spins_per_s"] = kernel_rate("roulette-x", {"wheel": "single"}, args.min_s, args.repeat)
    cards = {c: kernel_rate(c, {}, args.min_s / 2, max(1, args.repeat - 1), n=DEFAULT_CHUNK // 8)
             for c in CARD_GAMES}
    built = {c: r for c, r in cards.items() if r is not None}
    out["cards_hands_per_s"] = min(built.values()) if built else None
    out["cards_hands_per_s_each"] = cards
    limit = out["rng_ints_per_s"]

    print(f"numpy PCG64 integers (the RNG limit): {limit / 1e6:.1f} M ints/s per core")
    print(f"{'game':28} {'per core':>14} {'goal':>10} {'/goal':>7} {'/RNG limit':>11}")
    rows = [("Crazy Time base game", "ct_base_rounds_per_s"), ("Crazy Time full", "ct_full_rounds_per_s"),
            ("Roulette with Roulette Up", "roulette_spins_per_s"), ("Roulette X", "roulette_x_spins_per_s"),
            ("Card side wagers (slowest)", "cards_hands_per_s")]
    for label, key in rows:
        v, goal = out[key], GOALS.get(key)
        print(f"{label:28} {fmt(v):>14} {'' if goal is None else f'{goal / 1e6:.0f} M/s':>10} "
              f"{'' if v is None or goal is None else f'{v / goal:6.2f}x':>7} "
              f"{'' if v is None else f'{v / limit:10.4f}':>11}")
        out[key.replace("_per_s", "_rng_ratio")] = None if v is None else v / limit
    for c, v in cards.items():
        print(f"  {c:26} {fmt(v):>14}")

    single = {"crazy-time": out["ct_full_rounds_per_s"], "roulette-x": out["roulette_x_spins_per_s"]}
    sc = scaling(args.seconds, single)
    out["scaling"] = sc
    out["ratio_2_workers"] = sc.get("ratio_2_workers")
    out["ratio_2_plain_processes"] = sc.get("ratio_2_plain_processes")
    out["bit_identical"] = bool(sc.get("bit_identical_1_2") and sc.get("bit_identical_1_4"))
    if sc["game"]:
        print(f"Dask scaling, {sc['game']}: {sc['rounds']:,} rounds in {sc['chunks']} chunks of {sc['chunk']:,}; "
              f"W=1 {sc['wall_s_1']:.2f} s, W=2 {sc['wall_s_2']:.2f} s (LocalCluster start {sc['cluster_startup_s']:.2f} s, "
              f"not counted): {sc['ratio_2_workers']:.2f}x (goal >= 1.7x)")
        print(f"  CPU: W=1 {sc['cpu_s_1']:.2f} s; W=2 workers {sc['cpu_s_2_workers']:.2f} s + client/scheduler "
              f"{sc['cpu_s_2_main']:.2f} s (Dask's overhead {sc['dask_cpu_overhead']:.2f}x the CPU: "
              f"{sc['ratio_2_workers_on_idle_cores']:.2f}x on two idle cores); each worker had "
              f"{sc['worker_core_share']:.0%} of a core")
        print(f"  the machine's ceiling: the same chunks on two plain processes (no Dask, half each) "
              f"{sc['wall_s_2_plain']:.2f} s: {sc['ratio_2_plain_processes']:.2f}x, their CPU {sc['cpu_s_2_plain']:.2f} s "
              f"({sc['cpu_s_2_plain'] / sc['cpu_s_1']:.2f}x one process's for the same chunks); Dask reaches "
              f"{sc['dask_against_plain']:.0%} of it")
        print(f"  figures identical W=1/W=2: {sc['bit_identical_1_2']}, W=1/W=4: {sc['bit_identical_1_4']}")
        if sc["worker_core_share"] < 0.8:
            print("  (the workers did not get a core each: this machine is shared, and Linux's autogroup "
                  "scheduler gives one session - this bench and its workers - one share of the CPUs)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
