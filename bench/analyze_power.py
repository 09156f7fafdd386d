"""The battery of ``croupier analyze`` measured over many simulated runs (issue 15, docs/analyze.md).

1. False alarms: ``--runs`` (default 1,000) unbiased data sets of ``--n`` plays (default 3,700: a
   month of a studio's single-zero wheel at ~120 spins a day) for the single-zero wheel and the
   money wheel's 54 sections, each spun alternately clockwise and anticlockwise; the share whose
   overall verdict is "fail" against the nominal alpha (Holm over the family), with a 95 %
   Clopper–Pearson interval, and each test's own (uncorrected) rejection rate at alpha.
2. Detection: ``--detect-runs`` (default 200) data sets per injected bias at the planner's N
   (``hil.stats.plan.analytic``: the noncentral χ² N for power 0.9 at alpha / battery size): a hot
   pocket / section +20 %, neighbour dependence +20 %, a clockwise-only hot pocket +20 %; the share
   flagged ("fail"), and which tests flagged. Plus unbiased data at the largest of those N.

Seeds: ``SeedSequence([seed, case, run])``, so a row is reproducible alone. Prints a table; the last
line is JSON. About 90 s of CPU on one core of this machine (longer wall time when it is shared).

    .venv/bin/python bench/analyze_power.py [--runs 1000] [--detect-runs 200] [--n 3700] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import numpy as np
from scipy import stats

from hil.stats import plan
from hil.stats.battery import run_battery
from hil.stats.data import Alphabet
from hil.stats.synth import simulate

ALPHA = 0.01

CASES = {
    "roulette": (lambda: Alphabet.roulette("single-zero"),
                 ("pocket 17 +20 %", "neighbour +20 %", "clockwise pocket 17 +20 %")),
    "money-wheel": (lambda: Alphabet.money_wheel(),
                    ("section 5:pachinko +20 %", "neighbour +20 %", "clockwise section 5:pachinko +20 %")),
}


def _ci(k: int, n: int) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return float(ci.low), float(ci.high)


def _runs(alphabet: Alphabet, n: int, bias: str, runs: int, seed: int, case: int) -> dict:
    flagged, by, raw, m = 0, Counter(), Counter(), set()
    for r in range(runs):
        rng = np.random.default_rng(np.random.SeedSequence([seed, case, r]))
        res = run_battery(simulate(alphabet, n, bias, rng, direction=True), alpha=ALPHA)
        m.add(res.family_size)
        if res.verdict == "fail":
            flagged += 1
            by.update({t.name for t in res.failed})
        raw.update({t.name: int(t.p_value is not None and t.p_value <= ALPHA) for t in res.tests})
    lo, hi = _ci(flagged, runs)
    return {"alphabet": alphabet.kind, "bias": bias, "n": n, "runs": runs, "flagged": flagged,
            "rate": flagged / runs, "ci95": [lo, hi], "family_size": sorted(m),
            "flagged_by": {k: v / runs for k, v in by.most_common()},
            "raw_rejection_rate": {k: v / runs for k, v in sorted(raw.items())}}


POWER_NS = (1_000, 3_700, 10_000, 50_000, 100_000)


def power_table(game: str, ns: tuple[int, ...] = POWER_NS, seed: int = 0) -> str:
    """docs/analyze.md's power table: each test's power (at alpha/m, m its family size at that N,
    against its reference alternative) for ``game``'s alphabet spun alternately each way. The
    power does not depend on the draw, only on N and the family (fair data of each N is drawn to
    run the battery)."""
    make, _ = CASES[game]
    alphabet = make()
    cols = []
    for n in ns:
        res = run_battery(simulate(alphabet, n, "none", np.random.default_rng(seed), direction=True), alpha=ALPHA)
        cols.append((res.family_size, {t.name: t.power for t in res.tests}))
    names = list(cols[-1][1])
    lines = [f"| test ({alphabet.kind}) | " + " | ".join(f"N={n:,}" for n in ns) + " |",
             "|---|" + "---:|" * len(ns),
             "| family size m | " + " | ".join(str(m) for m, _ in cols) + " |"]
    for name in names:
        cells = [("too few" if c.get(name) is None else f"{c[name]:.3f}") if name in c else "-" for _, c in cols]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="unbiased data sets per wheel (false alarms)")
    ap.add_argument("--detect-runs", type=int, default=200, help="data sets per injected bias")
    ap.add_argument("--n", type=int, default=3700, help="plays per unbiased data set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--power-table", action="store_true",
                    help="print docs/analyze.md's power tables (each test's power at several N) and stop")
    a = ap.parse_args(argv)
    if a.power_table:
        for game in CASES:
            print(power_table(game, seed=a.seed))
            print()
        return 0
    t0, c0 = time.perf_counter(), time.process_time()
    false_alarms, detections = [], []
    case = 0
    for game, (make, biases) in CASES.items():
        alphabet = make()
        false_alarms.append(_runs(alphabet, a.n, "none", a.runs, a.seed, case))
        case += 1
        ns = []
        for bias in biases:
            planned = plan.analytic(game, bias, alpha=ALPHA, power=0.9)
            ns.append(planned.n)
            row = _runs(alphabet, planned.n, bias, a.detect_runs, a.seed, case)
            row.update(planner_n=planned.n, planner_power=planned.power, planner_test=planned.test)
            detections.append(row)
            case += 1
        false_alarms.append(_runs(alphabet, max(ns), "none", a.detect_runs, a.seed, case))
        case += 1
    wall_s, cpu_s = time.perf_counter() - t0, time.process_time() - c0

    print(f"croupier analyze battery: alpha {ALPHA} family-wise (Holm), seed {a.seed}, {wall_s:.1f} s wall, "
          f"{cpu_s:.1f} s CPU")
    print()
    print("False alarms on unbiased data (verdict 'fail'; nominal <= alpha):")
    print(f"  {'alphabet':22s} {'N':>7s} {'runs':>5s} {'fail':>5s} {'rate':>7s} {'95 % CI':>17s}  m")
    for r in false_alarms:
        print(f"  {r['alphabet']:22s} {r['n']:7d} {r['runs']:5d} {r['flagged']:5d} {r['rate']:7.4f} "
              f"[{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}]  {','.join(map(str, r['family_size']))}")
    print()
    print("Each test's own rejection rate at alpha on unbiased data (uncorrected; nominal alpha):")
    for r in false_alarms[::2]:
        print(f"  {r['alphabet']} at N={r['n']} ({r['runs']} runs):")
        for name, rate in r["raw_rejection_rate"].items():
            print(f"    {name:40s} {rate:.4f}")
    print()
    print("Detection at the planner's N (noncentral chi2 N for power 0.9 at alpha/m):")
    print(f"  {'alphabet':22s} {'bias':36s} {'N':>7s} {'runs':>5s} {'rate':>6s} {'95 % CI':>15s}  flagged by")
    for r in detections:
        top = ", ".join(f"{k} {v:.2f}" for k, v in list(r["flagged_by"].items())[:3])
        print(f"  {r['alphabet']:22s} {r['bias']:36s} {r['n']:7d} {r['runs']:5d} {r['rate']:6.3f} "
              f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]  {top}")
    out = {"alpha": ALPHA, "correction": "holm", "seed": a.seed, "wall_s": round(wall_s, 1), "cpu_s": round(cpu_s, 1),
           "false_alarm": [{k: r[k] for k in ("alphabet", "n", "runs", "flagged", "rate", "ci95")}
                           for r in false_alarms],
           "detection": [{k: r[k] for k in ("alphabet", "bias", "n", "runs", "flagged", "rate", "ci95", "planner_power")}
                         for r in detections]}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
