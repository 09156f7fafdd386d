"""Outcome data as the statistical battery reads it: the device's possible results (``Alphabet``)
and the results of a run or a log (``OutcomeData``).

The shared contract of issue 15 (docs/analyze.md): readers (``hil.analyze``) build these, the
battery (``hil.stats.battery``) and the planner (``hil.stats.plan``, ``hil.stats.synth``) read
them. Pure: frozen dataclasses, validated at construction; a malformed value raises ``ValueError``
naming the field, what was expected and what was seen (never a traceback deeper in a test).

An ``Alphabet`` lists its symbols in PHYSICAL ORDER around the wheel when ``circular`` (so the
pocket distance between two results, ``(b - a) mod k`` clockwise, is defined): a roulette wheel's
pockets clockwise from 0 (``devices.roulette_wheel.POCKET_ORDER``), the money wheel's 54 sections
clockwise from section 0 (§ 690.1(b), ``rules.crazy_time.WHEEL_SECTIONS``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

#: A probability vector must sum to 1 within this (they are often floats of exact fractions).
PROBABILITY_SUM_TOLERANCE = 1e-9

#: An entry of a 2-D column (several symbols per play, e.g. 2 to 5 lit numbers) that holds nothing.
ABSENT = -1


def _probabilities(weights: Mapping[Any, int | Fraction], keys: Sequence[Any]) -> tuple[float, ...]:
    total = sum(Fraction(weights[k]) for k in keys)
    return tuple(float(Fraction(weights[k]) / total) for k in keys)


@dataclass(frozen=True)
class Alphabet:
    """A device's possible results.

    ``kind``: what they are ("roulette single-zero", "money-wheel sections", "top-slot reel 1", …);
    ``symbols``: their names (distinct strings), in physical order when ``circular``;
    ``probabilities``: each symbol's probability under the null hypothesis (None: uniform);
    ``circular``: the symbols stand in this order around a circle (pocket distance defined)."""

    kind: str
    symbols: tuple[str, ...]
    probabilities: tuple[float, ...] | None = None
    circular: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or not self.kind.strip():
            raise ValueError(f"Alphabet.kind must be a non-empty string, not {self.kind!r}")
        if isinstance(self.symbols, str) or not isinstance(self.symbols, Iterable):
            raise ValueError(f"Alphabet {self.kind!r}: symbols must be a sequence of strings, not {self.symbols!r}")
        symbols = tuple(self.symbols)
        if bad := [s for s in symbols if not isinstance(s, str) or not s]:
            raise ValueError(f"Alphabet {self.kind!r}: every symbol must be a non-empty string; got {bad[0]!r}")
        if len(symbols) < 2:
            raise ValueError(f"Alphabet {self.kind!r}: at least 2 symbols are needed for any test, got {len(symbols)}")
        if len(set(symbols)) != len(symbols):
            dup = sorted({s for s in symbols if symbols.count(s) > 1})
            raise ValueError(f"Alphabet {self.kind!r}: symbols must be distinct; repeated: {', '.join(dup)}")
        object.__setattr__(self, "symbols", symbols)
        if self.probabilities is not None:
            try:
                p = tuple(float(x) for x in self.probabilities)
            except (TypeError, ValueError):
                raise ValueError(f"Alphabet {self.kind!r}: probabilities must be numbers, "
                                 f"got {self.probabilities!r}") from None
            if len(p) != len(symbols):
                raise ValueError(f"Alphabet {self.kind!r}: {len(p)} probabilities for {len(symbols)} symbols")
            if bad_p := [(s, x) for s, x in zip(symbols, p, strict=True) if not (math.isfinite(x) and 0.0 <= x <= 1.0)]:
                raise ValueError(f"Alphabet {self.kind!r}: probability of {bad_p[0][0]!r} must be in [0, 1], "
                                 f"not {bad_p[0][1]!r}")
            if abs(sum(p) - 1.0) > PROBABILITY_SUM_TOLERANCE:
                raise ValueError(f"Alphabet {self.kind!r}: probabilities must sum to 1, they sum to {sum(p)!r}")
            object.__setattr__(self, "probabilities", p)
        if not isinstance(self.circular, bool):
            raise ValueError(f"Alphabet {self.kind!r}: circular must be True or False, not {self.circular!r}")

    # ------------------------------------------------------------------ reading it

    @property
    def k(self) -> int:
        """The number of symbols."""
        return len(self.symbols)

    @property
    def p(self) -> np.ndarray:
        """The null probabilities as an array (uniform when ``probabilities`` is None)."""
        if self.probabilities is None:
            return np.full(self.k, 1.0 / self.k)
        return np.asarray(self.probabilities, dtype=float)

    def index(self, symbol: object) -> int:
        """The index of ``symbol`` (its string form: 17 and "17" are the same pocket)."""
        try:
            return self.symbols.index(str(symbol))
        except ValueError:
            shown = ", ".join(self.symbols[:12]) + (", …" if self.k > 12 else "")
            raise ValueError(f"{symbol!r} is no result of {self.kind} (its symbols: {shown})") from None

    def encode(self, values: Iterable[object]) -> np.ndarray:
        """``values`` (symbols or their string forms) as an int64 index array, play order kept."""
        lookup = {s: i for i, s in enumerate(self.symbols)}
        out = []
        for n, v in enumerate(values):
            i = lookup.get(str(v))
            if i is None:
                shown = ", ".join(self.symbols[:12]) + (", …" if self.k > 12 else "")
                raise ValueError(f"play {n}: {v!r} is no result of {self.kind} (its symbols: {shown})")
            out.append(i)
        return np.asarray(out, dtype=np.int64)

    # ------------------------------------------------------------------ constructors

    @classmethod
    def roulette(cls, wheel: str = "single-zero") -> Alphabet:
        """A roulette wheel's pockets clockwise from 0, in the real order of the wheel
        (``devices.roulette_wheel.POCKET_ORDER``: European single zero, American double zero)."""
        from devices.roulette_wheel import POCKET_ORDER
        from rules.roulette import Wheel
        try:
            w = Wheel(wheel)
        except ValueError:
            raise ValueError(f"no roulette wheel {wheel!r}: 'single-zero' or 'double-zero'") from None
        return cls(f"roulette {w}", tuple(str(p) for p in POCKET_ORDER[w]), None, True)

    @classmethod
    def money_wheel(cls, submission: Any = None) -> Alphabet:
        """The money wheel's sections clockwise from section 0, each equally likely (a fair
        wheel: every section spans the same angle). Symbol ``i`` is named ``"<i>:<spot>"``
        (``"5:pachinko"``): section 5 shows Pachinko.

        ``submission``: None or a ``RulesSubmission`` — the layout of § 690.1(b) (the Rules
        Submission of chapter 690 does not move the sections); or the wheel's own list of
        spot names clockwise from section 0 (its ``device_info`` ``sections``, for a wheel built
        otherwise: analysed as it is)."""
        from rules.crazy_time import WHEEL_SECTIONS
        if submission is None or hasattr(submission, "top_slot"):
            layout: Sequence[str] = tuple(str(s) for s in WHEEL_SECTIONS)
        elif isinstance(submission, str) or not isinstance(submission, Iterable):
            raise ValueError(f"money_wheel: a RulesSubmission or the sections' spot names, not {submission!r}")
        else:
            layout = tuple(str(s) for s in submission)
        return cls("money-wheel sections", tuple(f"{i}:{s}" for i, s in enumerate(layout)), None, True)

    @classmethod
    def money_wheel_spots(cls, sections: Sequence[str] | None = None) -> Alphabet:
        """The money wheel's eight symbols (§ 690.1(a)), each as likely as its share of the sections
        (21/54 for "1", …): for logs that give the symbol only, not the section. Not circular."""
        from rules.crazy_time import SPOTS, WHEEL_SECTIONS
        layout = [str(s) for s in (WHEEL_SECTIONS if sections is None else sections)]
        spots = [str(s) for s in SPOTS]
        if extra := sorted(set(layout) - set(spots)):
            raise ValueError(f"money_wheel_spots: {', '.join(extra)} is no symbol of § 690.1(a) ({', '.join(spots)})")
        counts = {s: layout.count(s) for s in spots}
        kept = [s for s in spots if counts[s]]
        return cls("money-wheel spots", tuple(kept), tuple(counts[s] / len(layout) for s in kept), False)

    @classmethod
    def top_slot(cls, submission: Any = None, reel: int = 1) -> Alphabet:
        """A Top Slot reel (§ 690.3(b)): reel 1 the betting options, reel 2 the multipliers, each
        weighted by the Rules Submission's PAR (the packaged reference one when None)."""
        from rules.crazy_time import SPOTS, TOP_SLOT_REEL2
        par = _rules(submission).top_slot
        if reel == 1:
            keys: Sequence[Any] = list(SPOTS)
            return cls("top-slot reel 1", tuple(str(s) for s in keys), _probabilities(par.reel1_weights, keys))
        if reel == 2:
            keys = list(TOP_SLOT_REEL2)
            return cls("top-slot reel 2", tuple(f"{m}x" for m in keys), _probabilities(par.reel2_weights, keys))
        raise ValueError(f"top_slot: reel 1 or 2 (§ 690.3(b)), not {reel!r}")

    @classmethod
    def top_slot_aligned(cls, submission: Any = None) -> Alphabet:
        """Whether the Top Slot's reels aligned (§ 690.3(c)): "no" / "yes" at the PAR's align probability."""
        a = Fraction(_rules(submission).top_slot.align_probability)
        return cls("top-slot aligned", ("no", "yes"), (float(1 - a), float(a)))

    @classmethod
    def pachinko_spots(cls, submission: Any = None) -> Alphabet:
        """The Pachinko board's 16 landing spots (§ 690.7(b)), "1".."16" from the left, at the exact
        landing probabilities of the declared lattice for a uniformly chosen drop zone (§ 690.7(d)).
        Not circular (the board has walls)."""
        from rules.pachinko import LANDING_SPOTS
        p = _rules(submission).pachinko.lattice.landing_probabilities()
        return cls("pachinko landing spots", tuple(str(k) for k in range(1, LANDING_SPOTS + 1)),
                   tuple(float(x) for x in p))

    @classmethod
    def board_values(cls, game: str, submission: Any = None) -> Alphabet:
        """The multipliers one cell of a bonus board is drawn as, weighted by the PAR:
        ``game`` "coin-flip" (§ 690.5(c)), "cash-hunt" (§ 690.6(b)), "pachinko" (§ 690.7),
        "crazy-time-world" (§ 690.8)."""
        fields = {"coin-flip": "coin_flip", "cash-hunt": "cash_hunt", "pachinko": "pachinko",
                  "crazy-time-world": "crazy_time_world"}
        if game not in fields:
            raise ValueError(f"board_values: no bonus board {game!r} (one of {', '.join(fields)})")
        w = getattr(_rules(submission), fields[game]).multiplier_weights
        keys = sorted(w)
        return cls(f"{game} board values", tuple(f"{m}x" for m in keys), _probabilities(w, keys))

    @classmethod
    def lit_numbers(cls, wheel: str = "single-zero") -> Alphabet:
        """The numbers the Roulette X generator can light (§ 617b.5(d)): every number of the wheel,
        in the order of § 617b.4(g)(1)(ii), each equally likely (the lit set is uniform). Used as a
        2-D column (n plays × up to 5 lit, ``ABSENT`` padding): the numbers of one play are
        distinct, so they are not independent draws."""
        from rules.roulette import Wheel, pockets
        try:
            w = Wheel(wheel)
        except ValueError:
            raise ValueError(f"no roulette wheel {wheel!r}: 'single-zero' or 'double-zero'") from None
        return cls(f"lit numbers {w}", tuple(str(p) for p in pockets(w)), None, False)

    @classmethod
    def lit_counts(cls, submission: Any = None) -> Alphabet:
        """How many numbers the generator lit (2..5, § 617b.5(d)), weighted by the PAR."""
        par = _roulette_x(submission).par_for()
        keys = sorted(par.lit_count_weights)
        return cls("lit count", tuple(str(k) for k in keys), _probabilities(par.lit_count_weights, keys))

    @classmethod
    def lit_multipliers(cls, submission: Any = None) -> Alphabet:
        """The payout a lit number is given (§ 617b.5(g)), weighted by the PAR."""
        par = _roulette_x(submission).par_for()
        keys = sorted(par.multiplier_weights)
        return cls("lit multiplier", tuple(f"{m}:1" for m in keys), _probabilities(par.multiplier_weights, keys))


