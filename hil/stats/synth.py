"""Biased synthetic outcome data: what the planner (``hil.stats.plan``), the sequential monitor
(``hil.stats.sequential``) and the battery's power measurements (``bench/analyze_power.py``) feed
the battery with.

A bias is a sentence (``parse_bias``), one of three kinds, each a fault a lab looks for:

* a hot (or cold) pocket or section, ``"pocket 17 +20 %"`` / ``"section 5:pachinko +20 %"`` /
  ``"section pachinko +20 %"`` (every section showing Pachinko) / ``"pockets 26 0 32 +30 %"`` (a
  hot sector, as a rotor out of level makes): the named symbols' probabilities are multiplied by
  ``1 + X``, the others scaled so the whole sums to 1;
* neighbour dependence, ``"neighbour +20 %"``: after a result, the two symbols adjacent to it on the
  wheel are ``X`` more likely next. A Markov chain that is doubly stochastic, so its stationary
  distribution stays uniform: the χ² of the counts cannot see it, the pocket-distance test can;
* a direction-only bias, ``"clockwise pocket 17 +20 %"`` (or ``anticlockwise``): the hot pocket in
  spins of that direction only, the other direction fair (a dealer's signature in one hand).

``"none"`` (or ``"fair"``) is no bias: data under the null hypothesis. A bias that does not parse,
or names a symbol not on the wheel, raises ``ValueError`` saying what was expected.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from hil.stats.data import Alphabet, OutcomeData

BiasKind = Literal["none", "hot", "neighbour", "direction"]

#: the grammar ``parse_bias`` reads (said in its errors)
BIAS_FORMS = ("'pocket 17 +20 %'", "'pockets 26 0 32 +30 %'", "'section 5:pachinko +20 %'", "'neighbour +20 %'",
              "'clockwise pocket 17 +20 %'", "'anticlockwise pocket 17 +20 %'", "'none'")

_PCT = r"(?P<pct>[+-]\s*\d+(?:\.\d+)?|\d+(?:\.\d+)?)\s*%"
_HOT = re.compile(rf"^(?:(?P<dir>clockwise|cw|anticlockwise|anti-clockwise|counterclockwise|counter-clockwise|ccw)\s+)?"
                  rf"(?P<what>pockets?|sections?|symbols?|numbers?)\s+(?P<sym>\S+(?:(?:\s*,\s*|\s+)[^\s,%+-][^\s,]*)*)\s+{_PCT}$",
                  re.IGNORECASE)
_NEIGHBOUR = re.compile(rf"^(?:neighbou?rs?|neighbou?r dependence)\s+{_PCT}$", re.IGNORECASE)
_NONE = re.compile(r"^(?:none|fair|unbiased|h0)$", re.IGNORECASE)


@dataclass(frozen=True)
class Bias:
    """A parsed bias. ``strength``: the relative excess as a fraction (+20 % -> 0.2);
    ``symbol``: the pocket or section as written (hot and direction kinds); ``direction``: +1
    (clockwise) or -1 (anticlockwise) for a direction-only bias, else 0; ``text``: as given."""

    kind: BiasKind
    strength: float = 0.0
    symbol: str | None = None
    direction: int = 0
    text: str = "none"

    # ------------------------------------------------------------------ against a wheel
    def targets(self, alphabet: Alphabet) -> tuple[int, ...]:
        """The indices of the symbols a hot or direction-only bias raises. A symbol is matched
        exactly ("17", "5:pachinko"), by its section number ("5" -> "5:pachinko") or by the spot
        it shows ("pachinko" -> every Pachinko section). ValueError when none matches."""
        if self.symbol is None:
            return ()
        syms = [s.lower() for s in alphabet.symbols]
        found: list[int] = []
        for want in self.symbol.replace(",", " ").lower().split():
            if want in syms:
                hit = [syms.index(want)]
            elif not (hit := [i for i, s in enumerate(syms) if ":" in s and s.split(":", 1)[0] == want]):
                hit = [i for i, s in enumerate(syms) if ":" in s and s.split(":", 1)[1] == want]
            if not hit:
                shown = ", ".join(alphabet.symbols[:12]) + (", …" if alphabet.k > 12 else "")
                raise ValueError(f"bias {self.text!r}: {want!r} is not on the {alphabet.kind} wheel "
                                 f"(its symbols: {shown})")
            found.extend(i for i in hit if i not in found)
        if len(found) == alphabet.k:
            raise ValueError(f"bias {self.text!r} raises every symbol of {alphabet.kind}: that is no bias")
        return tuple(found)

    def p1(self, alphabet: Alphabet) -> np.ndarray:
        """The biased distribution of one result (hot; direction-only: in the biased direction;
        neighbour and none: the null's, since their marginal is unchanged)."""
        p0 = alphabet.p
        if self.kind not in ("hot", "direction"):
            return p0.copy()
        idx = list(self.targets(alphabet))
        hot = float(p0[idx].sum())
        raised = hot * (1.0 + self.strength)
        if not 0.0 <= raised < 1.0:
            raise ValueError(f"bias {self.text!r}: raises {self.symbol!r} from {hot:.4g} to {raised:.4g}, "
                             "no probability")
        p = p0 * ((1.0 - raised) / (1.0 - hot))
        p[idx] = p0[idx] * (1.0 + self.strength)
        return p

    def check(self, alphabet: Alphabet) -> None:
        """ValueError when this bias cannot be applied to ``alphabet``."""
        if self.kind == "neighbour":
            if not alphabet.circular:
                raise ValueError(f"bias {self.text!r}: {alphabet.kind} is not a wheel (no neighbours: its symbols "
                                 "stand in no circle)")
            if alphabet.probabilities is not None and not np.allclose(alphabet.p, 1.0 / alphabet.k):
                raise ValueError(f"bias {self.text!r}: the neighbour chain keeps a uniform wheel uniform; "
                                 f"{alphabet.kind} is not uniform under the null")
            if alphabet.k < 3:
                raise ValueError(f"bias {self.text!r}: a wheel of {alphabet.k} symbols has no two neighbours")
        elif self.kind in ("hot", "direction"):
            self.p1(alphabet)

    def transition(self, alphabet: Alphabet) -> np.ndarray:
        """The neighbour chain's transition matrix P[i, j] = P(next = j | last = i): the two
        neighbours of i get (1 + X)/(k + 2X), every other symbol (i too) 1/(k + 2X)."""
        k = alphabet.k
        x = self.strength if self.kind == "neighbour" else 0.0
        m = np.full((k, k), 1.0 / (k + 2 * x))
        for i in range(k):
            m[i, (i + 1) % k] = m[i, (i - 1) % k] = (1.0 + x) / (k + 2 * x)
        return m


def parse_bias(text: str) -> Bias:
    """``"pocket 17 +20 %"``, ``"section pachinko +20 %"``, ``"neighbour +20 %"``,
    ``"clockwise pocket 17 +20 %"`` or ``"none"`` as a ``Bias``; ValueError on anything else."""
    if not isinstance(text, str):
        raise ValueError(f"a bias is a string such as {BIAS_FORMS[0]}, not {text!r}")
    t = " ".join(text.split())
    if _NONE.match(t):
        return Bias("none", text=t)
    if m := _NEIGHBOUR.match(t):
        x = _strength(m.group("pct"), t)
        if x <= -1.0:
            raise ValueError(f"bias {t!r}: a neighbour cannot be {m.group('pct')} % as likely (below 0)")
        return Bias("neighbour", x, text=t)
    if m := _HOT.match(t):
        x = _strength(m.group("pct"), t)
        if x <= -1.0:
            raise ValueError(f"bias {t!r}: a pocket cannot be made {m.group('pct')} % as likely (below 0)")
        d = m.group("dir")
        if d is None:
            return Bias("hot", x, m.group("sym"), 0, t)
        sign = +1 if d.lower() in ("clockwise", "cw") else -1
        return Bias("direction", x, m.group("sym"), sign, t)
    raise ValueError(f"cannot read the bias {text!r}: expected one of {', '.join(BIAS_FORMS)}")


def _strength(pct: str, text: str) -> float:
    x = float(pct.replace(" ", "")) / 100.0
    if not math.isfinite(x):
        raise ValueError(f"bias {text!r}: {pct} % is no number")
    return x


def directions(n: int, rng: np.random.Generator, how: bool | str = True) -> np.ndarray | None:
    """The spins' directions: ``True``/``"alternate"`` as a real wheel (clockwise first),
    ``"random"`` drawn fairly, ``False``/``None`` unknown (None)."""
    if how is False or how is None:
        return None
    if how is True or how == "alternate":
        d = np.ones(n, np.int64)
        d[1::2] = -1
        return d
    if how == "random":
        return rng.choice(np.array([1, -1], np.int64), size=n)
    raise ValueError(f"direction: True / 'alternate', 'random' or False, not {how!r}")


def simulate(alphabet: Alphabet, n: int, bias: Bias | str, rng: np.random.Generator,
             direction: bool | str = True) -> OutcomeData:
    """``n`` plays of ``alphabet`` under ``bias`` (a ``Bias`` or its sentence), drawn from ``rng``;
    vectorised (a million plays in well under a second). ``direction``: ``True`` (alternating,
    clockwise first, as a real wheel), ``"random"`` or ``False`` (no directions; a direction-only
    bias then refuses)."""
    b = parse_bias(bias) if isinstance(bias, str) else bias
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"simulate: n must be a whole number of plays >= 0, not {n!r}")
    n = int(n)
    b.check(alphabet)
    d = directions(n, rng, direction)
    k, p0 = alphabet.k, alphabet.p
    if b.kind == "neighbour":
        results = _neighbour_chain(k, n, b.strength, rng)
    elif b.kind == "direction":
        if d is None:
            raise ValueError(f"bias {b.text!r} is direction-only: simulate it with directions (direction=True)")
        results = rng.choice(k, size=n, p=p0)
        biased = d == b.direction
        if biased.any():
            results[biased] = rng.choice(k, size=int(biased.sum()), p=b.p1(alphabet))
    else:
        results = rng.choice(k, size=n, p=b.p1(alphabet) if b.kind == "hot" else p0)
    return OutcomeData(f"synthetic: {b.text}, {n} plays", alphabet, results.astype(np.int64), direction=d,
                       spin=np.arange(1, n + 1, dtype=np.int64))


