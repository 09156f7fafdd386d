"""Monte Carlo kernels for Roulette Up (§ 617b.4) and Roulette X (§ 617b.5).

Independent maths: the kernels play the game as the regulation words it, spin by spin, vectorised
across the chunk with numpy; they read the paytables (``rules.roulette_up.PAYTABLES``,
``rules.roulette_x.PAYTABLES``, the Rules Submission's PAR) and nothing of the exact-RTP code.

**Roulette Up.** A wager is one streak. A spin is a uniform draw of a pocket's RANK in the order
of § 617b.4(g)(1): on a single-zero wheel 0..36 (the number itself), on a double-zero wheel
0 → 0, 00 → 1, n → n + 1 ("00 shall be deemed to be greater than 0, but less than 1",
§ 617b.4(g)(1)(ii)); the wheel is fair, so each of the N ranks has probability 1/N. The first spin
after the wagers is the starting number, box 1 (§ 617b.4(f)). Each later spin continues the
streak while the number is greater than the one before (§ 617b.4(g)(1)(i): the dolly moves to the
next box) and the streak ends (§ 617b.4(g)(2)) on a number less than or equal to the preceding
one (no box), on 36 (its box counts: it is greater than anything before it; a starting 36 ends
the streak at box 1), or when the paytable's longest streak is reached. All the streaks of the
chunk are played at once: each spin is drawn only for the streaks still running (the array is
compacted after each spin), so the spins drawn are the spins a table would deal. Only the count
of streaks reaching each box is kept (exact ints), and every paytable is settled from it: a "N to
1" row returns 1 + N stakes, a "N for 1" row N stakes, a push 1, a loss 0, and "100% of
progressive meter" the meter at its seed/reseed (the "Seed/Reseed" cell: 10,000× or 3,000× the
progressive wager) — the figure ``croupier rtp roulette-up`` calls ``rtp`` (its ``rtp_long_run``
adds the incrementation rate, which a meter-at-seed simulation does not see). Paytables A–E and
progressive 4–7 have a longest streak of 8, progressive 1–3 of 9: the 8-box tables end a streak
at box 8 (their count of streaks at ≥ 8 boxes is the 9-box play's, the same spins up to there).

The wager names are ``croupier rtp roulette-up``'s ("roulette-up A", "roulette-up progressive
1"); they do not name the wheel, so one run plays one wheel (option ``wheel``).

**Roulette X.** Each spin (§ 617b.5(d)): the random number generator picks how many numbers are
lit (2..5) by the PAR's weights, then that many distinct numbers of the wheel in use (uniform:
an ordered draw without replacement, the first k kept) and for each lit number its payout by the
PAR's multiplier weights, independently (the Rules Submission's decisions, docs/rules-roulette.md);
then the ball lands on a uniform pocket. The player's straight wager is on a number drawn
uniformly per spin (so spins are independent, and every number is played alike). A win on a lit
number pays its multiplier "N to 1" (§ 617b.5(e)), a win elsewhere the paytable's straight odds
(§ 617b.5(f)): 28 to 1 (Paytable A) or 30 to 1 (Paytable B); the return is 1 + N stakes, 0 on a
loss. Weighted draws are exact: an integer uniform over the weights' total, located in their
cumulative sums.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rules.mc import McGame
from rules.mc.tally import WagerTally, tally, tally_values

WHEEL_SIZE = {"single-zero": 37, "double-zero": 38}
_WHEEL_ALIASES = {"single": "single-zero", "double": "double-zero", "single-zero": "single-zero",
                  "double-zero": "double-zero"}


def _wheel(wheel: str | None, default: str | None) -> str | None:
    if wheel is None:
        return default
    key = str(wheel)
    if key not in _WHEEL_ALIASES:
        raise ValueError(f"--wheel single or --wheel double, not {wheel!r}")
    return _WHEEL_ALIASES[key]


# =========================================================================== Roulette Up

def play_streaks(rng: np.random.Generator, n: int, wheel_size: int, longest: int) -> tuple[np.ndarray, int]:
    """Play ``n`` Roulette Up streaks to at most ``longest`` boxes on a wheel of ``wheel_size``
    ranks: (reached, spins) where ``reached[k]`` = streaks that reached box k (k = 0..longest;
    reached[0] = reached[1] = n) and ``spins`` the spins dealt (the ending spin included).

    The streak ends on a number not greater than the preceding one, on the top rank (36), or at
    ``longest`` boxes (§ 617b.4(g)(2))."""
    top = wheel_size - 1
    reached = np.zeros(longest + 1, dtype=np.int64)
    reached[0] = reached[1] = n
    cur = rng.integers(0, wheel_size, size=n, dtype=np.uint8)  # the starting numbers, box 1
    spins = n
    cur = cur[cur != top]  # a starting 36 ends the streak at box 1 (§ 617b.4(g)(2)(ii))
    for box in range(2, longest + 1):
        m = cur.size
        if m == 0:
            break
        x = rng.integers(0, wheel_size, size=m, dtype=np.uint8)
        spins += m
        up = x > cur  # § 617b.4(g)(1)(i): greater than the preceding number: the next box
        x = x[up]
        reached[box] = x.size
        cur = x[x != top]  # 36 adds its box and ends the streak
    return reached, spins


def _up_return(payout: Any, seed_multiple: int | None) -> int:
    """Stakes returned (stake included) by one § 617b.4(h) cell; the meter at its seed."""
    from rules.odds import ForOne, ToOne
    from rules.roulette_up import Loss, ProgressiveMeter, Push

    if isinstance(payout, ToOne):
        r = 1 + Fraction(payout.ratio)
    elif isinstance(payout, ForOne):
        r = Fraction(payout.ratio)
    elif isinstance(payout, Push):
        r = Fraction(1)
    elif isinstance(payout, Loss):
        r = Fraction(0)
    elif isinstance(payout, ProgressiveMeter):
        assert seed_multiple is not None
        r = Fraction(seed_multiple * payout.percent, 100)
    else:  # pragma: no cover - the paytables are parsed at import
        raise TypeError(f"unknown payout {payout!r}")
    if r.denominator != 1:
        raise ValueError(f"a Roulette Up return of {r} stakes is not whole")
    return int(r)


def _up_table(name: str) -> tuple[str, int, tuple[int, ...]]:
    """(wager name, longest streak, returns[k] for k = 1..longest) of a § 617b.4(h) paytable."""
    from rules.roulette_up import paytable

    t = paytable(name)
    seed = t.progressive.seed_multiple if t.progressive else None
    wager = f"roulette-up {t.name}" if t.progressive is None else f"roulette-up progressive {t.name}"
    return wager, t.longest, tuple(_up_return(t.pays[k], seed) for k in range(1, t.longest + 1))


def roulette_up_kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """``n`` streaks on ``options["wheel"]``, settled under every paytable of ``options["paytables"]``."""
    tables = [_up_table(p) for p in options["paytables"]]
    longest = max(t[1] for t in tables)
    reached, _ = play_streaks(rng, n, WHEEL_SIZE[options["wheel"]], longest)
    out: dict[str, WagerTally] = {}
    for wager, cap, returns in tables:
        ended = [int(reached[k] - (reached[k + 1] if k < cap else 0)) for k in range(1, cap + 1)]
        out[wager] = tally_values(np.array(returns), np.array(ended), 1)
    return out


def roulette_up_spins(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> int:
    """The spins ``n`` streaks take under the longest paytable of ``options`` (for the benchmark)."""
    longest = max(_up_table(p)[1] for p in options["paytables"])
    return play_streaks(rng, n, WHEEL_SIZE[options["wheel"]], longest)[1]


def roulette_up_options(rules: Path | None = None, paytable: str | None = None, wheel: str | None = None,
                        decks: int | None = None, base: bool = False) -> dict:
    from rules.roulette_up import PAYTABLES
    from rules.roulette_up import paytable as up_paytable

    if rules is not None:
        raise ValueError("roulette-up has no Rules Submission: its paytables are § 617b.4(h)'s")
    if decks is not None or base:
        raise ValueError("roulette-up takes --paytable and --wheel only")
    names = [up_paytable(paytable).name] if paytable else list(PAYTABLES)
    return {"wheel": _wheel(wheel, "single-zero"), "paytables": names}


def roulette_up_exact(options: Mapping[str, Any]) -> dict[str, Fraction]:
    from rules.roulette_up import roulette_up_rtp

    return {e.wager: e.rtp_exact for p in options["paytables"] for e in roulette_up_rtp(p, options["wheel"])}


ROULETTE_UP = McGame("roulette-up", "streaks", roulette_up_kernel, roulette_up_options, roulette_up_exact)


# =========================================================================== Roulette X

def _weighted(rng: np.random.Generator, values: np.ndarray, weights: np.ndarray, size: Any) -> np.ndarray:
    """Exact draws of ``values`` by integer ``weights``: a uniform integer below the weights'
    total, looked up in a table holding each value ``weight`` times (or located in the cumulative
    sums when the total is large)."""
    total = int(np.sum(weights))
    if total <= 1 << 16:
        table = np.repeat(values, weights)
        if 0 <= table.min() and table.max() < 1 << 15:
            table = table.astype(np.int16)  # half the memory traffic of the gather
        return table[rng.integers(0, total, size=size, dtype=np.uint8 if total <= 256 else np.uint16)]
    u = rng.integers(0, total, size=size)
    return values[np.searchsorted(np.cumsum(weights), u, side="right")]


def _repeats(rows: np.ndarray) -> np.ndarray:
    """Indices of the rows of ``rows`` that hold a value twice."""
    same = np.zeros(rows.shape[0], dtype=bool)
    for a in range(rows.shape[1]):
        for b in range(a + 1, rows.shape[1]):
            same |= rows[:, a] == rows[:, b]
    return np.flatnonzero(same)


def roulette_x_spins(rng: np.random.Generator, n: int, wheel_size: int, straight: int,
                     counts: tuple[tuple[int, int], ...], mults: tuple[tuple[int, int], ...]) -> np.ndarray:
    """The return (stakes, stake included) of a straight wager on each of ``n`` Roulette X spins."""
    k_vals, k_w = (np.array(v, dtype=np.int64) for v in zip(*counts))
    m_vals, m_w = (np.array(v, dtype=np.int64) for v in zip(*mults))
    most = int(k_vals.max())
    k = _weighted(rng, k_vals, k_w, n)  # § 617b.5(d): how many numbers are lit
    # the lit numbers: `most` distinct pockets, an ordered draw without replacement (rows with a
    # repeat are drawn again: what is kept is uniform over the ordered samples); the first k lit
    lit = rng.integers(0, wheel_size, size=(n, most), dtype=np.uint8)
    redo = _repeats(lit)
    while redo.size:
        lit[redo] = rng.integers(0, wheel_size, size=(redo.size, most), dtype=np.uint8)
        redo = redo[_repeats(lit[redo])]
    odds = _weighted(rng, m_vals, m_w, (n, most))  # each lit number's payout, independently
    result = rng.integers(0, wheel_size, size=n, dtype=np.uint8)  # where the ball comes to rest
    number = rng.integers(0, wheel_size, size=n, dtype=np.uint8)  # the player's straight wager
    returns = np.zeros(n, dtype=np.int64)
    win = np.flatnonzero(result == number)  # settled where the straight wager wins (0 elsewhere)
    number, lit, odds, k = number[win], lit[win], odds[win], k[win]
    hit_slot = (lit == number[:, None]) & (np.arange(most)[None, :] < k[:, None])
    is_lit = hit_slot.any(axis=1)
    pay = np.where(is_lit, (odds * hit_slot).sum(axis=1), straight)  # § 617b.5(e) / (f)
    returns[win] = 1 + pay
    return returns


def roulette_x_kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """``n`` spins on each wheel of ``options["wheels"]`` (one after the other, same generator)."""
    out: dict[str, WagerTally] = {}
    for wheel in options["wheels"]:
        returns = roulette_x_spins(rng, n, WHEEL_SIZE[wheel], options["straight"], options["lit_counts"],
                                   options["multipliers"])
        out[f"straight (Paytable {options['paytable']}, {wheel})"] = tally(returns, 1)
    return out


def roulette_x_options(rules: Path | None = None, paytable: str | None = None, wheel: str | None = None,
                       decks: int | None = None, base: bool = False) -> dict:
    from hil.runner import load_submission
    from rules.roulette_x import PAYTABLES, ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission, paytable_for

    if decks is not None or base:
        raise ValueError("roulette-x takes --rules, --paytable and --wheel only")
    sub, source, sha256 = load_submission(rules, ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission)
    name = paytable or sub.paytable
    if name not in PAYTABLES:
        raise ValueError(f"§ 617b.5(g): Roulette X has Paytables A and B, not {paytable!r}")
    sub = sub.model_copy(update={"paytable": name})
    allowed = [w for w in WHEEL_SIZE if w in {str(x) for x in PAYTABLES[name].wheels}]  # single zero first
    wheels = [_wheel(wheel, None)] if wheel else allowed
    for w in wheels:
        paytable_for(name, w)  # § 617b.5(g): Paytable B on a double zero wheel only
    par = sub.par_for(name)
    t = PAYTABLES[name]
    return {"paytable": name, "wheels": wheels, "straight": int(t.straight.ratio),
            "lit_counts": tuple((int(k), int(v)) for k, v in par.lit_count_weights.items()),
            "multipliers": tuple((int(k), int(v)) for k, v in par.multiplier_weights.items()),
            "rules": {"name": sub.name, "source": source, "sha256": sha256}, "_submission": sub}


def roulette_x_exact(options: Mapping[str, Any]) -> dict[str, Fraction]:
    from rules.roulette_x import roulette_x_rtp

    return {e.wager: e.rtp_exact for w in options["wheels"] for e in roulette_x_rtp(options["_submission"], w)}


ROULETTE_X = McGame("roulette-x", "spins", roulette_x_kernel, roulette_x_options, roulette_x_exact)
