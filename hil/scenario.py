"""Scenario files: YAML with a schema version, validated at load (file, line and field).

A scenario says how to drive the table (rounds, seed, the croupier's timing, the players'
betting behaviour, the lock-out probing), what to change on the bench (``bench``: parameter
overrides; ``faults``: fault knobs, per device role, and ``croupier`` for dealer-procedure
faults) and what it expects of the checks (``expect.fail``: the check ids that must FAIL;
``expect.pass``: the check ids it exists to decide, which must PASS; every other check must not
fail). See ``docs/scenarios.md``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import ConfigDict, Field

from hil.bench import GAME_ROLES, check_params
from hil.checks import CHECK_IDS, checks_for
from hil.config import ConfigError, config_error, did_you_mean, dotted, parse_yaml, read_text, validate

_STRICT = ConfigDict(extra="forbid", frozen=True)
#: Upper bounds of a scenario's magnitudes (a value past them is a typo, never a test): a step of the
#: croupier's procedure (a betting window, a timeout, a pause) lasts at most an hour; a stake or a
#: payout error at most 10,000,000.00 (cents); a player makes at most 1,000 wagers a round.
MAX_STEP_S = 3_600.0
MAX_STAKE_CENTS = 1_000_000_000
MAX_WAGERS_PER_PLAYER = 1_000


class Players(pydantic.BaseModel):
    """The players' betting behaviour (§ 690.2: wagers are placed before "no more bets")."""

    model_config = _STRICT
    count: int = Field(6, ge=0, le=64)  # seats at the bench's wagering device: ``check_against_bench``
    wagers_per_player: tuple[int, int] = (1, 3)
    stake_cents: tuple[int, int] = (100, 5_000)
    #: probability that a player presses once more just after "no more bets" (a late wager,
    #: which the wagering device must reject once its lock-out took effect)
    late_press_probability: float = Field(0.02, ge=0, le=1)
    late_press_window_s: float = Field(0.5, gt=0, le=60)
    #: a press the rig did not make (a real player at the table, docs/wire/actuator.md): ``refuse``
    #: (recorded ``wager_rejected``, reason "not made by the rig") or ``settle`` (a wager like the
    #: players' when the device accepted it before "no more bets"); either way it is recorded
    #: (``press_attributed``, by ``foreign``) and never silently dropped
    foreign_presses: Literal["refuse", "settle"] = "refuse"
    #: Cash Hunt / Crazy Time World: probability that a player selects before the countdown
    #: ends (§ 690.6(d), § 690.8(c)); the others get a random selection
    pick_probability: float = Field(0.9, ge=0, le=1)
    #: Roulette: probability that a player also places a Roulette Up wager while the streak tracker
    #: is empty (§ 617b.4(d)); ``roulette_up_late_probability``: that a player tries one while a streak
    #: is running (the croupier must refuse it)
    roulette_up_probability: float = Field(0.5, ge=0, le=1)
    roulette_up_late_probability: float = Field(0.05, ge=0, le=1)
    #: Blackjack: probability that a player places the progressive wager / each chip side wager
    progressive_probability: float = Field(0.6, ge=0, le=1)
    side_probability: float = Field(0.4, ge=0, le=1)
    #: (UTH, Criss-Cross: ``side_probability`` is each offered side wager's; Crazy 4: each optional
    #: wager's — Queens Up, the progressive chip, the Five Card Hand Bonus.)
    #: Crazy 4: probability that a player makes one request the rules refuse (§ 657a.7: a verbal
    #: wager with cash, a bystander, a second position, unequal Ante and Super Bonus, an optional
    #: wager first, a Play Wager before "no more bets", a wager after it, …); ``play_probability``:
    #: that a player whose position stands makes the Play Wager after "no more bets"
    misplay_probability: float = Field(0.1, ge=0, le=1)
    play_probability: float = Field(0.7, ge=0, le=1)

    @pydantic.model_validator(mode="after")
    def _ranges(self) -> Players:
        for name, most in (("wagers_per_player", MAX_WAGERS_PER_PLAYER), ("stake_cents", MAX_STAKE_CENTS)):
            lo, hi = getattr(self, name)
            if not 0 <= lo <= hi <= most:
                raise ValueError(f"{name}: need 0 <= low <= high <= {most:,}, got [{lo}, {hi}]")
        return self


class LockoutProbe(pydantic.BaseModel):
    """Seat presses the rig injects around the lock-out command to find the boundary where the
    device stops recognising wagers (``hil.lockout.BoundarySearch``)."""

    model_config = _STRICT
    presses: int = Field(8, ge=2, le=200)  # per round
    #: the finest spacing: the resolution of each round's bracket (at most 0.1 s: 200 presses span 20 s)
    step_s: float = Field(0.0005, gt=0, le=0.1)
    #: the rig's actuator presses this seat (seats count from 1; at most the bench's: ``check_against_bench``)
    seat: int = Field(7, ge=1, le=64)
    stake_cents: int = Field(100, gt=0, le=MAX_STAKE_CENTS)


class Lockout(pydantic.BaseModel):
    model_config = _STRICT
    #: the latency the device may take to lock out after the command (the scenario's budget)
    budget_s: float = Field(0.010, gt=0, le=10)
    probe: LockoutProbe | None = LockoutProbe()