def _neighbour_chain(k: int, n: int, x: float, rng: np.random.Generator, first: int | None = None) -> np.ndarray:
    """The neighbour chain, vectorised. Each step is a fresh uniform draw with probability
    k/(k + 2x), else a step to one of the two neighbours of the last result (±1, equally likely):
    the mixture has exactly ``Bias.transition``'s rows. (x < 0, a cold neighbourhood, is no
    mixture: drawn step by step from the rows, slower.) ``first``: the chain's first result
    (None: drawn uniformly), so a chain can go on from where an earlier block left it."""
    if n == 0:
        return np.empty(0, np.int64)
    if x >= 0:
        fresh = rng.random(n) < k / (k + 2 * x)
        fresh[0] = True
        start = rng.integers(0, k, size=n)
        if first is not None:
            start[0] = first
        step = np.where(rng.random(n) < 0.5, -1, 1) * ~fresh
        walk = np.cumsum(step)
        last_fresh = np.maximum.accumulate(np.where(fresh, np.arange(n), 0))
        return (start[last_fresh] + walk - walk[last_fresh]) % k
    cum = np.cumsum(Bias("neighbour", x).transition(Alphabet("wheel", tuple(map(str, range(k))), None, True)), axis=1)
    out = np.empty(n, np.int64)
    out[0] = rng.integers(0, k) if first is None else first
    u = rng.random(n)
    for t in range(1, n):
        out[t] = min(int(np.searchsorted(cum[out[t - 1]], u[t] * cum[out[t - 1], -1])), k - 1)
    return out


__all__ = ["BIAS_FORMS", "Bias", "directions", "parse_bias", "simulate"]
