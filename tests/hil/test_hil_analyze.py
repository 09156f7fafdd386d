"""``croupier analyze`` (issue 15; docs/analyze.md "The command"): every source read right, the JSON
shape, the exit statuses, every bad input a one-line error (exit 2), a biased log flagged and a fair
one passed, and the "Outcome analysis" section of report.html (strict HTML, pack and verify still
work on the folder).

One tiny run (Crazy Time's Pachinko bonus and Roulette X normal play, five rounds each, in-process)
is made once for the module; the verdict tests use plain CSVs generated here with fixed seeds.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import html5lib
import numpy as np
import pytest
from typer.testing import CliRunner

from hil.analyze import AnalyzeError, analyze, read
from hil.cli import app
from hil.html_report import PLOTS_ENV
from hil.trace import TraceReader

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("scenarios/crazy_time/bonus_pachinko.yaml", "scenarios/roulette/roulette_normal_play.yaml")
SLINGSHOT_LOG = ROOT / "tests/fixtures/slingshot/live-wheel.log"
#: the European wheel's order (devices.roulette_wheel.POCKET_ORDER), written out: the test's own oracle
EUROPEAN = (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9,
            22, 18, 29, 7, 28, 12, 35, 3, 26)


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("analyze-run")
    res = cli("run", *[str(ROOT / s) for s in SCENARIOS], "--out", str(out), "--max-rounds", "5", "--jobs", "1", "-q")
    assert res.exit_code in (0, 3), res.output  # met, or not decisive on five rounds
    return out


def trace_events(path: Path, device: str, kind: str) -> list[dict]:
    with TraceReader(path) as r:
        return [e.payload for e in r.events() if e.device == device and e.kind == kind]


def by_name(sets):
    return {d.name: d for d in sets}


def write_csv(path: Path, header: list[str], rows) -> Path:
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return path


def roulette_log(tmp_path: Path, name: str, seed: int, n: int = 3700, hot: int | None = None, factor: float = 1.0,
                 dealers: tuple[str, ...] = (), hot_dealer: str | None = None) -> Path:
    """A plain CSV of ``n`` single-zero spins (fixed seed): uniform, or pocket ``hot`` ``factor`` times
    as likely (for every dealer, or only ``hot_dealer``'s spins)."""
    rng = np.random.default_rng(seed)
    fair = np.full(37, 1 / 37)
    biased = fair.copy()
    if hot is not None:
        biased[hot] *= factor
        biased /= biased.sum()
    rows = []
    for i in range(n):
        dealer = dealers[i % len(dealers)] if dealers else None
        p = biased if hot is not None and (hot_dealer is None or dealer == hot_dealer) else fair
        row = [int(rng.choice(37, p=p)), "cw" if i % 2 else "ccw", f"{30.0 * i:.1f}", i + 1]
        rows.append(row + ([dealer] if dealers else []))
    return write_csv(tmp_path / name, ["result", "direction", "time", "spin"] + (["dealer"] if dealers else []), rows)


# --------------------------------------------------------------------------- sources read right
def test_a_run_folder_gives_each_device_kind_from_the_devices_own_reports(run):
    sets = by_name(read(run))
    assert {"money wheel", "pachinko landings", "pachinko board values", "roulette ball wheel"} <= set(sets)
    ct, rx = run / "traces" / "bonus-pachinko.sqlite", run / "traces" / "roulette-normal-play.sqlite"
    # the money wheel: the wheel's spin_stop sections, direction, with the Top Slot's reels of the same spin
    wheel = sets["money wheel"].data
    stops = [p for p in trace_events(ct, "wheel", "spin_stop") if not p["on_peg"]]
    assert wheel.results.tolist() == [p["section_index"] for p in stops]
    assert wheel.direction.tolist() == [1 if p["direction"] == "cw" else -1 for p in stops]
    assert wheel.alphabet.kind == "money-wheel sections" and wheel.alphabet.circular
    tops = {p["spin_id"]: p for p in trace_events(ct, "top_slot", "top_slot_stop")}
    reel1, reel2 = wheel.columns["top_slot_reel1"], wheel.columns["top_slot_reel2"]
    assert [reel1[0].symbols[i] for i in reel1[1]] == [tops[p["spin_id"]]["spot"] for p in stops]
    assert [reel2[0].symbols[i] for i in reel2[1]] == [f"{tops[p['spin_id']]['multiplier']}x" for p in stops]
    assert "top_slot_aligned" in wheel.columns
    # Pachinko: each landing spot of the puck; the board values of every generated board, Doubles left out
    landed = trace_events(ct, "pachinko", "puck_landed")
    assert [int(sets["pachinko landings"].data.alphabet.symbols[i]) for i in sets["pachinko landings"].data.results] \
        == [p["spot"] for p in landed]
    boards = trace_events(ct, "board", "board_generated")
    cells = [v for b in boards for v in b["values"]]
    board = sets["pachinko board values"]
    assert board.data.n == sum(v != 0 for v in cells) and board.excluded.get("Double cells", 0) == cells.count(0)
    # the ball wheel: the pockets it reported, with the lit numbers of the round as a 2-D column
    ball = sets["roulette ball wheel"].data
    results = trace_events(rx, "ball_wheel", "ball_result")
    assert [ball.alphabet.symbols[i] for i in ball.results] == [str(p["pocket"]) for p in results]
    assert ball.alphabet.kind == "roulette double-zero"
    lit_alpha, lit = ball.columns["lit_numbers"]
    lights = trace_events(rx, "illuminator", "illumination")
    assert [[lit_alpha.symbols[i] for i in row if i >= 0] for row in lit] == [[str(x) for x in L["numbers"]] for L in lights]
    assert ball.columns["lit_count"][1].tolist() == [
        ball.columns["lit_count"][0].symbols.index(str(len(L["numbers"]))) for L in lights]


def test_a_trace_reads_as_its_part_of_the_run_folder(run):
    one = by_name(read(run / "traces" / "roulette-normal-play.sqlite"))
    folder = by_name(read(run))
    assert set(one) == {"roulette ball wheel"}
    assert one["roulette ball wheel"].data.results.tolist() == folder["roulette ball wheel"].data.results.tolist()
    assert one["roulette ball wheel"].scenario == "roulette-normal-play"


def test_outcomes_csv_and_json_read_as_the_trace(run, tmp_path):
    trace = run / "traces" / "roulette-normal-play.sqlite"
    want = read(trace)[0].data
    for flag, name in (("--csv", "outcomes.csv"), ("--json", "outcomes.json")):
        res = cli("outcomes", str(trace), flag)
        assert res.exit_code == 0, res.output
        f = tmp_path / name
        f.write_text(res.stdout, encoding="utf-8")
        got = read(f, wheel="double")[0].data
        assert got.alphabet == want.alphabet
        assert got.results.tolist() == want.results.tolist() and got.direction.tolist() == want.direction.tolist()
        assert got.spin.tolist() == want.spin.tolist()


def test_outcomes_of_a_run_folder_are_one_data_set_per_trace(run, tmp_path):
    from hil.outcomes import from_trace

    a, b = (from_trace(run / "traces" / "roulette-normal-play.sqlite") for _ in range(2))
    for r in b.rows:  # the same games, as if from a second trace
        r.source = "second.sqlite"
    a.rows += b.rows
    f = tmp_path / "two.csv"
    f.write_text(a.to_csv(), encoding="utf-8")
    sets = read(f, wheel="double")
    assert len(sets) == 2 and sets[0].data.results.tolist() == sets[1].data.results.tolist()
    assert sets[1].name == "roulette outcomes of second.sqlite" and sets[0].data.n == 5


def test_a_slingshot_log_is_read_by_the_rigs_own_tracker():
    (d,) = read(SLINGSHOT_LOG, "slingshot")
    assert [EUROPEAN[i] for i in d.data.results] == [27, 15, 6, 0, 32, 9]  # the six games the fixture states
    assert d.excluded == {"void: power_off": 1}  # game 017, cut by a power-off
    assert set(d.data.direction.tolist()) == {1, -1}
    assert d.data.time is not None and np.all(np.diff(d.data.time) > 0)


def test_a_plain_csv_with_optional_columns(tmp_path):
    f = write_csv(tmp_path / "log.csv", ["spin", "result", "direction", "dealer", "time"],
                  [[1, 17, "clockwise", "Ann", "2026-12-01T10:00:00Z"], [2, "00", "ccw", "Bob", "2026-12-01T10:00:30Z"],
                   [3, 0, "", "Ann", "2026-12-01T10:01:00Z"]])
    (d,) = read(f)
    assert d.data.alphabet.kind == "roulette double-zero"  # "00": the file says which wheel
    assert [d.data.alphabet.symbols[i] for i in d.data.results] == ["17", "00", "0"]
    assert d.data.direction.tolist() == [1, -1, 0]
    assert d.data.dealer.tolist() == ["Ann", "Bob", "Ann"]
    assert d.data.time.tolist() == [0.0, 30.0, 60.0]
    # a money wheel log by section index, and one by symbol
    (m,) = read(write_csv(tmp_path / "mw.csv", ["result"], [[0], [53], [5]]), wheel="money-wheel")
    assert [m.data.alphabet.symbols[i] for i in m.data.results] == ["0:1", "53:crazy-time", "5:pachinko"]
    (s,) = read(write_csv(tmp_path / "spots.csv", ["result"], [["pachinko"], ["1"], ["coin-flip"]]))
    assert s.data.alphabet.kind == "money-wheel spots"


# --------------------------------------------------------------------------- verdicts, JSON, exit statuses
def test_a_fair_log_passes_and_the_json_has_one_entry_per_test(tmp_path):
    f = roulette_log(tmp_path, "fair.csv", seed=20261202)
    res = cli("analyze", str(f), "--wheel", "single", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["verdict"] == "pass" and doc["alpha"] == 0.01 and doc["correction"] == "holm"
    assert "Bonferroni" in doc["family"]["rule"] and isinstance(doc["thin"], list)
    names = {(t["test"], t["split"]) for t in doc["tests"]}
    assert {("chi2", "all"), ("chi2_per_symbol", "all"), ("runs", "all"), ("serial_transition", "all"),
            ("serial_autocorrelation", "all"), ("distance", "all"), ("chi2", "clockwise"),
            ("chi2", "anticlockwise"), ("direction_homogeneity", "direction")} <= names
    for t in doc["tests"]:
        assert {"statistic", "p_value", "verdict", "n", "dataset"} <= set(t)
        assert t["verdict"] in ("pass", "fail", "too few")
    assert all(t["verdict"] == "pass" for t in doc["tests"] if t["p_value"] is not None)


def test_a_hot_pocket_is_flagged(tmp_path):
    f = roulette_log(tmp_path, "hot.csv", seed=7, hot=17, factor=2.0)
    res = cli("analyze", str(f), "--wheel", "single", "--json")
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    assert doc["verdict"] == "fail"
    assert any(t["test"] == "chi2_per_symbol" and t["verdict"] == "fail" for t in doc["tests"])
    table = cli("analyze", str(f), "--wheel", "single")
    assert table.exit_code == 1 and "FAIL" in table.stdout


def test_a_dealer_split_shows_one_dealers_bias(tmp_path):
    f = roulette_log(tmp_path, "dealers.csv", seed=11, n=7400, hot=17, factor=2.2, dealers=("Ann", "Bob"),
                     hot_dealer="Bob")
    a = analyze(read(f, wheel="single"))
    verdicts = {j.dealer: j.verdict for j in a.judged}
    assert set(verdicts) == {None, "Ann", "Bob"}
    assert verdicts["Bob"] == "fail" and verdicts["Ann"] == "pass" and a.verdict == "fail"
    assert a.alpha_each == pytest.approx(0.01 / 3)  # the family: the data set and each dealer's plays


def test_too_few_plays_is_undecided_and_said_loudly(tmp_path):
    f = write_csv(tmp_path / "short.csv", ["result"], [[i % 37] for i in range(20)])
    res = cli("analyze", str(f), "--wheel", "single")
    assert res.exit_code == 3, res.output
    assert "UNDECIDED" in res.stdout and "too few" in res.stdout
    assert cli("analyze", str(f), "--wheel", "single", "-q").stdout.count("\n") == 1


def test_a_device_report_off_its_alphabet_fails(run, tmp_path):
    from tests.hil import trace_surgery

    copy = tmp_path / "off.sqlite"
    shutil.copy(run / "traces" / "bonus-pachinko.sqlite", copy)

    done = []

    def fn(n, rows, state):  # the first spin of the trace stops on a section the wheel does not have
        hit = [r for r in rows if r[3] == "wheel" and r[4] == "spin_stop"][:1 - len(done)]
        for r in hit:
            r[5] = dict(r[5], section_index=60, on_peg=False)
            done.append(r)
        return (rows, state) if hit else None

    trace_surgery.rewrite(copy, fn, relink=True)
    sets = by_name(read(copy))
    assert sets["money wheel"].off_alphabet == {"60": 1}
    a = analyze(list(sets.values()))
    assert a.verdict == "fail" and next(j for j in a.judged if j.dataset.name == "money wheel").verdict == "fail"
    assert cli("analyze", str(copy)).exit_code == 1


def test_void_spins_are_left_out_and_counted(run, tmp_path):
    from tests.hil import trace_surgery

    copy = tmp_path / "void.sqlite"
    shutil.copy(run / "traces" / "roulette-normal-play.sqlite", copy)
    ct = tmp_path / "void-ct.sqlite"
    shutil.copy(run / "traces" / "bonus-pachinko.sqlite", ct)
    voided = []

    def misspin(n, rows, state):  # the wheel's own report says misspin: the croupier's word is not needed
        hit = [r for r in rows if r[3] == "ball_wheel" and r[4] == "ball_result"][:2 - len(voided)]
        for r in hit:
            r[5] = dict(r[5], misspin=True)
            voided.append(r)
        return (rows, state) if hit else None

    trace_surgery.rewrite(copy, misspin, relink=True)
    ball = read(copy)[0]
    assert ball.data.n == 3 and ball.excluded == {"void: misspin": 2} and ball.void == 2
    pegged = []

    def on_peg(n, rows, state):
        hit = [r for r in rows if r[3] == "wheel" and r[4] == "spin_stop"][:1 - len(pegged)]
        for r in hit:
            r[5] = dict(r[5], on_peg=True)
            pegged.append(r)
        return (rows, state) if hit else None

    trace_surgery.rewrite(ct, on_peg, relink=True)
    wheel = by_name(read(ct))["money wheel"]
    assert wheel.data.n == 4 and wheel.excluded == {"void: on a peg (between two sections)": 1}
    assert all(len(a[1]) == 4 for a in wheel.data.columns.values())  # its Top Slot spin left out with it

def test_the_coin_flipper_and_the_crazy_time_world_wheel_and_repeated_lit_numbers(tmp_path):
    from hil.trace import TraceWriter

    path = tmp_path / "written.sqlite"
    w = TraceWriter(path, {"scenario": "hand-written"})
    w.record("coin_flipper", "device_info", {"sides": ["red", "blue"]})
    w.record("ctw_wheel", "device_info", {"sections": 64, "clappers": [0, 3, 6]})
    w.record("ball_wheel", "device_info", {"wheel": "single-zero", "pockets": list(EUROPEAN)})
    w.record("illuminator", "device_info", {"wheel": "single-zero", "paytable": "A", "multipliers": [50, 100]})
    w.commit()
    flips = [("red", "red"), ("blue", "red"), ("blue", "blue")]
    for n, (face, start) in enumerate(flips, 1):
        w.round = n
        w.record("coin_flipper", "coin_flip_stop", {"flip_id": n, "face": face, "start_face": start, "stop_time_s": n})
        w.record("ctw_wheel", "ctw_stop", {"spin_id": n, "sections": [10 * n, 10 * n + 3, 10 * n + 6], "stop_time_s": n})
        w.record("illuminator", "illumination", {"numbers": [5, 5] if n == 2 else [5, 7], "multipliers": [50, 50]})
        w.record("ball_wheel", "ball_result", {"spin_id": n, "pocket": 17, "rotor_direction": "cw", "misspin": False})
        w.commit(round_end=True)
    w.close()
    sets = by_name(read(path))
    coin = sets["coin flips"].data
    assert [coin.alphabet.symbols[i] for i in coin.results] == ["red", "blue", "blue"]
    assert [coin.alphabet.symbols[i] for i in coin.release] == ["red", "red", "blue"]  # the face up at launch
    ctw = sets["crazy-time-world wheel"].data
    assert ctw.results.tolist() == [10, 20, 30] and ctw.alphabet.k == 64 and ctw.alphabet.circular
    ball = sets["roulette ball wheel"]
    assert ball.off_alphabet == {"lit numbers repeated in one illumination": 1}  # § 617b.5(d): distinct
    assert analyze(list(sets.values())).verdict == "fail"

BAD = {
    "missing file": (lambda t: ["analyze", str(t / "nope.csv")], "no such file"),
    "not a trace": (lambda t: ["analyze", str(_text(t / "x.sqlite", "hello"))], "not a Croupier trace"),
    "sqlite not a trace": (lambda t: ["analyze", str(_db(t / "db.sqlite"))], "not a readable Croupier trace"),
    "no result column": (lambda t: ["analyze", str(_text(t / "a.csv", "pocket,dealer\n1,Ann\n"))], "'result' column"),
    "result off the wheel": (lambda t: ["analyze", str(_text(t / "b.csv", "result\n3\n40\n")), "--wheel", "single"],
                             "line 3: result '40' is not on the roulette single-zero"),
    "00 on a single zero wheel": (lambda t: ["analyze", str(_text(t / "c.csv", "result\n00\n")), "--wheel", "single"],
                                  "not on the roulette single-zero"),
    "mixed wheels": (lambda t: ["analyze", str(_text(t / "d.csv", "result\npachinko\n17\n"))], "mixed wheels"),
    "mixed wheel column": (lambda t: ["analyze", str(_text(t / "e.csv", "result,wheel\n1,single\n2,double\n"))],
                           "mixed wheels"),
    "wheel column unknown": (lambda t: ["analyze", str(_text(t / "o.csv", "result,wheel\n1,european\n"))],
                             "wheel 'european' in its wheel column"),
    "wheel column against --wheel": (lambda t: ["analyze", str(_text(t / "p.csv", "result,wheel\n1,single\n")),
                                                "--wheel", "double"], "its wheel column says single-zero"),
    "bad direction": (lambda t: ["analyze", str(_text(t / "q.csv", "result,direction\n1,up\n")), "--wheel", "single"],
                      "line 2: direction 'up'"),
    "outcome off the wheel": (lambda t: ["analyze", str(_text(t / "r.json", '{"outcomes": [{"result": 99, "status": '
                                                                            '"settled"}]}')), "--wheel", "single"],
                              "outcome 1: result '99' is not on the roulette single-zero"),
    "empty data": (lambda t: ["analyze", str(_text(t / "f.csv", "result\n"))], "empty data"),
    "all void": (lambda t: ["analyze", str(_text(t / "g.csv", "result,status\n1,void\n")), "--wheel", "single"],
                 "empty data"),
    "no wheel said": (lambda t: ["analyze", str(_text(t / "h.csv", "result\n1\n2\n"))], "give --wheel"),
    "not outcomes json": (lambda t: ["analyze", str(_text(t / "i.json", '{"a": 1}'))], "not the JSON of"),
    "empty folder": (lambda t: ["analyze", str(t)], "no traces"),
    "bad wheel": (lambda t: ["analyze", str(_text(t / "j.csv", "result\n1\n")), "--wheel", "triple"], "--wheel"),
    "bad source": (lambda t: ["analyze", str(_text(t / "k.csv", "result\n1\n")), "--from", "excel"], "--from"),
    "bad alpha": (lambda t: ["analyze", str(_text(t / "l.csv", "result\n1\n")), "--alpha", "1.5"], "--alpha"),
    "bad correction": (lambda t: ["analyze", str(_text(t / "m.csv", "result\n1\n")), "--correction", "sidak"],
                       "--correction"),
    "not a slingshot log": (lambda t: ["analyze", str(_text(t / "n.log", "hello\nworld\n")), "--from", "slingshot"],
                            "not a slingshot wheel log"),
}


def _text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _db(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    return path


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path):
    args, said = BAD[case]
    res = cli(*args(tmp_path))
    assert res.exit_code == 2, (case, res.output)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], lines
    assert "Traceback" not in res.output and res.stdout == ""


# --------------------------------------------------------------------------- the HTML report
def test_a_run_folder_gets_an_outcome_analysis_section_and_still_packs(run, tmp_path, monkeypatch):
    out = tmp_path / "run"
    shutil.copytree(run, out)
    monkeypatch.setenv(PLOTS_ENV, "1")
    import hil.html_report
    import hil.plots

    monkeypatch.setattr(hil.html_report, "_figures", lambda *a, **k: [])  # the checks' plots: test_hil_html_report's
    monkeypatch.setattr(hil.plots, "ANALYSIS_MAX_DATASETS", 2)  # the board values and the money wheel
    res = cli("analyze", str(out), "-q")
    assert res.exit_code == 3, res.output  # five rounds: undecided
    doc = json.loads((out / "analysis.json").read_text())
    report = json.loads((out / "report.json").read_text())
    assert doc["manifest_sha256"] == report["manifest"]["sha256"]
    assert {d["name"] for d in doc["datasets"]} >= {"money wheel", "roulette ball wheel"}
    page = (out / "report.html").read_bytes()
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)  # raises on the first error
    text = page.decode()
    assert 'id="analysis"' in text and 'data-analysis-verdict="undecided"' in text
    assert text.count('data-plot-kind="analysis-counts"') == 2 and 'data-plot-kind="analysis-distance"' in text
    assert "2 more data set(s) not drawn" in text
    assert cli("pack", str(out)).exit_code == 0
    v = cli("verify", str(out / "evidence-pack.tar"), "--no-recheck")
    assert v.exit_code == 0, v.output
    # an analysis.json of another run is never shown as this run's
    doc["manifest_sha256"] = "0" * 64
    (out / "analysis.json").write_text(json.dumps(doc))
    from hil.html_report import write_html

    monkeypatch.setenv(PLOTS_ENV, "0")
    write_html(report, out)
    text = (out / "report.html").read_text()
    assert 'data-analysis="stale"' in text and "analysis-counts" not in text