class Adversary(pydantic.BaseModel):
    """The late-bet adversary (``hil.adversary``): each round the rig makes ``attempts_per_round``
    wager attempts at seeded random offsets from "no more bets" in [-before, +after]
    (``window_s``), at one seat, through the same path as the players' (the actuator, or the
    device's press injection; at a card table without a wagering device, chips on the layout or
    Crazy 4 requests), and records each attempt and what the device answered. Judged by the
    table's ``*-late-bets`` check (docs/scenarios.md, "The late-bet adversary")."""

    model_config = _STRICT
    attempts_per_round: int = Field(20, ge=1, le=10_000)
    #: seconds before and after "no more bets" the attempts span (each >= 0, finite)
    window_s: tuple[float, float] = (0.010, 0.020)
    #: the adversary's own random stream (its offsets never move the croupier's or the players' draws)
    seed: int = Field(0, ge=0, lt=2**63)
    #: the seat it presses (a player's seat, never the lock-out probe's); default: the last player's.
    #: Crazy 4: the position it wagers at, as player ``ADV`` (default: the empty one after the last seat)
    seat: int | None = Field(None, ge=1, le=64)
    #: at most this many presses issued and not yet answered; a press due meanwhile waits for one (a
    #: real device's link carries one request at a time). None: every press at its instant
    max_in_flight: int | None = Field(None, ge=1, le=1_000)

    @pydantic.model_validator(mode="after")
    def _window(self) -> Adversary:
        import math

        before, after = self.window_s
        if not (math.isfinite(before) and math.isfinite(after)) or before < 0 or after < 0 or before + after <= 0:
            raise ValueError(f"window_s: need [before, after] finite, >= 0 and not both 0, got [{before}, {after}]")
        return self


class Croupier(pydantic.BaseModel):
    """The croupier's procedure timing (the rig's own part)."""

    model_config = _STRICT
    betting_window_s: float = Field(15.0, gt=0, le=MAX_STEP_S)
    spin_delay_s: float = Field(1.0, ge=0, le=600)  # "no more bets" -> push
    respin_limit: int = Field(3, ge=0, le=100)  # void spins respun at most this many times per round
    direction: Literal["alternate", "cw", "ccw", "random"] = "alternate"
    spin_timeout_s: float = Field(120.0, gt=0, le=MAX_STEP_S)
    #: a wheel that powered off: how long the croupier waits for it to power up (once), then voids
    power_up_timeout_s: float = Field(60.0, gt=0, le=MAX_STEP_S)
    top_slot_timeout_s: float = Field(60.0, gt=0, le=MAX_STEP_S)
    between_rounds_s: float = Field(5.0, ge=0, le=MAX_STEP_S)
    #: the countdown timers of § 690.6(d) and § 690.8(c)
    cash_hunt_countdown_s: float = Field(15.0, gt=0, le=600)
    ctw_countdown_s: float = Field(10.0, gt=0, le=600)
    #: how long the croupier waits for a bonus device's answer before voiding the round
    bonus_timeout_s: float = Field(60.0, gt=0, le=MAX_STEP_S)
    #: a lab's forced-outcome test mode: every round is settled (and its bonus game played) as if
    #: the wheel had come to rest on this betting option; the wheel is still spun and validated
    #: and the trace records the forced outcome (``forced_result``). Never in production.
    force_result: Literal["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"] | None = None


