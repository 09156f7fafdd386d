"""The HTML report's plots: values extracted from a trace by the checks' own code, drawn as small SVG.

Every plotted value comes from a check class fed the trace by ``hil.checks.observe_checks`` — the
loop ``run_checks`` judges with — wrapped so that it also records what it accumulated round by round
(a lock-out check's latency brackets, the Top Slot's start offsets, the χ² check's counts, the meter
check's meters, the evidence check's void spins). A plot therefore never disagrees with its verdict:
each figure carries the verdict the wrapped check reached on the same pass, and says so where it
differs from the one in the report (a trace changed after the run).

``select(report)`` picks, per plot kind and check, the scenarios worth a figure (docs/report.md):
the table's headline (its normal play, else the one with the most data), every scenario where the
check failed unexpectedly, and up to two where it failed as a fault scenario expected.
``plot_scenario(job)`` reads one trace once and returns its figures; ``hil.html_report`` runs the
jobs in a process pool.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: plot kind -> (title, the check ids whose evidence it draws)
PLOT_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lockout": ("Lock-out latency bracket per round against the budget",
                ("CT-lockout", "RU-617b.4c2-lockout", "BJ-633b.17c2-lockout")),
    "timing": ("Timing distributions: Top Slot start offsets, lock-out latencies",
               ("CT-690.3-top-slot", "CT-lockout", "RU-617b.4c2-lockout", "BJ-633b.17c2-lockout")),
    "chi2": ("Observed against expected count per section (χ²)", ("CT-690.1a-section-chi2", "RW-pocket-chi2")),
    "rtp": ("Return to player against the exact value", ("CT-690.2e-settlement",)),
    "meter": ("Progressive meter timeline", ("BJ-meter-accounting", "RU-617b.4h2-meter")),
    "void": ("Void spins, respins and void rounds", ("EVIDENCE-link",)),
}
LOCKOUT_IDS = PLOT_KINDS["lockout"][1]
#: fault scenarios (the check failed as expected) drawn per check beside the headline
MAX_EXPECTED_FAILURES = 2
#: scenarios that failed the check unexpectedly drawn per check (each one is news to the lab)
MAX_UNEXPECTED_FAILURES = 3
#: points of a per-round series drawn at most (a longer one is sub-sampled, extremes kept)
MAX_POINTS = 400
#: a z of about 95 % two-sided (the RTP band)
Z95 = 1.959964


def _m(check: dict[str, Any], name: str) -> Any:
    return next((x["value"] for x in check.get("measurements", ()) if x["name"] == name), None)


def _has_data(kind: str, c: dict[str, Any]) -> float:
    """How much evidence a report's check holds for ``kind`` (0: nothing to draw)."""
    if kind == "lockout" or (kind == "timing" and c["id"] in LOCKOUT_IDS):
        return float(_m(c, "rounds_bracketed") or 0) or (1.0 if c["verdict"] == "fail" else 0.0)
    if kind == "timing":
        return float(_m(c, "rounds_settled") or 0) if _m(c, "start_offset_worst") is not None else 0.0
    if kind == "chi2":
        return float(_m(c, "spins") or 0)
    if kind == "rtp":
        return float(_m(c, "wagers_settled") or 0)
    if kind == "meter":
        return float(_m(c, "increments") or 0) + float(_m(c, "meter_hits") or 0)
    if kind == "void":
        return float((_m(c, "void_spins") or 0) + (_m(c, "void_rounds") or 0) + (_m(c, "wire_faults") or 0))
    return 0.0


