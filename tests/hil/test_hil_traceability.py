"""docs/traceability.md is generated from the clause list, the checks and the bundled scenarios,
and current; every clause of the supplied sections has exactly one status; the citations are read
by the documented rules; the clause list matches the regulation text (when ../shared has it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.checks import ALL_CHECKS, GAME_CHECKS
from hil.cli import BUNDLED_SUITE
from hil.config import ConfigError
from hil.report import clause_coverage, coverage
from hil.traceability import STATUSES, expected_failures, load_clauses, matrix, parse_citation, parse_clauses, trace

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "traceability.md"
REGULATIONS = ROOT.parent / "shared" / "regulations"

#: the clauses the rig cannot observe through a device, declared out of scope (issue 11)
DECLARED_OUT_OF_SCOPE = ("§ 617b.4(b)", "§ 617b.5(b)", "§ 633b.18(c)", "§ 633b.20(a)", "§ 633b.21(a)", "§ 653b.4(b)",
                         "§ 653b.5(b)", "§ 674b.1(b)", "§ 690.1(c)", "§ 690.1(f)", "§ 690.1(g)", "§ 690.1(g)(1)",
                         "§ 690.1(g)(3)")


@pytest.fixture(scope="module")
def tr():
    return trace(BUNDLED_SUITE)


def test_traceability_doc_is_current():
    assert DOC.read_text(encoding="utf-8") == matrix(BUNDLED_SUITE), "run: croupier traceability --out docs/traceability.md"


def test_the_title_names_every_game_it_traces():
    title = matrix(BUNDLED_SUITE).splitlines()[0]
    reg = load_clauses()
    assert title.startswith("# Requirement traceability — ") and len(reg.games) == len(GAME_CHECKS) >= 6
    assert all(name in title for name in reg.games.values()), title


def test_every_check_is_traced_to_a_failing_fault_scenario():
    assert "**none**" not in matrix(BUNDLED_SUITE)


# ------------------------------------------------------------------------------- consistency
def test_every_clause_has_exactly_one_status_and_the_counts_add_up(tr):
    reg = tr.regulation
    assert [r.clause.id for r in tr.statuses] == [c.id for c in reg.clauses]
    assert len({c.id for c in reg.clauses}) == len(reg.clauses)
    assert all(r.status in STATUSES for r in tr.statuses)
    counts = tr.counts()
    assert sum(counts.values()) == len(tr.statuses) == len(reg.clauses)
    by_game, by_section = tr.by_game(), tr.by_section()
    for status in STATUSES:
        assert sum(g[status] for g in by_game.values()) == counts[status]
        assert sum(s[status] for s in by_section.values()) == counts[status]
    for s in reg.sections:
        assert sum(by_section[s.id].values()) == len(s.clauses)
    j = tr.to_json()
    assert j["counts"]["clauses"] == len(reg.clauses) and {k: j["counts"][k] for k in STATUSES} == counts
    assert j["not_covered"] == [r.clause.id for r in tr.statuses if r.status == "not covered"]
    # the lead's view of the gaps (pytest -rA / -s shows it)
    print(f"\n{len(reg.clauses)} clauses: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    print("not covered:", ", ".join(j["not_covered"]) or "none")


def test_each_status_is_what_its_definition_says(tr):
    failing = expected_failures(BUNDLED_SUITE)
    for r in tr.statuses:
        citing = [c.id for c in ALL_CHECKS if r.clause.id in parse_citation(c.section).clauses]
        assert list(r.checks) == citing, r.clause.id
        proven = sorted({s for c in citing for s in failing.get(c, ())})
        assert list(r.proven_by) == proven, r.clause.id
        expected = ("fault-proven" if proven else "checked" if citing
                    else "out of scope" if r.clause.out_of_scope else "not covered")
        assert r.status == expected, r.clause.id


def test_every_check_cites_only_clauses_that_exist(tr):
    assert tr.unknown == {}, "a check's section names a clause that the supplied sections do not have"


def test_the_sections_games_are_the_checks_games():
    reg = load_clauses()
    assert {s.game for s in reg.sections} <= set(GAME_CHECKS)
    assert set(reg.games) == {s.game for s in reg.sections}


def test_the_declared_out_of_scope_clauses_carry_their_own_reasons(tr):
    reg = tr.regulation
    reasons = {c.id: c.out_of_scope for c in reg.clauses if c.out_of_scope}
    for cid in DECLARED_OUT_OF_SCOPE:
        assert cid in reasons, f"{cid} is not declared out of scope"
    for cid, reason in reasons.items():
        assert len(reason) >= 150, f"{cid}: give the reason — what it requires, why the rig cannot, what does"
        assert "Verified by" in reason, f"{cid}: say what verifies it instead"
    assert len(set(reasons.values())) == len(reasons), "each reason is specific to its clause"
    doc = matrix(BUNDLED_SUITE)
    for cid, reason in reasons.items():
        assert f"- **{cid}**: {' '.join(reason.split())}" in doc
    # a declared clause no check cites is out of scope; one a check cites keeps the check's status
    for r in tr.statuses:
        if r.clause.out_of_scope:
            assert r.status == "out of scope" if not r.checks else r.status in ("fault-proven", "checked")


def test_the_doc_lists_the_not_covered_clauses_loudly(tr):
    doc = matrix(BUNDLED_SUITE)
    assert f"## NOT COVERED ({len(tr.not_covered)})" in doc
    for r in tr.not_covered:
        assert f"- **{r.clause.id}** — " in doc
        assert f"| {r.clause.id} | " in doc and "**NOT COVERED**" in doc
    for c in tr.regulation.clauses:
        assert f"| {c.id} | " in doc


# ------------------------------------------------------------------------------- citations
@pytest.mark.parametrize("text, clauses", [
    ("§ 690.2(a)", ["§ 690.2(a)"]),
    ("§ 690.1(a)–(b)", ["§ 690.1(a)", "§ 690.1(b)"]),
    ("§ 690.7(g)", ["§ 690.7(g)"]),                                     # a parent: itself only
    ("§ 690.7(g)(1)–(4)", [f"§ 690.7(g)({i})" for i in range(1, 5)]),
    ("§ 690.7(b)–(d)", ["§ 690.7(b)", "§ 690.7(c)", "§ 690.7(d)"]),   # not (c)(1)–(3)
    ("§ 690.5(d), (f)–(g)", ["§ 690.5(d)", "§ 690.5(f)", "§ 690.5(g)"]),
    ("§ 690.5(f)(1)—(3)", ["§ 690.5(f)(1)", "§ 690.5(f)(2)", "§ 690.5(f)(3)"]),   # the regulation's em dash
    ("§ 690.5(f)(1)-(3)", ["§ 690.5(f)(1)", "§ 690.5(f)(2)", "§ 690.5(f)(3)"]),
    ("§ 633b.17(c)(2), (1)", ["§ 633b.17(c)(2)", "§ 633b.17(c)(1)"]),
    ("§ 633b.18(h)(5), (i)", ["§ 633b.18(h)(5)", "§ 633b.18(i)"]),     # (i) after (h)(5) is subsection (i)
    ("§ 617b.4(g)(2)(i)–(iii)", ["§ 617b.4(g)(2)(i)", "§ 617b.4(g)(2)(ii)", "§ 617b.4(g)(2)(iii)"]),
    ("§ 617b.4(g)(1)(ii), (2)(i)", ["§ 617b.4(g)(1)(ii)", "§ 617b.4(g)(2)(i)"]),
    ("§§ 633b.17(g), 633b.18(i)–(k)", ["§ 633b.17(g)", "§ 633b.18(i)", "§ 633b.18(j)", "§ 633b.18(k)"]),
    ("§ 617b.4(f), § 617b.5(e)", ["§ 617b.4(f)", "§ 617b.5(e)"]),
])
def test_a_citation_covers_the_clauses_it_names(text, clauses):
    c = parse_citation(text)
    assert list(c.clauses) == clauses and not c.unknown and not c.broad


def test_a_whole_section_or_a_span_of_sections_covers_no_clause():
    assert parse_citation("§§ 633b.17–633b.21").clauses == ()
    assert parse_citation("§§ 633b.17–633b.21").broad == ("§§ 633b.17–633b.21",)
    c = parse_citation("§ 690.2(e)–(f), § 690.4")
    assert c.clauses == ("§ 690.2(e)", "§ 690.2(f)") and c.broad == ("§ 690.4",)
    assert parse_citation("§ 653b.2").broad == ("§ 653b.2",)


def test_sections_not_supplied_and_prose_are_listed_not_traced():
    c = parse_citation("§ 633b.17(c), § 605a.8")
    assert c.clauses == ("§ 633b.17(c)",) and c.outside == ("§ 605a.8",)
    c = parse_citation("rig evidence")
    assert not c.names_a_section and c.prose == "rig evidence"


def test_a_clause_that_does_not_exist_is_unknown():
    assert parse_citation("§ 690.2(g)").unknown == ("§ 690.2(g)",)
    assert parse_citation("§ 690.5(f)(1)–(7)").unknown
    assert parse_citation("(a)").unknown


# ------------------------------------------------------------------------------- the data file
def test_a_bad_clause_file_fails_at_load_with_its_line():
    text = 'schema = 1\n[games]\nx = "X"\n[[section]]\nid = "§ 1.1"\ntitle = "One"\ngame = "x"\n' \
           '[[clause]]\nid = "§ 1.1(a)"\ntitle = "a"\n'
    with pytest.raises(ConfigError) as exc:
        parse_clauses(text, "clauses.toml")
    assert exc.value.line == 10 and exc.value.field == "clause.0.title"
    with pytest.raises(ConfigError, match="parent is not listed"):
        parse_clauses(text.replace('"§ 1.1(a)"', '"§ 1.1(a)(1)"').replace('"a"', '"a clause"'), "clauses.toml")
    with pytest.raises(ConfigError, match="schema"):
        parse_clauses(text.replace("schema = 1", "schema = 2"), "clauses.toml")


# ------------------------------------------------------------------------------- report.json
def test_report_clause_coverage_for_a_run():
    results = [
        {"name": "fault-x", "expected_failures": ["CT-690.2d-between-sections"], "checks": [
            {"id": "CT-690.2d-between-sections", "section": "§ 690.2(d)", "verdict": "fail"},
            {"id": "CT-690.2a-no-more-bets", "section": "§ 690.2(a)", "verdict": "pass"}]},
    ]
    cov = coverage(results)
    assert cov["CT-690.2d-between-sections"]["clauses"] == ["§ 690.2(d)"]
    cc = clause_coverage(cov)
    assert cc["clauses"]["§ 690.2(d)"] == {"status": "fault-proven", "checks": ["CT-690.2d-between-sections"],
                                           "proven_by": ["fault-x"]}
    assert cc["clauses"]["§ 690.2(a)"]["status"] == "checked"
    assert cc["clauses"]["§ 690.1(f)"]["status"] == "out of scope"
    assert cc["clauses"]["§ 690.2(b)"]["status"] == "not covered"
    n = cc["counts"]
    assert n["fault-proven"] == 1 and n["checked"] == 1
    assert sum(n[s] for s in STATUSES) == n["clauses"] == len(load_clauses().clauses)
    assert sum(sum(g.values()) for g in cc["by_game"].values()) == n["clauses"]


# ------------------------------------------------------------------------------- the regulation text
_HEADING = re.compile(r"^(?:§|Section) (\d+[a-z]?\.\d+)\. ")
_LABEL = re.compile(r"^\(([0-9a-z]+)\) ")


def _level(label: str, path: list[str]) -> int:
    """0: a subsection (a), 1: a paragraph (1), 2: a subparagraph (i). A lone roman letter that
    follows the current subsection's letter ((i) after (h)(5)) is the next subsection."""
    if label.isdigit():
        return 1
    if re.fullmatch(r"i{1,3}|iv|vi{0,3}|ix|x", label) and len(path) >= 2:
        return 0 if len(label) == 1 and ord(label) == ord(path[0]) + 1 else 2
    return 0


