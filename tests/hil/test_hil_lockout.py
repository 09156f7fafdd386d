"""The lock-out latency measurement against the simulated device's ground truth."""

from __future__ import annotations

import pytest

import devices.wagering as wg
from hil.bench import load_bench
from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.crazy_time import Lockout
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader

TEXT = """\
schema: 1
name: lockout
game: crazy-time
seed: 3
rounds: 40
players: {count: 3, late_press_probability: 0.5}
faults:
  wagering: {lockout_latency_mean_s: %(mean)s, lockout_latency_jitter_s: 0.001}
lockout:
  budget_s: 0.010
  probe: {presses: 10, step_s: 0.0005}
"""


@pytest.mark.parametrize("mean", [0.004, 0.025])
def test_bracket_contains_ground_truth(tmp_path, monkeypatch, mean):
    truth: list[float] = []
    real = wg.WageringSim.lock_out

    def spy(self):
        real(self)
        truth.append(self.lockout_effective_time_s - self.env.now)

    monkeypatch.setattr(wg.WageringSim, "lock_out", spy)
    r = run_scenario(parse_scenario(TEXT % {"mean": mean}, "l.yaml"), load_bench(), load_rules(), tmp_path)
    check = Lockout(CheckConfig(lockout_budget_s=0.010))
    with TraceReader(tmp_path / r["trace"]) as reader:
        for n, events in reader.rounds():
            if n == 0:
                check.setup(BenchView.of(events))
            else:
                check.observe(RoundView.of(n, events))
    assert len(truth) == 40
    bracketed = 0
    for n, t in enumerate(truth, start=1):
        if n in check.brackets:
            lo, hi = check.brackets[n]
            assert lo <= t <= hi + 1e-12, (n, lo, t, hi)
            bracketed += 1
    assert bracketed >= 30  # the boundary search settles within a few rounds
    widths = sorted(hi - lo for lo, hi in check.brackets.values())
    # The search window follows the latency's jitter (sd 1 ms here): brackets of about a
    # millisecond, far inside the 10 ms budget.
    assert widths[len(widths) // 2] <= 0.0015
    verdict = {c["id"]: c["verdict"] for c in r["checks"]}["CT-lockout"]
    assert verdict == ("pass" if mean < 0.010 else "fail")
