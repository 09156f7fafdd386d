"""The progressive table game system (§ 605a.7 as used by §§ 617b.4(c), 633b.17(c), 633b.18(d),
633b.21(a); linked tables, § 605a.8): a wagering device at each betting position with the dealer's
lock-out, a win light per seat, and a controller holding one or more meters.

``ProgressiveController`` holds the meters. One controller may be shared by several
``ProgressiveTableSim``s — a linked progressive: every table's accepted wagers increment the same
meters. Each meter has a seed, a reseed, an incrementation rate and a reserve rate, exact
fractions of the wager (``MeterSpec``). A meter is kept as an exact ``Fraction`` of cents: it shows
(and pays) whole cents, and the fraction of a cent an increment leaves is carried to the next one,
never rounded away. The controller's state can be snapshotted and restored exactly (a recovery must
restore the meters to the cent and to the residue).

``ProgressiveTableSim`` is a ``devices.wagering.WageringSim`` (same press timing, lock-out latency
and armed probe — a press is a progressive wager) that also increments the meters for each accepted
wager the dealer confirms after "no more bets" (``confirm_wagers``: never the rig's probe presses
nor a press recognised inside the lock-out latency), lights the seats' win lights, reads the meters and pays them. Its link to the controller can
be lost (a fault knob): while it is lost the table refuses progressive wagers (``"link_lost"``) and
shows the last meter values it had; when it is restored it re-reads them from the controller.

Times of the scheduled faults (``power_loss_at_s``, ``link_loss_at_s``) count from the model's
creation — the device's power-up; a model created at ``env.now == 0`` has them at that device time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import floor
from typing import Any

import numpy as np
import simpy

from devices.contracts import MeterPayout, MeterReading, PressAnswer, Telemetry, payload
from devices.wagering import DEFAULT_MAX_STAKE_CENTS, DEFAULT_MIN_STAKE_CENTS, WageringParams, WageringSim


@functools.cache
def parse_rate(text: str) -> Fraction:
    """A rate of the wager, exactly: ``"20%"``, ``"1/5"`` or ``"0.2"`` (decimal), in [0, 1].

    Rates are strings so they stay exact: a float ``0.14`` is not 14/100."""
    if isinstance(text, bool) or not isinstance(text, str):
        raise ValueError(f"a rate is a string such as '20%' or '1/5', not {text!r}")
    s = text.strip()
    try:
        rate = Fraction(s[:-1].strip()) / 100 if s.endswith("%") else Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"rate {text!r}: expected a percent ('20%'), a fraction ('1/5') or a decimal ('0.2')") from None
    if not 0 <= rate <= 1:
        raise ValueError(f"rate {text!r} is {rate}: must be between 0 and 1 (0% and 100%) of the wager")
    return rate


@dataclass(frozen=True)
class MeterSpec:
    """One progressive meter: its seed and reseed and its rates (a § 617b.4(h)(2) / § 633b.21(g) row)."""

    __pydantic_config__ = {"extra": "forbid"}

    name: str
    """The meter's name ("mega", "major", "minor"; "progressive" for a single meter)."""
    seed_cents: int
    """The meter's initial amount."""
    reseed_cents: int | None = None
    """The amount the meter restarts from after it is paid (None: the seed)."""
    increment_rate: str = "20%"
    """The share of each progressive wager added to the meter: "20%", "1/5" or "0.2" (exact)."""
    reserve_rate: str = "0%"
    """The share of each progressive wager added to the meter's reserve, which funds the reseeds."""
    reseed_from_reserve: bool = False
    """The meter has no fixed reseed: once paid in full it restarts at what its reserve holds (the
    whole reserve, to the fraction of a cent). A 21+3 row whose Seed/Reseed is "N/A" and which
    gives a reserve rate (§ 633b.17(h); docs/rules-blackjack.md)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip() or self.name != self.name.strip():
            raise ValueError(f"a meter needs a name without surrounding blanks, not {self.name!r}")
        if not isinstance(self.reseed_from_reserve, bool):
            raise ValueError(f"meter {self.name!r}: reseed_from_reserve must be true or false")
        if self.reseed_from_reserve and self.reseed_cents is not None:
            raise ValueError(f"meter {self.name!r}: a meter restarted from its reserve has no fixed reseed_cents")
        for what in ("seed_cents", "reseed_cents"):
            v = getattr(self, what)
            if v is None and what == "reseed_cents":
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"meter {self.name!r}: {what} must be an int >= 0, not {v!r}")
        parse_rate(self.increment_rate)
        parse_rate(self.reserve_rate)

    @property
    def reseed(self) -> int:
        """The fixed reseed (0 for a meter restarted from its reserve)."""
        if self.reseed_from_reserve:
            return 0
        return self.seed_cents if self.reseed_cents is None else self.reseed_cents

    @property
    def increment(self) -> Fraction:
        return parse_rate(self.increment_rate)

    @property
    def reserve(self) -> Fraction:
        return parse_rate(self.reserve_rate)

    def info(self) -> dict[str, Any]:
        """The meter as ``device_info`` declares it (rates as exact fractions, e.g. "1/5")."""
        return {"name": self.name, "seed_cents": self.seed_cents, "reseed_cents": self.reseed,
                "increment_rate": str(self.increment), "reserve_rate": str(self.reserve),
                "reseed_from_reserve": self.reseed_from_reserve}


#: Roulette Up Progressive Paytable 1 on a $1 progressive wager (§ 617b.4(h)(2)): seed 10,000×, 20 %, 4 %.
DEFAULT_METERS = (MeterSpec("progressive", 1_000_000, None, "20%", "4%"),)


@dataclass(frozen=True)
class ProgressiveParams:
    """One table's progressive table game system; faults default to a healthy system."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    seats: int = 7
    """Betting positions 1..seats, each with a wagering device and a win light."""
    answer_delay_s: float = 0.002
    """Time from a press (a meter reading, a payout) reaching the system to its answer."""
    lockout_latency_mean_s: float = 0.005
    """Mean time from the dealer's lock-out command to the lock-out taking effect (gamma distributed)."""
    lockout_latency_jitter_s: float = 0.0005
    """Standard deviation of that latency (0 = fixed): a healthy system's (``WageringParams``'s note)."""
    meters: tuple[MeterSpec, ...] = DEFAULT_METERS
    """The controller's meters, in order (e.g. mega, major, minor for § 633b.21(g))."""
    link_id: str | None = None
    """A linked progressive (§ 605a.8): the id of the controller the tables share; None: standalone."""
    button_stake_cents: int = 100
    """The stake a press of a seat's physical wagering-device button wagers (the system's configuration)."""
    min_stake_cents: int = DEFAULT_MIN_STAKE_CENTS
    """The table's minimum progressive wager: a press of a smaller stake is rejected ``invalid_stake``."""
    max_stake_cents: int = DEFAULT_MAX_STAKE_CENTS
    """The table's maximum progressive wager: a press of a larger stake is rejected ``invalid_stake`` and
    never reaches a meter (default $10,000, as ``WageringParams``')."""
    foreign_press_rate_hz: float = 0.0
    """Players the rig does not drive (real players at the table): mean rate of their presses of the
    seat buttons while betting is open (Poisson; 0 = none), as ``WageringParams``'."""
    foreign_seats: tuple[int, ...] = ()
    """The seats those players press (empty: any seat)."""
    foreign_spots: tuple[str, ...] = ("progressive",)
    """The buttons they press (``press_log_spot`` values: a Blackjack table's is its progressive
    wager's, e.g. ``21+3-progressive``)."""
    foreign_hold_s: float = 0.12
    """How long such a player holds a button."""

    # ---- faults (defaults = healthy)
    lockout_ignored: bool = False
    """The system ignores the lock-out command and keeps accepting progressive wagers."""
    lost_increment_probability: float = 0.0
    """Each accepted wager fails to increment the meters with this probability."""
    power_loss_at_s: float | None = None
    """A power loss this long after power-up: the controller's meters are lost (reset to their seeds,
    residues and reserves to 0). None: never."""
    link_loss_at_s: float | None = None
    """The table's link to the controller is lost this long after power-up. None: never."""
    link_loss_duration_s: float | None = None
    """How long the link stays lost (None: it never comes back)."""
    link_loss_keeps_wagering: bool = False
    """While the link is lost, the table keeps accepting progressive wagers (their increments lost)
    instead of refusing them with "link_lost"."""

    def __post_init__(self) -> None:
        self.wagering  # noqa: B018 — validates seats, answer delay and the lock-out latency
        if not self.meters:
            raise ValueError("a progressive system needs at least one meter")
        names = [m.name for m in self.meters]
        if len(set(names)) != len(names):
            raise ValueError(f"meter names must be unique, not {names}")
        if not 0 <= self.lost_increment_probability <= 1:
            raise ValueError(f"lost_increment_probability must be in [0, 1], not {self.lost_increment_probability}")
        for what in ("power_loss_at_s", "link_loss_at_s"):
            v = getattr(self, what)
            if v is not None and not v >= 0:
                raise ValueError(f"{what} must be >= 0 s after power-up (or None), not {v}")
        if self.link_loss_duration_s is not None:
            if self.link_loss_at_s is None:
                raise ValueError("link_loss_duration_s needs link_loss_at_s")
            if not self.link_loss_duration_s > 0:
                raise ValueError(f"link_loss_duration_s must be > 0 (or None: never restored), "
                                 f"not {self.link_loss_duration_s}")

    @property
    def wagering(self) -> WageringParams:
        """The seat wagering devices' parameters."""
        return WageringParams(seats=self.seats, answer_delay_s=self.answer_delay_s,
                              lockout_latency_mean_s=self.lockout_latency_mean_s,
                              lockout_latency_jitter_s=self.lockout_latency_jitter_s,
                              lockout_ignored=self.lockout_ignored, button_stake_cents=self.button_stake_cents,
                              min_stake_cents=self.min_stake_cents, max_stake_cents=self.max_stake_cents,
                              foreign_press_rate_hz=self.foreign_press_rate_hz, foreign_seats=self.foreign_seats,
                              foreign_spots=self.foreign_spots, foreign_hold_s=self.foreign_hold_s)


