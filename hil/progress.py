"""Progress of a suite run, on stderr: live bars on a terminal, a plain line every ~10 s elsewhere.

``run_suite`` (``hil.runner``) reports to a ``SuiteProgress``:

- ``scenario_started(i)`` when scenario ``i`` starts running (in whatever worker process),
- ``rounds_done(i, done, void)`` as its rounds are committed to its trace (throttled: at most
  every ``ROUNDS_EVERY_S`` per scenario, and once at the end),
- ``scenario_finished(i, result)`` with its result (its outcome counted: met / not met / not
  decisive / not applicable),
- ``close()`` at the end of the run.

Renderers (``make_progress``): ``LiveProgress`` (rich bars: the suite's rounds with the scenarios
done, rounds/s, ETA and the live outcome counts, and a rounds bar per running scenario with its
rounds/s and ETA), ``PlainProgress`` (one line at most every ``interval_s``, default 10 s or
``$CROUPIER_PROGRESS_INTERVAL_S``, written by a timer so that a run longer than the interval always
shows progress even when no round ends: a real-time bench's round can take a minute), and
``SuiteProgress`` itself (counts only: ``-q``). Progress never goes to stdout: stdout is the
summary table's (or a JSON document's).

Inside a scenario's simulation a ``TraceObserver`` watches the trace writer: the rounds committed
(``TraceWriter.after_write``), and the events worth a log line (``croupier.run`` logger): a real
device's ``device_info`` (bench connect), wire and device faults, link lost/restored, a crash, and
at ``-vv`` every round's result and void (a refusal is ``run_suite``'s line: "bench refused the run").
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

log = logging.getLogger("croupier.run")

#: a scenario's rounds are reported at most this often (and once when it ends)
ROUNDS_EVERY_S = 0.25
#: the plain renderer's default interval between two lines
PLAIN_INTERVAL_S = 10.0
INTERVAL_ENV = "CROUPIER_PROGRESS_INTERVAL_S"
#: "live" | "plain" | "off": force a renderer (default: live on a terminal, plain elsewhere)
MODE_ENV = "CROUPIER_PROGRESS"

OUTCOMES = ("met", "not met", "not decisive", "not applicable")


def outcome_of(result: dict[str, Any]) -> str:
    """A scenario result's outcome (``result["outcome"]`` where the runner gives one)."""
    if result.get("outcome") in OUTCOMES:
        return result["outcome"]
    if result.get("not_applicable"):
        return "not applicable"
    met = result.get("expectation_met")
    return "met" if met is True else "not met" if met is False else "not decisive"


def _hms(seconds: float | None) -> str:
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "--:--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def _rate(rate: float) -> str:
    """``12.3 rounds/s``; a real-time bench's slow rounds also as seconds a round."""
    if rate >= 1 or rate <= 0:
        return f"{rate:.1f} rounds/s"
    return f"{rate:.3f} rounds/s ({1 / rate:.1f} s/round)"


@dataclass
class ScenarioProgress:
    name: str
    rounds: int
    done: int = 0
    void: int = 0
    #: rounds already in the trace when it started (a resumed run): not counted in its rate
    first_done: int | None = None
    started: float | None = None
    #: when its last round was reported (its checks run after it)
    rounds_ended: float | None = None
    #: when ``done`` last grew
    last_round_at: float | None = None
    finished: bool = False
    outcome: str | None = None

    def rate(self, now: float) -> float:
        """Rounds a second from its start to its last round reported (0 before its first round)."""
        if self.started is None or self.last_round_at is None or self.last_round_at <= self.started:
            return 0.0
        return max(0, self.done - (self.first_done or 0)) / (self.last_round_at - self.started)

    @property
    def checking(self) -> bool:
        """Every round run: its checks are reading the trace."""
        return self.rounds_ended is not None

    def eta_s(self, now: float) -> float | None:
        """Seconds to its last round at its rate, less the time since its last round (counts down
        during a slow real-time round)."""
        rate = self.rate(now)
        if rate <= 0:
            return None
        return max(0.0, (self.rounds - self.done) / rate - (now - (self.last_round_at or now)))


