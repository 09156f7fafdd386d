"""Crazy Time's Monte Carlo kernel (issue 15, ``croupier mc crazy-time``): the game played round by
round as chapter 690 describes it, vectorised over a chunk of rounds.

Every round has ONE wheel result and ONE Top Slot outcome, shared by all eight wagers, as at the
table: a wager of one stake on each betting option (§ 690.1(g)(2)) every round. The full game plays
the bonus game the wheel selected (§ 690.2(f)); the base game (``options["base"]``) settles the
number wagers 1, 2, 5 and 10 only (§ 690.2(e)) and plays no bonus game.

What is simulated (the Rules Submission's PAR, ``rules.submission``, read directly; no figure of
the exact-RTP code, ``rules.rtp``, is used):

* § 690.1(b), § 690.2(c): the clapper stops in one of the 54 sections of ``WHEEL_SECTIONS``, each
  equally likely (a fair wheel; a void spin, § 690.2(d), is respun, so it never settles a wager).
* § 690.3: the Top Slot, independent of the wheel: the reels align with ``align_probability``, the
  first reel shows a betting option by ``reel1_weights``, the second a multiplier by
  ``reel2_weights``; the multiplier applies to the result only when the reels align on it
  (§ 690.3(c)). Drawn as one exact joint outcome (not aligned | aligned on option s) and the
  second reel: the reels' own values matter to no wager when they do not align.
* § 690.4: a number pays its odds times the Top Slot multiplier; a bonus game pays its final odds,
  the Top Slot multiplier applied to its board before play (§ 690.4(c), § 690.5(e), § 690.6(g),
  § 690.7(f), § 690.8(f)). The return of a won wager is 1 + odds (the stake comes back), so every
  return is a whole number of stakes: ``den`` 1.
* § 690.5 Coin Flip: each side's multiplier drawn by ``coin_flip.multiplier_weights``, times the Top
  Slot multiplier; a fair coin; when § 690.5(f)(1)–(3) hold, judged as ``rescue_reading`` says (on
  the values displayed, or before the Top Slot multiplier; ``rules.bonus.rescue_value``), a Rescue
  Flip is activated with ``rescue_probability`` and its fair flip is final (§ 690.5(g)).
* § 690.6 Cash Hunt: 108 cells drawn independently by ``cash_hunt.multiplier_weights``, times the Top
  Slot multiplier, covered and shuffled (§ 690.6(c)); the player's symbol, or the random automatic
  pick (§ 690.6(d)), reveals one cell. Under a uniform shuffle the picked cell is a uniform one of
  108 independent cells, so the kernel draws that cell only (the other 107 pay no one).
* § 690.7 Pachinko: 16 landing spots drawn by ``pachinko.multiplier_weights`` times the Top Slot
  multiplier, one uniform spot showing "Double" with ``double_probability``; each drop is released
  from a drop zone uniform over 4..13 and falls peg by peg through the ``rows``-row lattice of
  ``rules.pachinko.Lattice`` (each peg sends it left or right with probability 1/2, the walls turn
  it inward; every zone and left/right pattern is played peg by peg once into a landing table,
  ``_landing_table``, and a drop draws one of them uniformly). Double (§ 690.7(e)): the others
  doubled, the Double becomes a literal 50x, drop again.
  Rescue Drop (§ 690.7(g)): on a 2x/3x/4x (``rescue_reading``), the first time only, activated with
  ``rescue_probability``: lower multipliers raised to the trigger, drop again, none after. At most
  three drops (a Double and a Rescue): the loop is over those three, and a fourth is an error.
* § 690.8 Crazy Time World: one uniform section of the 64 showing "Double" with
  ``double_probability``, the others' multipliers by ``crazy_time_world.multiplier_weights`` times
  the Top Slot multiplier; three clappers on sections 0, 3, 6 (``devices.ctw_wheel``'s default); the
  player's clapper (uniform: the random selection of § 690.8(c)); the wheel stops at a uniform
  offset. Double (§ 690.8(e)): every multiplier doubled, spin again; a second Double: doubled
  again, the Double becomes a literal 50x, spin again (final). At most three spins. A spin off the
  Double ends the game on a section never revealed before, so the kernel draws that one cell.

Not modelled (as in ``croupier rtp``): the maximum payout limit per round (§ 690.1(g)(4)); a
biased device (that is the rig's job, not the PAR's).

Sampling is exact: every probability of the Rules Submission is a ratio of integers and each draw
is a uniform integer (numpy's unbiased bounded ``integers``) mapped through a lookup table or a
cumulative search; several small draws share one 32-bit draw by mixed radix (``_mixed``).

Speed (the layout of the work): a chunk is played in blocks of ``_BLOCK`` rounds. A round of a
block is one 32-bit draw split into wheel section, Top Slot outcome and second reel, three table
look-ups and one histogram bin; the number wagers' tallies are exact sums over that histogram
(``_number_returns``). Only the rounds whose wheel stopped on a bonus game are gathered and played
on by their game, each vectorised over its rounds; loops run over the bounded repeats only (three
Pachinko drops, three Crazy Time World spins) and the peg rows of a lattice too tall for its
landing table. Tallies are exact integers, so a chunk's figures depend on its generator state only.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rules import submission as _submission
from rules.bonus import (
    CTW_SECTIONS, DOUBLE, DOUBLE_REPLACEMENT, PACHINKO_RESCUE_TRIGGERS, PACHINKO_SPOTS, RESCUE_FLIP_BIG_ABOVE,
    RESCUE_FLIP_SMALL,
)
from rules.crazy_time import BASE_ODDS, BONUS_SPOTS, SPOTS, TOP_SLOT_REEL2, WHEEL_SECTIONS, Spot
from rules.mc import McGame
from rules.mc.tally import WagerTally, tally
from rules.pachinko import DROP_ZONES, LANDING_SPOTS
from rules.submission import DEFAULT_RULES_RESOURCE, RulesSubmission, parse_rules_submission

#: The number wagers: the base game (§ 690.2(e)).
NUMBER_SPOTS: tuple[Spot, ...] = tuple(s for s in SPOTS if s not in BONUS_SPOTS)
#: A spot's code in the kernel: its index in ``SPOTS`` (§ 690.3(b)(1) order); numbers 0..3, bonus games 4..7.
_CODE = {s: i for i, s in enumerate(SPOTS)}
assert all(_CODE[s] < 4 for s in NUMBER_SPOTS) and all(_CODE[s] >= 4 for s in BONUS_SPOTS)
#: § 690.1(b): the code of each of the 54 sections.
_SECTION_CODE = np.array([_CODE[s] for s in WHEEL_SECTIONS], dtype=np.uint16)
#: § 690.8(b)(4) as the device model places them (devices/ctw_wheel.py): two sections between clappers.
CTW_CLAPPER_SECTIONS: tuple[int, ...] = (0, 3, 6)
#: A Double and a Rescue Drop add one drop each (§ 690.7(e)(3), (g)(3)); no more Rescue after one (g)(4).
PACHINKO_MAX_DROPS = 3
#: The first spin, one after a Double, one after the second Double (§ 690.8(e)(1)–(3)).
CTW_MAX_SPINS = 3

#: A categorical whose total weight is at most this is sampled by a lookup table (one byte per unit).
_TABLE_MAX = 1 << 20
_U32 = 1 << 32


# --------------------------------------------------------------------------- exact sampling

@dataclass(frozen=True)
class _Categorical:
    """Index ``i`` with probability ``weights[i] / sum(weights)`` (integer weights, reduced by their
    gcd). ``radix``: the uniform integer range one draw needs; ``pick(u)`` maps u in [0, radix)."""

    radix: int
    table: np.ndarray | None
    ends: np.ndarray | None

    @classmethod
    def of(cls, weights: Sequence[int]) -> _Categorical:
        if not weights or any(isinstance(w, bool) or not isinstance(w, int) or w < 0 for w in weights) \
                or not any(weights):
            raise ValueError(f"weights must be non-negative ints, not all zero: {list(weights)!r}")
        g = math.gcd(*weights)
        w = [x // g for x in weights]
        total = sum(w)
        if total >= 1 << 64:
            raise ValueError(f"weights total {total} needs more than a 64-bit draw")
        dtype = np.uint8 if len(w) <= 256 else np.uint16
        if total <= _TABLE_MAX:
            return cls(total, np.repeat(np.arange(len(w), dtype=dtype), w), None)
        return cls(total, None, np.cumsum(np.array(w, dtype=np.uint64)))

    def pick(self, u: np.ndarray) -> np.ndarray:
        if self.table is not None:
            return np.take(self.table, u)
        return np.searchsorted(self.ends, u, side="right").astype(np.uint16)  # type: ignore[arg-type]


def _bernoulli_radix(p: Fraction) -> tuple[int, int]:
    """(radix, threshold): a uniform u in [0, radix) has u < threshold with probability ``p``."""
    p = Fraction(p)
    if not 0 <= p <= 1:
        raise ValueError(f"a probability lies in [0, 1], not {p}")
    if p.denominator >= 1 << 64:
        raise ValueError(f"probability {p} needs more than a 64-bit draw")
    return p.denominator, p.numerator


def _mixed(rng: np.random.Generator, size: int | tuple[int, ...], radices: Sequence[int]) -> list[np.ndarray]:
    """Independent uniform integers, digit ``i`` in [0, radices[i]), each array of ``size``.

    Digits whose radices multiply to at most 2**32 share one unbiased 32-bit draw (mixed radix,
    split by integer division); a radix above 2**32 gets its own 64-bit draw; radix 1 draws nothing.
    """
    out: list[np.ndarray | None] = [None] * len(radices)
    group: list[int] = []
    prod = 1

    def flush() -> None:
        nonlocal group, prod
        if not group:
            return
        u = rng.integers(0, prod, size=size, dtype=np.uint32 if prod <= _U32 else np.uint64)
        for i in group[:-1]:
            r = radices[i]
            q = u // r
            out[i] = u - q * r
            u = q
        out[group[-1]] = u
        group, prod = [], 1

    for i, r in enumerate(radices):
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"a radix is a positive int, not {r!r}")
        if r == 1:
            out[i] = np.zeros(size, dtype=np.uint32)
            continue
        if r > _U32:
            flush()
            group, prod = [i], r
            flush()
            continue
        if prod * r > _U32:
            flush()
        group.append(i)
        prod *= r
    flush()
    return out  # type: ignore[return-value]


# --------------------------------------------------------------------------- the plan of one submission

@dataclass(frozen=True)
class _Board:
    """A bonus board's cells, each drawn independently by the weights: ``values`` the multipliers,
    ``table`` (when the weights' total allows) the multiplier of every uniform draw."""

    draw: _Categorical
    values: np.ndarray
    table: np.ndarray | None

    def cells(self, rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray:
        """Multipliers of ``shape`` cells (int64)."""
        u = rng.integers(0, self.draw.radix, size=shape, dtype=np.uint32 if self.draw.radix <= _U32 else np.uint64)
        if self.table is not None:
            return np.take(self.table, u).astype(np.int64)
        return np.take(self.values, self.draw.pick(u))


def _board(weights: Mapping[int, int]) -> _Board:
    items = sorted(weights.items())
    draw = _Categorical.of([w for _, w in items])
    values = np.array([m for m, _ in items], dtype=np.int64)
    table = None if draw.table is None else np.take(values.astype(np.int32), draw.table)
    return _Board(draw, values, table)


@dataclass(frozen=True)
class Plan:
    """A Rules Submission compiled into lookup tables (built once per submission, ``plan``)."""

    top: _Categorical
    """§ 690.3(c): 0 = no multiplier (reels not aligned), 1 + code = aligned on the spot of that code."""
    reel2: _Categorical
    reel2_values: np.ndarray
    odds: np.ndarray
    """§ 690.4(a): "N to 1" of each number code 0..3."""
    number_returns: np.ndarray
    """``_number_returns``: each number wager's return for each round key."""
    reading: str
    coin: _Board
    coin_rescue: tuple[int, int]
    cash_hunt: _Board
    pachinko: _Board
    pachinko_double: tuple[int, int]
    pachinko_rescue: tuple[int, int]
    pachinko_rows: int
    ctw: _Board
    ctw_double: tuple[int, int]


def _number_returns(odds: Sequence[int]) -> np.ndarray:
    """§ 690.4(a), (c): the return (stake included) of a one-stake wager on each number, for each
    round key (``kernel``): 1 + odds × the Top Slot multiplier when the wheel stopped on it, else 0.
    Shape (4, keys)."""
    out = np.zeros((len(NUMBER_SPOTS), _KEYS), dtype=np.int64)
    for i, spot in enumerate(NUMBER_SPOTS):
        c = _CODE[spot]
        for top in range(len(SPOTS) + 1):
            for j, mult in enumerate(TOP_SLOT_REEL2):
                out[i, c * _K_CODE + top * _K_TOP + j] = 1 + odds[c] * (mult if top == c + 1 else 1)
    return out


def plan(sub: RulesSubmission) -> Plan:
    """Compile ``sub`` into the kernel's tables (cached on the submission object's identity)."""
    hit = _PLANS.get(id(sub))
    if hit is not None and hit[0] is sub:
        return hit[1]
    ts = sub.top_slot
    a = Fraction(ts.align_probability)
    w1 = [ts.reel1_weights[s] for s in SPOTS]
    total1 = sum(w1)
    # P(not aligned) = (1 - a); P(aligned on s) = a·w_s/W1: integer weights over the denominator q·W1
    top = _Categorical.of([(a.denominator - a.numerator) * total1] + [a.numerator * w for w in w1])
    reel2 = [ts.reel2_weights[m] for m in TOP_SLOT_REEL2]
    odds = []
    for s in NUMBER_SPOTS:
        ratio = BASE_ODDS[s].ratio
        if ratio.denominator != 1:
            raise ValueError(f"§ 690.4(a): odds {BASE_ODDS[s]} of {s} are not whole: "
                             f"the kernel's returns are whole stakes")
        odds.append(int(ratio))
    built = Plan(
        top=top,
        reel2=_Categorical.of(reel2),
        reel2_values=np.array(TOP_SLOT_REEL2, dtype=np.int64),
        odds=np.array(odds, dtype=np.int64),
        number_returns=_number_returns(odds),
        reading=sub.rescue_reading,
        coin=_board(sub.coin_flip.multiplier_weights),
        coin_rescue=_bernoulli_radix(sub.coin_flip.rescue_probability),
        cash_hunt=_board(sub.cash_hunt.multiplier_weights),
        pachinko=_board(sub.pachinko.multiplier_weights),
        pachinko_double=_bernoulli_radix(sub.pachinko.double_probability),
        pachinko_rescue=_bernoulli_radix(sub.pachinko.rescue_probability),
        pachinko_rows=sub.pachinko.rows,
        ctw=_board(sub.crazy_time_world.multiplier_weights),
        ctw_double=_bernoulli_radix(sub.crazy_time_world.double_probability),
    )
    if len(_PLANS) >= 16:
        _PLANS.clear()
    _PLANS[id(sub)] = (sub, built)
    return built


_PLANS: dict[int, tuple[RulesSubmission, Plan]] = {}


# --------------------------------------------------------------------------- bonus games
# Each takes the Top Slot multiplier applied to its board, one per round that reached it (int64),
# and returns the final odds ("N to 1") of each of those rounds.

def _judged(values: np.ndarray, m: np.ndarray, reading: str) -> np.ndarray:
    """What the Rescue conditions judge of displayed ``values`` (``rules.bonus.rescue_value``): the
    values themselves ("displayed") or without the Top Slot multiplier ``m`` ("before-top-slot";
    every displayed multiplier is a multiple of m, so the division is exact)."""
    return values if reading == "displayed" else values // m


def coin_flip(rng: np.random.Generator, m: np.ndarray, p: Plan) -> np.ndarray:
    """§ 690.5: the final odds of ``len(m)`` Coin Flips."""
    k = m.size
    q, thr = p.coin_rescue
    red_base, blue_base = p.coin.cells(rng, (2, k))
    face, rescue_u, face2 = _mixed(rng, k, [2, q, 2])
    red, blue = red_base * m, blue_base * m                    # § 690.5(e): before the flip
    up = face.astype(bool)                                     # False: red face up, True: blue
    landed = np.where(up, blue, red)                           # § 690.5(d)
    jr, jb = (red, blue) if p.reading == "displayed" else (red_base, blue_base)
    small, big = np.minimum(jr, jb), np.maximum(jr, jb)
    eligible = ((small != big) & _between(small, RESCUE_FLIP_SMALL)           # (f)(1)
                & (big > RESCUE_FLIP_BIG_ABOVE)                               # (f)(2)
                & (np.where(up, jb, jr) == small))                            # (f)(3)
    rescued = eligible & (rescue_u < thr)
    return np.where(rescued, np.where(face2.astype(bool), blue, red), landed)  # § 690.5(g): final


def cash_hunt(rng: np.random.Generator, m: np.ndarray, p: Plan) -> np.ndarray:
    """§ 690.6: the final odds of ``len(m)`` Cash Hunts (the picked cell; see the module docstring)."""
    return p.cash_hunt.cells(rng, m.size) * m


def _puck(zone_u: np.ndarray, bits: Sequence[np.ndarray], rows: int) -> np.ndarray:
    """§ 690.7(d): the landing cell (0-based spot) of drops released over spot ``DROP_ZONES[zone_u]``
    falling through ``rows`` peg rows; the peg of row r sends the puck right when bit r is 1 (bits
    in 32-bit words), left when 0, and a wall turns it inward (``rules.pachinko.Lattice.deflect``).
    Positions in half-spot units: spot k's centre line is 2k - 1, the walls at 0 and 2·16."""
    u = 2 * (np.asarray(DROP_ZONES, dtype=np.int64)[zone_u]) - 1
    wall = 2 * LANDING_SPOTS
    for r in range(rows):
        word, bit = divmod(r, 32)
        right = ((bits[word] >> bit) & 1).astype(bool)
        v = np.where(right, u + 1, u - 1)
        v = np.where(v <= 0, u + 1, v)
        u = np.where(v >= wall, u - 1, v)
    return (u - 1) // 2


def _bit_words(rows: int) -> list[int]:
    """The radices of ``rows`` peg bits in 32-bit words."""
    return [1 << min(32, rows - 32 * w) for w in range((rows + 31) // 32)]


@functools.lru_cache(maxsize=8)
def _landing_table(rows: int) -> np.ndarray | None:
    """Every drop there can be, played through ``_puck``: the landing cell of drop ``zone·2**rows +
    bits`` (each zone and each left/right pattern of the rows equally likely), or None when the
    lattice has too many rows for a table (the drops are then played row by row)."""
    if len(DROP_ZONES) << rows > _TABLE_MAX:
        return None
    every = np.arange(len(DROP_ZONES) << rows, dtype=np.uint32)
    return _puck(every >> rows, [every & ((1 << rows) - 1)], rows).astype(np.uint8)


def _drops(rng: np.random.Generator, k: int, rows: int) -> np.ndarray:
    """The landing cells of ``k`` drops (§ 690.7(d)): a uniform zone of ``DROP_ZONES``, a fair
    left/right at every peg."""
    table = _landing_table(rows)
    if table is not None:
        (u,) = _mixed(rng, k, [len(DROP_ZONES) << rows])
        return np.take(table, u).astype(np.int64)
    zone_u, *bits = _mixed(rng, k, [len(DROP_ZONES), *_bit_words(rows)])
    return _puck(zone_u, bits, rows)


def _between(values: np.ndarray, allowed: frozenset[int]) -> np.ndarray:
    lo, hi = min(allowed), max(allowed)
    if set(range(lo, hi + 1)) == allowed:
        return (values >= lo) & (values <= hi)
    return np.isin(values, sorted(allowed))


def pachinko(rng: np.random.Generator, m: np.ndarray, p: Plan) -> np.ndarray:
    """§ 690.7: the final odds of ``len(m)`` Pachinko games."""
    k = m.size
    board = p.pachinko.cells(rng, (k, PACHINKO_SPOTS)) * m[:, None]     # § 690.7(f): before the drop
    dq, dthr = p.pachinko_double
    rq, rthr = p.pachinko_rescue
    has_double, dpos, rescue_u = _mixed(rng, k, [dq, PACHINKO_SPOTS, rq])
    rows_d = np.flatnonzero(has_double < dthr)
    board[rows_d, dpos[rows_d]] = DOUBLE                                     # § 690.7(c)(2)
    rescue_ok = rescue_u < rthr
    literal = np.full(k, -1)                         # the cell showing the 50x of § 690.7(e)(2)
    rescue_used = np.zeros(k, dtype=bool)
    final = np.zeros(k, dtype=np.int64)
    idx = np.arange(k)                               # the games whose puck is still to drop
    for _ in range(PACHINKO_MAX_DROPS):
        if not idx.size:
            break
        spot = _drops(rng, idx.size, p.pachinko_rows)
        v = board[idx, spot]
        dbl = v == DOUBLE                                                    # § 690.7(e)
        rows = idx[dbl]
        if rows.size:
            board[rows] *= 2                                                 # (e)(1): the others doubled
            board[rows, spot[dbl]] = DOUBLE_REPLACEMENT                       # (e)(2): a literal 50x
            literal[rows] = spot[dbl]
        landed = ~dbl
        judged = v if p.reading == "displayed" else np.where(spot == literal[idx], v, v // m[idx])
        eligible = landed & ~rescue_used[idx] & _between(judged, PACHINKO_RESCUE_TRIGGERS)  # (g), once: (g)(4)
        rescue_used[idx[eligible]] = True
        rescued = eligible & rescue_ok[idx]
        rows = idx[rescued]
        if rows.size:                                                        # (g)(1)-(2): lower ones raised
            cells = board[rows]
            t = v[rescued][:, None]
            lower = (cells != DOUBLE) & (cells < t) & (np.arange(PACHINKO_SPOTS) != literal[rows][:, None])
            board[rows] = np.where(lower, t, cells)
        done = landed & ~rescued
        final[idx[done]] = v[done]
        idx = idx[~done]
    if idx.size:
        raise AssertionError(f"§ 690.7: {idx.size} Pachinko game(s) still dropping after "
                             f"{PACHINKO_MAX_DROPS} drops (a Double and a Rescue Drop allow no more)")
    return final


def crazy_time_world(rng: np.random.Generator, m: np.ndarray, p: Plan) -> np.ndarray:
    """§ 690.8: the final odds of ``len(m)`` Crazy Time World games (the player's clapper).

    The section under the player's clapper is uniform on every spin (the wheel stops at a uniform
    offset); a spin that does not land on the Double ends the game (§ 690.8(d)), so the game reveals
    one multiplier cell, never seen before: that cell is drawn, the other 63 pay no one."""
    k = m.size
    dq, dthr = p.ctw_double
    has_double, dpos, pick, *stops = _mixed(
        rng, k, [dq, CTW_SECTIONS, len(CTW_CLAPPER_SECTIONS), *([CTW_SECTIONS] * CTW_MAX_SPINS)])
    cell = p.ctw.cells(rng, k) * m                              # § 690.8(f): before play
    double_at = np.where(has_double < dthr, dpos.astype(np.int64), -1)      # § 690.8(b)(2)
    clapper = np.asarray(CTW_CLAPPER_SECTIONS, dtype=np.int64)[pick]        # § 690.8(c)
    final = np.full(k, DOUBLE_REPLACEMENT, dtype=np.int64)                  # (e)(3): three Doubles: 50x
    playing = np.ones(k, dtype=bool)
    for spin, stop in enumerate(stops):
        section = (stop.astype(np.int64) + clapper) % CTW_SECTIONS
        done = playing & (section != double_at)
        final[done] = cell[done] << spin              # (e)(1), (3): doubled once per Double before
        playing &= ~done
    return final


_BONUS_GAMES = {Spot.COIN_FLIP: coin_flip, Spot.CASH_HUNT: cash_hunt, Spot.PACHINKO: pachinko,
                Spot.CRAZY_TIME: crazy_time_world}


# --------------------------------------------------------------------------- the kernel

#: key of a round = code·81 + Top Slot outcome·9 + second-reel index (the round's histogram bin)
_K_TOP = len(TOP_SLOT_REEL2)
_K_CODE = (len(SPOTS) + 1) * _K_TOP
_KEYS = len(SPOTS) * _K_CODE
_BONUS_KEY = _CODE[Spot.COIN_FLIP] * _K_CODE
#: Rounds played at a time inside a chunk: the block's arrays stay in the core's cache (measured:
#: 2**18 beats 2**20 by ~20 % on the full game here).
_BLOCK = 1 << 18


def _play_bonus(rng: np.random.Generator, kb: np.ndarray, p: Plan, into: dict[str, WagerTally]) -> None:
    """Play the bonus game of each round whose key is in ``kb`` (a block's bonus rounds, in play
    order) and add the returns of its wager to ``into``."""
    code = kb // _K_CODE
    top = (kb // _K_TOP) % (len(SPOTS) + 1)
    m = np.where(top == code + 1, np.take(p.reel2_values, kb % _K_TOP), 1)   # § 690.3(c) on the bonus game
    for spot in SPOTS:
        if spot in BONUS_SPOTS:
            odds = _BONUS_GAMES[spot](rng, m[code == _CODE[spot]], p)
            into[str(spot)] = into[str(spot)] + tally(odds + 1, 1)


def kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """Play ``n`` rounds (the ``rules.mc`` kernel contract): one tally per wager, named as
    ``croupier rtp crazy-time --json`` names it; the numbers only when ``options["base"]``."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative int, not {n!r}")
    sub = options.get("rules")
    if not isinstance(sub, RulesSubmission):
        raise ValueError("crazy-time: options['rules'] must be a RulesSubmission (McGame.options builds it)")
    p = plan(sub)
    base = bool(options.get("base", False))
    section_key = _SECTION_CODE * _K_CODE
    top_key = None if p.top.table is None else p.top.table.astype(np.uint16) * _K_TOP
    # The wheel section and the second reel together index one small table when the second reel's
    # weights allow: a round is then u = (Top Slot draw · 54 + section) · R2 + reel-2 draw.
    sr = len(WHEEL_SECTIONS) * p.reel2.radix
    sr_key = None
    if p.reel2.table is not None and top_key is not None and sr <= _TABLE_MAX and sr * p.top.radix <= _U32:
        sr_key = (np.repeat(section_key, p.reel2.radix) + np.tile(p.reel2.table.astype(np.uint16), len(section_key)))
    hist = np.zeros(_KEYS, dtype=np.int64)
    bonus = {str(spot): WagerTally(0, 0, 0, 0, 1) for spot in SPOTS if spot in BONUS_SPOTS}
    # work arrays reused block after block: a fresh array of a block's size costs more in page
    # faults than the arithmetic on it (measured: u - q·sr 0.78 ms fresh, 0.05 ms in place, 2**18)
    work = [np.empty(min(n, _BLOCK), dtype=t) for t in (np.uint32, np.uint32, np.uint16, np.uint16)]
    for start in range(0, n, _BLOCK):                            # one wheel result, one Top Slot a round
        size = min(_BLOCK, n - start)
        if sr_key is not None:
            u = rng.integers(0, sr * p.top.radix, size=size, dtype=np.uint32)
            top_u, rest, key, top = (w[:size] for w in work)
            np.floor_divide(u, sr, out=top_u)
            np.subtract(u, np.multiply(top_u, sr, out=rest), out=rest)
            np.take(sr_key, rest, out=key)
            np.add(key, np.take(top_key, top_u, out=top), out=key)
        else:
            section_u, top_u, reel2_u = _mixed(rng, size, [len(WHEEL_SECTIONS), p.top.radix, p.reel2.radix])
            top = np.take(top_key, top_u) if top_key is not None else p.top.pick(top_u).astype(np.uint16) * _K_TOP
            key = np.take(section_key, section_u) + top + p.reel2.pick(reel2_u)
        hist += np.bincount(key, minlength=_KEYS)
        if not base:                                             # § 690.2(f): the bonus rounds play on
            _play_bonus(rng, key[key >= _BONUS_KEY], p, bonus)
    out: dict[str, WagerTally] = {}
    ret = p.number_returns
    exact_int64 = n * int(ret.max()) ** 2 < 1 << 62                # else Python ints
    for i, spot in enumerate(NUMBER_SPOTS):                      # § 690.4(a), (c)
        r = ret[i]
        if exact_int64:
            s1, s2, hits = int(hist @ r), int(hist @ (r * r)), int(hist[r > 0].sum())
        else:
            pairs = list(zip(hist.tolist(), r.tolist()))
            s1, s2, hits = sum(c * v for c, v in pairs), sum(c * v * v for c, v in pairs), sum(c for c, v in pairs if v)
        out[str(spot)] = WagerTally(n, s1, s2, hits, 1)
    if base:
        return out
    for wager, t in bonus.items():
        out[wager] = WagerTally(n, t.s1, t.s2, t.hits, 1)
    return out


# --------------------------------------------------------------------------- the game

def options(rules: Any = None, paytable: Any = None, wheel: Any = None, decks: Any = None,
            base: bool = False) -> dict[str, Any]:
    """The kernel's options: ``rules`` a ``RulesSubmission``, a path to a Rules Submission TOML, or
    None (the packaged reference, ``DEFAULT_RULES_RESOURCE``); ``base`` True plays the base game.
    ``rules_source`` / ``rules_sha256`` name the file read (None for a submission given as a model).
    Bad input raises ``ValueError`` naming it (a bad file: its source, line and field)."""
    given = [o for o, v in (("--paytable", paytable), ("--wheel", wheel), ("--decks", decks)) if v is not None]
    if given:
        raise ValueError(f"crazy-time takes --rules and --base only, not {' or '.join(given)}")
    if isinstance(rules, RulesSubmission):
        return {"rules": rules, "base": bool(base), "rules_source": None, "rules_sha256": None}
    if rules is None:
        # by the module's own path: a namespace ``rules`` (tests/rules) must not shadow the package's data
        source, path = f"embedded:{DEFAULT_RULES_RESOURCE}", Path(_submission.__file__).parent / DEFAULT_RULES_RESOURCE
    elif isinstance(rules, (str, os.PathLike)):
        source, path = os.fspath(rules), Path(rules)
    else:
        raise ValueError(f"crazy-time: --rules is a Rules Submission TOML, not {type(rules).__name__}")
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{source}: cannot read the Rules Submission: {exc}") from None
    return {"rules": parse_rules_submission(text, source), "base": bool(base), "rules_source": source,
            "rules_sha256": hashlib.sha256(data).hexdigest()}


def exact(opts: Mapping[str, Any]) -> dict[str, Fraction]:
    """The exact RTP of each wager the kernel tallies: ``rules.rtp.crazy_time_rtp``, as ``croupier rtp``."""
    from rules.rtp import crazy_time_rtp

    wagers = {w.wager: w.rtp_exact for w in crazy_time_rtp(opts["rules"])}
    if opts.get("base"):
        return {str(s): wagers[str(s)] for s in NUMBER_SPOTS}
    return wagers


GAME = McGame(name="crazy-time", unit="rounds", kernel=kernel, options=options, exact=exact)
