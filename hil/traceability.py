"""The requirement traceability matrix, generated from the code and the bundled scenarios (never
written by hand): every clause of the supplied regulation sections → the checks that cite it →
the fault scenarios that prove those checks can fail.

The clauses are transcribed in ``hil/data/clauses.toml`` (every lettered, numbered and
roman-numbered unit of §§ 617b.4, 617b.5, 633b.17–633b.21, 653b.2–653b.5, 674b.1, 657a.7 and
690.1–690.8, each with a short title in the regulation's words), so nothing here reads the
regulation files at run time. Each clause has exactly one status:

* **fault-proven** — a check cites it and a bundled fault scenario expects that check to fail;
* **checked** — a check cites it, but no fault scenario expects any citing check to fail;
* **out of scope** — no check cites it and ``clauses.toml`` declares why a hardware-in-the-loop
  rig cannot verify it (physical layout, signage, furniture, definitions) and what does;
* **not covered** — none of these: a gap, listed loudly.

A clause both cited by a check and declared out of scope (its text mixes a printed layout with
something a device does) takes the check's status; its out-of-scope reason is still shown, for
the part no check sees.

How a check's ``section`` is read — the most specific reading, never a generous one:

* ``§ 690.2(a)`` covers exactly § 690.2(a). A parent covers itself only, not its sub-clauses:
  ``§ 690.7(g)`` covers (g), not (g)(1)–(4); a check that verifies them cites them.
* A range covers both ends and every clause between them at the same level:
  ``§ 690.2(e)–(f)`` covers (e) and (f); ``§ 690.5(f)(1)–(3)`` covers (f)(1), (f)(2), (f)(3);
  ``§ 690.7(b)–(d)`` covers (b), (c), (d) but not (c)(1)–(3). (A range whose ends are at
  different levels covers the clauses between them down to the deeper end's level.)
* A clause after a comma continues the section before it: ``§ 690.5(d), (f)–(g)`` is § 690.5(d),
  (f) and (g); ``§ 633b.17(c)(2), (3)`` would be (c)(2) and (c)(3). ``§§ 633b.17(g), 633b.18(i)``
  names two sections.
* A whole section or a span of sections (``§ 653b.2``, ``§§ 633b.17–633b.21``) names no clause
  and covers none; the matrix lists such citations so the check can be made specific.
* A citation of a section that is not supplied (``§ 605a.8``) is listed, not traced; words that
  are not a reference are ignored, and a ``section`` naming no section at all (``rig evidence``:
  a check of the run's own evidence) traces nothing and is listed.
* A citation of a clause that does not exist in a supplied section is an error
  (``Traceability.unknown``; the test fails).

The same statuses for one run (``report.json`` → ``clause_coverage``) come from
:func:`run_coverage`: there a clause is fault-proven when a citing check failed as a fault
scenario of the run expected, checked when a citing check ran.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import pydantic

from hil.config import ConfigError, parse_toml

Status = Literal["fault-proven", "checked", "out of scope", "not covered"]
STATUSES: tuple[Status, ...] = ("fault-proven", "checked", "out of scope", "not covered")
CLAUSES_SCHEMA = 1
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")


# ------------------------------------------------------------------------------ the clause list
class _SectionModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    id: str = pydantic.Field(pattern=r"^§ \d+[a-z]?\.\d+$")
    title: str = pydantic.Field(min_length=3)
    game: str


class _ClauseModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    id: str = pydantic.Field(pattern=r"^§ \d+[a-z]?\.\d+(\([0-9a-z]+\))+$")
    title: str = pydantic.Field(min_length=3)
    out_of_scope: str | None = pydantic.Field(default=None, min_length=40)


class _ClausesFile(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    schema_: int = pydantic.Field(alias="schema")
    games: dict[str, str]
    section: tuple[_SectionModel, ...]
    clause: tuple[_ClauseModel, ...]

    @pydantic.field_validator("schema_")
    @classmethod
    def _version(cls, v: int) -> int:
        if v != CLAUSES_SCHEMA:
            raise ValueError(f"schema {v} is not supported (expected {CLAUSES_SCHEMA})")
        return v


@dataclass(frozen=True)
class Clause:
    id: str                 # "§ 690.5(f)(1)"
    section: str            # "§ 690.5"
    path: tuple[str, ...]   # ("f", "1")
    title: str
    out_of_scope: str | None = None

    @property
    def parent(self) -> tuple[str, ...]:
        return self.path[:-1]


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    game: str
    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class Regulation:
    """The supplied sections and their clauses, in the order of the text."""

    sections: tuple[Section, ...]
    games: Mapping[str, str]   # game key -> heading ("Crazy Time (ch. 690)")

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {c.id: c for s in self.sections for c in s.clauses})
        object.__setattr__(self, "_sections", {s.id: s for s in self.sections})

    @property
    def clauses(self) -> tuple[Clause, ...]:
        return tuple(c for s in self.sections for c in s.clauses)

    def clause(self, cid: str) -> Clause | None:
        return self._by_id.get(cid)  # type: ignore[attr-defined]

    def section(self, sid: str) -> Section | None:
        return self._sections.get(sid)  # type: ignore[attr-defined]


_CLAUSE_ID = re.compile(r"^(§ \d+[a-z]?\.\d+)((?:\([0-9a-z]+\))+)$")


def _toml_line(text: str, table: str, index: int, key: str | None) -> int | None:
    """The line of ``key`` in the ``index``-th ``[[table]]`` (tomllib keeps no positions)."""
    seen, start = -1, None
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        if raw.strip() == f"[[{table}]]":
            seen += 1
            if seen == index:
                start = i
                break
    if start is None:
        return None
    if key:
        for j in range(start + 1, len(lines)):
            s = lines[j].lstrip()
            if s.startswith("["):
                break
            if s.startswith((key + " ", key + "=")):
                return j + 1
    return start + 1


def parse_clauses(text: str, source: str) -> Regulation:
    data, lines = parse_toml(text, source)
    try:
        f = _ClausesFile.model_validate(data)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        line = (_toml_line(text, str(loc[0]), loc[1], str(loc[2]) if len(loc) > 2 else None)
                if len(loc) >= 2 and isinstance(loc[1], int) else lines.line(loc))
        raise ConfigError(source, line, ".".join(map(str, loc)), err["msg"]) from None
    sections: dict[str, list[Clause]] = {}
    for i, s in enumerate(f.section):
        if s.id in sections:
            raise ConfigError(source, _toml_line(text, "section", i, "id"), f"section.{i}.id", f"duplicate {s.id}")
        if s.game not in f.games:
            raise ConfigError(source, _toml_line(text, "section", i, "game"), f"section.{i}.game",
                              f"unknown game {s.game!r}; [games] names {sorted(f.games)}")
        sections[s.id] = []
    seen: set[str] = set()
    for i, c in enumerate(f.clause):
        m = _CLAUSE_ID.match(c.id)
        assert m is not None  # the model's pattern
        sid, path = m.group(1), tuple(re.findall(r"\(([0-9a-z]+)\)", m.group(2)))
        where = _toml_line(text, "clause", i, "id")
        if sid not in sections:
            raise ConfigError(source, where, f"clause.{i}.id", f"{c.id}: no [[section]] {sid}")
        if c.id in seen:
            raise ConfigError(source, where, f"clause.{i}.id", f"duplicate {c.id}")
        if len(path) > 1 and f"{sid}({')('.join(path[:-1])})" not in seen:
            raise ConfigError(source, where, f"clause.{i}.id", f"{c.id}: its parent is not listed before it")
        seen.add(c.id)
        sections[sid].append(Clause(c.id, sid, path, c.title, c.out_of_scope))
    return Regulation(tuple(Section(s.id, s.title, s.game, tuple(sections[s.id])) for s in f.section),
                      dict(f.games))


_DEFAULT: Regulation | None = None


def load_clauses(path: Path | None = None) -> Regulation:
    """The bundled clause list (``hil/data/clauses.toml``), or the file at ``path``."""
    global _DEFAULT
    if path is not None:
        return parse_clauses(path.read_text(encoding="utf-8"), str(path))
    if _DEFAULT is None:
        res = resources.files("hil") / "data" / "clauses.toml"
        _DEFAULT = parse_clauses(res.read_text(encoding="utf-8"), "hil/data/clauses.toml")
    return _DEFAULT


# ------------------------------------------------------------------------------- citations
@dataclass(frozen=True)
class Citation:
    """What a check's ``section`` names, read by the rules of the module docstring."""

    text: str
    clauses: tuple[str, ...] = ()   # clause ids it covers, in the order of the text
    broad: tuple[str, ...] = ()     # whole supplied sections / spans of sections: cover nothing
    outside: tuple[str, ...] = ()   # sections that are not supplied (§ 605a.8)
    unknown: tuple[str, ...] = ()   # clauses of a supplied section that do not exist; an error
    prose: str = ""                 # words that are not a reference ("rig evidence")

    @property
    def names_a_section(self) -> bool:
        return bool(self.clauses or self.broad or self.outside or self.unknown)


