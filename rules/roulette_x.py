"""Roulette X (§ 617b.5): paytables, lit multipliers, settlement of a straight wager, the PAR
(Rules Submission) and the exact RTP.

Pure: frozen dataclasses, pydantic models and functions; no I/O, no clocks. Odds are exact
``ToOne`` ("N to 1"); money is integer cents.

As written: § 617b.5 defines one wager of its own, the straight wager, with its paytable
(§ 617b.5(g)): "Straight wager payout odds" and four "Multipliers". After all wagers are placed
the random number generator selects "between 2 and 5 numbers on the layout that are the
multipliers" (§ 617b.5(d)) — 2 to 5 distinct numbers, each shown with its increased payout. A
winning straight wager on a lit number is paid at that payout (§ 617b.5(e)); otherwise at the
paytable's straight odds (§ 617b.5(f)). Every other wager follows Lightning Roulette, § 617b.3
(§ 617b.5(a)), whose text is not among the texts transcribed here: no other wager is modelled.

Decisions (docs/rules-roulette.md): every number on the layout of the wheel in use can be lit,
0 and 00 included; the lit set is uniform over the sets of its size; each lit number's payout is
drawn independently by the PAR's weights (two lit numbers may show the same payout).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.odds import ToOne
from rules.roulette import Pocket, Wheel, parse_pocket, pockets
from rules.rtp import WagerRtp
from rules.submission import parse_toml_model

#: The packaged illustrative Roulette X Rules Submission, relative to the ``rules`` package.
ROULETTE_X_REFERENCE_RESOURCE = "data/roulette_x_reference.toml"

#: § 617b.5(d): "between 2 and 5 numbers" (inclusive).
MIN_LIT, MAX_LIT = 2, 5


class RouletteXError(ValueError):
    """A Roulette X configuration or outcome the regulation does not allow."""


@dataclass(frozen=True)
class RouletteXPaytable:
    """A § 617b.5(g) paytable."""

    name: Literal["A", "B"]
    wheels: frozenset[Wheel]
    straight: ToOne
    multipliers: tuple[ToOne, ...]


#: § 617b.5(g), as written.
PAYTABLES: Mapping[str, RouletteXPaytable] = MappingProxyType({
    "A": RouletteXPaytable("A", frozenset({Wheel.SINGLE_ZERO, Wheel.DOUBLE_ZERO}), ToOne(28),
                           (ToOne(50), ToOne(100), ToOne(250), ToOne(500))),
    "B": RouletteXPaytable("B", frozenset({Wheel.DOUBLE_ZERO}), ToOne(30),
                           (ToOne(50), ToOne(100), ToOne(175), ToOne(250))),
})


def paytable_for(name: str, wheel: Wheel | str) -> RouletteXPaytable:
    """Paytable ``name`` on ``wheel``; refuses a paytable the wheel is not authorized for
    (§ 617b.5(g): Paytable B is for a double zero wheel only)."""
    wheel = Wheel(wheel)
    if name not in PAYTABLES:
        raise RouletteXError(f"no Roulette X paytable {name!r}: § 617b.5(g) has A and B")
    t = PAYTABLES[name]
    if wheel not in t.wheels:
        raise RouletteXError(f"§ 617b.5(g): Roulette X Paytable {name} is authorized on a "
                             f"{' or '.join(sorted(t.wheels))} wheel only, not on a {wheel} wheel")
    return t


# --------------------------------------------------------------------------- lit numbers

@dataclass(frozen=True)
class LitNumbers:
    """The multipliers the random number generator selected for one round (§ 617b.5(d)): 2 to 5
    distinct numbers of the wheel, each with an increased payout of the paytable."""

    wheel: Wheel
    paytable: RouletteXPaytable
    payouts: Mapping[Pocket, ToOne]

    @classmethod
    def of(cls, pairs: Iterable[tuple[Pocket | str, ToOne | int]] | Mapping[Any, ToOne | int],
           table: str | RouletteXPaytable, wheel: Wheel | str) -> LitNumbers:
        """Validate the generator's selection: ``(number, payout)`` pairs or a mapping."""
        wheel = Wheel(wheel)
        t = paytable_for(table.name if isinstance(table, RouletteXPaytable) else table, wheel)
        items = list(pairs.items() if isinstance(pairs, Mapping) else pairs)
        numbers = [parse_pocket(n, wheel) for n, _ in items]
        if dupes := sorted({str(n) for n in numbers if numbers.count(n) > 1}):
            raise RouletteXError(f"§ 617b.5(d): the multipliers are distinct numbers; {', '.join(dupes)} selected twice")
        if not MIN_LIT <= len(numbers) <= MAX_LIT:
            raise RouletteXError(f"§ 617b.5(d): the generator selects between {MIN_LIT} and {MAX_LIT} numbers; "
                                 f"{len(numbers)} selected")
        payouts: dict[Pocket, ToOne] = {}
        for n, (_, odds) in zip(numbers, items, strict=True):
            odds = ToOne(odds) if isinstance(odds, int) and not isinstance(odds, bool) else odds
            if odds not in t.multipliers:
                raise RouletteXError(f"§ 617b.5(g): {n} lit at {odds}; Paytable {t.name}'s multipliers are "
                                     f"{', '.join(map(str, t.multipliers))}")
            payouts[n] = odds
        return cls(wheel, t, MappingProxyType(payouts))


