"""The Crazy Time money wheel with its clapper (§ 690.1, § 690.2): a physics model.

A vertical wheel of ``L`` equal sections (54 on a compliant wheel, § 690.1(a)) with a peg
between each pair of sections and a flexible clapper fixed at the top (12 o'clock). The
dealer's push gives the wheel an angular speed ``omega0``; from then on only three things act:

* a constant bearing friction torque ``tau_f`` (every radian travelled costs ``tau_f`` joules),
* an energy loss ``peg_loss`` each time the clapper is pushed over a peg,
* gravity on an off-centre mass moment ``m*d`` (fault ``imbalance_kg_m``): the wheel's potential
  energy ``U(p) = m*d*g*cos(p - phi)`` depends on its angle ``p`` (the torque about the axle is
  ``tau(theta) = -m*d*g*sin(theta - phi)`` with ``theta = p + pi`` the wheel angle at 6 o'clock,
  so the heavy spot at wheel angle ``phi`` hangs at the bottom when the clapper points at
  ``phi + pi``).

Coordinates: ``p`` is the wheel-frame angle under the clapper, measured clockwise on the wheel
from peg 0 (the leading edge of section 0); section ``i`` spans ``[i*D, (i+1)*D)`` with
``D = 2*pi/L``, peg ``j`` sits at ``p = j*D``. A clockwise spin (as the dealer sees it) brings
the sections under the clapper in decreasing index order (``p`` decreases); counter-clockwise
increases it. ``x >= 0`` is the distance travelled.

Closed form between pegs: with the first peg at distance ``x1`` and peg ``k`` at
``x_k = x1 + (k-1)*D``, the kinetic energy on arriving at peg ``k`` is

    E_k = E0 - tau_f*x_k - (k-1)*peg_loss - (U(p_k) - U(p0))

and the clapper's fate at the first peg it cannot clear is decided by ``E_k`` against the
barrier ``B`` (energy needed to bend the clapper over the peg) and the on-peg band ``b``:

* ``E_k < 0`` — friction (and gravity) stopped the wheel *before* the peg: it rests in the
  section between peg ``k-1`` and peg ``k`` (work is linear in ``x`` within an interval, i.e.
  constant torque, so the stop point is closed form);
* ``0 <= E_k < B - b/2`` — the clapper cannot clear the peg and rocks back into the section
  before it (the wheel settles ``rockback_fraction`` of a section behind the peg);
* ``|E_k - B| <= b/2`` — the clapper comes to rest on the peg's top, between two sections
  (``on_peg``, § 690.2(d));
* otherwise it clears the peg (losing ``peg_loss``) and the wheel travels on.

Only a narrow window of pegs can hold the stop (``E_k`` is within ``2*m*d*g`` of the balanced
wheel's arithmetic sequence), so finding the stop costs a few µs whatever the spin's length;
the per-peg times (for the revolution index pulses and the duration) come from the kinematics of
constant torque within each interval: ``t = 2*dx/(omega_in + omega_out)``. No SimPy event per peg.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import simpy

from devices.contracts import Direction, SpinStop, Telemetry, WheelInfo, payload

#: Standard gravity, m/s².
G_M_S2 = 9.80665
TWO_PI = 2.0 * math.pi
#: Angles closer than this to a peg count as "on the peg" (float noise of carried-over angles).
_SNAP_RAD = 1e-9

RestKind = Literal["rock_back", "on_peg", "friction"]


@dataclass(frozen=True)
class MoneyWheelParams:
    """Physical parameters of the simulated money wheel; faults default to a healthy wheel.

    Every field is a plain type so the bench validates it from TOML/YAML (pydantic).
    Defaults: see ``docs/devices/money-wheel.md`` (they give ~7 ± 1.3 revolutions, ~15 s per
    spin, ~0.5 % on-peg rests, uniform sections).
    """

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    model: str = "croupier-sim-money-wheel"
    """Model string the wheel declares in ``device_info``."""
    diameter_m: float = 1.83
    """Rim diameter (§ 690.1(a) wants >= 1.524 m = 5 ft; a smaller wheel is a layout fault)."""
    inertia_kg_m2: float = 45.0
    """Moment of inertia about the axle (≈ a 105 kg, 1.83 m disc: ½·m·r²)."""
    bearing_friction_torque_n_m: float = 4.0
    """Constant retarding torque of bearings and air, N·m."""
    peg_loss_j: float = 1.5
    """Energy lost each time the clapper passes over a peg, J."""
    clapper_barrier_j: float = 1.8
    """Kinetic energy needed to push the clapper over a peg, J (>= peg_loss_j + band/2)."""
    on_peg_band_j: float = 0.01
    """Width of the band of arrival energies around the barrier that leaves the clapper resting
    on the peg's top (between two sections), J. Effective band = on_peg_band_j * clapper_wear."""
    rockback_fraction: float = 0.3
    """Where the wheel settles after the clapper rocks back off a peg it could not clear, as a
    fraction of a section behind that peg."""
    settle_time_s: float = 0.4
    """Time from the clapper's last peg contact to rest (rock-back, or settling on a peg top)."""
    push_speed_mean_rps: float = 0.92
    """Mean angular speed the dealer's push gives the wheel, revolutions per second."""
    push_speed_sd_rps: float = 0.08
    """Standard deviation of the push speed (normal, truncated at > 0), rev/s."""
    initial_angle_rad: float | None = None
    """Wheel angle under the clapper at power-up; None = drawn uniformly from the rng."""

    # ---- faults (defaults = healthy)
    push_scale: float = 1.0
    """Weak push: the dealer's push speed is multiplied by this (0.35 ⇒ < 3 revolutions)."""
    clapper_wear: float = 1.0
    """Worn clapper: multiplies the on-peg band (10 ⇒ ~10× more rests between sections)."""
    imbalance_kg_m: float = 0.0
    """Off-centre mass moment m·d, kg·m (0 = balanced). The fault value used by the scenarios is
    0.5 kg·m (e.g. a 1 kg fitting loose at 0.5 m); it biases the stopping section."""
    imbalance_angle_deg: float = 0.0
    """Wheel-frame angle (clockwise from peg 0) of the off-centre mass, degrees."""
    index_sensor_stuck: bool = False
    """The revolution index sensor gives no pulses at all."""
    telemetry_dropout: float = 0.0
    """Probability that each spin telemetry message (spin_start, index_pulse, spin_stop) is lost.
    A lost spin_stop leaves the spin's event untriggered. device_info is not subject to it."""
    layout: tuple[str, ...] | None = None
    """Section symbols clockwise from section 0; None = the regulation's WHEEL_SECTIONS
    (§ 690.1(b)). Any other tuple is a mis-built wheel."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(self.diameter_m > 0, f"diameter_m must be > 0, not {self.diameter_m}")
        need(self.inertia_kg_m2 > 0, f"inertia_kg_m2 must be > 0, not {self.inertia_kg_m2}")
        need(self.bearing_friction_torque_n_m >= 0, "bearing_friction_torque_n_m must be >= 0")
        need(self.peg_loss_j >= 0, "peg_loss_j must be >= 0")
        need(self.peg_loss_j > 0 or self.bearing_friction_torque_n_m > 0,
             "peg_loss_j and bearing_friction_torque_n_m cannot both be 0 (the wheel would never stop)")
        need(self.on_peg_band_j >= 0 and self.clapper_wear >= 0, "on_peg_band_j and clapper_wear must be >= 0")
        need(self.clapper_barrier_j - self.on_peg_band_effective_j / 2 >= self.peg_loss_j,
             f"clapper_barrier_j - on_peg_band_j*clapper_wear/2 = "
             f"{self.clapper_barrier_j - self.on_peg_band_effective_j / 2} J must be >= peg_loss_j = "
             f"{self.peg_loss_j} J (a peg cannot take more energy than the clapper needs to pass it)")
        need(0.0 <= self.rockback_fraction < 1.0, "rockback_fraction must be in [0, 1)")
        need(self.settle_time_s >= 0, "settle_time_s must be >= 0")
        need(self.push_speed_mean_rps > 0, "push_speed_mean_rps must be > 0")
        need(self.push_speed_sd_rps >= 0, "push_speed_sd_rps must be >= 0")
        need(self.push_scale > 0, "push_scale must be > 0")
        need(self.imbalance_kg_m >= 0, "imbalance_kg_m must be >= 0 (the angle gives its direction)")
        need(0.0 <= self.telemetry_dropout <= 1.0, "telemetry_dropout must be in [0, 1]")
        need(self.layout is None or len(self.layout) >= 2, "layout needs at least 2 sections")

    @property
    def on_peg_band_effective_j(self) -> float:
        """The on-peg band after clapper wear, J."""
        return self.on_peg_band_j * self.clapper_wear

    @property
    def imbalance_torque_n_m(self) -> float:
        """Amplitude m·d·g of the gravity torque of the imbalance, N·m."""
        return self.imbalance_kg_m * G_M_S2


@dataclass(frozen=True)
class SpinPhysics:
    """Outcome of one spin from ``simulate_spin``, with its energy bookkeeping.

    ``e0_j == friction_work_j + peg_losses_j + potential_change_j + residual_j`` up to the moment
    the wheel's fate is sealed (the clapper meets the peg it does not clear, or friction brings it
    to rest between pegs); ``residual_j`` is the kinetic energy the clapper absorbs then (0 for a
    friction stop), which also drives the small rock-back.
    """

    section_index: int
    on_peg: bool
    rest: RestKind
    revolutions: float  # net rotation in turns (includes the rock-back)
    duration_s: float
    pegs_passed: int
    pulse_times_s: tuple[float, ...]  # from spin start, one per pass of the index mark
    final_angle_rad: float  # wheel angle under the clapper at rest, in [0, 2*pi)
    omega0_rad_s: float
    e0_j: float
    friction_work_j: float
    peg_losses_j: float
    potential_change_j: float
    residual_j: float


@dataclass(frozen=True)
class SpinTrajectory:
    """Per-peg detail of one spin (for tests and plots): arrays over the pegs the clapper met,
    the last one being the peg that stopped it (absent for a friction stop)."""

    physics: SpinPhysics
    peg_arrival_times_s: np.ndarray
    peg_arrival_speeds_rad_s: np.ndarray
    peg_arrival_energies_j: np.ndarray
    peg_indices: np.ndarray


# --------------------------------------------------------------------------- core
@dataclass(frozen=True)
class _Stop:
    """Where one spin stops (``_locate_stop``): the shared core of ``simulate_spin`` and
    ``simulate_spins_batch``."""

    k: int  # 1-based index of the deciding peg (the first one not cleared)
    e_k: float  # kinetic energy on arrival at peg k (< 0: friction stopped the wheel before it)
    x1: float  # distance to the first peg
    rest: int  # 0 friction stop, 1 rock back, 2 on peg
    section: int
    travel: float  # distance travelled to rest along the motion (incl. the rock-back)
    x_event: float  # distance at which the fate was sealed (peg contact or friction stop)
    final_angle: float
    potential_change: float  # U(event) - U(p0); linear within the last interval for a friction stop


_REST_KINDS: tuple[RestKind, ...] = ("friction", "rock_back", "on_peg")


def _first_peg_distance(p0: float, s: float, d: float) -> float:
    """Distance from angle ``p0`` to the next peg in direction ``s`` (a peg under the clapper —
    a rest on a peg top — is behind it: the push carries the clapper off it)."""
    r = p0 % d
    if r < _SNAP_RAD or d - r < _SNAP_RAD:
        return d
    return d - r if s > 0 else r


def _locate_stop(params: MoneyWheelParams, layout_len: int, p0: float, e0: float, s: float) -> _Stop:
    """The physics of the module docstring for one spin, in closed form.

    Only pegs in a window of ``ceil(4*m*d*g/delta)+2`` around the balanced wheel's stop are
    evaluated: before it every peg is cleared for sure (``E_k >= E_bal_k - 2*m*d*g``)."""
    d = TWO_PI / layout_len
    tau = params.bearing_friction_torque_n_m
    pl = params.peg_loss_j
    delta = pl + tau * d  # energy per peg interval on a balanced wheel
    half_band = params.on_peg_band_effective_j / 2
    clear = params.clapper_barrier_j + half_band  # arrival energy needed to clear a peg
    amp = params.imbalance_torque_n_m
    phi = math.radians(params.imbalance_angle_deg)
    u0 = amp * math.cos(p0 - phi)

    def arrival_energy(k: int) -> tuple[float, float, float]:
        x = x1 + (k - 1) * d
        p = p0 + s * x
        return e0 - tau * x - (k - 1) * pl - (amp * math.cos(p - phi) - u0), x, p

    x1 = _first_peg_distance(p0, s, d)
    k = max(int(math.floor((e0 - tau * x1 - 2.0 * amp - clear) / delta)), 0)  # pegs 1..k cleared
    while True:
        k += 1
        e_k, x_k, p_k = arrival_energy(k)
        if e_k < clear:
            break
    if e_k < 0.0:  # friction stop inside (peg k-1, peg k): work is linear in x there
        if k > 1:
            e_in, x_prev, p_prev = arrival_energy(k - 1)
            e_in -= pl
        else:
            e_in, x_prev, p_prev = e0, 0.0, p0
        frac = e_in / (e_in - e_k)
        x_event = travel = x_prev + (x_k - x_prev) * frac
        u_prev = amp * math.cos(p_prev - phi)
        du = u_prev + (amp * math.cos(p_k - phi) - u_prev) * frac - u0
        rest = 0
        final_angle = (p0 + s * travel) % TWO_PI
    elif e_k < params.clapper_barrier_j - half_band:  # rocks back into the section before peg k
        x_event, travel, rest = x_k, x_k - params.rockback_fraction * d, 1
        du = amp * math.cos(p_k - phi) - u0
        final_angle = (p0 + s * travel) % TWO_PI
    else:  # resting on the peg's top, between two sections (§ 690.2(d))
        x_event = travel = x_k
        rest = 2
        du = amp * math.cos(p_k - phi) - u0
        final_angle = (round(p_k / d) * d) % TWO_PI
    peg_j = round(p_k / d) % layout_len
    section = (peg_j - 1) % layout_len if s > 0 else peg_j  # the section before peg k
    return _Stop(k, e_k, x1, rest, section, travel, x_event, final_angle, du)


def _sign(direction: Direction) -> float:
    if direction == "cw":
        return -1.0
    if direction == "ccw":
        return 1.0
    raise ValueError(f"direction must be 'cw' or 'ccw', not {direction!r}")


def spin_trajectory(params: MoneyWheelParams, layout_len: int, start_angle_rad: float,
                    omega0_rad_s: float, direction: Direction) -> SpinTrajectory:
    """One spin in full: the outcome plus per-peg arrival times, speeds and energies."""
    return _spin(params, layout_len, start_angle_rad, omega0_rad_s, direction, True)


def _spin(params: MoneyWheelParams, layout_len: int, start_angle_rad: float, omega0_rad_s: float,
          direction: Direction, pegs: bool) -> SpinTrajectory | SpinPhysics:
    """``spin_trajectory`` (``pegs``), or only its ``physics`` (the sim's hot path: the per-peg
    kinematics the pulse times and the duration need, the same numbers, without the per-peg
    indices)."""
    if not omega0_rad_s > 0:
        raise ValueError(f"omega0_rad_s must be > 0, not {omega0_rad_s}")
    s = _sign(direction)
    inertia = params.inertia_kg_m2
    e0 = 0.5 * inertia * omega0_rad_s * omega0_rad_s
    p0 = start_angle_rad % TWO_PI
    st = _locate_stop(params, layout_len, p0, e0, s)
    k, rest, x1 = st.k, st.rest, st.x1
    d = TWO_PI / layout_len
    tau, pl = params.bearing_friction_torque_n_m, params.peg_loss_j
    amp, phi = params.imbalance_torque_n_m, math.radians(params.imbalance_angle_deg)
    u0 = amp * math.cos(p0 - phi)

    # Kinematics over the pegs met (1..k, or 1..k-1 for a friction stop): the same E_k as
    # _locate_stop, for every peg; constant torque within an interval.
    met = k - 1 if rest == 0 else k
    km1 = np.arange(met, dtype=np.float64)  # k - 1
    x_k = x1 + d * km1
    e_k = (e0 + u0) - tau * x_k - pl * km1
    if amp:
        e_k -= amp * np.cos((p0 - phi) + s * x_k)
    else:
        e_k -= amp
    two_over_i = 2.0 / inertia
    w_arr = np.sqrt(np.maximum(e_k, 0.0) * two_over_i)  # arriving at each peg
    w_in = np.empty(met)  # entering each interval: omega0, then leaving the previous peg
    if met:
        w_in[0] = omega0_rad_s
        w_in[1:] = np.sqrt(np.maximum(e_k[: met - 1] - pl, 0.0) * two_over_i)
    t_int = (2.0 * d) / (w_in + w_arr)
    if met:
        t_int[0] = 2.0 * x1 / (omega0_rad_s + w_arr[0])
    t_arr = np.cumsum(t_int)
    t_met = float(t_arr[-1]) if met else 0.0
    if rest == 0:
        if k == 1:
            w_last, x_prev = omega0_rad_s, 0.0
        else:
            w_last, x_prev = math.sqrt(max(float(e_k[k - 2]) - pl, 0.0) * two_over_i), x1 + (k - 2) * d
        duration = t_met + 2.0 * (st.x_event - x_prev) / w_last
    else:
        duration = t_met + params.settle_time_s
    # Index pulses: the index mark (peg 0) passes the sensor at the clapper.
    cleared = k - 1
    j1 = round((p0 + s * x1) / d) % layout_len  # index of the first peg met
    first = (-j1 if s > 0 else j1) % layout_len  # k - 1 of the first peg 0 met
    pulses = t_arr[first:cleared:layout_len]

    physics = SpinPhysics(
        section_index=st.section,
        on_peg=rest == 2,
        rest=_REST_KINDS[rest],
        revolutions=st.travel / TWO_PI,
        duration_s=duration,
        pegs_passed=cleared,
        pulse_times_s=tuple(pulses.tolist()),
        final_angle_rad=st.final_angle,
        omega0_rad_s=omega0_rad_s,
        e0_j=e0,
        friction_work_j=tau * st.x_event,
        peg_losses_j=cleared * pl,
        potential_change_j=st.potential_change,
        residual_j=0.0 if rest == 0 else st.e_k,
    )
    if not pegs:
        return physics
    peg_idx = (j1 + (s * km1).astype(np.int64)) % layout_len
    return SpinTrajectory(physics, t_arr, w_arr, e_k, peg_idx)


def simulate_spin(params: MoneyWheelParams, layout_len: int, start_angle_rad: float,
                  omega0_rad_s: float, direction: Direction) -> SpinPhysics:
    """Pure physics of one spin: the wheel at ``start_angle_rad`` pushed to ``omega0_rad_s``."""
    return _spin(params, layout_len, start_angle_rad, omega0_rad_s, direction, False)


def draw_push_speed_rps(params: MoneyWheelParams, rng: np.random.Generator, n: int | None = None):
    """The dealer's push: normal(mean, sd) truncated at > 0, times ``push_scale``."""
    if n is None:
        while True:
            v = float(rng.normal(params.push_speed_mean_rps, params.push_speed_sd_rps))
            if v > 0:
                return v * params.push_scale
    v = rng.normal(params.push_speed_mean_rps, params.push_speed_sd_rps, n)
    while (bad := v <= 0).any():
        v[bad] = rng.normal(params.push_speed_mean_rps, params.push_speed_sd_rps, int(bad.sum()))
    return v * params.push_scale


