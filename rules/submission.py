"""The Rules Submission (§ 601a.2): what the operator chooses where chapter 690 leaves room, and
the PAR data of the random parts the regulation does not specify (the Top Slot's reels).

Parsed from TOML text into frozen pydantic models with a ``schema`` version; a bad file fails here
with its source, line and field (STYLE.md § 2). Pure: this module parses text, it reads no files —
the packaged default is ``importlib.resources.files("rules") / DEFAULT_RULES_RESOURCE``.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from rules.bonus import CASH_HUNT_RANGE, COIN_FLIP_RANGE, CTW_RANGE, DEFAULT_RESCUE_READING, PACHINKO_RANGE, RescueReading
from rules.crazy_time import SPOTS, TOP_SLOT_REEL2, Spot
from rules.pachinko import Lattice
from rules.parsing import MAX_DEPTH, TomlLines, data_problem, describe, first_error, toml_error_line, toml_error_message, toml_nesting_line

#: The packaged reference Rules Submission (PAR calibrated by ``rules.calibration``), relative to the ``rules`` package.
DEFAULT_RULES_RESOURCE = "data/crazy_time_reference.toml"

_Positive = Annotated[int, Field(strict=True, gt=0)]
M = TypeVar("M", bound=BaseModel)


def _exact(value: Any) -> Any:
    """TOML gives a probability as a string "p/q" or a number; read a float as the decimal
    written (0.1 is 1/10), never as its binary approximation."""
    if isinstance(value, bool):
        raise ValueError("expected a probability such as \"1/3\" or 0.25, not a boolean")
    return Fraction(str(value)) if isinstance(value, float) else value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TopSlotPar(_Model):
    """PAR data of the Top Slot (§ 690.3): how often the reels align, and the weights of the
    symbols on each reel. The reels are independent of each other and of the wheel."""

    align_probability: Annotated[Fraction, BeforeValidator(_exact), Field(ge=0, le=1)]
    reel1_weights: dict[Spot, _Positive]
    reel2_weights: dict[int, _Positive]

    @field_validator("reel1_weights")
    @classmethod
    def _every_betting_option(cls, weights: dict[Spot, int]) -> dict[Spot, int]:
        if missing := [s for s in SPOTS if s not in weights]:
            raise ValueError(f"missing betting option(s) {', '.join(missing)}: § 690.3(b)(1) puts "
                             f"each of {', '.join(SPOTS)} on the first reel")
        return weights

    @field_validator("reel2_weights")
    @classmethod
    def _every_multiplier(cls, weights: dict[int, int]) -> dict[int, int]:
        if set(weights) != set(TOP_SLOT_REEL2):
            missing = ", ".join(str(m) for m in TOP_SLOT_REEL2 if m not in weights)
            extra = ", ".join(str(m) for m in weights if m not in TOP_SLOT_REEL2)
            raise ValueError(f"§ 690.3(b)(2): the second reel holds exactly the multipliers "
                             f"{', '.join(map(str, TOP_SLOT_REEL2))}"
                             + (f"; missing {missing}" if missing else "") + (f"; not allowed {extra}" if extra else ""))
        return weights

    def reel1_probability(self, spot: Spot) -> Fraction:
        """Probability that the first reel shows ``spot``."""
        return Fraction(self.reel1_weights[spot], sum(self.reel1_weights.values()))

    def reel2_probability(self, multiplier: int) -> Fraction:
        """Probability that the second reel shows ``multiplier``."""
        return Fraction(self.reel2_weights[multiplier], sum(self.reel2_weights.values()))

    def expected_multiplier(self, spot: Spot) -> Fraction:
        """E[multiplier applied to ``spot``] (§ 690.3(c)): 1 - a·p1 + a·p1·E[m2], with a the
        align probability and p1 the first reel's probability of ``spot``."""
        a_p1 = self.align_probability * self.reel1_probability(spot)
        return 1 - a_p1 + a_p1 * sum(m * self.reel2_probability(m) for m in TOP_SLOT_REEL2)


_Probability = Annotated[Fraction, BeforeValidator(_exact), Field(ge=0, le=1)]