def select(report: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """scenario name -> [(plot kind, check id), ...] worth drawing (module docstring)."""
    picks: dict[str, list[tuple[str, str]]] = {}
    for kind, (_title, ids) in PLOT_KINDS.items():
        for cid in ids:
            cands = []
            for s in report.get("scenarios", ()):
                if not s.get("trace"):
                    continue
                c = next((c for c in s.get("checks", ()) if c["id"] == cid), None)
                if c is None or not (amount := _has_data(kind, c)):
                    continue
                cands.append((s, c, amount))
            if not cands:
                continue
            chosen: list[str] = []
            clean = [(s, c, a) for s, c, a in cands if c["verdict"] != "fail"]
            if clean:
                normal = [x for x in clean if "normal-play" in x[0]["name"]]
                pool = normal or clean
                # the headline: the normal play with the most data (fewest rounds to break a tie)
                s, _c, _a = max(pool, key=lambda x: (x[2], -(x[0].get("stats") or {}).get("rounds", 0)))
                chosen.append(s["name"])
            failed = [(s, c, a) for s, c, a in cands if c["verdict"] == "fail"]
            if kind == "timing" and cid in LOCKOUT_IDS:
                failed = []  # a failed lock-out is drawn round by round (kind "lockout"); its histogram adds nothing
            if any(a > 1 for _s, _c, a in failed):  # a failure with evidence to draw, rather than a verdict alone
                failed = [x for x in failed if x[2] > 1]
            expected = [x for x in failed if cid in x[0].get("expected_failures", ())]
            unexpected = [x for x in failed if cid not in x[0].get("expected_failures", ())]
            # first the scenarios with data to draw (not only a verdict), then those whose fault is about
            # this check alone, then the shortest
            def order(x):
                return (x[2] <= 1, len(x[0].get("expected_failures", ())), (x[0].get("stats") or {}).get("rounds", 0))
            chosen += [x[0]["name"] for x in sorted(unexpected, key=order)[:MAX_UNEXPECTED_FAILURES]]
            chosen += [x[0]["name"] for x in sorted(expected, key=order)[:MAX_EXPECTED_FAILURES]]
            for name in dict.fromkeys(chosen):
                picks.setdefault(name, []).append((kind, cid))
    return picks


# ------------------------------------------------------------------------ extraction (the checks' code)
@dataclass
class Figure:
    """One plot of one check in one scenario, ready to inline."""

    kind: str
    scenario: str
    check_id: str
    title: str
    caption: str
    verdict: str | None
    svg: str = ""
    error: str | None = None
    data: dict[str, Any] = field(default_factory=dict)  # the extracted values (tests compare them)


def _recording(cls: type, hook=None) -> type:
    """``cls`` with ``hook(check, rv)`` called after each round it observed, and the round of every
    finding it makes kept (``finding_rounds``: the report keeps only the first 25 findings); its own
    code unchanged."""

    def observe(self, rv) -> None:
        cls.observe(self, rv)
        if hook is not None:
            hook(self, rv)

    def finding(self, rnd, ev, message) -> None:
        if self.finding_rounds is None:
            self.finding_rounds = []
        self.finding_rounds.append(rnd)
        cls.finding(self, rnd, ev, message)

    return type(cls.__name__, (cls,), {"observe": observe, "finding": finding, "__doc__": cls.__doc__,
                                        "series": None, "finding_rounds": None})


def _finding_rounds(c) -> list[int]:
    """The rounds (> 0: not the set-up nor the verdict's own) of every finding the check made."""
    return sorted({r for r in (c.finding_rounds or ()) if r > 0})


def _meter_hook(check, rv) -> None:
    series = check.series
    if series is None:
        series = check.series = {"rounds": [], "shown": {}, "expected": {}, "hits": []}
    shown: dict[str, int] = {}
    for e in rv.events:
        if e.device == "croupier" or not isinstance(e.payload, dict):
            continue
        if e.kind in ("meter_increment", "meter_hit") and "value_cents" in e.payload:
            shown[str(e.payload["meter"])] = int(e.payload["value_cents"])
            if e.kind == "meter_hit":
                series["hits"].append((rv.n, str(e.payload["meter"]), int(e.payload.get("jackpot_cents", 0))))
        elif e.kind == "meter_reading" and e.payload.get("link_up", True):
            for name, v in (e.payload.get("meters") or {}).items():
                shown[str(name)] = int(v)
    meters = check.meter if isinstance(check.meter, dict) else {"progressive": check.meter}
    series["rounds"].append(rv.n)
    for name, value in meters.items():
        series["expected"].setdefault(name, []).append(math.floor(value))
        last = series["shown"].setdefault(name, [])
        last.append(shown.get(name, last[-1] if last else None))


def _void_hook(check, rv) -> None:
    series = check.series
    if series is None:
        series = check.series = {"rounds": [], "respins": [], "void_spins": [], "void_rounds": [], "spins": [],
                                 "wire_faults": []}
    series["rounds"].append(rv.n)
    series["respins"].append(max(0, len(rv.attempts) - 1))
    series["void_spins"].append(check.void_spins)
    series["void_rounds"].append(check.void_rounds)
    series["spins"].append(check.spins)
    series["wire_faults"].append(check.wire_faults)


def _rtp_hook(check, rv) -> None:
    """Per settled round: the stakes of the wagers the settlement check holds the croupier to
    (``RoundView.wager_presses`` less the limits' refusals, as ``SettlementCheck`` takes them),
    what came back to the players (each winner's stake and win) and, by the exact RTP of each
    betting option (``rules.rtp.crazy_time_rtp`` of the Rules Submission on record), the return due."""
    from hil.checks.bonus import refused_for_limits
    from rules.rtp import crazy_time_rtp

    series = check.series
    if series is None:
        series = check.series = {"rounds": [], "staked": [], "returned": [], "due": [], "rtp": None}
    if not rv.settled or check.rules is None:
        return
    if series["rtp"] is None:
        series["rtp"] = {w.wager: float(w.rtp_exact) for w in crazy_time_rtp(check.rules)}
    accepted = {f"{rv.n}-{pid}": p for pid, p in rv.wager_presses().items()}
    for wid in refused_for_limits(rv):
        accepted.pop(wid, None)
    staked = sum(int(p.payload["stake_cents"]) for p in accepted.values())
    if not staked:
        return
    due = sum(int(p.payload["stake_cents"]) * series["rtp"].get(str(p.payload["spot"]), math.nan)
              for p in accepted.values())
    returned = sum(int(accepted[e.payload["wager_id"]].payload["stake_cents"]) + int(e.payload["win_cents"])
                   for e in rv.pays if e.payload.get("wager_id") in accepted)
    series["rounds"].append(rv.n)
    series["staked"].append(staked)
    series["returned"].append(returned)
    series["due"].append(due)


_HOOKS = {"meter": _meter_hook, "void": _void_hook, "rtp": _rtp_hook}


def extract(trace: Path, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], Any]:
    """Feed the trace once to the checks ``wanted`` names ((plot kind, check id)), each recording
    its series; (kind, check id) -> the check after the last round (``series`` set where a hook ran)."""
    from hil.checks import _result, checks_for, observe_checks

    kinds: dict[str, list[str]] = {}
    for kind, cid in wanted:
        kinds.setdefault(cid, []).append(kind)

    def make(game: str, config) -> list:
        out = []
        for cls in checks_for(game):
            if cls.id in kinds:
                hook = next((_HOOKS[k] for k in kinds[cls.id] if k in _HOOKS), None)
                out.append(_recording(cls, hook)(config))
        return out

    checks = observe_checks(trace, make=make)
    for c in checks:
        c.plot_result = _result(c)  # the verdict of this very pass
    return {(kind, c.id): c for c in checks for kind in kinds[c.id]}