@dataclass(frozen=True)
class MeterState:
    """One meter of a controller snapshot, exactly: whole cents and the fraction of a cent carried."""

    name: str
    value_cents: int
    residue: str  # a Fraction in [0, 1) of a cent, e.g. "2/5"
    reserve_cents: int
    reserve_residue: str


def _split(x: Fraction) -> tuple[int, str]:
    whole = floor(x)
    return whole, str(x - whole)


@dataclass(frozen=True)
class Increment:
    """One meter's increment by one wager: the cents shown grew by ``amount_cents``."""

    meter: str
    amount_cents: int
    value_cents: int


class ProgressiveController:
    """The meters of a progressive system: standalone (one table) or linked (several tables share it)."""

    def __init__(self, meters: tuple[MeterSpec, ...] = DEFAULT_METERS, link_id: str | None = None) -> None:
        if not meters or len({m.name for m in meters}) != len(meters):
            raise ValueError("a controller needs at least one meter, each with its own name")
        self.specs, self.link_id = tuple(meters), link_id
        self._spec = {m.name: m for m in meters}
        self._value: dict[str, Fraction] = {m.name: Fraction(m.seed_cents) for m in meters}
        self._reserve: dict[str, Fraction] = {m.name: Fraction(0) for m in meters}
        self.pays = 0
        self.tables: list[ProgressiveTableSim] = []

    @property
    def linked(self) -> bool:
        return self.link_id is not None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._spec)

    def values(self) -> dict[str, int]:
        """Each meter in whole cents (the fractions of a cent are carried, not shown)."""
        return {name: floor(v) for name, v in self._value.items()}

    def exact(self, meter: str) -> Fraction:
        """A meter's exact amount in cents (whole cents and the residue)."""
        return self._value[meter]

    def reserve(self, meter: str) -> Fraction:
        return self._reserve[meter]

    def increment(self, stake_cents: int) -> list[Increment]:
        """One accepted progressive wager of ``stake_cents``: every meter and its reserve grow by
        their rates × the wager, exactly."""
        out = []
        for spec in self.specs:
            before = self._value[spec.name]
            after = before + spec.increment * stake_cents
            self._value[spec.name] = after
            self._reserve[spec.name] += spec.reserve * stake_cents
            out.append(Increment(spec.name, floor(after) - floor(before), floor(after)))
        return out

    def pay(self, meter: str, percent: int, winners: int) -> dict[str, Any]:
        """Pay ``percent`` of ``meter`` shared by ``winners`` (whole cents each); the fields of a
        ``MeterPayout`` but its ``device_time_s``. At 100 % the meter restarts from its reseed plus
        the remainder that did not split (and the residue), the reserve funding the reseed as far
        as it goes — or, for a meter restarted from its reserve, from the whole reserve (exactly;
        ``reseed_cents`` its whole cents, the reserve then 0); below 100 % the paid cents are
        deducted."""
        if meter not in self._spec:
            raise ValueError(f"no meter {meter!r} (meters: {', '.join(self.names)})")
        if isinstance(percent, bool) or not isinstance(percent, int) or not 1 <= percent <= 100:
            raise ValueError(f"percent must be an int 1..100, not {percent!r}")
        if isinstance(winners, bool) or not isinstance(winners, int) or winners < 1:
            raise ValueError(f"winners must be an int >= 1, not {winners!r}")
        spec, value = self._spec[meter], self._value[meter]
        jackpot = floor(value)
        share, rest = divmod(jackpot * percent // 100, winners)
        reseed = 0
        if percent == 100 and spec.reseed_from_reserve:
            funded, self._reserve[meter] = self._reserve[meter], Fraction(0)
            reseed = floor(funded)
            self._value[meter] = funded + rest + (value - jackpot)
        elif percent == 100:
            reseed = spec.reseed
            self._reserve[meter] -= min(self._reserve[meter], Fraction(reseed))
            self._value[meter] = reseed + rest + (value - jackpot)
        else:
            self._value[meter] = value - share * winners
        self.pays += 1
        return {"pay_id": self.pays, "meter": meter, "percent": percent, "winners": winners, "jackpot_cents": jackpot,
                "paid_cents": share, "remainder_cents": rest, "reseed_cents": reseed,
                "value_cents": floor(self._value[meter]), "reserve_cents": floor(self._reserve[meter])}

    def power_loss(self) -> None:
        """The meters are lost: back to their seeds, residues and reserves 0 (the fault)."""
        for spec in self.specs:
            self._value[spec.name] = Fraction(spec.seed_cents)
            self._reserve[spec.name] = Fraction(0)

    def snapshot(self) -> tuple[MeterState, ...]:
        """The meters exactly, for a recovery (``restore``); JSON-able with ``dataclasses.asdict``."""
        out = []
        for name in self.names:
            (v, r), (rv, rr) = _split(self._value[name]), _split(self._reserve[name])
            out.append(MeterState(name, v, r, rv, rr))
        return tuple(out)

    def restore(self, states: tuple[MeterState, ...] | list[MeterState]) -> None:
        """Restore the meters of a ``snapshot`` exactly (every meter of this controller, by name)."""
        by_name = {s.name: s for s in states}
        if set(by_name) != set(self.names):
            raise ValueError(f"a snapshot of meters {sorted(by_name)} cannot restore meters {sorted(self.names)}")
        for name, s in by_name.items():
            self._value[name] = s.value_cents + Fraction(s.residue)
            self._reserve[name] = s.reserve_cents + Fraction(s.reserve_residue)


def _mute(_device: str, _kind: str, _payload: dict[str, Any]) -> None:
    """WageringSim announces itself with the wagering device's ``device_info``; this table announces
    the progressive system's instead."""


class ProgressiveTableSim(WageringSim):
    """SimPy model of one table's progressive system implementing
    ``devices.contracts.ProgressiveSystem``: ``WageringSim`` for the presses and the lock-out, plus
    the meters (of ``controller``; a new standalone one from ``params.meters`` when None), the win
    lights and the link to the controller."""

    def __init__(self, env: simpy.Environment, params: ProgressiveParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "progressive",
                 controller: ProgressiveController | None = None, supervisor_key: bytes | None = None) -> None:
        if controller is None:
            controller = ProgressiveController(params.meters, params.link_id)
        elif (controller.specs, controller.link_id) != (params.meters, params.link_id):
            raise ValueError(f"{name}: the table's meters and link_id must be its controller's "
                             f"({[m.name for m in controller.specs]}, {controller.link_id!r})")
        super().__init__(env, params.wagering, rng, _mute, name, supervisor_key)
        #: the progressive params: WageringSim reads the seats, delays and lock-out knobs by the same names
        self.params: ProgressiveParams = params  # type: ignore[assignment]
        self.telemetry = telemetry
        self.controller = controller
        controller.tables.append(self)
        self.link_up = True
        self._shown: dict[str, int] | None = None  # the meters shown while the link is lost
        self.lights = [False] * params.seats
        self._pending: dict[int, int] = {}  # accepted press id -> stake, until the dealer confirms it
        #: ground truth for tests (never telemetry): accepted wagers whose increments were lost
        self.lost_increments: list[int] = []
        telemetry(name, "device_info", self.info())
        if params.power_loss_at_s is not None:
            env.timeout(params.power_loss_at_s).callbacks.append(lambda _e: self._power_loss())
        if params.link_loss_at_s is not None:
            env.timeout(params.link_loss_at_s).callbacks.append(lambda _e: self._lose_link())

    def info(self) -> dict[str, Any]:
        return {"seats": self.params.seats, "button_stake_cents": [self.params.button_stake_cents] * self.params.seats,
                "meters": [m.info() for m in self.controller.specs],
                "linked": self.controller.linked, "link_id": self.controller.link_id}

    def shown(self) -> dict[str, int]:
        """The meters as this table shows them: the controller's, or the last ones while the link is lost."""
        return dict(self._shown) if self._shown is not None else self.controller.values()

    # ----------------------------------------------------------- wagers
    def _verdict(self, seat: int, stake_cents: int, t: float) -> str | None:
        reason = super()._verdict(seat, stake_cents, t)
        if reason in (None, "locked_out") and not self.link_up and not self.params.link_loss_keeps_wagering:
            return "link_lost"  # progressive wagering is disabled while the meters cannot be incremented
        return reason

    def open_betting(self, key: bytes | None = None) -> None:
        """A new round: presses of the last one never confirmed are dropped (``press_void``). On a
        system with a supervisor key, ``key`` must be it (``SupervisorRefused``: nothing changes)."""
        self.supervisor.check("round_open", key)
        self._drop_pending("not_confirmed")
        super().open_betting(key)

    def press(self, seat: int, spot: str, stake_cents: int) -> simpy.Event:
        """A progressive wager pressed now (``WageringSim.press``). An accepted press is *pending*:
        it increments the meters only when the dealer confirms it (``confirm_wagers``), so a press
        the croupier refuses — one made after "no more bets" inside the lock-out latency, or the
        rig's own probe press — never feeds a meter."""
        answered = super().press(seat, spot, stake_cents)
        answer: PressAnswer = answered.value  # a Timeout carries its value from the start
        if answer.accepted:
            self._pending[answer.press_id] = stake_cents
        return answered

    def confirm_wagers(self, press_ids, key: bytes | None = None) -> simpy.Event:
        """The dealer's confirmation, after "no more bets", of the round's wagers (press ids it
        accepted as players' wagers): each confirmed pending press increments every meter now
        (``meter_increment`` per meter, ``device_time_s`` of the confirmation); every other pending
        press of the round is dropped (``press_void``). Succeeds with the ids that incremented after
        ``answer_delay_s``. An id that is not pending (unknown, refused, already confirmed) is
        ignored and reported (``confirm_refused``). It moves meters: on a system with a supervisor
        key, ``key`` must be it (``SupervisorRefused``, recorded, nothing changes)."""
        self.supervisor.check("confirm", key)
        now = self.env.now
        done: list[int] = []
        for pid in press_ids:
            pid = int(pid)
            stake = self._pending.pop(pid, None)
            if stake is None:
                self.telemetry(self.name, "confirm_refused", {"press_id": pid, "device_time_s": now})
                continue
            if not self.link_up or (self.params.lost_increment_probability > 0
                                    and self.rng.random() < self.params.lost_increment_probability):
                self.lost_increments.append(pid)
                continue
            for inc in self.controller.increment(stake):
                self.telemetry(self.name, "meter_increment", {
                    "press_id": pid, "meter": inc.meter, "amount_cents": inc.amount_cents,
                    "value_cents": inc.value_cents, "device_time_s": now})
            done.append(pid)
        self._drop_pending("not_confirmed")
        return self.env.timeout(self.params.answer_delay_s, value=tuple(done))

    def _drop_pending(self, reason: str) -> None:
        for pid in sorted(self._pending):
            self.telemetry(self.name, "press_void", {"press_id": pid, "reason": reason, "device_time_s": self.env.now})
        self._pending.clear()

    # ----------------------------------------------------------- lights, meters
    def light_win(self, seat: int, on: bool, key: bytes | None = None) -> simpy.Event:
        """Light or put out ``seat``'s win light now (a light already so: nothing changes); the
        event succeeds (with ``on``) once the light shows it. A lit light names a winner to be paid:
        on a system with a supervisor key, ``key`` must be it (``SupervisorRefused``)."""
        self.supervisor.check("win_light", key)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= self.params.seats:
            raise ValueError(f"{self.name}: no seat {seat!r} (seats 1..{self.params.seats})")
        done = self.env.event()
        if self.lights[seat - 1] != bool(on):
            self.lights[seat - 1] = bool(on)
            self.telemetry(self.name, "win_light", {"seat": seat, "on": bool(on), "device_time_s": self.env.now})
        return done.succeed(bool(on))

    def meters(self) -> simpy.Event:
        """The meters shown now; ``MeterReading`` after ``answer_delay_s``."""
        reading = MeterReading(meters=self.shown(), link_up=self.link_up, device_time_s=self.env.now)
        ev = self.env.timeout(self.params.answer_delay_s, value=reading)
        ev.callbacks.append(lambda e: self.telemetry(self.name, "meter_reading", payload(e.value)))
        return ev

    def pay_meter(self, meter: str, percent: int, winners: int, key: bytes | None = None) -> simpy.Event:
        """Pay ``meter`` now (the controller's payout, whatever this table's link); ``MeterPayout``
        after ``answer_delay_s``. ValueError for a meter, percent or winners the system has not; on a
        system with a supervisor key, ``SupervisorRefused`` (recorded) unless ``key`` is it."""
        self.supervisor.check("pay", key)
        paid = MeterPayout(**self.controller.pay(meter, percent, winners), device_time_s=self.env.now)
        ev = self.env.timeout(self.params.answer_delay_s, value=paid)
        ev.callbacks.append(lambda e: self.telemetry(self.name, "meter_hit", payload(e.value)))
        return ev

    # ----------------------------------------------------------- faults
    def _power_loss(self) -> None:
        self.controller.power_loss()
        self.telemetry(self.name, "power_loss", {"device_time_s": self.env.now})

    def _lose_link(self) -> None:
        self._shown = self.controller.values()
        self.link_up = False
        self.telemetry(self.name, "link_lost", {"device_time_s": self.env.now})
        if self.params.link_loss_duration_s is not None:
            self.env.timeout(self.params.link_loss_duration_s).callbacks.append(lambda _e: self._restore_link())

    def _restore_link(self) -> None:
        self._shown = None
        self.link_up = True
        self.telemetry(self.name, "link_restored", {"device_time_s": self.env.now, "meters": self.controller.values()})

