"""Crazy 4 Poker wager placement (58 Pa. Code § 657a.7) as a validator.

Pure: the table's wagers are an immutable value; each request returns a ``Decision`` (accept or
refuse, the reason, the subsection cited) and the table after it. No money moves here; settlement
and the payout odds (§ 657a.12) are out of scope, as are the hand rankings (§ 657a.6) and the
Play Wager's amount (§ 657a.11(b), not among the supplied texts).

What is checked, in this order, for a request to place (make or increase) or withdraw a wager:

1. § 657a.7(a): a verbal wager accompanied by cash is refused. Wagers go on the layout (value
   chips, plaques or other Board-approved instruments); the Five Card Hand Bonus Wager is made on
   the player's electronic wagering device (§ 657a.7(d)(5)) and only there; the progressive
   wagers are a value chip on the progressive wagering device (§ 657a.7(d)(3), (4)).
2. § 657a.7(b): only a player seated at the table may wager. "Once a player has placed a wager and
   received cards, that player shall remain seated until the completion of the round of play. If
   a player leaves the table during a round of play, any wagers made by the player may be
   considered abandoned and may be treated as losing wagers": a player who leaves after "no more
   bets" (the cards follow it) has their position's wagers abandoned, treated as losing — the
   table's rule, the text's "may" read as this certificate holder's choice (decision) — and may
   not wager again in the round (``Crazy4Table.leave``).
3. § 657a.7(e): a player may not wager on more than one player position. Decision: a position
   that holds another player's wagers is refused too, cited as § 657a.7(e) — the wagers at a
   position are one player's.
4. § 657a.7(c): before "no more bets" every wager but the Play Wager may be made, increased or
   withdrawn; after it nothing may be made, increased or withdrawn except the Play Wager "in
   accordance with § 657a.11(b)" — made once, not increased or withdrawn.
5. § 657a.7(d)(1): the Play Wager comes after the cards (after "no more bets") and only from a
   player with an Ante and a Super Bonus Wager.
6. § 657a.7(d)(2)–(5): the Queens Up Wager is made "in addition to the Ante and Super Bonus
   Wagers", the progressive and Five Card Hand Bonus Wagers "after placing the Ante and Super
   Bonus Wagers": each needs an Ante and a Super Bonus Wager already on the layout, *in equal
   amounts* (§ 657a.7(d)(1)); the optional wagers of (d)(3)–(5) only if the Rules Submission
   offers them (``Crazy4Offer``). A progressive wager is one value chip: a second is refused.
   An Ante or Super Bonus Wager may not be withdrawn while a wager that needs it stands.
7. At "no more bets" (``announce_no_more_bets``): a position whose Ante and Super Bonus Wagers
   are not both placed in equal amounts is refused, § 657a.7(d)(1) — the Ante and Super Bonus may
   be placed one after the other, so equality is checked there (and before every wager of 6.).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType


class Crazy4Wager(StrEnum):
    """The wagers of § 657a.7(d)."""

    ANTE = "Ante Wager"
    SUPER_BONUS = "Super Bonus Wager"
    PLAY = "Play Wager"
    QUEENS_UP = "Queens Up Wager"
    FOUR_CARD_PROGRESSIVE = "Four-Card Progressive Payout Wager"
    FIVE_CARD_PROGRESSIVE = "Five-Card Progressive Payout Wager"
    FIVE_CARD_HAND_BONUS = "Five Card Hand Bonus Wager"


class Instrument(StrEnum):
    """How a wager is offered (§ 657a.7(a), (d)(3)–(5))."""

    VALUE_CHIPS = "value chips"
    PLAQUES = "plaques"
    OTHER_APPROVED = "other Board-approved wagering instrument"
    ELECTRONIC_WAGERING_DEVICE = "electronic wagering device"
    VERBAL_WITH_CASH = "verbal wager accompanied by cash"


class BonusTarget(StrEnum):
    """§ 657a.7(d)(5): the Five Card Hand Bonus Wager is on the player's hand, the dealer's, or both."""

    PLAYER = "player's hand"
    DEALER = "dealer's hand"
    BOTH = "both"


class Action(StrEnum):
    PLACE = "place"  # make, or increase an existing wager
    WITHDRAW = "withdraw"


#: Each optional wager of (d)(2)–(5): its subsection and the wording that ties it to Ante and Super Bonus.
_NEEDS_ANTE_AND_SUPER_BONUS = MappingProxyType({
    Crazy4Wager.QUEENS_UP: "§ 657a.7(d)(2)",
    Crazy4Wager.FOUR_CARD_PROGRESSIVE: "§ 657a.7(d)(3)",
    Crazy4Wager.FIVE_CARD_PROGRESSIVE: "§ 657a.7(d)(4)",
    Crazy4Wager.FIVE_CARD_HAND_BONUS: "§ 657a.7(d)(5)",
})
_PROGRESSIVE = (Crazy4Wager.FOUR_CARD_PROGRESSIVE, Crazy4Wager.FIVE_CARD_PROGRESSIVE)


@dataclass(frozen=True)
class Crazy4Offer:
    """Which optional wagers the certificate holder's Rules Submission offers (§ 601a.2):
    § 657a.7(d)(3), (4), (5). The Queens Up Wager (d)(2) is always offered."""

    four_card_progressive: bool = False
    five_card_progressive: bool = False
    five_card_hand_bonus: bool = False

    def offers(self, wager: Crazy4Wager) -> bool:
        return {Crazy4Wager.FOUR_CARD_PROGRESSIVE: self.four_card_progressive,
                Crazy4Wager.FIVE_CARD_PROGRESSIVE: self.five_card_progressive,
                Crazy4Wager.FIVE_CARD_HAND_BONUS: self.five_card_hand_bonus}.get(wager, True)


@dataclass(frozen=True)
class WagerRequest:
    """One request at the table: ``player`` at ``position`` places (or withdraws) ``amount_cents``
    on ``wager``. ``target``: only for the Five Card Hand Bonus Wager (§ 657a.7(d)(5))."""

    player: str
    position: int
    wager: Crazy4Wager
    amount_cents: int
    instrument: Instrument = Instrument.VALUE_CHIPS
    seated: bool = True
    action: Action = Action.PLACE
    target: BonusTarget | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "wager", Crazy4Wager(self.wager))
        object.__setattr__(self, "instrument", Instrument(self.instrument))
        object.__setattr__(self, "action", Action(self.action))
        if self.target is not None:
            object.__setattr__(self, "target", BonusTarget(self.target))
        if isinstance(self.amount_cents, bool) or not isinstance(self.amount_cents, int) or self.amount_cents <= 0:
            raise ValueError(f"an amount is a positive number of cents, not {self.amount_cents!r}")
        if isinstance(self.position, bool) or not isinstance(self.position, int) or self.position < 1:
            raise ValueError(f"a player position is a positive int, not {self.position!r}")
        if (self.target is None) == (self.wager is Crazy4Wager.FIVE_CARD_HAND_BONUS and self.action is Action.PLACE):
            raise ValueError("a Five Card Hand Bonus Wager names its hand (player's, dealer's or both), "
                             "and only that wager does (§ 657a.7(d)(5))")


@dataclass(frozen=True)
class Decision:
    """Accept or refuse, why, and the subsection it rests on."""

    accepted: bool
    reason: str
    citation: str
    request: WagerRequest | None = None
    position: int | None = None

    def __str__(self) -> str:
        return f"{'accept' if self.accepted else 'refuse'}: {self.reason} ({self.citation})"


@dataclass(frozen=True)
class PositionWagers:
    """The wagers at one player position: the player and cents per wager."""

    player: str
    amounts: Mapping[Crazy4Wager, int] = field(default_factory=lambda: MappingProxyType({}))
    bonus_target: BonusTarget | None = None

    def amount(self, wager: Crazy4Wager) -> int:
        return self.amounts.get(wager, 0)

    @property
    def ante_and_super_bonus_equal(self) -> bool:
        """§ 657a.7(d)(1): both placed, in equal amounts."""
        a, s = self.amount(Crazy4Wager.ANTE), self.amount(Crazy4Wager.SUPER_BONUS)
        return a > 0 and a == s


@dataclass(frozen=True)
class Crazy4Table:
    """One round's wagers at a Crazy 4 Poker table, position -> wagers."""

    offer: Crazy4Offer = Crazy4Offer()
    positions: Mapping[int, PositionWagers] = field(default_factory=lambda: MappingProxyType({}))
    no_more_bets: bool = False
    #: players who left the table during the round (§ 657a.7(b)): they may not wager again in it
    left: frozenset[str] = frozenset()
    #: position -> the wagers of a player who left after receiving cards: abandoned, losing wagers
    abandoned: Mapping[int, PositionWagers] = field(default_factory=lambda: MappingProxyType({}))

    def leave(self, player: str) -> tuple[Decision | None, Crazy4Table]:
        """``player`` leaves the table. After "no more bets" (the player has received cards) the
        wagers at their position are abandoned and treated as losing (§ 657a.7(b)): the Decision
        names them; before it nothing is at stake yet (a wager may still be withdrawn, § 657a.7(c)):
        their wagers are withdrawn and the Decision is None. Either way the player may not wager
        again this round."""
        here = next(((n, pos) for n, pos in self.positions.items() if pos.player == player), None)
        positions, abandoned = dict(self.positions), dict(self.abandoned)
        decision = None
        if here is not None:
            n, pos = here
            del positions[n]
            if self.no_more_bets:
                abandoned[n] = pos
                wagers = ", ".join(f"{w} {a} cents" for w, a in pos.amounts.items())
                decision = Decision(True, f"player {player} left the table during the round of play: the wagers at "
                                          f"position {n} ({wagers}) are abandoned and treated as losing wagers",
                                    "§ 657a.7(b)", None, n)
        return decision, replace(self, positions=MappingProxyType(positions), left=self.left | {player},
                                 abandoned=MappingProxyType(abandoned))

    def request(self, req: WagerRequest) -> tuple[Decision, Crazy4Table]:
        """Validate ``req``; on accept the table with it applied, else this table unchanged."""
        refusal = self._refusal(req)
        if refusal is not None:
            reason, cite = refusal
            return Decision(False, reason, cite, req, req.position), self
        pos = self.positions.get(req.position, PositionWagers(req.player))
        amounts = dict(pos.amounts)
        if req.action is Action.PLACE:
            amounts[req.wager] = amounts.get(req.wager, 0) + req.amount_cents
            target = req.target if req.wager is Crazy4Wager.FIVE_CARD_HAND_BONUS else pos.bonus_target
        else:
            amounts[req.wager] -= req.amount_cents
            if not amounts[req.wager]:
                del amounts[req.wager]
            target = None if Crazy4Wager.FIVE_CARD_HAND_BONUS not in amounts else pos.bonus_target
        positions = dict(self.positions)
        if amounts:
            positions[req.position] = PositionWagers(req.player, MappingProxyType(amounts), target)
        else:
            positions.pop(req.position, None)
        verb = "placed" if req.action is Action.PLACE else "withdrawn"
        cite = ("§ 657a.7(c)" if req.action is Action.WITHDRAW
                else _NEEDS_ANTE_AND_SUPER_BONUS.get(req.wager, "§ 657a.7(d)(1)"))
        return (Decision(True, f"{req.wager} of {req.amount_cents} cents {verb} at position {req.position}", cite,
                         req, req.position),
                replace(self, positions=MappingProxyType(positions)))

    def announce_no_more_bets(self) -> tuple[tuple[Decision, ...], Crazy4Table]:
        """The dealer announces "no more bets" (§ 657a.7(c)). Returns one decision per position:
        refused where the Ante and Super Bonus Wagers are not both placed in equal amounts
        (§ 657a.7(d)(1)) — those positions' wagers are refused and removed — accepted otherwise."""
        if self.no_more_bets:
            raise ValueError("\"no more bets\" was already announced this round")
        decisions, kept = [], {}
        for n, pos in sorted(self.positions.items()):
            a, s = pos.amount(Crazy4Wager.ANTE), pos.amount(Crazy4Wager.SUPER_BONUS)
            if pos.ante_and_super_bonus_equal:
                decisions.append(Decision(True, f"position {n}: Ante and Super Bonus Wagers of {a} cents each",
                                          "§ 657a.7(d)(1)", None, n))
                kept[n] = pos
            else:
                decisions.append(Decision(
                    False, f"position {n}: Ante ({a} cents) and Super Bonus ({s} cents) Wagers must both be placed "
                           f"in equal amounts; the position's wagers are refused", "§ 657a.7(d)(1)", None, n))
        return tuple(decisions), replace(self, positions=MappingProxyType(kept), no_more_bets=True)

    # ------------------------------------------------------------------ the rules

    def _refusal(self, req: WagerRequest) -> tuple[str, str] | None:
        w, placing = req.wager, req.action is Action.PLACE
        electronic = req.instrument is Instrument.ELECTRONIC_WAGERING_DEVICE
        if req.instrument is Instrument.VERBAL_WITH_CASH:
            return "verbal wagers accompanied by cash may not be accepted", "§ 657a.7(a)"
        if placing and w in _PROGRESSIVE and req.instrument is not Instrument.VALUE_CHIPS:
            sub = _NEEDS_ANTE_AND_SUPER_BONUS[w]
            return (f"the {w} is made by placing a value chip onto the progressive wagering device, "
                    f"not {req.instrument}", sub)
        if placing and w is Crazy4Wager.FIVE_CARD_HAND_BONUS and not electronic:
            return (f"the {w} is made by using the electronic wagering device designated for the player, "
                    f"not {req.instrument}", "§ 657a.7(d)(5)")
        if placing and w is not Crazy4Wager.FIVE_CARD_HAND_BONUS and electronic:
            return (f"the {w} is made by placing value chips, plaques or other Board-approved wagering instruments on "
                    "the table layout", "§ 657a.7(a)")
        if not req.seated:
            return "only players who are seated at a Crazy 4 Poker table may wager", "§ 657a.7(b)"
        if req.player in self.left:
            return (f"player {req.player} left the table during the round of play: a player shall remain seated "
                    "until the completion of the round, and one who left may not wager in it", "§ 657a.7(b)")
        for n, pos in self.positions.items():
            if n != req.position and pos.player == req.player:
                return (f"player {req.player} already wagers at position {n}; a player may not wager on more than "
                        "one player position", "§ 657a.7(e)")
        here = self.positions.get(req.position)
        if here is not None and here.player != req.player:
            return (f"position {req.position} holds the wagers of player {here.player}; a player wagers on one "
                    "position, a position's wagers are one player's (decision)", "§ 657a.7(e)")
        # § 657a.7(c): "no more bets"
        if self.no_more_bets:
            if w is not Crazy4Wager.PLAY:
                return (f"after \"no more bets\" a wager may not be made, increased or withdrawn ({w}: {req.action}); "
                        "only the Play Wager may be made, in accordance with § 657a.11(b)", "§ 657a.7(c)")
            if not placing or (here is not None and here.amount(Crazy4Wager.PLAY)):
                return ("the Play Wager is made once, in accordance with § 657a.11(b); after \"no more bets\" it may "
                        "not be increased or withdrawn", "§ 657a.7(c)")
            if here is None or not here.ante_and_super_bonus_equal:
                return "a Play Wager follows an Ante Wager and a Super Bonus Wager in equal amounts", "§ 657a.7(d)(1)"
            return None
        if w is Crazy4Wager.PLAY:
            return ("the Play Wager is made after the cards are dealt, in accordance with § 657a.11(b), not before "
                    "\"no more bets\"", "§ 657a.7(d)(1)")
        if not placing:
            have = 0 if here is None else here.amount(w)
            if req.amount_cents > have:
                return f"cannot withdraw {req.amount_cents} cents of a {w} of {have} cents", "§ 657a.7(c)"
            if w in (Crazy4Wager.ANTE, Crazy4Wager.SUPER_BONUS) and here is not None:
                needing = [d for d in _NEEDS_ANTE_AND_SUPER_BONUS if here.amount(d)]
                if needing:
                    subs = ", ".join(_NEEDS_ANTE_AND_SUPER_BONUS[d].removeprefix("§ 657a.7") for d in needing)
                    return (f"the {w} cannot be withdrawn while the {', '.join(needing)} placed with it stands",
                            f"§ 657a.7{subs}")
            return None
        if w in _NEEDS_ANTE_AND_SUPER_BONUS:
            sub = _NEEDS_ANTE_AND_SUPER_BONUS[w]
            if not self.offer.offers(w):
                return f"the {w} is not offered: the Rules Submission does not specify it", sub
            if here is None or not here.ante_and_super_bonus_equal:
                a = 0 if here is None else here.amount(Crazy4Wager.ANTE)
                s = 0 if here is None else here.amount(Crazy4Wager.SUPER_BONUS)
                return (f"the {w} is made after the Ante and Super Bonus Wagers are placed in equal amounts "
                        f"(Ante {a} cents, Super Bonus {s} cents)", f"{sub}; § 657a.7(d)(1)")
            if w in _PROGRESSIVE and here.amount(w):
                return f"the {w} is one value chip on the progressive wagering device; it is already placed", sub
            if w is Crazy4Wager.FIVE_CARD_HAND_BONUS and here.bonus_target not in (None, req.target):
                return (f"the {w} is already on the {here.bonus_target}; a second one on the {req.target} is not the "
                        "same wager", sub)
        return None
