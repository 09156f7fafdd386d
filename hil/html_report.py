"""``report.html``: the run's evidence as one self-contained page a lab can hand over (docs/report.md).

One file, no network: inline CSS, inline SVG plots (``hil.plots``), no external script, style, font
or image; the page is complete without its few lines of script (they only add "expand all"). It
shows the verdicts per scenario, per check its section's text, measurements (limits, brackets) and
findings, the plots, the traceability matrix, the provenance and the manifest's SHA-256.

``write_html(report, out_dir)`` reads the traces from ``out_dir/<scenario["trace"]>`` (only through
``hil.trace.TraceReader``, by the checks' own code) and writes ``out_dir/report.html``.
"""

from __future__ import annotations

import html
import logging
import os
import re
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from hil.plots import PLOT_KINDS, Figure, figure_id, plot_scenario, select

_log = logging.getLogger("croupier.report")

#: below this many traces to plot, the figures are drawn in this process (a pool costs ~1 s to start)
POOL_FROM = 4
#: ``CROUPIER_REPORT_PLOTS=0``: the page without its plots (the test suite's many small runs set it:
#: tests/conftest.py; tests/hil/test_hil_html_report.py draws them)
PLOTS_ENV = "CROUPIER_REPORT_PLOTS"

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1a202c;background:#f7fafc}
main{max-width:1220px;margin:0 auto;padding:8px 20px 40px}
header{background:#1a365d;color:#fff;padding:14px 20px}header h1{margin:0 0 4px;font-size:22px}
header p{margin:2px 0;font-size:13px;color:#e2e8f0}header code{color:#fff}
nav{background:#2c5282;padding:6px 20px;position:sticky;top:0;z-index:2}nav a{color:#fff;margin-right:16px;text-decoration:none;font-size:13px}
h2{border-bottom:2px solid #cbd5e0;padding-bottom:3px;margin-top:28px}h3{margin:18px 0 6px}
table{border-collapse:collapse;background:#fff;margin:6px 0 12px;font-size:12.5px}
th,td{border:1px solid #e2e8f0;padding:3px 7px;text-align:left;vertical-align:top}th{background:#edf2f7}
td.n{text-align:right;font-variant-numeric:tabular-nums}
#verdicts td:first-child,#coverage td:first-child{white-space:nowrap}
.met,.pass,.fault-proven{color:#22543d;background:#c6f6d5}.notmet,.fail,.not-covered{color:#742a2a;background:#fed7d7}
.notdecisive,.indeterminate,.checked,.undecided,.too-few{color:#744210;background:#fefcbf}.notapplicable,.out-of-scope{color:#4a5568;background:#e2e8f0}
.badge{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
.cards{display:flex;gap:10px;flex-wrap:wrap;margin:10px 0}.card{background:#fff;border:1px solid #e2e8f0;border-radius:4px;padding:8px 14px}
.card b{display:block;font-size:22px}
figure{background:#fff;border:1px solid #e2e8f0;border-radius:4px;margin:10px 0;padding:8px;max-width:900px}
figure svg{width:100%;height:auto;display:block}figcaption{font-size:12.5px;color:#2d3748}
details{background:#fff;border:1px solid #e2e8f0;border-radius:4px;margin:4px 0;padding:2px 8px}
details details{margin-left:8px}summary{cursor:pointer;padding:2px 0}
.reg{font-size:12.5px;color:#2d3748;background:#f7fafc;border-left:3px solid #a0aec0;padding:4px 8px;margin:4px 0}
.muted{color:#718096}.err{color:#742a2a}code{font-size:12px}
ul.findings{margin:4px 0 8px 18px;padding:0;font-size:12.5px}
#tools{margin:6px 0}
"""

_JS = """
(function(){var t=document.getElementById('tools');if(!t)return;t.hidden=false;
function all(o){var d=document.querySelectorAll('#details details');for(var i=0;i<d.length;i++)d[i].open=o;}
document.getElementById('expand').onclick=function(){all(true);};
document.getElementById('collapse').onclick=function(){all(false);};})();
"""


def e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def anchor(*parts: str) -> str:
    """An id safe for HTML and CSS selectors, unique per parts."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", "-".join(parts))


def outcome(s: dict[str, Any]) -> str:
    """The scenario's outcome ("met", "not met", "not decisive", "not applicable")."""
    if s.get("outcome"):
        return str(s["outcome"])
    if s.get("not_applicable"):
        return "not applicable"
    return {True: "met", False: "not met"}.get(s.get("expectation_met"), "not decisive")


def _cls(word: str) -> str:
    return re.sub(r"[^a-z-]", "", word.lower().replace(" ", "-")).replace("not-met", "notmet") \
        .replace("not-decisive", "notdecisive").replace("not-applicable", "notapplicable")


def badge(word: str) -> str:
    return f'<span class="badge {_cls(word)}">{e(word)}</span>'


def game_of(s: dict[str, Any]) -> str:
    parts = Path(str(s.get("file") or "")).parts
    return parts[-2] if len(parts) >= 2 else "—"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return e(v)


def plots_enabled() -> bool:
    return os.environ.get(PLOTS_ENV, "1").strip().lower() not in ("0", "no", "false", "off")


def _figures(report: dict[str, Any], out_dir: Path, jobs: int | None = None) -> list[Figure]:
    if not plots_enabled():
        return []
    picks = select(report)
    by_name = {s["name"]: s for s in report.get("scenarios", ())}
    work, missing = [], []
    for name, wanted in picks.items():
        s = by_name[name]
        trace = out_dir / s["trace"]
        if not trace.exists():  # said on the page, in place of the figures
            missing += [Figure(k, name, cid, PLOT_KINDS[k][0], "", None, error=f"no trace at {s['trace']}")
                        for k, cid in wanted]
            continue
        work.append((name, str(trace), wanted, {c["id"]: c["verdict"] for c in s.get("checks", ())}))
    # the longest traces first, so two workers finish together
    work.sort(key=lambda w: -((by_name[w[0]].get("stats") or {}).get("rounds") or 0))
    workers = jobs if jobs is not None else min(2, os.cpu_count() or 1, len(work))
    if workers > 1 and len(work) >= POOL_FROM:
        from hil.runner import _worker_init  # a worker dies with the run that started it

        try:
            with ProcessPoolExecutor(workers, initializer=_worker_init, initargs=(os.getpid(),)) as pool:
                done = list(pool.map(plot_scenario, work))
        except BrokenProcessPool:  # a worker died (killed, out of memory): draw them here instead
            _log.warning("a plotting worker died; drawing the plots in this process")
            done = [plot_scenario(w) for w in work]
    else:
        done = [plot_scenario(w) for w in work]
    return [f for figs in done for f in figs] + missing


def render(report: dict[str, Any], figures: list[Figure], analysis: dict[str, Any] | None = None,
           analysis_figures: list[Figure] | None = None) -> str:
    scenarios = report.get("scenarios", [])
    prov = report.get("provenance") or {}
    summary = report.get("summary") or {}
    manifest = report.get("manifest")
    figs_by_check: dict[tuple[str, str], list[Figure]] = {}
    for f in figures:
        figs_by_check.setdefault((f.scenario, f.check_id), []).append(f)
    out: list[str] = []
    w = out.append
    w("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      f"<title>Croupier evidence report — {e(prov.get('started_utc', ''))}</title><style>{_CSS}</style></head><body>")
    counts = Counter(outcome(s) for s in scenarios)
    w("<header><h1>Croupier evidence report</h1>")
    w(f"<p>{len(scenarios)} scenario(s): {counts['met']} met, {counts['not met']} not met, "
      f"{counts['not decisive']} not decisive, {counts['not applicable']} not applicable · bench "
      f"<code>{e((prov.get('bench') or {}).get('name'))}</code> · started {e(prov.get('started_utc'))}</p>")
    if manifest and manifest.get("sha256"):
        w(f"<p>manifest <code>{e(manifest.get('path', 'manifest.json'))}</code> SHA-256 "
          f"<code id=\"manifest-sha256\">{e(manifest['sha256'])}</code></p>")
    else:
        w("<p id=\"manifest-sha256\">no manifest</p>")
    w(f"<p>git <code>{e(prov.get('git_sha'))}</code>{' (dirty)' if prov.get('git_dirty') else ''}</p></header>")
    w("<nav><a href=\"#summary\">Summary</a><a href=\"#verdicts\">Verdicts</a><a href=\"#plots\">Plots</a>"
      "<a href=\"#traceability\">Traceability</a><a href=\"#provenance\">Provenance</a>"
      + ("<a href=\"#analysis\">Outcome analysis</a>" if analysis is not None else "")
      + "<a href=\"#details\">Scenarios and checks</a><a href=\"#regulation\">Regulation texts</a></nav><main>")

    # ---------------------------------------------------------------- summary
    w("<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">")
    for label, key in (("met", "met"), ("not met", "not met"), ("not decisive", "not decisive"),
                       ("not applicable", "not applicable")):
        w(f"<div class=\"card {_cls(key)}\"><b>{counts[key]}</b>{e(label)}</div>")
    checks_total = Counter(c["verdict"] for s in scenarios for c in s.get("checks", ()))
    expected_fail = sum(1 for s in scenarios for c in s.get("checks", ())
                        if c["verdict"] == "fail" and c["id"] in (s.get("expected_failures") or ()))
    w(f"<div class=\"card\"><b>{sum(checks_total.values())}</b>check verdicts: {checks_total['pass']} pass, "
      f"{checks_total['fail']} fail ({expected_fail} of them expected by a fault scenario), "
      f"{checks_total['indeterminate']} indeterminate</div></div>")
    if summary:
        w("<p class=\"muted\">report.json summary: " + ", ".join(f"{e(k)} {e(v)}" for k, v in summary.items()) + "</p>")
    if report.get("refused"):
        r = report["refused"]
        w(f"<p class=\"err\"><b>The bench refused to run on</b> ({e(r.get('kind'))}, role {e(r.get('role'))}) at "
          f"scenario {e(r.get('scenario'))}: {e(r.get('reason'))}. Only the scenarios before it are reported.</p>")
    games = Counter()
    per_game: dict[str, Counter] = {}
    for s in scenarios:
        g = game_of(s)
        games[g] += 1
        per_game.setdefault(g, Counter())[outcome(s)] += 1
    w("<table><tr><th>game</th><th>scenarios</th><th>met</th><th>not met</th><th>not decisive</th>"
      "<th>not applicable</th></tr>")
    for g, n in games.items():
        c = per_game[g]
        w(f"<tr><td>{e(g)}</td><td class=\"n\">{n}</td><td class=\"n\">{c['met']}</td><td class=\"n\">{c['not met']}"
          f"</td><td class=\"n\">{c['not decisive']}</td><td class=\"n\">{c['not applicable']}</td></tr>")
    w("</table></section>")

    # ---------------------------------------------------------------- verdicts
    w("<section id=\"verdicts\"><h2>Verdicts per scenario</h2><table><tr><th>scenario</th><th>game</th>"
      "<th>outcome</th><th>pass</th><th>fail</th><th>indet.</th><th>expected failures</th>"
      "<th>unexpected failures</th><th>missed failures</th><th>rounds</th><th>plots</th></tr>")
    plotted = Counter(f.scenario for f in figures if not f.error)
    for s in scenarios:
        v = Counter(c["verdict"] for c in s.get("checks", ()))
        sid = anchor("scn", s["name"])
        rounds = (s.get("stats") or {}).get("rounds", s.get("rounds_requested"))
        na = "; ".join(map(str, s.get("not_applicable") or ()))
        w(f"<tr><td><a href=\"#{sid}\">{e(s['name'])}</a></td><td>{e(game_of(s))}</td><td>{badge(outcome(s))}"
          f"{'<br><span class=muted>' + e(na) + '</span>' if na else ''}</td>"
          f"<td class=\"n\">{v['pass']}</td><td class=\"n\">{v['fail']}</td><td class=\"n\">{v['indeterminate']}</td>"
          f"<td>{e(', '.join(s.get('expected_failures') or ())) or '—'}</td>"
          f"<td>{e(', '.join(s.get('unexpected_failures') or ())) or '—'}</td>"
          f"<td>{e(', '.join(s.get('missed_failures') or ())) or '—'}</td>"
          f"<td class=\"n\">{e(rounds)}</td><td class=\"n\">{plotted.get(s['name'], '') or ''}</td></tr>")
    w("</table></section>")

    # ---------------------------------------------------------------- plots
    w("<section id=\"plots\"><h2>Plots</h2><p class=\"muted\">Drawn from the traces by the checks' own code "
      "(hil/plots.py): per plot kind, the table's headline scenario, and the scenarios where the check failed. "
      "docs/report.md says how each is derived.</p>")
    if not plots_enabled():
        w(f"<p class=\"err\">Plots not drawn: {PLOTS_ENV}={e(os.environ.get(PLOTS_ENV))}.</p>")
    for kind, (title, _ids) in PLOT_KINDS.items():
        mine = [f for f in figures if f.kind == kind]
        w(f"<h3 id=\"{anchor('plots', kind)}\">{e(title)}</h3>")
        if not mine:
            w(f"<p class=\"muted\" data-plot-kind=\"{e(kind)}\">No scenario of this run holds this evidence.</p>")
        for f in mine:
            fid = figure_id(f.kind, f.scenario, f.check_id)
            attrs = (f'id="{fid}" data-plot-kind="{e(kind)}" data-scenario="{e(f.scenario)}" '
                     f'data-check="{e(f.check_id)}" data-verdict="{e(f.verdict)}"')
            link = f"<a href=\"#{anchor('chk', f.scenario, f.check_id)}\">{e(f.scenario)} / {e(f.check_id)}</a>"
            verdict = badge(f.verdict) if f.verdict else ""
            if f.error:
                w(f"<figure {attrs}><figcaption class=\"err\">{link}: not drawn — "
                  f"{e(f.error)}</figcaption></figure>")
                continue
            w(f"<figure {attrs}>{f.svg}<figcaption>{link} {verdict} "
              f"{e(f.caption)}</figcaption></figure>")
    w("</section>")

    # ---------------------------------------------------------------- outcome analysis (croupier analyze)
    if analysis is not None:
        _analysis_section(w, analysis, analysis_figures or [])

    # ---------------------------------------------------------------- traceability
    _traceability(w, report)

    # ---------------------------------------------------------------- provenance
    w("<section id=\"provenance\"><h2>Provenance</h2><table>")
    for key in ("git_sha", "git_dirty", "started_utc", "finished_utc", "seed_override", "python", "platform", "host",
                "user"):
        if key in prov:
            w(f"<tr><th>{e(key)}</th><td><code>{e(prov[key])}</code></td></tr>")
    if "command" in prov:
        w(f"<tr><th>command</th><td><code>{e(' '.join(map(str, prov['command'] or ())))}</code></td></tr>")
    for key in ("bench", "rules", "roulette_x_rules"):
        d = prov.get(key)
        if isinstance(d, dict):
            w(f"<tr><th>{e(key)}</th><td>{e(d.get('name'))} · <code>{e(d.get('source'))}</code><br>SHA-256 "
              f"<code>{e(d.get('sha256'))}</code></td></tr>")
    w("<tr><th>manifest</th><td>" + (f"<code>{e(manifest.get('path'))}</code> SHA-256 <code>{e(manifest.get('sha256'))}"
      "</code>" if manifest else "no manifest") + "</td></tr>")
    pk = prov.get("packages") or {}
    w("<tr><th>packages</th><td>" + ", ".join(f"{e(k)} {e(v)}" for k, v in pk.items()) + "</td></tr></table>")
    files = prov.get("scenarios") or {}
    if files:
        w("<details><summary>scenario files, seeds and rounds</summary><table><tr><th>scenario</th><th>file</th>"
          "<th>SHA-256</th><th>seed</th><th>rounds</th></tr>")
        for name, d in files.items():
            w(f"<tr><td>{e(name)}</td><td><code>{e(d.get('file'))}</code></td><td><code>{e(d.get('sha256'))}</code></td>"
              f"<td class=\"n\">{e((prov.get('seeds') or {}).get(name))}</td>"
              f"<td class=\"n\">{e((prov.get('rounds_run') or {}).get(name))}</td></tr>")
        w("</table></details>")
    w("</section>")

    # ---------------------------------------------------------------- details
    texts: dict[str, str] = {}
    for s in scenarios:
        for c in s.get("checks", ()):
            texts.setdefault(c["id"], c.get("regulation") or "")
    w("<section id=\"details\"><h2>Scenarios and checks</h2><div id=\"tools\" hidden><button id=\"expand\" "
      "type=\"button\">expand all</button> <button id=\"collapse\" type=\"button\">collapse all</button></div>")
    for s in scenarios:
        sid = anchor("scn", s["name"])
        w(f"<details id=\"{sid}\" data-scenario=\"{e(s['name'])}\"><summary><b>{e(s['name'])}</b> {badge(outcome(s))} "
          f"<span class=\"muted\">{e(game_of(s))} · {len(s.get('checks', ()))} checks</span></summary>")
        if s.get("description"):
            w(f"<p>{e(s['description'])}</p>")
        w(f"<p class=\"muted\">file <code>{e(s.get('file'))}</code> · SHA-256 <code>{e(s.get('sha256'))}</code> · seed "
          f"{e(s.get('seed'))} · trace <code>{e(s.get('trace'))}</code> · wall {e(s.get('wall_s'))} s</p>")
        if s.get("error"):
            w(f"<p class=\"err\">error: {e(s['error'])}</p>")
        for reason in s.get("not_applicable") or ():
            w(f"<p class=\"muted\">not applicable: {e(reason)}</p>")
        stats = s.get("stats") or {}
        if stats:
            w("<p class=\"muted\">stats: " + ", ".join(f"{e(k)} {_fmt(v)}" for k, v in stats.items()) + "</p>")
        expected = set(s.get("expected_failures") or ())
        for c in s.get("checks", ()):
            cid = anchor("chk", s["name"], c["id"])
            tag = " <span class=\"muted\">(expected FAIL)</span>" if c["id"] in expected else ""
            w(f"<details id=\"{cid}\" data-check=\"{e(c['id'])}\"><summary>{badge(c['verdict'])} <code>{e(c['id'])}"
              f"</code> {e(c.get('title'))}{tag}</summary>")
            w(f"<p><b>{e(c.get('section'))}</b> — {e(c.get('summary'))}</p>")
            reg = c.get("regulation") or ""
            if reg != texts.get(c["id"]):
                w(f"<div class=\"reg\">{e(reg)}</div>")
            else:  # the full text once, under "Regulation texts": here its opening words
                lead = reg if len(reg) <= 200 else reg[:reg.rfind(" ", 0, 190)] + " …"
                w(f"<div class=\"reg\">{e(lead)} <a href=\"#{anchor('reg', c['id'])}\">full text</a></div>")
            ms = c.get("measurements") or []
            if ms:
                w("<table><tr><th>measurement</th><th>value</th><th>unit</th><th>bracket</th><th>limit</th></tr>")
                for m in ms:
                    br = m.get("bracket")
                    brs = f"[{_fmt(br[0])}, {_fmt(br[1])}]" if br else ""
                    w(f"<tr><td>{e(m.get('name'))}</td><td class=\"n\">{_fmt(m.get('value'))}</td><td>{e(m.get('unit'))}"
                      f"</td><td>{brs}</td><td>{e(m.get('limit') or '')}</td></tr>")
                w("</table>")
            fs = c.get("findings") or []
            total = c.get("findings_total", len(fs))
            if fs:
                w("<ul class=\"findings\">")
                for f in fs:
                    where = f"round {f.get('round')}" + (f", event {f.get('seq')}" if f.get("seq") is not None else "")
                    w(f"<li><b>{e(where)}</b>: {e(f.get('message'))}</li>")
                w("</ul>")
                if total > len(fs):
                    w(f"<p class=\"muted\">… and {total - len(fs)} more finding(s) (report.json lists the first "
                      f"{len(fs)})</p>")
            elif c["verdict"] != "pass":
                w("<p class=\"muted\">no findings</p>")
            for f in figs_by_check.get((s["name"], c["id"]), ()):
                w(f"<p>plot: <a href=\"#{figure_id(f.kind, f.scenario, f.check_id)}\">{e(PLOT_KINDS[f.kind][0])}</a></p>")
            w("</details>")
        w("</details>")
    w("</section>")

    # ---------------------------------------------------------------- regulation texts
    w("<section id=\"regulation\"><h2>Regulation texts of the checks</h2><p class=\"muted\">Each check's docstring, "
      "in the regulation's words (58 Pa. Code); the traceability matrix maps them to clauses.</p>")
    cov = report.get("coverage") or {}
    for cid, text in sorted(texts.items()):
        w(f"<div id=\"{anchor('reg', cid)}\"><h3><code>{e(cid)}</code> {e((cov.get(cid) or {}).get('section', ''))}"
          f"</h3><div class=\"reg\">{e(text)}</div></div>")
    w("</section></main>")
    w(f"<script>{_JS}</script></body></html>\n")
    return "".join(out)


def _traceability(w, report: dict[str, Any]) -> None:
    cov = report.get("coverage") or {}
    cc = report.get("clause_coverage") or {}
    w("<section id=\"traceability\"><h2>Traceability matrix</h2>")
    statuses = ("fault-proven", "checked", "out of scope", "not covered")
    counts = cc.get("counts") or {}
    if counts:
        w(f"<p><b>{e(counts.get('clauses', ''))} clauses</b> of the supplied sections in this run: "
          + ", ".join(f"{e(counts.get(k, 0))} {badge(k)}" for k in statuses) + "</p>")
    for title, key in (("by game", "by_game"), ("by section", "by_section")):
        rows = cc.get(key) or {}
        if not rows:
            continue
        w(f"<h3>Clauses {e(title)}</h3><table><tr><th>{e(title[3:])}</th>"
          + "".join(f"<th>{e(s)}</th>" for s in statuses) + "</tr>")
        for name, c in rows.items():
            w(f"<tr><td>{e(name)}</td>" + "".join(f"<td class=\"n\">{e(c.get(s, 0))}</td>" for s in statuses) + "</tr>")
        w("</table>")
    if cov:
        w("<h3>Checks: section, clauses, proven able to fail by</h3><table id=\"coverage\"><tr><th>check</th><th>section</th>"
          "<th>clauses</th><th>failed as expected in</th></tr>")
        for cid, c in sorted(cov.items()):
            proven = c.get("failed_as_expected_by") or []
            w(f"<tr><td><a href=\"#{anchor('reg', cid)}\"><code>{e(cid)}</code></a></td><td>{e(c.get('section'))}</td>"
              f"<td>{e(', '.join(c.get('clauses') or ()))}</td><td>"
              + (e(", ".join(proven)) if proven else "<span class=\"badge fail\">not proven in this run</span>")
              + "</td></tr>")
        w("</table>")
    clauses = cc.get("clauses") or {}
    if clauses:
        w(f"<details><summary>every clause ({len(clauses)}): status, citing checks, proven by</summary><table><tr>"
          "<th>clause</th><th>status</th><th>checks</th><th>proven by</th></tr>")
        for cl, d in clauses.items():
            w(f"<tr><td>{e(cl)}</td><td>{badge(str(d.get('status')))}</td><td>{e(', '.join(d.get('checks') or ()))}</td>"
              f"<td>{e(', '.join(map(str, d.get('proven_by') or ())))}</td></tr>")
        w("</table></details>")
    not_cov = cc.get("not_covered") or []
    if not_cov:
        w("<p class=\"err\">not covered in this run: " + e(", ".join(not_cov)) + "</p>")
    w("</section>")


#: ``croupier analyze OUT``'s analysis beside the report (hil.analyze.ANALYSIS_NAME)
ANALYSIS_FILE = "analysis.json"


def load_analysis(report: dict[str, Any], out_dir: Path) -> dict[str, Any] | None:
    """``out_dir/analysis.json`` (``croupier analyze OUT``), or None when there is none. One that
    cannot be read, or that names another run's manifest, is returned as ``{"stale": reason}``: the
    page says so and shows none of it (never the analysis of another run)."""
    import json

    path = Path(out_dir) / ANALYSIS_FILE
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("datasets"), list):
            raise ValueError("not an analysis")
    except (OSError, ValueError) as exc:
        return {"stale": f"{ANALYSIS_FILE} cannot be read ({exc})"}
    mine = (report.get("manifest") or {}).get("sha256")
    if doc.get("manifest_sha256") != mine:
        return {"stale": f"{ANALYSIS_FILE} is the analysis of another run (manifest {doc.get('manifest_sha256')}, "
                         f"this run's {mine}): run croupier analyze on this folder again"}
    return doc


def _analysis_section(w, doc: dict[str, Any], figures: list[Figure]) -> None:
    """The "Outcome analysis" section: ``croupier analyze OUT``'s verdict, its correction, one row per
    battery (a data set, or one dealer's plays), the failed tests, and the figures (hil.plots)."""
    w("<section id=\"analysis\"><h2>Outcome analysis</h2>")
    if doc.get("stale"):
        w(f"<p class=\"err\" data-analysis=\"stale\">Not shown: {e(doc['stale'])}.</p></section>")
        return
    fam = doc.get("family") or {}
    w(f"<p data-analysis-verdict=\"{e(doc.get('verdict'))}\">{badge(str(doc.get('verdict')))} "
      f"<code>croupier analyze</code> of the devices' own reports in the traces (docs/analyze.md), "
      f"written {e(doc.get('written_utc'))}: {e(fam.get('rule'))}.</p>")
    if doc.get("off_alphabet"):
        w(f"<p class=\"err\">{e(doc['off_alphabet'])} result(s) reported that the device cannot produce.</p>")
    tests = doc.get("tests") or []
    w("<table id=\"analysis-batteries\"><tr><th>data set</th><th>scenario</th><th>dealer</th><th>alphabet</th>"
      "<th>plays</th><th>left out</th><th>tests</th><th>failed</th><th>smallest adj. p</th><th>verdict</th></tr>")
    order = {"fail": 0, "undecided": 1}  # the failed data sets first, then the undecided, in their order
    for d in sorted(doc["datasets"], key=lambda d: order.get(str(d.get("verdict")), 2)):
        mine = [t for t in tests if t.get("dataset") == d.get("id")]
        ps = [t["p_adjusted"] for t in mine if isinstance(t.get("p_adjusted"), (int, float))]
        left = ", ".join(f"{k} {v}" for k, v in (d.get("excluded") or {}).items()) or "—"
        fault = " (fault scenario)" if d.get("expected_failures") else ""
        w(f"<tr id=\"{anchor('analysis', str(d.get('id')))}\"><td>{e(d.get('name'))}<br><span class=\"muted\">"
          f"{e(d.get('source'))}</span></td><td>{e(d.get('scenario') or '—')}{e(fault)}</td><td>{e(d.get('dealer') or '—')}"
          f"</td><td>{e(d.get('alphabet'))}</td><td class=\"n\">{e(d.get('n'))}</td><td>{e(left)}</td>"
          f"<td class=\"n\">{len(mine)}</td><td class=\"n\">{sum(t.get('verdict') == 'fail' for t in mine)}</td>"
          f"<td class=\"n\">{_fmt(min(ps)) if ps else '—'}</td><td>{badge(str(d.get('verdict')))}</td></tr>")
    w("</table>")
    failed = [t for t in tests if t.get("verdict") == "fail"]
    if failed:
        w("<h3>Failed tests</h3><table><tr><th>data set</th><th>test</th><th>column / split</th><th>n</th>"
          "<th>statistic</th><th>p</th><th>adj. p</th><th>null hypothesis</th></tr>")
        for t in failed:
            w(f"<tr><td>{e(t.get('source'))}</td><td>{e(t.get('test'))}</td><td>{e(t.get('column'))} / {e(t.get('split'))}"
              f"</td><td class=\"n\">{e(t.get('n'))}</td><td class=\"n\">{e(t.get('statistic_name'))} "
              f"{_fmt(t.get('statistic'))}</td><td class=\"n\">{_fmt(t.get('p_value'))}</td>"
              f"<td class=\"n\">{_fmt(t.get('p_adjusted'))}</td><td>{e(t.get('null'))}</td></tr>")
        w("</table>")
    thin = doc.get("thin") or []
    if thin:
        w(f"<details><summary>Evidence thin: {len(thin)} test(s) too few or weak for lack of data</summary>"
          "<ul class=\"findings\">" + "".join(f"<li>{e(x)}</li>" for x in thin) + "</ul></details>")
    if not plots_enabled():
        w(f"<p class=\"err\">Plots not drawn: {PLOTS_ENV}={e(os.environ.get(PLOTS_ENV))}.</p>")
    for f in figures:
        attrs = f'id="{anchor("analysis-fig", f.check_id, f.kind)}" data-plot-kind="{e(f.kind)}" data-dataset="{e(f.check_id)}"'
        if f.error:
            w(f"<figure {attrs}><figcaption class=\"err\">{e(f.scenario)}: not drawn — {e(f.error)}</figcaption></figure>")
        else:
            w(f"<figure {attrs}>{f.svg}<figcaption>{badge(f.verdict or '')} {e(f.caption)}</figcaption></figure>")
    w("</section>")


def write_html(report: dict[str, Any], out_dir: Path, *, jobs: int | None = None) -> Path:
    """Write ``out_dir/report.html`` for ``report`` (``report.json``'s content), its plots drawn from
    the traces under ``out_dir``; returns its path."""
    out_dir = Path(out_dir)
    started = time.perf_counter()
    figures = _figures(report, out_dir, jobs)
    analysis = load_analysis(report, out_dir)
    analysis_figs = []
    if analysis is not None and not analysis.get("stale") and plots_enabled():
        from hil.plots import analysis_figures

        analysis_figs = analysis_figures(analysis)
    path = out_dir / "report.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(render(report, figures, analysis, analysis_figs), encoding="utf-8")
    tmp.replace(path)
    _log.info("wrote %s", path, extra={"figures": len(figures), "bytes": path.stat().st_size,
                                       "duration_s": round(time.perf_counter() - started, 3)})
    return path
