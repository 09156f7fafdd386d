"""The Coin Flip's mechanical coin flipper (§ 690.5(b), (d)): a physical flip.

Model (Keller 1986; Diaconis, Holmes & Montgomery 2007, "Dynamical bias in the coin toss"). The
coin rests on the flipper's platform with one face up — the face it landed on last time (the first
face at power-up is drawn from the rng). The flipper launches it with vertical speed
``v ~ Normal(launch_speed_mean_mps, launch_speed_sd_mps)`` and spin rate
``ω ~ Normal(spin_rate_mean_rps, spin_rate_sd_rps)`` (rev/s; both truncated at > 0). It flies for
``T = 2v/g`` and lands on the platform (same height). With ``ψ`` the angle between the coin's
angular momentum and its normal (``precession_deg``), the angle ``θ`` between the normal and the
vertical evolves as

    cos θ(t) = cos²ψ + sin²ψ · cos(2π ω t)

(ψ = 90°: the pure Keller flip, the normal turning end over end). The coin lands and falls onto the
side its normal points to: the start face is up at rest if ``cos θ(T) > 0``, else the other face.

``half_turns`` is the number of times the face up changed from launch to rest — the zero crossings
of ``cos θ`` in ``(0, T]`` (plus one if the coin turns over on the bounce, see ``settle_bias_red``) —
so ``face == start_face`` exactly when ``half_turns`` is even. For ψ = 90° it is ``round(2ωT)``,
the half revolutions nearest the landing attitude (``floor(2ωT)`` would count only the completed
ones, and its parity would disagree with the face whenever the coin lands more than a quarter turn
past its last half revolution — half the flips).

Precession (ψ < 90°) biases the flip toward the start face: P(same) = 1/2 + asin(cot²ψ)/π for
ψ > 45° (≈ 0.508 at ψ ≈ 81°, DHM's estimate for human thumb flips); for ψ ≤ 45° the coin never
turns over.

The face up is updated when the coin rests; a flip commanded before then (a croupier fault) starts
from the face shown before the coin was launched.

Timing: the command reaches the flipper; ``launch_delay_s`` later the coin leaves the platform
(``coin_flip_start``); it flies ``T`` and bounces and settles for ``settle_time_s``
(``coin_flip_stop``): ``stop - start = T + settle_time_s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import simpy

from devices.contracts import CoinFlipResult, Telemetry, payload
from rules.bonus import COIN_SIDES

#: Standard gravity, m/s².
G_M_S2 = 9.80665


@dataclass(frozen=True)
class CoinFlipperParams:
    """Physical parameters of the simulated coin flipper; faults default to a healthy flipper.

    Defaults give a ≈ 0.61 s flight with ≈ 31 ± 3.4 half turns: the spread of ``2ωT`` is many half
    turns wide, so the healthy flip is fair to far better than any test can see.
    """

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    launch_speed_mean_mps: float = 3.0
    """Mean vertical launch speed, m/s (flight time 2v/g ≈ 0.61 s)."""
    launch_speed_sd_mps: float = 0.15
    """Standard deviation of the launch speed (normal, truncated at > 0), m/s."""
    spin_rate_mean_rps: float = 25.0
    """Mean spin rate the flipper gives the coin, revolutions per second."""
    spin_rate_sd_rps: float = 2.5
    """Standard deviation of the spin rate (normal, truncated at > 0), rev/s."""
    g_mps2: float = G_M_S2
    """Gravity, m/s²."""
    launch_delay_s: float = 0.5
    """From the flip command to the coin leaving the platform."""
    settle_time_s: float = 0.8
    """From landing to rest (bounces, wobble)."""
    initial_face: str = ""
    """The face up at power-up: "red", "blue", or "" = drawn from the rng."""

    # ---- faults (defaults = healthy)
    precession_deg: float = 90.0
    """Angle ψ between the coin's angular momentum and its normal, degrees (90 = a pure flip). Less
    than 90 biases the result toward the face that was up at launch (DHM): 60 ⇒ P(same) ≈ 0.608;
    at 45 or less the coin never turns over."""
    settle_bias_red: float = 0.0
    """Mass offset toward the blue face: a coin that lands blue face up turns over on the bounce and
    rests red face up with this probability (P(red) = 1/2 + settle_bias_red/2)."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(self.launch_speed_mean_mps > 0 and self.launch_speed_sd_mps >= 0,
             "launch_speed_mean_mps must be > 0 and launch_speed_sd_mps >= 0")
        need(self.spin_rate_mean_rps > 0 and self.spin_rate_sd_rps >= 0,
             "spin_rate_mean_rps must be > 0 and spin_rate_sd_rps >= 0")
        need(self.g_mps2 > 0, f"g_mps2 must be > 0, not {self.g_mps2}")
        need(self.launch_delay_s >= 0 and self.settle_time_s >= 0, "launch_delay_s and settle_time_s must be >= 0")
        need(self.initial_face in ("", *COIN_SIDES),
             f"initial_face must be '' (drawn) or one of {', '.join(COIN_SIDES)}, not {self.initial_face!r}")
        need(0.0 <= self.precession_deg <= 90.0, f"precession_deg must be in [0, 90], not {self.precession_deg}")
        need(0.0 <= self.settle_bias_red <= 1.0, f"settle_bias_red must be in [0, 1], not {self.settle_bias_red}")


