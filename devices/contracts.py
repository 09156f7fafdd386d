"""Device contracts: what the croupier (``hil.controller``) may ask of each device.

One ``typing.Protocol`` per device; the SimPy models in this package implement them, and
the real-device adapters in ``hil`` (Modbus, serial) implement them too. The bench file
picks one per device: simulation is another implementation, never an ``if simulate:``.

Conventions shared by every device:

* Commands return a ``simpy.Event`` that succeeds with a frozen result dataclass when the
  device reports completion. A device that never reports leaves the event untriggered: the
  controller waits with its own timeout (``event | env.timeout(t)``), never forever.
* Everything a device reports is also pushed, as it happens, into the ``Telemetry`` sink the
  bench gave it: ``telemetry(device, kind, payload)``. The sink stamps simulated time and
  wall-clock ns and appends to the trace. Payloads are JSON-able dicts; ``device_time_s`` in a
  payload is the device's own clock (for a sim model, ``env.now`` at the moment it happened).
* Telemetry kinds are fixed strings listed on each Protocol; checks rely on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Callable, Literal, Protocol, runtime_checkable

import simpy

from rules.frozen import quick_init

Direction = Literal["cw", "ccw"]

#: ``telemetry(device_name, kind, payload)`` — supplied by the bench, writes to the trace.
Telemetry = Callable[[str, str, dict[str, Any]], None]


# --------------------------------------------------------------------------- money wheel
@dataclass(frozen=True)
class WheelInfo:
    """What the wheel declares about itself (recorded at bench start, kind ``device_info``)."""

    model: str
    sections: tuple[str, ...]  # spot ids clockwise from section index 0 ("1", "2", ..., "crazy-time")
    diameter_m: float
    pegs: int


@dataclass(frozen=True)
class SpinStop:
    """Result of one spin as the wheel reports it (telemetry kind ``spin_stop``)."""

    spin_id: int
    section_index: int  # index into WheelInfo.sections of the section under the clapper
    spot: str  # WheelInfo.sections[section_index]
    on_peg: bool  # clapper resting on a peg top = between two sections (§ 690.2(d))
    revolutions: float  # total rotation of the wheel during the spin, in turns
    direction: Direction
    duration_s: float  # from spin start to rest
    pegs_passed: int
    start_time_s: float  # device clock
    stop_time_s: float  # device clock


@runtime_checkable
class MoneyWheel(Protocol):
    """The Crazy Time money wheel with its clapper (§ 690.1, § 690.2).

    Telemetry kinds: ``device_info`` (once, at bench start), ``spin_start``
    (``spin_id``, ``direction``, ``device_time_s``), ``index_pulse`` (one per turn of the
    wheel past its index sensor: ``spin_id``, ``count``, ``device_time_s``), ``spin_stop``
    (the ``SpinStop`` fields).
    """

    name: str

    def info(self) -> WheelInfo: ...

    def spin(self, direction: Direction) -> simpy.Event:
        """The dealer pushes the wheel now; the event succeeds with ``SpinStop`` at rest."""
        ...


# --------------------------------------------------------------------------- Top Slot
@dataclass(frozen=True)
class TopSlotStop:
    """Result of one Top Slot spin (telemetry kind ``top_slot_stop``), § 690.3."""

    spin_id: int
    spot: str  # reel 1: the betting option shown on the payline
    multiplier: int  # reel 2: the multiplier shown on the payline
    aligned: bool  # both reels stopped on a symbol on the payline (§ 690.3(c)(1))
    reel1_steps: int  # symbols each reel travelled during the spin (0 = did not move)
    reel2_steps: int
    start_time_s: float
    stop_time_s: float


@runtime_checkable
class TopSlot(Protocol):
    """Top Slot multiplier (§ 690.3).

    Telemetry kinds: ``device_info`` (``reel1``, ``reel2``), ``top_slot_start``
    (``spin_id``, ``device_time_s``), ``top_slot_stop`` (the ``TopSlotStop`` fields).
    """

    name: str

    def spin(self) -> simpy.Event:
        """Commanded now (together with the wheel); succeeds with ``TopSlotStop``."""
        ...


# --------------------------------------------------------------------------- wagering device
@quick_init
@dataclass(frozen=True)
class PressAnswer:
    """A seat's wager press and the device's answer (telemetry kind ``press``)."""

    press_id: int
    seat: int
    spot: str
    stake_cents: int
    accepted: bool
    device_time_s: float  # when the press reached the device (its timestamp)
    answer_time_s: float  # when the device answered
    reason: str | None  # why rejected: "locked_out", "betting_closed", "invalid_seat", ...


@runtime_checkable
class WageringDevice(Protocol):
    """Per-seat wagering buttons / bet terminals with the dealer's lock-out.

    Telemetry kinds: ``device_info`` (``seats``; ``button_stake_cents``: each seat's button stake,
    where the device reports it), ``betting_open`` (``device_time_s``), ``lockout_command``
    (``device_time_s`` the command reached the device; a real device's adapter adds
    ``command_lo_s`` / ``command_hi_s``, the rig's bracket of the command write), ``press`` (the
    ``PressAnswer`` fields). The moment the lock-out *takes effect* inside the device is not
    observable on a real device and is not reported: the rig measures it from presses.

    Every press the device answers — a player's at its seat buttons, the rig's through an
    ``Actuator`` wired to those buttons, or one injected — is its press log, passed to each
    ``watch`` callback. ``press`` and ``arm_probe`` are the optional *injection feature*
    (``injection`` True): a black-box device has neither and is pressed through an actuator
    (docs/wire/actuator.md).
    """

    name: str
    #: the device has the injection feature (``press``, ``arm_probe``)
    injection: bool

    def watch(self, callback: Callable[[PressAnswer], None]) -> None:
        """Call ``callback`` with every press the device answers from now on, whoever pressed, in
        the simulation thread, in the order the device answered them."""
        ...

    def open_betting(self) -> None:
        """Re-enable wagering for a new round."""
        ...

    def lock_out(self) -> None:
        """The dealer's lock-out command, sent now; takes effect after the device's latency."""
        ...

    def press(self, seat: int, spot: str, stake_cents: int) -> simpy.Event:
        """A seat presses now to wager; succeeds with ``PressAnswer``."""
        ...

    def arm_probe(self, seat: int, spot: str, stake_cents: int, offsets_s: Sequence[float]) -> list[simpy.Event]:
        """The rig's press actuator, triggered by the lock-out: after the next lock-out command
        reaches the device, press ``seat`` at each offset (s, >= 0, device-timed — so the
        measurement of where the device stops recognising wagers does not depend on the link).
        One event per press, succeeding with its ``PressAnswer``."""
        ...


# --------------------------------------------------------------------------- actuator (docs/wire/actuator.md)
@dataclass(frozen=True)
class Actuation:
    """One press of a seat button by the rig's actuator (telemetry kind ``actuation``): the output
    wired across the button's contact closed inside [``closed_lo_s``, ``closed_hi_s``] (the rig's
    time: the output write's round trip, widened by the contact's delay and its spread), and opened
    again at ``opened_s`` (None until then). ``ok`` False: the output could not be set (a wire
    fault; ``detail`` says why) and the button was not pressed."""

    actuation_id: int
    seat: int
    spot: str
    coil: int
    purpose: str  # "player" | "probe"
    closed_lo_s: float
    closed_hi_s: float
    ok: bool = True
    detail: str | None = None

    @property
    def uncertainty_s(self) -> float:
        return (self.closed_hi_s - self.closed_lo_s) / 2


@runtime_checkable
class Actuator(Protocol):
    """The rig's relay / digital-output module, its outputs wired across a wagering device's seat
    buttons (docs/wire/actuator.md). A press closes the button's output for ``pulse_s``.

    Telemetry kinds: ``device_info`` (``kind``, ``coils``: the wiring ``"SEAT:SPOT"`` -> coil,
    ``pulse_s``, ``contact_delay_s``, ``contact_jitter_s``, ``match_window_s``), ``actuation`` (the
    ``Actuation`` fields and ``uncertainty_s``, once the closing is bracketed), ``wire_fault``.
    """

    name: str
    #: a log entry up to this long after the contact closed may be that press (the device's debounce)
    match_window_s: float

    def wired(self, seat: int, spot: str) -> bool:
        """Whether seat ``seat``'s button for ``spot`` has an output wired across it."""
        ...

    def press(self, seat: int, spot: str, purpose: str = "player") -> simpy.Event:
        """Press that button now (after the same button's previous press has ended); succeeds with
        the ``Actuation`` once its closing is bracketed."""
        ...


