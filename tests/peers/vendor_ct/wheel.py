"""The vendor's money wheel (docs/wire/modbus-money-wheel.md, docs/devices/money-wheel.md).

Physics, peg by peg, in closed form between pegs. A vertical wheel of 54 equal sections, a peg
between each pair, a flexible clapper at the top. The push gives an initial angular speed; the
bearing brakes with a constant (Coulomb) torque plus a viscous term (air and grease, ∝ ω):
``I·dω/dt = −(τ_c + c·ω)``. Between two pegs that has the exact solution

    θ(ω) = (ω_in − ω)/b − (a/b²)·ln((a + b·ω_in)/(a + b·ω)),   t(ω) = ln((a + b·ω_in)/(a + b·ω))/b

with ``a = τ_c/I``, ``b = c/I``. At each peg the clapper either clears it (losing ``peg_loss_j``
of kinetic energy), or — when the wheel reaches it with less than the clapper's barrier energy —
is thrown back into the section before it (a rock-back), or, within a narrow band around the
barrier, comes to rest on the peg's top: between two sections (§ 690.2(d), a void spin). A wheel
that runs out of energy between two pegs stops there (a friction stop).

The index sensor sits at the clapper and sees a flag at peg 0: one pulse each time peg 0 clears
the clapper. The wheel keeps its angle between spins. Every time is in world seconds; the
registers carry them on the wheel's own clock (``DeviceClock``: its epoch and drift).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from pymodbus.constants import ExcCodes

from .clock import DeviceClock
from .modbus import COILS, DISCRETE, HOLDING, INPUT, Block, RegisterDevice, WordImage, from_words, u16, u32, u64

TWO_PI = 2.0 * math.pi

#: § 690.1(b): the 54 sections clockwise (the regulation lists them from a section it does not
#: name; ours is section 0).
SECTIONS = ("1", "2", "5", "1", "2", "pachinko", "1", "5", "1", "2", "1", "coin-flip", "1", "2", "1", "10",
            "2", "cash-hunt", "1", "2", "1", "5", "1", "coin-flip", "1", "5", "2", "10", "1", "pachinko", "1",
            "2", "5", "1", "2", "coin-flip", "1", "10", "1", "5", "1", "cash-hunt", "1", "2", "5", "1", "2",
            "coin-flip", "2", "1", "10", "2", "1", "crazy-time")
#: docs/wire/modbus-money-wheel.md, Enums: `sections`
SPOT_CODE = {"1": 0, "2": 1, "5": 2, "10": 3, "coin-flip": 4, "cash-hunt": 5, "pachinko": 6, "crazy-time": 7}
STATE = {"idle": 0, "spinning": 1, "at_rest": 2, "fault": 3}
DIRECTION = {"none": 0, "cw": 1, "ccw": 2}
COMMAND = {0: "none", 1: "cw", 2: "ccw"}

assert len(SECTIONS) == 54
assert {s: SECTIONS.count(s) for s in SPOT_CODE} == {"1": 21, "2": 13, "5": 7, "10": 4, "coin-flip": 4,
                                                     "cash-hunt": 2, "pachinko": 2, "crazy-time": 1}


@dataclass(frozen=True)
class WheelPhysics:
    """The vendor's MW-54 wheel: 1.85 m, 104 kg rim and spokes."""

    diameter_m: float = 1.85
    inertia_kg_m2: float = 52.0
    coulomb_torque_n_m: float = 3.5
    viscous_n_m_s: float = 0.9          # N·m per rad/s
    peg_loss_j: float = 1.3             # kinetic energy the clapper takes at each peg it clears
    clapper_barrier_j: float = 1.6      # energy needed to lift the clapper over a peg
    on_peg_band_j: float = 0.009        # |E − barrier| < band/2: the clapper balances on the peg top
    rockback_fraction: float = 0.28     # a rock-back leaves the clapper this far (in sections) behind the peg
    clapper_settle_s: float = 0.45      # the clapper's swing dies out after a clapper stop
    friction_settle_s: float = 0.15
    push_speed_mean_rps: float = 0.95
    push_speed_sd_rps: float = 0.08
    push_speed_min_rps: float = 0.25
    push_latency_s: float = 0.030       # command received -> the pusher's arm moves the rim
    push_latency_jitter_s: float = 0.004
    sections: tuple[str, ...] = SECTIONS

    @property
    def pitch_rad(self) -> float:
        return TWO_PI / len(self.sections)


@dataclass(frozen=True)
class Spin:
    """One spin, fully determined at the push (the physics needs nothing later)."""

    spin_id: int
    direction: str                 # "cw" | "ccw"
    start_s: float                 # world time the rim started moving
    peg_times_s: np.ndarray        # world times the clapper cleared each peg, in order
    peg_ids: np.ndarray            # which peg (0..53) each was
    rest_s: float                  # at rest: the rest report is complete
    section_index: int
    on_peg: bool
    revolutions: float             # net rotation in turns
    end_angle_rad: float           # wheel-frame angle under the clapper at rest
    stop_kind: str                 # "rockback" | "on_peg" | "friction"

    @property
    def pulse_times_s(self) -> np.ndarray:
        return self.peg_times_s[self.peg_ids == 0]


