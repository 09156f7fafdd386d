"""``croupier`` — the command line.

    croupier run [PATH ...] [--bench FILE] [--rules FILE] [--roulette-x-rules FILE] [--seed N] [--out DIR]
                 [--jobs N | --workers N | --cluster local|tcp://HOST:PORT] [--resume] [--max-rounds N]
                 [-q | -v | -vv] [--log-file FILE]
    croupier rtp crazy-time [--rules FILE] [--json]
    croupier rtp roulette-up [--paytable A..E|P1..P7] [--wheel single|double] [--json]   (none: all)
    croupier rtp roulette-x [--paytable A|B] [--wheel single|double] [--rules FILE] [--json]
    croupier check TRACE [--budget-s S]
    croupier mc GAME [--rounds N] [--seed S] [--workers W | --cluster tcp://HOST:PORT] [--json]
    croupier traceability [--out FILE]
    croupier plan --game G --bias B [--alpha A] [--power P] [--simulations N] [--seed S] [--json]
    croupier stub DEVICE (--modbus URL | --serial URL | --pty) [--param NAME=VALUE ...]
    croupier outcomes (TRACE | OUT_DIR | --from slingshot LOG) [--csv | --json]
    croupier analyze PATH [--from trace|csv|json|slingshot] [--wheel W] [--alpha A] [--correction holm|bonferroni]
                     [--json]
    croupier conformance DEVICE (--modbus URL | --serial URL) [--unit N] [--register-map FILE]
                         [--without-feature NAME] [--max-drift-ppm PPM] [--json]
    croupier pack OUT [--output FILE]
    croupier verify PACK [--no-recheck] [--expect-sha256 HEX]

Exit codes of ``run`` (each scenario's outcome: docs/scenarios.md "Outcome"):

* 0 every scenario that ran is MET (a scenario NOT APPLICABLE on the bench is not run, and listed
  loudly; if none ran, 1);
* 1 one or more is NOT MET (a check failed that was not expected to, an expected FAIL passed in a
  full-length run, or a scenario crashed);
* 2 bad input (nothing was run), or a real device unreachable or not the device the scenario needs
  (the run stopped there: docs/wire/real-devices.md);
* 3 none is NOT MET but one or more is NOT DECISIVE: a check it names (``expect.fail`` or
  ``expect.pass``) came out indeterminate, or an expected FAIL passed in a run ``--max-rounds`` cut
  short — a smoke run says so, it does not fail.

``check TRACE`` exits the same way for the one scenario its trace records.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Annotated, Optional

import orjson
import typer
from rich.console import Console
from rich.table import Table

from hil.config import ConfigError

# help in Markdown: a docstring's paragraphs are wrapped to the terminal and `code` shows as code,
# never as raw backticks (each command's first paragraph is its line in ``croupier --help``)
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode="markdown",
                  help="Croupier: hardware-in-the-loop test rig for live-casino game devices.\n\n"
                       "Run a scenario suite on a bench of simulated or real devices and get a verdict per "
                       "scenario, citing the regulation (`croupier run`); re-check a recorded trace "
                       "(`croupier check`); serve a device's firmware stub (`croupier stub`). "
                       "`croupier COMMAND --help` for each command.")

#: every game's scenarios: scenarios/crazy_time, scenarios/roulette
BUNDLED_SUITE = Path(__file__).resolve().parents[1] / "scenarios"
EXIT_OK, EXIT_EXPECTATION, EXIT_BAD_INPUT = 0, 1, 2
#: ``run`` / ``check``: no scenario NOT MET, but one or more NOT DECISIVE (hil.runner.judge)
EXIT_NOT_DECISIVE = 3


def _bad_input(exc: ConfigError) -> typer.Exit:
    sys.stderr.write(f"error: {exc}\nnothing was run\n")  # plain: a path must never be wrapped
    return typer.Exit(EXIT_BAD_INPUT)


#: ``-q`` / ``-v`` / ``--log-file``, on every command that runs long or talks to devices (hil.logs)
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="errors only: no progress, no table (run: one line)")]
VerboseOpt = Annotated[int, typer.Option("--verbose", "-v", count=True, help="-v info, -vv debug (each round) on stderr")]
LogFileOpt = Annotated[Optional[Path], typer.Option(
    "--log-file", help="append structured logs here, one JSON object a line (info and above; debug at -vv)")]


def _logging(quiet: bool, verbose: int, log_file: Path | None) -> int:
    """Set up logging (``hil.logs.configure``) from the options; returns the verbosity (-1..2).
    -q with -v, or a log file that cannot be opened, is bad input (exit 2)."""
    from hil.logs import configure

    if quiet and verbose:
        sys.stderr.write("error: -q or -v, not both\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    verbosity = -1 if quiet else min(verbose, 2)
    try:
        configure(verbosity, log_file)
    except OSError as exc:
        sys.stderr.write(f"error: --log-file {log_file}: cannot write: {exc.strerror or exc}\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    return verbosity


def run_suite_with_progress(scenarios, bench, rules, out: Path, seed, jobs: int, roulette_x, resume: bool,
                            verbosity: int = 0) -> list[dict]:
    """``hil.runner.run_suite`` with its progress on stderr (``hil.progress.make_progress``: live bars
    on a terminal, a line every 10 s elsewhere, none at -q), closed whatever happens."""
    from hil.progress import make_progress
    from hil.runner import run_suite

    progress = make_progress([(s.scenario.name, s.scenario.rounds) for s in scenarios], verbosity)
    try:
        return run_suite(scenarios, bench, rules, out, seed, jobs, roulette_x, resume, progress=progress)
    finally:
        progress.close()


def run_suite_on_cluster(scenarios, bench, rules, out: Path, seed, roulette_x, resume: bool, verbosity: int,
                         workers: int | None, cluster: str | None, info: dict) -> list[dict]:
    """The suite as Dask tasks (``hil.dask_run``), its progress as ``run_suite_with_progress``'s;
    ``info`` gets report.json's ``provenance.cluster`` (the scheduler, each scenario's worker), also
    when the bench refused the run."""
    from hil.applicability import BenchRefused
    from hil.dask_run import cluster_provenance, run_suite_dask, suite_client
    from hil.progress import make_progress

    if workers is None:  # a bench not fully simulated runs one scenario at a time: one worker
        workers = 1 if bench.config.real_time else min(len(scenarios), os.cpu_count() or 1)
    with suite_client(bench, workers, cluster) as client:
        progress = make_progress([(s.scenario.name, s.scenario.rounds) for s in scenarios], verbosity)
        try:
            results, where = run_suite_dask(client, scenarios, bench, rules, out, seed, roulette_x, resume, progress)
        except BenchRefused as exc:
            info.update(cluster_provenance(client, getattr(exc, "placement", {})))
            raise
        finally:
            progress.close()
        info.update(cluster_provenance(client, where))
        return results


def print_one_line(report: dict, out: Path) -> None:
    """``run -q``'s result: the outcome counts and where the report is, on one line (stdout)."""
    s = report["summary"]
    sys.stdout.write(f"{s['expectations_met']}/{s['scenarios']} met, {s['expectations_not_met']} not met, "
                     f"{s.get('not_decisive', 0)} not decisive, {s['not_applicable']} not applicable: "
                     f"{out / 'report.json'}\n")


