"""The eleven planted bugs of issue 16, as an explicit catalogue: each bug a small source patch and
the fast tests that must catch it.

Issue 16 planted eleven bugs one at a time: six were caught cleanly, three were missed and two
were caught only by tests that often do not run. The issue names those five; they are the first
five entries here, in its words. The six "caught cleanly" are not named by the issue: the six
below are the same kind of bug (one payout, one comparison, one dropped clause) in the same
places (rules/, hil/checks/), each pinned to the fast tests that catch it today.

A bug is *caught* when its catchers, run on a copy of the repo with the patch applied, fail
(pytest exit status 1) — and the same catchers pass on the unpatched copy. The copy has no
``../shared/regulations`` beside it, as a clone on another machine has none: a test that skips
without that folder catches nothing here, which is the issue's point about the Paytable B payout.

Used by ``tests/mutation/test_planted.py`` (the slow test) and by ``make mutation``::

    python -m tests.mutation.planted            # every bug: caught / SURVIVED, with the failing tests
    python -m tests.mutation.planted --bug roulette-up-paytable-b-6-streak
    python -m tests.mutation.planted --list
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: the repository this file lives in (tests/mutation/planted.py)
REPO = Path(__file__).resolve().parents[2]

#: what a copy of the repo leaves out: the venv, VCS data, run outputs, caches, mutmut's tree
COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", "out", "mutants", "__pycache__", ".pytest_cache",
                                     ".hypothesis", "*.egg-info", ".mutmut-cache", "*.pid")


class CatalogueError(Exception):
    """A planted bug's patch no longer applies: its anchor text is gone from the source, or
    appears more than once (the catalogue must be updated with the code it plants into)."""


@dataclass(frozen=True)
class Patch:
    """Replace the one occurrence of ``old`` in ``path`` (relative to the repo) by ``new``."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class PlantedBug:
    """One bug: what it breaks (``what``, the regulation's ``section``), its source patch, and the
    fast tests (pytest node ids or files, relative to the repo) that must fail once it is applied.
    ``issue``: how issue 16 reported it ("missed", "caught only by a test that often does not run",
    or "caught cleanly")."""

    name: str
    what: str
    section: str
    issue: str
    patches: tuple[Patch, ...]
    catchers: tuple[str, ...]


