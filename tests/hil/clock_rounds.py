"""Hand-made Crazy Time rounds for the clock-uncertainty tests (test_hil_clock_decision.py,
test_hil_clock_widened.py): one press near "no more bets" recorded as the device and the adversary
report it, the wagers the croupier made of it refunded in a void round, and the two checks that
judge which presses are wagers."""

from __future__ import annotations

from pathlib import Path

from devices.contracts import PressAnswer
from hil.checks import run_checks
from hil.controller import TableCroupier
from hil.trace import TraceWriter

SCENARIO = "schema: 1\nname: t\ngame: crazy-time\nseed: 1\nrounds: 1\n"
CHECKS = ("CT-690.2e-settlement", "CT-690.2a-late-bets")
#: a void round (refunded): the settlement check finds no deviation but has no settled round to pass on
AGREE = {"CT-690.2e-settlement": ("indeterminate", 0), "CT-690.2a-late-bets": ("pass", 0)}


def record_press(w: TraceWriter, croupier: TableCroupier, press_id: int, press_s: float) -> None:
    """The rig's adversary press ``press_id``, accepted by the device at ``press_s`` (answered 2 ms
    later): the attempt, the device's report, the answer, and the croupier's copy of it."""
    press = PressAnswer(press_id, 6, "1", 100, True, press_s, press_s + 0.002, None)
    w.record("adversary", "adversary_attempt", {"attempt": "1-1", "via": "injection", "seat": 6, "spot": "1",
                                                "intended_s": press_s, "sent_s": press_s})
    w.record("wagering", "press", vars(press))
    w.record("adversary", "adversary_answer", {"attempt": "1-1", "press_id": press_id})
    croupier.answers.append(press)
    croupier.rig_press_ids.add(press_id)


def record_void_round(w: TraceWriter, wagers: list[int]) -> None:
    """Each wager the croupier made of a press (its meter increment), refunded: the round void."""
    for pid in wagers:
        w.record("croupier", "wager", {"wager_id": f"1-{pid}", "seat": 6, "spot": "1", "press_id": pid,
                                       "stake_cents": 100})
        w.record("wagering", "meter_increment", {"press_id": pid})
        w.record("croupier", "refund", {"wager_id": f"1-{pid}", "seat": 6, "spot": "1", "stake_cents": 100})
    w.record("croupier", "round_end", {"round": 1, "void": True, "reason": "spin_void_limit", "wagers": len(wagers)})


def verdicts(path: Path) -> dict[str, tuple[str, int]]:
    """check id -> (verdict, findings) of the two checks on the trace at ``path``."""
    return {r.id: (r.verdict, r.findings_total) for r in run_checks(path) if r.id in CHECKS}