# --------------------------------------------------------------------------- bonus games
# §§ 690.5–690.8. Boards are tuples of ints, one per cell, ``rules.bonus.DOUBLE`` (0) = "Double".
# Games are named by their betting option: "coin-flip", "cash-hunt", "pachinko", "crazy-time".
@dataclass(frozen=True)
class BoardShown:
    """A bonus game's multipliers as the RNG multiplier board shows them (telemetry kinds
    ``board_generated`` and ``board_multiplied``)."""

    board_id: int
    game: str
    values: tuple[int, ...]  # coin flip: (red, blue); Cash Hunt: 108; Pachinko: spots 1..16; CTW: sections 0..63
    multiplier: int  # the Top Slot multiplier applied to ``values`` (1: none applied)
    device_time_s: float  # when the board drew (``board_generated``) or showed (``board_multiplied``) them


@dataclass(frozen=True)
class BoardDraw:
    """A random selection by the multiplier board's RNG (telemetry kind ``board_draw``).

    ``purpose``: ``"shuffle"`` (Cash Hunt: ``value`` is the permutation, symbol ``s`` covers cell
    ``value[s]``), ``"drop_zone"`` (Pachinko: ``value`` is a landing spot number 4..13),
    ``"auto_pick"`` (a player who did not pick in time: ``value`` in ``range(n)``),
    ``"rescue"`` (``value`` 1: a Rescue Flip / Drop is activated, 0: not)."""

    board_id: int
    purpose: str
    n: int  # size of the range drawn from (2 for "rescue", 10 for "drop_zone")
    value: int | tuple[int, ...]
    device_time_s: float