def _weights_in(weights: dict[int, int], low: int, high: int, section: str) -> dict[int, int]:
    if not weights:
        raise ValueError(f"{section}: at least one multiplier")
    if bad := sorted(m for m in weights if not low <= m <= high):
        raise ValueError(f"{section}: multipliers range from {low}x to {high}x; not allowed {', '.join(map(str, bad))}")
    return dict(sorted(weights.items()))


class _BoardPar(_Model):
    """Weights of the multipliers drawn, independently, for each cell of a bonus board."""

    multiplier_weights: dict[int, _Positive]

    def probability(self, multiplier: int) -> Fraction:
        """Probability that one cell is drawn as ``multiplier``."""
        return Fraction(self.multiplier_weights.get(multiplier, 0), sum(self.multiplier_weights.values()))

    def mean(self) -> Fraction:
        """E[multiplier of one cell]."""
        return sum((m * self.probability(m) for m in self.multiplier_weights), Fraction(0))


class CoinFlipPar(_BoardPar):
    """§ 690.5: each side's multiplier drawn independently by ``multiplier_weights`` (§ 690.5(c));
    ``rescue_probability``: P(a Rescue Flip is activated | § 690.5(f)(1)–(3) hold)."""

    rescue_probability: _Probability

    @field_validator("multiplier_weights")
    @classmethod
    def _range_ok(cls, w: dict[int, int]) -> dict[int, int]:
        return _weights_in(w, *COIN_FLIP_RANGE, "§ 690.5(c)(1)")


class CashHuntPar(_BoardPar):
    """§ 690.6: each of the 108 multipliers drawn independently by ``multiplier_weights``."""

    @field_validator("multiplier_weights")
    @classmethod
    def _range_ok(cls, w: dict[int, int]) -> dict[int, int]:
        return _weights_in(w, *CASH_HUNT_RANGE, "§ 690.6(b)(1)")


class PachinkoPar(_BoardPar):
    """§ 690.7: ``rows`` of the board's peg lattice (``rules.pachinko.Lattice``); with
    ``double_probability`` one of the 16 spots (uniformly) shows "Double" (§ 690.7(c)(2)), the
    others' multipliers drawn independently by ``multiplier_weights``; ``rescue_probability``:
    P(a Rescue Drop is activated | the puck rests on 2x, 3x or 4x and none has been) (§ 690.7(g))."""

    rows: int = 12
    double_probability: _Probability
    rescue_probability: _Probability

    @field_validator("multiplier_weights")
    @classmethod
    def _range_ok(cls, w: dict[int, int]) -> dict[int, int]:
        return _weights_in(w, *PACHINKO_RANGE, "§ 690.7(c)(1)")

    @field_validator("rows")
    @classmethod
    def _lattice_ok(cls, rows: int) -> int:
        Lattice(rows)
        return rows

    @property
    def lattice(self) -> Lattice:
        return Lattice(self.rows)


class CrazyTimeWorldPar(_BoardPar):
    """§ 690.8: with ``double_probability`` one of the 64 sections (uniformly) shows "Double"
    (§ 690.8(b)(2)); the others' multipliers drawn independently by ``multiplier_weights`` and so
    randomly assigned (§ 690.8(b)(3)); the virtual wheel stops on each section equally likely."""

    double_probability: _Probability

    @field_validator("multiplier_weights")
    @classmethod
    def _range_ok(cls, w: dict[int, int]) -> dict[int, int]:
        return _weights_in(w, *CTW_RANGE, "§ 690.8(b)(1)")


class Limits(_Model):
    """The minimum and maximum wagers and the maximum payout limit per round (§ 690.1(g)(4))."""

    min_wager_cents: _Positive
    max_wager_cents: _Positive
    max_payout_per_round_cents: _Positive | None = None

    @model_validator(mode="after")
    def _min_not_above_max(self) -> Limits:
        if self.min_wager_cents > self.max_wager_cents:
            raise ValueError(f"min_wager_cents {self.min_wager_cents} exceeds max_wager_cents {self.max_wager_cents}")
        return self

    def wager_deviation(self, stake_cents: int) -> str | None:
        """Why a wager of ``stake_cents`` may not be placed at this table (§ 690.1(g)(4): "The
        minimum or maximum wagers, or both, that may be placed"), or None when it may. The one
        rule the croupier refuses by and the checks judge by."""
        if stake_cents < self.min_wager_cents:
            return (f"§ 690.1(g)(4): a wager of {stake_cents} cents is below the minimum wager of "
                    f"{self.min_wager_cents} cents")
        if stake_cents > self.max_wager_cents:
            return (f"§ 690.1(g)(4): a wager of {stake_cents} cents is above the maximum wager of "
                    f"{self.max_wager_cents} cents")
        return None