@dataclass
class SuiteProgress:
    """The state of a suite run's progress; renders nothing (``-q``). Thread-safe: the runner
    reports from its listener thread and the pool's callback thread."""

    scenarios: list[ScenarioProgress]
    clock: Callable[[], float] = time.monotonic
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    started: float = 0.0
    last_round_at: float | None = None

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self.started = self.clock()

    @classmethod
    def for_suite(cls, scenarios: list[tuple[str, int]], **kw: Any) -> SuiteProgress:
        return cls([ScenarioProgress(name, rounds) for name, rounds in scenarios], **kw)

    # ------------------------------------------------------------------ what the runner reports
    def scenario_started(self, i: int) -> None:
        with self._lock:
            sp = self.scenarios[i]
            if sp.started is None and not sp.finished:
                sp.started = self.clock()
                self._on_start(i)

    def rounds_done(self, i: int, done: int, void: int = 0) -> None:
        with self._lock:
            sp = self.scenarios[i]
            if sp.finished:  # a late message from its worker
                return
            if sp.started is None:
                sp.started = self.clock()
                self._on_start(i)
            if sp.first_done is None:  # the first report: the rounds already done before this run
                sp.first_done = done
            now = self.clock()
            if done > sp.done and sp.first_done != done:
                sp.last_round_at = now
                self.last_round_at = now
            sp.done, sp.void = max(sp.done, min(done, sp.rounds)), max(sp.void, void)
            if sp.done >= sp.rounds and sp.rounds_ended is None:
                sp.rounds_ended = now
            self._on_rounds(i)

    def scenario_finished(self, i: int, result: dict[str, Any]) -> None:
        with self._lock:
            sp = self.scenarios[i]
            if sp.finished:
                return
            sp.finished = True
            sp.outcome = outcome_of(result)
            self.counts[sp.outcome] += 1
            self._on_finish(i)

    def close(self) -> None:
        """The run is over (or stopped): stop rendering."""

    # ------------------------------------------------------------------ derived figures
    @property
    def total_rounds(self) -> int:
        return sum(s.rounds for s in self.scenarios)

    @property
    def rounds_completed(self) -> int:
        """Rounds done; a finished scenario counts all its rounds (one that crashed or was not
        applicable is done with, whatever it ran)."""
        return sum(s.rounds if s.finished else s.done for s in self.scenarios)

    @property
    def finished(self) -> int:
        return sum(s.finished for s in self.scenarios)

    def suite_rate(self, now: float) -> float:
        """Rounds a second over the whole run (all workers together), to the last round reported."""
        done = sum(s.done - (s.first_done or 0) for s in self.scenarios if s.started is not None)
        end = self.last_round_at
        return done / (end - self.started) if end is not None and end > self.started else 0.0

    def suite_eta_s(self, now: float) -> float | None:
        rate = self.suite_rate(now)
        left = self.total_rounds - self.rounds_completed
        if left == 0:
            return 0.0
        return max(0.0, left / rate - (now - (self.last_round_at or now))) if rate > 0 else None

    def counts_text(self) -> str:
        c = self.counts
        text = f"met {c['met']} · not met {c['not met']} · not decisive {c['not decisive']}"
        return text + (f" · not applicable {c['not applicable']}" if c["not applicable"] else "")

    def running(self) -> list[int]:
        return [i for i, s in enumerate(self.scenarios) if s.started is not None and not s.finished]

    def line(self) -> str:
        """One plain line: elapsed, scenarios done and their outcomes, rounds, rate and ETA, and
        each running scenario's rounds, rate and ETA."""
        with self._lock:
            now = self.clock()
            text = (f"progress {_hms(now - self.started)}: scenarios {self.finished}/{len(self.scenarios)} "
                    f"({self.counts_text()}); rounds {self.rounds_completed}/{self.total_rounds}, "
                    f"{_rate(self.suite_rate(now))}, ETA {_hms(self.suite_eta_s(now))}")
            parts = []
            for i in self.running():
                s = self.scenarios[i]
                void = f", {s.void} void" if s.void else ""
                state = "checking" if s.checking else f"ETA {_hms(s.eta_s(now))}"
                parts.append(f"{s.name} {s.done}/{s.rounds} ({_rate(s.rate(now))}, {state}{void})")
            return text + ("; running: " + "; ".join(parts) if parts else "")

    # ------------------------------------------------------------------ renderer hooks
    def _on_start(self, i: int) -> None:
        pass

    def _on_rounds(self, i: int) -> None:
        pass

    def _on_finish(self, i: int) -> None:
        pass


class PlainProgress(SuiteProgress):
    """One line on stderr at most every ``interval_s`` (from a timer thread: a run longer than
    the interval always shows a line, whether or not a round ended meanwhile)."""

    def __init__(self, scenarios: list[ScenarioProgress], interval_s: float | None = None,
                 stream: TextIO | None = None, **kw: Any) -> None:
        super().__init__(scenarios, **kw)
        self.interval_s = interval_s if interval_s is not None else plain_interval_s()
        self._stream = stream
        self._stop = threading.Event()
        self.lines = 0
        self._thread = threading.Thread(target=self._tick, name="croupier-progress", daemon=True)
        self._thread.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.emit()

    def emit(self) -> None:
        stream = self._stream or sys.stderr  # sys.stderr as it is now (pytest swaps it)
        try:
            stream.write(self.line() + "\n")
            stream.flush()
            self.lines += 1
        except (OSError, ValueError):  # stderr closed under us: progress is not worth a crash
            self._stop.set()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()


