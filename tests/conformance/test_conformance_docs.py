"""Every clause cites a section of docs/wire that exists, and docs/conformance.md lists every clause."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.conformance import MODBUS_DEVICES, SERIAL_DEVICES, modbus_clauses, serial_clauses

DOCS = Path(__file__).resolve().parents[2] / "docs"


def slug(heading: str) -> str:
    """A Markdown heading's anchor as GitHub makes it."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", page.read_text(encoding="utf-8"), flags=re.M)}


ALL = [(d, c) for d in MODBUS_DEVICES for c in modbus_clauses(d)] + \
      [(d, c) for d in SERIAL_DEVICES for c in serial_clauses(d)]


@pytest.mark.parametrize("device,clause", ALL, ids=[f"{d}:{c.id}" for d, c in ALL])
def test_every_clause_cites_an_existing_section(device, clause):
    page, _, anchor = clause.cites.partition("#")
    path = DOCS / "wire" / page
    assert path.exists(), f"{clause.id} cites {page}, which does not exist"
    assert anchor in anchors(path), f"{clause.id} cites #{anchor}; {page} has {sorted(anchors(path))}"


def test_the_conformance_page_lists_every_clause():
    text = (DOCS / "conformance.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([A-Z]{2}-[a-z0-9-]+)` \|", text, flags=re.M))
    assert listed == {c.id for _, c in ALL}


def test_the_slug_is_githubs():
    assert slug("`SPIN` — 0x10, command, host → device") == "spin--0x10-command-host--device"
    assert slug("The wheel's layout") == "the-wheels-layout"