#: the folders ``_archive_previous`` names (and the only ones it ever deletes)
_ARCHIVE_STAMP = re.compile(r"\d{8}T\d{6}\.\d{6}Z")


def _archive_previous(out: Path, keep: int = 5, *, quiet: bool = False) -> None:
    """A run never overwrites an earlier one: its reports and traces move to ``archive/<UTC stamp>``,
    and ``archive/`` keeps the ``keep`` most recent earlier runs (0: none): older ones are deleted,
    with one line on stderr saying which. Only folders named as this function names them are ever
    deleted."""
    old = [p for p in (out / "report.json", out / "junit.xml", out / "traces", out / "manifest.json", out / "inputs",
                       out / "evidence-pack.tar", out / "report.html", out / "analysis.json") if p.exists()]
    archive = out / "archive"
    if old:
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        dest = archive / stamp
        dest.mkdir(parents=True)
        for p in old:
            shutil.move(str(p), dest / p.name)
    runs = sorted(p for p in archive.iterdir() if p.is_dir() and _ARCHIVE_STAMP.fullmatch(p.name)) \
        if archive.is_dir() else []
    if drop := runs[:max(len(runs) - keep, 0)]:
        for p in drop:
            shutil.rmtree(p)
        if not quiet:
            sys.stderr.write(f"archive: deleted {len(drop)} earlier run(s) beyond --keep {keep} "
                             f"({', '.join(p.name for p in drop[:3])}{', …' if len(drop) > 3 else ''}) from {archive}\n")


def check_scenario(loaded, bench) -> None:
    """What ``run`` checks of a loaded scenario before it runs anything: its own Rules Submission
    (refused now, not mid-run; one that cannot be read is said at the scenario's field) and the
    seats it needs of the bench (``hil.scenario.check_against_bench``). ConfigError otherwise."""
    from hil.runner import scenario_rules
    from hil.scenario import check_against_bench, field_line

    try:
        scenario_rules(loaded)
    except ConfigError as exc:
        if exc.line is None and exc.source != loaded.path:  # the file it names cannot be read
            raise ConfigError(loaded.path, field_line(loaded, ("rules_submission",)), "rules_submission",
                              f"{exc.source}: {exc.message}") from None
        raise
    check_against_bench(loaded, bench)


def load_run_inputs(paths: list[Path] | None, bench: Path | None, rules: Path | None,
                    roulette_x_rules: Path | None, max_rounds: int | None = None) -> tuple:
    """Everything ``run`` reads before it runs anything: (scenarios, bench, rules, Roulette X rules).
    A bad file raises ConfigError (file, line, field): ``run`` exits 2 and nothing runs. Each
    scenario is checked with ``check_scenario`` (its Rules Submission, the bench's seats)."""
    from hil.bench import load_bench
    from hil.runner import load_roulette_x_rules, load_rules
    from hil.scenario import discover, load_scenario

    files = discover(list(paths) if paths else [BUNDLED_SUITE])
    if not files:
        where = ", ".join(map(str, paths)) if paths else str(BUNDLED_SUITE)
        raise ConfigError(where, None, "", "no scenario files (*.yaml) found")
    scenarios = [load_scenario(f) for f in files]
    loaded_bench = load_bench(bench)
    for s in scenarios:
        check_scenario(s, loaded_bench)
    loaded_rules = load_rules(rules)
    loaded_rx = load_roulette_x_rules(roulette_x_rules)
    names = [s.scenario.name for s in scenarios]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(scenarios[names.index(dup[0])].path, None, "name", f"duplicate scenario name {dup[0]!r}")
    if max_rounds is not None:
        if max_rounds < 1:
            raise ConfigError("--max-rounds", None, "", "must be >= 1")
        scenarios = [dataclasses.replace(s, scenario=s.scenario.model_copy(update={"rounds": max_rounds}),
                                         cut_from_rounds=s.scenario.rounds)
                     if max_rounds < s.scenario.rounds else s for s in scenarios]
    return scenarios, loaded_bench, loaded_rules, loaded_rx


