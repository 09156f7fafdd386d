"""Archive retention (issue 14): ``croupier run --keep N`` (default 5) keeps the N most recent
earlier runs in OUT/archive and deletes older ones with one line saying so; ``--keep 0`` keeps none.
Nothing in OUT/archive that ``run`` did not put there is ever deleted."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from hil.cli import _archive_previous, app


def _a_run(out: Path, n: int) -> None:
    """What a run leaves in ``out``: its reports and a trace."""
    (out / "traces").mkdir(parents=True, exist_ok=True)
    (out / "traces" / "s.sqlite").write_bytes(b"trace %d" % n)
    (out / "report.json").write_text(f'{{"run": {n}}}')


def _archived(out: Path) -> list[str]:
    return [(p / "report.json").read_text() for p in sorted((out / "archive").iterdir()) if p.name != "mine"]


def test_the_n_most_recent_earlier_runs_are_kept_and_the_deletion_said(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "archive" / "mine").mkdir(parents=True)  # a user's own folder: never touched
    for n in range(1, 5):
        _a_run(out, n)
        _archive_previous(out, 2)
    assert _archived(out) == ['{"run": 3}', '{"run": 4}']  # the two most recent; runs 1 and 2 deleted
    assert not (out / "report.json").exists() and not (out / "traces").exists()
    err = capsys.readouterr().err
    assert err.count("archive: deleted 1 earlier run(s) beyond --keep 2") == 2, err
    assert (out / "archive" / "mine").is_dir()


def test_keep_0_keeps_no_earlier_run(tmp_path, capsys):
    out = tmp_path / "out"
    _a_run(out, 1)
    _archive_previous(out, 5)
    _a_run(out, 2)
    _archive_previous(out, 0)
    assert _archived(out) == [] and not (out / "report.json").exists()
    assert "deleted 2 earlier run(s) beyond --keep 0" in capsys.readouterr().err
    _archive_previous(out, 0)  # nothing to archive, nothing to delete: no line
    assert capsys.readouterr().err == ""


def test_keep_is_an_option_of_run_and_refuses_a_negative_count():
    res = CliRunner().invoke(app, ["run", "--keep", "-1"])
    assert res.exit_code == 2 and "--keep" in res.output, res.output
