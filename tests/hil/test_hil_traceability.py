"""docs/traceability.md is generated from the checks and the bundled scenarios, and current."""

from pathlib import Path

from hil.cli import BUNDLED_SUITE
from hil.traceability import matrix

DOC = Path(__file__).resolve().parents[2] / "docs" / "traceability.md"


def test_traceability_doc_is_current():
    assert DOC.read_text(encoding="utf-8") == matrix(BUNDLED_SUITE), "run: croupier traceability --out docs/traceability.md"


def test_every_check_is_traced_to_a_failing_fault_scenario():
    assert "**none**" not in matrix(BUNDLED_SUITE)