@runtime_checkable
class MultiplierBoard(Protocol):
    """The RNG multiplier board of the bonus games: draws the multipliers from the Rules
    Submission's distributions with its seeded RNG, shows them, applies the Top Slot multiplier,
    and makes the bonus games' other random selections.

    Telemetry kinds: ``device_info`` (``games``), ``board_generated`` / ``board_multiplied``
    (``BoardShown`` fields), ``board_draw`` (``BoardDraw`` fields).
    """

    name: str

    def generate(self, game: str) -> simpy.Event:
        """Draw and show a new board for ``game``; succeeds with ``BoardShown`` (multiplier 1)."""
        ...

    def apply_multiplier(self, board_id: int, multiplier: int) -> simpy.Event:
        """Multiply every multiplier on the board (not "Double") by the Top Slot multiplier and
        show the result; succeeds with ``BoardShown``."""
        ...

    def shuffle(self, board_id: int) -> simpy.Event:
        """Cash Hunt: cover the multipliers with symbols and shuffle them; ``BoardDraw``."""
        ...

    def draw(self, board_id: int, purpose: str, n: int) -> simpy.Event:
        """A uniform random selection in ``range(n)`` (``"drop_zone"``: a zone 4..13); ``BoardDraw``."""
        ...

    def rescue(self, board_id: int) -> simpy.Event:
        """Whether a Rescue Flip / Rescue Drop is activated (the PAR's probability); ``BoardDraw``."""
        ...