class RulesSubmission(_Model):
    """A Crazy Time Rules Submission (§ 601a.2) as the rig uses it."""

    model_config = ConfigDict(populate_by_name=True)

    schema_version: Literal[1] = Field(alias="schema")
    game: Literal["crazy-time"]
    name: str
    operator: str
    notes: str = ""
    limits: Limits
    #: How the Rescue Flip (§ 690.5(f)) and Rescue Drop (§ 690.7(g)) conditions read the board
    #: (``rules.bonus.rescue_value``): "displayed" (the default: the values as shown, the Top Slot
    #: multiplier included) or "before-top-slot" (the multipliers without it). The text allows
    #: both; docs/rules-crazy-time.md gives the reasons for the default.
    rescue_reading: RescueReading = DEFAULT_RESCUE_READING
    top_slot: TopSlotPar
    coin_flip: CoinFlipPar
    cash_hunt: CashHuntPar
    pachinko: PachinkoPar
    crazy_time_world: CrazyTimeWorldPar


class RulesSubmissionError(ValueError):
    """A Rules Submission that cannot be used, located by source, line and dotted field."""

    def __init__(self, source: str, field: str, line: int | None, message: str) -> None:
        self.source, self.field, self.line, self.message = source, field, line, message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


def _line_of(text: str, path: tuple[str, ...]) -> int | None:
    """The 1-based line defining ``path`` (or its deepest parent the text holds): ``TomlLines``."""
    return TomlLines(text).line(path)


def parse_toml_model(model: type[M], text: str, source: str = "<string>") -> M:
    """Parse TOML ``text`` into the pydantic ``model``; the first problem raises
    ``RulesSubmissionError`` with its source, line and dotted field (a syntax error: its line; an
    unknown key or value: the nearest valid name; ``inf``/``nan``, an integer outside 64 bits or
    nesting deeper than ``rules.parsing.MAX_DEPTH``: refused before validation)."""
    if (deep := toml_nesting_line(text)) is not None:  # tomllib recurses per level
        raise RulesSubmissionError(source, "", deep, f"TOML syntax: nested deeper than {MAX_DEPTH} levels")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesSubmissionError(source, "", toml_error_line(e, text) or 1,
                                   f"TOML syntax: {toml_error_message(e)}") from None
    except RecursionError:
        raise RulesSubmissionError(source, "", None, f"TOML syntax: nested deeper than {MAX_DEPTH} levels") from None
    if (problem := data_problem(data)) is not None:
        path = tuple(str(p) for p in problem[0])
        raise RulesSubmissionError(source, ".".join(path), _line_of(text, path), problem[1])
    try:
        result = model.model_validate(data)
    except ValidationError as e:
        loc, message = describe(first_error(e.errors()), model)
        path = tuple(str(p) for p in loc)
        if e.error_count() > 1:
            more = e.error_count() - 1
            message += f"; the file has {more} more error{'s' * (more > 1)} after this one"
        raise RulesSubmissionError(source, ".".join(path), _line_of(text, path), message) from None
    except RecursionError:
        raise RulesSubmissionError(source, "", None, f"nested deeper than {MAX_DEPTH} levels") from None
    if (problem := data_problem(result.model_dump(by_alias=True))) is not None:  # 1e30 coerced to an int
        path = tuple(str(p) for p in problem[0])
        raise RulesSubmissionError(source, ".".join(path), _line_of(text, path), problem[1])
    return result


def parse_rules_submission(text: str, source: str = "<string>") -> RulesSubmission:
    """Parse and validate a Rules Submission; the first problem raises ``RulesSubmissionError``."""
    return parse_toml_model(RulesSubmission, text, source)