# ------------------------------------------------------------------------ drawing
def _style():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "svg.fonttype": "none", "path.simplify": True, "path.simplify_threshold": 0.5,
        "font.size": 8, "axes.titlesize": 9, "axes.grid": True, "grid.alpha": 0.3, "svg.hashsalt": "croupier",
        "axes.spines.top": False, "axes.spines.right": False, "legend.fontsize": 7, "legend.frameon": False,
    })
    return plt


_ID = re.compile(r'\bid="([^"]+)"')


def to_svg(fig, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, DOCTYPE or metadata, every id
    prefixed (many figures share one page), and sized to its container."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    ids = set(_ID.findall(svg))
    svg = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r'url\(#([^)]+)\)', lambda m: f"url(#{prefix}-{m.group(1)})" if m.group(1) in ids else m.group(0), svg)
    svg = re.sub(r'(xlink:href|href)="#([^"]+)"',
                 lambda m: f'{m.group(1)}="#{prefix}-{m.group(2)}"' if m.group(2) in ids else m.group(0), svg)
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r'<svg \1', svg, count=1)
    return svg.replace("<svg ", '<svg role="img" preserveAspectRatio="xMinYMin meet" ', 1).strip()


from matplotlib.ticker import MaxNLocator  # noqa: E402  (Agg is selected in _style before any figure)


def _subsample(n: int, keep: set[int] = frozenset()) -> list[int]:
    """Indices of at most ~MAX_POINTS of n, evenly spread, plus ``keep`` (the points that matter)."""
    if n <= MAX_POINTS:
        return list(range(n))
    step = n / MAX_POINTS
    return sorted({int(i * step) for i in range(MAX_POINTS)} | {n - 1} | set(keep))


def _lockout(plt, c, scenario: str) -> tuple[Any, str, dict]:
    budget_ms = c.config.lockout_budget_s * 1e3
    rounds = sorted(c.brackets)
    lo = [c.brackets[r][0] * 1e3 for r in rounds]
    hi = [c.brackets[r][1] * 1e3 for r in rounds]
    state = [c.bracket_state(*c.brackets[r]) for r in rounds]  # the check's own rule at the budget
    over = {i for i in range(len(rounds)) if state[i] == "over"}
    straddle = {i for i in range(len(rounds)) if state[i] == "straddle"}
    viol = _finding_rounds(c)
    fig, ax = plt.subplots(figsize=(7.2, 2.6))
    idx = _subsample(len(rounds), over | straddle)
    for group, color, label in ((set(idx) - over - straddle, "#2b6cb0", "bracket within budget"),
                                (straddle & set(idx), "#dd8a00", "bracket straddles budget"),
                                (over & set(idx), "#c53030", "bracket over budget")):
        g = sorted(group)
        if g:
            ax.vlines([rounds[i] for i in g], [lo[i] for i in g], [hi[i] for i in g], colors=color, lw=1.2, label=label)
    # the axis to the bulk of the brackets (an odd round whose first rejection came late would flatten the rest)
    bulk = sorted(hi)[int(0.98 * (len(hi) - 1))] if hi else budget_ms
    ytop = max(budget_ms, bulk) * 1.3
    beyond = [i for i in range(len(rounds)) if hi[i] > ytop]
    ax.set_ylim(0, ytop * 1.08)
    if viol:
        ax.plot(viol, [ytop * 1.03] * len(viol), "x", color="#c53030", ms=4, label="lock-out violation (finding)")
    ax.axhline(budget_ms, color="#c53030", ls="--", lw=1, label=f"budget {budget_ms:.3f} ms")
    ax.set_xlabel("round")
    ax.set_ylabel("latency (ms)")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=4)
    shown = "" if len(idx) == len(rounds) else f" ({len(idx)} of {len(rounds)} rounds drawn, every straddling or over-budget one kept)"
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    cap = (f"{len(rounds)} rounds bracketed by the rig's probe presses: each bar spans the last accepted and the first "
           f"locked-out press after the lock-out command, as {c.id} derives them{shown}"
           + (f"; {len(viol)} round(s) with a lock-out violation (×)" if viol else "")
           + (f"; {len(beyond)} bracket(s) reach past the axis (round {rounds[beyond[0]]}: up to "
              f"{max(hi[i] for i in beyond):.3f} ms)" if beyond else "") + ".")
    return fig, cap, {"rounds": rounds, "lower_ms": lo, "upper_ms": hi, "budget_ms": budget_ms}


