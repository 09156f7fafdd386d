"""The vendor's wagering device and the relay module wired across its seat buttons.

docs/wire/modbus-wagering.md, docs/wire/actuator.md, docs/devices/wagering-device.md.

**The wagering device.** A bet terminal per seat: one button per betting option, a denomination
selector (the seat's button stake, set on the device), the dealer's lock-out button (coil
``lockout``) and the keyed round-open command (holding 137–145: a new ``round_open_seq`` with the
device's supervisor key, compared in constant time; a wrong key ILLEGAL_FUNCTION, 5 wrong keys in a
row lock it 30 s — DEVICE_BUSY —; coil ``betting_open`` is read-only, ILLEGAL_ADDRESS on a write;
docs/wire/modbus-wagering.md, "Opening a round"). Its firmware is a scan loop
(``scan_period_s``): a lock-out command is latched by the communications task when it arrives
(``lockout_command_ns``, before the write is answered) and takes effect at the first scan after
``lockout_processing_s`` (± jitter) — so the latency is the processing time plus up to one scan.
Button inputs are edge-interrupts: a press is stamped at the contact's closing edge, debounced
for ``debounce_s``, then answered (accepted, or rejected with its reason) into the press log, a
ring of 16. The injection interface and the armed probe are optional features
(``injection=True``); the vendor's production firmware has neither.

**The relay module.** A standard Modbus TCP digital-output module of ``outputs`` coils (FC5, FC15
write, FC1 read). Output *n* is wired across one button's contact, by default
``n = (seat − 1) × 9 + k`` (k: the spot's index in the wagering page's spot enum). An output's
rising edge closes the contact ``operate_s`` (± ``operate_jitter_s``) later — 0 for a
solid-state output — and the device registers the press at that instant. Both run in one
process and share the device's state: that is the wiring.
"""

from __future__ import annotations

import hmac
import math
import secrets
from dataclasses import dataclass, field

import numpy as np
from pymodbus.constants import ExcCodes

from .clock import DeviceClock
from .modbus import COILS, DISCRETE, HOLDING, INPUT, Block, RegisterDevice, WordImage, from_words, u16, u32, u64

#: docs/wire/modbus-wagering.md, Enums: the spot codes (also the default wiring's k)
SPOTS = ("1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time", "roulette-up")
STATUS = {"none": 0, "accepted": 1, "rejected": 2}
REASON = {"none": 0, "locked_out": 1, "betting_closed": 2, "invalid_seat": 3, "invalid_stake": 4}
MAX_SEATS = 8
LOG_SIZE = 16
#: docs/wire/modbus-wagering.md, "Opening a round": round_open_seq at 137, round_open_key at 138..145
ROUND_OPEN_SEQ, ROUND_OPEN_KEY, KEY_WORDS = 137, 138, 8
HOLDING_SIZE = ROUND_OPEN_KEY + KEY_WORDS
LOCK_AFTER, LOCK_S = 5, 30.0


@dataclass(frozen=True)
class Press:
    press_id: int
    seat: int
    spot: int          # spot code
    stake_cents: int
    press_s: float     # world time the contact closed (stamped on the device's clock)
    answer_s: float
    status: str
    reason: str
    source: str        # "button" | "inject" | "probe" (ground truth, never on the wire)


@dataclass
class WageringTiming:
    scan_period_s: float = 0.002
    lockout_processing_s: float = 0.0028
    lockout_processing_jitter_s: float = 0.0004
    debounce_s: float = 0.0015
    answer_processing_s: float = 0.0003


