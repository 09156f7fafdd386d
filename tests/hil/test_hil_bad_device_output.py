"""A device that reports garbage: the croupier voids the spin (never settles on it), the run
goes on, and the checks report it instead of crashing."""

from __future__ import annotations

import devices.top_slot as ts
from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader

TEXT = """\
schema: 1
name: garbage
game: crazy-time
seed: 8
rounds: 20
"""


def test_top_slot_reporting_a_multiplier_not_on_its_reel(tmp_path, monkeypatch):
    real_stop = ts.TopSlotStop
    count = {"n": 0}

    def garbled(**fields):
        count["n"] += 1
        if count["n"] % 3 == 0:  # every third spin shows 6x, which reel 2 does not carry
            fields["multiplier"] = 6
        return real_stop(**fields)

    monkeypatch.setattr(ts, "TopSlotStop", garbled)
    r = run_scenario(parse_scenario(TEXT, "g.yaml"), load_bench(), load_rules(), tmp_path)
    assert r["error"] is None
    assert r["stats"]["rounds"] == 20 and r["stats"]["void_spins"] >= 5
    with TraceReader(tmp_path / r["trace"]) as reader:
        voids = [e.payload["reason"] for e in reader.events() if e.kind == "spin_void"]
    assert set(voids) == {"invalid_top_slot_result"}
    verdicts = {c["id"]: c["verdict"] for c in r["checks"]}
    assert verdicts["CT-690.3-top-slot"] == "fail"
    assert verdicts["CT-690.2e-settlement"] == "pass"  # never settled on the garbled result