def _timing(plt, c, scenario: str) -> tuple[Any, str, dict]:
    if c.id in LOCKOUT_IDS:
        return _latency_hist(plt, c, scenario)
    tol_ms = c.config.top_slot_start_tolerance_s * 1e3
    offs = [o * 1e3 for o in c.offsets]
    fig, ax = plt.subplots(figsize=(7.2, 2.4))
    lo, hi = min(offs + [-tol_ms]), max(offs + [tol_ms])
    span = hi - lo or 1.0
    ax.hist(offs, bins=min(60, max(10, int(math.sqrt(len(offs))))), range=(lo - 0.02 * span, hi + 0.02 * span),
            color="#2b6cb0", label=f"{len(offs)} spins")
    for x in (-tol_ms, tol_ms):
        ax.axvline(x, color="#c53030", ls="--", lw=1)
    ax.plot([], [], color="#c53030", ls="--", lw=1, label=f"tolerance ±{tol_ms:.1f} ms")
    ax.set_xlabel("Top Slot start − wheel start (ms)")
    ax.set_ylabel("spins")
    ax.legend(loc="upper right")
    worst = max(offs, key=abs) if offs else None
    cap = (f"Distribution of the Top Slot's start offset from the wheel's start over every spin attempt "
           f"(§ 690.3(c): spun concurrently){'' if worst is None else f'; worst {worst:+.3f} ms'}.")
    return fig, cap, {"offsets_ms": offs, "tolerance_ms": tol_ms}


def _latency_hist(plt, c, scenario: str) -> tuple[Any, str, dict]:
    """The distribution of the lock-out latency brackets (``Lockout.brackets``): their lower ends (the
    latest accepted press) and upper ends (the first locked-out one), against the budget."""
    budget_ms = c.config.lockout_budget_s * 1e3
    lo = [b[0] * 1e3 for b in c.brackets.values()]
    hi = [b[1] * 1e3 for b in c.brackets.values()]
    fig, ax = plt.subplots(figsize=(7.2, 2.4))
    if lo:
        top = max(hi + [budget_ms])
        bins = [top * 1.05 * i / 50 for i in range(51)]
        ax.hist(lo, bins=bins, histtype="step", color="#2b6cb0", lw=1.2, label="lower end (last press accepted)")
        ax.hist(hi, bins=bins, histtype="step", color="#805ad5", lw=1.2, label="upper end (first press locked out)")
    ax.axvline(budget_ms, color="#c53030", ls="--", lw=1, label=f"budget {budget_ms:.3f} ms")
    ax.set_xlabel("lock-out latency after the command (ms)")
    ax.set_ylabel("rounds")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3)
    over = sum(1 for x in lo if x > budget_ms)
    cap = (f"Distribution over {len(lo)} bracketed rounds of the lock-out latency bracket {c.id} derives per round "
           f"(its lower and upper ends); {over} round(s) with the lower end over the budget. The per-round view is "
           "in the lock-out plot of the same scenario.")
    return fig, cap, {"lower_ms": lo, "upper_ms": hi, "budget_ms": budget_ms}