class CroupierFaults(pydantic.BaseModel):
    """Dealer-procedure faults: a wrong croupier (or game system) that the checks must catch."""

    model_config = _STRICT
    announce_after_spin: bool = False  # "no more bets" only after the push (§ 690.2(a))
    skip_revolution_check: bool = False  # settles spins of < 3 revolutions (§ 690.2(b))
    settle_between_sections: bool = False  # settles an on-peg spin on the section before (§ 690.2(d))
    pay_before_collect: bool = False  # pays winners before collecting losers (§ 690.2(e)-(f))
    #: turns every press the device accepted into a wager: late ones (inside the device's lock-out
    #: latency) and the rig's own probe presses too (§ 690.2(a), § 617b.4(c)(2), § 633b.17(c)(2))
    settle_late_presses: bool = False
    #: drops a press the rig did not make (a real player's) without settling or refusing it
    ignore_foreign_presses: bool = False
    #: a card table's dealer takes chips placed on the layout after "no more bets" as wagers (UTH,
    #: Criss-Cross: § 653b.4(c), § 653b.5(c), § 674b.1(c))
    accept_late_chips: bool = False
    #: a card (or Roulette) table's dealer confirms to the progressive system the presses it refused as
    #: not made by the rig (a real player's), so the meters grow from presses that are no wager
    #: (§ 633b.17(h), § 617b.4(h)(2))
    confirm_foreign_presses: bool = False
    payout_error_cents: int = Field(0, ge=-MAX_STAKE_CENTS, le=MAX_STAKE_CENTS)  # added to every winning payment (§ 690.4)
    ignore_top_slot: bool = False  # settles without the Top Slot multiplier (§ 690.3(c)(1))
    #: applies reel 2's multiplier to reel 1's betting option although the reels do not align (§ 690.3(c)(2))
    top_slot_unaligned_applied: bool = False
    #: settles wagers below the minimum or above the maximum wager instead of refusing them (§ 690.1(g)(4))
    accept_outside_limits: bool = False
    ignore_payout_limit: bool = False  # pays past the maximum payout limit per round (§ 690.1(g)(4))
    #: plays the bonus game before collecting the losing wagers; a void bonus game then refunds every
    #: wager of the round, the losing ones too (§ 690.2(f))
    bonus_before_collect: bool = False
    # ---- bonus games (§§ 690.5–690.8)
    late_top_slot: bool = False  # applies the Top Slot multiplier after the flip / drop / countdown began
    rescue_ineligible: bool = False  # asks for a Rescue Flip / Drop whatever the landing (§ 690.5(f), § 690.7(g))
    skip_double_doubling: bool = False  # a Double replaces itself but does not double the others (§ 690.7(e), § 690.8(e))
    ctw_all_players_continue: bool = False  # every Crazy Time World player takes the respin's result (§ 690.8(e)(2))
    cash_hunt_shared_pick: bool = False  # every Cash Hunt player settled on the first pick (§ 690.6(f))
    drop_zone_outside: bool = False  # drops the puck above landing spot 1 (§ 690.7(d))
    bonus_base_odds: bool = False  # pays bonus wagers at § 690.4(a) odds × Top Slot instead of playing (§ 690.4(b))
    rescue_no_raise: bool = False  # a Rescue Drop leaves the lower multipliers as they were (§ 690.7(g)(1))
    rescue_raises_all: bool = False  # a Rescue Drop sets every multiplier to the trigger, higher ones too (§ 690.7(g)(2))
    rescue_same_zone: bool = False  # the Rescue Drop's puck dropped from the first drop's zone, not a new draw (§ 690.7(g)(3))
    rescue_repeat: bool = False  # a Rescue Drop may follow a Rescue Drop (§ 690.7(g)(4))
    #: Crazy Time World's first Double replaced by 50x (Pachinko's rule), not kept for a second time (§ 690.8(e)(3))
    ctw_double_replaced_first: bool = False
    # ---- Roulette (§§ 617b.4–617b.5)
    illuminate_before_no_more_bets: bool = False  # initiates the generator while betting is open (§ 617b.5(d))
    #: at a table whose wheel announces "no more bets" itself: the croupier announces it and locks
    #: the wagering device out this long after the wheel's announcement (§ 617b.4(c)(2))
    follow_lockout_delay_s: float = Field(0.0, ge=0, le=60)
    straight_odds_on_lit: bool = False  # pays a lit winning straight at the paytable's straight odds (§ 617b.5(e))
    up_accept_mid_streak: bool = False  # accepts Roulette Up wagers after the starting number (§ 617b.4(d))
    up_continue_on_equal: bool = False  # an equal number continues the streak (§ 617b.4(g)(2)(i))
    up_continue_after_36: bool = False  # 36 does not end the streak (§ 617b.4(g)(2)(ii))
    up_push_collected: bool = False  # a "Push" is collected as a loss (§ 617b.4(h))
    up_meter_no_increment: bool = False  # never confirms its Roulette Up wagers to the progressive system (§ 617b.4(h)(2))
    #: records a Roulette Up wager for a Roulette player who pressed nothing the device accepted (§ 617b.4(c)(1))
    up_wager_without_press: bool = False
    #: the croupier's tracker ends a streak at this length, not the paytable's longest (§ 617b.4(g)(2)(iii))
    up_longest_streak: int | None = Field(None, ge=1, le=1_000)
    # ---- Blackjack side wagers (§§ 633b.17–633b.21)
    progressive_chips_mismatch: bool = False  # collects chips for every press, accepted or not (§ 633b.17(e))
    skip_win_light: bool = False  # pays a meter without lighting the seat's win light (§ 633b.17(f)(2))
    no_meter_split: bool = False  # pays each of several meter winners the whole meter (§ 633b.18(j))
    #: pays a progressive payout without a floorperson's validation (§ 633b.17(f)(3), § 633b.18(h)(3),
    #: § 633b.21(e)(2))
    skip_floorperson_validation: bool = False
    skip_envy_bonus: bool = False  # pays a Crown Treasure without the other players' Envy Bonuses (§ 633b.18(k))
    #: pays a player's share of a jackpot from the table inventory container (§ 633b.17(f)(4), § 633b.18(h)(4))
    jackpot_from_table_inventory: bool = False
    #: settles the optional wagers clockwise, from the player farthest to the dealer's left (§ 633b.18(g))
    settle_clockwise: bool = False
    # ---- Poker side wagers (§§ 653b.2–653b.5, § 674b.1)
    uth_bad_beat_other_reading: bool = False  # settles Bad Beat by the other reading than the table's (§ 653b.3)
    uth_board_pays_any_pair: bool = False  # pays a board pair below tens at "Pair—10s or better" (§ 653b.4(e))
    uth_pairs_use_dealer_cards: bool = False  # settles Ultimate Pairs on the dealer's two cards (§ 653b.5(e))
    #: settles Ultimate Pairs by this paytable, not the table's (§ 653b.5(f), § 674b.1(f))
    ultimate_pairs_paytable: Literal["A", "B", "C", "D", "E", "F"] | None = None
    #: removes the cards from the layout before settling the optional wagers (§ 653b.4(d), § 653b.5(d), § 674b.1(d))
    remove_cards_before_settling: bool = False
    # ---- Crazy 4 Poker wager placement (§ 657a.7)
    #: takes cash for chips and a bystander for a seated player (§ 657a.7(a)–(b))
    crazy4_accept_cash_and_unseated: bool = False
    crazy4_accept_after_no_more_bets: bool = False  # judges late wagers as if betting were open (§ 657a.7(c))
    #: keeps the wagers of a player who left during the round in play instead of treating them as
    #: abandoned, losing wagers (§ 657a.7(b))
    crazy4_keep_abandoned_wagers: bool = False
    #: takes every Super Bonus Wager for the Ante's amount (§ 657a.7(d)(1))
    crazy4_accept_unequal_super_bonus: bool = False
    crazy4_accept_second_position: bool = False  # takes each position for a different player (§ 657a.7(e))


