"""The mutation run: mutmut 3 over rules/ and hil/checks/ ([tool.mutmut] in pyproject.toml), in a
copy of the repo (mutmut writes its ``mutants/`` tree and caches where it runs: never in the repo),
and its survivors against the reviewed list ``tests/mutation/survivors.txt``.

    python -m tests.mutation.mutmut_run --out out/mutation            # the whole scope (hours here)
    python -m tests.mutation.mutmut_run --only 'rules/roulette_up.py' \\
        --tests tests/rules/test_rules_roulette_up.py --tests tests/rules/test_paytables_literal.py

``--only`` / ``--tests`` narrow the copy's [tool.mutmut] ``only_mutate`` / test selection (the repo's
pyproject is never edited). The report: ``summary.json`` (counts per status), ``survivors.txt`` (one
mutant name a line) and ``survivors.diff`` (each survivor's diff against its original function). Exit status 1 when a
mutant survives that ``tests/mutation/survivors.txt`` does not list (a new gap, or an old one no
one reviewed), 2 when the run itself broke (mutmut failed, or mutants left unchecked).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tests.mutation.planted import COPY_IGNORE, REPO, copy_repo

#: the reviewed survivors: ``mutant.name`` [# why it is equivalent or accepted]; one a line
BASELINE = REPO / "tests" / "mutation" / "survivors.txt"
#: statuses that mean the run did not judge the mutant: the run is broken, not the tests weak
BROKEN = frozenset({"not checked", "check was interrupted by user", "suspicious", "segfault"})
_LINE = re.compile(r"^\s+(\S+): (.+?)\s*$")


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true`` output -> {mutant name: status}."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if m := _LINE.match(line):
            out[m[1]] = m[2]
    return out


def read_baseline(path: Path = BASELINE) -> set[str]:
    """The mutant names of the reviewed-survivors file (comments after ``#`` and blank lines skipped)."""
    if not path.is_file():
        return set()
    return {s for line in path.read_text(encoding="utf-8").splitlines() if (s := line.split("#", 1)[0].strip())}


def judge(results: dict[str, str], baseline: set[str],
          import_time: set[tuple[str, str]] = frozenset()) -> tuple[list[str], list[str], list[str]]:
    """(new survivors — not in the baseline, sorted; survivors the baseline accepts; mutants the run
    did not judge). ``timeout`` counts as killed (the mutant hangs the code: a test noticed). A
    survivor of a function in ``import_time`` (``import_time_functions``) is neither: mutmut could
    not judge it, and ``report`` lists it apart."""
    survived = sorted(k for k, v in results.items() if v == "survived" and function_of(k) not in import_time)
    broken = sorted(k for k, v in results.items() if v in BROKEN)
    return [s for s in survived if s not in baseline], [s for s in survived if s in baseline], broken


def function_of(mutant: str) -> tuple[str, str]:
    """A mutant's (module, qualified function name): ``rules.roulette_up.x__payout__mutmut_1`` ->
    (``rules.roulette_up``, ``_payout``); ``…xǁStreakStateǁadd__mutmut_7`` -> (…, ``StreakState.add``)."""
    module, mangled = mutant.rsplit(".", 1)
    mangled = re.sub(r"__mutmut_\d+$", "", mangled)
    if mangled.startswith("xǁ"):
        return module, ".".join(mangled[2:].split("ǁ"))
    return module, mangled[2:]


#: run in a fresh interpreter at the copy's root: every function of the mutated packages that
#: runs while they are imported (tables built at import), as "module:qualname" lines
_IMPORT_PROBE = r"""
import importlib, pkgutil, sys
called = set()
def prof(frame, event, arg):
    if event == "call":
        m = frame.f_globals.get("__name__", "")
        if m.startswith(PREFIXES):
            called.add(m + ":" + frame.f_code.co_qualname)
sys.setprofile(prof)
for pkg in PACKAGES:
    mod = importlib.import_module(pkg)
    for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
        importlib.import_module(info.name)
sys.setprofile(None)
print("\n".join(sorted(called)))
"""


def import_time_functions(root: Path, packages: tuple[str, ...] = ("rules", "hil.checks")) -> set[tuple[str, str]]:
    """The functions of ``packages`` that run while they are imported, from the unmutated sources
    at ``root``. mutmut runs each mutant in a fork of a process that has imported everything
    already: a mutant of such a function is never executed where the module-level tables it built
    are read, so it "survives" whatever the tests pin (the paytables are pinned cell by cell in
    tests/rules/test_paytables_literal.py). The report lists these apart: unjudged by mutmut's
    model, not evidence of a weak test."""
    code = f"PACKAGES = {packages!r}\nPREFIXES = {tuple(packages)!r}\n" + _IMPORT_PROBE
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MUTANT_"))}
    env["PYTHONPATH"] = str(root)
    p = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise RuntimeError(f"the import probe failed: {p.stderr[-2000:]}")
    return {tuple(line.split(":", 1)) for line in p.stdout.splitlines() if ":" in line}


def narrow(pyproject: Path, only: list[str], tests: list[str]) -> None:
    """Rewrite the copy's [tool.mutmut] only_mutate / test selection (TOML lists, one line each)."""
    text = pyproject.read_text(encoding="utf-8")
    for key, values in (("only_mutate", only), ("pytest_add_cli_args_test_selection", tests)):
        if values:
            text, n = re.subn(rf"^{key} = .*$", f"{key} = {json.dumps(values)}", text, flags=re.M)
            if n != 1:
                raise SystemExit(f"pyproject.toml: no single '{key} = ...' line in [tool.mutmut] to narrow")
    tomllib.loads(text)
    pyproject.write_text(text, encoding="utf-8")


def refresh_copy(root: Path, src: Path = REPO) -> Path:
    """The kept copy at ``root`` brought to the repo's sources as they are now — every file but
    mutmut's ``mutants/`` tree removed, the repo copied over — so that mutmut, run there again, goes
    on: it keeps each mutant's result (``mutants/*.meta``), mutates afresh the functions whose source
    changed and judges only the mutants without a result."""
    import shutil

    for entry in root.iterdir():
        if entry.name == "mutants":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(src, root, ignore=COPY_IGNORE, dirs_exist_ok=True)
    return root


def run(work: Path, *, only: list[str] = (), tests: list[str] = (), max_children: int = 2,
        mutmut: str | None = None) -> dict[str, str]:
    """Copy the repo to ``work``/repo (or refresh the copy a kept run left there: it resumes), run
    mutmut there, return {mutant: status}."""
    root = work / "repo"
    root = refresh_copy(root) if (root / "mutants").is_dir() else copy_repo(root)
    narrow(root / "pyproject.toml", list(only), list(tests))
    exe = mutmut or str(Path(sys.executable).with_name("mutmut"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(CROUPIER_REPORT_PLOTS="0", OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    proc = subprocess.run([exe, "run", "--max-children", str(max_children)], cwd=root, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode:
        raise RuntimeError(f"mutmut run failed (exit {proc.returncode}): {proc.stderr[-3000:]}")
    return results_of(work, mutmut)


def results_of(work: Path, mutmut: str | None = None) -> dict[str, str]:
    """{mutant: status} of the mutmut run kept in ``work``/repo."""
    exe = mutmut or str(Path(sys.executable).with_name("mutmut"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    res = subprocess.run([exe, "results", "--all", "true"], cwd=work / "repo", env=env, capture_output=True,
                         text=True, check=True)
    return parse_results(res.stdout)


def _sources(mutants_root: Path, names: list[str]) -> Iterator[tuple[str, str | None, str | None, str]]:
    """(mutant, its original function's source, the mutant's, why not) for each name, from mutmut's
    ``mutants/`` tree (one parse a module; ``mutmut show`` starts an interpreter a mutant). The
    sources are None, with the reason, where the tree does not hold them; each source is named as
    the function it mutates."""
    import ast

    by_module: dict[str, list[str]] = {}
    for name in names:
        by_module.setdefault(name.rsplit(".", 1)[0], []).append(name)
    for module, wanted in sorted(by_module.items()):
        path = mutants_root.joinpath(*module.split(".")).with_suffix(".py")
        if not path.is_file():
            path = mutants_root.joinpath(*module.split("."), "__init__.py")
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, SyntaxError) as exc:
            for n in wanted:
                yield n, None, None, f"{path} unreadable ({exc})"
            continue
        funcs = {node.name: node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        lines = text.splitlines(keepends=True)

        def source(node) -> str:  # (ast.get_source_segment splits the whole module again each call)
            return "".join(lines[node.lineno - 1:node.end_lineno])

        for name in wanted:
            short = name.rsplit(".", 1)[1]
            orig = funcs.get(re.sub(r"__mutmut_\d+$", "__mutmut_orig", short))
            mut = funcs.get(short)
            if orig is None or mut is None:
                yield name, None, None, f"not in {path.name}"
                continue
            plain = short.rsplit("__mutmut_", 1)[0]
            yield name, source(orig).replace(orig.name, plain), source(mut).replace(mut.name, plain), ""


def diffs(mutants_root: Path, names: list[str]) -> str:
    """Each mutant's unified diff against its original function, read from mutmut's ``mutants/``
    tree. A mutant the tree does not hold is named with a comment."""
    import difflib

    parts = []
    for name, a, b, why in _sources(mutants_root, names):
        if a is None or b is None:
            parts.append(f"# {name}: {why}\n")
            continue
        module = name.rsplit(".", 1)[0]
        parts.append(f"# {name}\n" + "".join(difflib.unified_diff(
            a.splitlines(keepends=True), b.splitlines(keepends=True), f"{module} (original)", f"{name}", n=1)))
    return "\n".join(parts)


#: what a surviving mutant changed, for triage (``kind_of``)
KINDS = ("text", "string", "code", "unknown")


def kind_of(original: str, mutant: str) -> str:
    """What a mutant changed in its function: ``text`` — only the wording of string literals that
    are prose (the original has a space: a finding's or a verdict's message, read by a person, not
    by a check); ``string`` — only other string literals (a verdict name, a payload key, a format:
    code, by another name); ``code`` — anything else (an operator, a number, an argument, a call).
    ``unknown`` when either source does not tokenize. Triage only: a ``text`` survivor can still be a
    gap (a message a lab reads), a ``code`` one the first to review."""
    import io
    import tokenize

    def tokens(src: str) -> list[tuple[int, str]]:
        skip = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                tokenize.ENDMARKER}
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type not in skip]

    try:
        a, b = tokens(original), tokens(mutant)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return "unknown"
    if len(a) != len(b):
        return "code"
    changed = [(x, y) for x, y in zip(a, b) if x != y]
    if not changed or any(x[0] != tokenize.STRING or y[0] != tokenize.STRING for x, y in changed):
        return "code"
    return "text" if all(re.search(r"\s", x[1]) for x, _ in changed) else "string"


def kinds(mutants_root: Path, names: list[str]) -> dict[str, str]:
    """{mutant: ``kind_of`` its change} for each name (``unknown`` where the tree does not hold it)."""
    return {name: kind_of(a, b) if a is not None and b is not None else "unknown"
            for name, a, b, _ in _sources(mutants_root, names)}


def report(results: dict[str, str], out: Path, diffs: str, import_time: set[tuple[str, str]] = frozenset(),
           kind: dict[str, str] | None = None) -> dict:
    """The report files and their summary. ``import_time`` (``import_time_functions``): the
    survivors of those functions are counted apart (``survived_import_time``) and listed in
    ``survivors_import_time.txt``; ``survivors.txt`` holds the others. ``kind`` (``kinds``): each
    survivor's change, counted per kind (``survived_by_kind``, and per module) and the ``code`` ones
    listed in ``survivors_code.txt``, the first to review."""
    out.mkdir(parents=True, exist_ok=True)
    counts = Counter(results.values())
    survived_all = sorted(k for k, v in results.items() if v == "survived")
    at_import = [k for k in survived_all if function_of(k) in import_time]
    survived = [k for k in survived_all if function_of(k) not in import_time]
    by_module = Counter(k.rsplit(".", 1)[0] for k in survived)  # rules.roulette_up.xǁStreakStateǁadd__mutmut_5
    judged = counts["killed"] + counts["timeout"] + len(survived_all)
    summary = {"mutants": len(results), "by_status": dict(sorted(counts.items())), "survived": len(survived),
               "survived_by_module": dict(by_module.most_common()),
               "survived_import_time": len(at_import),
               "survived_import_time_by_module": dict(Counter(k.rsplit(".", 1)[0] for k in at_import).most_common()),
               "no_tests_by_module": dict(Counter(k.rsplit(".", 1)[0] for k, v in results.items()
                                                  if v == "no tests").most_common()),
               "killed_ratio": (counts["killed"] + counts["timeout"]) / len(results) if results else None,
               "killed_ratio_of_run_time_mutants_tested": ((counts["killed"] + counts["timeout"])
                                                           / (judged - len(at_import)) if judged > len(at_import) else None)}
    if kind is not None:
        summary["survived_by_kind"] = dict(Counter(kind.get(k, "unknown") for k in survived).most_common())
        summary["survived_code_by_module"] = dict(Counter(k.rsplit(".", 1)[0] for k in survived
                                                          if kind.get(k) == "code").most_common())
        (out / "survivors_code.txt").write_text("".join(f"{k}\n" for k in survived if kind.get(k) == "code"),
                                                encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "survivors.txt").write_text("".join(f"{s}\n" for s in survived), encoding="utf-8")
    (out / "survivors_import_time.txt").write_text("".join(f"{s}\n" for s in at_import), encoding="utf-8")
    (out / "survivors.diff").write_text(diffs, encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.mutation.mutmut_run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "out" / "mutation", help="the report folder")
    ap.add_argument("--only", action="append", default=[], help="only_mutate glob (repeatable)")
    ap.add_argument("--tests", action="append", default=[], help="test path for the selection (repeatable)")
    ap.add_argument("--max-children", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="run in this folder and keep it (default: a temp folder); a "
                    "folder a run left goes on from where that run stopped")
    ap.add_argument("--report-only", action="store_true",
                    help="no run: report on the mutmut run kept in --keep (an interrupted one too)")
    args = ap.parse_args(argv)
    if args.report_only and not args.keep:
        ap.error("--report-only reads the run kept in --keep FOLDER")
    with tempfile.TemporaryDirectory(prefix="croupier-mutmut-") as tmp:
        work = args.keep or Path(tmp)
        if args.report_only:
            results = results_of(work)
        else:
            results = run(work, only=args.only, tests=args.tests, max_children=args.max_children)
        at_import = import_time_functions(work / "repo")
        new, accepted, broken = judge(results, read_baseline(), at_import)
        mutants = work / "repo" / "mutants"
        summary = report(results, args.out, diffs(mutants, new + accepted), at_import, kinds(mutants, new + accepted))
    print(json.dumps(summary, indent=2))
    print(f"{len(new)} new survivor(s) (not in {BASELINE.relative_to(REPO)}), {len(accepted)} reviewed, "
          f"{len(broken)} not judged; report in {args.out}")
    for s in new:
        print(f"  SURVIVED {s}")
    return 2 if broken or not results else (1 if new else 0)


if __name__ == "__main__":
    sys.exit(main())