def _regulation_clauses() -> dict[str, str]:
    """Clause id -> its own text, read from the regulation files (the Bulletin's Annex A for
    every section but § 657a.7, which is in its own file)."""
    out: dict[str, str] = {}
    for name in ("pa-bulletin-54-1537-table-games-and-crazy-time.txt", "58-pa-code-657a7-crazy-4-poker-wagers.txt"):
        section, path, last = None, [], None
        for line in (REGULATIONS / name).read_text(encoding="utf-8").splitlines():
            if m := _HEADING.match(line):
                section, path, last = "§ " + m.group(1), [], None
                continue
            if section is None:
                continue
            if line.startswith(("[Pa.B.", "The provisions of this")):
                section = None
                continue
            m = _LABEL.match(line)
            if m is None:
                if last is not None:
                    out[last] += " " + line
                continue
            label = m.group(1)
            path = path[:_level(label, path)] + [label]
            last = section + "".join(f"({p})" for p in path)
            out[last] = line[m.end():]
    return out


@pytest.mark.skipif(not REGULATIONS.is_dir(), reason=f"the regulation text is not here ({REGULATIONS}); "
                                                       "the clause list is checked against it where it is")
def test_the_clause_list_is_every_clause_of_the_regulation_text():
    text = _regulation_clauses()
    reg = load_clauses()
    supplied = {s.id for s in reg.sections}
    from_text = [cid for cid in text if cid.split("(")[0] in supplied]
    listed = [c.id for c in reg.clauses]
    assert set(from_text) == set(listed), (f"missing: {sorted(set(from_text) - set(listed))}; "
                                          f"not in the text: {sorted(set(listed) - set(from_text))}")
    order = {s.id: i for i, s in enumerate(reg.sections)}
    assert sorted(from_text, key=lambda cid: order[cid.split("(")[0]]) == listed, "the clauses in the order of the text"


@pytest.mark.skipif(not REGULATIONS.is_dir(), reason=f"the regulation text is not here ({REGULATIONS})")
def test_each_clause_title_is_in_the_regulation_s_words():
    text = _regulation_clauses()
    reg = load_clauses()
    words = lambda s: set(re.findall(r"[a-z]{4,}", s.lower().replace("’", "'")))  # noqa: E731
    bad = {}
    for c in reg.clauses:
        own = text[c.id] + " " + " ".join(t for cid, t in text.items() if cid.startswith(c.id + "("))
        extra = words(c.title) - words(own)
        if extra:
            bad[c.id] = sorted(extra)
    assert bad == {}, "words of a clause's title that its text does not use"
