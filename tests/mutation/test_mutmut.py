"""The mutation tier: mutmut over rules/ and hil/checks/ (tests/mutation/mutmut_run.py), and the
judging of its results against the reviewed survivors (tests/mutation/survivors.txt).

The run (``@pytest.mark.mutation``) runs only with CROUPIER_MUTATION=1 (``make mutation``): hours
on this machine. The judging is unit-tested in the default suite on mutmut's own output format."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.mutation.mutmut_run import (BASELINE, diffs, function_of, import_time_functions, judge, kind_of, kinds,
                                       narrow, parse_results, read_baseline, refresh_copy, report, run)

RESULTS = """\
    rules.roulette_up.x__payout__mutmut_1: killed
    rules.roulette_up.x__payout__mutmut_2: survived
    rules.roulette_up.xǁStreakStateǁadd__mutmut_7: survived
    hil.checks.crazy_time.xǁSectionUniformityǁverdict__mutmut_3: timeout
    hil.checks.crazy_time.xǁLockoutǁobserve__mutmut_9: not checked
    hil.checks.crazy_time.xǁLockoutǁobserve__mutmut_10: no tests
"""


def test_results_are_read_as_mutmut_prints_them():
    r = parse_results("some progress line\n" + RESULTS)
    assert r == {"rules.roulette_up.x__payout__mutmut_1": "killed", "rules.roulette_up.x__payout__mutmut_2": "survived",
                 "rules.roulette_up.xǁStreakStateǁadd__mutmut_7": "survived",
                 "hil.checks.crazy_time.xǁSectionUniformityǁverdict__mutmut_3": "timeout",
                 "hil.checks.crazy_time.xǁLockoutǁobserve__mutmut_9": "not checked",
                 "hil.checks.crazy_time.xǁLockoutǁobserve__mutmut_10": "no tests"}


def test_a_survivor_the_baseline_does_not_list_is_new(tmp_path):
    base = tmp_path / "survivors.txt"
    base.write_text("# reviewed\nrules.roulette_up.x__payout__mutmut_2  # the message text only\n\n", encoding="utf-8")
    new, accepted, broken = judge(parse_results(RESULTS), read_baseline(base))
    assert new == ["rules.roulette_up.xǁStreakStateǁadd__mutmut_7"]
    assert accepted == ["rules.roulette_up.x__payout__mutmut_2"]
    assert broken == ["hil.checks.crazy_time.xǁLockoutǁobserve__mutmut_9"]  # unchecked: the run broke
    assert judge(parse_results(RESULTS), set(), {("rules.roulette_up", "_payout")})[0] == [
        "rules.roulette_up.xǁStreakStateǁadd__mutmut_7"]  # a survivor mutmut could not judge is no new gap
    assert judge(parse_results(RESULTS), set())[0] == ["rules.roulette_up.x__payout__mutmut_2",
                                                       "rules.roulette_up.xǁStreakStateǁadd__mutmut_7"]


def test_the_report_counts_each_status_and_lists_the_survivors(tmp_path):
    s = report(parse_results(RESULTS), tmp_path, "diffs")
    assert s["mutants"] == 6 and s["survived"] == 2
    assert s["by_status"] == {"killed": 1, "no tests": 1, "not checked": 1, "survived": 2, "timeout": 1}
    assert s["survived_by_module"] == {"rules.roulette_up": 2}
    assert s["killed_ratio"] == pytest.approx(2 / 6)
    assert (tmp_path / "survivors.txt").read_text(encoding="utf-8").split() == [
        "rules.roulette_up.x__payout__mutmut_2", "rules.roulette_up.xǁStreakStateǁadd__mutmut_7"]
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8")) == s


def test_a_survivors_diff_is_read_from_the_mutants_tree(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "odds.py").write_text(
        "def x_pay__mutmut_orig(n):\n    return n * 35\n\n\ndef x_pay__mutmut_1(n):\n    return n * 36\n\n\n"
        "class Streak:\n    def xǁStreakǁadd__mutmut_orig(self, x):\n        return x >= 1\n\n"
        "    def xǁStreakǁadd__mutmut_2(self, x):\n        return x > 1\n", encoding="utf-8")
    out = diffs(tmp_path, ["rules.odds.x_pay__mutmut_1", "rules.odds.xǁStreakǁadd__mutmut_2",
                           "rules.odds.x_pay__mutmut_9", "rules.gone.x_f__mutmut_1"])
    assert "-    return n * 35\n+    return n * 36\n" in out
    assert "-        return x >= 1\n+        return x > 1\n" in out
    assert "# rules.odds.x_pay__mutmut_9: not in odds.py" in out
    assert "# rules.gone.x_f__mutmut_1:" in out and "unreadable" in out


def test_a_survivor_is_sorted_by_what_it_changed(tmp_path):
    """Triage: prose in a string (a message), another string (a verdict name, a key), or code."""
    orig = 'def f(x):\n    if x > 1:\n        return "fail", f"{x} spins: too few"\n    return d["key"]\n'
    assert kind_of(orig, orig.replace("too few", "XXtoo fewXX")) == "text"
    assert kind_of(orig, orig.replace("too few", "TOO FEW")) == "text"
    assert kind_of(orig, orig.replace('"fail"', '"XXfailXX"')) == "string"
    assert kind_of(orig, orig.replace('"key"', '"KEY"')) == "string"
    assert kind_of(orig, orig.replace("x > 1", "x >= 1")) == "code"
    assert kind_of(orig, orig.replace('f"{x} spins: too few"', "None")) == "code"
    assert kind_of(orig, orig.replace(', f"{x} spins: too few"', "")) == "code"
    assert kind_of(orig, orig) == "code"  # no change at all: never called harmless text
    assert kind_of(orig, 'def f(x:\n    """') == "unknown"
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "odds.py").write_text(
        'def x_pay__mutmut_orig(n):\n    return n * 35, "pays 35 to 1"\n\n\n'
        'def x_pay__mutmut_1(n):\n    return n * 36, "pays 35 to 1"\n\n\n'
        'def x_pay__mutmut_2(n):\n    return n * 35, "XXpays 35 to 1XX"\n', encoding="utf-8")
    assert kinds(tmp_path, ["rules.odds.x_pay__mutmut_1", "rules.odds.x_pay__mutmut_2", "rules.odds.x_pay__mutmut_9"]) == {
        "rules.odds.x_pay__mutmut_1": "code", "rules.odds.x_pay__mutmut_2": "text", "rules.odds.x_pay__mutmut_9": "unknown"}
    s = report(parse_results(RESULTS), tmp_path / "out", "", kind={"rules.roulette_up.x__payout__mutmut_2": "text",
                                                                   "rules.roulette_up.xǁStreakStateǁadd__mutmut_7": "code"})
    assert s["survived_by_kind"] == {"text": 1, "code": 1} and s["survived_code_by_module"] == {"rules.roulette_up": 1}
    assert (tmp_path / "out" / "survivors_code.txt").read_text(encoding="utf-8").split() == [
        "rules.roulette_up.xǁStreakStateǁadd__mutmut_7"]


