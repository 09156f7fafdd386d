"""Simulation speed: full Crazy Time rounds per CPU-second, physics on, next to a trivial SimPy
event loop measured in the same run (this machine is shared and noisy: read the ratios).

Measured side by side:
  * baseline_events_per_s — a bare SimPy process yielding timeouts (the floor of any SimPy rig);
  * spins_per_s           — money-wheel physics alone (``simulate_spin``, closed form per peg);
  * rounds_per_s          — full rounds: 6 players, lock-out probing, wheel ∥ Top Slot,
                            settlement, the trace written and committed every round (a record a
                            round; as on any simulated bench, up to 8 rounds a SQLite transaction);
  * rounds_per_s_lean     — full rounds with 1 player and no lock-out probing (statistical runs);
  * bonus_rounds_per_s    — full rounds whose every result is forced to one bonus game (the
                            bonus suites' test mode), per game: the bonus devices' cost;
  * roulette_rounds_per_s — full Roulette rounds (6 players' straight wagers, Roulette X
                            illumination, ball physics, Roulette Up streak and progressive meter,
                            lock-out probing), and their ratio to the Crazy Time round;
  * blackjack_rounds_per_s — Blackjack side-wager rounds (6 players, the progressive system with
                            its meters and lock-out probing, the card shoe and reader, settlement);
  * rounds_per_s_no_trace — the full rounds again with the trace writer's work left out (its
                            ``record`` only counts, its ``commit`` drops the events): what the
                            round costs without the trace, so the round's cost splits into the
                            simulation's (``sim_events_per_round``) and the trace's
                            (``trace_events_per_round``: recording, coding, zlib, the SQLite commit).
Simulated seconds per wall second are reported for the full rounds, and the goal (issue 15: a full
round <= 500 bare SimPy events, >= 10^5x real time, the trace on) beside the figure. The last line
is JSON.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import simpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devices.money_wheel import MoneyWheelParams, simulate_spin  # noqa: E402
from hil.bench import load_bench  # noqa: E402
from hil.runner import load_rules, simulate  # noqa: E402
from hil.scenario import parse_scenario  # noqa: E402
from hil.trace import TraceWriter  # noqa: E402

#: issue 15's goal for a full Crazy Time round with the trace on
GOAL_EVENTS_PER_ROUND = 500
GOAL_SIM_S_PER_WALL_S = 100_000

FULL = """\
schema: 1
name: bench-full
game: crazy-time
seed: 1
rounds: %d
players: {count: 6, wagers_per_player: [1, 3]}
"""
LEAN = """\
schema: 1
name: bench-lean
game: crazy-time
seed: 2
rounds: %d
players: {count: 1, wagers_per_player: [1, 1]}
lockout: {probe: null}
"""
BONUS = """\
schema: 1
name: bench-bonus-%s
game: crazy-time
seed: 3
rounds: %%d
players: {count: 6, wagers_per_player: [1, 3]}
croupier: {force_result: %s}
"""
BONUS_GAMES = ("coin-flip", "cash-hunt", "pachinko", "crazy-time")
ROULETTE = """\
schema: 1
name: bench-roulette
game: roulette
seed: 4
rounds: %d
table: {wheel: double-zero, roulette_x_paytable: B, roulette_up: P3}
players: {count: 6, wagers_per_player: [1, 3]}
"""
BLACKJACK = """\
schema: 1
name: bench-blackjack
game: blackjack
seed: 5
rounds: %d
players: {count: 6}
"""


def _cpu(fn) -> tuple[float, float, object]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c0, time.perf_counter() - w0, out


def baseline(n: int) -> float:
    env = simpy.Environment()

    def proc():
        for _ in range(n):
            yield env.timeout(1)

    env.process(proc())
    cpu, _, _ = _cpu(env.run)
    return n / cpu


def physics(n: int) -> float:
    params = MoneyWheelParams()
    rng = np.random.default_rng(0)
    omegas = 2 * np.pi * rng.normal(params.push_speed_mean_rps, params.push_speed_sd_rps, n)
    angles = rng.uniform(0, 2 * np.pi, n)

    def go():
        for w, a in zip(omegas, angles):
            simulate_spin(params, 54, float(a), float(w), "cw")

    cpu, _, _ = _cpu(go)
    return n / cpu


def rounds(text: str, n: int, tmp: Path) -> dict:
    sc = parse_scenario(text % n, "bench.yaml")
    path = tmp / f"{sc.scenario.name}.sqlite"
    cpu, wall, (stats, sim_time) = _cpu(lambda: simulate(sc, load_bench(), load_rules(), path, sc.scenario.seed))
    return {"rounds_per_s": stats["rounds"] / cpu, "sim_s_per_wall_s": sim_time / wall, "cpu_s": cpu,
            "rounds": stats["rounds"], "trace_bytes": path.stat().st_size}


@contextlib.contextmanager
def trace_left_out():
    """The trace writer's per-event and per-commit work left out (the bench's own measurement of
    the trace's share; never a mode of the rig): ``record`` only numbers the event, ``commit`` drops
    the events pending."""
    record, commit = TraceWriter.record, TraceWriter.commit

    def count_only(self, device, kind, payload=None):
        self._seq += 1
        return self._seq

    def drop(self, state=None, *, round_end=False):
        self._pending.clear()

    TraceWriter.record, TraceWriter.commit = count_only, drop
    try:
        yield
    finally:
        TraceWriter.record, TraceWriter.commit = record, commit


def main() -> None:
    n_rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        base = baseline(200_000)
        spins = physics(5_000)
        full = rounds(FULL, n_rounds, tmp)
        lean = rounds(LEAN, n_rounds, tmp)
        bonus = {g: rounds(BONUS % (g, g), max(n_rounds // 4, 100), tmp) for g in BONUS_GAMES}
        roulette = rounds(ROULETTE, n_rounds, tmp)
        blackjack = rounds(BLACKJACK, n_rounds, tmp)
        with trace_left_out():
            no_trace = rounds(FULL.replace("bench-full", "bench-full-no-trace"), n_rounds, tmp)
    sim_events = base / no_trace["rounds_per_s"]
    result = {
        "baseline_events_per_s": round(base),
        "spins_per_s": round(spins),
        "rounds_per_s": round(full["rounds_per_s"], 1),
        "rounds_per_s_lean": round(lean["rounds_per_s"], 1),
        "sim_s_per_wall_s": round(full["sim_s_per_wall_s"]),
        "sim_s_per_wall_s_lean": round(lean["sim_s_per_wall_s"]),
        "baseline_events_per_round": round(base / full["rounds_per_s"], 1),
        "trace_bytes_per_round": round(full["trace_bytes"] / full["rounds"]),
        "bonus_rounds_per_s": {g: round(b["rounds_per_s"], 1) for g, b in bonus.items()},
        "bonus_over_full": {g: round(b["rounds_per_s"] / full["rounds_per_s"], 3) for g, b in bonus.items()},
        "roulette_rounds_per_s": round(roulette["rounds_per_s"], 1),
        "roulette_over_full": round(roulette["rounds_per_s"] / full["rounds_per_s"], 3),
        "roulette_sim_s_per_wall_s": round(roulette["sim_s_per_wall_s"]),
        "blackjack_rounds_per_s": round(blackjack["rounds_per_s"], 1),
        "blackjack_over_full": round(blackjack["rounds_per_s"] / full["rounds_per_s"], 3),
        "target_rounds_per_s": 2000,
        "rounds": n_rounds,
        "rounds_per_s_no_trace": round(no_trace["rounds_per_s"], 1),
        "sim_events_per_round": round(sim_events, 1),
        "trace_events_per_round": round(base / full["rounds_per_s"] - sim_events, 1),
        "goal_events_per_round": GOAL_EVENTS_PER_ROUND,
        "goal_sim_s_per_wall_s": GOAL_SIM_S_PER_WALL_S,
        "goal_met": base / full["rounds_per_s"] <= GOAL_EVENTS_PER_ROUND
                    and full["sim_s_per_wall_s"] >= GOAL_SIM_S_PER_WALL_S,
    }
    print(f"baseline SimPy loop : {result['baseline_events_per_s']:>12,} events/s (CPU)")
    print(f"wheel physics alone : {result['spins_per_s']:>12,} spins/s (CPU)")
    print(f"full rounds         : {result['rounds_per_s']:>12,} rounds/s (CPU), "
          f"{result['sim_s_per_wall_s']:,}x real time; one round costs "
          f"{result['baseline_events_per_round']} bare SimPy events")
    print(f"lean rounds         : {result['rounds_per_s_lean']:>12,} rounds/s (CPU), "
          f"{result['sim_s_per_wall_s_lean']:,}x real time")
    for g in BONUS_GAMES:
        print(f"forced {g:<12} : {result['bonus_rounds_per_s'][g]:>12,} rounds/s (CPU), "
              f"{result['bonus_over_full'][g]} x the full round's speed")
    print(f"roulette rounds     : {result['roulette_rounds_per_s']:>12,} rounds/s (CPU), "
          f"{result['roulette_over_full']} x the Crazy Time round's speed, "
          f"{result['roulette_sim_s_per_wall_s']:,}x real time")
    print(f"blackjack rounds    : {result['blackjack_rounds_per_s']:>12,} rounds/s (CPU), "
          f"{result['blackjack_over_full']} x the Crazy Time round's speed")
    print(f"round cost split    : simulation {result['sim_events_per_round']:,} + trace "
          f"{result['trace_events_per_round']:,} bare SimPy events (without the trace: "
          f"{result['rounds_per_s_no_trace']:,} rounds/s CPU)")
    print(f"goal (issue 15)     : a full round <= {GOAL_EVENTS_PER_ROUND} bare SimPy events and >= "
          f"{GOAL_SIM_S_PER_WALL_S:,}x real time with the trace on: now {result['baseline_events_per_round']} "
          f"events ({result['baseline_events_per_round'] / GOAL_EVENTS_PER_ROUND:.2f}x the goal), "
          f"{result['sim_s_per_wall_s']:,}x real time: {'MET' if result['goal_met'] else 'NOT MET'}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