def _rules(submission: Any) -> Any:
    """``submission`` or the packaged reference Crazy Time Rules Submission."""
    if submission is not None:
        if not hasattr(submission, "top_slot"):
            raise ValueError(f"expected a Crazy Time RulesSubmission, not {type(submission).__name__}")
        return submission
    from importlib.resources import files

    from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission
    res = files("rules") / DEFAULT_RULES_RESOURCE
    return parse_rules_submission(res.read_text(encoding="utf-8"), str(DEFAULT_RULES_RESOURCE))


def _roulette_x(submission: Any) -> Any:
    """``submission`` or the packaged reference Roulette X Rules Submission."""
    if submission is not None:
        if not hasattr(submission, "par_for"):
            raise ValueError(f"expected a RouletteXSubmission, not {type(submission).__name__}")
        return submission
    from importlib.resources import files

    from rules.roulette_x import ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission
    res = files("rules") / ROULETTE_X_REFERENCE_RESOURCE
    return parse_roulette_x_submission(res.read_text(encoding="utf-8"), str(ROULETTE_X_REFERENCE_RESOURCE))


def _int_array(name: str, value: Any, n: int | None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"OutcomeData.{name} must hold integers, not {arr.dtype} values")
    arr = arr.astype(np.int64)
    if n is not None and arr.shape[:1] != (n,):
        raise ValueError(f"OutcomeData.{name} has {arr.shape[0] if arr.ndim else 0} entries; results has {n} plays")
    return arr