def test_a_kept_run_is_refreshed_to_the_sources_and_keeps_mutmuts_results(tmp_path):
    src, root = tmp_path / "src", tmp_path / "work" / "repo"
    (src / "rules").mkdir(parents=True)
    (src / "rules" / "odds.py").write_text("X = 2\n", encoding="utf-8")
    (src / ".git").mkdir()
    (root / "rules").mkdir(parents=True)
    (root / "rules" / "odds.py").write_text("X = 1\n", encoding="utf-8")
    (root / "rules" / "gone.py").write_text("", encoding="utf-8")  # deleted from the repo since
    (root / "mutants" / "rules").mkdir(parents=True)
    (root / "mutants" / "rules" / "odds.py.meta").write_text("{}", encoding="utf-8")
    assert refresh_copy(root, src) == root
    assert (root / "rules" / "odds.py").read_text(encoding="utf-8") == "X = 2\n"
    assert not (root / "rules" / "gone.py").exists() and not (root / ".git").exists()
    assert (root / "mutants" / "rules" / "odds.py.meta").read_text(encoding="utf-8") == "{}"


def test_a_mutant_names_its_function():
    assert function_of("rules.roulette_up.x__payout__mutmut_12") == ("rules.roulette_up", "_payout")
    assert function_of("rules.mc.crazy_time.x_play__mutmut_3") == ("rules.mc.crazy_time", "play")
    assert function_of("hil.checks.crazy_time.xǁLockoutǁobserve__mutmut_9") == ("hil.checks.crazy_time",
                                                                                "Lockout.observe")


