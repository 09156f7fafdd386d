"""The run's own evidence, judged like any regulation clause: a verdict on a broken link is no verdict.

Every table's checks read device reports. When the link to a device drops frames, times out or
answers garbage, or the croupier voids spin after spin and round after round, the regulation
checks see fewer rounds — and may still pass on what is left. This check counts what the trace
shows of it and fails the run past the scenario's limits (``checks.max_wire_faults``,
``checks.max_void_spin_ratio``, ``checks.max_void_round_ratio``, ``checks.max_actuations_lost``;
recorded in the trace's ``check_config``), so a scenario is never MET silently on a broken link.
"""

from __future__ import annotations

from scipy.stats import beta

from hil.checks.base import BenchView, Check, Measurement, RoundView

#: a share of void spins is judged too high only when its one-sided 99 % lower confidence bound
#: (Clopper–Pearson) exceeds the limit: 1 void in 60 spins is no evidence of a 1 % void rate
CONFIDENCE = 0.99


def lower_bound(k: int, n: int) -> float:
    """One-sided ``CONFIDENCE`` lower bound of a binomial proportion k/n (exact, Clopper–Pearson)."""
    return 0.0 if k == 0 or n == 0 else float(beta.ppf(1 - CONFIDENCE, k, n - k + 1))


class RunEvidence(Check):
    """The rig's evidence of the run (every table): a result is only as good as the reports it was
    judged on. Wire faults (``wire_fault``: a frame lost, garbled, timed out, a value out of range),
    void spins (``spin_void``: the wheel's result not usable; a share judged too high only when its one-sided
    99 % lower confidence bound exceeds the limit), void rounds (``round_end`` void:
    no settlement at all) and the rig's actuations the device never registered (``actuation_lost``:
    a press that left no entry in its log, so no check saw it — a device that stamps its presses
    outside their closing brackets leaves the rig's presses lost and its own entries foreign) must
    stay within the limits the scenario declares; an error of the run
    (``run_error``) fails it outright, and so does a trace holding fewer rounds than the scenario
    asked for (a run that did not finish), or, in a run its sequential monitor stopped
    (``monitor_stop``), fewer than the rounds up to the stop."""

    id = "EVIDENCE-link"
    section = "rig evidence"
    title = "Wire faults, void spins, void rounds and lost actuations within the scenario's limits"

    def __init__(self, config):
        super().__init__(config)
        self.wire_faults = self.reconnects = self.spins = self.void_spins = self.void_rounds = 0
        self.errors = self.actuations_lost = 0
        self.kinds: dict[str, int] = {}
        self.monitor_stop: int | None = None

    def setup(self, bench: BenchView) -> None:
        super().setup(bench)

    def observe(self, rv: RoundView) -> None:
        for e in rv.events:
            k = e.kind
            if k == "wire_fault":
                self.wire_faults += 1
                kind = f"{e.device}:{e.payload.get('kind', '?')}"
                self.kinds[kind] = self.kinds.get(kind, 0) + 1
                if self.wire_faults > self.config.max_wire_faults and self.wire_faults - self.config.max_wire_faults <= 3:
                    self.finding(rv.n, e, f"wire fault on {e.device} ({e.payload.get('kind')}: "
                                 f"{str(e.payload.get('detail', ''))[:120]}); the scenario allows "
                                 f"{self.config.max_wire_faults}")
            elif k == "wire_reconnected":
                self.reconnects += 1
            elif e.device == "croupier":
                if k == "spin_command":
                    self.spins += 1
                elif k == "spin_void":
                    self.void_spins += 1
                elif k == "actuation_lost":
                    self.actuations_lost += 1
                    over = self.actuations_lost - self.config.max_actuations_lost
                    if 0 < over <= 3:
                        p = e.payload
                        self.finding(rv.n, e, f"actuation {p.get('actuation_id')} ({p.get('purpose')} press of seat "
                                     f"{p.get('seat')} {p.get('spot')!r}) is in no entry of the device's press log; "
                                     f"the scenario allows {self.config.max_actuations_lost} lost")
                elif k == "run_error":
                    self.errors += 1
                    self.finding(rv.n, e, "the run ended by an error: its evidence is incomplete")
                elif k == "monitor_stop" and e.payload.get("stop", True) and self.monitor_stop is None:
                    self.monitor_stop = rv.n  # the sequential monitor ended the rounds here (RW-pocket-sprt judges it)
        if rv.end is not None:
            self.rounds += 1
            if rv.end.payload.get("void"):
                self.void_rounds += 1

    def verdict(self):
        c = self.config
        spin_ratio = self.void_spins / self.spins if self.spins else 0.0
        round_ratio = self.void_rounds / self.rounds if self.rounds else 0.0
        m = [Measurement("wire_faults", self.wire_faults, "faults", limit=f"<= {c.max_wire_faults}"),
             Measurement("wire_reconnects", self.reconnects, "reconnects"),
             Measurement("void_spin_ratio", round(spin_ratio, 6), "ratio", limit=f"<= {c.max_void_spin_ratio}"),
             Measurement("void_round_ratio", round(round_ratio, 6), "ratio", limit=f"<= {c.max_void_round_ratio}"),
             Measurement("void_spins", self.void_spins, "spins"),
             Measurement("void_rounds", self.void_rounds, "rounds"),
             Measurement("actuations_lost", self.actuations_lost, "actuations", limit=f"<= {c.max_actuations_lost}")]
        if self.wire_faults > c.max_wire_faults:
            kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(self.kinds.items()))
            self.finding(0, None, f"{self.wire_faults} wire fault(s) ({kinds}); the scenario allows {c.max_wire_faults}")
        if self.actuations_lost > c.max_actuations_lost:
            self.finding(0, None, f"{self.actuations_lost} of the rig's actuations never registered by the device; "
                         f"the scenario allows {c.max_actuations_lost}")
        spin_lo = lower_bound(self.void_spins, self.spins)
        m.append(Measurement("void_spin_ratio_lower_bound", round(spin_lo, 6), "ratio",
                             limit=f"<= {c.max_void_spin_ratio} (one-sided {CONFIDENCE:.0%})"))
        if spin_lo > c.max_void_spin_ratio:
            self.finding(0, None, f"{self.void_spins} of {self.spins} spins void ({spin_ratio:.1%}, at least "
                         f"{spin_lo:.1%} at {CONFIDENCE:.0%} confidence); the scenario allows {c.max_void_spin_ratio:.1%}")
        if round_ratio > c.max_void_round_ratio:
            self.finding(0, None, f"{self.void_rounds} of {self.rounds} rounds void ({round_ratio:.1%}); the "
                         f"scenario allows {c.max_void_round_ratio:.1%}")
        if c.rounds_requested is not None and self.monitor_stop is not None:
            # a run the sequential monitor stopped holds the rounds up to its stop (RW-pocket-sprt checks the stop)
            m.append(Measurement("rounds_completed", self.rounds, "rounds",
                                 limit=f"== {self.monitor_stop} (the monitor's stop; at most {c.rounds_requested})"))
            if self.rounds < self.monitor_stop:
                self.finding(0, None, f"the trace holds {self.rounds} of the {self.monitor_stop} rounds up to the "
                             "sequential monitor's stop")
        elif c.rounds_requested is not None:
            m.append(Measurement("rounds_completed", self.rounds, "rounds", limit=f"== {c.rounds_requested}"))
            if self.rounds < c.rounds_requested:
                self.finding(0, None, f"the trace holds {self.rounds} of the {c.rounds_requested} rounds the scenario "
                             "asked for: the run did not finish (resume it: croupier run --resume)")
        if self.failed:
            return "fail", f"the run's evidence is thin: {self._findings_total} finding(s)", m
        if not self.rounds:
            return "indeterminate", "no round was completed", m
        return "pass", (f"{self.rounds} rounds: {self.wire_faults} wire faults, {self.void_spins}/{self.spins} void "
                        f"spins, {self.void_rounds} void rounds"
                        + (f", {self.actuations_lost} actuations lost" if self.actuations_lost else "")
                        + " — within the scenario's limits"), m


EVIDENCE_CHECKS = (RunEvidence,)
