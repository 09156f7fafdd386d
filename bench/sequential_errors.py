"""The sequential monitor's operating characteristics (hil.stats.sequential; docs/plan.md).

For each planned bias, Wald's SPRT at nominal α (type I) and β (type II) is simulated over
``--runs`` independent runs with data drawn under H0 (a fair wheel: the share that accepts the
bias is the measured type I error rate) and under the bias (the share that accepts "fair" is the
type II error rate), each run truncated at ``--truncate`` × the planner's N (undecided runs are
counted, never folded into either error). Printed next to the nominal rates, Wald's bounds
(α/(1−β), β/(1−α)) and 95 % Clopper–Pearson intervals; the mean sample number (and its 90 %
quantile) under each hypothesis next to the fixed-N plan (``hil.stats.plan.analytic``: the
battery's N at its first Holm level, and the single test's N at level α), the fixed-N
likelihood-ratio test of the same two hypotheses (``SprtDesign.fixed_n``) and Wald's approximate
ASN. The last line is JSON. Fixed seeds: the same figures every run. About 10–30 s here.

    .venv/bin/python bench/sequential_errors.py [--runs 2000] [--alpha 0.01] [--beta 0.1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy import stats  # noqa: E402

from hil.stats.plan import alphabet_for, analytic  # noqa: E402
from hil.stats.sequential import ACCEPT_BIAS, ACCEPT_FAIR, SprtDesign, operating_point  # noqa: E402
from hil.stats.synth import parse_bias  # noqa: E402

#: (game, planned bias): the three kinds of issue 15, and the hot sector a tilted rotor makes
#: (the bundled monitored scenarios' design)
CASES = (
    ("roulette", "pocket 17 +20 %"),
    ("roulette", "neighbour +20 %"),
    ("roulette", "clockwise pocket 17 +20 %"),
    ("roulette", "pockets 35 3 26 0 32 15 19 +35 %"),
    ("money-wheel", "section pachinko +20 %"),
)


def ci(k: int, n: int) -> tuple[float, float]:
    r = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    return float(r.low), float(r.high)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000, help="simulated runs per hypothesis (>= 1000 for the figures)")
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--truncate", type=float, default=5.0, help="each run stops undecided at this x the planner's N")
    ap.add_argument("--seed", type=int, default=20261202)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = []
    hdr = (f"{'bias':<36} {'H':<3} {'error':>8} {'95 % CI':>17} {'nominal':>8} {'Wald bd':>8} {'undec':>6} "
           f"{'ASN':>8} {'N90%':>8} {'Wald ASN':>9} {'fixed N':>8} {'N(1 test)':>9} {'N(LR)':>7} {'ASN/N':>6}")
    print(f"SPRT alpha {args.alpha}, beta {args.beta}, {args.runs} runs per hypothesis, truncated at "
          f"{args.truncate:g} x the planner's N")
    print(hdr)
    print("-" * len(hdr))
    for i, (game, text) in enumerate(CASES):
        bias = parse_bias(text)
        fixed = analytic(game, bias, args.alpha, 1.0 - args.beta)
        single = analytic(game, bias, args.alpha, 1.0 - args.beta, battery_size=1)
        design = SprtDesign(alphabet_for(game), bias, args.alpha, args.beta, max_n=int(args.truncate * fixed.n))
        for h, truth, wrong, nominal, bound in (
                ("H0", "none", ACCEPT_BIAS, args.alpha, args.alpha / (1 - args.beta)),
                ("H1", text, ACCEPT_FAIR, args.beta, args.beta / (1 - args.alpha))):
            op = operating_point(design, truth, args.runs, seed=args.seed + 2 * i + (h == "H1"))
            errors = op.accept_h1 if h == "H0" else op.accept_h0
            lo, hi = ci(errors, op.runs)
            row = {"game": game, "bias": text, "hypothesis": h, "runs": op.runs, "errors": errors,
                   "error_rate": errors / op.runs, "ci95": [lo, hi], "nominal": nominal, "wald_bound": bound,
                   "undecided": op.undecided, "asn": op.mean_n, "n_q50": op.quantiles_n[0], "n_q90": op.quantiles_n[1],
                   "n_q99": op.quantiles_n[2], "wald_asn": design.wald_asn(truth), "fixed_n": fixed.n,
                   "fixed_n_level": fixed.level, "fixed_n_single_test": single.n, "fixed_n_lr": design.fixed_n(),
                   "asn_over_fixed_n": op.mean_n / fixed.n, "asn_over_fixed_n_lr": op.mean_n / design.fixed_n(),
                   "within_nominal_ci": lo <= nominal, "within_wald_bound": lo <= bound}
            rows.append(row)
            label = f"{text} ({game})" if game != "roulette" else text
            print(f"{label:<36} {h:<3} {row['error_rate']:>8.4f} [{lo:.4f}, {hi:.4f}] {nominal:>8.3f} {bound:>8.4f} "
                  f"{op.undecided:>6} {op.mean_n:>8.0f} {op.quantiles_n[1]:>8.0f} {row['wald_asn']:>9.0f} "
                  f"{fixed.n:>8} {single.n:>9} {row['fixed_n_lr']:>7} {row['asn_over_fixed_n']:>6.2f}")
    wall = time.perf_counter() - t0
    print(f"\nerror: the share of runs deciding wrongly (H0 runs accepting the bias: type I; H1 runs accepting fair: "
          f"type II); fixed N: the planner's noncentral chi-square N at the battery's first Holm level; "
          f"N(1 test): the same test alone at level alpha; N(LR): the fixed-N likelihood-ratio test of the same "
          f"two hypotheses at the same alpha and beta (normal approximation); ASN/N: against the planner's N. "
          f"{wall:.1f} s")
    out = {"alpha": args.alpha, "beta": args.beta, "runs": args.runs, "truncate": args.truncate, "seed": args.seed,
           "wall_s": round(wall, 2), "rows": rows}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