@dataclass
class WageringDevice(RegisterDevice):
    clock: DeviceClock
    rng: np.random.Generator
    seats: int = 7
    button_stake_cents: tuple[int, ...] = (100, 500, 200, 1000, 100, 2500, 100)
    injection: bool = False
    timing: WageringTiming = field(default_factory=WageringTiming)
    lockout_ignored: bool = False     # fault knob, for breaking the rig
    #: real players at the table: while betting is open they press their own buttons, a Poisson
    #: stream of this rate (world Hz) over ``foreign_seats`` — presses the rig did not make
    foreign_press_rate_hz: float = 0.0
    foreign_seats: tuple[int, ...] = (1,)
    #: the per-seat display registers (input 11–122: ``seat_press_count``, ``seat_last_*``), which
    #: the page calls informative and a map may leave out
    seat_registers: bool = True
    #: the table's stake limits (the terminal's configuration): a press outside them is refused
    min_stake_cents: int = 10
    max_stake_cents: int = 500_000
    #: the supervisor key (16 bytes; the device's configuration, as its button stakes)
    supervisor_key: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    name: str = "wagering"

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be 1..{MAX_SEATS}, got {self.seats}")
        if len(self.button_stake_cents) != self.seats:
            raise ValueError(f"one button stake per seat: {self.seats} seats, "
                             f"{len(self.button_stake_cents)} stakes")
        # 460..475 the button stakes, 476..479 the table's stake limits (the default map's optional group)
        inputs = ((Block(0, 123) if self.seat_registers else Block(0, 11)), Block(200, 256), Block(460, 20))
        holding = ((Block(0, 43),) if self.injection else ()) + (Block(ROUND_OPEN_SEQ, 1 + KEY_WORDS),)
        self.tables = {COILS: (Block(0, 2),), DISCRETE: (), HOLDING: holding, INPUT: inputs}
        if len(self.supervisor_key) != 16 or not any(self.supervisor_key):
            raise ValueError("the supervisor key is 16 bytes, not all zero")
        self.wrong_keys = 0
        self.key_locked_until_s: float | None = None
        self.ever_opened = False
        self.betting_open = False
        self.lockout_cmd_s: float | None = None     # world time of this round's first lock-out command
        self.lockout_eff_s: float | None = None
        self.presses: list[Press] = []                # registered, in press-time (= id) order
        self.scheduled: list[tuple[float, int, int, int, str]] = []  # probe presses not yet made
        self.holding = [0] * HOLDING_SIZE
        self.probe: dict | None = None
        self.scan_phase_s = float(self.rng.uniform(0.0, self.timing.scan_period_s))
        self.lockout_log: list[tuple[float, float | None]] = []     # ground truth (cmd, effective)

    # -- the firmware ---------------------------------------------------------------------------

    def _materialize(self, now_s: float) -> None:
        """Make the scheduled (probe) presses whose instant has come, in time order."""
        due = sorted(p for p in self.scheduled if p[0] <= now_s)
        if due:
            self.scheduled = [p for p in self.scheduled if p[0] > now_s]
            for t, seat, spot, stake, source in due:
                self._register(t, seat, spot, stake, source)

    def _decide(self, seat: int, stake: int, t: float) -> tuple[str, str]:
        if not 1 <= seat <= self.seats:
            return "rejected", "invalid_seat"
        if not self.min_stake_cents <= stake <= self.max_stake_cents:
            return "rejected", "invalid_stake"  # outside the table's limits (0: no stake)
        if not self.ever_opened:
            return "rejected", "betting_closed"
        if self.lockout_eff_s is not None and t >= self.lockout_eff_s and not self.lockout_ignored:
            return "rejected", "locked_out"
        return "accepted", "none"

    def _register(self, t: float, seat: int, spot: int, stake: int, source: str) -> Press:
        status, reason = self._decide(seat, stake, t)
        tm = self.timing
        p = Press(len(self.presses) + 1, seat, spot, stake, t, t + tm.debounce_s + tm.answer_processing_s, status,
                  reason, source)
        self.presses.append(p)
        return p

    def button(self, seat: int, spot: int, t: float, now_s: float) -> None:
        """A seat button's contact closes at world time ``t`` (≥ ``now_s``; the relay module calls
        this when its output rises)."""
        stake = self.button_stake_cents[seat - 1] if 1 <= seat <= self.seats else 0
        if t > now_s:   # a relay's operate time: the contact closes later
            self.scheduled.append((t, seat, spot, stake, "button"))
            return
        self._materialize(t)
        self._register(t, seat, spot, stake, "button")

    def _open_betting(self, now_s: float) -> None:
        self.ever_opened = True
        self.betting_open = True
        self.lockout_cmd_s = None
        self.lockout_eff_s = None
        # opening betting disarms the probe (offsets not yet pressed); a closing contact stays;
        # the table's real players take up a new round
        self.scheduled = [p for p in self.scheduled if p[4] not in ("probe", "player")]
        if self.foreign_press_rate_hz > 0:
            t = now_s
            for _ in range(1000):
                t += float(self.rng.exponential(1.0 / self.foreign_press_rate_hz))
                if t > now_s + 120.0:
                    break
                seat = int(self.rng.choice(self.foreign_seats))
                spot = int(self.rng.integers(8))
                self.scheduled.append((t, seat, spot, self.button_stake_cents[seat - 1], "player"))
        self.probe = None

    def _lock_out(self, now_s: float) -> None:
        if self.lockout_cmd_s is not None:
            return   # the round's first command counts; the latch is set
        tm = self.timing
        self.lockout_cmd_s = now_s
        proc = max(0.0, float(self.rng.normal(tm.lockout_processing_s, tm.lockout_processing_jitter_s)))
        ready = now_s + proc
        k = math.ceil((ready - self.scan_phase_s) / tm.scan_period_s)
        self.lockout_eff_s = self.scan_phase_s + k * tm.scan_period_s
        self.betting_open = False
        # the players stop pressing at "no more bets" (a late one still may: rejected)
        late = now_s + 0.3
        self.scheduled = [p for p in self.scheduled if p[4] != "player" or p[0] <= late]
        self.lockout_log.append((now_s, None if self.lockout_ignored else self.lockout_eff_s))
        if self.probe is not None:
            pr, self.probe = self.probe, None
            cmd_ns = self.clock.at(now_s)
            for off_us in pr["offsets_us"]:
                t = self.clock.world_of(cmd_ns + off_us * 1000)
                self.scheduled.append((t, pr["seat"], pr["spot"], pr["stake"], "probe"))

    # -- registers ------------------------------------------------------------------------------

    def write(self, table: str, address: int, values: list[int]) -> ExcCodes | None:
        now_s = self.clock.world.now_s()
        self._materialize(now_s)
        if table == COILS:
            if address + len(values) > 1:
                return ExcCodes.ILLEGAL_ADDRESS  # betting_open is read-only: a round opens by round_open
            if values[0]:
                self._lock_out(now_s)
            # a write of 0 changes nothing: betting closes only by the lock-out
            return None
        touched = range(address, address + len(values))
        if table == HOLDING and ROUND_OPEN_SEQ in touched:
            regs = list(self.holding)
            regs[address:address + len(values)] = values
            key = b"".join(w.to_bytes(2, "big") for w in regs[ROUND_OPEN_KEY:ROUND_OPEN_KEY + KEY_WORDS])
            if self.key_locked_until_s is not None and now_s < self.key_locked_until_s:
                return ExcCodes.DEVICE_BUSY
            if not hmac.compare_digest(key, self.supervisor_key):
                self.wrong_keys += 1
                if self.wrong_keys >= LOCK_AFTER:
                    self.wrong_keys, self.key_locked_until_s = 0, now_s + LOCK_S
                return ExcCodes.ILLEGAL_FUNCTION  # nothing changes
            self.wrong_keys, self.key_locked_until_s = 0, None
            if regs[ROUND_OPEN_SEQ] != self.holding[ROUND_OPEN_SEQ]:
                self._open_betting(now_s)
            regs[ROUND_OPEN_KEY:ROUND_OPEN_KEY + KEY_WORDS] = [0] * KEY_WORDS  # the key is never kept
            self.holding = regs
            return None
        if table == HOLDING and ROUND_OPEN_KEY <= address < HOLDING_SIZE:
            return None  # the key alone, without the command: kept nowhere, changes nothing
        if table == HOLDING and self.injection:
            regs = list(self.holding)
            regs[address:address + len(values)] = values
            # an enum code outside the table, or more than 16 offsets, is refused whatever else
            # the write carries, and changes nothing
            if (1 in touched and regs[1] >= len(SPOTS)) or (6 in touched and regs[6] >= len(SPOTS)) \
                    or (9 in touched and regs[9] > 16):
                return ExcCodes.ILLEGAL_VALUE
            # a stake outside the table's limits: refused, nothing pressed or armed (modbus-wagering.md)
            if (4 in touched and regs[4] != self.holding[4]
                    and not self.min_stake_cents <= from_words(regs[2:4]) <= self.max_stake_cents) \
                    or (42 in touched and regs[42] != self.holding[42] and regs[9]
                        and not self.min_stake_cents <= from_words(regs[7:9]) <= self.max_stake_cents):
                return ExcCodes.ILLEGAL_VALUE
            if 4 in touched and regs[4] != self.holding[4]:   # injected press
                self._register(now_s, regs[0], regs[1], from_words(regs[2:4]), "inject")
            if 42 in touched and regs[42] != self.holding[42]:  # arm the probe
                count = regs[9]
                offs = [from_words(regs[10 + 2 * i:12 + 2 * i]) for i in range(count)]
                self.probe = {"seat": regs[5], "spot": regs[6], "stake": from_words(regs[7:9]), "offsets_us": offs}
            self.holding = regs
            return None
        return ExcCodes.ILLEGAL_ADDRESS

    def _answered(self, now_s: float) -> list[Press]:
        n = len(self.presses)
        while n and self.presses[n - 1].answer_s > now_s:
            n -= 1
        return self.presses[:n]

    def read(self, table: str, address: int, count: int) -> list[int]:
        now_s = self.clock.world.now_s()
        self._materialize(now_s)
        if table == COILS:
            bits = [int(self.lockout_cmd_s is not None), int(self.betting_open)]
            return bits[address:address + count]
        if table == HOLDING:
            return self.holding[address:address + count]
        c = self.clock
        img = WordImage()
        done = self._answered(now_s)
        img.put(0, u16(self.seats))
        img.put(1, u32(len(done)))
        img.put(3, u64(c.at(self.lockout_cmd_s) if self.lockout_cmd_s is not None else 0))
        for seat in range(1, self.seats + 1):
            i = seat - 1
            mine = [p for p in done if p.seat == seat]
            img.put(11 + i, u16(len(mine)))
            if mine:
                p = mine[-1]
                img.put(19 + i, u16(STATUS[p.status]))
                img.put(27 + i, u16(REASON[p.reason]))
                img.put(35 + i, u16(p.spot))
                img.put(43 + 2 * i, u32(p.stake_cents))
                img.put(59 + 4 * i, u64(c.at(p.press_s)))
                img.put(91 + 4 * i, u64(c.at(p.answer_s)))
            img.put(460 + 2 * i, u32(self.button_stake_cents[i]))
        img.put(476, u32(self.min_stake_cents))
        img.put(478, u32(self.max_stake_cents))
        for p in done[-LOG_SIZE:]:
            e = (p.press_id - 1) % LOG_SIZE
            img.put(200 + 2 * e, u32(p.press_id))
            img.put(232 + e, u16(p.seat))
            img.put(248 + e, u16(p.spot))
            img.put(264 + 2 * e, u32(p.stake_cents))
            img.put(296 + e, u16(STATUS[p.status]))
            img.put(312 + e, u16(REASON[p.reason]))
            img.put(328 + 4 * e, u64(c.at(p.press_s)))
            img.put(392 + 4 * e, u64(c.at(p.answer_s)))
        img.put(7, u64(c.at(now_s)))
        return img.get(address, count)


