"""Scenarios on real devices: what a bench can run, and what it must refuse (docs/wire/real-devices.md).

Three outcomes besides a run:

* **Not applicable** (``not_applicable``): a scenario whose fault knobs or device overrides are for a
  device the rig cannot configure — a real device without a control endpoint — is not run. Running it
  without its fault would test a healthy device against a fault scenario's expectation (a "pass
  (expected FAIL)" that proves nothing); it is reported NOT APPLICABLE, with the reason, instead.
  Overrides that *describe* the device (a roulette table's wheel type, the seats the table uses:
  ``DECLARED``) are not applied to a real device: they are checked against what it declares.
* **Refused, mismatch** (``mismatches``, and ``hil.clock.ClockRateMismatch`` at connect): the device is
  not the one the scenario needs — another wheel type, too few seats, another section count, another
  time scale. A run on it would give false failures (or false passes): the run stops, exit 2.
* **Refused, unreachable**: a device that does not answer at connect (or whose control endpoint does
  not) stops the run with one error naming the device and its URL, exit 2 — not a traceback per scenario.
"""

from __future__ import annotations

from typing import Any

from hil.wire.supervisor import redact as redact_key
from hil.bench import ACTUATOR, WAGERING_ROLE, BenchConfig
from hil.scenario import Scenario

#: per role, the override keys that describe the device rather than configure it: on a real device
#: without a control endpoint they are checked against its ``device_info``, never "applied"
DECLARED: dict[str, tuple[str, ...]] = {"ball_wheel": ("wheel",), "illuminator": ("wheel",),
                                        "wagering": ("seats",), "roulette_wagering": ("seats",),
                                        "progressive": ("seats",)}


class BenchRefused(RuntimeError):
    """The bench cannot run the scenario: ``kind`` is ``unreachable``, ``connect``, ``mismatch`` or
    ``unauthorised`` (a stub's control endpoint refused the bench's token) (exit 2)."""

    def __init__(self, kind: str, role: str | None, message: str) -> None:
        super().__init__(kind, role, message)
        self.kind, self.role, self.message = kind, role, message

    def __str__(self) -> str:
        return self.message


def not_applicable(sc: Scenario, bench: BenchConfig) -> list[str]:
    """Why ``sc`` cannot run on ``bench`` as written (empty: it can): each real device without a
    control endpoint for which the scenario sets fault knobs or overrides."""
    reasons = []
    for role in sc.roles:
        dev = bench.device(role)
        if dev.kind == "sim" or dev.control:
            continue
        for what, layer in (("fault knob(s)", sc.faults.get(role) or {}), ("device override(s)", sc.bench.get(role) or {})):
            knobs = {k: v for k, v in layer.items() if k not in DECLARED.get(role, ())}
            if knobs:
                shown = ", ".join(f"{k}={v!r}" for k, v in sorted(knobs.items()))
                reasons.append(f"devices.{role} is a real {dev.kind} device ({redact_key(dev.url)}) without a control endpoint: "
                               f"the scenario's {what} {shown} cannot be applied to it")
    if ACTUATOR in sc.bench and (why := _sim_actuator_cannot_press(sc, bench)):
        reasons.append(why)
    return reasons


def _sim_actuator_cannot_press(sc: Scenario, bench: BenchConfig) -> str | None:
    """A scenario's ``bench.actuator`` is a simulated relay module's parameters (its operate time,
    pulse, wiring): it closes a simulated device's buttons. On a bench whose actuator is real, the
    bench's own declarations (its relay's true operate time) must rule — a scenario's would override
    them and hide a slow lock-out behind a wrong bracket; on a bench whose wagering device is real,
    a simulated relay has no contact to close. Either way the scenario cannot run as written (the
    bench's own actuator presses the real device in every scenario without ``bench.actuator``)."""
    act = bench.device(ACTUATOR)
    if act.kind != "sim":
        return (f"devices.actuator is a real {act.kind} relay module ({act.url}): the scenario's simulated actuator "
                f"(bench.actuator) cannot stand in for it, nor override its declared timing")
    role = WAGERING_ROLE.get(sc.game, (None, None))[0]
    if role is not None and (dev := bench.device(role)).kind != "sim":
        return (f"the scenario presses through a simulated actuator (bench.actuator), which closes a simulated "
                f"device's buttons; devices.{role} is a real {dev.kind} device ({redact_key(dev.url)})")
    return None


def needed_seats(sc: Scenario, role: str, want: dict[str, Any]) -> int | None:
    """The seats the scenario's table expects of ``role``'s device: those of the SimPy model it
    would run on (the scenario's ``seats``, or the model's default), and the rig's probe seat.
    (Players seated past the device's seats are part of a scenario: the device refuses them.)"""
    from hil.bench import sim_params

    try:
        p = sim_params(role, want)
    except (ValueError, TypeError):
        return None
    seats = getattr(p, "seats", None) or getattr(getattr(p, "wagering", None), "seats", None)
    if seats is None:
        return None
    probe = sc.lockout.probe.seat if sc.lockout.probe else 0
    return max(int(seats), probe)


def mismatches(sc: Scenario, bench: BenchConfig, info: dict[str, dict[str, Any]],
               overrides: dict[str, dict[str, Any]], stubs: dict[str, dict[str, Any]] | None = None) -> list[str]:
    """What the real devices declared (``info``: role -> ``device_info``; ``stubs``: role -> a stub's
    control-endpoint ``info``) that the scenario cannot run on. Empty when they fit."""
    from rules.crazy_time import WHEEL_SECTIONS

    out: list[str] = []
    for role in sc.roles:
        dev = bench.device(role)
        if dev.kind == "sim":
            continue
        declared = info.get(role) or {}
        where = f"devices.{role} ({redact_key(dev.url)})"
        want = overrides.get(role) or {}
        if role in ("ball_wheel", "illuminator") and "wheel" in declared and "wheel" in want:
            if str(declared["wheel"]) != str(want["wheel"]):
                out.append(f"{where} is a {declared['wheel']} wheel; the scenario's table is {want['wheel']}")
        if "seats" in declared and role in ("wagering", "roulette_wagering", "progressive"):
            need = needed_seats(sc, role, want)
            if need is not None and int(declared["seats"]) < need:
                out.append(f"{where} has {declared['seats']} seat(s); the scenario's table uses seats 1..{need}")
        if role == "wheel" and isinstance(declared.get("sections"), (list, tuple)):
            n = len(declared["sections"])
            if n != len(WHEEL_SECTIONS):
                out.append(f"{where} declares {n} sections; a Crazy Time wheel has {len(WHEEL_SECTIONS)} "
                           "(§ 690.1(a)); their order is judged by CT-690.1-layout")
        stub = (stubs or {}).get(role)
        if stub and "time_scale" in stub and abs(float(stub["time_scale"]) - bench.time_scale) > 1e-9 * bench.time_scale:
            out.append(f"{where}: the stub runs at --time-scale {float(stub['time_scale']):g}; the bench's "
                       f"time_scale is {bench.time_scale:g}")
    return out