@dataclass(frozen=True)
class SpinBatch:
    """Outcomes of a batch of spins, arrays of shape (n,) in spin order."""

    section_index: np.ndarray
    on_peg: np.ndarray
    revolutions: np.ndarray
    rest: np.ndarray  # 0 friction stop, 1 rock back, 2 on peg
    direction_cw: np.ndarray  # True for a clockwise spin


def simulate_spins_batch(params: MoneyWheelParams, n: int, rng: np.random.Generator, *,
                         layout_len: int = 54, start_angle_rad: float | None = None,
                         direction: Literal["cw", "ccw", "alternate", "random"] = "alternate") -> SpinBatch:
    """``n`` consecutive spins of one wheel for statistics, with the physics of ``simulate_spin``
    (the same ``_locate_stop``; no per-peg timing). Each spin starts where the previous one
    stopped; pushes are drawn as the sim draws them. ``"alternate"`` starts with cw.
    ~5–10 µs per spin."""
    pushes = TWO_PI * draw_push_speed_rps(params, rng, n)
    e0s = (0.5 * params.inertia_kg_m2) * pushes * pushes
    if direction == "random":
        signs = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    elif direction == "alternate":
        signs = np.where(np.arange(n) % 2 == 0, -1.0, 1.0)
    else:
        signs = np.full(n, _sign(direction))
    angle = float(rng.uniform(0.0, TWO_PI)) if start_angle_rad is None else start_angle_rad % TWO_PI
    sec = np.empty(n, np.int64)
    rest = np.empty(n, np.int64)
    rev = np.empty(n)
    locate = _locate_stop
    for i, (e0, s) in enumerate(zip(e0s.tolist(), signs.tolist())):
        st = locate(params, layout_len, angle, e0, s)
        sec[i], rest[i], rev[i] = st.section, st.rest, st.travel
        angle = st.final_angle
    return SpinBatch(sec, rest == 2, rev / TWO_PI, rest, signs < 0)


