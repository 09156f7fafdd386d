"""§ 690.3(c): "The Top Slot shall commence spinning concurrently with the wheel" — judged on the
two devices' own start stamps, each mapped into the rig's time with its clock's uncertainty (a real
device's clock map, docs/wire/clock.md; none in simulation). A spin is concurrent only when the
offset is inside the tolerance by more than the two uncertainties, a deviation only when it is
outside by more than them; in between it is undecided and the check cannot pass on it."""

from __future__ import annotations

import pytest

from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.crazy_time import TopSlotCheck
from hil.trace import Event

TOL_S = 0.100


def _round(n: int, offset_s: float, u_wheel: float, u_top: float) -> RoundView:
    t = 1000.0 + 60 * n
    evs = [Event(1, n, t, 0, "croupier", "spin_command", {"attempt": 1, "direction": "cw"}),
           Event(2, n, t, 0, "wheel", "spin_start", {"spin_id": 1, "direction": "cw", "device_time_s": t}),
           Event(3, n, t, 0, "top_slot", "top_slot_start", {"spin_id": 1, "device_time_s": t + offset_s}),
           Event(4, n, t + 5, 0, "top_slot", "top_slot_stop",
                 {"spin_id": 1, "spot": "1", "multiplier": 2, "aligned": False, "reel1_steps": 9, "reel2_steps": 9,
                  "start_time_s": t, "stop_time_s": t + 5}),
           Event(5, n, t + 10, 0, "wheel", "spin_stop", {"spin_id": 1, "section_index": 0, "spot": "1"}),
           Event(6, n, t + 10, 0, "croupier", "spin_valid", {"attempt": 1, "section_index": 0, "spot": "1"})]
    rv = RoundView.of(n, evs)
    rv.clock_uncertainty_s = {"wheel": u_wheel, "top_slot": u_top}
    return rv


def _verdict(*rounds: tuple[float, float, float]):
    check = TopSlotCheck(CheckConfig(top_slot_start_tolerance_s=TOL_S))
    check.setup(BenchView())
    for i, (off, uw, ut) in enumerate(rounds, start=1):
        check.observe(_round(i, off, uw, ut))
    return check.verdict()


@pytest.mark.parametrize(("offset_ms", "u_wheel_ms", "u_top_ms", "verdict"), [
    (95.0, 0.0, 0.0, "pass"),              # simulation: the devices' clocks are the rig's
    (100.0, 0.0, 0.0, "pass"),             # at the tolerance: within it
    (100.1, 0.0, 0.0, "fail"),
    (-101.9, 0.0, 0.0, "fail"),
    (95.0, 2.0, 2.0, "pass"),              # inside by 5 ms, the clocks' ±4 ms: concurrent
    (95.0, 3.0, 3.0, "indeterminate"),     # inside by 5 ms, the clocks' ±6 ms: not provably concurrent
    (-101.9, 1.0, 1.0, "indeterminate"),   # outside by 1.9 ms, the clocks' ±2 ms: not provably late either
    (-101.9, 0.5, 1.0, "fail"),            # outside by more than the clocks' ±1.5 ms
    (120.0, 10.0, 5.0, "fail"),
])
def test_the_start_offset_is_judged_with_both_clocks_uncertainty(offset_ms, u_wheel_ms, u_top_ms, verdict):
    v, summary, measurements = _verdict((offset_ms / 1e3, u_wheel_ms / 1e3, u_top_ms / 1e3))
    assert v == verdict, summary
    m = {x.name: x.value for x in measurements}
    assert m["start_offsets_undecided"] == (verdict == "indeterminate")
    assert m["start_offset_worst"] == pytest.approx(offset_ms / 1e3)


def test_one_undecided_spin_among_concurrent_ones_is_no_pass_and_a_deviation_still_fails():
    v, summary, _ = _verdict((0.010, 0.02, 0.02), (0.095, 0.004, 0.004), (0.012, 0.02, 0.02))
    assert v == "indeterminate" and "round 2" in summary and "+95.0 ± 8.0 ms" in summary, summary
    v, summary, _ = _verdict((0.095, 0.004, 0.004), (0.150, 0.004, 0.004))
    assert v == "fail", summary