_TOKEN = re.compile(r"(?P<num>\d+[a-z]?\.\d+)(?P<numpath>(?:\([0-9a-z]+\))*)|(?P<path>(?:\([0-9a-z]+\))+)"
                    r"|(?P<dash>[–—-])|(?P<sep>§§|§|,|;|\band\b|\s+)|(?P<word>[A-Za-z][A-Za-z'’-]*)|(?P<other>.)")


def _components(path: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\(([0-9a-z]+)\)", path))


def _fmt(section: str, path: tuple[str, ...]) -> str:
    return section + "".join(f"({p})" for p in path)


def _continue(reg: Regulation, section: str, prev: tuple[str, ...], bare: tuple[str, ...]) -> tuple[str, ...]:
    """A bare ``(x)…`` after a comma or a dash: replaces ``prev`` from the level of its first
    component (a letter: subsection, a digit: paragraph, a roman numeral: subparagraph)."""
    first = bare[0]
    if first.isdigit():
        level = 1
    elif first in _ROMAN and len(prev) >= 2:
        level = 2
        # "(i)" after "(h)(5)" is subsection (i), not subparagraph (h)(5)(i)
        if reg.clause(_fmt(section, prev[:2] + bare)) is None and reg.clause(_fmt(section, bare)) is not None:
            level = 0
    else:
        level = 0
    if len(prev) < level:
        return bare
    return prev[:level] + bare


def _expand(reg: Regulation, section: str, a: tuple[str, ...], b: tuple[str, ...]) -> list[str] | None:
    sec = reg.section(section)
    ids = [c.id for c in sec.clauses] if sec else []
    ia, ib = _fmt(section, a), _fmt(section, b)
    if ia not in ids or ib not in ids or ids.index(ia) > ids.index(ib):
        return None
    span = sec.clauses[ids.index(ia): ids.index(ib) + 1]
    if a[:-1] == b[:-1]:
        return [c.id for c in span if c.parent == a[:-1]]
    depth = max(len(a), len(b))
    return [c.id for c in span if len(c.path) <= depth]


def parse_citation(text: str, reg: Regulation | None = None) -> Citation:
    reg = reg or load_clauses()
    clauses: list[str] = []
    broad: list[str] = []
    outside: list[str] = []
    unknown: list[str] = []
    prose: list[str] = []
    section: str | None = None
    prev: tuple[str, ...] = ()   # the path of the last reference (empty: a whole section)
    dash = False                 # the next reference ends a range that starts at the last one

    def cite(sec: str, path: tuple[str, ...], start: tuple[str, ...] | None) -> None:
        if reg.section(sec) is None:
            outside.append(_fmt(sec, path))
        elif not path:
            broad.append(sec)
        elif start:
            span = _expand(reg, sec, start, path)
            if span is None:
                unknown.append(f"{_fmt(sec, start)}–({')('.join(path)})")
            clauses.extend(c for c in span or () if c not in clauses)
        elif reg.clause(_fmt(sec, path)) is None:
            unknown.append(_fmt(sec, path))
        elif _fmt(sec, path) not in clauses:
            clauses.append(_fmt(sec, path))

    for m in _TOKEN.finditer(text):
        if m.group("num"):
            new, path = "§ " + m.group("num"), _components(m.group("numpath"))
            if dash and section is not None and not path and not prev:   # "§§ 633b.17–633b.21"
                (broad if section in broad else outside).remove(section)
                span = f"§§ {section.removeprefix('§ ')}–{new.removeprefix('§ ')}"
                (broad if reg.section(section) or reg.section(new) else outside).append(span)
            else:   # a range across sections ("§ 690.5(g)–690.6(b)") is read as its two ends
                cite(new, path, prev if dash and new == section else None)
            section, prev = new, path
        elif m.group("path"):
            if section is None:
                unknown.append(f"{m.group('path')} with no section before it in {text!r}")
                continue
            path = _continue(reg, section, prev, _components(m.group("path")))
            cite(section, path, prev if dash else None)
            prev = path
        elif m.group("word"):
            prose.append(m.group("word"))
        elif m.group("other"):
            unknown.append(f"unreadable {m.group('other')!r} in {text!r}")
        dash = bool(m.group("dash")) or (dash and bool(m.group("sep")) and m.group("sep").isspace())
    return Citation(text, tuple(clauses), tuple(broad), tuple(outside), tuple(unknown), " ".join(prose))


# ------------------------------------------------------------------------------- the statuses
@dataclass(frozen=True)
class ClauseStatus:
    clause: Clause
    game: str
    status: Status
    checks: tuple[str, ...]      # the checks citing it
    proven_by: tuple[str, ...]   # fault scenarios expecting (or seen) a citing check to fail


@dataclass
class Traceability:
    regulation: Regulation
    statuses: list[ClauseStatus]
    citations: dict[str, Citation]        # check id -> how its section was read
    check_sections: dict[str, str] = field(default_factory=dict)

    def counts(self, rows: Iterable[ClauseStatus] | None = None) -> dict[str, int]:
        tally = Counter(r.status for r in (self.statuses if rows is None else rows))
        return {s: tally.get(s, 0) for s in STATUSES}

    def by_game(self) -> dict[str, dict[str, int]]:
        return {g: self.counts(r for r in self.statuses if r.game == g)
                for g in dict.fromkeys(s.game for s in self.regulation.sections)}

    def by_section(self) -> dict[str, dict[str, int]]:
        return {s.id: self.counts(r for r in self.statuses if r.clause.section == s.id)
                for s in self.regulation.sections}

    @property
    def not_covered(self) -> list[ClauseStatus]:
        return [r for r in self.statuses if r.status == "not covered"]

    @property
    def unknown(self) -> dict[str, tuple[str, ...]]:
        """Check id -> the clauses it cites that do not exist (must be empty)."""
        return {cid: c.unknown for cid, c in self.citations.items() if c.unknown}

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": {"clauses": len(self.statuses), **self.counts()},
            "by_game": self.by_game(),
            "by_section": self.by_section(),
            "not_covered": [r.clause.id for r in self.not_covered],
            "clauses": {r.clause.id: {"status": r.status, "checks": list(r.checks), "proven_by": list(r.proven_by)}
                        for r in self.statuses},
        }


