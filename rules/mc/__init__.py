"""The vectorised Monte Carlo engine's games: a registry of kernels (issue 15, ``croupier mc``).

A **kernel** is ``kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) ->
dict[str, WagerTally]``: it plays ``n`` rounds / spins / hands of THIS chunk, vectorised over
numpy, and returns one exact ``rules.mc.tally.WagerTally`` per wager, named exactly as
``croupier rtp GAME --json`` names the wager for the same options (the agreement test joins MC
to exact by name). It is deterministic given the generator's state and ``n``. Kernels are
independent maths: they read the paytables and the Rules Submission, never the exact-RTP code's
intermediate results.

A **game** is a ``McGame``: its name (the ``rtp`` game name), the unit of ``n``, its kernel,
``options(rules, paytable, wheel, decks, base) -> dict`` (the CLI's options checked and turned
into the kernel's; bad ones raise ``ValueError`` or ``hil.config.ConfigError``) and
``exact(options) -> dict[str, Fraction]`` (the SAME functions as ``croupier rtp``).

**Registering a game** is one row of ``_TABLE``: (game name, module, attribute). The attribute is
a ``McGame``, or a mapping / iterable of them in which the row's name is found (one module may
register many games: the card side wagers). If the attribute is missing the module is searched
for ``MC_GAMES`` and then for any module-level ``McGame`` of that name. Modules are imported only
when their game is looked up, so a missing or broken kernel module breaks only its own games:
``GAMES[name]`` raises ``GameNotBuilt`` (a ``KeyError``), and ``available()`` lists what imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from rules.mc.tally import WagerTally, merge, tally

Kernel = Callable[[np.random.Generator, int, Mapping[str, Any]], dict[str, WagerTally]]


@dataclass(frozen=True)
class McGame:
    """One game of the Monte Carlo engine (see the module docstring)."""

    name: str
    unit: str  # "rounds" | "spins" | "hands"
    kernel: Kernel
    options: Callable[..., dict]  # (rules, paytable, wheel, decks, base) -> the kernel's options
    exact: Callable[[Mapping[str, Any]], dict[str, Fraction]]  # options -> wager -> exact RTP


class GameNotBuilt(KeyError):
    """The game is in the table but its kernel module is missing or does not define it."""


_CARD_WAGERS = ("twenty-one-plus-three", "royal-match", "kings-bounty", "blazing-sevens",
                "blazing-sevens-multi", "uth-trips", "uth-bad-beat", "play-the-board",
                "ultimate-pairs", "criss-cross-ultimate-pairs")

#: (game name, kernel module, attribute): the whole registration of a game.
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("crazy-time", "rules.mc.crazy_time", "GAME"),
    ("roulette-up", "rules.mc.roulette", "ROULETTE_UP"),
    ("roulette-x", "rules.mc.roulette", "ROULETTE_X"),
    *((w, "rules.mc.cards", "GAMES") for w in _CARD_WAGERS),
)


def _find(name: str, obj: Any) -> McGame | None:
    if isinstance(obj, McGame):
        return obj if obj.name == name else None
    if isinstance(obj, Mapping):
        got = obj.get(name)
        return got if isinstance(got, McGame) else None
    if isinstance(obj, (list, tuple, set, frozenset)):
        return next((g for g in obj if isinstance(g, McGame) and g.name == name), None)
    return None


def _resolve(name: str, module: str, attribute: str) -> McGame:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise GameNotBuilt(f"{name}: its kernel module {module} is not built ({exc})") from None
    for attr in (attribute, "MC_GAMES"):
        if (game := _find(name, getattr(mod, attr, None))) is not None:
            return game
    for value in vars(mod).values():
        if (game := _find(name, value)) is not None:
            return game
    raise GameNotBuilt(f"{name}: {module} defines no McGame named {name!r}")


class _Registry(Mapping[str, McGame]):
    """``GAMES``: game name -> ``McGame``, each kernel module imported on first look-up."""

    def __init__(self, table: tuple[tuple[str, str, str], ...]) -> None:
        self._table = {name: (module, attr) for name, module, attr in table}
        self._cache: dict[str, McGame] = {}

    def __getitem__(self, name: str) -> McGame:
        if name in self._cache:
            return self._cache[name]
        if name not in self._table:
            raise KeyError(name)
        game = _resolve(name, *self._table[name])
        self._cache[name] = game
        return game

    def __contains__(self, name: object) -> bool:  # registered (built or not)
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def available(self) -> tuple[str, ...]:
        """The registered games whose kernels import."""
        out = []
        for name in self._table:
            try:
                self[name]
            except GameNotBuilt:
                continue
            out.append(name)
        return tuple(out)


GAMES = _Registry(_TABLE)


def available() -> tuple[str, ...]:
    """The registered games whose kernels are built."""
    return GAMES.available()


__all__ = ["GAMES", "GameNotBuilt", "Kernel", "McGame", "WagerTally", "available", "merge", "tally"]