PLANTED: tuple[PlantedBug, ...] = (
    # ------------------------------------------------------------------ issue 16: missed
    PlantedBug(
        "lockout-twice-the-budget",
        "the Crazy Time lock-out check judges the probe brackets against twice the scenario's budget "
        "(a 15 ms device against 10 ms no longer fails)",
        "§ 690.2(a)", "missed",
        (Patch("hil/checks/crazy_time.py",
               "        self.rounds += 1\n        budget = self.config.lockout_budget_s\n"
               "        for ev in rv.lockout_intervals:",
               "        self.rounds += 1\n        budget = 2 * self.config.lockout_budget_s\n"
               "        for ev in rv.lockout_intervals:"),),
        ("tests/hil/test_hil_lockout_edges.py",)),
    PlantedBug(
        "meter-drops-cent-fraction",
        "the progressive system's meter drops the fraction of a cent each increment leaves "
        "(18 % of 125 ¢ = 22.5 ¢ grows the meter by 22 ¢, the half cent lost)",
        "§ 617b.4(c), § 605a.7", "missed",
        (Patch("devices/progressive.py",
               "            after = before + spec.increment * stake_cents\n",
               "            after = Fraction(floor(before + spec.increment * stake_cents))\n"),),
        ("tests/hil/test_hil_meter_fractions.py",)),
    PlantedBug(
        "wheel-chi2-alpha-over-1e6",
        "the money wheel's section χ² check tests at its significance divided by 10^6",
        "§ 690.1(a)", "missed",
        (Patch("hil/checks/crazy_time.py",
               "        alpha = self.config.chi2_alpha\n        m = [Measurement(\"spins\", n, \"spins\"",
               "        alpha = self.config.chi2_alpha / 1e6\n        m = [Measurement(\"spins\", n, \"spins\""),),
        ("tests/hil/test_hil_stat_checks.py",)),
    # ------------------------------------------------------------------ issue 16: caught only by tests that often do not run
    PlantedBug(
        "roulette-up-paytable-b-6-streak",
        "Roulette Up Paytable B pays a streak of 6 at 35 to 1 instead of 25 to 1",
        "§ 617b.4(h)(1)", "caught only by a test that often does not run (the bulletin transcription test)",
        (Patch("rules/roulette_up.py",
               "| 6 | 100 to 1 | 25 to 1 | 25 to 1 | 100 to 1 | 50 to 1 |",
               "| 6 | 100 to 1 | 35 to 1 | 25 to 1 | 100 to 1 | 50 to 1 |"),),
        ("tests/rules/test_paytables_literal.py",)),
    PlantedBug(
        "wheel-chi2-per-direction-dropped",
        "the money wheel's section χ² check tests the pooled counts only: the per-direction tests "
        "are dropped (an off-centre mass biasing the two directions apart passes)",
        "§ 690.1(a)", "caught only by a test that often does not run (a slow scenario)",
        (Patch("hil/checks/crazy_time.py",
               "        samples.update({d: c for d, c in self.counts.items() if sum(c.values()) >= 5 * k})\n",
               ""),),
        ("tests/hil/test_hil_stat_checks.py",)),
    # ------------------------------------------------------------------ caught cleanly (the issue does not name them)
    PlantedBug(
        "crazy-time-five-pays-6-to-1",
        "the number 5 pays 6 to 1 instead of 5 to 1",
        "§ 690.4(a)", "caught cleanly",
        (Patch("rules/crazy_time.py", "Spot.FIVE: ToOne(5), Spot.TEN: ToOne(10),",
               "Spot.FIVE: ToOne(6), Spot.TEN: ToOne(10),"),),
        ("tests/rules/test_rules_settlement.py",)),
    PlantedBug(
        "top-slot-multiplier-without-alignment",
        "the Top Slot multiplier is applied to its betting option although the reels did not align",
        "§ 690.3(c)(2)", "caught cleanly",
        (Patch("rules/crazy_time.py",
               "return self.multiplier if self.aligned and self.spot == spot else 1",
               "return self.multiplier if self.spot == spot else 1"),),
        ("tests/rules/test_rules_settlement.py",)),
    PlantedBug(
        "royal-match-pays-50-to-1",
        "the Royal Match wager pays a Royal Match at 50 to 1 instead of 60 to 1",
        "§ 633b.19", "caught cleanly",
        (Patch("rules/bj_paytables.py", "| Royal Match | 60 to 1 |", "| Royal Match | 50 to 1 |"),),
        ("tests/rules/test_rules_blackjack_side.py::test_other_paytables_spot_checks",
         "tests/rules/test_rules_blackjack_side.py::test_settle_royal_match_waits_for_the_hole_card")),
    PlantedBug(
        "roulette-up-streak-continues-on-equal",
        "a Roulette Up streak continues on a number equal to the last one (it must be greater)",
        "§ 617b.4(g)(1)(i)", "caught cleanly",
        (Patch("rules/roulette_up.py",
               "elif streak_rank(pocket) > streak_rank(self.numbers[-1]):",
               "elif streak_rank(pocket) >= streak_rank(self.numbers[-1]):"),),
        ("tests/rules/test_rules_roulette_up.py",)),
    PlantedBug(
        "settlement-check-ignores-amounts",
        "the Crazy Time settlement check accepts a winning wager paid the wrong amount",
        "§ 690.4", "caught cleanly",
        (Patch("hil/checks/crazy_time.py",
               "            if want is None or want.win_cents != win:\n",
               "            if want is None:\n"),),
        ("tests/hil/test_hil_crazy_time_settlement.py",)),
    PlantedBug(
        "settlement-check-order-dropped",
        "the Crazy Time settlement check no longer requires every losing wager to be collected "
        "before a winning wager is paid",
        "§ 690.2(e)", "caught cleanly",
        (Patch("hil/checks/crazy_time.py",
               "        if rv.collects and rv.pays and max(e.seq for e in rv.collects) > min(e.seq for e in rv.pays):\n",
               "        if False:\n"),),
        ("tests/mutation/test_planted_catchers.py",)),
)

BY_NAME: dict[str, PlantedBug] = {b.name: b for b in PLANTED}
assert len(BY_NAME) == len(PLANTED) == 11, "the issue's eleven planted bugs, each named once"


def patched_text(bug: PlantedBug, root: Path) -> dict[Path, str]:
    """Each file ``bug`` patches under ``root``, with its patches applied (nothing written).
    Raises ``CatalogueError`` when an anchor is missing or not unique."""
    out: dict[Path, str] = {}
    for p in bug.patches:
        path = root / p.path
        if not path.is_file():
            raise CatalogueError(f"{bug.name}: {p.path} does not exist")
        text = out.get(path) or path.read_text(encoding="utf-8")
        n = text.count(p.old)
        if n != 1:
            raise CatalogueError(f"{bug.name}: the anchor {p.old.strip()[:70]!r} occurs {n} times in {p.path} "
                                 "(expected exactly once): update the catalogue with the code")
        out[path] = text.replace(p.old, p.new)
    return out


def apply(bug: PlantedBug, root: Path) -> None:
    """Write ``bug``'s patches into the tree at ``root`` (a copy, never the repo itself)."""
    if root.resolve() == REPO:
        raise ValueError("planted bugs go into a copy of the repo, never into the repo itself")
    for path, text in patched_text(bug, root).items():
        path.write_text(text, encoding="utf-8")