@dataclass(frozen=True)
class CoinFlight:
    """The coin's flight in closed form (no randomness)."""

    flight_s: float
    """T = 2v/g."""
    same_face: bool
    """The face up at launch is up at landing: cos θ(T) > 0."""
    half_turns: int
    """Times the face up changed in the air (zero crossings of cos θ in (0, T])."""


def coin_flight(launch_speed_mps: float, spin_rate_rps: float, precession_deg: float = 90.0,
                g_mps2: float = G_M_S2) -> CoinFlight:
    """The flight of a coin launched with vertical speed ``v`` and spin rate ``ω`` (rev/s), with
    precession angle ψ (Keller / DHM): cos θ(t) = cos²ψ + sin²ψ·cos(2πωt).

    Zero crossings: cos(φ) = -cot²ψ at φ = α and 2π - α (mod 2π), α = arccos(-cot²ψ) ∈ [π/2, π]
    (none when cot²ψ > 1, ψ < 45°). With Φ = 2πωT = 2π·k + r, there are 2k + [r ≥ α] + [r ≥ 2π-α]
    crossings, and cos θ(T) > 0 exactly when r < α or r > 2π - α — when their count is even."""
    flight_s = 2.0 * launch_speed_mps / g_mps2
    psi = math.radians(precession_deg)
    c2, s2 = math.cos(psi) ** 2, math.sin(psi) ** 2
    phase = 2.0 * math.pi * spin_rate_rps * flight_s
    k, r = divmod(phase, 2.0 * math.pi)
    if s2 == 0.0 or c2 / s2 > 1.0:  # ψ < 45°: cos θ never reaches 0
        return CoinFlight(flight_s, True, 0)
    alpha = math.acos(-c2 / s2)
    crossings = 2 * int(k) + (r >= alpha) + (r >= 2.0 * math.pi - alpha)
    return CoinFlight(flight_s, crossings % 2 == 0, crossings)


def same_face_probability(precession_deg: float) -> float:
    """DHM: the long-run probability that a flip lands on the face it started from,
    1/2 + asin(cot²ψ)/π for ψ > 45° (1 for ψ <= 45°)."""
    psi = math.radians(precession_deg)
    cot2 = (math.cos(psi) / math.sin(psi)) ** 2 if math.sin(psi) else math.inf
    return 1.0 if cot2 >= 1.0 else 0.5 + math.asin(cot2) / math.pi


class CoinFlipperSim:
    """SimPy model of the coin flipper implementing ``devices.contracts.CoinFlipper``."""

    def __init__(self, env: simpy.Environment, params: CoinFlipperParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "coin_flipper") -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        #: The face up on the platform now (the coin rests where it landed).
        self.face_up: str = params.initial_face or COIN_SIDES[int(rng.integers(2))]
        self._flip_id = 0
        telemetry(name, "device_info", {"sides": list(COIN_SIDES)})

    def _positive_normal(self, mean: float, sd: float) -> float:
        while True:
            x = float(self.rng.normal(mean, sd))
            if x > 0:
                return x

    def flip(self) -> simpy.Event:
        """Launch the coin now (after the launch delay); succeeds with ``CoinFlipResult`` at rest."""
        p = self.params
        self._flip_id += 1
        v = self._positive_normal(p.launch_speed_mean_mps, p.launch_speed_sd_mps)
        omega = self._positive_normal(p.spin_rate_mean_rps, p.spin_rate_sd_rps)
        flight = coin_flight(v, omega, p.precession_deg, p.g_mps2)
        start_face = self.face_up  # the coin rests where it landed
        other = COIN_SIDES[1] if start_face == COIN_SIDES[0] else COIN_SIDES[0]
        face, half_turns = (start_face if flight.same_face else other), flight.half_turns
        if p.settle_bias_red > 0 and face == "blue" and float(self.rng.random()) < p.settle_bias_red:
            face, half_turns = "red", half_turns + 1  # turns over on the bounce
        result = dict(flip_id=self._flip_id, face=face, start_face=start_face, half_turns=half_turns,
                      launch_speed_mps=v, spin_rate_rps=omega)
        done = self.env.event()
        self.env.process(self._run(result, flight.flight_s + p.settle_time_s, done))
        return done

    def _run(self, result: dict, airborne_s: float, done: simpy.Event):
        env = self.env
        if self.params.launch_delay_s > 0:
            yield env.timeout(self.params.launch_delay_s)
        start = env.now
        self.telemetry(self.name, "coin_flip_start", {"flip_id": result["flip_id"], "device_time_s": start})
        yield env.timeout(airborne_s)
        stop = CoinFlipResult(**result, start_time_s=start, stop_time_s=env.now)
        self.face_up = stop.face
        self.telemetry(self.name, "coin_flip_stop", payload(stop))
        done.succeed(stop)