class CheckSettings(pydantic.BaseModel):
    model_config = _STRICT
    top_slot_start_tolerance_s: float = Field(0.100, gt=0, le=60)
    chi2_alpha: float = Field(0.01, gt=0, lt=1)
    chi2_min_spins: int = Field(1_000, ge=54, le=1_000_000_000)
    #: the run's own evidence (EVIDENCE-link): wire faults, and the shares of void spins and void
    #: rounds a scenario tolerates before it is judged on a broken link (normal play: 0, 1 %, 0)
    max_wire_faults: int = Field(0, ge=0, le=1_000_000_000)
    max_void_spin_ratio: float = Field(0.01, ge=0, le=1)
    max_void_round_ratio: float = Field(0.0, ge=0, le=1)
    #: the rig's presses through an actuator that the device never registered (``actuation_lost``):
    #: a press the evidence cannot show (normal play: 0)
    max_actuations_lost: int = Field(0, ge=0, le=1_000_000_000)


class Table(pydantic.BaseModel):
    """A Roulette table (``game: roulette``): its wheel and the wagers it offers."""

    model_config = _STRICT
    wheel: Literal["single-zero", "double-zero"] = "single-zero"  # § 617b.4(a), § 617b.5(c)
    #: Roulette X (§ 617b.5): offered, and its paytable (None: the Rules Submission's selected one)
    roulette_x: bool = True
    roulette_x_paytable: Literal["A", "B"] | None = None
    #: Roulette Up (§ 617b.4): the paytable, "A"–"E" or progressive "P1"–"P7"; None: not offered
    roulette_up: Literal["A", "B", "C", "D", "E", "P1", "P2", "P3", "P4", "P5", "P6", "P7"] | None = "C"
    #: the progressive wager's fixed amount (§ 617b.4(h)(2): the seed is a multiple of it)
    progressive_stake_cents: int = Field(100, gt=0, le=MAX_STAKE_CENTS)
    straight_stake_cents: tuple[int, int] = (100, 2_500)

    @pydantic.model_validator(mode="after")
    def _ranges(self) -> Table:
        lo, hi = self.straight_stake_cents
        if not 0 < lo <= hi <= MAX_STAKE_CENTS:
            raise ValueError(f"straight_stake_cents: need 0 < low <= high <= {MAX_STAKE_CENTS:,}, got [{lo}, {hi}]")
        if self.roulette_x_paytable == "B" and self.wheel == "single-zero":
            raise ValueError("Roulette X Paytable B is authorized on a double zero wheel only (§ 617b.5(g))")
        return self

    @property
    def progressive(self) -> bool:
        return self.roulette_up is not None and self.roulette_up.startswith("P")

    def wagering_meters(self) -> list[dict[str, Any]] | None:
        """The ``roulette_wagering`` role's meters: a progressive Roulette Up paytable's row
        (§ 617b.4(h)(2), ``rules.roulette_up.meter_spec``) on this table's progressive wager; None
        for a table without a progressive paytable (a plain wagering device)."""
        from rules.roulette_up import meter_spec

        return [meter_spec(self.roulette_up, self.progressive_stake_cents)] if self.progressive else None


class CardTable(pydantic.BaseModel):
    """A Blackjack table (``game: blackjack``): its shoe, its progressive wager (through the
    progressive table game system) and its chip side wagers, each with its paytable."""

    model_config = _STRICT
    decks: int = Field(6, ge=1, le=8)
    declared_suit: Literal["c", "d", "h", "s"] = "s"  # § 633b.17(g): the certificate holder's declared suit
    progressive: Literal["twenty-one-plus-three", "royal-match", "blazing-sevens-multi"] | None = "twenty-one-plus-three"
    progressive_paytable: str = "1"
    progressive_stake_cents: int = Field(100, gt=0, le=MAX_STAKE_CENTS)  # the (minimum) progressive wager
    #: chip side wagers and their paytables
    side: dict[Literal["kings-bounty", "blazing-sevens"], str] = {"kings-bounty": "B", "blazing-sevens": "A"}
    side_stake_cents: tuple[int, int] = (500, 2_500)
    #: a linked progressive (§ 605a.8): this table and ``linked_tables - 1`` others (simulated
    #: tables whose players wager on the same meters) share one controller
    linked_tables: int = Field(1, ge=1, le=16)

    @pydantic.model_validator(mode="after")
    def _paytables(self) -> CardTable:
        from rules.bj_paytables import check_decks, paytable

        wagers = dict(self.side)
        if self.progressive is not None:
            wagers[self.progressive] = self.progressive_paytable
        for wager, name in wagers.items():
            field = "progressive_paytable" if wager == self.progressive and wager not in self.side else f"side.{wager}"
            try:
                check_decks(paytable(wager, name), self.decks)  # ValueError: unknown paytable, decks not allowed
            except ValueError as exc:  # located at its field (cards.side.WAGER, cards.progressive_paytable)
                raise ValueError(f"{field}: {exc}") from None
        lo, hi = self.side_stake_cents
        if not 0 < lo <= hi <= MAX_STAKE_CENTS:
            raise ValueError(f"side_stake_cents: need 0 < low <= high <= {MAX_STAKE_CENTS:,}, got [{lo}, {hi}]")
        return self


