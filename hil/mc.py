"""The vectorised Monte Carlo engine's driver (issue 15): ``run_mc`` splits a run into chunks,
plays each with its game's kernel (``rules.mc.GAMES``) in-process or on Dask workers, merges the
exact integer tallies and reports the figures per wager against ``croupier rtp``'s exact RTP.

Bit-identity, by construction: the run of ``rounds`` is cut into ``ceil(rounds / chunk)`` chunks
of ``chunk`` rounds (the last one shorter); chunk i is played by a ``np.random.Generator(PCG64)``
seeded with the i-th child of ``np.random.SeedSequence(seed).spawn(chunks)``. A chunk's tallies
thus depend only on (seed, chunk size, i) — not on which worker plays it or when — and tallies are
Python ints merged in chunk order, so 1, 2 or 4 workers (or a real cluster) give the same bytes.
The chunk size is part of the result's identity (a different chunking draws different numbers);
it is reported with the figures.

Timings (wall time from the first chunk sent to the last merged, rounds/s, workers; the time to
start or reach a cluster apart) are kept out of the figures: ``McResult.figures_json()``
is what must be bit-identical, ``McResult.to_json()`` adds a separate "timing" object.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from rules.mc.tally import WagerTally, merge_dicts

DEFAULT_CHUNK = 2 ** 20


class McError(ValueError):
    """Bad input to the Monte Carlo engine (one line: what was given and what is allowed)."""


@dataclass(frozen=True)
class WagerFigures:
    """One wager's figures: the MC tally, its CI at ``confidence`` and the exact RTP."""

    wager: str
    tally: WagerTally
    confidence: float
    exact: Fraction | None

    @property
    def ci(self) -> tuple[float, float]:
        return self.tally.ci(self.confidence) if self.tally.n >= 2 else (math.nan, math.nan)

    @property
    def exact_in_ci(self) -> bool | None:
        if self.exact is None or self.tally.n < 2:
            return None
        lo, hi = self.ci
        return lo <= float(self.exact) <= hi

    @property
    def z(self) -> float | None:
        """(MC rtp - exact) in standard errors."""
        if self.exact is None or self.tally.n < 2:
            return None
        se = self.tally.standard_error
        diff = float(self.tally.rtp_fraction - self.exact)
        return diff / se if se > 0 else (0.0 if diff == 0 else math.copysign(math.inf, diff))

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        lo, hi = self.ci
        return {"wager": self.wager, "n": t.n, "rtp": t.rtp, "sd": t.sd, "hit_frequency": t.hit_frequency,
                "ci": [lo, hi], "confidence": self.confidence,
                "rtp_exact": None if self.exact is None else float(self.exact),
                "rtp_exact_fraction": None if self.exact is None else f"{self.exact.numerator}/{self.exact.denominator}",
                "exact_in_ci": self.exact_in_ci, "z": self.z,
                "sums": {"s1": t.s1, "s2": t.s2, "hits": t.hits, "den": t.den}}


@dataclass(frozen=True)
class McResult:
    game: str
    unit: str
    rounds: int
    seed: int
    chunk: int
    chunks: int
    options: Mapping[str, Any]
    wagers: tuple[WagerFigures, ...]
    wall_s: float = field(default=0.0, compare=False)
    workers: int = field(default=1, compare=False)
    cluster: str | None = field(default=None, compare=False)
    cluster_start_s: float = field(default=0.0, compare=False)

    @property
    def rounds_per_s(self) -> float:
        return self.rounds / self.wall_s if self.wall_s > 0 else math.nan

    def figures_json(self) -> dict[str, Any]:
        """Everything that must be bit-identical for every worker count (no timings)."""
        return {"game": self.game, "unit": self.unit, "rounds": self.rounds, "seed": self.seed,
                "chunk": self.chunk, "chunks": self.chunks, "rng": "PCG64 per chunk, SeedSequence(seed).spawn(chunks)",
                "options": {k: _jsonable(v) for k, v in self.options.items() if not k.startswith("_")},
                "wagers": [w.to_json() for w in self.wagers]}

    def to_json(self) -> dict[str, Any]:
        return {**self.figures_json(),
                "timing": {"wall_s": self.wall_s, f"{self.unit}_per_s": self.rounds_per_s,
                           "workers": self.workers, "cluster": self.cluster,
                           "cluster_start_s": self.cluster_start_s}}