def _interval(a: float, b: float, omega_in: float, dist: float) -> tuple[float | None, float]:
    """Move ``dist`` rad from speed ``omega_in``: (speed on arrival or None if it stops first,
    time taken — to arrival, or to the stop)."""
    k = a + b * omega_in
    stop_dist = omega_in / b - (a / (b * b)) * math.log(k / a)
    if stop_dist <= dist:
        return None, math.log(k / a) / b
    # Newton on f(ω) = θ(ω) − dist, f'(ω) = −ω/(a + bω); start from the Coulomb-only guess
    w = math.sqrt(max(omega_in * omega_in - 2.0 * k * dist, 1e-12))
    for _ in range(30):
        f = (omega_in - w) / b - (a / (b * b)) * math.log(k / (a + b * w)) - dist
        fp = -w / (a + b * w)
        step = f / fp if fp else 0.0
        w_new = min(max(w - step, 1e-12), omega_in)
        if abs(w_new - w) < 1e-13:
            w = w_new
            break
        w = w_new
    return w, math.log(k / (a + b * w)) / b


def simulate(phys: WheelPhysics, spin_id: int, direction: str, start_s: float, start_angle_rad: float,
             omega0: float, start_on_peg: bool) -> Spin:
    n = len(phys.sections)
    pitch = phys.pitch_rad
    a = phys.coulomb_torque_n_m / phys.inertia_kg_m2
    b = phys.viscous_n_m_s / phys.inertia_kg_m2
    sign = -1 if direction == "cw" else 1          # cw brings sections in decreasing index order
    p = start_angle_rad % TWO_PI
    # the first peg ahead of the clapper, and the distance to it
    if direction == "cw":
        peg = int(math.floor(p / pitch + 1e-12)) % n
        first = p - peg * pitch
    else:
        peg = int(math.ceil(p / pitch - 1e-12)) % n
        first = (peg * pitch - p) % TWO_PI
    if start_on_peg or first < 1e-9:
        peg = (peg + sign) % n     # it rested on a peg's top: the push drops it into the next section
        first = pitch
    times, ids = [], []
    t, travelled, omega, dist = start_s, 0.0, omega0, first
    half_band = phys.on_peg_band_j / 2.0
    while True:
        w_arr, dt = _interval(a, b, omega, dist)
        if w_arr is None:  # friction stop inside the interval
            stop_d = omega / b - (a / (b * b)) * math.log((a + b * omega) / a)
            travelled += stop_d
            t += dt
            kind, on_peg, rest = "friction", False, t + phys.friction_settle_s
            break
        t += dt
        travelled += dist
        e = 0.5 * phys.inertia_kg_m2 * w_arr * w_arr
        if e < phys.clapper_barrier_j - half_band:  # thrown back into the section before the peg
            travelled -= phys.rockback_fraction * pitch
            kind, on_peg, rest = "rockback", False, t + phys.clapper_settle_s
            break
        if e <= phys.clapper_barrier_j + half_band:  # balanced on the peg's top
            kind, on_peg, rest = "on_peg", True, t + phys.clapper_settle_s
            break
        times.append(t)
        ids.append(peg)
        omega = math.sqrt(2.0 * (e - phys.peg_loss_j) / phys.inertia_kg_m2)
        peg = (peg + sign) % n
        dist = pitch
    end = (p + sign * travelled) % TWO_PI
    if on_peg:
        # the section before that peg in the direction of motion
        section = peg % n if direction == "cw" else (peg - 1) % n
        end = (peg * pitch) % TWO_PI
    else:
        section = int(math.floor(end / pitch)) % n
    return Spin(spin_id=spin_id, direction=direction, start_s=start_s, peg_times_s=np.asarray(times),
                peg_ids=np.asarray(ids, dtype=np.int64), rest_s=rest, section_index=section, on_peg=on_peg,
                revolutions=travelled / TWO_PI, end_angle_rad=end, stop_kind=kind)


@dataclass
class WheelFaults:
    """Ways a real wheel goes wrong, for breaking the rig (all off by default)."""

    start_reported_late: bool = False   # spin_start_ns reads 0 during the pusher's latency
    index_sensor_stuck: bool = False