#: The poker tables (``poker:``): UTH and Criss-Cross side wagers, Crazy 4 Poker wager placement.
POKER_GAMES = ("uth", "criss-cross", "crazy-4")
PokerSideWager = Literal["trips", "bad-beat", "play-the-board", "ultimate-pairs"]
#: each game's side wagers, their defaults, and the regulation's paytables (as rules/ transcribes them)
POKER_SIDE_WAGERS: dict[str, dict[str, str]] = {
    "uth": {"trips": "E", "bad-beat": "C", "play-the-board": "A", "ultimate-pairs": "F"},
    "criss-cross": {"ultimate-pairs": "A"},
    "crazy-4": {},
}


def poker_paytables(game: str, wager: str):
    """The paytables ``wager`` may use at a ``game`` table (rules.uth, rules.criss_cross)."""
    from rules import criss_cross, uth

    if game == "criss-cross":
        return criss_cross.ULTIMATE_PAIRS_PAYTABLES
    return {"trips": uth.TRIPS_PAYTABLES, "bad-beat": uth.BAD_BEAT_PAYTABLES,
            "play-the-board": uth.PLAY_THE_BOARD_PAYTABLES, "ultimate-pairs": uth.ULTIMATE_PAIRS_PAYTABLES}[wager]


class PokerTable(pydantic.BaseModel):
    """A poker table (``game: uth``, ``criss-cross``, ``crazy-4``), dealt from one 52-card deck.

    UTH (§§ 653b.2–653b.5) and Criss-Cross (§ 674b.1): the side wagers offered and their
    paytables (``side``; null: the game's defaults ``POKER_SIDE_WAGERS``), the Bad Beat reading
    (UTH) and the stakes. Crazy 4 (§ 657a.7): the optional wagers the Rules Submission offers
    (§ 657a.7(d)(3)–(5)), the Ante stakes (the Super Bonus is placed equal to it) and the
    progressive wager's value chip. Fields of another game are refused (``Scenario._game``)."""

    model_config = _STRICT
    side: dict[PokerSideWager, str] | None = None
    #: whose hand the Bad Beat wager reads (rules.uth.BadBeatReading; docs/rules-poker-side-wagers.md)
    bad_beat_reading: Literal["losing-hand", "player-loses"] = "losing-hand"
    side_stake_cents: tuple[int, int] = (500, 2_500)
    ante_stake_cents: tuple[int, int] = (500, 2_500)
    progressive_stake_cents: int = Field(100, gt=0, le=MAX_STAKE_CENTS)
    four_card_progressive: bool = True
    five_card_progressive: bool = False
    five_card_hand_bonus: bool = True

    @pydantic.model_validator(mode="after")
    def _ranges(self) -> PokerTable:
        for name in ("side_stake_cents", "ante_stake_cents"):
            lo, hi = getattr(self, name)
            if not 0 < lo <= hi <= MAX_STAKE_CENTS:
                raise ValueError(f"{name}: need 0 < low <= high <= {MAX_STAKE_CENTS:,}, got [{lo}, {hi}]")
        return self

    def for_game(self, game: str) -> PokerTable:
        """This table checked against ``game`` (its side wagers and paytables, no other game's
        fields), the game's default side wagers filled in and paytable names normalised."""
        from rules.uth import paytable_key, pick_paytable

        fields = {"uth": {"side", "bad_beat_reading", "side_stake_cents"}, "criss-cross": {"side", "side_stake_cents"},
                  "crazy-4": {"ante_stake_cents", "progressive_stake_cents", "four_card_progressive",
                              "five_card_progressive", "five_card_hand_bonus"}}[game]
        if other := sorted(self.model_fields_set - fields):
            raise ValueError(f"poker: {', '.join(other)} not a field of a {game} table "
                             f"(its fields: {', '.join(sorted(fields))})")
        side = dict(POKER_SIDE_WAGERS[game] if self.side is None else self.side)
        for wager, name in side.items():
            if wager not in POKER_SIDE_WAGERS[game]:
                raise ValueError(f"poker.side: {wager} is not a side wager of {game} "
                                 f"(its: {', '.join(POKER_SIDE_WAGERS[game]) or 'none'})")
            tables = poker_paytables(game, wager)
            section = next(iter(tables.values())).section
            try:
                pick_paytable(tables, name, f"poker.side: {wager}", section)  # ValueError naming the paytables
            except ValueError as exc:  # located at its field, the nearest paytable named
                raise ValueError(f"poker.side.{wager}: {exc}{did_you_mean(str(name), list(tables))}") from None
            side[wager] = paytable_key(name)
        return self.model_copy(update={"side": side})