def test_survivors_of_functions_run_at_import_are_counted_apart(tmp_path):
    s = report(parse_results(RESULTS), tmp_path, "", {("rules.roulette_up", "_payout")})
    assert s["survived"] == 1 and s["survived_by_module"] == {"rules.roulette_up": 1}
    assert s["survived_import_time"] == 1 and s["survived_import_time_by_module"] == {"rules.roulette_up": 1}
    assert (tmp_path / "survivors.txt").read_text(encoding="utf-8").split() == [
        "rules.roulette_up.xǁStreakStateǁadd__mutmut_7"]
    assert (tmp_path / "survivors_import_time.txt").read_text(encoding="utf-8").split() == [
        "rules.roulette_up.x__payout__mutmut_2"]
    assert s["no_tests_by_module"] == {"hil.checks.crazy_time": 1}
    # of the mutants tested at run time (killed 1 + timeout 1 + the one run-time survivor): 2 of 3
    assert s["killed_ratio_of_run_time_mutants_tested"] == pytest.approx(2 / 3)


def test_the_import_probe_finds_the_tables_built_at_import_and_not_the_checks_verdicts():
    found = import_time_functions(Path(__file__).resolve().parents[2])
    assert ("rules.roulette_up", "_payout") in found  # the § 617b.4(h) paytables are parsed at import
    assert ("hil.checks.crazy_time", "Lockout.verdict") not in found
    assert ("hil.checks.crazy_time", "TopSlotCheck.observe") not in found


def test_narrowing_rewrites_only_the_copys_mutmut_lists(tmp_path):
    p = tmp_path / "pyproject.toml"
    p.write_text('[tool.mutmut]\nonly_mutate = ["rules/*"]\npytest_add_cli_args_test_selection = ["tests/rules"]\n',
                 encoding="utf-8")
    narrow(p, ["rules/roulette_up.py"], [])
    assert p.read_text(encoding="utf-8") == ('[tool.mutmut]\nonly_mutate = ["rules/roulette_up.py"]\n'
                                             'pytest_add_cli_args_test_selection = ["tests/rules"]\n')
    (tmp_path / "bad.toml").write_text("[tool.mutmut]\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="only_mutate"):
        narrow(tmp_path / "bad.toml", ["x.py"], [])


def test_the_reviewed_survivors_are_mutant_names_each_with_its_reason():
    assert BASELINE.is_file()
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, why = line.partition("#")
        assert name.strip().startswith(("rules.", "hil.checks.")) and "__mutmut_" in name, line
        assert sep and why.strip(), f"{name.strip()}: a reviewed survivor says why it is accepted"


@pytest.mark.mutation
def test_no_unreviewed_mutant_survives(tmp_path):
    """The whole [tool.mutmut] scope. CROUPIER_MUTATION_ONLY / CROUPIER_MUTATION_TESTS (comma
    separated) narrow it; the report goes to CROUPIER_MUTATION_OUT (default: the test's tmp dir).
    The whole scope runs in CROUPIER_MUTATION_KEEP when set (``make mutation``: out/mutation-work),
    and goes on there from where an interrupted run stopped; a narrowed run in the test's tmp dir."""
    only = [s for s in os.environ.get("CROUPIER_MUTATION_ONLY", "").split(",") if s]
    tests = [s for s in os.environ.get("CROUPIER_MUTATION_TESTS", "").split(",") if s]
    out = Path(os.environ.get("CROUPIER_MUTATION_OUT") or tmp_path / "report")
    keep = os.environ.get("CROUPIER_MUTATION_KEEP")
    work = Path(keep) if keep and not (only or tests) else tmp_path  # a kept folder: the run goes on there
    work.mkdir(parents=True, exist_ok=True)
    results = run(work, only=only, tests=tests)
    at_import = import_time_functions(work / "repo")
    new, accepted, broken = judge(results, read_baseline(), at_import)  # import-time survivors: reported apart
    mutants = work / "repo" / "mutants"
    summary = report(results, out, diffs(mutants, new + accepted), at_import, kinds(mutants, new + accepted))
    assert results and not broken, f"mutmut left {len(broken)} mutant(s) unjudged: {broken[:10]}"
    assert not new, (f"{len(new)} mutant(s) survive that {BASELINE.name} does not list (report in {out}: "
                     f"{summary}):\n" + "\n".join(new[:50]))