def _chi2(plt, c, scenario: str) -> tuple[Any, str, dict]:
    """One panel per sample the check tested (pooled, and each spin direction with enough spins for
    it): the counts, the uniform expectation, each count's binomial band, and the sample's χ² and p
    against the check's (Bonferroni-corrected) level, all read from the check itself."""
    from scipy import stats

    res = c.plot_result
    mv = {m.name: m for m in res.measurements}
    if hasattr(c, "pockets"):  # a roulette wheel's compartments
        from hil.checks.roulette import pocket_key

        labels = [str(p) for p in c.pockets]
        samples = {"pooled": [c.counts.get(pocket_key(p), 0) for p in c.pockets]}
        keys = {"pooled": ("chi2", "p_value")}
        what = "compartment"
    else:
        sections = (c.bench.info.get("wheel") or {}).get("sections", ()) or range(54)
        k = len(sections)
        pooled = [sum(counts.get(i, 0) for counts in c.counts.values()) for i in range(k)]
        samples = {"pooled": pooled}
        samples.update({d: [cnt.get(i, 0) for i in range(k)] for d, cnt in c.counts.items()
                        if f"chi2_{d}" in mv})
        keys = {name: (f"chi2_{name}", f"p_value_{name}") for name in samples}
        labels = [str(i) for i in range(k)]
        what = "section"
    alpha = c.config.chi2_alpha
    fig, axes = plt.subplots(len(samples), 1, figsize=(7.2, 1.2 + 1.6 * len(samples)), sharex=True, squeeze=False)
    data, lines = {}, []
    for ax, (name, observed) in zip(axes[:, 0], samples.items()):
        k, n = len(observed), sum(observed)
        lo_b = float(stats.binom.ppf(alpha / 2, n, 1 / k)) if n else 0.0
        hi_b = float(stats.binom.ppf(1 - alpha / 2, n, 1 / k)) if n else 0.0
        x = list(range(k))
        colors = ["#c53030" if (o < lo_b or o > hi_b) else "#2b6cb0" for o in observed]
        ax.bar(x, observed, color=colors, width=0.8, label="observed")
        ax.axhspan(lo_b, hi_b, color="#38a169", alpha=0.18, label=f"each count's {1 - alpha:.0%} band")
        ax.axhline(n / k if k else 0, color="#2f855a", lw=1, label="expected n/k")
        chi2, p = mv.get(keys[name][0]), mv.get(keys[name][1])
        level = (p.limit or "").split(" ")[1] if p is not None and p.limit else None
        stat = f"χ² = {chi2.value:.1f}, p = {p.value:.3g} (limit {p.limit})" if chi2 and p else "too few spins for χ²"
        bad = p is not None and level is not None and p.value < float(level)
        ax.set_title(f"{name}: {n} spins — {stat}", fontsize=8, loc="left", color="#c53030" if bad else "#1a202c")
        ax.set_ylabel("spins")
        ax.set_xlim(-0.8, k - 0.2)
        data[name] = {"observed": observed, "expected": n / k if k else None, "band": [lo_b, hi_b],
                      "chi2": chi2.value if chi2 else None, "p_value": p.value if p else None}
        lines.append(f"{name} {stat}")
    axes[0, 0].legend(loc="lower right", bbox_to_anchor=(1.0, 1.12), ncol=3)
    step = max(1, len(labels) // 27)
    axes[-1, 0].set_xticks(list(range(len(labels)))[::step])
    axes[-1, 0].set_xticklabels(labels[::step], rotation=90, fontsize=6)
    axes[-1, 0].set_xlabel(f"{what} ({'the wheel order, index 0 to ' + str(len(labels) - 1) if what == 'section' else 'number'})")
    cap = (f"Observed count per {what} against the uniform expectation n/k, each count with its two-sided "
           f"{1 - alpha:.0%} binomial band, for every sample {c.id} tested ({'; '.join(lines)}). The verdict is the "
           "check's χ² test per sample (a Bonferroni level when it tests several), not a bar outside its band.")
    return fig, cap, data


def _rtp(plt, c, scenario: str) -> tuple[Any, str, dict]:
    s = c.series or {"rounds": [], "staked": [], "returned": [], "due": []}
    rounds, staked, returned, due = s["rounds"], s["staked"], s["returned"], s["due"]
    cum_s = cum_r = cum_d = 0.0
    obs, exact, band = [], [], []
    sq = 0.0  # running Σ (returned - r·staked)² for the ratio's delta-method variance, r the exact rate
    for st, rt, du in zip(staked, returned, due):
        cum_s += st
        cum_r += rt
        cum_d += du
        rate = du / st
        sq += (rt - rate * st) ** 2
        obs.append(cum_r / cum_s)
        exact.append(cum_d / cum_s)
        band.append(Z95 * math.sqrt(sq) / cum_s)
    fig, ax = plt.subplots(figsize=(7.2, 2.6))
    idx = _subsample(len(rounds))
    xs = [rounds[i] for i in idx]
    if idx:
        ax.fill_between(xs, [(exact[i] - band[i]) * 100 for i in idx], [(exact[i] + band[i]) * 100 for i in idx],
                        color="#38a169", alpha=0.18, label="95 % interval around the exact value")
        ax.plot(xs, [exact[i] * 100 for i in idx], color="#2f855a", lw=1, label="exact RTP of the wagers made")
        ax.plot(xs, [obs[i] * 100 for i in idx], color="#2b6cb0", lw=1.2, label="observed (cumulative)")
        mid = exact[-1] * 100
        spread = max(2.5 * band[-1] * 100, 1.3 * abs(obs[-1] * 100 - mid), 2.0)
        ax.set_ylim(max(0.0, mid - spread), mid + spread)
    ax.set_xlabel("round")
    ax.set_ylabel("return to player (%)")
    ax.legend(loc="upper right", ncol=3)
    inside = bool(obs) and abs(obs[-1] - exact[-1]) <= band[-1]
    cap = ((f"{len(rounds)} settled rounds, {int(cum_s)} cents staked: the players' cumulative return (each winner's "
            f"stake and win) over the stakes of the wagers CT-690.2e-settlement holds the croupier to, against the "
            f"exact RTP of the same wagers (rules/rtp.py, the Rules Submission on record) with its 95 % interval "
            f"(the observed rounds' own spread). Final: {obs[-1]:.4%} against {exact[-1]:.4%} ± {band[-1]:.4%}"
            f" — {'inside' if inside else 'outside'} the interval. The RTP is context: {c.id}'s verdict is on each "
            "wager's settlement.") if obs else "No settled round with wagers.")
    return fig, cap, {"rounds": rounds, "observed": obs, "exact": exact, "half_width": band}


def _meter(plt, c, scenario: str) -> tuple[Any, str, dict]:
    s = c.series or {"rounds": [], "shown": {}, "expected": {}, "hits": []}
    rounds = s["rounds"]
    finding_rounds = _finding_rounds(c)
    fig, ax = plt.subplots(figsize=(7.2, 2.6))
    keep = {rounds.index(r) for r in finding_rounds if r in rounds} | {rounds.index(h[0]) for h in s["hits"]
                                                                      if h[0] in rounds}
    idx = _subsample(len(rounds), keep)
    colors = ["#2b6cb0", "#805ad5", "#d69e2e", "#319795"]
    for j, (name, shown) in enumerate(sorted(s["shown"].items())):
        pts = [(rounds[i], shown[i] / 100) for i in idx if shown[i] is not None]
        if pts:
            ax.step(*zip(*pts), where="post", color=colors[j % 4], lw=1.2, label=f"{name}: shown by the system")
    for j, (name, exp) in enumerate(sorted(s["expected"].items())):
        ax.step([rounds[i] for i in idx], [exp[i] / 100 for i in idx], where="post", color=colors[j % 4], lw=0.8,
                ls=":", label=f"{name}: the check's recomputation")
    if s["hits"]:
        ax.plot([h[0] for h in s["hits"]], [h[2] / 100 for h in s["hits"]], "v", color="#2f855a", ms=4,
                label="meter paid (jackpot)")
    if finding_rounds:
        ys = [v / 100 for series in s["shown"].values() for v in series if v is not None] or [0]
        ax.plot(finding_rounds, [max(ys)] * len(finding_rounds), "x", color="#c53030", ms=5, label="meter finding")
    ax.set_xlabel("round")
    ax.set_ylabel("meter ($)")
    ax.legend(loc="best", ncol=2)
    cap = (f"The system's meters as it reported them after each round (increments, readings, payouts), and the "
           f"meter the check recomputes from the regulation's row, the wagers and the hits (resynchronised to the "
           f"system after each discrepancy, so every finding is one step apart); {len(s['hits'])} payout(s), "
           f"{c.plot_result.findings_total} finding(s) in {len(finding_rounds)} round(s) (×).")
    return fig, cap, {"rounds": rounds, "shown": s["shown"], "expected": s["expected"], "hits": s["hits"]}


def _void(plt, c, scenario: str) -> tuple[Any, str, dict]:
    s = c.series or {"rounds": [], "respins": [], "void_spins": [], "void_rounds": [], "spins": [], "wire_faults": []}
    rounds = s["rounds"]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7.2, 3.0), sharex=True, gridspec_kw={"height_ratios": [1, 2]})
    resp = [(r, n) for r, n in zip(rounds, s["respins"]) if n]
    if resp:
        ax1.vlines([r for r, _ in resp], 0, [n for _, n in resp], color="#dd8a00", lw=1.2)
    ax1.set_ylabel("respins")
    ax1.set_ylim(0, max([n for _, n in resp] + [1]) + 0.5)
    idx = _subsample(len(rounds))
    xs = [rounds[i] for i in idx]
    ax2.step(xs, [s["void_spins"][i] for i in idx], where="post", color="#dd8a00", label="void spins")
    ax2.step(xs, [s["void_rounds"][i] for i in idx], where="post", color="#c53030", label="void rounds")
    if any(s["wire_faults"]):
        ax2.step(xs, [s["wire_faults"][i] for i in idx], where="post", color="#805ad5", label="wire faults")
    limit = c.config.max_void_spin_ratio
    ax2.plot(xs, [limit * s["spins"][i] for i in idx], color="#718096", ls="--", lw=0.8,
             label=f"void-spin limit ({limit:.1%} of spins)")
    ax2.set_xlabel("round")
    ax2.set_ylabel("cumulative")
    ax2.legend(loc="upper left", ncol=2)
    last = {k: (v[-1] if v else 0) for k, v in s.items()}
    cap = (f"Respins per round (a void spin respun, § 690.2(d)) and the cumulative void spins, void rounds and "
           f"wire faults EVIDENCE-link counts: {last['void_spins']} of {last['spins']} spins void, "
           f"{last['void_rounds']} void round(s), {last['wire_faults']} wire fault(s). The check judges the void "
           f"share by its one-sided 99 % lower bound, so the dashed line is a guide, not the verdict.")
    return fig, cap, {k: v for k, v in s.items()}


