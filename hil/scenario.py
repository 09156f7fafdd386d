"""Scenario files: YAML with a schema version, validated at load (file, line and field).

A scenario says how to drive the table (rounds, seed, the croupier's timing, the players'
betting behaviour, the lock-out probing), what to change on the bench (``bench``: parameter
overrides; ``faults``: fault knobs, per device role, and ``croupier`` for dealer-procedure
faults) and what it expects of the checks (``expect.fail``: the check ids that must FAIL;
every other check must not fail). See ``docs/scenarios.md``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import ConfigDict, Field

from hil.bench import ROLES, check_params
from hil.checks import CHECK_IDS
from hil.config import ConfigError, dotted, parse_yaml, read_text, validate

_STRICT = ConfigDict(extra="forbid", frozen=True)


class Players(pydantic.BaseModel):
    """The players' betting behaviour (§ 690.2: wagers are placed before "no more bets")."""

    model_config = _STRICT
    count: int = Field(6, ge=0, le=64)
    wagers_per_player: tuple[int, int] = (1, 3)
    stake_cents: tuple[int, int] = (100, 5_000)
    #: probability that a player presses once more just after "no more bets" (a late wager,
    #: which the wagering device must reject once its lock-out took effect)
    late_press_probability: float = Field(0.02, ge=0, le=1)
    late_press_window_s: float = Field(0.5, gt=0)
    #: Cash Hunt / Crazy Time World: probability that a player selects before the countdown
    #: ends (§ 690.6(d), § 690.8(c)); the others get a random selection
    pick_probability: float = Field(0.9, ge=0, le=1)

    @pydantic.model_validator(mode="after")
    def _ranges(self) -> Players:
        for name in ("wagers_per_player", "stake_cents"):
            lo, hi = getattr(self, name)
            if not 0 <= lo <= hi:
                raise ValueError(f"{name}: need 0 <= low <= high, got [{lo}, {hi}]")
        return self


class LockoutProbe(pydantic.BaseModel):
    """Seat presses the rig injects around the lock-out command to find the boundary where the
    device stops recognising wagers (``hil.lockout.BoundarySearch``)."""

    model_config = _STRICT
    presses: int = Field(8, ge=2, le=200)  # per round
    step_s: float = Field(0.0005, gt=0)  # the finest spacing: the resolution of each round's bracket
    seat: int = Field(7, ge=1)  # the rig's actuator presses this seat (seats count from 1)
    stake_cents: int = Field(100, gt=0)


class Lockout(pydantic.BaseModel):
    model_config = _STRICT
    #: the latency the device may take to lock out after the command (the scenario's budget)
    budget_s: float = Field(0.010, gt=0)
    probe: LockoutProbe | None = LockoutProbe()


class Croupier(pydantic.BaseModel):
    """The croupier's procedure timing (the rig's own part)."""

    model_config = _STRICT
    betting_window_s: float = Field(15.0, gt=0)
    spin_delay_s: float = Field(1.0, ge=0)  # "no more bets" -> push
    respin_limit: int = Field(3, ge=0)  # void spins respun at most this many times per round
    direction: Literal["alternate", "cw", "ccw", "random"] = "alternate"
    spin_timeout_s: float = Field(120.0, gt=0)
    top_slot_timeout_s: float = Field(60.0, gt=0)
    between_rounds_s: float = Field(5.0, ge=0)
    #: the countdown timers of § 690.6(d) and § 690.8(c)
    cash_hunt_countdown_s: float = Field(15.0, gt=0)
    ctw_countdown_s: float = Field(10.0, gt=0)
    #: how long the croupier waits for a bonus device's answer before voiding the round
    bonus_timeout_s: float = Field(60.0, gt=0)
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
    payout_error_cents: int = 0  # added to every winning payment (§ 690.4)
    ignore_top_slot: bool = False  # settles without the Top Slot multiplier (§ 690.3(c)(1))
    # ---- bonus games (§§ 690.5–690.8)
    late_top_slot: bool = False  # applies the Top Slot multiplier after the flip / drop / countdown began
    rescue_ineligible: bool = False  # asks for a Rescue Flip / Drop whatever the landing (§ 690.5(f), § 690.7(g))
    skip_double_doubling: bool = False  # a Double replaces itself but does not double the others (§ 690.7(e), § 690.8(e))
    ctw_all_players_continue: bool = False  # every Crazy Time World player takes the respin's result (§ 690.8(e)(2))
    cash_hunt_shared_pick: bool = False  # every Cash Hunt player settled on the first pick (§ 690.6(f))
    drop_zone_outside: bool = False  # drops the puck above landing spot 1 (§ 690.7(d))
    bonus_base_odds: bool = False  # pays bonus wagers at § 690.4(a) odds × Top Slot instead of playing (§ 690.4(b))


class CheckSettings(pydantic.BaseModel):
    model_config = _STRICT
    top_slot_start_tolerance_s: float = Field(0.100, gt=0)
    chi2_alpha: float = Field(0.01, gt=0, lt=1)
    chi2_min_spins: int = Field(1_000, ge=54)


class Expect(pydantic.BaseModel):
    model_config = _STRICT
    fail: tuple[str, ...] = ()

    @pydantic.field_validator("fail")
    @classmethod
    def _known(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [i for i in ids if i not in CHECK_IDS]
        if unknown:
            raise ValueError(f"unknown check id(s) {unknown}; known: {sorted(CHECK_IDS)}")
        return ids


class Scenario(pydantic.BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = Field(alias="schema")
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    game: Literal["crazy-time"]
    seed: int = Field(ge=0)
    rounds: int = Field(ge=1, le=10_000_000)
    bench: dict[str, dict[str, Any]] = {}
    faults: dict[str, dict[str, Any]] = {}
    croupier: Croupier = Croupier()
    players: Players = Players()
    lockout: Lockout = Lockout()
    checks: CheckSettings = CheckSettings()
    expect: Expect = Expect()

    def device_overrides(self) -> dict[str, dict[str, Any]]:
        """Bench overrides then fault knobs, per device role."""
        return {role: {**self.bench.get(role, {}), **self.faults.get(role, {})} for role in ROLES}

    @property
    def croupier_faults(self) -> CroupierFaults:
        return CroupierFaults.model_validate(self.faults.get("croupier", {}))


@dataclass(frozen=True)
class LoadedScenario:
    scenario: Scenario
    path: str
    sha256: str


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
                    loc = (section, role, *exc.errors()[0]["loc"])
                    raise ConfigError(source, lines.line(loc), dotted(loc), exc.errors()[0]["msg"]) from None
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
            raise ConfigError(str(p), None, "", "no such scenario file or folder")
    return found