@dataclass(frozen=True)
class CoinFlipResult:
    """One flip of the coin (telemetry kind ``coin_flip_stop``), § 690.5(d)."""

    flip_id: int
    face: str  # the side face up at rest: "red" | "blue"
    start_face: str  # the side face up when launched
    half_turns: int  # half revolutions the coin made in the air
    launch_speed_mps: float
    spin_rate_rps: float
    start_time_s: float
    stop_time_s: float


@runtime_checkable
class CoinFlipper(Protocol):
    """The Coin Flip's mechanical coin flipper (§ 690.5(b), (d)).

    Telemetry kinds: ``device_info`` (``sides``), ``coin_flip_start`` (``flip_id``,
    ``device_time_s``), ``coin_flip_stop`` (the ``CoinFlipResult`` fields).
    """

    name: str

    def flip(self) -> simpy.Event:
        """Launch the coin now; succeeds with ``CoinFlipResult`` when it rests."""
        ...


@dataclass(frozen=True)
class PuckLanding:
    """One puck drop on the Pachinko board (telemetry kind ``puck_landed``), § 690.7(d)."""

    drop_id: int
    zone: int  # the release point: above landing spot 4..13
    spot: int  # the landing spot it came to rest in, 1..16
    path: str  # one letter per peg row, "L" or "R"
    start_time_s: float
    stop_time_s: float


@runtime_checkable
class PachinkoBoard(Protocol):
    """The Pachinko wall (§ 690.7(b)): a peg lattice above 16 landing spots.

    Telemetry kinds: ``device_info`` (``rows``, ``spots``, ``zones``), ``puck_drop``
    (``drop_id``, ``zone``, ``device_time_s``), ``puck_landed`` (the ``PuckLanding`` fields).
    """

    name: str

    def drop(self, zone: int) -> simpy.Event:
        """Release the puck above landing spot ``zone`` now; succeeds with ``PuckLanding``."""
        ...


@dataclass(frozen=True)
class CtwStop:
    """One spin of the Crazy Time World virtual wheel (telemetry kind ``ctw_stop``), § 690.8(d)."""

    spin_id: int
    sections: tuple[int, ...]  # the section (0..63) under clapper 1, 2, 3
    turns: float  # rotation during the spin, in turns
    start_time_s: float
    stop_time_s: float


@runtime_checkable
class CrazyTimeWorldWheel(Protocol):
    """The Crazy Time World virtual wheel with its three clappers (§ 690.8(b)).

    Telemetry kinds: ``device_info`` (``sections``, ``clappers``: the section under each clapper
    at rest position 0), ``ctw_start`` (``spin_id``, ``device_time_s``), ``ctw_stop`` (the
    ``CtwStop`` fields).
    """

    name: str

    def spin(self) -> simpy.Event:
        """The presenter presses the button (§ 690.8(d)); succeeds with ``CtwStop`` at rest."""
        ...


# --------------------------------------------------------------------------- lock-out counter
@runtime_checkable
class LockoutCounter(Protocol):
    """An optional instrument: a time-interval counter from the dealer's lock-out button edge to
    the wagering device's lock-out indicator edge — a lock-out latency independent of the rig's
    press bracketing, of the link and of the device's clock.

    Telemetry kinds: ``device_info`` (``idn``), ``lockout_interval`` (``interval_s``),
    ``instrument_fault`` (``detail``).
    """

    name: str

    def measure(self) -> simpy.Event:
        """Read the interval of the lock-out just commanded; succeeds with it in seconds."""
        ...


