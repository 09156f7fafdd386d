"""The register tables in docs/wire/modbus-*.md are the shipped maps, exactly: docs cannot drift."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from hil.wire.registers import Device, RegisterMap, default_map

DOCS = Path(__file__).resolve().parents[2] / "docs" / "wire"
PAGES: dict[Device, str] = {"money-wheel": "modbus-money-wheel.md", "top-slot": "modbus-top-slot.md",
                            "wagering": "modbus-wagering.md", "multiplier-board": "modbus-multiplier-board.md",
                            "coin-flipper": "modbus-coin-flipper.md", "pachinko-board": "modbus-pachinko-board.md",
                            "crazy-time-world-wheel": "modbus-ctw-wheel.md", "illuminator": "modbus-illuminator.md",
                            "progressive-system": "modbus-progressive-system.md"}
TABLES = {"Coils": "coil", "Discrete inputs": "discrete", "Holding registers": "holding", "Input registers": "input"}


def sections(text: str) -> dict[str, list[list[str]]]:
    """The rows (cells stripped) of the first Markdown table under each ``## heading``."""
    out: dict[str, list[list[str]]] = {}
    for chunk in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = chunk.partition("\n")
        rows = [line.strip().strip("|").split("|") for line in body.splitlines() if line.startswith("|")]
        out[heading.strip()] = [[c.strip() for c in r] for r in rows[2:]]  # skip header and rule
    return out


def unit_scale(unit: str, scale: int) -> str:
    return f"{unit} ×{scale}" if scale != 1 else unit or "—"


def documented_points(rmap: RegisterMap) -> dict[str, list[tuple[str, ...]]]:
    """What the page must show: per table heading, one row per point in address order."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for heading, table in TABLES.items():
        points = sorted((p for p in rmap.points if p.table == table), key=lambda p: p.address)
        if points:
            out[heading] = [(str(p.address) if p.span == 1 else f"{p.address}–{p.end - 1}", f"`{p.name}`", p.type,
                             str(p.count), unit_scale(p.unit, p.scale), p.access) for p in points]
    return out


@pytest.mark.parametrize("device", PAGES)
def test_register_tables_match_the_shipped_map(device: Device) -> None:
    page = sections((DOCS / PAGES[device]).read_text(encoding="utf-8"))
    shown = {h: [tuple(row[:6]) for row in rows] for h, rows in page.items() if h in TABLES}
    assert shown == documented_points(default_map(device))
    assert all(row[6] for h in shown for row in page[h]), "every point has a description"


@pytest.mark.parametrize("device", PAGES)
def test_enum_tables_match_the_shipped_map(device: Device) -> None:
    rows = sections((DOCS / PAGES[device]).read_text(encoding="utf-8"))["Enums"]
    shown: dict[str, dict[int, str]] = {}
    for names, codes in rows:
        enum = {int(c): label for c, label in re.findall(r"(\d+) `([^`]+)`", codes)}
        shown |= {name: enum for name in re.findall(r"`([^`]+)`", names)}
    assert shown == {p.name: p.enum for p in default_map(device).points if p.enum is not None}


def test_parser_sees_a_drifted_row() -> None:
    """The check is not vacuous: a page with one address changed no longer matches."""
    text = (DOCS / PAGES["top-slot"]).read_text(encoding="utf-8")
    assert "| 11–14 | `stop_ns`" in text
    text = text.replace("| 11–14 | `stop_ns`", "| 12–15 | `stop_ns`")
    shown = {h: [tuple(r[:6]) for r in rows] for h, rows in sections(text).items() if h in TABLES}
    assert shown != documented_points(default_map("top-slot"))


def test_every_shipped_map_has_its_page() -> None:
    """A device kind added to the maps gets a page here (and the drift tests above)."""
    assert set(PAGES) == set(typing.get_args(Device))
    assert {p.name for p in DOCS.glob("modbus-*.md")} == set(PAGES.values())
    readme = (DOCS / "README.md").read_text(encoding="utf-8")
    assert all(f"`{page}`" in readme for page in PAGES.values()), "the README lists every page"