@dataclass
class MoneyWheel(RegisterDevice):
    clock: DeviceClock
    rng: np.random.Generator
    phys: WheelPhysics = field(default_factory=WheelPhysics)
    faults: WheelFaults = field(default_factory=WheelFaults)
    command_seq: int = 0
    name: str = "money-wheel"

    tables = {
        COILS: (),
        DISCRETE: (Block(0, 1),),
        HOLDING: (Block(0, 2),),
        INPUT: (Block(0, 30), Block(100, 56)),
    }

    def __post_init__(self) -> None:
        self.command = 0
        self.angle_rad = float(self.rng.uniform(0.0, TWO_PI))
        self.spin: Spin | None = None
        self.pending: tuple[float, str, int] | None = None   # (motion start, direction, spin id)
        self.last_id = 0
        self.rested_on_peg = False
        self.log: list[Spin] = []   # ground truth, for tests

    # -- the machine ----------------------------------------------------------------------------

    def _advance(self, now_s: float) -> None:
        """Start a pending push whose pusher latency has elapsed (closed form: nothing else moves)."""
        if self.pending and now_s >= self.pending[0]:
            start_s, direction, spin_id = self.pending
            self.pending = None
            v = -1.0
            while v < self.phys.push_speed_min_rps:
                v = float(self.rng.normal(self.phys.push_speed_mean_rps, self.phys.push_speed_sd_rps))
            self.spin = simulate(self.phys, spin_id, direction, start_s, self.angle_rad, TWO_PI * v,
                                 self.rested_on_peg)
            self.log.append(self.spin)
            self.angle_rad = self.spin.end_angle_rad
            self.rested_on_peg = self.spin.on_peg

    def _turning(self, now_s: float) -> bool:
        return self.pending is not None or (self.spin is not None and now_s < self.spin.rest_s)

    def push(self, direction: str, now_s: float) -> ExcCodes | None:
        self._advance(now_s)
        if self._turning(now_s):
            return ExcCodes.DEVICE_BUSY
        lat = max(0.0, float(self.rng.normal(self.phys.push_latency_s, self.phys.push_latency_jitter_s)))
        self.last_id += 1
        # the id and state change when the rim moves (with ``start_reported_late``: at once, the
        # start time and the counters only when it moves)
        self.pending = (now_s + lat, direction, self.last_id)
        return None

    # -- registers ------------------------------------------------------------------------------

    def write(self, table: str, address: int, values: list[int]) -> ExcCodes | None:
        if table != HOLDING:
            return ExcCodes.ILLEGAL_ADDRESS
        regs = {0: self.command, 1: self.command_seq}
        for i, v in enumerate(values):
            regs[address + i] = v
        command, seq = regs[0], regs[1]
        if command not in COMMAND:
            return ExcCodes.ILLEGAL_VALUE
        now_s = self.clock.world.now_s()
        if seq != self.command_seq and COMMAND[command] != "none":
            if (err := self.push(COMMAND[command], now_s)) is not None:
                return err  # refused: nothing changes, command_seq included
        self.command, self.command_seq = command, seq
        return None

    def _image(self, now_s: float) -> WordImage:
        self._advance(now_s)
        c = self.clock
        img = WordImage()
        s = self.spin
        late = self.faults.start_reported_late and self.pending is not None
        if s is None and not late:
            state, spin_id, direction = STATE["idle"], 0, "none"
        elif late:
            state, spin_id, direction = STATE["spinning"], self.pending[2], self.pending[1]  # type: ignore[index]
        else:
            state = STATE["spinning"] if now_s < s.rest_s else STATE["at_rest"]
            spin_id, direction = s.spin_id, s.direction
        img.put(0, u16(state))
        img.put(1, u32(spin_id))
        if s is not None and not late:
            cleared = int(np.searchsorted(s.peg_times_s, now_s, side="right"))
            pulses = s.pulse_times_s
            seen = 0 if self.faults.index_sensor_stuck else int(np.searchsorted(pulses, now_s, side="right"))
            img.put(3, u16(seen))
            img.put(4, u32(cleared))
            img.put(14, u64(c.at(s.start_s)))
            img.put(18, u64(c.at(float(pulses[seen - 1])) if seen else 0))
            if state == STATE["at_rest"]:
                img.put(6, u16(s.section_index))
                img.put(8, u32(round(s.revolutions * 1000)))
                img.put(10, u32(len(s.peg_times_s)))
                img.put(12, u32(round((s.rest_s - s.start_s) * 1e6 * (1 + c.drift_ppm * 1e-6))))
                img.put(22, u64(c.at(s.rest_s)))
        elif late:
            img.put(3, u16(0))
        img.put(7, u16(DIRECTION[direction]))
        img.put(100, u16(round(self.phys.diameter_m * 1000)))
        img.put(101, u16(len(self.phys.sections)))
        img.put(102, [SPOT_CODE[x] for x in self.phys.sections])
        img.put(26, u64(c.at(now_s)))  # latched as the answer is built
        return img

    def read(self, table: str, address: int, count: int) -> list[int]:
        now_s = self.clock.world.now_s()
        if table == HOLDING:
            return [self.command, self.command_seq][address:address + count]
        if table == DISCRETE:
            self._advance(now_s)
            s = self.spin
            return [int(bool(s is not None and now_s >= s.rest_s and s.on_peg))][:count]
        return self._image(now_s).get(address, count)

    def snapshot(self) -> dict:
        """Decoded state, for tests."""
        img = self._image(self.clock.world.now_s())
        w = img.get(0, 30)
        return {"state": w[0], "spin_id": from_words(w[1:3]), "revolution_count": w[3],
                "section_index": w[6], "device_clock_ns": from_words(w[26:30])}