def classify(sections: Mapping[str, str], proving: Mapping[str, Iterable[str]],
             reg: Regulation | None = None) -> Traceability:
    """Each clause's status, from the checks' ``section`` (check id -> citation text) and the
    fault scenarios proving each check (check id -> scenario names)."""
    reg = reg or load_clauses()
    citations = {cid: parse_citation(text, reg) for cid, text in sections.items()}
    citing: dict[str, list[str]] = {}
    for check_id, cit in citations.items():
        for clause_id in cit.clauses:
            citing.setdefault(clause_id, []).append(check_id)
    rows = []
    for sec in reg.sections:
        for c in sec.clauses:
            checks = tuple(citing.get(c.id, ()))
            proven = tuple(sorted({s for ch in checks for s in proving.get(ch, ())}))
            status: Status = ("fault-proven" if proven else "checked" if checks
                              else "out of scope" if c.out_of_scope else "not covered")
            rows.append(ClauseStatus(c, sec.game, status, checks, proven))
    return Traceability(reg, rows, citations, dict(sections))


def expected_failures(suite: Path) -> dict[str, list[str]]:
    """Check id -> the scenarios under ``suite`` that expect it to fail."""
    from hil.scenario import discover, load_scenario

    failing: dict[str, list[str]] = {}
    for path in discover([suite]):
        sc = load_scenario(path).scenario
        for cid in sc.expect.fail:
            failing.setdefault(cid, []).append(sc.name)
    return failing


