"""An automatic Roulette wheel with its ball launcher (§§ 617b.4(a), 617b.5(c)): a timing model.

Physics, not dice: the pocket follows from where the ball is, relative to the rotor, when it leaves
the rim, plus a random scatter on the deflectors and frets. Everything is closed form per spin (a few
µs); no SimPy event per revolution.

Frames and signs. Angles are measured clockwise (as the dealer sees the wheel from above), in the
stator (fixed) frame unless said otherwise. The rotor angle ``θ_r`` is where the leading edge of
pocket position 0 (the 0) is; pocket position ``i`` spans ``[i·D, (i+1)·D)`` clockwise from it in
the rotor frame, ``D = 2π/N``, in the real order of the wheel (``POCKET_ORDER``). A clockwise motion
has sign ``s = +1``.

1. Rotor. At the spin command the wheel's motor brings the rotor to ``Ω0 ~ Normal(rotor_speed_mean_rps,
   rotor_speed_sd_rps)`` in the spin's rotor direction (alternating by default) and lets it coast with
   exponential friction decay, ``Ω(t) = Ω0·exp(-t/τ)`` (``τ = rotor_decay_s``), so it has turned
   ``Θ(t) = Ω0·τ·(1 - exp(-t/τ))`` after ``t``. Between spins it keeps coasting.
2. Ball on the rim. ``launch_delay_s`` after the command the launcher (at stator angle 0) shoots the
   ball along the rim against the rotor with ``ω0 ~ Normal(ball_speed_mean_rps, ball_speed_sd_rps)
   × ball_speed_scale``. Rim friction (constant, ``a``) and air drag (quadratic, ``b``) slow it:

       dω/dt = -a - b·ω²   ⇒   ω(t) = k·tan(α0 - √(ab)·t),   k = √(a/b),  α0 = atan(ω0/k)

   and the angle it travels is ``φ(t) = ln(cos(α0 - √(ab)·t) / cos α0) / b``. It leaves the rim when
   ω falls to the critical speed ``ω_c`` (``drop_speed_rps``, where the centripetal force no longer
   holds it against the inclined rim): ``t_d = (α0 - α_c)/√(ab)``, ``α_c = atan(ω_c/k)``, and
   ``ball_revolutions = φ(t_d)/2π``. (``b = 0``: constant deceleration, ``t_d = (ω0-ω_c)/a``,
   ``φ = (ω0²-ω_c²)/2a``; ``a = 0``: ``t_d = (1/ω_c - 1/ω0)/b``, ``φ = ln(ω0/ω_c)/b``.) A ball launched
   at or below ``ω_c`` falls at once (0 revolutions).
3. Descent. The ball spirals down the stator for ``descent_s``, travelling ``descent_turns`` further
   in its direction, and meets the rotor at the rotor-frame angle ``ρ = ψ_ball - θ_r`` — the pocket
   position ``floor(ρ/D)`` it lands in first.
4. Scatter. It bounces over the frets in its direction relative to the rotor (the ball's, as the
   rotor turns the other way), pocket by pocket; at pocket position ``j`` it is captured with
   probability ``q·(1 + tilt·cos(2π(j - tilt_pocket_index)/N))``, ``q = 1/(1 + bounce_mean_pockets)``
   (a geometric number of bounces, mean ``bounce_mean_pockets``, on a level rotor). Each bounce takes
   ``bounce_s``; the ball then settles in ``settle_s``.

Healthy, the spread of ``ω0`` alone spreads the drop over many turns of relative angle and the level
rotor's scatter is translation invariant, so the result is uniform over the pockets. A rotor out of
level (``tilt`` > 0: the bowl leans toward pocket position ``tilt_pocket_index``) captures the ball
more readily on its low side — a position-dependent drop into the pockets, i.e. a biased wheel. (A
tilt of the stator alone moves where on the track the ball leaves the rim, not which pocket it
reaches, since the rotor's angle at the drop is uniform: not modelled.)

5. The game cycle. Commanded (``cycle = "commanded"``, the default): ``spin()`` starts a spin now.
   Autonomous (``cycle = "autonomous"``: an automatic wheel that runs its own games, as a live
   Slingshot-style wheel does): game after game, the wheel opens bets (``game_start``, its place-bets
   state), its motor brakes the rotor to rest over ``rotor_brake_s`` when the game reverses the
   direction and brings it to speed the other way, the ball is launched as above, the wheel closes
   bets itself when the ball's speed on the rim falls to ``no_more_bets_speed_rps``
   (``bets_closed``: the closed form of 2., before the drop), shows the number (``ball_result``)
   for ``result_hold_s`` and begins the next game. ``next_game()`` hands the croupier the next
   game (``WheelGame``). Either way ``bets_closed`` is reported at that speed.

Misspin (the rig's policy; § 617b does not define it, and § 617a's rule is not among the texts
transcribed here): a launch failure (``launch_failure_probability``: the ball stays in the pocket it
was in), or fewer than ``min_revolutions`` revolutions on the rim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import simpy

from devices.contracts import BallResult, Direction, Telemetry, payload
from rules.roulette import DOUBLE_ZERO, Pocket, Wheel

TWO_PI = 2.0 * math.pi

#: The numbers around each wheel, clockwise from 0 (the common European and American layouts).
POCKET_ORDER: dict[Wheel, tuple[Pocket, ...]] = {
    Wheel.SINGLE_ZERO: (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16,
                        33, 1, 20, 14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26),
    Wheel.DOUBLE_ZERO: (0, 28, 9, 26, 30, 11, 7, 20, 32, 17, 5, 22, 34, 15, 3, 24, 36, 13, 1, DOUBLE_ZERO, 27,
                        10, 25, 29, 12, 8, 19, 31, 18, 6, 21, 33, 16, 4, 23, 35, 14, 2),
}


def pocket_order(wheel: Wheel | str) -> tuple[Pocket, ...]:
    """The numbers of ``wheel`` clockwise from 0 (position ``i`` = ``pocket_index`` ``i``)."""
    return POCKET_ORDER[Wheel(wheel)]


@dataclass(frozen=True)
class RouletteWheelParams:
    """Parameters of the simulated automatic Roulette wheel; faults default to a healthy wheel.

    Defaults give ≈ 8.8 ± 0.7 ball revolutions on the rim in ≈ 6.5 s, ≈ 8 pockets of scatter and a
    ≈ 10 s spin from command to rest (``docs/devices/roulette-ball-wheel.md``).
    """

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    model: str = "croupier-sim-roulette-wheel"
    """Model string the wheel declares in ``device_info``."""
    wheel: Literal["single-zero", "double-zero"] = "single-zero"
    """37 pockets (0, 1–36) or 38 (0, 00, 1–36), § 617a.1(d)."""
    rotor_speed_mean_rps: float = 0.5
    """Rotor speed the motor gives at each spin command, rev/s."""
    rotor_speed_sd_rps: float = 0.05
    """Standard deviation of the rotor speed (normal, truncated at > 0), rev/s."""
    rotor_decay_s: float = 120.0
    """Time constant of the rotor's friction decay, s (Ω(t) = Ω0·exp(-t/τ))."""
    rotor_direction: Literal["alternate", "cw", "ccw"] = "alternate"
    """Rotor direction per spin ("alternate" starts clockwise); the ball runs the other way."""
    launch_delay_s: float = 0.5
    """From the spin command to the ball leaving the launcher."""
    ball_speed_mean_rps: float = 2.0
    """Mean ball speed on the rim at launch, rev/s."""
    ball_speed_sd_rps: float = 0.1
    """Standard deviation of the launch speed (normal, truncated at > 0), rev/s."""
    rim_deceleration_rad_s2: float = 0.3
    """Constant part ``a`` of the rim deceleration (rolling friction), rad/s²."""
    air_drag_per_rad: float = 0.01
    """Quadratic part ``b`` of the rim deceleration (air drag, ``b·ω²``), 1/rad."""
    drop_speed_rps: float = 0.9
    """Critical speed at which the ball leaves the rim, rev/s."""
    descent_s: float = 1.2
    """From leaving the rim to meeting the rotor's frets."""
    descent_turns: float = 0.5
    """Turns the ball travels over the stator (its deflectors) while descending."""
    bounce_mean_pockets: float = 8.0
    """Mean number of pockets the ball bounces over on a level rotor (geometric)."""
    bounce_s: float = 0.12
    """Time per pocket of bounce."""
    settle_s: float = 1.0
    """From the last bounce to rest."""
    min_revolutions: float = 3.0
    """The rig's misspin policy: fewer ball revolutions on the rim than this is a misspin."""
    initial_rotor_angle_rad: float | None = None
    """Rotor angle at power-up; None = drawn uniformly from the rng."""
    no_more_bets_speed_rps: float = 1.2
    """The wheel closes bets (``bets_closed``) when the ball's rim speed falls to this, rev/s
    (>= ``drop_speed_rps``: before the ball leaves the rim)."""
    cycle: Literal["commanded", "autonomous"] = "commanded"
    """``commanded``: a game per ``spin()``; ``autonomous``: the wheel runs its own games (``next_game()``)."""
    rotor_brake_s: float = 3.0
    """Autonomous cycle: the motor brakes the rotor to rest in this when the next game reverses it."""
    result_hold_s: float = 4.0
    """Autonomous cycle: the number is shown this long before the next game opens bets."""
    wheel_start_s: float = 3.0
    """Autonomous cycle: from power-up to the first game (the motor brings the rotor up)."""

    # ---- faults (defaults = healthy)
    ball_speed_scale: float = 1.0
    """Weak launch: the launch speed is multiplied by this (0.5 ⇒ < 3 revolutions, a misspin)."""
    launch_failure_probability: float = 0.0
    """Per spin: the launcher fails and the ball stays in its pocket (a misspin)."""
    tilt: float = 0.0
    """Rotor out of level, 0..1: relative excess capture probability on the low side (0.5 ⇒ the
    low side's pockets capture the ball 1.5×, the high side's 0.5×, as often per bounce)."""
    tilt_pocket_index: int = 0
    """Pocket position (index into the wheel's order) at the rotor's low side."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(self.wheel in ("single-zero", "double-zero"),
             f"wheel must be 'single-zero' or 'double-zero', not {self.wheel!r}")
        need(self.rotor_speed_mean_rps > 0 and self.rotor_speed_sd_rps >= 0,
             "rotor_speed_mean_rps must be > 0 and rotor_speed_sd_rps >= 0")
        need(self.rotor_decay_s > 0, f"rotor_decay_s must be > 0, not {self.rotor_decay_s}")
        need(self.rotor_direction in ("alternate", "cw", "ccw"),
             f"rotor_direction must be 'alternate', 'cw' or 'ccw', not {self.rotor_direction!r}")
        need(self.ball_speed_mean_rps > 0 and self.ball_speed_sd_rps >= 0,
             "ball_speed_mean_rps must be > 0 and ball_speed_sd_rps >= 0")
        need(self.rim_deceleration_rad_s2 >= 0 and self.air_drag_per_rad >= 0,
             "rim_deceleration_rad_s2 and air_drag_per_rad must be >= 0")
        need(self.rim_deceleration_rad_s2 > 0 or self.air_drag_per_rad > 0,
             "rim_deceleration_rad_s2 and air_drag_per_rad cannot both be 0 (the ball would never drop)")
        need(self.drop_speed_rps > 0, f"drop_speed_rps must be > 0, not {self.drop_speed_rps}")
        need(self.no_more_bets_speed_rps >= self.drop_speed_rps,
             f"no_more_bets_speed_rps ({self.no_more_bets_speed_rps}) must be >= drop_speed_rps ({self.drop_speed_rps})")
        need(self.cycle in ("commanded", "autonomous"), f"cycle must be 'commanded' or 'autonomous', not {self.cycle!r}")
        need(self.rotor_brake_s >= 0 and self.result_hold_s >= 0 and self.wheel_start_s >= 0,
             "rotor_brake_s, result_hold_s and wheel_start_s must be >= 0")
        for f in ("launch_delay_s", "descent_s", "descent_turns", "bounce_mean_pockets", "bounce_s", "settle_s",
                  "min_revolutions"):
            need(getattr(self, f) >= 0, f"{f} must be >= 0, not {getattr(self, f)}")
        need(self.ball_speed_scale > 0, f"ball_speed_scale must be > 0, not {self.ball_speed_scale}")
        need(0.0 <= self.launch_failure_probability <= 1.0,
             f"launch_failure_probability must be in [0, 1], not {self.launch_failure_probability}")
        need(0.0 <= self.tilt <= 1.0, f"tilt must be in [0, 1], not {self.tilt}")
        need(0 <= self.tilt_pocket_index < self.pockets,
             f"tilt_pocket_index must be in [0, {self.pockets}), not {self.tilt_pocket_index}")
        need(self.capture_probability * (1.0 + self.tilt) <= 1.0,
             f"capture probability q·(1+tilt) = {self.capture_probability * (1.0 + self.tilt)} must be <= 1 "
             f"(raise bounce_mean_pockets or lower tilt)")

    @property
    def pockets(self) -> int:
        """Number of pockets: 37 or 38."""
        return len(POCKET_ORDER[Wheel(self.wheel)])

    @property
    def capture_probability(self) -> float:
        """``q``: per-bounce capture probability on a level rotor."""
        return 1.0 / (1.0 + self.bounce_mean_pockets)


def rim_flight(omega0_rad_s: float, a: float, b: float, omega_c_rad_s: float) -> tuple[float, float]:
    """The ball on the rim under ``dω/dt = -a - b·ω²`` from ``ω0`` down to ``ω_c``: returns
    ``(t_d, φ_d)``, the time (s) and angle (rad) to the drop; ``(0, 0)`` if ``ω0 <= ω_c``."""
    if omega0_rad_s <= omega_c_rad_s:
        return 0.0, 0.0
    if b == 0.0:
        return (omega0_rad_s - omega_c_rad_s) / a, (omega0_rad_s ** 2 - omega_c_rad_s ** 2) / (2.0 * a)
    if a == 0.0:
        return (1.0 / omega_c_rad_s - 1.0 / omega0_rad_s) / b, math.log(omega0_rad_s / omega_c_rad_s) / b
    k = math.sqrt(a / b)
    a0, ac = math.atan(omega0_rad_s / k), math.atan(omega_c_rad_s / k)
    return (a0 - ac) / math.sqrt(a * b), math.log(math.cos(ac) / math.cos(a0)) / b


def rim_speed(t_s: float, omega0_rad_s: float, a: float, b: float) -> float:
    """Ball speed on the rim ``t_s`` after launch (the closed form of ``rim_flight``), rad/s."""
    if b == 0.0:
        return omega0_rad_s - a * t_s
    if a == 0.0:
        return omega0_rad_s / (1.0 + b * omega0_rad_s * t_s)
    k = math.sqrt(a / b)
    return k * math.tan(math.atan(omega0_rad_s / k) - math.sqrt(a * b) * t_s)


@dataclass(frozen=True)
class BallPhysics:
    """Ground truth of one spin (for tests; not telemetry). Times are from the spin command."""

    pocket_index: int
    entry_index: int  # pocket position the ball met first (before the scatter)
    bounces: int
    revolutions: float
    misspin: bool
    launched: bool
    rotor_sign: float  # +1 clockwise
    rotor_speed_rad_s: float
    ball_speed_rad_s: float
    launch_s: float
    drop_s: float
    stop_s: float
    bets_closed_s: float  # the ball's rim speed fell to ``no_more_bets_speed_rps`` (the launch, if it failed)
    rotor_angle_at_drop_rad: float
    ball_angle_at_drop_rad: float  # stator frame


class _Wheel:
    """The wheel's state and the closed-form physics of one spin (shared by the SimPy model and
    ``simulate_spins_batch``, so both draw and compute alike)."""

    def __init__(self, params: RouletteWheelParams, rng: np.random.Generator) -> None:
        self.p, self.rng = params, rng
        self.n = params.pockets
        self.d = TWO_PI / self.n
        self.rotor_angle = (float(rng.uniform(0.0, TWO_PI)) if params.initial_rotor_angle_rad is None
                            else params.initial_rotor_angle_rad % TWO_PI)
        self.rotor_speed = 0.0  # signed rad/s at self.t_ref
        self.t_ref = 0.0
        self.pocket_index = int(rng.integers(self.n))  # where the ball rests now
        self.spins = 0
        q = params.capture_probability
        j = np.arange(self.n)
        self.capture = q * (1.0 + params.tilt * np.cos(TWO_PI * (j - params.tilt_pocket_index) / self.n))

    def _positive_normal(self, mean: float, sd: float) -> float:
        while True:
            x = float(self.rng.normal(mean, sd))
            if x > 0:
                return x

    def _coast(self, dt: float) -> float:
        """Signed rotor turn over ``dt`` from ``t_ref`` (exponential decay)."""
        tau = self.p.rotor_decay_s
        return self.rotor_speed * tau * -math.expm1(-dt / tau)

    def spin(self, now: float) -> BallPhysics:
        p, rng = self.p, self.rng
        self.rotor_angle = (self.rotor_angle + self._coast(now - self.t_ref)) % TWO_PI
        self.spins += 1
        if p.rotor_direction == "alternate":
            s_r = 1.0 if self.spins % 2 == 1 else -1.0
        else:
            s_r = 1.0 if p.rotor_direction == "cw" else -1.0
        omega_r = TWO_PI * self._positive_normal(p.rotor_speed_mean_rps, p.rotor_speed_sd_rps)
        # The launcher fires, after ``launch_delay_s``, when the rotor sensor sees the rotor at an
        # angle drawn by the wheel's RNG: the spin's outcome depends on the draws only, not on the
        # instant the command arrived (a rig over a link reproduces the simulation spin for spin);
        # that instant only sets how long the launcher waits (under one rotor turn, the rotor
        # taken at its new speed for the wait).
        theta0 = float(rng.uniform(0.0, TWO_PI))  # the rotor's angle at the launch
        at_delay = self.rotor_angle + s_r * omega_r * p.launch_delay_s
        launch_s = p.launch_delay_s + ((s_r * (theta0 - at_delay)) % TWO_PI) / omega_r
        # from the launch on, the rotor coasts from theta0 at omega_r (``_coast`` from t_ref)
        self.rotor_angle, self.rotor_speed, self.t_ref = theta0, s_r * omega_r, now + launch_s
        fail = p.launch_failure_probability > 0 and float(rng.random()) < p.launch_failure_probability
        if fail:
            return BallPhysics(self.pocket_index, self.pocket_index, 0, 0.0, True, False, s_r, omega_r, 0.0,
                               launch_s, launch_s, launch_s, theta0, 0.0, launch_s)
        omega_b = TWO_PI * self._positive_normal(p.ball_speed_mean_rps, p.ball_speed_sd_rps) * p.ball_speed_scale
        t_rim, phi = rim_flight(omega_b, p.rim_deceleration_rad_s2, p.air_drag_per_rad, TWO_PI * p.drop_speed_rps)
        s_b = -s_r
        drop_s = launch_s + t_rim
        t_nmb = rim_flight(omega_b, p.rim_deceleration_rad_s2, p.air_drag_per_rad, TWO_PI * p.no_more_bets_speed_rps)[0]
        ball_drop = (s_b * phi) % TWO_PI  # the launcher is at stator angle 0
        rotor_drop = (theta0 + self._coast(t_rim)) % TWO_PI
        entry_s = drop_s + p.descent_s
        rho = (ball_drop + s_b * TWO_PI * p.descent_turns) - (theta0 + self._coast(t_rim + p.descent_s))
        entry = int(math.floor((rho % TWO_PI) / self.d)) % self.n
        # scatter: bounce pocket by pocket in the ball's direction until captured
        step = 1 if s_b > 0 else -1
        j, bounces = entry, 0
        while True:
            u = rng.random(64)
            for x in u.tolist():
                if x < self.capture[j]:
                    break
                j = (j + step) % self.n
                bounces += 1
            else:
                continue
            break
        revs = phi / TWO_PI
        self.pocket_index = j
        stop_s = entry_s + bounces * p.bounce_s + p.settle_s
        return BallPhysics(j, entry, bounces, revs, revs < p.min_revolutions, True, s_r, omega_r, omega_b,
                           launch_s, drop_s, stop_s, rotor_drop, ball_drop, launch_s + min(t_nmb, t_rim))


@dataclass(frozen=True)
class BallBatch:
    """Outcomes of a batch of spins, arrays of shape (n,) in spin order."""

    pocket_index: np.ndarray
    revolutions: np.ndarray
    misspin: np.ndarray


def simulate_spins_batch(params: RouletteWheelParams, n: int, rng: np.random.Generator,
                         gap_s: float = 60.0) -> BallBatch:
    """``n`` consecutive spins of one wheel, commanded every ``gap_s`` seconds, with the physics of
    the SimPy model (the same code and draws; no events, no telemetry). ~10–20 µs per spin."""
    w = _Wheel(params, rng)
    idx, rev, mis = np.empty(n, np.int64), np.empty(n), np.empty(n, bool)
    for i in range(n):
        b = w.spin(i * gap_s)
        idx[i], rev[i], mis[i] = b.pocket_index, b.revolutions, b.misspin
    return BallBatch(idx, rev, mis)


@dataclass(frozen=True)
class GameVoid:
    """A game of an automatic wheel that ended without a number the croupier may settle on: the
    wheel powered off or went idle mid-game, a voiding warning came up, its result is no pocket
    (``reason``), at ``device_time_s``."""

    spin_id: int
    reason: str
    device_time_s: float


@dataclass(frozen=True)
class WheelGame:
    """One game of a wheel that runs its own cycle, from its start (its place-bets state) on:
    ``bets_closed`` succeeds with the device time of the wheel's own "no more bets";
    ``result`` with the ``BallResult`` at rest, or a ``GameVoid``."""

    spin_id: int
    start_time_s: float
    after_power_up: bool
    bets_closed: simpy.Event
    result: simpy.Event


@runtime_checkable
class AutonomousRouletteWheel(Protocol):
    """An automatic Roulette wheel that runs its own game cycle and announces "no more bets"
    itself; the croupier follows it (``autonomous`` is True) instead of commanding spins."""

    name: str
    autonomous: bool

    def next_game(self) -> simpy.Event:
        """Succeeds with the ``WheelGame`` of the next game that begins."""
        ...

    @property
    def powered(self) -> bool:
        """False while the wheel is powered off."""
        ...

    def power_up(self) -> simpy.Event:
        """Succeeds when the wheel is powered (at once if it is)."""
        ...


def _direction(sign: float) -> Direction:
    return "cw" if sign > 0 else "ccw"


class RouletteWheelSim:
    """SimPy model of the automatic Roulette wheel implementing ``devices.contracts.RouletteWheel``."""

    def __init__(self, env: simpy.Environment, params: RouletteWheelParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "roulette_wheel") -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        self.pockets: tuple[Pocket, ...] = pocket_order(params.wheel)
        self._wheel = _Wheel(params, rng)
        self._busy_until: float | None = None
        self.last_physics: BallPhysics | None = None  # ground truth for tests, not telemetry
        self.autonomous = params.cycle == "autonomous"
        self.powered = True
        self._epoch = 0  # +1 at every power-off: what the wheel was doing before it is not reported
        self._pending: int | None = None  # the spin# of a game begun and not finished (replayed after power-up)
        self._last_spin = 0
        self._waiting: list[simpy.Event] = []
        self._power_waiting: list[simpy.Event] = []
        self._open: WheelGame | None = None  # the game begun that no one took yet
        info = {"model": params.model, "wheel": params.wheel, "pockets": list(self.pockets)}
        telemetry(name, "device_info", info | ({"cycle": "autonomous"} if self.autonomous else {}))
        if self.autonomous:
            env.process(self._cycle(self._epoch, False))

    # ------------------------------------------------------------------ the autonomous cycle
    def next_game(self) -> simpy.Event:
        """The next game that begins (autonomous cycle only)."""
        if not self.autonomous:
            raise RuntimeError(f"{self.name}: a commanded wheel has no game cycle of its own (cycle = commanded)")
        ev = self.env.event()
        g, self._open = self._open, None
        if g is not None and not g.bets_closed.triggered:
            ev.succeed(g)  # a game already begun whose bets are still open: the croupier joins it
        else:
            self._waiting.append(ev)
        return ev

    def power_up(self) -> simpy.Event:
        """Succeeds when the wheel is powered (at once if it is)."""
        ev = self.env.event()
        if self.powered:
            ev.succeed(True)
        else:
            self._power_waiting.append(ev)
        return ev

    def power_off(self) -> None:
        """The wheel loses power (autonomous cycle): the game under way is abandoned — nothing of it
        is reported any more, its ``WheelGame.result`` succeeds with ``GameVoid("power_off")`` —
        and no game begins until ``power_on``."""
        if not self.powered:
            return
        self.powered = False
        self._epoch += 1
        self.telemetry(self.name, "wheel_power", {"what": "off", "device_time_s": self.env.now})
        g = self._current
        if g is not None and not g.result.triggered:
            self.telemetry(self.name, "game_void", {"spin_id": g.spin_id, "reason": "power_off",
                                                    "device_time_s": self.env.now})
            g.result.succeed(GameVoid(g.spin_id, "power_off", self.env.now))

    def power_on(self) -> None:
        """Power comes back: the wheel starts (``wheel_start_s``) and plays the pending game — the
        one the power-off cut, under its spin number — then goes on as before."""
        if self.powered:
            return
        self.powered = True
        self.telemetry(self.name, "wheel_power", {"what": "on", "device_time_s": self.env.now})
        waiting, self._power_waiting = self._power_waiting, []
        for ev in waiting:
            ev.succeed(True)
        if self.autonomous:
            self.env.process(self._cycle(self._epoch, True))

    _current: WheelGame | None = None

    def _cycle(self, epoch: int, after_power_up: bool):
        env, p, w = self.env, self.params, self._wheel
        yield env.timeout(p.wheel_start_s)  # the motor brings the rotor up (the vendor's state 1)
        while epoch == self._epoch:
            spin_id = self._pending if self._pending is not None else self._last_spin + 1
            self._pending = spin_id
            game = WheelGame(spin_id, env.now, after_power_up, env.event(), env.event())
            self._current = game
            self.telemetry(self.name, "game_start", {"spin_id": spin_id, "after_power_up": after_power_up,
                                                     "device_time_s": env.now})
            after_power_up = False
            waiting, self._waiting = self._waiting, []
            for ev in waiting:
                ev.succeed(game)
            self._open = None if waiting else game
            reverses = p.rotor_direction == "alternate" and w.spins > 0
            yield env.timeout(p.rotor_brake_s if reverses else 0.0)  # the motor brakes, then reverses
            if self._busy_until is not None and env.now < self._busy_until:  # a ball cut by a power-off still rolls
                yield env.timeout(self._busy_until - env.now)
            if epoch != self._epoch:
                return
            done = self._start(game.bets_closed, spin_id, epoch)
            result = yield done
            if epoch != self._epoch:
                return
            self._pending, self._last_spin = None, spin_id
            game.result.succeed(result)
            yield env.timeout(p.result_hold_s)

    def spin(self) -> simpy.Event:
        """Start the rotor and launch the ball now; succeeds with ``BallResult`` at rest."""
        if self.autonomous:
            raise RuntimeError(f"{self.name}: an autonomous wheel starts its own games (cycle = autonomous)")
        return self._start(None)

    def _start(self, bets_closed: simpy.Event | None, spin_id: int | None = None, epoch: int = 0) -> simpy.Event:
        now = self.env.now
        if self._busy_until is not None and now < self._busy_until:
            raise RuntimeError(f"{self.name}: spin commanded at t={now} while the ball is still moving "
                               f"(until t={self._busy_until})")
        phys = self._wheel.spin(now)
        self._busy_until = now + phys.stop_s
        self.last_physics = phys
        done = self.env.event()
        self.env.process(self._run(self._wheel.spins if spin_id is None else spin_id, now, phys, done, bets_closed,
                                   epoch))
        return done

    def _say(self, epoch: int, kind: str, p: dict) -> None:
        if epoch == self._epoch:  # a powered-off wheel reports nothing of the game it abandoned
            self.telemetry(self.name, kind, p)

    def _close_bets(self, spin_id: int, bets_closed: simpy.Event | None, epoch: int = 0) -> None:
        if bets_closed is not None and epoch == self._epoch:  # the autonomous wheel's own "no more bets"
            self.telemetry(self.name, "bets_closed", {"spin_id": spin_id, "device_time_s": self.env.now})
            bets_closed.succeed(self.env.now)

    def _run(self, spin_id: int, start: float, phys: BallPhysics, done: simpy.Event,
             bets_closed: simpy.Event | None = None, epoch: int = 0):
        env = self.env
        rotor_dir = _direction(phys.rotor_sign)
        launch_t = drop_t = None
        if phys.launched:
            yield env.timeout(phys.launch_s)
            launch_t = env.now
            self._say(epoch, "ball_launch", {"spin_id": spin_id, "rotor_direction": rotor_dir,
                                             "launch_speed_rps": phys.ball_speed_rad_s / TWO_PI,
                                             "device_time_s": launch_t})
            if bets_closed is not None:
                yield env.timeout(max(0.0, start + phys.bets_closed_s - env.now))
                self._close_bets(spin_id, bets_closed, epoch)
            yield env.timeout(max(0.0, start + phys.drop_s - env.now))
            drop_t = env.now
            self._say(epoch, "ball_drop", {"spin_id": spin_id, "ball_revolutions": phys.revolutions,
                                           "device_time_s": drop_t})
        elif bets_closed is not None:
            yield env.timeout(phys.launch_s)
            self._close_bets(spin_id, bets_closed, epoch)  # a failed launch: the wheel closes bets and voids the game
        yield env.timeout(max(0.0, start + phys.stop_s - env.now))
        result = BallResult(
            spin_id=spin_id,
            pocket=self.pockets[phys.pocket_index],
            pocket_index=phys.pocket_index,
            ball_revolutions=phys.revolutions,
            rotor_direction=rotor_dir,
            misspin=phys.misspin,
            launch_speed_rps=phys.ball_speed_rad_s / TWO_PI,
            rotor_speed_rps=phys.rotor_speed_rad_s / TWO_PI,
            start_time_s=start,
            launch_time_s=launch_t,
            drop_time_s=drop_t,
            stop_time_s=env.now,
        )
        self._say(epoch, "ball_result", payload(result))
        done.succeed(result)