@dataclass
class RelayModule(RegisterDevice):
    """A digital-output module; its outputs are wired across the wagering device's buttons."""

    clock: DeviceClock
    rng: np.random.Generator
    device: WageringDevice
    outputs: int = 80          # five 16-channel cards on one coupler
    operate_s: float = 0.0     # output set -> contact closed (0: solid-state outputs)
    operate_jitter_s: float = 0.0
    #: contact bounce the device's debounce does not swallow: each closing registers a second
    #: press this long after the first (0: none — a clean contact)
    bounce_s: float = 0.0
    wiring: dict[int, tuple[int, int]] | None = None   # coil -> (seat, spot code); None: default
    buttons_per_seat: int = 8  # the Crazy Time options (a Roulette Up terminal would have 9)
    name: str = "relay-module"

    def __post_init__(self) -> None:
        self.tables = {COILS: (Block(0, self.outputs),), DISCRETE: (), HOLDING: (), INPUT: ()}
        self.state = [0] * self.outputs
        if self.wiring is None:
            # the default wiring (docs/wire/actuator.md): coil (s − 1) × 9 + k; a Crazy Time bet
            # terminal has the eight betting options' buttons, so k = 8 (roulette-up) is not wired
            self.wiring = {(s - 1) * len(SPOTS) + k: (s, k)
                           for s in range(1, self.device.seats + 1) for k in range(self.buttons_per_seat)}
        self.edges: list[tuple[int, float]] = []   # ground truth: (coil, world time the contact closed)

    def write(self, table: str, address: int, values: list[int]) -> ExcCodes | None:
        if table != COILS:
            return ExcCodes.ILLEGAL_ADDRESS
        now_s = self.clock.world.now_s()
        for i, v in enumerate(values):
            n = address + i
            if v and not self.state[n] and n in self.wiring:  # type: ignore[operator]
                t = now_s + max(0.0, self.operate_s + float(self.rng.uniform(-1, 1)) * self.operate_jitter_s)
                seat, spot = self.wiring[n]  # type: ignore[index]
                self.edges.append((n, t))
                self.device.button(seat, spot, t, now_s)
                if self.bounce_s > 0:
                    self.device.button(seat, spot, t + self.bounce_s, now_s)
            self.state[n] = int(bool(v))
        return None

    def read(self, table: str, address: int, count: int) -> list[int]:
        return self.state[address:address + count]