class Monitor(pydantic.BaseModel):
    """The sequential monitor (``hil.monitor``, ``hil.stats.sequential``; docs/plan.md): Wald's
    SPRT of the Roulette wheel fair (H0) against the planned ``bias`` (H1: ``'pocket 17 +20 %'``,
    ``'pockets 26 0 32 +30 %'``, ``'neighbour +20 %'``, ``'clockwise pocket 17 +20 %'``) at nominal
    error rates ``alpha`` and ``beta``, fed each round with the ball wheel's report of the valid
    spin. With ``stop`` the scenario's rounds end at the round it becomes decisive (no decision
    before ``min_spins`` valid spins); ``rounds`` is then the most the run may take. Judged by
    ``RW-pocket-sprt``, which replays it from the trace."""

    model_config = _STRICT
    bias: str
    alpha: float = Field(0.01, gt=0, lt=0.5)
    beta: float = Field(0.1, gt=0, lt=0.5)
    min_spins: int = Field(0, ge=0, le=10_000_000)
    stop: bool = True

    @pydantic.field_validator("bias")
    @classmethod
    def _bias(cls, text: str) -> str:
        from hil.stats.synth import parse_bias

        b = parse_bias(text)  # ValueError: what the forms are
        if b.kind == "none" or b.strength == 0.0:
            raise ValueError(f"{text!r} is no bias: the monitor needs a planned bias to tell from a fair wheel")
        return b.text