class LiveProgress(SuiteProgress):
    """rich bars on stderr: the suite (its rounds, scenarios done, outcome counts, rounds/s, ETA)
    and one bar per running scenario (rounds, rounds/s, ETA, void rounds)."""

    def __init__(self, scenarios: list[ScenarioProgress], console: Any = None, **kw: Any) -> None:
        super().__init__(scenarios, **kw)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bars = Progress(
            TextColumn("{task.description}", style="bold"), BarColumn(bar_width=30), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("ETA {task.fields[eta]}"),
            TextColumn("{task.fields[info]}"),
            console=console or Console(stderr=True), redirect_stdout=False, redirect_stderr=True,
            refresh_per_second=4, transient=False,
        )
        self._tasks: dict[int, Any] = {}
        self._suite = self.bars.add_task(self._suite_label(), total=self.total_rounds, rate="", eta="",
                                         info=self.counts_text())
        self.bars.start()
        self._timer_stop = threading.Event()
        self._timer = threading.Thread(target=self._tick, name="croupier-progress", daemon=True)
        self._timer.start()

    def _suite_label(self) -> str:
        return f"scenarios {self.finished}/{len(self.scenarios)}"

    def _tick(self) -> None:  # rates and ETAs move while no round ends (a slow real-time round)
        while not self._timer_stop.wait(1.0):
            with self._lock:
                for i in self._tasks:
                    self._update(i)
                self._update_suite()

    def _update_suite(self) -> None:
        now = self.clock()
        self.bars.update(self._suite, description=self._suite_label(), completed=self.rounds_completed,
                         rate=_rate(self.suite_rate(now)), eta=_hms(self.suite_eta_s(now)),
                         info=self.counts_text())

    def _update(self, i: int) -> None:
        s, now = self.scenarios[i], self.clock()
        info = ", ".join(x for x in (f"{s.void} void" if s.void else "", "checking" if s.checking else "") if x)
        self.bars.update(self._tasks[i], completed=s.done, rate=_rate(s.rate(now)),
                         eta=_hms(s.eta_s(now)), info=info)

    def _on_start(self, i: int) -> None:
        s = self.scenarios[i]
        name = s.name if len(s.name) <= 32 else s.name[:31] + "…"
        self._tasks[i] = self.bars.add_task(f"  {name}", total=s.rounds, rate="", eta="", info="")

    def _on_rounds(self, i: int) -> None:
        self._update(i)
        self._update_suite()

    def _on_finish(self, i: int) -> None:
        task = self._tasks.pop(i, None)
        if task is not None:
            self.bars.remove_task(task)
        self._update_suite()

    def close(self) -> None:
        self._timer_stop.set()
        if self._timer.is_alive():
            self._timer.join()
        with self._lock:
            self._update_suite()
        self.bars.stop()


def plain_interval_s() -> float:
    """``$CROUPIER_PROGRESS_INTERVAL_S`` (a positive number of seconds) or 10 s."""
    raw = os.environ.get(INTERVAL_ENV)
    try:
        value = float(raw) if raw else PLAIN_INTERVAL_S
    except ValueError:
        value = PLAIN_INTERVAL_S
    return value if value > 0 else PLAIN_INTERVAL_S


def make_progress(scenarios: list[tuple[str, int]], verbosity: int = 0, stream: TextIO | None = None,
                  mode: str | None = None) -> SuiteProgress:
    """The renderer for this run: none at ``-q`` (verbosity < 0), live bars when stderr is a
    terminal, plain lines otherwise; ``mode`` (or ``$CROUPIER_PROGRESS``) "live" / "plain" / "off"
    forces one."""
    mode = mode or os.environ.get(MODE_ENV) or ""
    states = [ScenarioProgress(name, rounds) for name, rounds in scenarios]
    if verbosity < 0 or mode == "off":
        return SuiteProgress(states)
    stream = stream or sys.stderr
    if mode == "live" or (mode != "plain" and getattr(stream, "isatty", lambda: False)()):
        return LiveProgress(states)
    return PlainProgress(states, stream=None if stream is sys.stderr else stream)


