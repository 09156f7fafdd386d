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


def test_the_clock_rate_span_keeps_the_bracket_inside_the_limit():
    """A rate judged on a bracket wider than the limit would be a pass on no evidence: the span grows
    with the round trip (bracket ≤ half the limit) up to its cap, beyond which the clause skips."""
    from hil.conformance.modbus_common import RATE_SPAN_MAX_S, RATE_SPAN_S, rate_span_s

    assert rate_span_s(200_000, 500) == RATE_SPAN_S  # loopback TCP: 0.2 ms / 1 s = 200 ppm
    span = rate_span_s(400_000, 500)  # a loaded machine: 0.4 ms
    assert 0.4e-3 / span * 1e6 <= 250 + 1e-9
    assert rate_span_s(6_500_000, 500) == RATE_SPAN_MAX_S  # RTU at 115200 through a pty: capped (then skipped)


def test_the_wire_readme_lists_every_wire_page_and_the_conformance_page():
    readme = (DOCS / "wire" / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (DOCS / "wire").glob("*.md") if p.name != "README.md")
    assert [p for p in pages if f"`{p}`" not in readme] == []
    assert "`../conformance.md`" in readme
