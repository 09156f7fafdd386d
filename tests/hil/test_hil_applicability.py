"""What a bench can run (``hil.applicability``, docs/wire/real-devices.md), on declared data alone:
which scenarios are NOT APPLICABLE on a real device without a control endpoint, and which
device declarations are refused as mismatches."""

from __future__ import annotations

from pathlib import Path

from hil.applicability import mismatches, not_applicable
from hil.bench import parse_bench
from hil.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def _bench(body: str, time_scale: float = 1.0):
    return parse_bench(f'schema = 1\nname = "b"\ntime_scale = {time_scale}\n' + body, "bench.toml").config


def _sc(rel: str):
    return load_scenario(ROOT / "scenarios" / rel).scenario


REAL_WAGERING = '[devices.wagering]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5020"\n'


def test_faults_for_a_device_without_control_make_the_scenario_not_applicable():
    sc = _sc("crazy_time/fault_slow_lockout.yaml")
    [reason] = not_applicable(sc, _bench(REAL_WAGERING))
    assert "devices.wagering" in reason and "lockout_latency_mean_s=0.012" in reason and "fault knob(s)" in reason
    # with a control endpoint the knobs reach the stub; on the simulated bench, the model
    assert not not_applicable(sc, _bench(REAL_WAGERING + 'control = "tcp://127.0.0.1:5021"\n'))
    assert not not_applicable(sc, _bench('[devices.wagering]\nkind = "sim"\n'))
    # a healthy scenario has nothing to apply; a dealer-procedure fault is the croupier's own
    assert not not_applicable(_sc("crazy_time/normal_play.yaml"), _bench(REAL_WAGERING))
    assert not not_applicable(_sc("crazy_time/fault_dealer_payout_error.yaml"), _bench(REAL_WAGERING))


def test_a_roulette_tables_wheel_type_is_checked_not_applied():
    sc = _sc("roulette/roulette_single_zero_play.yaml")
    bench = _bench('[devices.illuminator]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5020"\n')
    assert not not_applicable(sc, bench)  # the table's wheel type describes the device
    o = sc.device_overrides()
    assert mismatches(sc, bench, {"illuminator": {"wheel": "single-zero"}}, o) == []
    [m] = mismatches(sc, bench, {"illuminator": {"wheel": "double-zero"}}, o)
    assert "is a double-zero wheel; the scenario's table is single-zero" in m


def test_sections_seats_and_a_stubs_time_scale_are_mismatches():
    sc = _sc("crazy_time/normal_play.yaml")
    bench = _bench(REAL_WAGERING + '[devices.wheel]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5022"\n', time_scale=20)
    o = sc.device_overrides()
    ok = {"wheel": {"sections": ["1"] * 54}, "wagering": {"seats": 7}}
    assert mismatches(sc, bench, ok, o, {"wheel": {"time_scale": 20.0}}) == []
    found = mismatches(sc, bench, {"wheel": {"sections": ["1"] * 52}, "wagering": {"seats": 5}}, o,
                       {"wagering": {"time_scale": 1.0}})
    assert any("declares 52 sections; a Crazy Time wheel has 54" in m for m in found), found
    assert any("has 5 seat(s); the scenario's table uses seats 1..7" in m for m in found), found
    assert any("the stub runs at --time-scale 1; the bench's time_scale is 20" in m for m in found), found


def test_a_simulated_actuator_on_a_real_bench_is_not_applicable_never_a_refused_run():
    """A scenario's ``bench.actuator`` is a simulated relay pressing a simulated device: on a bench
    whose wagering device is real (even a stub with control) it is NOT APPLICABLE — the whole suite
    still runs — and on a bench with a real relay module it never overrides that relay's declared
    timing. On the simulated bench it runs."""
    for rel in ("crazy_time/actuator_normal_play.yaml", "roulette/roulette_actuator_normal_play.yaml",
                "blackjack/blackjack_actuator_normal_play.yaml"):
        sc = _sc(rel)
        role = {"crazy-time": "wagering", "roulette": "roulette_wagering", "blackjack": "progressive"}[sc.game]
        stub = f'[devices.{role}]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5020"\ncontrol = "tcp://127.0.0.1:5021"\n'
        [reason] = not_applicable(sc, _bench(stub))
        assert "simulated actuator" in reason and f"devices.{role} is a real modbus device" in reason, reason
        relay = '[devices.actuator]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5030"\n'
        [reason] = not_applicable(sc, _bench(stub + relay))
        assert "devices.actuator is a real modbus relay module" in reason, reason
        assert not not_applicable(sc, _bench(f'[devices.{role}]\nkind = "sim"\n'))
    # a scenario without bench.actuator uses the bench's own relay: applicable
    assert not not_applicable(_sc("crazy_time/normal_play.yaml"),
                              _bench(REAL_WAGERING + '[devices.actuator]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5030"\n'))