@app.command()
def run(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="scenario files or folders (default: the bundled suite)")] = None,
    bench: Annotated[Optional[Path], typer.Option(help="bench TOML (default: the embedded simulated bench)")] = None,
    rules: Annotated[Optional[Path], typer.Option(help="Rules Submission TOML (default: the shipped one)")] = None,
    roulette_x_rules: Annotated[Optional[Path], typer.Option(
        help="Roulette X Rules Submission TOML (default: the shipped reference one)")] = None,
    seed: Annotated[Optional[int], typer.Option(help="derive every scenario's seed from N", min=0, max=2**63 - 1)] = None,
    out: Annotated[Path, typer.Option(help="output folder: report.json, report.html, junit.xml, traces/")] = Path("out"),
    jobs: Annotated[int, typer.Option(help="worker processes (default 0: all cores; 1 with real devices)", min=0)] = 0,
    workers: Annotated[Optional[int], typer.Option(
        help="Dask workers: > 1 runs the scenarios as tasks on a local Dask cluster of N processes "
             "(docs/cluster.md)", min=1)] = None,
    cluster: Annotated[Optional[str], typer.Option(
        help="local | tcp://HOST:PORT: run the scenarios as tasks on a Dask cluster; a bench that is not fully "
             "simulated runs only on a worker declaring the resource bench:NAME (docs/cluster.md)")] = None,
    resume: Annotated[bool, typer.Option(
        help="go on with a killed run: each scenario's trace in OUT/traces continues after its last committed "
             "round, from the table's state committed with it (streaks, meters)")] = False,
    max_rounds: Annotated[Optional[int], typer.Option(
        help="cap every scenario's rounds (a smoke run: what it leaves undecided is NOT DECISIVE, exit 3)")] = None,
    keep: Annotated[int, typer.Option(
        help="earlier runs OUT/archive keeps (the most recent; older ones are deleted, said on stderr; 0: none)",
        min=0)] = 5,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = 0,
    log_file: LogFileOpt = None,
) -> None:
    """Run scenarios on the bench; print a verdict per scenario; write the reports.

    The reports go to OUT: report.json, report.html, junit.xml, manifest.json and the traces; an
    earlier run there moves to OUT/archive first. Exit 0 when every scenario that ran is MET, 1 when
    one is NOT MET (or none ran), 3 when none is NOT MET but one is NOT DECISIVE (a smoke run), 2 for
    bad input (nothing was run) or a real device unreachable or not the one the scenario needs."""
    from hil.report import build_report, print_summary, provenance, write_json, write_junit
    from hil.pack import manifest_for_run
    from hil.runner import run_suite

    started = dt.datetime.now(dt.timezone.utc)
    verbosity = _logging(quiet, verbose, log_file)
    on_dask = cluster is not None or (workers or 1) > 1
    if on_dask and jobs:
        sys.stderr.write("error: --jobs is the process pool; --workers/--cluster run on Dask: one or the other\n"
                         "nothing was run\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        scenarios, loaded_bench, loaded_rules, loaded_rx = load_run_inputs(paths, bench, rules, roulette_x_rules,
                                                                           max_rounds)
    except ConfigError as exc:
        raise _bad_input(exc) from None
    out.mkdir(parents=True, exist_ok=True)
    if not resume:
        _archive_previous(out, keep, quiet=quiet)
    # Real devices are one of each: their scenarios run one after the other.
    jobs = 1 if loaded_bench.config.real_time else (jobs or min(len(scenarios), os.cpu_count() or 1))
    from hil.applicability import BenchRefused

    from hil.cluster import ClusterError

    cluster_info: dict = {}  # report.json provenance.cluster: a run on Dask (docs/cluster.md)
    try:
        if on_dask:
            results = run_suite_on_cluster(scenarios, loaded_bench, loaded_rules, out, seed, loaded_rx, resume,
                                           verbosity, workers, cluster, cluster_info)
        else:
            results = run_suite_with_progress(scenarios, loaded_bench, loaded_rules, out, seed, jobs, loaded_rx,
                                              resume, verbosity)
    except ClusterError as exc:  # no worker can hold the bench, the out folder not shared, no scheduler: exit 2
        sys.stderr.write(f"error: {exc}\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BenchRefused as exc:  # a device unreachable or not the one the scenario needs: one error, exit 2
        results = getattr(exc, "results", [])
        refused = {"kind": exc.kind, "role": exc.role, "scenario": getattr(exc, "scenario", None), "reason": exc.message}
        report = build_report(results, provenance(loaded_bench, loaded_rules, scenarios, seed, started, loaded_rx),
                              refused)
        if cluster_info:
            report["provenance"]["cluster"] = cluster_info
        report["manifest"] = manifest_for_run(out, scenarios, loaded_bench, loaded_rules, loaded_rx)  # docs/pack.md
        write_json(report, out / "report.json")
        write_junit(report, out / "junit.xml")
        _write_html(report, out)
        label = {"mismatch": "bench/device mismatch", "unreachable": "device unreachable",
                 "unauthorised": "not authorised on a stub's control endpoint"}.get(exc.kind, "device failed at connect")
        sys.stderr.write(f"error: {label}: {exc.message}\n"
                         f"the run was stopped at scenario {refused['scenario']!r} "
                         f"({len(results)} scenario(s) ran before it; {out / 'report.json'})\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    report = build_report(results, provenance(loaded_bench, loaded_rules, scenarios, seed, started, loaded_rx))
    if cluster_info:
        report["provenance"]["cluster"] = cluster_info
    report["manifest"] = manifest_for_run(out, scenarios, loaded_bench, loaded_rules, loaded_rx)  # docs/pack.md
    write_json(report, out / "report.json")
    write_junit(report, out / "junit.xml")
    _write_html(report, out)
    if verbosity >= 0:
        print_summary(report, out)
    else:
        print_one_line(report, out)
    raise typer.Exit(run_exit_status(results))


def _write_html(report: dict, out: Path) -> None:
    """``out/report.html`` (docs/report.md). The run's verdicts are in report.json already: a page
    that cannot be written is an error message, never a traceback, and leaves the exit status alone."""
    from hil.html_report import write_html

    try:
        write_html(report, out)
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write(f"error: {out / 'report.html'} not written: {type(exc).__name__}: {exc}\n")


def run_exit_status(results: list[dict]) -> int:
    """``run``'s exit status from its scenarios' outcomes (``hil.report.run_outcome``)."""
    from hil.report import run_outcome

    return {"met": EXIT_OK, "not decisive": EXIT_NOT_DECISIVE}.get(run_outcome(results), EXIT_EXPECTATION)


#: the card side wagers (§§ 633b.17–633b.21; UTH, Criss-Cross): ``rules.blackjack_side.RTP_WAGERS``,
#: ``rules.poker_side_rtp.RTP_WAGERS`` (wager -> (paytable, decks) -> entries)
CARD_WAGER_MODULES = ("rules.blackjack_side", "rules.poker_side_rtp")


def _card_wagers() -> dict[str, tuple]:
    """wager name -> (rtp function, its paytables, default decks) for every card side wager."""
    import importlib

    out = {}
    for name in CARD_WAGER_MODULES:
        mod = importlib.import_module(name)
        for wager, fn in mod.RTP_WAGERS.items():
            out[wager] = (fn, tuple(mod.PAYTABLES_OF[wager]), mod.DEFAULT_DECKS)
    return out


RTP_GAMES = ("crazy-time", "roulette-up", "roulette-x")
WHEELS = {"single": "single-zero", "double": "double-zero"}


def _rtp_table(title: str, entries: list[dict]) -> None:
    table = Table(title=title)
    cols = (["wager"] + [c for c in ("paytable", "wheel", "decks") if any(c in e for e in entries)] + ["rtp", "rtp_exact", "method"]
            + (["rtp_long_run"] if any("rtp_long_run" in e for e in entries) else []))
    for col in cols:
        table.add_column(col)
    for e in entries:
        table.add_row(*[f"{e[c]:.4%}" if isinstance(e.get(c), float) else str(e.get(c, "")) for c in cols])
    Console().print(table)


@app.command()
def rtp(
    game: Annotated[str, typer.Argument(help="crazy-time | roulette-up | roulette-x | a card side wager "
                                             "(twenty-one-plus-three, royal-match, kings-bounty, blazing-sevens, "
                                             "blazing-sevens-multi, uth-trips, uth-bad-beat, play-the-board, "
                                             "ultimate-pairs, criss-cross-ultimate-pairs)")],
    rules: Annotated[Optional[Path], typer.Option(help="Rules Submission TOML (crazy-time, roulette-x)")] = None,
    paytable: Annotated[Optional[str], typer.Option(help="roulette-up: A..E, P1..P7; roulette-x: A | B")] = None,
    wheel: Annotated[Optional[str], typer.Option(help="roulette: single | double (zero)")] = None,
    decks: Annotated[Optional[int], typer.Option(help="card side wagers: decks in the shoe (default: 6 and 8)",
                                                 min=1)] = None,
    json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Exact return to player per wager (Crazy Time, Roulette Up, Roulette X, the card side wagers)."""
    cards = _card_wagers()
    if game not in RTP_GAMES and game not in cards:
        from hil.config import did_you_mean

        known = RTP_GAMES + tuple(cards)
        sys.stderr.write(f"error: unknown game {game!r}{did_you_mean(game, known)}; the games: {', '.join(known)}\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        if game in cards:
            doc = _card_rtp_doc(game, cards[game], paytable, decks, rules, wheel)
        elif decks is not None:
            raise ConfigError("--decks", None, "", f"{game} has no decks")
        else:
            doc = _rtp_doc(game, rules, paytable, wheel)
    except ConfigError as exc:
        raise _bad_input(exc) from None
    if json:
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    name = (doc.get("rules") or {}).get("name")
    _rtp_table(f"{game}: exact RTP" + (f" under {name}" if name else ""), doc["wagers"])


def _card_rtp_doc(game: str, spec: tuple, paytable: str | None, decks: int | None, rules, wheel) -> dict:
    """The ``rtp`` JSON document of a card side wager: every paytable (or ``paytable``) at each
    deck count (or ``decks``)."""
    fn, tables, default_decks = spec
    if rules is not None or wheel is not None:
        given = " and ".join(o for o, v in (("--rules", rules), ("--wheel", wheel)) if v is not None)
        raise ConfigError(given, None, "", f"{game} takes --paytable and --decks only")
    names = [paytable] if paytable else list(tables)
    try:
        entries = [e for d in ([decks] if decks else default_decks) for t in names for e in fn(t, d)]
    except ValueError as exc:
        given = " and ".join(o for o, v in (("--paytable", paytable), ("--decks", decks)) if v is not None)
        raise ConfigError(given or game, None, "", str(exc)) from None
    return {"game": game, "paytable": paytable, "decks": decks, "wagers": [e.to_json() for e in entries]}


def _rtp_doc(game: str, rules: Path | None, paytable: str | None, wheel: str | None) -> dict:
    """The ``rtp`` JSON document of ``game``; bad options or files raise ``ConfigError``."""
    if game == "crazy-time":
        from hil.runner import load_rules
        from rules.rtp import crazy_time_rtp

        if paytable or wheel:
            given = " and ".join(o for o, v in (("--paytable", paytable), ("--wheel", wheel)) if v)
            raise ConfigError(given, None, "", "crazy-time takes neither --paytable nor --wheel")
        loaded = load_rules(rules)
        return {"game": game,
                "rules": {"name": loaded.submission.name, "source": loaded.source, "sha256": loaded.sha256,
                          "schema": loaded.submission.schema_version},
                "wagers": [w.to_json() for w in crazy_time_rtp(loaded.submission)]}
    if wheel is not None and wheel not in WHEELS:
        raise ConfigError("--wheel", None, "", f"{game}: --wheel single or --wheel double (or none: both), not {wheel!r}")
    wheels = [WHEELS[wheel]] if wheel else list(WHEELS.values())
    if game == "roulette-up":
        from rules.roulette_up import PAYTABLES, paytable as up_paytable, roulette_up_rtp

        if rules is not None:
            raise ConfigError("--rules", None, "", "roulette-up has no Rules Submission: its paytables are § 617b.4's")
        try:
            tables = [up_paytable(paytable.removeprefix("P"))] if paytable else list(PAYTABLES.values())
        except (KeyError, ValueError) as exc:
            said = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
            raise ConfigError("--paytable", None, "", said if paytable in said  # it names the paytable already
                              else f"unknown Roulette Up paytable {paytable!r}: {said or exc}") from None
        entries = [e for w in wheels for t in tables for e in roulette_up_rtp(t, w)]
        return {"game": game, "paytable": paytable, "wheel": WHEELS[wheel] if wheel else None,
                "wagers": [e.to_json() for e in entries]}
    from hil.runner import load_submission
    from rules.roulette_x import (ROULETTE_X_REFERENCE_RESOURCE, RouletteXError, parse_roulette_x_submission,
                                  roulette_x_rtp)

    sub, source, sha256 = load_submission(rules, ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission)
    try:
        if paytable is not None:
            if paytable not in ("A", "B"):
                raise RouletteXError(f"§ 617b.5: Roulette X has Paytables A and B, not {paytable!r}")
            sub = sub.model_copy(update={"paytable": paytable})
        if wheel is None and sub.paytable == "B":
            wheels = ["double-zero"]  # § 617b.5(g): Paytable B is for the double zero wheel only
        entries = [e for w in wheels for e in roulette_x_rtp(sub, w)]
    except (RouletteXError, ValueError) as exc:
        raise ConfigError(source, None, "paytable", str(exc)) from None
    return {"game": game, "paytable": sub.paytable, "wheel": WHEELS[wheel] if wheel else None,
            "rules": {"name": sub.name, "source": source, "sha256": sha256, "schema": sub.schema_version},
            "wagers": [e.to_json() for e in entries]}


@app.command()
def check(
    trace: Annotated[Path, typer.Argument(help="a trace (.sqlite) that `croupier run` wrote")],
    budget_s: Annotated[Optional[float], typer.Option(
        help="override the lock-out latency budget the trace recorded, s (reported)")] = None,
    top_slot_tolerance_s: Annotated[Optional[float], typer.Option(
        help="override the Top Slot start tolerance the trace recorded, s (reported)")] = None,
    chi2_alpha: Annotated[Optional[float], typer.Option(
        help="override the χ² significance level the trace recorded (reported)")] = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = 0,
    log_file: LogFileOpt = None,
) -> None:
    """Re-run the checks on a recorded trace: the trace alone is the evidence.

    The limits and the expectation are those the run recorded in the trace; an override is explicit
    and reported. The outcome is judged as `run` judges a scenario (docs/scenarios.md, "Outcome"):
    exit 0 met, 1 not met, 3 not decisive, 2 for a file that is no trace."""
    _logging(quiet, verbose, log_file)
    import sqlite3

    from hil.checks import CheckConfig, run_checks
    from hil.runner import judge
    from hil.trace import TraceReader

    import math

    for option, value, below_one in (("--budget-s", budget_s, False), ("--top-slot-tolerance-s", top_slot_tolerance_s,
                                                                       False), ("--chi2-alpha", chi2_alpha, True)):
        if value is not None and not (math.isfinite(value) and 0 < value and (value < 1 or not below_one)):
            sys.stderr.write(f"error: {option}: need a finite number > 0{' and < 1' if below_one else ''}, not {value}\n")
            raise typer.Exit(EXIT_BAD_INPUT)
    if not trace.exists():
        sys.stderr.write(f"error: {trace}: no such trace\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    if trace.is_dir():
        sys.stderr.write(f"error: {trace}: a folder, not a trace (check takes one traces/*.sqlite file of a run)\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        with TraceReader(trace) as reader:
            meta = reader.meta()
            reader.count()  # its events table is there
            reader.check_records()  # every record readable (TraceDamaged, a ValueError: which round)
        if "trace_schema" not in meta:  # an SQLite file, but not one `croupier run` wrote
            raise ValueError("no trace_schema in its metadata")
        for key in ("check_config", "expect"):
            if not isinstance(meta.get(key) or {}, dict):
                raise ValueError(f"its {key} metadata is not a mapping")
    except (sqlite3.DatabaseError, ValueError) as exc:
        sys.stderr.write(f"error: {trace}: not a Croupier trace ({exc})\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    recorded = CheckConfig.from_json(meta.get("check_config"))
    overrides = {k: v for k, v in (("lockout_budget_s", budget_s), ("top_slot_start_tolerance_s", top_slot_tolerance_s),
                                   ("chi2_alpha", chi2_alpha)) if v is not None}
    config = dataclasses.replace(recorded, **overrides)
    results = [r.to_json() for r in run_checks(trace, config)]
    recorded_expect = meta.get("expect") or {}
    expect = recorded_expect.get("fail", [])
    verdict = judge(results, expect, expected_pass=recorded_expect.get("pass", []),
                    cut_from_rounds=recorded_expect.get("cut_from_rounds"))
    out = {"trace": str(trace), "scenario": meta.get("scenario"), "check_config": dataclasses.asdict(config),
           "check_config_recorded": "check_config" in meta,
           "overrides": {k: {"recorded": getattr(recorded, k), "used": v} for k, v in overrides.items()},
           "expected_failures": expect, "expected_passes": recorded_expect.get("pass", []), **verdict,
           "checks": results}
    if overrides:
        sys.stderr.write("note: judged with overrides of the recorded limits: "
                         + ", ".join(f"{k} {getattr(recorded, k)} -> {v}" for k, v in overrides.items()) + "\n")
    sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    raise typer.Exit({"met": EXIT_OK, "not decisive": EXIT_NOT_DECISIVE}.get(verdict["outcome"], EXIT_EXPECTATION))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []})
def stub(ctx: typer.Context) -> None:
    """Serve a device's firmware stub: its SimPy model behind its wire protocol (Modbus, serial).

    `croupier stub DEVICE --modbus URL ...`; `croupier stub --help` lists its options. The stub
    runs in this process (`python -m firmware_stubs` takes the same arguments), so whoever started
    it ends it by its pid."""
    os.execv(sys.executable, [sys.executable, "-m", "firmware_stubs", *ctx.args])


@app.command()
def traceability(
    out: Annotated[Optional[Path], typer.Option(help="write the matrix here (default: print)")] = None,
) -> None:
    """Print the requirement traceability matrix: clause → check → fault scenarios, every game.

    Every clause of the supplied sections (Crazy Time, Roulette Up and Roulette X, the Blackjack,
    Ultimate Texas Hold 'Em, Criss-Cross and Crazy 4 Poker wagers) with its status: fault-proven,
    checked, out of scope or NOT COVERED (docs/traceability.md is this output)."""
    from hil.traceability import matrix

    text = matrix(BUNDLED_SUITE)
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"error: --out {out}: cannot write: {exc.strerror or exc}\n")
            raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command()
def outcomes(
    path: Annotated[Path, typer.Argument(help="a trace (.sqlite), a run's out folder, or with --from a raw wheel log")],
    csv_out: Annotated[bool, typer.Option("--csv", help="CSV on stdout")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False,
    source: Annotated[Optional[str], typer.Option("--from", help="read PATH as a raw device log: slingshot")] = None,
    wheel: Annotated[str, typer.Option(help="for --from: single-zero or double-zero (37 is 00 on double zero)")]
    = "single-zero",
    quiet: QuietOpt = False,
    verbose: VerboseOpt = 0,
    log_file: LogFileOpt = None,
) -> None:
    """List each game of a roulette wheel: spin number, result, direction, rotor speed, status.

    Read from a trace, a run's out folder, or (`--from slingshot`) a raw Slingshot-style wheel log
    (plain lines, or lines after a timestamp). The status is settled, or void and why. Exit 2 for a
    source that cannot be read."""
    _logging(quiet, verbose, log_file)
    from hil.outcomes import OutcomesError, outcomes as read_outcomes

    if csv_out and json_out:
        sys.stderr.write("error: --csv or --json, not both\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    if wheel not in ("single-zero", "double-zero"):
        from hil.config import did_you_mean

        sys.stderr.write(f"error: --wheel {wheel!r}: single-zero or double-zero"
                         f"{did_you_mean(wheel, ['single-zero', 'double-zero'])}\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        got = read_outcomes(path, source, wheel)
    except OutcomesError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if source is not None and not got.rows:
        lines = next(iter(got.counts.values()), {})
        if lines.get("garbled", 0) and not any(lines.get(k, 0) for k in ("status", "bare", "power")):
            # a file none of whose lines is a wheel's (a README given as the log): no log at all
            sys.stderr.write(f"error: {path}: not a {source} wheel log (none of its {lines['garbled']} "
                             "non-blank line(s) is a line of the wheel's protocol)\n")
            raise typer.Exit(EXIT_BAD_INPUT)
    if csv_out:
        sys.stdout.write(got.to_csv())
    elif json_out:
        sys.stdout.write(orjson.dumps(got.to_json(), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        table = Table(title=f"outcomes: {path}")
        for col in ("game", "spin", "result", "direction", "rotor rpm", "time s", "status", "round"):
            table.add_column(col)
        for r in got.rows:
            status = r.status if r.void_reason is None else f"{r.status} ({r.void_reason})"
            table.add_row(str(r.game), str(r.spin), "" if r.result is None else str(r.result), r.direction or "",
                          "" if r.rotor_rpm is None else str(r.rotor_rpm),
                          "" if r.time_s is None else f"{r.time_s:.3f}", status, "" if r.round is None else str(r.round))
        Console().print(table)
        d = got.to_json()
        Console().print(f"{d['games']} games: {d['settled']} settled, {d['void']} void, {d['open']} open")


@app.command()
def conformance(
    device: Annotated[str, typer.Argument(help="money-wheel, top-slot, wagering, progressive-system, multiplier-board, "
                                               "coin-flipper, pachinko-board, crazy-time-world-wheel, illuminator, "
                                               "roulette-wheel")],
    modbus: Annotated[Optional[str], typer.Option(help="tcp://HOST:PORT or rtu://PATH?baudrate=N")] = None,
    serial: Annotated[Optional[str], typer.Option(help="a pyserial URL or device path: the serial framed protocol "
                                                       "(money-wheel, top-slot, wagering) or the roulette wheel's "
                                                       "line protocol")] = None,
    unit: Annotated[int, typer.Option(help="Modbus device id", min=0, max=247)] = 1,
    register_map: Annotated[Optional[Path], typer.Option(help="the device's register map TOML (default: the shipped one)")]
    = None,
    max_drift_ppm: Annotated[Optional[float], typer.Option(
        help="the clock rate the device may keep from the wall clock (default 500 ppm, the bench's default)")] = None,
    without_feature: Annotated[Optional[list[str]], typer.Option(
        help="an optional feature group the device lacks, e.g. injection (its points dropped from the map)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="one JSON object on stdout")] = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = 0,
    log_file: LogFileOpt = None,
) -> None:
    """Check a device against its wire contract (docs/wire), clause by clause.

    docs/conformance.md lists the clauses. Exit 0 when every clause passed (or was skipped, saying
    why), 1 when a clause failed, 2 for bad input or an unreachable device (nothing judged)."""
    _logging(quiet, verbose, log_file)
    from hil.conformance import BadInput, print_report, run as run_conformance

    try:
        report = run_conformance(device, modbus=modbus, serial=serial, unit=unit, register_map=register_map,
                                 max_drift_ppm=max_drift_ppm, without_features=tuple(without_feature or ()))
    except BadInput as exc:
        sys.stderr.write(f"error: {exc}\nnothing was judged\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if json_out:
        sys.stdout.write(orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print_report(report)
    if report.error:
        sys.stderr.write(f"error: {report.error}\n")
    raise typer.Exit(report.exit_code)


from hil import pack_cli  # noqa: E402 — `croupier pack` and `croupier verify` (docs/pack.md)

pack_cli.register(app)


@app.command()
def mc(
    game: Annotated[str, typer.Argument(help="a game of `croupier rtp`: crazy-time, roulette-up, roulette-x, "
                                             "a card side wager")],
    rounds: Annotated[int, typer.Option(help="rounds (spins, streaks, hands) to play", min=1)] = 1_000_000,
    seed: Annotated[int, typer.Option(help="the run's seed (SeedSequence root)", min=0)] = 0,
    workers: Annotated[int, typer.Option(help="worker processes; > 1 starts a local Dask cluster", min=1)] = 1,
    cluster: Annotated[Optional[str], typer.Option(
        help="'local', or a running Dask scheduler: tcp://HOST:PORT (docs/mc.md)")] = None,
    rules: Annotated[Optional[Path], typer.Option(help="Rules Submission TOML (crazy-time, roulette-x)")] = None,
    paytable: Annotated[Optional[str], typer.Option(help="roulette-up: A..E, P1..P7; roulette-x: A | B; cards")] = None,
    wheel: Annotated[Optional[str], typer.Option(help="roulette: single | double (zero)")] = None,
    decks: Annotated[Optional[int], typer.Option(help="card side wagers: decks in the shoe", min=1)] = None,
    base: Annotated[bool, typer.Option("--base", help="crazy-time: the base game only (number wagers)")] = False,
    confidence: Annotated[float, typer.Option(help="confidence of the interval")] = 0.95,
    chunk: Annotated[int, typer.Option(help="rounds per chunk (at most 2**20; part of the figures' identity)",
                                       min=1)] = 2 ** 20,
    json: Annotated[bool, typer.Option("--json", help="print the figures as JSON (timing on stderr)")] = False,
) -> None:
    """Monte Carlo of a game's maths: per wager RTP, SD, hit frequency and CI against the exact RTP.

    The figures are bit-identical for every `--workers` and `--cluster` (docs/mc.md); the timing is
    printed on stderr with `--json`, under the table without."""
    from hil.cluster import ClusterError
    from hil.mc import McError, run_mc
    from rules.mc import GAMES, GameNotBuilt

    def bad(message: str) -> typer.Exit:
        sys.stderr.write(f"error: {message}\nnothing was run\n")
        return typer.Exit(EXIT_BAD_INPUT)

    if game not in GAMES:
        from hil.config import did_you_mean

        raise bad(f"unknown game {game!r}{did_you_mean(game, tuple(GAMES))}; the games: {', '.join(GAMES)}")
    try:
        spec = GAMES[game]
    except GameNotBuilt as exc:
        raise bad(f"{exc.args[0]}; built: {', '.join(GAMES.available()) or 'none'}") from None
    try:
        options = spec.options(rules=rules, paytable=paytable, wheel=wheel, decks=decks, base=base)
        result = run_mc(game, rounds, seed, options, workers=workers, cluster=cluster, chunk=chunk,
                        confidence=confidence)
    except (ValueError, ClusterError) as exc:  # ConfigError, McError and the games' own are ValueErrors
        raise bad(str(exc)) from None
    timing = (f"{result.rounds:,} {result.unit} in {result.wall_s:.2f} s: {result.rounds_per_s:,.0f} {result.unit}/s "
              f"({'cluster ' + cluster if cluster not in (None, 'local') else f'{workers} worker' + ('s' if workers > 1 else '')}"
              + (f"; {result.cluster_start_s:.2f} s to start or reach the cluster)" if result.cluster_start_s >= 0.01 else ")"))
    if json:
        sys.stdout.write(orjson.dumps(result.figures_json(), option=orjson.OPT_INDENT_2).decode() + "\n")
        sys.stderr.write(f"mc: {timing}\n")
        return
    pct = lambda x: "" if x is None else f"{x:.4%}"  # noqa: E731
    table = Table(title=f"{game}: Monte Carlo, {result.rounds:,} {result.unit}, seed {seed}, "
                        f"{confidence:.1%} confidence intervals")
    for col in ("wager", "rtp", "sd", "hit frequency", "CI", "exact rtp", "in CI", "z"):
        table.add_column(col)
    for w in result.wagers:
        lo, hi = w.ci
        table.add_row(w.wager, pct(w.tally.rtp), f"{w.tally.sd:.4f}", pct(w.tally.hit_frequency),
                      f"{lo:.4%} – {hi:.4%}", pct(None if w.exact is None else float(w.exact)),
                      {True: "yes", False: "NO", None: ""}[w.exact_in_ci], "" if w.z is None else f"{w.z:+.2f}")
    console = Console(width=None if sys.stdout.isatty() else 150)
    console.print(table)
    console.print(timing)


@app.command()
def plan(
    game: Annotated[str, typer.Option(help="roulette, roulette-double, money-wheel or top-slot (reel 1)")],
    bias: Annotated[str, typer.Option(help="the bias to detect: 'pocket 17 +20 %', 'pockets 26 0 32 +30 %', "
                                          "'section pachinko +20 %', 'neighbour +20 %', 'clockwise pocket 17 +20 %'")],
    alpha: Annotated[float, typer.Option(help="the battery's overall level (its false-alarm rate)")] = 0.01,
    power: Annotated[float, typer.Option(help="the probability of detecting the bias asked for")] = 0.9,
    simulations: Annotated[int, typer.Option(help="simulated runs per N evaluated (0: the noncentral chi-square only)")]
    = 200,
    seed: Annotated[int, typer.Option(help="the simulation's seed (the same figures every time)")] = 0,
    correction: Annotated[str, typer.Option(help="the battery's multiple-comparison correction: holm or bonferroni")]
    = "holm",
    json_out: Annotated[bool, typer.Option("--json", help="one JSON object on stdout")] = False,
) -> None:
    """Plan a bias test: the spins needed to detect a bias at level alpha with the power asked.

    Two methods, side by side (docs/plan.md): the noncentral chi-square of the one test built for
    the bias, at the battery's first Holm level alpha/m; and the smallest N at which `croupier
    analyze`'s battery itself flags the bias in at least that share of simulated runs (bisection,
    fixed seed, a 95 % interval on the power achieved). Exit 2 for bad options."""
    from hil.stats.plan import plan as make_plan

    try:
        if correction not in ("holm", "bonferroni"):
            raise ValueError(f"--correction {correction!r}: holm or bonferroni")
        if simulations < 0 or 0 < simulations < 10:
            raise ValueError(f"--simulations {simulations}: 0 (the noncentral chi-square only) or at least 10")
        doc = make_plan(game, bias, alpha, power, simulations, seed, correction)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if json_out:
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")
        return
    a, s = doc["analytic"], doc["simulated"]
    table = Table(title=f"plan: {doc['bias']} on {doc['alphabet']}, alpha {alpha}, power {power}")
    for col in ("method", "plays", "test", "level", "power at N"):
        table.add_column(col)
    table.add_row("noncentral chi-square", f"{a['n']:,}", f"{a['test']} ({a['dof']} dof)",
                  f"{a['level']:.3g} (alpha/{a['battery_size']}, {correction})", f"{a['power']:.3f}")
    if (b := doc["analytic_per_symbol"]) is not None:
        table.add_row("exact binomial", f"{b['n']:,}", b["test"], f"{b['level']:.3g} (alpha/{b['battery_size']}, {correction})",
                      f"{b['power']:.3f}")
    if s is not None:
        shown = "-" if s["n"] is None else f"{s['n']:,}"
        lo, hi = s["power_ci"]
        table.add_row("simulation", shown, f"the battery's verdict 'fail' ({s['simulations']} runs, seed {s['seed']})",
                      f"{alpha} overall ({correction})", f"{s['power']:.3f} [{lo:.3f}, {hi:.3f}]")
    Console().print(table)
    if s is not None and s["flagged_by"]:
        Console().print("flagged by: " + ", ".join(f"{t} {share:.0%}" for t, share in list(s["flagged_by"].items())[:4]))
    if s is not None and s["note"]:
        Console().print(s["note"])


@app.command()
def analyze(
    path: Annotated[Path, typer.Argument(help="a trace (.sqlite), a run's out folder, a `croupier outcomes` CSV or "
                                              "JSON, a CSV with a result column, or with --from slingshot a raw wheel log")],
    source: Annotated[Optional[str], typer.Option(
        "--from", help="read PATH as: trace, csv, json or slingshot (a raw wheel log); default: by what it is")] = None,
    wheel: Annotated[Optional[str], typer.Option(
        help="the results' alphabet where the file cannot say: single, double, money-wheel (sections 0-53), "
             "money-wheel-spots, pachinko, top-slot-reel1, top-slot-reel2")] = None,
    alpha: Annotated[float, typer.Option(help="the family-wise level of the whole analysis (its false-alarm rate)")]
    = 0.01,
    correction: Annotated[str, typer.Option(help="the multiple-comparison correction within a battery: holm or "
                                                 "bonferroni")] = "holm",
    json_out: Annotated[bool, typer.Option("--json", help="one JSON object on stdout")] = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = 0,
    log_file: LogFileOpt = None,
) -> None:
    """Test outcome data for bias and dependence: the battery of docs/analyze.md, per device.

    Reads a trace or a run's out folder (each device's own reports: the money wheel and its Top
    Slot, Pachinko landings, bonus boards, the ball wheel and its lit numbers), `croupier outcomes`
    CSV or JSON, a plain CSV with a `result` column (optional `direction`, `time`, `dealer`, `spin`),
    or a raw wheel log (`--from slingshot`). Each data set gets the χ² per symbol, runs, correlation
    within a play and between consecutive plays, the pocket-distance dealer signature and
    per-direction splits (and per dealer), the correction stated. A run folder with a report.html
    gets OUT/analysis.json and an "Outcome analysis" section in it. Exit 0 pass, 1 fail, 3
    undecided (evidence too thin), 2 bad input."""
    verbosity = _logging(quiet, verbose, log_file)
    import math

    from hil.analyze import AnalyzeError, analyze as run_analysis, print_analysis, read as read_outcome_data

    if isinstance(alpha, bool) or not (math.isfinite(alpha) and 0 < alpha < 1):
        sys.stderr.write(f"error: --alpha: need a number in (0, 1), not {alpha}\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    if correction not in ("holm", "bonferroni"):
        sys.stderr.write(f"error: --correction {correction!r}: holm or bonferroni\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        datasets = read_outcome_data(path, source, wheel)
    except (AnalyzeError, ValueError) as exc:  # AnalyzeError, and the data contract's own ValueError
        sys.stderr.write(f"error: {' '.join(str(exc).split())}\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    result = run_analysis(datasets, alpha, correction, str(path))
    doc = result.to_json(plots=False)
    if path.is_dir() and (path / "report.html").exists():
        from hil.analyze import write_report_section

        try:
            write_report_section(result, path)
        except (OSError, ValueError) as exc:  # the analysis stands; the page could not be re-rendered
            sys.stderr.write(f"warning: {path / 'report.html'}: the outcome analysis not added: {exc}\n")
    if json_out:
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print_analysis(result, verbosity, Console(width=None if sys.stdout.isatty() else 160))
    raise typer.Exit({"pass": EXIT_OK, "fail": EXIT_EXPECTATION, "undecided": EXIT_NOT_DECISIVE}[result.verdict])

def main() -> None:
    app()