# --------------------------------------------------------------------------- roulette (§§ 617b.4–617b.5)
# A pocket is an ``int`` 0–36 or the string ``"00"`` (``rules.roulette.Pocket``): "00" is announced and
# written as a string, and cannot be compared with an ``int`` by accident.
@dataclass(frozen=True)
class BallResult:
    """One spin of the Roulette ball as the wheel reports it (telemetry kind ``ball_result``).

    The number is the pocket the ball comes to rest in (§ 617a.5(c), as used by § 617b.4(f) and
    § 617b.5(e)). ``misspin`` is the rig's policy, not the regulation's (§ 617b does not define a
    misspin): the ball was not launched, or made fewer revolutions on the rim than the bench's minimum
    (3 by default); the controller voids and respins it."""

    spin_id: int
    pocket: int | str  # 0–36, or "00" on a double zero wheel
    pocket_index: int  # position on the wheel: index into device_info's ``pockets`` (clockwise from 0)
    #: turns the ball made on the rim, launch to drop (0 if never launched; None if the wheel does
    #: not report it — the vendor serial protocol: its own misspin judgement is ``misspin``)
    ball_revolutions: float | None
    rotor_direction: Direction  # the ball runs the other way
    misspin: bool
    launch_speed_rps: float  # ball speed on the rim at launch, rev/s (0 if never launched)
    rotor_speed_rps: float  # rotor speed at launch, rev/s
    start_time_s: float  # device clock: the spin command reached the wheel
    launch_time_s: float | None  # the ball left the launcher (None: launch failure)
    drop_time_s: float | None  # the ball left the rim (None: never launched)
    stop_time_s: float  # the ball at rest in ``pocket``


@runtime_checkable
class RouletteWheel(Protocol):
    """An automatic Roulette wheel with its ball launcher (§§ 617b.4(a), 617b.5(c)).

    Telemetry kinds: ``device_info`` (once, at bench start: ``model``, ``wheel`` "single-zero" |
    "double-zero", ``pockets``: the numbers in their order around the wheel, clockwise from 0),
    ``ball_launch`` (``spin_id``, ``rotor_direction``, ``launch_speed_rps``, ``device_time_s``),
    ``ball_drop`` (the ball leaves the rim: ``spin_id``, ``ball_revolutions``, ``device_time_s``),
    ``ball_result`` (the ``BallResult`` fields).
    """

    name: str

    def spin(self) -> simpy.Event:
        """Start the rotor and launch the ball now; succeeds with ``BallResult`` at rest."""
        ...


@dataclass(frozen=True)
class Illumination:
    """The Roulette X multipliers the random number generator selected and lit (telemetry kind
    ``illumination``), § 617b.5(d): between 2 and 5 numbers, each with its increased payout."""

    illumination_id: int
    numbers: tuple[int | str, ...]  # the lit numbers (pockets), in the order drawn
    multipliers: tuple[int, ...]  # the "N to 1" payout shown on each (N), same order
    device_time_s: float  # when the generator drew them (§ 617b.5(d): after all wagers are placed)


@runtime_checkable
class MultiplierIlluminator(Protocol):
    """The Roulette X random number generator with the layout's multiplier lights (§ 617b.5(b), (d)).

    Telemetry kinds: ``device_info`` (``wheel``, ``paytable``, ``multipliers``: the paytable's
    payouts), ``illumination`` (the ``Illumination`` fields), reported when lit.
    """

    name: str

    def illuminate(self) -> simpy.Event:
        """Initiate the generator now; succeeds with ``Illumination`` once the numbers are lit."""
        ...


def payload(result: object) -> dict[str, Any]:
    """A result dataclass as a telemetry payload. The results above are flat (no nested
    dataclasses), so a shallow copy suffices — ``dataclasses.asdict`` deep-copies and costs
    ~20 µs per call on the hot path of every press."""
    return dict(vars(result))


# --------------------------------------------------------------------------- progressive table game system
# § 605a.7 as used by §§ 617b.4(c), 633b.17(c), 633b.18(d), 633b.21(a): a wagering device at each
# betting position, the dealer's lock-out, a win light per seat, one or more meters; linked tables
# (§ 605a.8) share one controller holding the meters. Meter values are integer cents; the exact
# fractions of a cent the increments leave are carried by the controller, never rounded away.
@dataclass(frozen=True)
class MeterReading:
    """The progressive meters as the table's system shows them (telemetry kind ``meter_reading``)."""

    meters: dict[str, int]  # meter name -> cents shown, in the controller's order
    link_up: bool  # False: the link to the controller is lost and ``meters`` are the last values shown
    device_time_s: float  # when the reading was taken