# ---------------------------------------------------------------------- inside a scenario's run
#: event kind -> log level of its line (croupier.run); round_end is debug (``-vv``)
_LOGGED = {
    "device_info": logging.INFO, "wire_fault": logging.INFO, "wire_reconnected": logging.INFO,
    "link_lost": logging.WARNING, "link_restored": logging.INFO, "instrument_fault": logging.INFO,
    "run_error": logging.ERROR,
}
_MESSAGES = {
    "device_info": "device connected", "wire_fault": "wire fault", "wire_reconnected": "wire reconnected",
    "link_lost": "link lost", "link_restored": "link restored", "instrument_fault": "instrument fault",
    "run_error": "scenario crashed",
}


#: what a ``device_info`` line keeps of the payload (the trace keeps all of it)
_DEVICE_INFO_KEYS = ("model", "kind", "url", "unit", "seats", "wheel", "idn", "resource", "clock_offset_s",
                     "clock_uncertainty_s")


def _scalars(payload: Any, limit: int = 12, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A payload's scalar fields (a log line's, not the trace's: lists and tables are left out)."""
    if not isinstance(payload, dict):
        return {}
    out = {}
    for k, v in (payload.items() if keys is None else ((k, payload[k]) for k in keys if k in payload)):
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[str(k)] = v if not isinstance(v, str) or len(v) <= 400 else v[:400] + "…"
            if len(out) >= limit:
                break
    return out


class TraceObserver:
    """Watches one scenario's ``TraceWriter``: calls ``report(done, void)`` as rounds are committed
    (at most every ``every_s``, and at ``flush()``), and logs the events in ``_LOGGED`` (plus each
    round at debug). Installed before the table is built, so the devices' telemetry goes through it.
    ``real_devices``: a real-time bench, whose ``device_info`` is a device connected (info) and a
    lost link a warning; a simulated device's are logged at debug and info."""

    def __init__(self, writer: Any, scenario: str, report: Callable[[int, int], None] | None,
                 every_s: float = ROUNDS_EVERY_S, clock: Callable[[], float] = time.monotonic,
                 real_devices: bool = True) -> None:
        self.scenario = scenario
        # on a simulated bench a lost link is a fault scenario's injection, not news: info (-v)
        self._levels = _LOGGED if real_devices else {**_LOGGED, "device_info": logging.DEBUG,
                                                      "link_lost": logging.INFO}
        self.report = report
        self.every_s = every_s
        self.clock = clock
        self.rounds = 0  # rounds ended (recorded); committed at the next commit
        self.void = 0
        self._committed = (0, 0)
        self._sent = (0, 0)
        self._last_sent = float("-inf")
        self._debug = log.isEnabledFor(logging.DEBUG)
        writer.watch(("round_end", *_LOGGED), self._recorded)  # the croupier's and the devices' events
        writer.after_write.append(self._written)

    def start(self, rounds_before: int = 0) -> None:
        """The run starts after ``rounds_before`` rounds already in the trace (a resumed run):
        reported at once, so the scenario shows as running and its rate counts this run's only."""
        self.rounds = rounds_before
        self._committed = (rounds_before, 0)
        if self.report is not None:
            self._send(self.clock())

    def _recorded(self, device: str, kind: str, payload: Any) -> None:
        if kind == "round_end":
            self._round_end(payload or {})
        else:
            self._log(device, kind, payload)

    def _round_end(self, payload: dict[str, Any]) -> None:
        n = payload.get("round")
        if isinstance(n, int) and n > self.rounds:
            self.rounds = n
        void = payload.get("void") is True
        self.void += void
        if self._debug:
            fields = {k: payload[k] for k in ("result", "pocket", "reason", "wagers") if k in payload}
            log.debug("round", extra={"scenario": self.scenario, "round": n, "void": void, **fields})

    def _log(self, device: str, kind: str, payload: Any) -> None:
        level = self._levels[kind]
        if log.isEnabledFor(level):
            fields = _scalars(payload, keys=_DEVICE_INFO_KEYS if kind == "device_info" else None)
            if kind == "run_error":  # the traceback is in the trace and the result
                fields = {"last_line": str(fields.get("traceback", "")).strip().splitlines()[-1:]}
            log.log(level, _MESSAGES[kind], extra={"scenario": self.scenario, "device": device,
                                                   "event": kind, **fields})

    def _written(self) -> None:
        # the rounds whose events this transaction made durable
        self._committed = (self.rounds, self.void)
        if self.report is not None and self._committed != self._sent:
            now = self.clock()
            if now - self._last_sent >= self.every_s:
                self._send(now)

    def _send(self, now: float) -> None:
        self._sent, self._last_sent = self._committed, now
        self.report(*self._committed)

    def flush(self) -> None:
        """Report the last committed rounds now (the scenario's run is over)."""
        if self.report is not None and self._committed != self._sent:
            self._send(self.clock())
