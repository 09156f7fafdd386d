"""The vendor's Top Slot (docs/wire/modbus-top-slot.md, docs/devices/top-slot.md, § 690.3).

Two stepper-driven reels behind a payline. Reel 1 carries the eight betting options of
§ 690.3(b)(1), reel 2 the multipliers 1, 2, 3, 4, 5, 7, 10, 15, 20 of § 690.3(b)(2). As in any
slot the outcome is drawn when the spin is commanded (aligned or not, reel 1's option, reel 2's
multiplier: the vendor's own PAR below), then each reel runs at ``step_rate_sps`` symbols/s for
at least its nominal time and as many more symbols as bring the drawn symbol to the payline. A
reel that does not align stops half a symbol off the payline (reported: the symbol just past it).
The motor starts ``start_latency_s`` after the command reached the device.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from pymodbus.constants import ExcCodes

from .clock import DeviceClock
from .modbus import COILS, DISCRETE, HOLDING, INPUT, Block, RegisterDevice, WordImage, u16, u32, u64

REEL1 = ("1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time")
REEL2 = (1, 2, 3, 4, 5, 7, 10, 15, 20)
SPOT_CODE = {"1": 0, "2": 1, "5": 2, "10": 3, "coin-flip": 4, "cash-hunt": 5, "pachinko": 6, "crazy-time": 7}
STATE = {"idle": 0, "spinning": 1, "at_rest": 2, "fault": 3}
COMMAND = {0: "none", 1: "spin"}


@dataclass(frozen=True)
class TopSlotMechanics:
    step_rate_sps: float = 14.0
    reel1_mean_s: float = 4.2
    reel1_sd_s: float = 0.45
    reel1_min_s: float = 2.5
    reel2_extra_s: float = 0.8
    start_latency_s: float = 0.012
    start_latency_jitter_s: float = 0.002
    #: the vendor's PAR (integer weights; aligned 1 in 4)
    align_numerator: int = 1
    align_denominator: int = 4
    reel1_weights: tuple[int, ...] = (10, 8, 6, 4, 4, 3, 3, 2)
    reel2_weights: tuple[int, ...] = (0, 30, 25, 15, 12, 8, 5, 3, 2)


@dataclass(frozen=True)
class SlotSpin:
    spin_id: int
    start_s: float
    stop_s: float
    spot: str
    multiplier: int
    aligned: bool
    reel1_steps: int
    reel2_steps: int


@dataclass
class TopSlot(RegisterDevice):
    clock: DeviceClock
    rng: np.random.Generator
    mech: TopSlotMechanics = field(default_factory=TopSlotMechanics)
    command_seq: int = 0
    late_start_s: float = 0.0     # fault knob: the motors start this much later
    name: str = "top-slot"

    tables = {COILS: (), DISCRETE: (Block(0, 1),), HOLDING: (Block(0, 2),), INPUT: (Block(0, 19),)}

    def __post_init__(self) -> None:
        self.command = 0
        self.pos1 = int(self.rng.integers(len(REEL1)))
        self.pos2 = int(self.rng.integers(len(REEL2)))
        self.spin: SlotSpin | None = None
        self.pending: tuple[float, int, SlotSpin] | None = None
        self.last_id = 0
        self.log: list[SlotSpin] = []

    def _draw(self, weights: tuple[int, ...]) -> int:
        total = sum(weights)
        r = int(self.rng.integers(total))
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise AssertionError("unreachable")

    def _travel(self, pos: int, target: int, n: int, nominal_s: float) -> int:
        steps = math.ceil(nominal_s * self.mech.step_rate_sps)
        return steps + (target - (pos + steps)) % n

    def _advance(self, now_s: float) -> None:
        if self.pending and now_s >= self.pending[0]:
            self.spin = self.pending[2]
            self.pending = None

    def _command_spin(self, now_s: float) -> ExcCodes | None:
        self._advance(now_s)
        if self.pending is not None or (self.spin is not None and now_s < self.spin.stop_s):
            return ExcCodes.DEVICE_BUSY
        m = self.mech
        start = now_s + max(0.0, float(self.rng.normal(m.start_latency_s, m.start_latency_jitter_s))) + self.late_start_s
        aligned = int(self.rng.integers(m.align_denominator)) < m.align_numerator
        i1, i2 = self._draw(m.reel1_weights), self._draw(m.reel2_weights)
        nominal = max(m.reel1_min_s, float(self.rng.normal(m.reel1_mean_s, m.reel1_sd_s)))
        s1 = self._travel(self.pos1, i1, len(REEL1), nominal)
        s2 = self._travel(self.pos2, i2, len(REEL2), nominal + m.reel2_extra_s)
        t2 = (s2 + (0.0 if aligned else 0.5)) / m.step_rate_sps
        self.pos1, self.pos2 = i1, i2
        self.last_id += 1
        spin = SlotSpin(self.last_id, start, start + max(s1 / m.step_rate_sps, t2), REEL1[i1], REEL2[i2], aligned,
                        s1, s2)
        self.log.append(spin)
        self.pending = (start, self.last_id, spin)
        return None

    def _previous(self, s: SlotSpin) -> SlotSpin | None:
        i = s.spin_id - 2
        return self.log[i] if i >= 0 else None

    def write(self, table: str, address: int, values: list[int]) -> ExcCodes | None:
        if table != HOLDING:
            return ExcCodes.ILLEGAL_ADDRESS
        regs = {0: self.command, 1: self.command_seq}
        for i, v in enumerate(values):
            regs[address + i] = v
        if regs[0] not in COMMAND:
            return ExcCodes.ILLEGAL_VALUE
        if regs[1] != self.command_seq and COMMAND[regs[0]] == "spin":
            if (err := self._command_spin(self.clock.world.now_s())) is not None:
                return err
        self.command, self.command_seq = regs[0], regs[1]
        return None

    def read(self, table: str, address: int, count: int) -> list[int]:
        now_s = self.clock.world.now_s()
        self._advance(now_s)
        s = self.spin
        if table == HOLDING:
            return [self.command, self.command_seq][address:address + count]
        if table == DISCRETE:
            return [int(bool(s is not None and now_s >= s.stop_s and s.aligned))][:count]
        img = WordImage()
        if s is None:
            img.put(0, u16(STATE["idle"]))
        else:
            resting = now_s >= s.stop_s
            img.put(0, u16(STATE["at_rest"] if resting else STATE["spinning"]))
            img.put(1, u32(s.spin_id))
            img.put(7, u64(self.clock.at(s.start_s)))
            # the result registers latch at rest; while the reels turn they still hold the last one
            shown = s if resting else self._previous(s)
            if shown is not None:
                img.put(3, u16(SPOT_CODE[shown.spot]))
                img.put(4, u16(shown.multiplier))
            if resting:
                img.put(4, u16(s.multiplier))
                img.put(5, u16(s.reel1_steps))
                img.put(6, u16(s.reel2_steps))
                img.put(11, u64(self.clock.at(s.stop_s)))
        img.put(15, u64(self.clock.at(now_s)))
        return img.get(address, count)
