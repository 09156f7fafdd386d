"""A time-interval counter over VISA (pyvisa): the independent edge-to-edge lock-out latency.

A lab wires the counter's channel 1 (start) to the dealer's lock-out button signal and its
channel 2 (stop) to the wagering device's lock-out indicator; one ``READ?`` then answers the time
from the button's edge to the indicator's edge, in seconds, measured by the counter's own
timebase — independent of the rig's clocks, the link and the device's own report
(docs/wire/visa-counter.md).

SCPI (Keysight 53220A/53230A class; most universal counters accept the same)::

    *RST; *CLS                      known state
    CONF:TINT (@1),(@2)             time interval, channel 1 → channel 2
    INP1:SLOP POS|NEG; INP2:SLOP …  which edge starts / stops
    INP1:LEV <V>; INP2:LEV <V>      thresholds
    TRIG:SOUR IMM; SAMP:COUN 1      one measurement per READ?
    READ?                           arm, wait for start→stop, answer seconds (+1.234E-03)
    SYST:ERR?                       the error queue, read after configuring

Simulation: ``hil/data/visa/counter.yaml`` is a pyvisa-sim instrument file of such a counter
(``backend=f"{SIM_COUNTER}@sim"``); ``:SIM:TINT <s>`` sets the interval its ``READ?`` answers.

ResourceManagers are cached per backend (one per process): building one costs ~26 ms for
``@sim`` (it parses the YAML), and a VISA library is process-wide state anyway. With ``@sim``
the simulated instruments live as long as their manager, i.e. the process: whoever sets
``:SIM:TINT`` sets it for every later user of that backend (tests set it before each read).
"""

from __future__ import annotations

import argparse
import importlib.resources
import math
import threading
from pathlib import Path
from typing import Literal

import pydantic
import pyvisa
from pyvisa.errors import VisaIOError

Slope = Literal["POS", "NEG"]

#: The simulated counter shipped with the rig (pyvisa-sim spec 1.1).
SIM_COUNTER = Path(str(importlib.resources.files("hil").joinpath("data/visa/counter.yaml")))
#: Its resource name.
SIM_RESOURCE = "GPIB0::3::INSTR"


class CounterError(RuntimeError):
    """The counter cannot be reached, did not answer, refused a command or answered nonsense."""


class CounterConfig(pydantic.BaseModel):
    """How the counter is wired and set up (a bench's ``[instruments.lockout_counter]`` table)."""

    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)

    resource: str  # VISA resource name, e.g. "TCPIP0::192.168.1.40::inst0::INSTR"
    backend: str = "@py"  # "@py" (pyvisa-py), "" (the system's VISA), "<file>@sim"
    start_slope: Slope = "POS"  # the lock-out button's edge (channel 1)
    stop_slope: Slope = "POS"  # the lock-out indicator's edge (channel 2)
    start_level_v: float = 1.5
    stop_level_v: float = 1.5
    timeout_s: float = pydantic.Field(2.0, gt=0)  # per VISA I/O, and the measurement's own timeout
    # ---- the reading's uncertainty (the instrument's datasheet and the wiring, as the lab sets them;
    # defaults: a 53220A-class counter on a TCXO timebase, short equal cables, fast logic edges)
    resolution_s: float = pydantic.Field(100e-12, ge=0)  # single-shot time-interval resolution
    timebase_ppm: float = pydantic.Field(2.0, ge=0)  # timebase accuracy (calibration, ageing, temperature)
    trigger_error_s: float = pydantic.Field(1e-9, ge=0)  # trigger timing error, start and stop (noise / slew)
    systematic_error_s: float = pydantic.Field(0.0, ge=0)  # channel skew and cable delay left uncorrected

    def uncertainty_s(self, interval_s: float) -> float:
        """The worst-case half-width of a reading of ``interval_s`` (s): resolution + timebase ×
        interval + trigger timing error + systematic error, summed linearly (no term may cancel
        another: a check judging a budget needs a bound, not a standard deviation)."""
        return (self.resolution_s + self.timebase_ppm * 1e-6 * abs(interval_s) + self.trigger_error_s
                + self.systematic_error_s)

    def accuracy(self) -> dict[str, float]:
        """The uncertainty terms as configured (recorded in the counter's ``device_info``)."""
        return {"resolution_s": self.resolution_s, "timebase_ppm": self.timebase_ppm,
                "trigger_error_s": self.trigger_error_s, "systematic_error_s": self.systematic_error_s}


_managers: dict[str, pyvisa.ResourceManager] = {}
_managers_lock = threading.Lock()


def resource_manager(backend: str = "@py") -> pyvisa.ResourceManager:
    """The process' ResourceManager for ``backend`` (made once; see the module docstring)."""
    with _managers_lock:
        rm = _managers.get(backend)
        if rm is None:
            try:
                rm = pyvisa.ResourceManager(backend)
            except (OSError, ValueError) as exc:
                raise CounterError(f"cannot load the VISA backend {backend!r}: {_first_line(exc)}") from None
            _managers[backend] = rm
        return rm


def _first_line(exc: BaseException) -> str:
    """The gist of an error: pyvisa-sim wraps its parser's whole traceback in the message."""
    text = str(exc).strip()
    if "Traceback" in text:
        lines = text.replace("\\n", "\n").replace("\\'", "'").splitlines()
        text = [line for line in lines if line.strip(" '\"")][-1].strip()
    return text if text.startswith(type(exc).__name__) else f"{type(exc).__name__}: {text}"