@dataclass(frozen=True)
class OutcomeData:
    """The results of a run or a log, in play order.

    ``results``: index into ``alphabet.symbols``, one per play (1-D int). The per-play arrays,
    each None or of the same length: ``direction`` (+1 clockwise, -1 anticlockwise, 0 unknown),
    ``time`` (s), ``dealer`` (str), ``spin`` (the play's id in the source), ``release`` (index of
    the symbol under the release point, ``ABSENT`` where unknown). ``columns``: other symbols of
    the same play, name → (Alphabet, array of shape (n,) or (n, m), ``ABSENT`` padding a 2-D
    row: a Top Slot reel, the lit numbers)."""

    source: str
    alphabet: Alphabet
    results: np.ndarray
    direction: np.ndarray | None = None
    time: np.ndarray | None = None
    dealer: np.ndarray | None = None
    spin: np.ndarray | None = None
    release: np.ndarray | None = None
    columns: dict[str, tuple[Alphabet, np.ndarray]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.source, str):
            raise ValueError(f"OutcomeData.source must be a string, not {self.source!r}")
        if not isinstance(self.alphabet, Alphabet):
            raise ValueError(f"OutcomeData.alphabet must be an Alphabet, not {type(self.alphabet).__name__}")
        a = self.alphabet
        res = _int_array("results", self.results, None)
        if res.ndim != 1:
            raise ValueError(f"OutcomeData.results must be 1-D (one result a play), not of shape {res.shape}")
        if res.size and (res.min() < 0 or res.max() >= a.k):
            bad = int(np.flatnonzero((res < 0) | (res >= a.k))[0])
            raise ValueError(f"OutcomeData.results[{bad}] = {int(res[bad])} is no index of {a.kind} "
                             f"(0..{a.k - 1})")
        object.__setattr__(self, "results", res)
        n = res.size
        if self.direction is not None:
            d = _int_array("direction", self.direction, n)
            if d.ndim != 1 or not np.isin(d, (-1, 0, 1)).all():
                bad = np.setdiff1d(np.unique(d), (-1, 0, 1))[:3].tolist()
                raise ValueError(f"OutcomeData.direction holds +1 (clockwise), -1 (anticlockwise) or 0 (unknown); "
                                 f"got {bad}")
            object.__setattr__(self, "direction", d)
        if self.time is not None:
            t = np.asarray(self.time, dtype=float) if np.asarray(self.time).dtype.kind in "iuf" else None
            if t is None or t.shape != (n,):
                raise ValueError(f"OutcomeData.time must be {n} numbers (s), "
                                 f"got {np.asarray(self.time).dtype} of shape {np.asarray(self.time).shape}")
            object.__setattr__(self, "time", t)
        if self.dealer is not None:
            dl = np.asarray(self.dealer, dtype=object)
            if dl.shape != (n,) or not all(isinstance(x, str) for x in dl):
                raise ValueError(f"OutcomeData.dealer must be {n} strings (one a play), got shape {dl.shape}")
            object.__setattr__(self, "dealer", dl)
        if self.spin is not None:
            object.__setattr__(self, "spin", _int_array("spin", self.spin, n))
        if self.release is not None:
            r = _int_array("release", self.release, n)
            if r.ndim != 1 or (r.size and (r.min() < ABSENT or r.max() >= a.k)):
                raise ValueError(f"OutcomeData.release holds indices of {a.kind} (0..{a.k - 1}) or {ABSENT} "
                                 f"(unknown)")
            object.__setattr__(self, "release", r)
        if not isinstance(self.columns, Mapping):
            raise ValueError(f"OutcomeData.columns must be a dict name -> (Alphabet, array), not {self.columns!r}")
        cols: dict[str, tuple[Alphabet, np.ndarray]] = {}
        for name, value in self.columns.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"OutcomeData.columns: a column name must be a non-empty string, not {name!r}")
            if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Alphabet)):
                raise ValueError(f"OutcomeData.columns[{name!r}] must be (Alphabet, array), not {type(value).__name__}")
            ca, arr = value
            arr = _int_array(f"columns[{name!r}]", arr, n)
            if arr.ndim not in (1, 2):
                raise ValueError(f"OutcomeData.columns[{name!r}] must be of shape (n,) or (n, m), not {arr.shape}")
            lo = ABSENT if arr.ndim == 2 else 0
            if arr.size and (arr.min() < lo or arr.max() >= ca.k):
                raise ValueError(f"OutcomeData.columns[{name!r}] holds indices of {ca.kind} (0..{ca.k - 1})"
                                 + (f" or {ABSENT} (absent)" if arr.ndim == 2 else "")
                                 + f"; got {int(arr.min())}..{int(arr.max())}")
            cols[name] = (ca, arr)
        object.__setattr__(self, "columns", cols)

    @property
    def n(self) -> int:
        """The number of plays."""
        return int(self.results.size)

    def __len__(self) -> int:
        return self.n

    def subset(self, mask: Any, label: str | None = None) -> OutcomeData:
        """The plays where ``mask`` (a boolean array of length n) is True, in play order; every
        per-play array and column cut alike. ``label`` is added to ``source`` ("… [clockwise]").
        Consecutive plays of a subset need not have been consecutive: a serial test over a subset
        is over the subset's order."""
        m = np.asarray(mask)
        if m.dtype != bool or m.shape != (self.n,):
            raise ValueError(f"OutcomeData.subset: mask must be a boolean array of {self.n} entries, "
                             f"not {m.dtype} of shape {m.shape}")

        def cut(x: np.ndarray | None) -> np.ndarray | None:
            return None if x is None else x[m]

        return replace(self, source=self.source + (f" [{label}]" if label else ""), results=self.results[m],
                       direction=cut(self.direction), time=cut(self.time), dealer=cut(self.dealer),
                       spin=cut(self.spin), release=cut(self.release),
                       columns={k: (a, v[m]) for k, (a, v) in self.columns.items()})
