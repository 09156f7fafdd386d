"""``croupier pack`` and ``croupier verify`` (hil.pack; docs/pack.md), registered on the app by
``hil.cli``.

    croupier pack OUT [--output FILE]      one archive of the run folder OUT (default OUT/evidence-pack.tar)
    croupier verify PACK [--no-recheck] [--expect-sha256 HEX]

``verify`` exits 0 when everything holds, 1 when anything does not (each problem named: the member,
and the round for a trace), 2 when PACK is no readable file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def pack(
    out: Annotated[Path, typer.Argument(help="the run folder `croupier run --out` wrote (report.json, manifest.json, "
                                             "traces/, inputs/)")],
    output: Annotated[Optional[Path], typer.Option(help="the archive to write (default: OUT/evidence-pack.tar)")] = None,
) -> None:
    """Write the run's evidence pack: ONE deterministic tar archive of the reports, the manifest, the
    traces and every input file, sealed (docs/pack.md). Exit 2 when the folder cannot be packed."""
    from hil.pack import PackError, write_pack

    if not (out / "report.json").is_file():
        sys.stderr.write(f"error: {out}: no report.json: not a folder `croupier run` wrote\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        info = write_pack(out, output)
    except (PackError, OSError) as exc:
        sys.stderr.write(f"error: cannot pack {out}: {exc}\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    sys.stdout.write(f"wrote {info.path}: {info.members} members ({info.traces} trace(s), {info.inputs} input file(s)), "
                     f"{info.bytes:,} bytes\nsha256 {info.sha256}\n")


def verify(
    pack_file: Annotated[Path, typer.Argument(metavar="PACK", help="an evidence pack `croupier pack` wrote")],
    recheck: Annotated[bool, typer.Option(help="re-run the checks on every trace and compare with report.json")] = True,
    expect_sha256: Annotated[Optional[str], typer.Option(
        help="the pack's SHA-256 as received apart from it (e.g. in the lab's letter): must match")] = None,
) -> None:
    """Verify an evidence pack: every byte against its seal and manifest, the report's manifest hash,
    each trace's hash chain, and the checks re-run on the traces against report.json. Exit 0 when all
    holds, 1 naming each member (and trace round) that does not, 2 for no readable file."""
    from hil.pack import verify_pack

    if not pack_file.is_file():
        sys.stderr.write(f"error: {pack_file}: {'a folder, not a pack' if pack_file.is_dir() else 'no such file'}\n")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        result = verify_pack(pack_file, recheck=recheck)
    except OSError as exc:
        sys.stderr.write(f"error: {pack_file}: cannot read it ({exc.strerror or exc})\n")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if expect_sha256 is not None and expect_sha256.strip().lower() != result.sha256:
        from hil.pack import Problem

        result.problems.insert(0, Problem(None, f"the pack's sha256 is {result.sha256}, not the "
                                                f"{expect_sha256.strip()} expected"))
    if not result.ok:
        for p in result.problems:
            sys.stderr.write(f"FAIL {p}\n")
        sys.stderr.write(f"{pack_file}: {result.summary()}\n")
        raise typer.Exit(EXIT_FAILED)
    note = "" if recheck else " (checks not re-run: --no-recheck)"
    sys.stdout.write(f"{pack_file}: {result.summary()}{note}\n")


def register(app: typer.Typer) -> None:
    app.command()(pack)
    app.command()(verify)
