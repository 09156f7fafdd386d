"""A run's sequential monitor (scenario ``monitor:``; docs/plan.md "A run's monitor").

Wald's SPRT (``hil.stats.sequential``) of the Roulette wheel fair against the scenario's planned
bias, fed as each round ends with the number of the round's valid spin AS THE BALL WHEEL REPORTED
IT (its ``ball_result``: pocket and rotor direction), never the croupier's state. Once decisive
(and ``min_spins`` valid spins in), the round's record says so (croupier ``monitor_stop``: the
decision, the spins, the log-likelihood ratio and the bounds), that round is committed whole, and
the scenario's rounds end there (``MonitorStop``, caught by ``hil.runner.simulate``). The check
``RW-pocket-sprt`` (``hil.checks.sequential``) replays the same monitor over the trace and judges
the run by it, the stop included: a stop the trace does not bear out fails it.

``valid_spin`` is the one rule both use to find a round's valid spin: the last ``ball_result`` a
device (not the croupier) reported before the croupier's ``spin_valid`` (the rule of
``RW-pocket-chi2``: ``hil.checks.roulette.valid_ball``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hil.stats.data import Alphabet
from hil.stats.sequential import Sprt, SprtDesign
from hil.stats.synth import parse_bias

CROUPIER = "croupier"
#: the croupier's record of a monitor's decision (the round it stopped the run at)
STOP_KIND = "monitor_stop"
#: ``ball_result``'s rotor direction as OutcomeData's (+1 clockwise, -1 anticlockwise, 0 unknown)
DIRECTION = {"cw": 1, "ccw": -1}


class MonitorStop(Exception):
    """The run's monitor was decisive: the scenario's rounds end after ``round`` (not an error)."""

    def __init__(self, round_: int, decision: str) -> None:
        super().__init__(f"the sequential monitor accepted {decision} at round {round_}")
        self.round = round_
        self.decision = decision


def design(monitor: dict[str, Any], wheel: str) -> SprtDesign:
    """The SPRT a scenario's ``monitor`` (as ``CheckConfig.monitor`` records it) asks for on
    ``wheel``. ValueError for a bias the wheel cannot have."""
    return SprtDesign(Alphabet.roulette(wheel), parse_bias(monitor["bias"]), float(monitor["alpha"]),
                      float(monitor["beta"]), int(monitor.get("min_spins", 0)))


def valid_spin(events: Iterable[tuple[str, str, Any]]) -> dict[str, Any] | None:
    """The payload of the wheel's ``ball_result`` of the round's valid spin, from the round's
    (device, kind, payload) in order; None when no spin was validated."""
    last = None
    for device, kind, payload in events:
        if kind == "ball_result" and device != CROUPIER:
            last = payload
        elif device == CROUPIER and kind == "spin_valid":
            return last if isinstance(last, dict) else None
    return None


def spin_symbol(alphabet: Alphabet, payload: dict[str, Any]) -> tuple[int, int] | None:
    """(index of the reported pocket on the wheel, direction) — None when the pocket is no pocket
    of the wheel (the check says so; the monitor never counts it)."""
    try:
        i = alphabet.index(payload.get("pocket"))
    except ValueError:
        return None
    return i, DIRECTION.get(payload.get("rotor_direction"), 0)


class RunMonitor:
    """The hook ``hil.runner.simulate`` installs on a monitored scenario's ``TraceWriter``: it
    watches the events as they are recorded (``record``) and ends the rounds at the commit of the
    round the monitor became decisive in (``commit`` raises ``MonitorStop`` after writing it)."""

    def __init__(self, writer: Any, sprt: Sprt, stop: bool = True) -> None:
        self.sprt = sprt
        self.stop = stop
        self.round_events: list[tuple[str, str, Any]] = []
        self.stop_round: int | None = None
        self._raised = False
        self._writer = writer
        self._record = writer.record
        self._commit = writer.commit
        writer.record = self.record
        writer.commit = self.commit

    @classmethod
    def install(cls, writer: Any, monitor: dict[str, Any], wheel: str,
                trace_rounds: Iterable[tuple[int, list]] = ()) -> RunMonitor:
        """On ``writer``; ``trace_rounds``: the rounds a resumed trace already holds ((round, its
        (device, kind, payload) list)), fed first so the monitor goes on where it was. Decisive
        already there (killed after committing that round): ``finished``, no round more is run."""
        sprt = Sprt(design(monitor, wheel))
        self = cls(writer, sprt, bool(monitor.get("stop", True)))
        for n, events in trace_rounds:
            self._feed(events)
            if sprt.decision is not None and self.stop_round is None:
                self.stop_round, self._raised = n, True
        return self

    @property
    def finished(self) -> bool:
        """The monitor has ended the run's rounds (no round more is to be run)."""
        return self.stop and self.stop_round is not None

    def _feed(self, events: list[tuple[str, str, Any]]) -> None:
        ball = valid_spin(events)
        if ball is not None and (s := spin_symbol(self.sprt.design.alphabet, ball)) is not None:
            self.sprt.update(*s)

    def record(self, device: str, kind: str, payload: dict[str, Any] | None = None) -> int:
        if kind in ("ball_result", "spin_valid"):
            self.round_events.append((device, kind, payload))
        elif kind == "round_end" and device == CROUPIER:
            decided = self.sprt.decision is not None
            self._feed(self.round_events)
            self.round_events = []
            s = self.sprt
            if not decided and s.decision is not None and self.stop_round is None:
                self.stop_round = self._writer.round
                d = s.design
                self._record(CROUPIER, STOP_KIND, {
                    "decision": s.decision, "spins": s.decided_at, "llr": round(s.llr, 9), "round": self._writer.round,
                    "bias": d.bias.text, "alpha": d.alpha, "beta": d.beta, "lower": d.lower, "upper": d.upper,
                    "stop": self.stop})
        return self._record(device, kind, payload)

    def commit(self, state: dict[str, Any] | None = None, *, round_end: bool = False) -> None:
        deciding = round_end and self.stop and self.stop_round is not None and not self._raised
        if deciding:  # the round it decided in is written now, whatever the writer's group: the run ends there
            self._writer.commit_now = True
        self._commit(state, round_end=round_end)
        if deciding:
            self._raised = True
            raise MonitorStop(self.stop_round, str(self.sprt.decision))


__all__ = ["STOP_KIND", "MonitorStop", "RunMonitor", "design", "spin_symbol", "valid_spin"]