def _jsonable(value: Any) -> Any:
    """An option as JSON, deterministically: plain data as is, a path as text, a model (a Rules
    Submission) by its type and name (its content is what the figures' rules identify)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if hasattr(value, "__fspath__"):
        return str(value)
    if hasattr(value, "model_dump"):
        return {"type": type(value).__name__, "name": getattr(value, "name", None)}
    return {"type": type(value).__name__}


def chunk_sizes(rounds: int, chunk: int) -> list[int]:
    """The rounds of each chunk: ``chunk`` each, the last one the rest."""
    full, rest = divmod(rounds, chunk)
    return [chunk] * full + ([rest] if rest else [])


def play_chunk(game: str, n: int, seed_seq: np.random.SeedSequence, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """One chunk: ``n`` rounds of ``game`` from its own PCG64 stream (runs on a worker too)."""
    from rules.mc import GAMES

    rng = np.random.Generator(np.random.PCG64(seed_seq))
    return GAMES[game].kernel(rng, n, options)


def _check(game: str, rounds: int, seed: int, chunk: int, confidence: float) -> None:
    for name, value, low in (("rounds", rounds, 1), ("seed", seed, 0), ("chunk", chunk, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise McError(f"--{name} is a whole number >= {low}, not {value!r}")
    if chunk > DEFAULT_CHUNK:
        raise McError(f"a chunk is at most 2**20 = {DEFAULT_CHUNK} rounds (int64 sums per chunk), not {chunk}")
    if not 0.0 < confidence < 1.0:
        raise McError(f"--confidence lies strictly between 0 and 1, not {confidence!r}")


def run_mc(game: str, rounds: int, seed: int, options: Mapping[str, Any], workers: int = 1,
           cluster: str | None = None, chunk: int = DEFAULT_CHUNK, confidence: float = 0.95,
           client: Any = None) -> McResult:
    """Play ``rounds`` of ``game`` (its ``McGame.options`` output in ``options``) and tally each
    wager. ``workers`` > 1 or ``cluster`` runs the chunks on Dask (``hil.cluster.dask_client``),
    or on ``client`` if one is given; the figures are the same whatever runs them."""
    from rules.mc import GAMES, GameNotBuilt

    if game not in GAMES:
        raise McError(f"unknown game {game!r}; the games: {', '.join(GAMES)}")
    try:
        spec = GAMES[game]
    except GameNotBuilt as exc:
        raise McError(str(exc.args[0])) from None
    _check(game, rounds, seed, chunk, confidence)
    sizes = chunk_sizes(rounds, chunk)
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    startup = 0.0
    if client is not None:
        start = time.perf_counter()
        parts = _on_dask(client, game, sizes, seeds, options)
    else:
        from hil.cluster import dask_client

        begin = time.perf_counter()
        with dask_client(workers, cluster) as made:
            start = time.perf_counter()
            startup = start - begin  # starting or reaching the cluster: not the engine's speed
            if made is None:
                parts = [play_chunk(game, n, ss, options) for n, ss in zip(sizes, seeds)]
            else:
                parts = _on_dask(made, game, sizes, seeds, options)
    merged: dict[str, WagerTally] = {}
    for part in parts:  # chunk order (exact ints: any order gives the same sums)
        merged = merge_dicts(merged, part)
    wall = time.perf_counter() - start
    if client is not None:
        workers = len(client.nthreads())
    exact = spec.exact(options)
    names = list(exact) + [w for w in merged if w not in exact]
    figures = tuple(WagerFigures(w, merged[w], confidence, exact.get(w)) for w in names if w in merged)
    if client is None and cluster not in (None, "local"):
        workers = 0  # the cluster's own
    return McResult(game, spec.unit, rounds, seed, chunk, len(sizes), dict(options), figures, wall, workers, cluster,
                    startup)


def play_chunks(game: str, sizes: list[int], seeds: list, options: Mapping[str, Any]) -> list[dict[str, WagerTally]]:
    """Consecutive chunks in one task (each from its own stream, as ``play_chunk``)."""
    return [play_chunk(game, n, ss, options) for n, ss in zip(sizes, seeds)]


#: tasks per worker: a task plays a run of consecutive chunks, so the scheduler and the client
#: handle a few tasks per worker, not one per chunk (measured: a task a chunk cost ~20 % more CPU)
TASKS_PER_WORKER = 4


def _on_dask(client: Any, game: str, sizes: list[int], seeds: list, options: Mapping[str, Any]) -> list:
    slots = max(1, sum(client.nthreads().values()))  # every worker's threads (scheduler_info may list a few)
    tasks = min(len(sizes), TASKS_PER_WORKER * slots)
    bounds = [round(i * len(sizes) / tasks) for i in range(tasks + 1)]
    groups = [(sizes[a:b], seeds[a:b]) for a, b in zip(bounds, bounds[1:])]
    futures = client.map(play_chunks, [game] * tasks, [g[0] for g in groups], [g[1] for g in groups],
                         [dict(options)] * tasks, pure=False)
    return [part for batch in client.gather(futures) for part in batch]  # chunk order
