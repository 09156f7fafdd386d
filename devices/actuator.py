"""The rig's actuator: a relay / digital-output module whose outputs close a wagering device's seat
buttons (docs/wire/actuator.md), and the rule that attributes each press-log entry to the actuation
that made it.

``ActuatorParams`` are the bench's actuator fields (every kind: they describe the rig's wiring and
timing, not a model). ``Wiring`` maps a seat button to its output: coil = (seat − 1) × S + k by
default (k the spot's index in the device's spot enum, S its size), or the bench's ``buttons``
table. ``SimActuator`` is the simulated module: its output closes ``contact_delay_s`` ±
``contact_jitter_s`` (uniform) after the command, on the simulated device's button input
(``WageringSim.button``) — a physical input, never the injection interface. ``attribute`` is the
matching rule the croupier and the checks share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import simpy

from devices.contracts import Actuation, Telemetry, payload

#: The spot enums of the devices an actuator's buttons are wired to (the order of the shipped maps'
#: ``press_log_spot``: docs/wire/modbus-wagering.md, docs/wire/modbus-progressive-system.md).
WAGERING_SPOTS = ("1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time", "roulette-up")
PROGRESSIVE_SPOTS = ("progressive", "roulette-up", "21+3-progressive", "royal-match-progressive",
                     "blazing-7s-multi-progressive")
_KEY = re.compile(r"^(\d+):(.+)$")


@dataclass(frozen=True)
class ActuatorParams:
    """The bench's actuator fields (docs/wire/actuator.md, "Bench fields")."""

    __pydantic_config__ = {"extra": "forbid"}

    pulse_s: float = 0.05
    """A press: output ON, held this long, then OFF."""
    contact_delay_s: float = 0.0
    """From the output set to the button's contact closed (a relay's operate time)."""
    contact_jitter_s: float = 0.0
    """± spread of that delay."""
    match_window_s: float = 0.010
    """The longest a device may take from the contact closing to the time it stamps (its debounce)."""
    buttons: dict[str, int] | None = None
    """``"SEAT:SPOT" = coil``: only these buttons are wired; None: the default wiring."""

    def __post_init__(self) -> None:
        if not self.pulse_s > 0:
            raise ValueError(f"pulse_s must be > 0, not {self.pulse_s}")
        for name in ("contact_delay_s", "contact_jitter_s", "match_window_s"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, not {getattr(self, name)}")
        if self.contact_jitter_s > self.contact_delay_s:
            raise ValueError(f"contact_jitter_s ({self.contact_jitter_s}) may not exceed contact_delay_s "
                             f"({self.contact_delay_s}): a contact cannot close before its output is set")


@dataclass(frozen=True)
class Wiring:
    """Which output presses which seat button."""

    spots: tuple[str, ...]  # the device's spot enum, in order
    coils: dict[tuple[int, str], int]  # (seat, spot) -> coil

    @classmethod
    def of(cls, spots: Sequence[str], seats: int, buttons: dict[str, int] | None,
           table_spots: Sequence[str] | None = None) -> Wiring:
        """The default wiring of ``seats`` seats over ``spots``, or the ``buttons`` table. The
        default wires only ``table_spots`` where given (the buttons the table's terminals have: a
        Crazy Time terminal has no ``roulette-up``), at the same coils (the formula's *S* stays the
        enum's size). A bad key, an unknown spot or two buttons on one coil raise ``ValueError``
        naming the key."""
        spots = tuple(spots)
        if buttons is None:
            own = set(spots if table_spots is None else table_spots)
            return cls(spots, {(seat, spot): (seat - 1) * len(spots) + k
                               for seat in range(1, seats + 1) for k, spot in enumerate(spots) if spot in own})
        coils: dict[tuple[int, str], int] = {}
        owner: dict[int, str] = {}
        for key, coil in buttons.items():
            m = _KEY.match(str(key))
            if m is None or int(m.group(1)) < 1:
                raise ValueError(f"buttons.{key!r}: a button is \"SEAT:SPOT\" with a seat >= 1")
            if m.group(2) not in spots:
                raise ValueError(f"buttons.{key!r}: {m.group(2)!r} is not a spot of the device ({', '.join(spots)})")
            if isinstance(coil, bool) or not isinstance(coil, int) or coil < 0 or coil > 0xFFFF:
                raise ValueError(f"buttons.{key!r}: the coil must be an address 0..65535, not {coil!r}")
            if coil in owner:
                raise ValueError(f"buttons.{key!r}: coil {coil} already presses {owner[coil]!r}")
            owner[coil] = str(key)
            coils[(int(m.group(1)), m.group(2))] = coil
        return cls(spots, coils)

    def coil(self, seat: int, spot: str) -> int | None:
        return self.coils.get((seat, str(spot)))

    def seat_buttons(self, seat: int) -> list[str]:
        """The wired spots of ``seat``, in the enum's order."""
        return [s for s in self.spots if (seat, s) in self.coils]

    def table(self) -> dict[str, int]:
        return {f"{seat}:{spot}": c for (seat, spot), c in sorted(self.coils.items(), key=lambda kv: kv[1])}


class CoilScheduler:
    """Presses of one coil never overlap: a press waits until the coil's previous press ended and
    its contact stayed open ``pulse_s`` (a clean low between two closings)."""

    def __init__(self, pulse_s: float) -> None:
        self.pulse_s = pulse_s
        self.free_at: dict[int, float] = {}

    def start(self, coil: int, now: float) -> float:
        """When a press of ``coil`` asked for at ``now`` starts; books the coil till it is free again."""
        t = max(now, self.free_at.get(coil, -1.0))
        self.free_at[coil] = t + 2 * self.pulse_s
        return t


class ActuatorBase:
    """What every actuator shares (the simulated one here, the relay modules' in
    ``hil.adapters.actuator_base``): its wiring, its presses' ids and schedule, its ``device_info``."""

    def __init__(self, params: ActuatorParams, wiring: Wiring, telemetry: Telemetry, name: str) -> None:
        self.params, self.wiring, self.telemetry, self.name = params, wiring, telemetry, name
        self.match_window_s = params.match_window_s
        self._id = 0
        self._coils = CoilScheduler(params.pulse_s)

    def _device_info(self, **fields) -> None:
        p = self.params
        self.telemetry(self.name, "device_info", {**fields, "coils": self.wiring.table(), "pulse_s": p.pulse_s,
                                                  "contact_delay_s": p.contact_delay_s,
                                                  "contact_jitter_s": p.contact_jitter_s,
                                                  "match_window_s": p.match_window_s})

    def wired(self, seat: int, spot: str) -> bool:
        return self.wiring.coil(seat, spot) is not None

    def _coil(self, seat: int, spot: str) -> int:
        """The output of ``seat``'s ``spot`` button, for a new press (its id taken); ValueError when unwired."""
        coil = self.wiring.coil(seat, spot)
        if coil is None:
            raise ValueError(f"seat {seat}'s {spot!r} button is not wired to the actuator")
        self._id += 1
        return coil


class SimActuator(ActuatorBase):
    """The simulated relay module, wired to a simulated wagering device's buttons
    (implements ``devices.contracts.Actuator``)."""

    def __init__(self, env: simpy.Environment, params: ActuatorParams, wiring: Wiring, device,
                 rng: np.random.Generator, telemetry: Telemetry, name: str = "actuator") -> None:
        super().__init__(params, wiring, telemetry, name)
        self.env, self.device, self.rng = env, device, rng
        self._device_info(kind="sim")

    def press(self, seat: int, spot: str, purpose: str = "player") -> simpy.Event:
        coil = self._coil(seat, spot)
        p = self.params
        start = self._coils.start(coil, self.env.now)
        closing = start + p.contact_delay_s + (float(self.rng.uniform(-p.contact_jitter_s, p.contact_jitter_s))
                                               if p.contact_jitter_s else 0.0)
        act = Actuation(self._id, seat, str(spot), coil, purpose, start + p.contact_delay_s - p.contact_jitter_s,
                        start + p.contact_delay_s + p.contact_jitter_s)
        done = self.env.event()
        close = self.env.timeout(closing - self.env.now)
        close.callbacks.append(lambda _e: self._close(act, closing, done))
        return done

    def _close(self, act: Actuation, closing: float, done: simpy.Event) -> None:
        self.device.button(act.seat, act.spot, True)
        release = self.env.timeout(self.params.pulse_s)
        release.callbacks.append(lambda _e: self.device.button(act.seat, act.spot, False))
        self.telemetry(self.name, "actuation", {**payload(act), "uncertainty_s": act.uncertainty_s,
                                                "opened_s": closing + self.params.pulse_s,
                                                "match_window_s": self.match_window_s})
        done.succeed(act)


# --------------------------------------------------------------------------- attribution
@dataclass(frozen=True)
class Entry:
    """A press-log entry as the attribution sees it: its id, button and time in the rig's clock."""

    press_id: int
    seat: int
    spot: str
    t_s: float


@dataclass
class Attribution:
    """What each press-log entry was (docs/wire/actuator.md, "Matching a log entry to its actuation")."""

    matched: dict[int, int] = field(default_factory=dict)  # press id -> actuation id
    duplicates: dict[int, int] = field(default_factory=dict)  # press id -> the actuation it doubles
    foreign: list[int] = field(default_factory=list)  # press ids the rig did not make
    lost: list[int] = field(default_factory=list)  # actuation ids no entry matched


def attribute(actuations: Sequence[Actuation], entries: Sequence[Entry], clock_uncertainty_s: float,
              match_window_s: float) -> Attribution:
    """Attribute each log entry to the actuation that made it. An entry matches an actuation of the
    same seat and spot when ``closed_lo − u ≤ t ≤ closed_hi + u + match_window_s``; actuations in
    time order each take the earliest unmatched entry in their window. An unmatched entry inside a
    matched actuation's window is a duplicate (a bounce), any other a foreign press; an actuation
    with no entry is lost. Failed actuations (``ok`` False) press nothing and match nothing."""
    u = clock_uncertainty_s
    out = Attribution()
    order = sorted(entries, key=lambda e: (e.t_s, e.press_id))
    taken: set[int] = set()
    windows: dict[int, tuple[Actuation, float, float]] = {}
    for a in sorted((a for a in actuations if a.ok), key=lambda a: (a.closed_lo_s, a.actuation_id)):
        lo, hi = a.closed_lo_s - u, a.closed_hi_s + u + match_window_s
        windows[a.actuation_id] = (a, lo, hi)
        hit = next((e for e in order if e.press_id not in taken and e.seat == a.seat and e.spot == a.spot
                    and lo <= e.t_s <= hi), None)
        if hit is None:
            out.lost.append(a.actuation_id)
            continue
        taken.add(hit.press_id)
        out.matched[hit.press_id] = a.actuation_id
    for e in order:
        if e.press_id in taken:
            continue
        twin = next((aid for aid, (a, lo, hi) in windows.items() if a.seat == e.seat and a.spot == e.spot
                     and lo <= e.t_s <= hi and aid in out.matched.values()), None)
        if twin is not None:
            out.duplicates[e.press_id] = twin
        else:
            out.foreign.append(e.press_id)
    return out