def trace(suite: Path, reg: Regulation | None = None) -> Traceability:
    """The statuses from every check (``hil.checks.ALL_CHECKS``) and the scenarios under ``suite``."""
    from hil.checks import ALL_CHECKS

    return classify({c.id: c.section for c in ALL_CHECKS}, expected_failures(suite), reg)


def run_coverage(coverage: Mapping[str, Mapping[str, Any]], reg: Regulation | None = None) -> dict[str, Any]:
    """``report.json`` → ``clause_coverage`` for one run, from its per-check ``coverage``
    (check id -> {"section", "failed_as_expected_by"}): only the checks that ran count."""
    tr = classify({cid: e["section"] for cid, e in coverage.items()},
                  {cid: e["failed_as_expected_by"] for cid, e in coverage.items()}, reg)
    return tr.to_json()


# ------------------------------------------------------------------------------- the document
def title(reg: Regulation) -> str:
    """The document's title: every game (section family) whose clauses it traces, in the order
    of ``hil/data/clauses.toml`` (its ``[games]``), so a game added there is named here too."""
    names = list(reg.games.values())
    return "# Requirement traceability — " + (", ".join(names[:-1]) + " and " if names[1:] else "") + names[-1]


HEADER = """
Generated by `croupier traceability` from `hil/data/clauses.toml` (the clauses of 58 Pa. Code
§§ 690.1–690.8 Crazy Time, § 617b.4 Roulette Up, § 617b.5 Roulette X, §§ 633b.17–633b.21
Blackjack side wagers, §§ 653b.2–653b.5 Ultimate Texas Hold 'Em side wagers, § 674b.1 Criss-Cross
Ultimate Pairs and § 657a.7 Crazy 4 Poker wagers, transcribed from the text), `hil/checks/` and
`scenarios/`; do not edit by hand (`tests/hil/test_hil_traceability.py` fails when this file is
stale).

Each clause is exactly one of: **fault-proven** (a check cites it and a bundled fault scenario
expects that check to fail), **checked** (a check cites it; no fault scenario expects a citing
check to fail), **out of scope** (declared in `hil/data/clauses.toml` with the reason a
hardware-in-the-loop rig cannot verify it) or **NOT COVERED** (none of these). A clause both cited
and declared out of scope takes the check's status, and its reason is shown for the part no
check sees.

How a check's `section` is read (the most specific reading; `hil/traceability.py`):

- `§ 690.2(a)` covers § 690.2(a) only. A parent covers itself, not its sub-clauses:
  `§ 690.7(g)` covers (g), not (g)(1)–(4) — a check that verifies those cites them.
- A range covers its ends and the clauses between them at the same level: `§ 690.2(e)–(f)` is
  (e) and (f); `§ 690.5(f)(1)–(3)` is (f)(1)–(3); `§ 690.7(b)–(d)` is (b), (c), (d), not (c)(1)–(3).
- A clause after a comma continues the section before it: `§ 690.5(d), (f)–(g)` is (d), (f), (g).
- A whole section or a span of sections (`§ 653b.2`, `§§ 633b.17–633b.21`) names no clause and
  covers none (listed below, so the check can cite what it verifies); a section that is not
  supplied (`§ 605a.8`) and a `section` naming no regulation (`rig evidence`) are listed, not
  traced; a clause that does not exist is an error.
"""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _counts_row(label: str, total: int, counts: Mapping[str, int]) -> str:
    nc = counts["not covered"]
    return (f"| {label} | {total} | {counts['fault-proven']} | {counts['checked']} | {counts['out of scope']} | "
            + (f"**{nc}** |" if nc else "0 |"))