class Expect(pydantic.BaseModel):
    """What the scenario expects of the checks (``hil.runner.judge``, docs/scenarios.md "Outcome").

    ``fail``: the checks that must FAIL (a fault scenario's faults). ``pass``: the checks the
    scenario exists to decide, which must PASS (a normal-play scenario's statistics, its
    settlement); one that comes out indeterminate leaves the scenario NOT DECISIVE. Every other
    check must not fail; its "indeterminate" means "not exercised by this scenario" and is listed."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    fail: tuple[str, ...] = ()
    pass_: tuple[str, ...] = Field((), alias="pass")

    @pydantic.field_validator("fail", "pass_")
    @classmethod
    def _known(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [i for i in ids if i not in CHECK_IDS]
        if unknown:
            hint = did_you_mean(unknown[0], sorted(CHECK_IDS))
            raise ValueError(f"unknown check id(s) {unknown}{hint}; known: {sorted(CHECK_IDS)}")
        if dup := sorted({i for i in ids if ids.count(i) > 1}):
            raise ValueError(f"check id(s) {dup} named twice")
        return ids

    @pydantic.model_validator(mode="after")
    def _disjoint(self) -> Expect:
        if both := sorted(set(self.fail) & set(self.pass_)):
            raise ValueError(f"{both} named in both expect.fail and expect.pass: a check must either fail or pass")
        return self


class Scenario(pydantic.BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = Field(alias="schema")
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    game: Literal["crazy-time", "roulette", "blackjack", "uth", "criss-cross", "crazy-4"]
    seed: int = Field(ge=0, le=2**63 - 1)  # recorded in the trace: 64 bits
    rounds: int = Field(ge=1, le=10_000_000)
    bench: dict[str, dict[str, Any]] = {}
    faults: dict[str, dict[str, Any]] = {}
    croupier: Croupier = Croupier()
    players: Players = Players()
    table: Table | None = None  # game: roulette
    cards: CardTable | None = None  # game: blackjack
    poker: PokerTable | None = None  # game: uth, criss-cross, crazy-4
    lockout: Lockout = Lockout()
    #: the late-bet adversary (``hil.adversary``); None: none
    adversary: Adversary | None = None
    #: the sequential monitor (``Monitor``; game: roulette); None: none
    monitor: Monitor | None = None
    checks: CheckSettings = CheckSettings()
    expect: Expect = Expect()
    #: the Rules Submission this scenario is played under (a Crazy Time or Roulette X table), instead
    #: of the run's (``--rules`` / ``--roulette-x-rules``): ``embedded:data/NAME.toml`` for one shipped
    #: in ``rules/``, or a path relative to the scenario file. E.g. the other Rescue reading.
    rules_submission: str | None = None

    @pydantic.model_validator(mode="after")
    def _game(self) -> Scenario:
        if self.game == "roulette" and self.table is None:
            object.__setattr__(self, "table", Table())  # a roulette scenario always has its table
        if self.game != "roulette" and self.table is not None:
            raise ValueError(f"'table' is for game: roulette, not {self.game}")
        if self.game == "blackjack" and self.cards is None:
            object.__setattr__(self, "cards", CardTable())
        if self.game != "blackjack" and self.cards is not None:
            raise ValueError(f"'cards' is for game: blackjack, not {self.game}")
        if self.game in POKER_GAMES:
            object.__setattr__(self, "poker", (self.poker or PokerTable()).for_game(self.game))
            self._poker_table()
        elif self.poker is not None:
            raise ValueError(f"'poker' is for game: {', '.join(POKER_GAMES)}, not {self.game}")
        if self.adversary is not None:
            self._adversary()
        if self.monitor is not None:
            self._monitor()
        if self.rules_submission is not None and self.game not in ("crazy-time", "roulette"):
            raise ValueError(f"rules_submission: a {self.game} table plays the regulation's own paytables")
        ids = {c.id for c in checks_for(self.game)}
        for key, named in (("fail", self.expect.fail), ("pass", self.expect.pass_)):
            if other := [i for i in named if i not in ids]:
                raise ValueError(f"expect.{key}: {other} are not checks of {self.game}"
                                 f"{did_you_mean(other[0], sorted(ids))}")
        for section in ("bench", "faults"):
            for role in ("ball_wheel", "illuminator"):
                wheel = getattr(self, section).get(role, {}).get("wheel")
                if self.table is not None and wheel not in (None, self.table.wheel):
                    raise ValueError(f"{section}.{role}.wheel: {wheel} differs from the table's ({self.table.wheel})")
            extra = [r for r in getattr(self, section) if r != "croupier" and r not in self.roles
                     and not (r == "actuator" and section == "bench" and self.game in ("crazy-time", "roulette",
                                                                                       "blackjack"))]
            if extra:
                raise ValueError(f"{section}: {extra} are not device roles of {self.game} (its roles: "
                                 f"{', '.join(self.roles)}){did_you_mean(extra[0], self.roles)}")
        return self

    def _monitor(self) -> None:
        """The monitor reads a Roulette ball wheel's numbers; its bias names pockets of the table's wheel."""
        if self.game != "roulette" or self.table is None:
            raise ValueError(f"monitor: the sequential monitor watches a Roulette wheel (game: roulette), not {self.game}")
        from hil.monitor import design

        try:
            design(self.monitor.model_dump(), self.table.wheel)
        except ValueError as exc:
            raise ValueError(f"monitor.bias: {exc}") from None
        if self.monitor.min_spins > self.rounds:
            raise ValueError(f"monitor.min_spins: {self.monitor.min_spins} is more than the scenario's {self.rounds} rounds")

    def _adversary(self) -> None:
        """The adversary presses a player's seat (never the probe's: presses there after the lock-out
        command are the probe's), and its latest attempt comes before the croupier takes its
        decisions ("no more bets" + ``croupier.spin_delay_s``), so every attempt is decided."""
        adv, pl = self.adversary, self.players
        assert adv is not None
        if pl.count < 1:
            raise ValueError("adversary: needs at least one player seat (players.count >= 1)")
        seat = adv.seat
        if adv.window_s[0] > self.croupier.betting_window_s:
            raise ValueError(f"adversary.window_s: {adv.window_s[0]} s before \"no more bets\" is before betting opens "
                             f"(croupier.betting_window_s {self.croupier.betting_window_s})")
        if self.game != "crazy-4":
            if seat is not None and seat > pl.count:
                raise ValueError(f"adversary.seat: {seat} is not a player's seat (players.count {pl.count})")
            probe = self.lockout.probe
            if probe is not None and (seat or pl.count) == probe.seat:
                raise ValueError(f"adversary.seat: {seat or pl.count} is the lock-out probe's seat")
            if self.game != "crazy-time" and adv.window_s[1] >= self.croupier.spin_delay_s:
                raise ValueError(f"adversary.window_s: {adv.window_s[1]} s after \"no more bets\" is not before the "
                                 f"croupier decides the round's wagers (croupier.spin_delay_s {self.croupier.spin_delay_s})")
        elif adv.window_s[1] >= self.croupier.spin_delay_s + 5.0:  # Crazy 4: the round ends after the Play Wagers
            raise ValueError(f"adversary.window_s: {adv.window_s[1]} s after \"no more bets\" is past the round's "
                             f"end (croupier.spin_delay_s + 5 s)")

    def _poker_table(self) -> None:
        """A poker table deals from one 52-card deck (UTH and Criss-Cross; Crazy 4 deals nothing
        here) and has no wagering device: its lock-out is not probed."""
        if "probe" in self.lockout.model_fields_set and self.lockout.probe is not None:
            raise ValueError(f"lockout.probe: a {self.game} table has no wagering device to probe; "
                             "leave lockout.probe out (or null)")
        object.__setattr__(self, "lockout", self.lockout.model_copy(update={"probe": None}))
        for section in ("bench", "faults"):
            decks = getattr(self, section).get("shoe", {}).get("decks")
            if decks not in (None, 1):
                raise ValueError(f"{section}.shoe.decks: a {self.game} table deals from one 52-card deck, not {decks}")
        wrong = self.faults.get("croupier", {}).get("ultimate_pairs_paytable")
        if self.game == "criss-cross" and wrong is not None and str(wrong).upper() == "F":
            raise ValueError("faults.croupier.ultimate_pairs_paytable: Criss-Cross has Paytables A–E (§ 674b.1(f))")
        need = {"uth": 2 * self.players.count + 2 + 5, "criss-cross": 2 * self.players.count}.get(self.game, 0)
        if need > 52:
            raise ValueError(f"players.count: {self.players.count} players need {need} cards; one deck holds 52")

    @property
    def roles(self) -> tuple[str, ...]:
        return GAME_ROLES[self.game]

    def device_overrides(self) -> dict[str, dict[str, Any]]:
        """Bench overrides then fault knobs, per device role (a roulette table's wheel type goes
        to its ball wheel and its illuminator)."""
        out = {role: {**self.bench.get(role, {}), **self.faults.get(role, {})} for role in self.roles}
        if "actuator" in self.bench:  # the rig presses the buttons through a (simulated) actuator
            out["actuator"] = dict(self.bench["actuator"])
        if self.table is not None:
            for role in ("ball_wheel", "illuminator"):
                out[role].setdefault("wheel", self.table.wheel)
            if (meters := self.table.wagering_meters()) is not None:  # the progressive table game system (§ 617b.4(c))
                out["roulette_wagering"].setdefault("meters", meters)
        if self.game in POKER_GAMES and "shoe" in out:
            out["shoe"].setdefault("decks", 1)  # one 52-card deck, shuffled before every round
        if self.cards is not None:
            from rules.blackjack_table import meter_specs

            c = self.cards
            out["shoe"].setdefault("decks", c.decks)
            if c.progressive is not None:
                out["progressive"].setdefault("meters", meter_specs(c.progressive, c.progressive_paytable, c.decks,
                                                                    c.progressive_stake_cents))
            probe = self.lockout.probe.seat if self.lockout.probe else 0
            out["progressive"].setdefault("seats", max(self.players.count, probe, 1))  # the rig's probe seat too
            if c.linked_tables > 1:
                out["progressive"].setdefault("link_id", "linked-1")
        return out

    @property
    def croupier_faults(self) -> CroupierFaults:
        return CroupierFaults.model_validate(self.faults.get("croupier", {}))


@dataclass(frozen=True)
class LoadedScenario:
    scenario: Scenario
    path: str
    sha256: str
    #: the rounds the scenario file asks for when ``--max-rounds`` cut the run shorter (None: not cut):
    #: an expected FAIL that passes in a cut run is NOT DECISIVE, not NOT MET (``hil.runner.judge``)
    cut_from_rounds: int | None = None


def parse_scenario(text: str, source: str) -> LoadedScenario:
    data, lines = parse_yaml(text, source)
    if not isinstance(data, dict):
        raise ConfigError(source, 1, "", "a scenario is a YAML mapping")
    scenario = validate(Scenario, data, source, lines)
    # Device overrides and fault knobs are checked against the models' params now, not mid-run.
    for section in ("bench", "faults"):
        for role, knobs in getattr(scenario, section).items():
            if section == "faults" and role == "croupier":
                try:
                    CroupierFaults.model_validate(knobs)
                except pydantic.ValidationError as exc:
                    raise config_error(exc, CroupierFaults, source, lines, (section, role)) from None
                continue
            for loc, msg in check_params(role, knobs):
                path = (section, role, *loc)
                raise ConfigError(source, lines.line(path), dotted(path), msg)
    return LoadedScenario(scenario, source, hashlib.sha256(text.encode()).hexdigest())


def load_scenario(path: Path) -> LoadedScenario:
    return parse_scenario(read_text(path), str(path))


def discover(paths: list[Path]) -> list[Path]:
    """Scenario files under each path (a file, or a folder searched recursively), sorted."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found.extend(sorted(q for q in p.rglob("*.y*ml") if q.suffix in (".yaml", ".yml")))
        elif p.exists():
            found.append(p)
        else:
            near = [q.name for q in p.parent.glob("*.y*ml")] if p.parent.is_dir() else []
            raise ConfigError(str(p), None, "", f"no such scenario file or folder{did_you_mean(p.name, near)}")
    return found


