"""The VISA time-interval counter (``hil.transport.visa``) against the shipped pyvisa-sim counter
(``hil/data/visa/counter.yaml``): open, identify, configure start → stop, read the interval the
simulator was told, clear errors for a wrong resource / backend / setting, always closed.

The simulated instrument lives as long as its (cached, per-process) ResourceManager: every test
that sets the simulated interval puts it back to 0 in ``finally``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from hil.transport.visa import (SIM_COUNTER, SIM_RESOURCE, CounterConfig, CounterError, TimeIntervalCounter,
                                main, resource_manager)

SIM = f"{SIM_COUNTER}@sim"


@contextmanager
def side_door() -> Iterator:
    """A second session to the simulated counter: sets ``:SIM:TINT`` (what a real counter
    measures from its inputs) and reads back what the rig configured; resets the interval."""
    inst = resource_manager(SIM).open_resource(SIM_RESOURCE, read_termination="\n", write_termination="\n",
                                               timeout=1000)
    try:
        yield inst
    finally:
        try:
            inst.write(":SIM:TINT 0")
        finally:
            inst.close()


def test_the_resource_manager_is_made_once_per_backend():
    assert resource_manager(SIM) is resource_manager(SIM)


def test_opens_identifies_and_configures_a_start_stop_time_interval():
    counter = TimeIntervalCounter(SIM_RESOURCE, SIM, start_slope="NEG", stop_slope="POS",
                                  start_level_v=2.5, stop_level_v=-0.5)
    try:
        assert counter.idn.split(",")[:2] == ["CROUPIER-SIM", "53230A-TINT"]
        with side_door() as sim:
            assert sim.query("INP1:SLOP?") == "NEG" and sim.query("INP2:SLOP?") == "POS"
            assert float(sim.query("INP1:LEV?")) == 2.5 and float(sim.query("INP2:LEV?")) == -0.5
            assert "TINT" in sim.query("CONF?") and "(@1),(@2)" in sim.query("CONF?")
            assert sim.query("SYST:ERR?").startswith("+0")
    finally:
        counter.close()


@pytest.mark.parametrize("interval_s", [0.004321, 1.25e-6, 0.0, 0.5])
def test_reads_back_the_simulated_interval_in_seconds(interval_s):
    with side_door() as sim, TimeIntervalCounter(SIM_RESOURCE, SIM) as counter:
        sim.write(f":SIM:TINT {interval_s!r}")
        assert counter.measure_s() == pytest.approx(interval_s, rel=1e-12, abs=1e-18)
        assert counter.measure_s() == pytest.approx(interval_s, rel=1e-12, abs=1e-18)  # every READ?


def test_from_config_uses_the_bench_fields():
    cfg = CounterConfig(resource=SIM_RESOURCE, backend=SIM, start_slope="NEG", stop_level_v=3.0)
    with side_door() as sim, TimeIntervalCounter.from_config(cfg) as counter:
        sim.write(":SIM:TINT 0.002")
        assert counter.measure_s() == pytest.approx(0.002, rel=1e-12)
        assert sim.query("INP1:SLOP?") == "NEG" and float(sim.query("INP2:LEV?")) == 3.0


def test_a_measurement_without_a_stop_edge_is_an_error_not_a_latency():
    with side_door() as sim, TimeIntervalCounter(SIM_RESOURCE, SIM) as counter:
        sim.write(":SIM:TINT 9.91E+37")  # SCPI "not a number": the counter timed out
        with pytest.raises(CounterError, match="no interval measured"):
            counter.measure_s()


def test_a_resource_where_no_counter_answers_is_a_clear_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyvisa warns of the missing termination first
        with pytest.raises(CounterError, match=r"no instrument answers \*IDN\? at 'GPIB0::9::INSTR'"):
            TimeIntervalCounter("GPIB0::9::INSTR", SIM, timeout_s=0.2)


def test_a_missing_backend_file_is_a_clear_error(tmp_path):
    missing = tmp_path / "no-such-counter.yaml"
    with pytest.raises(CounterError, match=r"cannot load the VISA backend .*No such file"):
        TimeIntervalCounter(SIM_RESOURCE, f"{missing}@sim")


def test_a_setting_the_counter_refuses_names_the_command():
    with pytest.raises(CounterError, match=r"refused 'INP1:LEV 9'"):
        TimeIntervalCounter(SIM_RESOURCE, SIM, start_level_v=9.0)  # outside the inputs' ±5 V


def test_close_is_idempotent_and_the_session_is_gone():
    counter = TimeIntervalCounter(SIM_RESOURCE, SIM)
    counter.close()
    counter.close()
    with pytest.raises(CounterError, match="closed"):
        counter.measure_s()


def test_command_line_prints_the_identity_and_readings(capsys):
    with side_door() as sim:
        sim.write(":SIM:TINT 0.0035")
        assert main([SIM_RESOURCE, "--sim", "-n", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# CROUPIER-SIM") and [float(x) for x in out[1:]] == [0.0035, 0.0035]
    assert main(["GPIB0::3::INSTR", "--backend", "/nonexistent/counter.yaml@sim"]) == 2
    assert "cannot load the VISA backend" in capsys.readouterr().out