@dataclass(frozen=True)
class StraightSettlement:
    """A straight wager settled (§ 617b.5(e)–(f)); ``returned_cents`` includes the stake."""

    number: Pocket
    result: Pocket
    odds: ToOne | None
    lit: bool
    stake_cents: int
    returned_cents: int

    @property
    def win_cents(self) -> int:
        return self.returned_cents - self.stake_cents


def straight_odds(number: Pocket | str, result: Pocket | str, lit: LitNumbers) -> ToOne | None:
    """The odds a straight wager on ``number`` wins at when ``result`` is announced: the lit
    payout if ``number`` is lit (§ 617b.5(e)), else the paytable's straight odds (§ 617b.5(f));
    None if it loses."""
    number, result = parse_pocket(number, lit.wheel), parse_pocket(result, lit.wheel)
    if number != result:
        return None
    return lit.payouts.get(number, lit.paytable.straight)


def settle_straight(number: Pocket | str, result: Pocket | str, lit: LitNumbers, stake_cents: int) -> StraightSettlement:
    """Settle a straight wager of ``stake_cents`` on ``number``."""
    if isinstance(stake_cents, bool) or not isinstance(stake_cents, int) or stake_cents <= 0:
        raise ValueError(f"a stake is a positive number of cents, not {stake_cents!r}")
    odds = straight_odds(number, result, lit)
    n, r = parse_pocket(number, lit.wheel), parse_pocket(result, lit.wheel)
    returned = 0 if odds is None else stake_cents + odds.profit_cents(stake_cents)
    return StraightSettlement(n, r, odds, n in lit.payouts, stake_cents, returned)


# --------------------------------------------------------------------------- PAR (Rules Submission)