class TimeIntervalCounter:
    """One counter, configured for a start → stop time interval at open; ``measure_s()`` per
    reading. Use as a context manager, or call ``close()``."""

    def __init__(self, resource: str, backend: str = "@py", *, start_slope: Slope = "POS",
                 stop_slope: Slope = "POS", start_level_v: float = 1.5, stop_level_v: float = 1.5,
                 timeout_s: float = 2.0) -> None:
        self.resource, self.backend = resource, backend
        self.idn = ""
        rm = resource_manager(backend)
        try:
            self._inst = rm.open_resource(resource, read_termination="\n", write_termination="\n",
                                          timeout=round(timeout_s * 1000))
        except (VisaIOError, ValueError, OSError) as exc:
            raise CounterError(f"cannot open {resource!r} (backend {backend!r}): {_first_line(exc)}") from None
        try:
            try:
                self.idn = self._inst.query("*IDN?").strip()
                why = "an empty answer"
            except VisaIOError as exc:
                why = exc.description or str(exc)
            if not self.idn:
                raise CounterError(f"no instrument answers *IDN? at {resource!r} (backend {backend!r}): {why}")
            self._configure(start_slope, stop_slope, start_level_v, stop_level_v, timeout_s)
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_config(cls, cfg: CounterConfig) -> TimeIntervalCounter:
        return cls(cfg.resource, cfg.backend, start_slope=cfg.start_slope, stop_slope=cfg.stop_slope,
                   start_level_v=cfg.start_level_v, stop_level_v=cfg.stop_level_v, timeout_s=cfg.timeout_s)

    def _session(self):
        if self._inst is None:
            raise CounterError(f"{self.resource}: the counter was closed")
        return self._inst

    def _write(self, command: str) -> None:
        inst = self._session()
        try:
            inst.write(command)
        except VisaIOError as exc:
            raise CounterError(f"{self.resource}: {command!r} failed: {exc.description or exc}") from None

    def _configure(self, start_slope: str, stop_slope: str, start_level_v: float, stop_level_v: float,
                   timeout_s: float) -> None:
        for command in ("*RST", "*CLS", "CONF:TINT (@1),(@2)", f"INP1:SLOP {start_slope}",
                        f"INP2:SLOP {stop_slope}", f"INP1:LEV {start_level_v:g}", f"INP2:LEV {stop_level_v:g}",
                        f"SENS:TINT:TIM {timeout_s:g}", "TRIG:SOUR IMM", "SAMP:COUN 1"):
            self._write(command)
            self._check_errors(command)

    def _check_errors(self, after: str) -> None:
        """Read the SCPI error queue; the first error fails with the command that caused it."""
        answer = self._query("SYST:ERR?")
        code = answer.split(",", 1)[0].strip()
        try:
            failed = int(code) != 0
        except ValueError:
            raise CounterError(f"{self.resource}: SYST:ERR? answered {answer!r} after {after!r}") from None
        if failed:
            raise CounterError(f"{self.resource} refused {after!r}: {answer}")

    def _query(self, command: str) -> str:
        inst = self._session()
        try:
            return inst.query(command).strip()
        except VisaIOError as exc:
            raise CounterError(f"{self.resource}: no answer to {command!r}: {exc.description or exc}") from None

    def measure_s(self) -> float:
        """One start → stop interval, in seconds (arms the counter and waits for both edges)."""
        answer = self._query("READ?")
        try:
            value = float(answer)
        except ValueError:
            raise CounterError(f"{self.resource}: READ? answered {answer!r}, not a number of seconds") from None
        # 9.91E37 is SCPI's "not a number" (e.g. no stop edge before the measurement timeout).
        if not math.isfinite(value) or abs(value) >= 9.9e37:
            raise CounterError(f"{self.resource}: no interval measured (READ? answered {answer!r}; "
                               "is the stop edge wired and within the timeout?)")
        return value

    def close(self) -> None:
        """Close the instrument session (the ResourceManager stays cached for the process)."""
        inst, self._inst = getattr(self, "_inst", None), None
        if inst is not None:
            inst.close()

    def __enter__(self) -> TimeIntervalCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m hil.transport.visa RESOURCE [--backend B] [-n N]``: identify the counter and
    print N lock-out latency readings (one per line, seconds); ``--sim`` uses the shipped
    simulated counter."""
    ap = argparse.ArgumentParser(prog="python -m hil.transport.visa", description=main.__doc__)
    ap.add_argument("resource", nargs="?", default=SIM_RESOURCE)
    ap.add_argument("--backend", default="@py")
    ap.add_argument("--sim", action="store_true", help=f"backend {SIM_COUNTER}@sim")
    ap.add_argument("--start-slope", choices=["POS", "NEG"], default="POS")
    ap.add_argument("--stop-slope", choices=["POS", "NEG"], default="POS")
    ap.add_argument("--level", type=float, default=1.5, help="both thresholds, volts")
    ap.add_argument("-n", type=int, default=1)
    a = ap.parse_args(argv)
    backend = f"{SIM_COUNTER}@sim" if a.sim else a.backend
    try:
        with TimeIntervalCounter(a.resource, backend, start_slope=a.start_slope, stop_slope=a.stop_slope,
                                 start_level_v=a.level, stop_level_v=a.level) as counter:
            print(f"# {counter.idn}")
            for _ in range(a.n):
                print(f"{counter.measure_s():.12g}")
    except CounterError as exc:
        print(f"error: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