def copy_repo(dst: Path, src: Path = REPO) -> Path:
    """A copy of the repo's sources, tests, scenarios and docs at ``dst`` (no venv, no VCS, no outputs)."""
    shutil.copytree(src, dst, ignore=COPY_IGNORE)
    return dst


def missing_catchers(bug: PlantedBug, root: Path = REPO) -> list[str]:
    """The catchers of ``bug`` whose test file does not exist under ``root``."""
    return [c for c in bug.catchers if not (root / c.split("::", 1)[0]).is_file()]


@dataclass(frozen=True)
class Outcome:
    bug: str
    status: int  # pytest's exit status on the patched copy: 1 = tests failed (caught)
    failed: tuple[str, ...]  # the node ids that failed
    duration_s: float
    tail: str  # the end of pytest's output

    @property
    def caught(self) -> bool:
        return self.status == 1 and bool(self.failed)


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CROUPIER_SOAK", "COV_"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", CROUPIER_REPORT_PLOTS="0", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=str(root))
    return env


def run_tests(root: Path, tests: tuple[str, ...] | list[str], *, python: str = sys.executable,
              timeout_s: float = 600.0, extra: tuple[str, ...] = ()) -> tuple[int, tuple[str, ...], str]:
    """Run ``tests`` with pytest in the tree at ``root`` (its own modules first on the path, one
    process, no xdist, no cache). Returns pytest's exit status, the failed node ids, the output's end."""
    cmd = [python, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly", "-q", "-rf",
           "--timeout", "300", *extra, *tests]
    proc = subprocess.run(cmd, cwd=root, env=_env(root), capture_output=True, text=True, timeout=timeout_s)
    out = proc.stdout + proc.stderr
    failed = tuple(sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M))))
    return proc.returncode, failed, out[-3000:]


def check_imports_from(root: Path, *, python: str = sys.executable) -> None:
    """Fail unless the copy at ``root`` — not the repo the venv installed — is what Python imports there."""
    code = "import rules, hil, devices; print(rules.__file__); print(hil.__file__); print(devices.__file__)"
    proc = subprocess.run([python, "-c", code], cwd=root, env=_env(root), capture_output=True, text=True, timeout=120)
    files = proc.stdout.split()
    if proc.returncode or len(files) != 3 or not all(Path(f).resolve().is_relative_to(root.resolve()) for f in files):
        raise RuntimeError(f"the copy at {root} does not import its own modules: {proc.stdout}{proc.stderr}")


def plant_and_run(bug: PlantedBug, work: Path, *, python: str = sys.executable) -> Outcome:
    """Copy the repo to ``work``/``bug.name``, plant ``bug`` and run its catchers there."""
    root = copy_repo(work / bug.name)
    apply(bug, root)
    t0 = time.perf_counter()
    status, failed, tail = run_tests(root, bug.catchers, python=python)
    return Outcome(bug.name, status, failed, time.perf_counter() - t0, tail)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.mutation.planted", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bug", action="append", choices=sorted(BY_NAME), help="only this bug (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the catalogue and exit")
    args = ap.parse_args(argv)
    bugs = [BY_NAME[b] for b in args.bug] if args.bug else list(PLANTED)
    if args.list:
        for b in bugs:
            print(f"{b.name:42} {b.section:22} {b.issue}\n    {b.what}\n    catchers: {', '.join(b.catchers)}")
        return 0
    survived = 0
    with tempfile.TemporaryDirectory(prefix="croupier-planted-") as tmp:
        work = Path(tmp)
        base = copy_repo(work / "_unpatched")
        check_imports_from(base)
        catchers = sorted({c for b in bugs for c in b.catchers if c not in missing_catchers(b)})
        status, failed, tail = run_tests(base, catchers)
        if status != 0:
            print(f"the catchers fail on the UNPATCHED copy (exit {status}): {', '.join(failed)}\n{tail}")
            return 2
        shutil.rmtree(base)
        for b in bugs:
            missing = missing_catchers(b)
            if missing:
                print(f"SURVIVED  {b.name}: no catcher yet ({', '.join(missing)} missing)")
                survived += 1
                continue
            o = plant_and_run(b, work)
            shutil.rmtree(work / b.name, ignore_errors=True)
            if o.caught:
                print(f"caught    {b.name} ({o.duration_s:.1f} s): {', '.join(o.failed[:4])}"
                      + (f" (+{len(o.failed) - 4})" if len(o.failed) > 4 else ""))
            else:
                survived += 1
                print(f"SURVIVED  {b.name} (pytest exit {o.status}, {o.duration_s:.1f} s)\n{o.tail[-800:]}")
    print(f"{len(bugs) - survived} of {len(bugs)} planted bugs caught, {survived} survived")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