_DRAW = {"lockout": _lockout, "timing": _timing, "chi2": _chi2, "rtp": _rtp, "meter": _meter, "void": _void}


def figure_id(kind: str, scenario: str, check_id: str) -> str:
    return "fig-" + re.sub(r"[^A-Za-z0-9_-]+", "_", f"{kind}-{scenario}-{check_id}")


def plot_scenario(job: tuple[str, str, list[tuple[str, str]], dict[str, str]]) -> list[Figure]:
    """One trace read once: (scenario, trace path, [(kind, check id)], {check id: report verdict}) ->
    its figures. Never raises: a trace that cannot be read gives figures saying why."""
    scenario, trace, wanted, verdicts = job
    try:
        found = extract(Path(trace), wanted)
    except Exception as exc:  # noqa: BLE001 — a report must show what it could not draw, not crash the run
        return [Figure(k, scenario, cid, PLOT_KINDS[k][0], "", None, error=f"the trace could not be read: "
                       f"{type(exc).__name__}: {exc}") for k, cid in wanted]
    plt = _style()
    figs = []
    for kind, cid in wanted:
        c = found.get((kind, cid))
        name = PLOT_KINDS[kind][0]
        if kind == "timing":
            name = "Lock-out latency distribution" if cid in LOCKOUT_IDS else "Top Slot start offset from the wheel's start"
        title = f"{name} — {scenario} ({cid})"
        if c is None:
            figs.append(Figure(kind, scenario, cid, title, "", None, error="the trace's game has no such check"))
            continue
        verdict = c.plot_result.verdict
        try:
            fig, cap, data = _DRAW[kind](plt, c, scenario)
            fig.suptitle(title, fontsize=9, x=0.01, ha="left")
            fig.tight_layout()
            svg = to_svg(fig, figure_id(kind, scenario, cid))
            plt.close(fig)
        except Exception as exc:  # noqa: BLE001
            plt.close("all")
            figs.append(Figure(kind, scenario, cid, title, "", verdict, error=f"{type(exc).__name__}: {exc}"))
            continue
        if verdicts.get(cid) not in (None, verdict):
            cap += (f" NOTE: this pass over the trace gives {verdict}, the report says {verdicts[cid]}: the trace is "
                    "not the one the report judged.")
        figs.append(Figure(kind, scenario, cid, title, cap, verdict, svg, data=data))
    return figs


