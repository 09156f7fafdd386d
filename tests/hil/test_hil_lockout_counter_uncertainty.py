"""The VISA lock-out counter's reading carries its own uncertainty (docs/wire/visa-counter.md,
"Uncertainty"): the instrument's resolution and timebase accuracy and the wiring's trigger and
systematic errors, as the bench configures them, recorded with every figure; the lock-out check
judges the reading's bracket, so a reading that straddles the budget is never a PASS."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.trace import TraceReader
from hil.transport.visa import SIM_COUNTER, SIM_RESOURCE, CounterConfig, resource_manager

runner = CliRunner()
SCENARIO = """\
schema: 1
name: counter
game: crazy-time
seed: 4
rounds: 2
players: {count: 2}
croupier: {betting_window_s: 2.0, between_rounds_s: 0.5}
lockout: {budget_s: 0.010}
"""
#: the wiring's trigger error: slow edges on the button line (0.2 ms), a 53220A-class counter
ACCURACY = 'resolution_s = 1e-10\ntimebase_ppm = 2.0\ntrigger_error_s = 0.0002\nsystematic_error_s = 0.00001\n'


def test_the_uncertainty_is_the_configured_terms_summed():
    cfg = CounterConfig(resource=SIM_RESOURCE, resolution_s=1e-10, timebase_ppm=2.0, trigger_error_s=2e-4,
                        systematic_error_s=1e-5)
    assert cfg.uncertainty_s(0.01) == pytest.approx(1e-10 + 2e-8 + 2e-4 + 1e-5, rel=1e-12)
    assert cfg.uncertainty_s(0.02) > cfg.uncertainty_s(0.01)  # the timebase term grows with the interval
    with pytest.raises(ValueError):
        CounterConfig(resource=SIM_RESOURCE, trigger_error_s=-1e-6)


@pytest.mark.parametrize("interval_s, verdict", [
    (0.0097, "pass"),  # 9.7 ± 0.21 ms: within the budget at its upper end
    (0.0099, "indeterminate"),  # 9.9 ± 0.21 ms: the bracket straddles 10 ms — never a pass
    (0.0101, "indeterminate"),  # 10.1 ± 0.21 ms: possibly within — not a violation either
    (0.0103, "fail"),  # 10.3 ± 0.21 ms: over the budget at its lower end
])
def test_a_reading_is_judged_with_its_uncertainty(tmp_path, interval_s, verdict):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "bench.toml").write_text(
        'schema = 1\nname = "sim-with-counter"\ntime_scale = 100\n'
        '[devices.wheel]\nkind = "sim"\n[devices.top_slot]\nkind = "sim"\n[devices.wagering]\nkind = "sim"\n'
        f'[instruments.lockout_counter]\nresource = "{SIM_RESOURCE}"\nbackend = "{SIM_COUNTER}@sim"\n{ACCURACY}')
    sim = resource_manager(f"{SIM_COUNTER}@sim").open_resource(SIM_RESOURCE, read_termination="\n",
                                                               write_termination="\n", timeout=1000)
    try:
        sim.write(f":SIM:TINT {interval_s!r}")
        res = runner.invoke(app, ["run", str(tmp_path / "s.yaml"), "--bench", str(tmp_path / "bench.toml"),
                                  "--out", str(tmp_path / "out")])
    finally:
        sim.write(":SIM:TINT 0")
        sim.close()
    assert res.exit_code in (0, 1, 3), res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    check = next(c for c in report["scenarios"][0]["checks"] if c["id"] == "CT-lockout")
    assert check["verdict"] == verdict, check["summary"]
    u = 1e-10 + 2e-6 * interval_s + 2e-4 + 1e-5
    m = {x["name"]: x for x in check["measurements"]}
    assert m["lockout_latency_counter_max"]["value"] == pytest.approx(interval_s)
    assert m["lockout_latency_counter_max"]["bracket"] == pytest.approx([interval_s - u, interval_s + u])
    assert m["counter_uncertainty_max"]["value"] == pytest.approx(u)
    with TraceReader(tmp_path / "out" / "traces" / "counter.sqlite") as t:
        events = list(t.events())
    readings = [e.payload for e in events if e.kind == "lockout_interval"]
    assert len(readings) == 2 and all(r["uncertainty_s"] == pytest.approx(u) for r in readings)
    assert all(r["interval_lo_s"] == pytest.approx(interval_s - u) and r["interval_hi_s"] == pytest.approx(interval_s + u)
               for r in readings)
    info = next(e.payload for e in events if e.kind == "device_info" and e.device == "lockout_counter")
    assert info["accuracy"] == {"resolution_s": 1e-10, "timebase_ppm": 2.0, "trigger_error_s": 0.0002,
                                "systematic_error_s": 0.00001}
