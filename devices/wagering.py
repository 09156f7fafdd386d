"""Per-seat wagering device with the dealer's lock-out (the progressive table game system's
wagering device, § 605a.7 as used at a Crazy Time table, § 690.2(a) "no more bets").

Timing model: a press reaches the device at ``env.now`` and is timestamped then; the device
answers ``answer_delay_s`` later. The dealer's lock-out command reaches the device at ``env.now``
and takes effect after this round's latency, drawn from a gamma distribution with mean
``lockout_latency_mean_s`` and standard deviation ``lockout_latency_jitter_s`` (always > 0;
jitter 0 = a fixed latency). A press is refused ("locked_out") when its timestamp is at or
after the moment the lock-out took effect. That moment is not reported (a real device does not
report it); ``lockout_effective_time_s`` holds it as ground truth for tests.

The seat buttons are a physical input (``button(seat, spot, closed)``): a contact closed by a
player or by the rig's actuator wired across it (several closers of one contact are a wired OR).
The device registers a press at each closing edge, with the seat's button stake
(``button_stake_cents``, the device's configuration), and answers it like any press. Players the
rig does not drive (``foreign_press_rate_hz``: a Poisson stream of presses of random seat buttons
while betting is open, each held ``foreign_hold_s``) press these buttons too. ``press`` and
``arm_probe`` are the model's injection feature (docs/wire/modbus-wagering.md), kept for firmware
developers and for benches without an actuator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import simpy

from devices.contracts import PressAnswer, Telemetry, payload
from devices.supervisor import Refusal, SupervisorGuard

#: The device's stake limits unless configured: 1 ¢ to $10,000 (docs/wire/modbus-wagering.md,
#: "Stake limits"). The bundled scenarios stake at most $3,000.
DEFAULT_MIN_STAKE_CENTS = 1
DEFAULT_MAX_STAKE_CENTS = 1_000_000

#: the Crazy Time betting options a player who is not the rig's presses (``foreign_spots`` default)
CRAZY_TIME_SPOTS = ("1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time")


@dataclass(frozen=True)
class WageringParams:
    """Timing of the simulated wagering device; faults default to a healthy device."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    seats: int = 7
    """Seats 1..seats have a wagering device."""
    answer_delay_s: float = 0.002
    """Time from a press reaching the device to its answer."""
    lockout_latency_mean_s: float = 0.005
    """Mean time from the lock-out command reaching the device to the lock-out taking effect
    (a larger value is the slow lock-out fault)."""
    lockout_latency_jitter_s: float = 0.0005
    """Standard deviation of that latency (gamma distributed, > 0; 0 = fixed). A healthy device's: at
    0.5 ms beside the 5 ms mean, a latency past a 10 ms budget has probability ~2e-15 a round (at
    1 ms it was 3.5e-5 a round: one normal-play run in ~14 of 2,000 rounds failed its lock-out check
    on a latency the model itself drew past the budget)."""

    button_stake_cents: int = 100
    """The stake a press of a seat's physical button wagers (every seat; the device's configuration)."""
    min_stake_cents: int = DEFAULT_MIN_STAKE_CENTS
    """The table's minimum wager: a press of a smaller stake is rejected ``invalid_stake``."""
    max_stake_cents: int = DEFAULT_MAX_STAKE_CENTS
    """The table's maximum wager: a press of a larger stake is rejected ``invalid_stake`` (the
    default, $10,000, is above every bundled scenario's stakes; a Rules Submission's own limits are
    the croupier's to enforce, § 690.1(g)(4))."""
    foreign_press_rate_hz: float = 0.0
    """Players the rig does not drive (a real player at the table): mean rate of their presses of
    the seat buttons while betting is open (Poisson; 0 = none)."""
    foreign_seats: tuple[int, ...] = ()
    """The seats those players press (empty: any seat)."""
    foreign_spots: tuple[str, ...] = CRAZY_TIME_SPOTS
    """The betting options they press."""
    foreign_hold_s: float = 0.12
    """How long such a player holds a button."""

    # ---- faults (defaults = healthy)
    lockout_ignored: bool = False
    """The device ignores the lock-out command and keeps accepting wagers."""
    no_betting_area: str = ""
    """Empty = none; else the device has no betting area for this betting option (§ 690.1(g)(2)): a
    press on it is refused, reason ``no_betting_area``. SimPy model only: the wire protocols have no code for
    that reason."""
    dead_buttons: tuple[str, ...] = ()
    """``"SEAT:SPOT"`` buttons whose contact is broken: closing it registers no press (no entry in
    the press log; an actuator's press of it is lost)."""

    def __post_init__(self) -> None:
        if self.seats < 1:
            raise ValueError(f"seats must be >= 1, not {self.seats}")
        if self.answer_delay_s < 0:
            raise ValueError(f"answer_delay_s must be >= 0, not {self.answer_delay_s}")
        if not self.lockout_latency_mean_s > 0:
            raise ValueError(f"lockout_latency_mean_s must be > 0, not {self.lockout_latency_mean_s}")
        if self.lockout_latency_jitter_s < 0:
            raise ValueError(f"lockout_latency_jitter_s must be >= 0, not {self.lockout_latency_jitter_s}")
        if self.button_stake_cents <= 0:
            raise ValueError(f"button_stake_cents must be > 0, not {self.button_stake_cents}")
        check_stake_limits(self.min_stake_cents, self.max_stake_cents, self.button_stake_cents)
        if self.foreign_press_rate_hz < 0 or not self.foreign_hold_s > 0:
            raise ValueError("foreign_press_rate_hz must be >= 0 and foreign_hold_s > 0")
        if any(not 1 <= s <= self.seats for s in self.foreign_seats) or (self.foreign_press_rate_hz
                                                                           and not self.foreign_spots):
            raise ValueError(f"foreign_seats must be seats 1..{self.seats}, and foreign_spots not empty")
        for b in self.dead_buttons:
            seat, _, spot = str(b).partition(":")
            if not (seat.isdigit() and 1 <= int(seat) <= self.seats and spot):
                raise ValueError(f"dead_buttons: {b!r} is not SEAT:SPOT with a seat 1..{self.seats}")


