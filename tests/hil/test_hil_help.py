"""The command line's help reads well in a terminal: `croupier --help` and every `croupier CMD
--help` render their Markdown (code without raw backticks), and every option has help."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from hil.cli import app

COMMANDS = typer.main.get_command(app).commands


def test_the_top_level_help_lists_every_command_without_raw_backticks():
    res = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "`" not in res.output, res.output
    assert all(name in res.output for name in COMMANDS)


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if n != "stub"))  # stub --help execs the stub's own
def test_each_command_help_renders_clean_and_every_option_has_help(name):
    res = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "`" not in res.output, res.output
    undocumented = [p.name for p in COMMANDS[name].params if p.name != "help" and not (getattr(p, "help", "") or "")]
    assert not undocumented, f"{name}: options without help: {undocumented}"


def test_the_stub_command_says_what_it_is():
    text = COMMANDS["stub"].help or ""
    assert "``" not in text and text.split("\n\n")[0].startswith("Serve a device's firmware stub")
