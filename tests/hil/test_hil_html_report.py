"""report.html as a person sees it: one self-contained page, parsed strictly, validated, and rendered
offline in headless Chromium where the machine has it.

One tiny run (three scenarios, five rounds each, in-process) feeds every test: Crazy Time's normal
play (lock-out, Top Slot, χ², RTP), Roulette's normal play (meter) and the weak push (void spins).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import html5lib
import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.html_report import PLOTS_ENV, anchor, render
from hil.plots import PLOT_KINDS, plot_scenario, select

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("scenarios/crazy_time/normal_play.yaml", "scenarios/roulette/roulette_normal_play.yaml",
             "scenarios/crazy_time/fault_weak_push.yaml")
#: attributes that fetch or navigate: on this page only to a fragment of itself
REFERENCING = {"src", "href", "xlink:href", "action", "formaction", "data", "poster", "srcset", "background",
               "cite", "longdesc", "manifest", "ping"}
FORBIDDEN_TAGS = {"link", "iframe", "img", "object", "embed", "base", "frame", "audio", "video", "source", "image"}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("html-run")
    before = os.environ.get(PLOTS_ENV)
    os.environ[PLOTS_ENV] = "1"  # tests/conftest.py turns the plots off for the suite's other runs
    try:
        res = CliRunner().invoke(app, ["run", *[str(ROOT / s) for s in SCENARIOS], "--out", str(out),
                                       "--max-rounds", "5", "--jobs", "1", "-q"])
    finally:
        if before is None:
            os.environ.pop(PLOTS_ENV, None)
        else:
            os.environ[PLOTS_ENV] = before
    assert res.exit_code in (0, 3), res.output  # met, or not decisive on five rounds: never a failure
    report = json.loads((out / "report.json").read_text())
    page = out / "report.html"
    assert page.exists(), "croupier run did not write report.html"
    return out, report, page


def parse(page: Path):
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(page.read_bytes())  # strict: raises on the first parse error


def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def test_the_page_parses_strictly_and_references_nothing_outside_itself(run):
    _out, _report, page = run
    doc = parse(page)
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        tag = local(el.tag)
        assert tag not in FORBIDDEN_TAGS, f"<{tag}> loads something"
        if tag == "script":
            assert "src" not in el.attrib, "an external script"
        if tag == "style":
            css = el.text or ""
            assert "@import" not in css and "url(" not in css.replace("url(#", ""), "CSS fetching a resource"
        for name, value in el.attrib.items():
            name = local(name) if name.startswith("{") else name
            if name in REFERENCING or name.endswith(":href"):
                assert value.startswith("#"), f"<{tag} {name}={value!r}> points outside the page"
            if name == "style":
                assert "url(" not in value.replace("url(#", ""), f"<{tag} style={value!r}>"


def test_every_scenario_check_and_plot_kind_is_there_and_ids_are_unique(run):
    _out, report, page = run
    doc = parse(page)
    ids = [el.get("id") for el in doc.iter() if isinstance(el.tag, str) and el.get("id")]
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes, f"ids used more than once: {sorted(dupes)[:10]}"
    idset = set(ids)
    assert report["scenarios"]
    for s in report["scenarios"]:
        assert anchor("scn", s["name"]) in idset, s["name"]
        assert s["checks"], s["name"]
        for c in s["checks"]:
            assert anchor("chk", s["name"], c["id"]) in idset, (s["name"], c["id"])
    figures = [el for el in doc.iter() if isinstance(el.tag, str) and local(el.tag) == "figure"]
    kinds = {f.get("data-plot-kind") for f in figures if any(local(x.tag) == "svg" for x in f.iter() if isinstance(x.tag, str))}
    assert kinds == set(PLOT_KINDS), f"plot kinds drawn: {sorted(kinds)}; missing {sorted(set(PLOT_KINDS) - kinds)}"
    # each figure's verdict is its check's verdict in report.json
    verdicts = {(s["name"], c["id"]): c["verdict"] for s in report["scenarios"] for c in s["checks"]}
    for f in figures:
        assert f.get("data-verdict") == verdicts[(f.get("data-scenario"), f.get("data-check"))]
    text = page.read_text()
    manifest = report.get("manifest")
    if manifest:  # the run's manifest.json (hil.pack), by its hash
        assert f'<code id="manifest-sha256">{manifest["sha256"]}</code>' in text
    else:
        assert '<p id="manifest-sha256">no manifest</p>' in text
    assert page.stat().st_size < 10 * 2**20


def test_the_plotted_values_are_the_checks_own(run):
    out, report, _page = run
    by = {s["name"]: s for s in report["scenarios"]}
    picks = select(report)
    assert "normal-play" in picks
    s = by["normal-play"]
    figs = {(f.kind, f.check_id): f for f in plot_scenario(("normal-play", str(out / s["trace"]), picks["normal-play"], {}))}
    meas = {c["id"]: {m["name"]: m for m in c["measurements"]} for c in s["checks"]}
    lock = figs["lockout", "CT-lockout"].data
    assert len(lock["rounds"]) == meas["CT-lockout"]["rounds_bracketed"]["value"]
    if lock["rounds"]:
        worst = meas["CT-lockout"]["lockout_latency_max"]["bracket"]
        assert max(lock["lower_ms"]) == pytest.approx(worst[0] * 1e3)
        assert max(lock["upper_ms"]) == pytest.approx(worst[1] * 1e3)
    chi2 = figs["chi2", "CT-690.1a-section-chi2"].data["pooled"]
    assert sum(chi2["observed"]) == meas["CT-690.1a-section-chi2"]["spins"]["value"]
    offs = figs["timing", "CT-690.3-top-slot"].data["offsets_ms"]
    assert max(offs, key=abs) == pytest.approx(meas["CT-690.3-top-slot"]["start_offset_worst"]["value"] * 1e3)
    rtp = figs["rtp", "CT-690.2e-settlement"].data
    assert len(rtp["rounds"]) == meas["CT-690.2e-settlement"]["rounds_settled"]["value"]
    # the exact RTP of the wagers made (rules/rtp.py): a stake-weighted mean of the wagers' exact RTPs
    # under the Rules Submission on record, so within their range (0.5 < x < 1 could not fail)
    from importlib import resources

    from rules.rtp import crazy_time_rtp
    from rules.submission import parse_rules_submission
    text = resources.files("rules").joinpath("data/crazy_time_reference.toml").read_text(encoding="utf-8")
    wagers = [float(w.rtp_exact) for w in crazy_time_rtp(parse_rules_submission(text))]
    assert rtp["exact"] and all(min(wagers) - 1e-12 <= x <= max(wagers) + 1e-12 for x in rtp["exact"]), (rtp["exact"], wagers)
    hist = figs["timing", "CT-lockout"].data  # the latency distribution: the same brackets
    assert sorted(hist["lower_ms"]) == sorted(lock["lower_ms"]) and sorted(hist["upper_ms"]) == sorted(lock["upper_ms"])


def test_an_unreadable_or_missing_trace_is_a_figure_saying_so(run, tmp_path, monkeypatch):
    (tmp_path / "t.sqlite").write_bytes(b"not a trace")
    figs = plot_scenario(("x", str(tmp_path / "t.sqlite"), [("lockout", "CT-lockout")], {}))
    assert len(figs) == 1 and figs[0].error and not figs[0].svg
    _out, report, _page = run
    from hil.html_report import _figures

    monkeypatch.setenv(PLOTS_ENV, "1")
    figs = _figures(report, tmp_path)  # no traces there
    assert figs and all(f.error and f.error.startswith("no trace at ") for f in figs)
    page = render(report, figs)
    assert "not drawn — no trace at traces/normal-play.sqlite" in page


def test_without_plots_the_page_says_so(run, monkeypatch):
    _out, report, _page = run
    monkeypatch.setenv(PLOTS_ENV, "0")
    from hil.html_report import _figures

    assert _figures(report, _out) == []
    assert "Plots not drawn: CROUPIER_REPORT_PLOTS=0" in render(report, [])


def test_the_manifest_hash_is_shown_and_its_absence_said(run):
    _out, report, _page = run
    page = render({**report, "manifest": {"path": "manifest.json", "sha256": "ab" * 32}}, [])
    assert f'<code id="manifest-sha256">{"ab" * 32}</code>' in page
    html5lib.HTMLParser(strict=True).parse(page)
    bare = {k: v for k, v in report.items() if k != "manifest"}
    assert '<p id="manifest-sha256">no manifest</p>' in render(bare, [])


CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine: the page is parsed and validated only")
def test_it_renders_offline_in_headless_chromium(run, tmp_path):
    _out, _report, page = run
    shot = tmp_path / "shot.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", "--host-resolver-rules=MAP * ~NOTFOUND",
           f"--screenshot={shot}", "--window-size=1280,2400", page.as_uri()]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=120)
    finally:  # the browser's own helpers too: its session is ours (started above), ended by its id
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    assert shot.exists(), output.decode(errors="replace")[-2000:]
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1280, 2400)
        colours = im.convert("RGB").getcolors(maxcolors=1 << 16)
    # a blank page is one colour; the report has a header band, badges, tables and text
    assert colours is None or len(colours) > 50, f"{len(colours)} colours: the page looks blank"


def test_a_refused_run_and_a_scenario_not_applicable_render(run):
    _out, report, _page = run
    na = {"name": "fault-on-a-real-wheel", "file": "scenarios/crazy_time/x.yaml", "not_applicable": [
        "the bench's wheel is a real device: fault weak_push cannot be applied"], "expectation_met": None,
        "checks": [], "trace": None, "expected_failures": ["CT-690.2b-three-revolutions"]}
    refused = {"kind": "unreachable", "role": "wheel", "scenario": "normal-play", "reason": "tcp://127.0.0.1:1 refused"}
    page = render({**report, "scenarios": [*report["scenarios"], na], "refused": refused}, [])
    html5lib.HTMLParser(strict=True).parse(page)
    assert "The bench refused to run on" in page and "tcp://127.0.0.1:1 refused" in page
    assert f'id="{anchor("scn", "fault-on-a-real-wheel")}"' in page
    assert "fault weak_push cannot be applied" in page and "not applicable" in page