# ------------------------------------------------------------------------ croupier analyze (analysis.json)
#: data sets of an analysis drawn at most (the failed ones first, then those with the most plays)
ANALYSIS_MAX_DATASETS = 6


def _analysis_test(doc: dict[str, Any], ds: str, test: str, split: str = "all") -> dict[str, Any] | None:
    return next((t for t in doc.get("tests", ()) if t.get("dataset") == ds and t.get("test") == test
                 and t.get("column") == "result" and t.get("split") == split), None)


def _stat_line(t: dict[str, Any] | None) -> str:
    if t is None:
        return "not tested"
    if t.get("p_value") is None:
        return "too few plays for the test"
    return (f"χ² = {t['statistic']:.1f} on {t.get('dof')} dof, p = {t['p_value']:.3g}, adjusted "
            f"{t['p_adjusted']:.3g}: {t['verdict']}")


def _analysis_counts(plt, doc: dict[str, Any], d: dict[str, Any]) -> tuple[Any, str, dict]:
    pd = d["plot"]
    symbols = pd["symbols"]
    k = len(symbols)
    panels = pd["panels"]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.2, 1.2 + 1.6 * len(panels)), sharex=True, squeeze=False)
    lines = []
    for ax, (name, p) in zip(axes[:, 0], panels.items()):
        x = list(range(k))
        lo, hi = p["band_lo"], p["band_hi"]
        colors = ["#c53030" if (o < lo[i] or o > hi[i]) else "#2b6cb0" for i, o in enumerate(p["observed"])]
        ax.bar(x, p["observed"], color=colors, width=0.8, label="observed")
        ax.fill_between(x, lo, hi, step="mid", color="#38a169", alpha=0.18, label=f"each count's {1 - pd['alpha']:.2%} band")
        ax.step(x, p["expected"], where="mid", color="#2f855a", lw=1, label="expected under the null")
        t = _analysis_test(doc, d["id"], "chi2", name)
        line = _stat_line(t)
        bad = t is not None and t.get("verdict") == "fail"
        ax.set_title(f"{name}: {p['n']} plays — {line}", fontsize=8, loc="left", color="#c53030" if bad else "#1a202c")
        ax.set_ylabel("plays")
        ax.set_xlim(-0.8, k - 0.2)
        lines.append(f"{name} {line}")
    axes[0, 0].legend(loc="lower right", bbox_to_anchor=(1.0, 1.12), ncol=3)
    step = max(1, k // 27)
    axes[-1, 0].set_xticks(list(range(k))[::step])
    axes[-1, 0].set_xticklabels(symbols[::step], rotation=90, fontsize=6)
    axes[-1, 0].set_xlabel(d["alphabet"] + (" (in wheel order)" if "distance" in pd else ""))
    cap = (f"{d['source']}: observed count per symbol against its expectation under the null, each count with its "
           f"two-sided binomial band at the battery's level α = {pd['alpha']:.3g}"
           + (", pooled and per direction" if len(panels) > 1 else "") + f" ({'; '.join(lines)}). The verdict is the "
           "battery's, at its corrected level, not a bar outside its band.")
    return fig, cap, {"panels": panels}


def _analysis_distance(plt, doc: dict[str, Any], d: dict[str, Any]) -> tuple[Any, str, dict]:
    dist = d["plot"]["distance"]
    fig, axes = plt.subplots(len(dist), 1, figsize=(7.2, 1.2 + 1.5 * len(dist)), sharex=True, squeeze=False)
    t = _analysis_test(doc, d["id"], "distance")
    for ax, (name, h) in zip(axes[:, 0], dist.items()):
        k = len(h["observed"])
        ax.bar(range(k), h["observed"], color="#2b6cb0", width=0.8, label="observed")
        ax.step(range(k), h["expected"], where="mid", color="#2f855a", lw=1, label="expected (independent results)")
        ts = _analysis_test(doc, d["id"], "distance", name)
        ax.set_title(f"{name}: {h['n']} consecutive pairs — {_stat_line(ts)}", fontsize=8, loc="left",
                     color="#c53030" if ts is not None and ts.get("verdict") == "fail" else "#1a202c")
        ax.set_ylabel("pairs")
    axes[0, 0].legend(loc="lower right", bbox_to_anchor=(1.0, 1.12), ncol=2)
    axes[-1, 0].set_xlabel("pocket distance from one result to the next, clockwise positions (0: the same pocket)")
    cap = (f"{d['source']}: the dealer signature, the histogram of the clockwise pocket distance between consecutive "
           f"results (per direction of the later spin where both occur) against its expectation for independent "
           f"results ({_stat_line(t)}). The battery's distance test signs the distance by the later spin's "
           "direction.")
    return fig, cap, {"distance": dist}


def analysis_figures(doc: dict[str, Any]) -> list[Figure]:
    """The figures of ``croupier analyze``'s analysis.json (``hil.analyze.plot_data``): per data set
    drawn (``ANALYSIS_MAX_DATASETS``), observed against expected per symbol with each count's band
    (pooled and per direction), and the pocket-distance histogram. Never raises."""
    sets = [d for d in doc.get("datasets", ()) if isinstance(d, dict) and d.get("plot")]
    sets.sort(key=lambda d: (d.get("verdict") != "fail", -(d.get("n") or 0)))
    plt = _style()
    figs = []
    for d in sets[:ANALYSIS_MAX_DATASETS]:
        jobs = [("analysis-counts", _analysis_counts, "Observed against expected per symbol")]
        if "distance" in d["plot"]:
            jobs.append(("analysis-distance", _analysis_distance, "Pocket distance between consecutive results"))
        for kind, draw, name in jobs:
            title = f"{name} — {d.get('name')}"
            try:
                fig, cap, data = draw(plt, doc, d)
                fig.suptitle(title, fontsize=9, x=0.01, ha="left")
                fig.tight_layout()
                svg = to_svg(fig, figure_id(kind, "analysis", str(d.get("id"))))
                plt.close(fig)
            except Exception as exc:  # noqa: BLE001 — the page says what it could not draw
                plt.close("all")
                figs.append(Figure(kind, str(d.get("source")), str(d.get("id")), title, "", d.get("verdict"),
                                   error=f"{type(exc).__name__}: {exc}"))
                continue
            figs.append(Figure(kind, str(d.get("source")), str(d.get("id")), title, cap, d.get("verdict"), svg,
                               data=data))
    if len(sets) > ANALYSIS_MAX_DATASETS:
        figs.append(Figure("analysis-more", "", "more", "", "", None,
                           error=f"{len(sets) - ANALYSIS_MAX_DATASETS} more data set(s) not drawn (the failed ones and "
                                 "those with the most plays are)"))
    return figs
