"""The late-bet adversary: wager attempts at seeded random offsets around "no more bets".

A player who tries to bet as late as the table lets them is the attack every lock-out exists for
(§ 690.2(a), § 617b.4(c)(2), § 633b.17(c)(2); at the card tables § 653b.4(c), § 653b.5(c),
§ 674b.1(c), § 657a.7(c)). The scenario's ``adversary`` section (``hil.scenario.Adversary``) makes
the rig play that player at one seat: each round ``attempts_per_round`` attempts at offsets drawn
uniformly from [-before, +after] around the croupier's "no more bets" instant (``window_s``), from
the adversary's own stream (``SeedSequence([seed, round])``: the croupier's and the players'
draws do not move, and a resumed run draws the same offsets for the same round).

Each attempt goes through the path the table takes wagers on, never one that bypasses the device:

* a table with a wagering device (Crazy Time's, the progressive table game system's seat buttons
  at Roulette and Blackjack): a press of the seat's button — through the bench's actuator when it
  has one (an actuation, purpose ``adversary``), else through the device's press injection. At a
  Blackjack table the progressive wager's chips go on the layout with the press (the dealer
  verifies chips against the system's accepted wagers, § 633b.17(e)).
* UTH and Criss-Cross (no wagering device): chips on one of the offered side wagers' areas.
* Crazy 4: a request, as player ``ADV`` at its position, to place an Ante or a Super Bonus Wager
  (alternately, so the position stays in equal amounts), decided by the croupier on arrival.

The adversary records what it did and what came back, as the rig's driver (device ``adversary``),
never as a verdict:

* ``adversary_attempt``: ``attempt`` ("round-k"), ``via`` (injection, actuator, chips, request),
  ``seat``, ``spot``, ``stake_cents``, ``intended_s`` (the rig's time it aimed at), ``offset_s``
  (from the planned "no more bets"), ``sent_s`` (when the rig issued it); a chip's ``placed_s``.
* ``adversary_answer``: the attempt and the device's identifier of it — ``press_id`` (injection:
  the device's answer, with what it answered: ``accepted``, ``device_time_s``, ``reason``),
  ``actuation_id`` (the actuator's record; the press is matched to it by the trace's attribution),
  ``request_id`` (Crazy 4) — or ``lost`` with why.
* ``adversary_unsent``: an attempt never sent — with ``max_in_flight`` set, the presses already
  issued and unanswered held it back past the end of the round's window (a real device's link carries one
  request at a time; pressing faster than it would queue the rig's own lock-out write behind the
  presses). A deferred press is sent when one is answered, its ``sent_s`` after its ``intended_s``.

The judgement is the table's ``*-late-bets`` check (``hil.checks.adversary``), from the device's
own ``press`` reports (their stamps, the lock-out command's stamp and the first press it refused as
locked out: the device's lock edge) and the croupier's records of each press, never from these
records' copy of an answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # the croupier imports this module
    from hil.controller import TableCroupier
    from hil.scenario import Adversary as AdversarySettings, Scenario

DEVICE = "adversary"
#: Crazy 4: the adversary's player name
PLAYER = "ADV"


def stake_for(sc: Scenario) -> int:
    """The stake of the adversary's attempts: the table's own (a progressive wager's fixed amount,
    else the lowest stake the scenario's players wager), so an on-time attempt is a wager the table
    takes like any player's."""
    if sc.game == "roulette" and sc.table is not None:
        t = sc.table
        return t.progressive_stake_cents if t.progressive else 100 * max(1, t.straight_stake_cents[0] // 100)
    if sc.game == "blackjack" and sc.cards is not None:
        return sc.cards.progressive_stake_cents
    if sc.poker is not None:
        lo = sc.poker.ante_stake_cents[0] if sc.game == "crazy-4" else sc.poker.side_stake_cents[0]
        return 100 * max(1, lo // 100)
    return 100 * max(1, sc.players.stake_cents[0] // 100)


class Adversary:
    """One table's adversary (``TableCroupier.adversary``); ``schedule`` once per round."""

    def __init__(self, settings: AdversarySettings, scenario: Scenario) -> None:
        self.settings, self.sc = settings, scenario
        if scenario.game == "crazy-4":
            self.seat = settings.seat or scenario.players.count + 1
        else:
            self.seat = settings.seat or scenario.players.count
        self.stake_cents = stake_for(scenario)
        self.attempts = 0  # all rounds: made
        self.unsent = 0  # all rounds: planned, never sent (the link busy: ``max_in_flight``)
        self.in_flight = 0  # presses issued and not yet answered
        self.waiting: deque[tuple[TableCroupier, dict[str, Any]]] = deque()
        self.window_end = 0.0  # this round's last instant an attempt may be sent (rig's time)

    def offsets(self, n: int) -> list[float]:
        """Round ``n``'s offsets from "no more bets" (s), in the order drawn."""
        s = self.settings
        before, after = s.window_s
        rng = np.random.default_rng([s.seed, n])
        return [float(x) for x in rng.uniform(-before, after, s.attempts_per_round)]

    def schedule(self, ctl: TableCroupier, t_no_more_bets: float, spots: Sequence[str], via: str) -> None:
        """Schedule round ``ctl.trace.round``'s attempts around ``t_no_more_bets`` (the rig's time of
        the croupier's "no more bets"), on ``spots`` in turn; ``via`` "press", "chips" or "request"."""
        if not spots:
            return
        n = ctl.trace.round
        env = ctl.env
        self._unsent(ctl)
        self.in_flight = 0  # a press the last round never had answered holds no slot of this one
        offsets = self.offsets(n)
        self.window_end = t_no_more_bets + self.settings.window_s[1]
        self._say(ctl, "adversary_plan", {"round": n, "no_more_bets_s": t_no_more_bets, "seat": self.seat,
                                          "attempts": len(offsets), "window_s": list(self.settings.window_s),
                                          "seed": self.settings.seed, "via": via})
        for k, off in enumerate(offsets, 1):
            at = t_no_more_bets + off
            spot = str(spots[(k - 1) % len(spots)])
            info = {"attempt": f"{n}-{k}", "seat": self.seat, "spot": spot, "stake_cents": self.stake_cents,
                    "intended_s": at, "offset_s": off}
            ev = env.timeout(max(0.0, at - env.now))
            act = {"press": self._press, "chips": self._chip, "request": self._request}[via]
            ev.callbacks.append(lambda _e, info=info, act=act: act(ctl, info))

    # ------------------------------------------------------------------ the attempts
    @staticmethod
    def _say(ctl: TableCroupier, kind: str, payload: dict[str, Any]) -> None:
        ctl.trace.record(DEVICE, kind, payload)

    def _press(self, ctl: TableCroupier, info: dict[str, Any]) -> None:
        """A press of the seat's button at its instant — or, with ``max_in_flight`` presses already
        issued and not yet answered, as soon as one is answered (the link to a real device carries one
        request at a time: a rig that presses faster than it only queues its own lock-out behind them)."""
        limit = self.settings.max_in_flight
        if limit is not None and self.in_flight >= limit:
            self.waiting.append((ctl, info))
            return
        self._send(ctl, info)

    def _send(self, ctl: TableCroupier, info: dict[str, Any]) -> None:
        """Issue the press now: the actuator's, or the device's injection."""
        self.attempts += 1
        self.in_flight += 1
        seat, spot = info["seat"], info["spot"]
        actuator = ctl.actuator
        via = "actuator" if actuator is not None else "injection"
        self._say(ctl, "adversary_attempt", {**info, "via": via, "sent_s": ctl.env.now})
        if ctl.sc.game == "blackjack" and ctl.sc.cards is not None and ctl.sc.cards.progressive:
            # the progressive wager's chips on the layout with its press (verified against it, § 633b.17(e))
            ctl.chips.append((ctl.env.now, seat, ctl.sc.cards.progressive, self.stake_cents))
        if actuator is not None:
            if not actuator.wired(seat, spot):
                self._answered(ctl, {"attempt": info["attempt"], "lost": "button not wired"})
                return
            ev = actuator.press(seat, spot, "adversary")
            ev.callbacks.append(ctl._actuated)
            ev.callbacks.append(lambda e: self._answered(ctl, {
                "attempt": info["attempt"], **({"actuation_id": e.value.actuation_id} if e.ok and e.value.ok
                                               else {"lost": "actuation failed"})}))
            return
        ev = ctl.wagering.press(seat, spot, info["stake_cents"])
        ev.callbacks.append(ctl._injected)
        ev.callbacks.append(lambda e: self._answered(ctl, {
            "attempt": info["attempt"], **({"press_id": e.value.press_id, "accepted": e.value.accepted,
                                            "device_time_s": e.value.device_time_s, "reason": e.value.reason}
                                           if e.ok else {"lost": str(e.value)})}))

    def _answered(self, ctl: TableCroupier, payload: dict[str, Any]) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self._say(ctl, "adversary_answer", payload)
        while self.waiting:
            _ctl, info = self.waiting.popleft()
            if ctl.env.now <= self.window_end:  # still inside the round's window: sent late
                self._send(ctl, info)
                return
            self._unsent_one(ctl, info)

    def _unsent(self, ctl: TableCroupier) -> None:
        """Attempts still waiting for the link when the next round is planned: recorded, never sent."""
        while self.waiting:
            self._unsent_one(ctl, self.waiting.popleft()[1])

    def _unsent_one(self, ctl: TableCroupier, info: dict[str, Any]) -> None:
        self._say(ctl, "adversary_unsent", {**info, "reason": f"{self.settings.max_in_flight} press(es) in flight "
                                            "until the end of the round's window (max_in_flight)"})
        self.unsent += 1

    def _chip(self, ctl: TableCroupier, info: dict[str, Any]) -> None:
        """Chips on a side wager's area of the layout, now."""
        self.attempts += 1
        now = ctl.env.now
        ctl.chips.append((now, info["seat"], info["spot"], info["stake_cents"]))
        self._say(ctl, "adversary_attempt", {**info, "via": "chips", "sent_s": now, "placed_s": now})

    def _request(self, ctl: Any, info: dict[str, Any]) -> None:
        """Crazy 4: player ADV asks to place an Ante or a Super Bonus Wager at its position, now."""
        from rules.crazy4 import Crazy4Wager, WagerRequest

        self.attempts += 1
        wager = Crazy4Wager(info["spot"])
        self._say(ctl, "adversary_attempt", {**info, "via": "request", "sent_s": ctl.env.now,
                                             "player": PLAYER, "position": self.seat})
        ctl._decide(WagerRequest(PLAYER, self.seat, wager, info["stake_cents"]))
        self._say(ctl, "adversary_answer", {"attempt": info["attempt"], "request_id": f"{ctl.trace.round}-{ctl.requests}"})


def crazy4_spots() -> tuple[str, str]:
    """Crazy 4: the adversary's wagers, alternately (equal amounts at its position)."""
    from rules.crazy4 import Crazy4Wager

    return (str(Crazy4Wager.ANTE), str(Crazy4Wager.SUPER_BONUS))
