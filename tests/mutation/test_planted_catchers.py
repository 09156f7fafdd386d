"""The fast tests added so that no planted bug of tests/mutation/planted.py survives, where no
other fast test caught it (issue 16: "add tests until none of the bugs above survives").

``settlement-check-order-dropped``: § 690.2(e) ("first collect all losing wagers and then pay off
all winning wagers") was judged only by the bundled fault scenario
fault_dealer_pays_before_collecting, run in the whole-suite test; a dropped order clause in the
settlement check survived every fast test."""

from __future__ import annotations

from pathlib import Path

from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario

TEXT = """schema: 1
name: t-{name}
game: crazy-time
seed: 22
rounds: 6
{extra}
"""


def _run(tmp_path: Path, name: str, extra: str = "") -> dict[str, list[str]]:
    sc = parse_scenario(TEXT.format(name=name, extra=extra), f"{name}.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert result["error"] is None, result["error"]
    return {c["id"]: [f["message"] for f in c["findings"]] for c in result["checks"] if c["verdict"] == "fail"}


def test_690_2_e_winner_paid_before_the_losers_are_collected_fails(tmp_path):
    """The croupier that pays first fails exactly the settlement check, once per round that had
    both a loser and a winner, with the clause's words; the healthy croupier on the same seed
    fails nothing (so the finding is the order, not the seed)."""
    assert _run(tmp_path / "ok", "order-ok") == {}
    msgs = _run(tmp_path / "bad", "order-bad", "faults:\n  croupier: {pay_before_collect: true}")
    assert set(msgs) == {"CT-690.2e-settlement"}, msgs
    order = [m for m in msgs["CT-690.2e-settlement"]
             if m == "a winning wager was paid before all losing wagers were collected"]
    assert order, msgs["CT-690.2e-settlement"]
    assert len(order) == len(msgs["CT-690.2e-settlement"]), "only the order is wrong in this run"
