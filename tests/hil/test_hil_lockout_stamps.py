"""The lock-out check through an actuator judges on the device's own stamps (press less lock-out
command, one clock), cross-checked against the rig's actuation brackets (GAPS.md B9,
docs/wire/actuator.md "The device's stamps, cross-checked")."""

from __future__ import annotations

from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.crazy_time import Lockout
from hil.trace import Event

CMD_S = 10.0  # the device's lock-out command stamp (rig time), inside the write's round trip


def _round(latency_s: float, offsets_s: list[float], shift_s: float) -> RoundView:
    """One round: the command, and a probe press per planned offset whose contact really closes
    ``shift_s`` after the rig's bracket of it (an undeclared relay operate time) — the device
    stamps the real closing and judges it against its lock-out ``latency_s``."""
    evs = [Event(1, 1, 0.0, 0, "croupier", "lockout_probe", {"seat": 7, "offsets_s": offsets_s, "via": "actuator"}),
           Event(2, 1, CMD_S, 0, "wagering", "lockout_command",
                 {"device_time_s": CMD_S, "command_lo_s": CMD_S - 2e-4, "command_hi_s": CMD_S + 2e-4})]
    for i, off in enumerate(offsets_s, start=1):
        lo, hi = CMD_S + off - 1e-4, CMD_S + off + 1e-4
        evs.append(Event(10 + 2 * i, 1, hi, 0, "actuator", "actuation",
                         {"actuation_id": i, "seat": 7, "spot": "1", "coil": 54, "purpose": "probe",
                          "closed_lo_s": lo, "closed_hi_s": hi, "ok": True, "detail": None,
                          "uncertainty_s": 1e-4, "match_window_s": 0.030}))
        t = CMD_S + off + shift_s
        accepted = t - CMD_S < latency_s
        evs.append(Event(11 + 2 * i, 1, t + 0.01, 0, "wagering", "press",
                         {"press_id": i, "seat": 7, "spot": "1", "stake_cents": 100, "accepted": accepted,
                          "device_time_s": t, "answer_time_s": t + 0.001,
                          "reason": None if accepted else "locked_out"}))
    rv = RoundView.of(1, evs)
    rv.clock_uncertainty_s = {"wagering": 5e-4}
    return rv


def _judge(latency_s: float, shift_s: float):
    check = Lockout(CheckConfig(lockout_budget_s=0.010))
    check.setup(BenchView.of([Event(0, 0, 0.0, 0, "actuator", "device_info", {"contact_delay_s": 0.0})]))
    check.observe(_round(latency_s, [0.002, 0.004, 0.006, 0.008, 0.010, 0.012, 0.014], shift_s))
    return check.verdict()


def test_an_undeclared_contact_delay_is_never_a_pass_and_the_bracket_holds_the_truth() -> None:
    verdict, summary, m = _judge(latency_s=0.018, shift_s=0.025)  # every press lands after the lock-out
    by = {x.name: x for x in m}
    assert verdict == "indeterminate" and "contact_delay_s (0.000 ms) is wrong" in summary, summary
    lo, hi = by["lockout_latency_max"].bracket
    assert lo <= 0.018 <= hi, (lo, hi)  # the device's stamps: [0, 27 ms]
    assert abs(by["contact_late_median"].value - 0.025) < 1e-6  # from the bracket's middle
    assert by["rounds_unverified"].value == 1


def test_the_device_s_own_stamps_still_prove_a_slow_lockout() -> None:
    verdict, _summary, m = _judge(latency_s=0.030, shift_s=0.008)  # accepted 10–22 ms after its command
    assert verdict == "fail"


def test_stamps_inside_the_brackets_are_verified_and_a_healthy_device_passes() -> None:
    verdict, summary, m = _judge(latency_s=0.005, shift_s=0.0)
    by = {x.name: x for x in m}
    assert verdict == "pass", summary
    assert by["presses_verified"].value == 7 and "rounds_unverified" not in by
    lo, hi = by["lockout_latency_max"].bracket
    assert 0.004 - 1e-8 <= lo < 0.005 <= hi <= 0.006 + 1e-8, (lo, hi)
