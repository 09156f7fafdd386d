"""The card shoe with its card reader (a dealing shoe of 3–8 decks, § 633b.17(b); one deck for the
poker tables): shuffled by its own seeded generator, every card read as it is dealt.

Timing model: ``shuffle()`` takes ``shuffle_s`` (a shuffling machine's cycle) and reports
``shoe_shuffled`` with the number of cards and a SHA-256 commitment to the order (the order itself
is revealed in ``shoe_revealed`` when the shoe is replaced, so a lab can audit every shoe after the
fact without the rig knowing the cards in advance). ``deal(position)`` takes ``deal_s`` and reports
``card_read`` ({position, card, index, shoe_id, device_time_s}). The cut card sits at
``penetration`` of the shoe: ``needs_shuffle`` turns true once it is reached (the table finishes
the round, then shuffles).

Faults draw from the rng only when enabled: ``misread_probability`` (the reader reports another
card than the one dealt: ground truth ``dealt`` keeps the real one), ``extra_card`` (a foreign
card is added to every shoe: a shoe holding one card more than its decks allow),
``shuffle_skip_probability`` (per shuffle, the shoe is not shuffled: the previous order is
reused — an unshuffled shoe). ``stacked`` is a lab's test mode (known hands on top of every
shoe), recorded in the bench parameters like every knob.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import simpy

from devices.contracts import Telemetry
from rules.cards import Card, cards, shoe


@dataclass(frozen=True)
class CardDealt:
    """One card as the reader reports it (telemetry kind ``card_read``)."""

    shoe_id: int
    index: int  # position in the shoe, from 0
    position: str  # who it went to: "player-3", "dealer-up", "dealer-hole", "board-4", ...
    card: str  # "As", "Td", ...
    device_time_s: float


@dataclass(frozen=True)
class CardShoeParams:
    """Timing and composition of the simulated shoe; faults default to a healthy shoe."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    decks: int = 6
    """52-card decks in the shoe (1 for the poker tables; 3–8 for 21+3, § 633b.17(b))."""
    deal_s: float = 1.2
    """From the dealer drawing a card to the reader reporting it."""
    shuffle_s: float = 45.0
    """A shuffle, from the command to the shoe ready."""
    penetration: float = 0.75
    """Where the cut card sits (fraction of the shoe dealt before a reshuffle)."""

    stacked: str | None = None
    """A lab's stacked shoe (test mode, never in production): these cards ("Ks Ks Ks 2h") are moved
    to the top of every shoe after its shuffle, in this order (the shoe must hold them), so the
    rounds deal known hands — to exercise rare paytable rows such as a meter hit."""

    # ---- faults (defaults = healthy)
    misread_probability: float = 0.0
    """Per card: the reader reports a different card (uniform over the other 51)."""
    extra_card: str | None = None
    """A foreign card added to every shoe (e.g. "As"): one copy more than the decks hold."""
    shuffle_skip_probability: float = 0.0
    """Per shuffle: the shoe is not shuffled; the previous order is dealt again."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(1 <= self.decks <= 8, f"decks must be in 1..8, not {self.decks}")
        need(self.deal_s >= 0 and self.shuffle_s >= 0, "deal_s and shuffle_s must be >= 0")
        need(0 < self.penetration <= 1, f"penetration must be in (0, 1], not {self.penetration}")
        for f in ("misread_probability", "shuffle_skip_probability"):
            need(0.0 <= getattr(self, f) <= 1.0, f"{f} must be in [0, 1], not {getattr(self, f)}")
        if self.extra_card is not None:
            Card.parse(self.extra_card)  # ValueError for a card that is none
        if self.stacked is not None:
            from collections import Counter

            want, have = Counter(cards(self.stacked)), Counter(shoe(self.decks))
            if short := sorted(str(c) for c in want if want[c] > have[c]):
                raise ValueError(f"stacked: a {self.decks}-deck shoe holds too few of {', '.join(short)}")


def commitment(order: tuple[Card, ...]) -> str:
    """SHA-256 of the shoe's order as text ("As Kd ..."): published at the shuffle."""
    return hashlib.sha256(" ".join(map(str, order)).encode()).hexdigest()


class CardShoeSim:
    """SimPy model of the shoe and its card reader."""

    def __init__(self, env: simpy.Environment, params: CardShoeParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "shoe") -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        base = shoe(params.decks)
        self._base = base + ((Card.parse(params.extra_card),) if params.extra_card else ())
        self.order: tuple[Card, ...] = ()
        self.next_index = 0
        self.shoe_id = 0
        #: ground truth for tests (never telemetry): the cards really dealt, in order
        self.dealt: list[Card] = []
        telemetry(name, "device_info", {"decks": params.decks, "cards": len(base),
                                        "penetration": params.penetration})

    @property
    def needs_shuffle(self) -> bool:
        """The cut card has come out (or no shoe yet)."""
        return not self.order or self.next_index >= self.params.penetration * len(self.order)

    @property
    def remaining(self) -> int:
        return len(self.order) - self.next_index

    def shuffle(self) -> simpy.Event:
        """Shuffle a fresh shoe now; succeeds with the shoe id once it is ready."""
        p = self.params
        if self.order:
            self.telemetry(self.name, "shoe_revealed", {"shoe_id": self.shoe_id,
                                                        "order": [str(c) for c in self.order],
                                                        "dealt": self.next_index,
                                                        "device_time_s": self.env.now})
        skip = p.shuffle_skip_probability > 0 and bool(self.order) and float(self.rng.random()) < p.shuffle_skip_probability
        if not skip:
            perm = self.rng.permutation(len(self._base))
            self.order = tuple(self._base[int(i)] for i in perm)
            if p.stacked:
                top, rest = list(cards(p.stacked)), list(self.order)
                for c in top:
                    rest.remove(c)
                self.order = tuple(top + rest)
        self.shoe_id += 1
        self.next_index = 0
        done = self.env.event()

        def ready(_e: simpy.Event) -> None:
            self.telemetry(self.name, "shoe_shuffled", {"shoe_id": self.shoe_id, "cards": len(self.order),
                                                        "sha256": commitment(self.order),
                                                        "device_time_s": self.env.now})
            done.succeed(self.shoe_id)

        self.env.timeout(p.shuffle_s).callbacks.append(ready)
        return done

    def deal(self, position: str) -> simpy.Event:
        """Deal the next card to ``position``; succeeds with ``CardDealt`` when the reader reads it.
        A shoe dealt out (past its last card) raises: the table shuffles at the cut card."""
        if self.next_index >= len(self.order):
            raise RuntimeError(f"{self.name}: no card left in shoe {self.shoe_id} (shuffle at the cut card)")
        p = self.params
        card = self.order[self.next_index]
        self.dealt.append(card)
        shown = card
        if p.misread_probability > 0 and float(self.rng.random()) < p.misread_probability:
            others = [c for c in shoe(1) if c != card]
            shown = others[int(self.rng.integers(len(others)))]
        result = CardDealt(self.shoe_id, self.next_index, position, str(shown), 0.0)
        self.next_index += 1
        done = self.env.event()

        def read(_e: simpy.Event) -> None:
            r = CardDealt(result.shoe_id, result.index, position, result.card, self.env.now)
            self.telemetry(self.name, "card_read", dict(vars(r)))
            done.succeed(r)

        self.env.timeout(p.deal_s).callbacks.append(read)
        return done