_Positive = Annotated[int, Field(strict=True, gt=0)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _RouletteXPar(_Model):
    """PAR of the random number generator for one paytable: the weights of how many numbers are
    lit (2..5) and of the payout each lit number gets (independently of the others)."""

    PAYTABLE: ClassVar[str]
    lit_count_weights: dict[int, _Positive]
    multiplier_weights: dict[int, _Positive]

    @field_validator("lit_count_weights")
    @classmethod
    def _two_to_five(cls, w: dict[int, int]) -> dict[int, int]:
        if not w:
            raise ValueError("§ 617b.5(d): at least one count of lit numbers")
        if bad := sorted(k for k in w if not MIN_LIT <= k <= MAX_LIT):
            raise ValueError(f"§ 617b.5(d): between {MIN_LIT} and {MAX_LIT} numbers are lit; not allowed "
                             f"{', '.join(map(str, bad))}")
        return dict(sorted(w.items()))

    @field_validator("multiplier_weights")
    @classmethod
    def _paytable_multipliers(cls, w: dict[int, int]) -> dict[int, int]:
        allowed = [m.ratio for m in PAYTABLES[cls.PAYTABLE].multipliers]
        if set(w) != set(allowed):
            missing = ", ".join(str(m) for m in allowed if m not in w)
            extra = ", ".join(str(m) for m in w if m not in allowed)
            raise ValueError(f"§ 617b.5(g): Paytable {cls.PAYTABLE}'s multipliers are exactly "
                             f"{', '.join(f'{m} to 1' for m in allowed)}"
                             + (f"; missing {missing}" if missing else "") + (f"; not allowed {extra}" if extra else ""))
        return dict(sorted(w.items()))

    def lit_count_probability(self, k: int) -> Fraction:
        return Fraction(self.lit_count_weights.get(k, 0), sum(self.lit_count_weights.values()))

    def multiplier_probability(self, m: int) -> Fraction:
        return Fraction(self.multiplier_weights.get(m, 0), sum(self.multiplier_weights.values()))

    def expected_lit(self) -> Fraction:
        return sum((k * self.lit_count_probability(k) for k in self.lit_count_weights), Fraction(0))


class PaytableAPar(_RouletteXPar):
    PAYTABLE = "A"


class PaytableBPar(_RouletteXPar):
    PAYTABLE = "B"


class RouletteXPars(_Model):
    A: PaytableAPar | None = None
    B: PaytableBPar | None = None


class RouletteXSubmission(_Model):
    """A Roulette X Rules Submission (§ 601a.2): the selected paytable (§ 617b.5(g)) and the PAR
    of the random number generator (§ 617b.5(b), (d)) for each paytable given."""

    model_config = ConfigDict(populate_by_name=True)

    schema_version: Literal[1] = Field(alias="schema")
    game: Literal["roulette-x"]
    name: str
    operator: str
    notes: str = ""
    paytable: Literal["A", "B"]
    par: RouletteXPars

    @model_validator(mode="after")
    def _selected_has_par(self) -> RouletteXSubmission:
        if getattr(self.par, self.paytable) is None:
            raise ValueError(f"the selected Paytable {self.paytable} has no PAR: add [par.{self.paytable}]")
        return self

    def par_for(self, table: str | None = None) -> _RouletteXPar:
        name = table or self.paytable
        par = getattr(self.par, name, None)
        if par is None:
            raise RouletteXError(f"the Rules Submission has no PAR for Roulette X Paytable {name}")
        return par


def parse_roulette_x_submission(text: str, source: str = "<string>") -> RouletteXSubmission:
    """Parse and validate a Roulette X Rules Submission; the first problem raises
    ``rules.submission.RulesSubmissionError`` (``source:line: field: message``)."""
    return parse_toml_model(RouletteXSubmission, text, source)


# --------------------------------------------------------------------------- the generator (sim)

def draw_lit(rng: np.random.Generator, sub: RouletteXSubmission, wheel: Wheel | str) -> LitNumbers:
    """One § 617b.5(d) selection by the PAR, from ``rng`` (for the sim; pure given ``rng``)."""
    wheel = Wheel(wheel)
    t = paytable_for(sub.paytable, wheel)
    par = sub.par_for()
    counts, cw = zip(*par.lit_count_weights.items(), strict=True)
    mults, mw = zip(*par.multiplier_weights.items(), strict=True)
    k = int(rng.choice(counts, p=np.array(cw) / sum(cw)))
    ps = pockets(wheel)
    chosen = rng.choice(len(ps), size=k, replace=False)
    odds = rng.choice(mults, size=k, p=np.array(mw) / sum(mw))
    return LitNumbers.of([(ps[i], ToOne(int(m))) for i, m in zip(chosen, odds, strict=True)], t, wheel)


# --------------------------------------------------------------------------- exact RTP

def roulette_x_rtp(sub: RouletteXSubmission, wheel: Wheel | str) -> tuple[WagerRtp, ...]:
    """Exact RTP of each Roulette X wager under ``sub``'s selected paytable on a fair ``wheel``:
    one entry, "straight" (the only wager § 617b.5 defines), ``method`` "exact".

    Σ over the outcomes, exactly: the wager's number w (any one; all are alike), the result r
    uniform over the N pockets, the count k of lit numbers by the PAR, whether w is among the k
    (a uniform k-set of the N pockets holds w with probability k/N) and, if lit, its payout m by
    the PAR. Each (r, lit or not, m) is settled with ``straight_odds`` — the same code that settles
    a round — for return 1 + odds (0 on a loss).
    """
    wheel = Wheel(wheel)
    t = paytable_for(sub.paytable, wheel)
    par = sub.par_for()
    ps = pockets(wheel)
    n = len(ps)
    w = ps[-1]
    rtp = Fraction(0)
    for k in par.lit_count_weights:
        pk = par.lit_count_probability(k)
        p_lit = Fraction(comb(n - 1, k - 1), comb(n, k))  # = k/N
        cases: list[tuple[Fraction, list[tuple[Pocket, ToOne]]]] = [
            (p_lit * par.multiplier_probability(m), [(w, ToOne(m))]) for m in par.multiplier_weights]
        cases.append((1 - p_lit, []))
        for p_case, lit_w in cases:
            # the other lit numbers do not change a straight wager on w; fill up to k with any others
            others = [(p, t.multipliers[0]) for p in ps if p != w][: k - len(lit_w)]
            lit = LitNumbers.of(lit_w + others, t, wheel)
            for r in ps:
                odds = straight_odds(w, r, lit)
                if odds is not None:
                    rtp += pk * p_case * Fraction(1, n) * (1 + odds.ratio)
    return (WagerRtp(f"straight (Paytable {t.name}, {wheel})", rtp, "exact"),)
