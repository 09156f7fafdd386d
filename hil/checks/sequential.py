"""The sequential monitor's check: ``RW-pocket-sprt`` replays a run's monitor (scenario
``monitor``, ``hil.monitor``) over the trace and judges the wheel by it, and the run's stop by it.

It reads only the trace: the ball wheel's ``ball_result`` of each round's valid spin (the rule of
``RW-pocket-chi2``: ``hil.checks.roulette.valid_ball``) and the croupier's ``monitor_stop``; the
monitor's design is the one the trace's ``check_config`` records.
"""

from __future__ import annotations

from hil.checks.base import Check, Measurement, RoundView
from hil.checks.roulette import TableCheck, valid_ball
from hil.monitor import STOP_KIND, design, spin_symbol
from hil.stats.data import Alphabet
from hil.stats.sequential import ACCEPT_BIAS, ACCEPT_FAIR, Sprt


class PocketSprt(TableCheck):
    """§ 617b.4(f), § 617b.5(e): the number is "the compartment the ball comes to rest in"; the
    paytables of §§ 617b.4(h) and 617b.5(g) presume each compartment equally likely. Wald's
    sequential probability ratio test of the valid spins' numbers, as the ball wheel reported
    them: the wheel fair (H0) against the scenario's planned bias (H1), at its nominal α and β.
    PASS when it accepts H0, FAIL when it accepts H1, indeterminate while it is not decisive (or
    the scenario has no monitor). A run the monitor stopped must have stopped exactly where the
    replay decides, on the replay's decision, and played no round after it."""

    id = "RW-pocket-sprt"
    section = "§ 617b.4(f), § 617b.5(e)"
    title = "Numbers uniform over the wheel's compartments (sequential test against the planned bias)"

    def __init__(self, config):
        super().__init__(config)
        self.sprt: Sprt | None = None
        self.decided_round: int | None = None
        self.stops: list[tuple[int, dict]] = []
        self.after_stop = 0
        self.foreign = 0

    def setup(self, bench) -> None:
        super().setup(bench)
        if self.config.monitor is None:
            return
        try:
            self.sprt = Sprt(design(self.config.monitor, str(self.wheel)))
        except (ValueError, KeyError, TypeError) as exc:
            self.finding(0, None, f"the monitor the trace records cannot be replayed: {exc}")
        self.alphabet = Alphabet.roulette(str(self.wheel))

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if self.sprt is None:
            return
        if self.stops and self.config.monitor.get("stop", True) and rv.end is not None:
            self.after_stop += 1
        ball = valid_ball(rv)
        if ball is not None:
            s = spin_symbol(self.alphabet, ball.payload)
            if s is None:
                self.foreign += 1
                self.finding(rv.n, ball, f"the wheel reported {ball.payload.get('pocket')!r}, no pocket of the "
                             f"{self.wheel} wheel")
            elif self.sprt.decision is None:
                self.sprt.update(*s)
                if self.sprt.decision is not None:
                    self.decided_round = rv.n
        for stop in rv.by_croupier(STOP_KIND):
            self.stops.append((rv.n, stop.payload))

    def verdict(self):
        if self.config.monitor is None:
            return "indeterminate", "the scenario has no sequential monitor (scenario monitor:)", []
        if self.sprt is None:
            return "fail", "the monitor cannot be replayed", []
        s, d = self.sprt, self.sprt.design
        m = [Measurement("spins", s.n, "spins", limit=f">= {d.min_n} before a decision" if d.min_n else None),
             Measurement("log_likelihood_ratio", round(s.llr, 6), "1", limit=f"<= {d.lower:.4f} (H0) or >= {d.upper:.4f} (H1)"),
             Measurement("alpha", d.alpha, "1"), Measurement("beta", d.beta, "1"),
             Measurement("decided_at_spin", s.decided_at, "spins"), Measurement("decided_at_round", self.decided_round, "rounds")]
        stop_wanted = bool(self.config.monitor.get("stop", True))
        if self.stops:
            rnd, p = self.stops[0]
            if len(self.stops) > 1:
                self.finding(self.stops[1][0], None, f"{len(self.stops)} monitor_stop records; the monitor decides once")
            if s.decision is None:
                self.finding(rnd, None, f"the run recorded a monitor decision {p.get('decision')} at round {rnd}; the "
                             f"trace's {s.n} spins do not make the test decisive (log-likelihood ratio {s.llr:.3f})")
            elif (p.get("decision"), rnd) != (s.decision, self.decided_round):
                self.finding(rnd, None, f"the run recorded the monitor deciding {p.get('decision')} at round {rnd}; the "
                             f"trace's spins decide {s.decision} at round {self.decided_round}")
            if stop_wanted and self.after_stop:
                self.finding(rnd, None, f"{self.after_stop} round(s) played after the monitor stopped the run at round {rnd}")
        elif s.decision is not None and stop_wanted:
            self.finding(self.decided_round or 0, None, f"the test was decisive ({s.decision}) at round "
                         f"{self.decided_round}, and the run went on without recording the monitor's stop")
        if s.decision == ACCEPT_BIAS:
            self.finding(self.decided_round or 0, None, f"the planned bias {d.bias.text!r} accepted (H1) after {s.decided_at} "
                         f"valid spins: log-likelihood ratio {s.llr:.3f} >= {d.upper:.3f} (alpha {d.alpha}, beta {d.beta})")
        if self.failed:
            if s.decision == ACCEPT_BIAS and self._findings_total == 1:
                return "fail", f"the wheel is not fair: {d.bias.text!r} accepted after {s.decided_at} spins", m
            return "fail", f"{self._findings_total} finding(s) against the sequential test", m
        if s.decision == ACCEPT_FAIR:
            return "pass", (f"fair accepted (H0) against {d.bias.text!r} after {s.decided_at} spins: log-likelihood "
                            f"ratio {s.llr:.3f} <= {d.lower:.3f} (alpha {d.alpha}, beta {d.beta})"), m
        return "indeterminate", (f"not decisive after {s.n} spins: log-likelihood ratio {s.llr:.3f} between "
                                 f"{d.lower:.3f} and {d.upper:.3f}"), m


SEQUENTIAL_CHECKS: tuple[type[Check], ...] = (PocketSprt,)

__all__ = ["SEQUENTIAL_CHECKS", "PocketSprt"]