def check_stake_limits(min_cents: int, max_cents: int, button_cents: int) -> None:
    """The table's limits: 1 <= min <= max <= 2**32 - 1 (a wire's uint32), the button stake inside."""
    if not 1 <= min_cents <= max_cents <= 2**32 - 1:
        raise ValueError(f"stake limits must be 1 <= min_stake_cents <= max_stake_cents <= 4294967295, "
                         f"not {min_cents} and {max_cents}")
    if not min_cents <= button_cents <= max_cents:
        raise ValueError(f"button_stake_cents {button_cents} is outside the table's limits "
                         f"{min_cents}..{max_cents}")


class WageringSim:
    """SimPy model of the wagering device implementing ``devices.contracts.WageringDevice``."""

    injection = True  # the model has the injection feature (``press``, ``arm_probe``)

    def __init__(self, env: simpy.Environment, params: WageringParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "wagering", supervisor_key: bytes | None = None) -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        #: the supervisor key's judge (``devices.supervisor``): opening a round needs the key when
        #: the device has one; a refusal is a ``command_refused`` event and changes nothing
        self.supervisor = SupervisorGuard(supervisor_key, lambda: self.env.now, self._refused)
        self._betting_opened = False
        self._press_id = 0
        self._armed: list = []  # (seat, spot, stake, offset) and its event, fired by the next lock-out
        self._locked = False
        self._round = 0  # counts open_betting: a probe's presses belong to the round that armed them
        self._closed: dict[tuple[int, str], int] = {}  # a button's closers (a wired OR): > 0 = contact closed
        self._watchers: list[Callable[[PressAnswer], None]] = []
        #: Ground truth for tests (never telemetry): when this round's lock-out took effect.
        self.lockout_effective_time_s: float | None = None
        #: Ground truth for tests: this round's drawn latency.
        self.lockout_latency_s: float | None = None
        telemetry(name, "device_info", {"seats": params.seats,
                                        "button_stake_cents": [params.button_stake_cents] * params.seats})

    def draw_lockout_latency_s(self) -> float:
        """One lock-out latency: gamma with the configured mean and standard deviation."""
        mean, sd = self.params.lockout_latency_mean_s, self.params.lockout_latency_jitter_s
        if sd == 0:
            return mean
        shape = (mean / sd) ** 2
        return float(self.rng.gamma(shape, sd * sd / mean))

    def watch(self, callback: Callable[[PressAnswer], None]) -> None:
        """Every press answered from now on, whoever pressed, goes to ``callback`` (the press log)."""
        self._watchers.append(callback)

    def _refused(self, r: Refusal) -> None:
        self.telemetry(self.name, "command_refused", {"command": r.command, "reason": r.reason,
                                                      "device_time_s": r.device_time_s})

    def stake_deviation(self, stake_cents: int) -> str | None:
        """Why ``stake_cents`` is no stake this table takes (None: it is inside the limits)."""
        p = self.params
        if isinstance(stake_cents, bool) or not isinstance(stake_cents, int):
            return f"stake {stake_cents!r} is not a whole number of cents"
        if not p.min_stake_cents <= stake_cents <= p.max_stake_cents:
            return (f"stake {stake_cents} cents is outside the table's limits "
                    f"{p.min_stake_cents}..{p.max_stake_cents} cents")
        return None

    def open_betting(self, key: bytes | None = None) -> None:
        """The dealer's next round: re-enable wagering; disarms a probe not yet pressed. The only
        way betting opens — a locked round never re-opens otherwise. On a device with a supervisor
        key, ``key`` must be it (``SupervisorRefused``, recorded, nothing changes)."""
        self.supervisor.check("round_open", key)
        self._betting_opened = True
        self._locked = False
        self._round += 1
        self._armed = []
        self.lockout_effective_time_s = None
        self.lockout_latency_s = None
        self.telemetry(self.name, "betting_open", {"device_time_s": self.env.now})
        if getattr(self.params, "foreign_press_rate_hz", 0.0) > 0:  # a subclass's params may not carry the knob
            self.env.process(self._foreign_players(self._round))

    def _foreign_players(self, rnd: int):
        """Players the rig does not drive press random seat buttons while this round's betting is open."""
        p, rng = self.params, self.rng
        seats = p.foreign_seats or tuple(range(1, p.seats + 1))
        while True:
            yield self.env.timeout(float(rng.exponential(1.0 / p.foreign_press_rate_hz)))
            if self._round != rnd or self._locked:
                return
            button = (int(seats[int(rng.integers(len(seats)))]), str(p.foreign_spots[int(rng.integers(len(p.foreign_spots)))]))
            self.button(*button, True)
            release = self.env.timeout(p.foreign_hold_s)
            release.callbacks.append(lambda _e, b=button: self.button(*b, False))

    def button(self, seat: int, spot: str, closed: bool) -> None:
        """The contact of seat ``seat``'s button for ``spot`` closes (``closed``) or opens now. A
        closing edge (no other closer holding it) is a press, with the seat's button stake."""
        key = (seat, str(spot))
        n = self._closed.get(key, 0)
        self._closed[key] = n + 1 if closed else max(0, n - 1)
        if closed and n == 0 and f"{seat}:{spot}" not in getattr(self.params, "dead_buttons", ()):
            self.press(seat, str(spot), self.params.button_stake_cents)

    def lock_out(self) -> None:
        """The dealer's lock-out command, reaching the device now; takes effect after the latency."""
        if self._locked:
            return  # a repeated lock-out in a round changes nothing: the latency runs from the first
        self._locked = True
        now = self.env.now
        self.telemetry(self.name, "lockout_command", {"device_time_s": now})
        latency = self.draw_lockout_latency_s()
        self.lockout_latency_s = latency
        self.lockout_effective_time_s = None if self.params.lockout_ignored else now + latency
        armed, self._armed = self._armed, []
        rnd = self._round
        for (seat, spot, stake_cents, offset), done in armed:
            fire = self.env.timeout(offset)
            fire.callbacks.append(lambda _e, a=(seat, spot, stake_cents), d=done: self._round == rnd and self._fire(a, d))

    def arm_probe(self, seat: int, spot: str, stake_cents: int, offsets_s) -> list[simpy.Event]:
        """The device presses ``seat`` at each offset after the next lock-out command (replacing a
        probe armed and not yet pressed; opening betting disarms it)."""
        self._armed = []
        events = []
        for offset in offsets_s:
            if not offset >= 0:
                raise ValueError(f"probe offsets must be >= 0 s after the command, not {offset}")
            done = self.env.event()
            self._armed.append(((seat, spot, stake_cents, float(offset)), done))
            events.append(done)
        return events

    def _fire(self, args: tuple, done: simpy.Event) -> None:
        self.press(*args).callbacks.append(lambda e: done.succeed(e.value))

    def _verdict(self, seat: int, stake_cents: int, t: float) -> str | None:
        p = self.params
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= p.seats:
            return "invalid_seat"
        # an int stake within the limits (``stake_deviation``'s None) without the call: every press passes here
        if not (stake_cents.__class__ is int and p.min_stake_cents <= stake_cents <= p.max_stake_cents) \
                and self.stake_deviation(stake_cents) is not None:
            return "invalid_stake"  # outside the table's limits (0 is no stake): never reaches a meter
        if not self._betting_opened:
            return "betting_closed"
        if self.lockout_effective_time_s is not None and t >= self.lockout_effective_time_s:
            return "locked_out"
        return None

    def press(self, seat: int, spot: str, stake_cents: int) -> simpy.Event:
        """A seat presses now to wager; succeeds with ``PressAnswer`` after ``answer_delay_s``.

        The verdict is taken when the press reaches the device; the answer (and its telemetry)
        leaves ``answer_delay_s`` later. One SimPy event per press: a full round holds dozens."""
        self._press_id += 1
        env, params = self.env, self.params
        t = env.now
        reason = self._verdict(seat, stake_cents, t)
        spot = str(spot)
        if reason is None:
            area = getattr(params, "no_betting_area", "")  # a subclass's params may not carry the knob
            if area and spot == area:
                reason = "no_betting_area"
        delay = params.answer_delay_s
        result = PressAnswer(self._press_id, seat, spot, stake_cents, reason is None, t, t + delay, reason)
        answered = env.timeout(delay, value=result)
        answered.callbacks.append(self._answer)
        return answered

    def _answer(self, event: simpy.Event) -> None:
        answer = event.value
        self.telemetry(self.name, "press", payload(answer))
        for watcher in self._watchers:
            watcher(answer)