def field_line(loaded: LoadedScenario, loc: tuple) -> int | None:
    """The line of the field at ``loc`` in the scenario's file (None when the file is not there)."""
    try:
        return parse_yaml(read_text(Path(loaded.path)), loaded.path)[1].line(loc)
    except ConfigError:
        return None


def check_against_bench(loaded: LoadedScenario, bench: Any) -> None:
    """ConfigError (exit 2, nothing run) when the scenario asks for seats the bench's wagering device
    does not have: ``players.count`` players (seats 1..count) or the lock-out probe's seat past the
    simulated device's ``seats`` (its wagers would be rejected ``invalid_seat``, and the checks judge
    a table without them). A real device's seats are its own: it answers for them at connect."""
    from hil.bench import WAGERING_ROLE, sim_params

    sc = loaded.scenario
    role = WAGERING_ROLE.get(sc.game, (None,))[0]
    if role is None or role not in sc.roles or bench.config.device(role).kind != "sim":
        return
    overrides = sc.device_overrides().get(role, {})
    try:
        seats = getattr(sim_params(role, bench.config.device(role).params, overrides), "seats", None)
    except (ValueError, pydantic.ValidationError):
        return  # refused with its field by the bench's and the scenario's own checks
    if seats is None:
        return
    where = f"the bench's {role} device has {seats} seat(s) ({bench.source})"
    if sc.players.count > seats:
        raise ConfigError(loaded.path, field_line(loaded, ("players", "count")), "players.count",
                          f"{sc.players.count} players need {sc.players.count} seats; {where}")
    probe = sc.lockout.probe
    if probe is not None and probe.seat > seats:
        raise ConfigError(loaded.path, field_line(loaded, ("lockout", "probe", "seat")) or
                          field_line(loaded, ("lockout", "probe")), "lockout.probe.seat",
                          f"the lock-out probe presses seat {probe.seat}; {where}")