def wheel_sections(params: MoneyWheelParams) -> tuple[str, ...]:
    """The wheel's sections clockwise from section 0 (the regulation's unless mis-built)."""
    if params.layout is not None:
        return tuple(str(x) for x in params.layout)
    from rules.crazy_time import WHEEL_SECTIONS

    return tuple(str(x) for x in WHEEL_SECTIONS)


# --------------------------------------------------------------------------- SimPy model
class MoneyWheelSim:
    """SimPy model of the money wheel implementing ``devices.contracts.MoneyWheel``."""

    def __init__(self, env: simpy.Environment, params: MoneyWheelParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "wheel") -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        self._sections = wheel_sections(params)
        self._angle_rad = (float(rng.uniform(0.0, TWO_PI)) if params.initial_angle_rad is None
                           else params.initial_angle_rad % TWO_PI)
        self._spin_id = 0
        self._busy_until: float | None = None
        self.last_physics: SpinPhysics | None = None  # ground truth for tests, not telemetry
        telemetry(name, "device_info", payload(self.info()))

    @property
    def angle_rad(self) -> float:
        """Wheel angle under the clapper now (at rest) — ground truth, not telemetry."""
        return self._angle_rad

    def info(self) -> WheelInfo:
        return WheelInfo(model=self.params.model, sections=self._sections,
                         diameter_m=self.params.diameter_m, pegs=len(self._sections))

    def _emit(self, kind: str, payload: dict) -> bool:
        p = self.params.telemetry_dropout
        if p > 0 and self.rng.random() < p:
            return False
        self.telemetry(self.name, kind, payload)
        return True

    def spin(self, direction: Direction) -> simpy.Event:
        """The dealer pushes the wheel now; the event succeeds with ``SpinStop`` at rest."""
        _sign(direction)
        now = self.env.now
        if self._busy_until is not None and now < self._busy_until:
            raise RuntimeError(f"{self.name}: spin commanded at t={now} while the wheel is still "
                               f"turning (until t={self._busy_until})")
        self._spin_id += 1
        spin_id = self._spin_id
        omega0 = TWO_PI * draw_push_speed_rps(self.params, self.rng)
        phys = simulate_spin(self.params, len(self._sections), self._angle_rad, omega0, direction)
        self._angle_rad = phys.final_angle_rad
        self._busy_until = now + phys.duration_s
        self.last_physics = phys
        done = self.env.event()
        self._emit("spin_start", {"spin_id": spin_id, "direction": direction, "device_time_s": now})
        self.env.process(self._run(spin_id, direction, now, phys, done))
        return done

    def _run(self, spin_id: int, direction: Direction, start: float, phys: SpinPhysics, done: simpy.Event):
        env = self.env
        for count, t in enumerate(phys.pulse_times_s, start=1):
            yield env.timeout(max(0.0, start + t - env.now))
            if not self.params.index_sensor_stuck:
                self._emit("index_pulse", {"spin_id": spin_id, "count": count, "device_time_s": env.now})
        yield env.timeout(max(0.0, start + phys.duration_s - env.now))
        stop = SpinStop(
            spin_id=spin_id,
            section_index=phys.section_index,
            spot=self._sections[phys.section_index],
            on_peg=phys.on_peg,
            revolutions=phys.revolutions,
            direction=direction,
            duration_s=phys.duration_s,
            pegs_passed=phys.pegs_passed,
            start_time_s=start,
            stop_time_s=env.now,
        )
        if self._emit("spin_stop", payload(stop)):
            done.succeed(stop)