@dataclass(frozen=True)
class MeterPayout:
    """A meter paid and reseeded (telemetry kind ``meter_hit``). ``percent`` of the meter is shared
    equally by ``winners`` in whole cents (§ 633b.18(j), § 633b.21(e)(3)); the cents that do not
    split equally (``remainder_cents``) stay on the meter. At 100 % the meter is reseeded
    (``reseed_cents``, funded by the reserve as far as it goes); below 100 % the paid amount is
    deducted and nothing is reseeded (``reseed_cents`` 0)."""

    pay_id: int  # counts up from 1 per controller
    meter: str
    percent: int  # 1..100: the share of the meter won ("100% of progressive meter")
    winners: int
    jackpot_cents: int  # the meter when paid
    paid_cents: int  # paid to each winner
    remainder_cents: int
    reseed_cents: int
    value_cents: int  # the meter after the payout
    reserve_cents: int  # the meter's reserve after funding the reseed
    device_time_s: float  # when the meter was paid


@runtime_checkable
class ProgressiveSystem(WageringDevice, Protocol):
    """A table's progressive table game system: the ``WageringDevice`` of each betting position
    (a press is a progressive wager; an accepted one increments every meter) with the dealer's
    lock-out, a win light per seat, and the meters of its controller.

    Telemetry kinds: ``device_info`` (``seats``; ``meters``: each meter's ``name``,
    ``seed_cents``, ``reseed_cents``, ``increment_rate`` and ``reserve_rate`` as exact fractions of
    the wager, e.g. ``"1/5"``; ``linked``: a linked progressive, § 605a.8; ``link_id``),
    ``betting_open``, ``lockout_command``, ``press`` (as ``WageringDevice``; a press refused while
    the link to the controller is lost has reason ``"link_lost"``), ``meter_increment`` (for every
    accepted wager the dealer confirmed, one per meter: ``press_id``, ``meter``, ``amount_cents`` the
    cents shown grew by, ``value_cents`` shown after, ``device_time_s`` of the confirmation),
    ``press_void`` (``press_id``, ``reason``, ``device_time_s``: an accepted press never confirmed —
    the rig's probe, a press after "no more bets" — dropped without touching a meter),
    ``confirm_refused`` (``press_id``, ``device_time_s``: a confirmation of a press not pending), ``win_light`` (``seat``, ``on``, ``device_time_s``; only when
    the light changes), ``meter_reading`` (``MeterReading``), ``meter_hit`` (``MeterPayout``),
    ``link_lost`` (``device_time_s``), ``link_restored`` (``device_time_s``, ``meters``: the values
    re-read from the controller), ``power_loss`` (``device_time_s``).
    """

    def confirm_wagers(self, press_ids: Sequence[int]) -> simpy.Event:
        """The dealer's confirmation, after "no more bets", of the presses that are players' wagers:
        only these increment the meters; every other accepted press of the round is dropped
        (``press_void``). Succeeds with the tuple of press ids that incremented."""
        ...

    def light_win(self, seat: int, on: bool) -> simpy.Event:
        """Light (or put out) ``seat``'s win light now — the light the dealer verifies before a
        progressive payout (§ 633b.17(f)(2), § 633b.18(h)(2)); succeeds with ``on`` once the
        system shows it (its ``win_light`` report, if the light changed, comes first)."""
        ...

    def meters(self) -> simpy.Event:
        """Read the meters now; succeeds with ``MeterReading``."""
        ...

    def pay_meter(self, meter: str, percent: int, winners: int) -> simpy.Event:
        """Pay ``percent`` of ``meter``, shared by ``winners``, and reseed it (at 100 %); succeeds
        with ``MeterPayout``."""
        ...
