"""The eleven planted bugs of issue 16 (tests/mutation/planted.py): each applied to a copy of the
repo, its fast catchers must fail there and pass on the unpatched copy.

Default suite (well under a second): the catalogue is the issue's eleven, every patch applies to
today's source exactly once and still compiles, and a stale anchor is an error, not a silent
no-op. Slow (one pytest process per bug, about 5-25 s each): the bugs themselves."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.mutation.planted import (
    PLANTED, REPO, CatalogueError, Patch, PlantedBug, apply, check_imports_from, copy_repo, missing_catchers,
    patched_text, plant_and_run, run_tests,
)


# --------------------------------------------------------------------------- the catalogue (default suite)
def test_the_catalogue_is_the_issues_eleven():
    assert len(PLANTED) == 11 and len({b.name for b in PLANTED}) == 11
    kinds = Counter(b.issue.split(" (")[0] for b in PLANTED)
    assert kinds == {"missed": 3, "caught only by a test that often does not run": 2, "caught cleanly": 6}
    # the five the issue names, by where they are planted
    named = {b.name: {p.path for p in b.patches} for b in PLANTED if b.issue != "caught cleanly"}
    assert named == {
        "lockout-twice-the-budget": {"hil/checks/crazy_time.py"},
        "meter-drops-cent-fraction": {"devices/progressive.py"},
        "wheel-chi2-alpha-over-1e6": {"hil/checks/crazy_time.py"},
        "roulette-up-paytable-b-6-streak": {"rules/roulette_up.py"},
        "wheel-chi2-per-direction-dropped": {"hil/checks/crazy_time.py"},
    }
    for b in PLANTED:
        assert b.catchers and all(not c.startswith("/") for c in b.catchers), b.name
        assert re.fullmatch(r"§ \d+[a-z]?\.\d+.*", b.section), b.section


@pytest.mark.parametrize("bug", PLANTED, ids=lambda b: b.name)
def test_the_patch_applies_once_and_compiles(bug: PlantedBug):
    """Each anchor is in today's source exactly once (a refactor that moves it fails here, in the
    default suite, not silently in the slow tier), the patched file differs and still parses."""
    patched = patched_text(bug, REPO)
    assert set(patched) == {REPO / p.path for p in bug.patches}
    for path, text in patched.items():
        assert text != path.read_text(encoding="utf-8"), f"{bug.name}: the patch changes nothing in {path.name}"
        ast.parse(text, filename=str(path))


@pytest.mark.parametrize("bug", PLANTED, ids=lambda b: b.name)
def test_each_catcher_names_a_test_that_exists(bug: PlantedBug):
    """A catcher is a test file, or a file::test_function; the function is defined in the file.
    (A catcher file another engineer has not committed yet is left to the slow test, which reports
    the bug as surviving.)"""
    for c in bug.catchers:
        file, _, func = c.partition("::")
        assert file.startswith("tests/") and file.endswith(".py"), c
        path = REPO / file
        if func and path.is_file():
            assert re.search(rf"^def {re.escape(func.split('[')[0])}\(", path.read_text(encoding="utf-8"), re.M), c


def test_a_stale_anchor_is_an_error_not_a_silent_no_op(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\nx = 1\n", encoding="utf-8")
    gone = PlantedBug("gone", "", "§ 1.1", "", (Patch("m.py", "y = 1", "y = 2"),), ("tests/x.py",))
    twice = PlantedBug("twice", "", "§ 1.1", "", (Patch("m.py", "x = 1", "x = 2"),), ("tests/x.py",))
    nofile = PlantedBug("nofile", "", "§ 1.1", "", (Patch("n.py", "x = 1", "x = 2"),), ("tests/x.py",))
    for bug, why in ((gone, "occurs 0 times"), (twice, "occurs 2 times"), (nofile, "does not exist")):
        with pytest.raises(CatalogueError, match=why):
            patched_text(bug, tmp_path)
    with pytest.raises(ValueError, match="never into the repo itself"):
        apply(PLANTED[0], REPO)


# --------------------------------------------------------------------------- the bugs (slow)
@pytest.mark.mutation
def test_the_catchers_pass_on_the_unpatched_copy(tmp_path):
    """Without it a catcher that fails anyway would 'catch' every bug. The copy imports its own
    modules (not the repo the venv installed), and has no ../shared/regulations beside it."""
    root = copy_repo(tmp_path / "repo")
    check_imports_from(root)
    assert not (root.parent.parent / "shared" / "regulations").exists()
    catchers = sorted({c for b in PLANTED for c in b.catchers if not missing_catchers(b, root)})
    status, failed, tail = run_tests(root, catchers)
    assert status == 0 and not failed, f"catchers fail without any planted bug (exit {status}): {failed}\n{tail}"


@pytest.mark.mutation
@pytest.mark.parametrize("bug", PLANTED, ids=lambda b: b.name)
def test_the_planted_bug_is_caught(bug: PlantedBug, tmp_path):
    missing = missing_catchers(bug)
    assert not missing, f"{bug.name} ({bug.what}) survives: its catcher(s) {missing} do not exist"
    o = plant_and_run(bug, tmp_path)
    assert o.caught, (f"{bug.name} ({bug.section}: {bug.what}) SURVIVED its catchers {list(bug.catchers)} "
                      f"(pytest exit {o.status}):\n{o.tail}")


@pytest.mark.mutation
def test_a_bug_its_catchers_miss_is_reported_survived(tmp_path):
    """The harness itself can fail: a real planted bug run against a test that does not look at
    it comes back not caught (exit 0, nothing failed)."""
    five = next(b for b in PLANTED if b.name == "crazy-time-five-pays-6-to-1")
    blind = PlantedBug(five.name, five.what, five.section, five.issue, five.patches,
                       ("tests/rules/test_rules_roulette_up.py::test_double_zero_order",))
    o = plant_and_run(blind, tmp_path)
    assert o.status == 0 and not o.failed and not o.caught, o.tail