def render(tr: Traceability, checks: Iterable[Any] = (), failing: Mapping[str, Iterable[str]] | None = None) -> str:
    reg = tr.regulation
    failing = failing or {}
    out = [title(reg) + "\n" + HEADER]
    total = tr.counts()
    out.append("## Summary\n")
    out.append(f"{len(tr.statuses)} clauses: {total['fault-proven']} fault-proven, {total['checked']} checked, "
               f"{total['out of scope']} out of scope, **{total['not covered']} not covered**.\n")
    head = "| {} | clauses | fault-proven | checked | out of scope | not covered |\n|---|---|---|---|---|---|"
    out.append(head.format("game"))
    for game, counts in tr.by_game().items():
        out.append(_counts_row(reg.games[game], sum(counts.values()), counts))
    out.append(_counts_row("**all**", len(tr.statuses), total))
    out.append("")
    out.append(head.format("section"))
    for s in reg.sections:
        counts = tr.by_section()[s.id]
        out.append(_counts_row(f"{s.id} {s.title}", sum(counts.values()), counts))
    out.append("")

    nc = tr.not_covered
    out.append(f"## NOT COVERED ({len(nc)})\n")
    if nc:
        out.append("No check cites these clauses and none is declared out of scope:\n")
        out.extend(f"- **{r.clause.id}** — {_cell(r.clause.title)}" for r in nc)
    else:
        out.append("None: every clause is fault-proven, checked or declared out of scope.")
    out.append("")

    out.append("## Clauses\n")
    for s in reg.sections:
        out.append(f"### {s.id} {s.title} — {reg.games[s.game]}\n")
        out.append("| clause | title (the regulation's words) | status | checks | fault scenarios |\n|---|---|---|---|---|")
        for r in (r for r in tr.statuses if r.clause.section == s.id):
            status = "**NOT COVERED**" if r.status == "not covered" else r.status
            if r.clause.out_of_scope and r.status != "out of scope":
                status += " (part out of scope: see below)"
            out.append(f"| {r.clause.id} | {_cell(r.clause.title)} | {status} | "
                       f"{', '.join(f'`{c}`' for c in r.checks) or '—'} | "
                       f"{', '.join(f'`{p}`' for p in r.proven_by) or '—'} |")
        declared = [c for c in s.clauses if c.out_of_scope]
        if declared:
            out.append("")
            out.append("Out of scope:\n")
            out.extend(f"- **{c.id}**: {_cell(c.out_of_scope or '')}" for c in declared)
        out.append("")

    broad = {cid: c for cid, c in tr.citations.items() if c.broad or c.outside or not c.names_a_section}
    out.append("## Citations that name no supplied clause\n")
    if broad:
        out.append("A whole section names no clause; these parts of a check's `section` cover nothing above.\n")
        out.append("| check | section | a whole section or span (covers no clause) | outside the supplied sections |"
                   "\n|---|---|---|---|")
        for cid, c in broad.items():
            whole = ", ".join(c.broad) or ("(no regulation section cited)" if not c.names_a_section else "—")
            out.append(f"| `{cid}` | {_cell(c.text)} | {whole} | {', '.join(c.outside) or '—'} |")
    else:
        out.append("None.")
    out.append("")

    out.append("## Checks\n")
    out.append("| section | clauses it covers | check | what it verifies | regulation text (as quoted by the check) "
               "| fault scenarios expected to fail it |\n|---|---|---|---|---|---|")
    for check in checks:
        cit = tr.citations[check.id]
        text = _cell(check.__doc__ or "")
        covered = ", ".join(cit.clauses) or "—"
        out.append(f"| {check.section} | {covered} | `{check.id}` | {check.title} | {text} | "
                   f"{', '.join(sorted(f'`{s}`' for s in failing.get(check.id, []))) or '**none**'} |")
    return "\n".join(out) + "\n"


def matrix(suite: Path) -> str:
    """docs/traceability.md: the clause statuses and the check table for the scenarios under ``suite``."""
    from hil.checks import ALL_CHECKS

    failing = expected_failures(suite)
    return render(classify({c.id: c.section for c in ALL_CHECKS}, failing), ALL_CHECKS, failing)
