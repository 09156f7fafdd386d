"""Exact return to player (RTP) of each Crazy Time wager under a Rules Submission.

RTP is the expected amount returned per unit wagered, the returned stake of a winning wager
included. It is derived by enumerating every Top Slot outcome (§ 690.3) against every wheel
section (§ 690.1(b)) and settling one wager per betting option with ``settle`` — the same code
that settles a round — so the RTP and the settlement cannot disagree.

Assumptions: a fair wheel (each of the 54 sections 1/54), a Top Slot independent of the wheel,
no maximum payout limit, exact odds (no rounding to the cent).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from rules.crazy_time import SPOTS, TOP_SLOT_REEL1, TOP_SLOT_REEL2, WHEEL_SECTIONS, TopSlotOutcome, Wager, settle
from rules.submission import RulesSubmission


@dataclass(frozen=True)
class WagerRtp:
    """The RTP of one wager. ``provisional``: it includes bonus results paid at provisional odds
    (see ``rules.crazy_time.winning_odds``), so it is not the regulation's figure."""

    wager: str
    rtp_exact: Fraction
    method: str
    provisional: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "wager": self.wager,
            "rtp": float(self.rtp_exact),
            "rtp_exact": f"{self.rtp_exact.numerator}/{self.rtp_exact.denominator}",
            "method": self.method,
            "provisional": self.provisional,
        }


def crazy_time_rtp(sub: RulesSubmission) -> tuple[WagerRtp, ...]:
    """Exact RTP of each betting option, in the order of § 690.3(b)(1)."""
    par = sub.top_slot
    top_slots = [
        (TopSlotOutcome(spot, m, aligned),
         (par.align_probability if aligned else 1 - par.align_probability)
         * par.reel1_probability(spot) * par.reel2_probability(m))
        for aligned, spot, m in product((True, False), TOP_SLOT_REEL1, TOP_SLOT_REEL2)
    ]
    wagers = [Wager(spot, seat=0, spot=spot, stake_cents=1) for spot in SPOTS]
    rtp = dict.fromkeys(SPOTS, Fraction(0))
    provisional = dict.fromkeys(SPOTS, False)
    for (top_slot, p_top_slot), (section, count) in product(top_slots, Counter(WHEEL_SECTIONS).items()):
        for payment in settle(wagers, section, top_slot).payments:
            rtp[payment.spot] += p_top_slot * Fraction(count, len(WHEEL_SECTIONS)) * (1 + payment.odds.ratio)
            provisional[payment.spot] |= payment.provisional
    return tuple(WagerRtp(str(spot), rtp[spot], "exact", provisional[spot]) for spot in SPOTS)
