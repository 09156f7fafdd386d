"""Checks judged on a simulated table's trace with one piece of evidence changed at a time: the
harness of tests/hil/test_hil_roulette_checks_edges.py and tests/hil/test_hil_poker_checks_edges.py."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from hil.bench import load_bench
from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.runner import load_rules, simulate
from hil.scenario import parse_scenario
from hil.trace import Event, TraceReader

Table = tuple[list[Event], dict[int, list[Event]]]


def simulated_table(scenario: Path, rounds: int, where: Path) -> Table:
    """(round 0's events, {round: its events}) of ``scenario`` simulated in process for ``rounds`` rounds."""
    text = re.sub(r"^rounds: \d+$", f"rounds: {rounds}", scenario.read_text(encoding="utf-8"), flags=re.M)
    path = where / "t.sqlite"
    simulate(parse_scenario(text, str(scenario)), load_bench(), load_rules(), path, 1)
    with TraceReader(path) as reader:
        by_round = dict(reader.rounds())
    return by_round.pop(0), by_round


def judge(cls, table: Table, change=None, setup_change=None):
    """``cls``'s result over the table's rounds, observed as ``run_checks`` does; ``change(n, events)
    -> events`` alters a round, ``setup_change(events) -> events`` round 0."""
    setup, rounds = table
    check = cls(CheckConfig())
    check.setup(BenchView.of(setup_change(list(setup)) if setup_change else setup))
    for n, events in sorted(rounds.items()):
        check.observe(RoundView.of(n, change(n, list(events)) if change else events))
    return check.result()


def with_payload(ev: Event, **changes) -> Event:
    return dataclasses.replace(ev, payload={**ev.payload, **changes})


def replace_event(target: Event, new: Event):
    """A round change putting ``new`` in ``target``'s place."""
    return lambda n, evs: [new if e.seq == target.seq else e for e in evs]


def croupier_records(rounds: dict[int, list[Event]], kinds: tuple[str, ...], **payload) -> list[tuple[int, Event]]:
    """(round, event) of the croupier's records of ``kinds`` whose payload has ``payload``'s values, in order."""
    return [(n, e) for n, evs in sorted(rounds.items()) for e in evs
            if e.device == "croupier" and e.kind in kinds and all(e.payload.get(k) == v for k, v in payload.items())]
