"""What a check is, and the per-round view of the trace that the checks share.

A check reads only the trace. It sees round 0 (the bench set-up: what each device declared),
then every round in order, and finally gives a verdict with its measurements (value, unit,
bracket) and findings a lab can act on (round, sequence number, what was expected, what was
seen). Checks keep running accumulators, not the whole trace: a 10^6-round trace is checked
in constant memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from devices.actuator import Attribution, Entry, attribute
from devices.contracts import Actuation
from hil.trace import Event

#: the ``Actuation`` fields an ``actuation`` event carries
ACTUATION_FIELDS = tuple(f for f in Actuation.__dataclass_fields__)

Verdict = Literal["pass", "fail", "indeterminate"]
MAX_FINDINGS = 25


@dataclass(frozen=True)
class Measurement:
    name: str
    value: float | int | None
    unit: str
    bracket: tuple[float, float] | None = None
    limit: str | None = None  # the limit the value is judged against, in words ("<= 0.010 s")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "unit": self.unit,
                "bracket": list(self.bracket) if self.bracket else None, "limit": self.limit}


@dataclass(frozen=True)
class Finding:
    round: int
    seq: int | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "seq": self.seq, "message": self.message}


@dataclass(frozen=True)
class CheckResult:
    id: str
    section: str
    title: str
    regulation: str
    verdict: Verdict
    summary: str
    measurements: tuple[Measurement, ...]
    findings: tuple[Finding, ...]
    findings_total: int
    rounds_examined: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "section": self.section, "title": self.title, "regulation": self.regulation,
            "verdict": self.verdict, "summary": self.summary,
            "measurements": [m.to_json() for m in self.measurements],
            "findings": [f.to_json() for f in self.findings], "findings_total": self.findings_total,
            "rounds_examined": self.rounds_examined,
        }


@dataclass(frozen=True)
class CheckConfig:
    """Limits the scenario sets for the checks."""

    lockout_budget_s: float = 0.010
    top_slot_start_tolerance_s: float = 0.100
    chi2_alpha: float = 0.01
    chi2_min_spins: int = 1_000
    #: the run's own evidence (``EVIDENCE-link``): at most this many wire faults, this share of
    #: void spins and of void rounds (a normal-play scenario: 0, 1 %, 0)
    max_wire_faults: int = 0
    max_void_spin_ratio: float = 0.01
    max_void_round_ratio: float = 0.0
    #: the rig's actuations the device never registered (``actuation_lost``) the scenario tolerates
    max_actuations_lost: int = 0
    #: the rounds the scenario asked for: a trace holding fewer is incomplete evidence (None: unknown)
    rounds_requested: int | None = None
    #: what the scenario lets the croupier do with a press the rig did not make (a real player's):
    #: ``refuse`` ("not made by the rig" then excuses it from settlement) or ``settle`` (it does not)
    foreign_presses: str = "refuse"
    #: the scenario's sequential monitor (``hil.monitor``: bias, alpha, beta, min_spins, stop), replayed by
    #: ``RW-pocket-sprt``; None: the scenario has none
    monitor: dict[str, Any] | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> CheckConfig:
        """The limits a trace recorded (``check_config`` metadata); fields it lacks keep their defaults."""
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in (data or {}).items() if k in known})


# ------------------------------------------------------------------------- the round view
@dataclass
class Attempt:
    """One push of the wheel and its concurrent Top Slot spin, as the trace shows them."""

    command: Event
    wheel_start: Event | None = None
    wheel_stop: Event | None = None
    pulses: list[Event] = field(default_factory=list)
    top_start: Event | None = None
    top_stop: Event | None = None
    outcome: Event | None = None  # croupier spin_valid / spin_void

    @property
    def valid(self) -> bool:
        return self.outcome is not None and self.outcome.kind == "spin_valid"


@dataclass
class RoundView:
    n: int
    events: list[Event]
    no_more_bets: Event | None = None
    lockout_command: Event | None = None
    lockout_intervals: list[Event] = field(default_factory=list)
    presses: list[Event] = field(default_factory=list)
    #: the rig's actuator's presses of the seat buttons (``actuator/actuation``), docs/wire/actuator.md
    actuations: list[Event] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    collects: list[Event] = field(default_factory=list)
    pays: list[Event] = field(default_factory=list)
    refunds: list[Event] = field(default_factory=list)
    end: Event | None = None
    #: device -> the uncertainty of its clock map into the rig's time (s), as its adapter declared it
    #: (``device_info`` / ``clock_estimate`` / ``wire_reconnected``: ``clock_uncertainty_s``, the largest
    #: in force during the round: docs/wire/clock.md); set by ``run_checks``
    clock_uncertainty_s: dict[str, float] = field(default_factory=dict, repr=False)
    #: device -> the uncertainty the round's wagers are judged with (``wager_presses``): the croupier's, the
    #: largest in force up to the device's ``clock_estimate`` reason ``decision`` (docs/wire/clock.md, "The
    #: uncertainty a wager is decided with"); a device without one: ``clock_uncertainty_s``. Set by
    #: ``run_checks``; None: ``clock_uncertainty_s``
    wager_clock_uncertainty_s: dict[str, float] | None = field(default=None, repr=False)
    #: results derived once per round and shared by the checks (e.g. the bonus-game replay,
    #: ``hil.checks.bonus.replay_bonus``), keyed by what derived them
    derived: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, n: int, events: list[Event]) -> RoundView:
        rv = cls(n, events)
        cur: Attempt | None = None
        for ev in events:
            k = ev.kind
            if ev.device == "croupier":
                if k == "spin_command":
                    cur = Attempt(ev)
                    rv.attempts.append(cur)
                elif k in ("spin_valid", "spin_void") and cur is not None:
                    cur.outcome = ev
                elif k == "no_more_bets":
                    rv.no_more_bets = rv.no_more_bets or ev
                elif k == "collect":
                    rv.collects.append(ev)
                elif k == "pay":
                    rv.pays.append(ev)
                elif k == "refund":
                    rv.refunds.append(ev)
                elif k == "round_end":
                    rv.end = ev
            elif k == "press":
                rv.presses.append(ev)
            elif k == "actuation":
                rv.actuations.append(ev)
            elif k == "lockout_command":
                rv.lockout_command = rv.lockout_command or ev
            elif k == "lockout_interval":
                rv.lockout_intervals.append(ev)
            elif cur is not None:
                if k == "spin_start":
                    cur.wheel_start = ev
                elif k == "spin_stop":
                    cur.wheel_stop = ev
                elif k == "index_pulse":
                    cur.pulses.append(ev)
                elif k == "top_slot_start":
                    cur.top_start = ev
                elif k == "top_slot_stop":
                    cur.top_stop = ev
        return rv

    @property
    def probe_seat(self) -> int | None:
        """The seat the rig's actuator presses this round (the lock-out probe), if it probed."""
        probe = next((e for e in self.events if e.device == "croupier" and e.kind == "lockout_probe"), None)
        return None if probe is None else probe.payload.get("seat")

    def is_probe_press(self, press: Event) -> bool:
        """A press of the rig's lock-out probe: on the probe seat, and at or after the device received
        the lock-out command (the probe's offsets are after it) or matched to one of the actuator's
        probe actuations (``probe_actuation``)."""
        seat = self.probe_seat
        if seat is None or press.payload.get("seat") != seat:
            return False
        if press.payload.get("press_id") in self.probe_actuation:
            return True
        if self.lockout_command is None:
            return False
        return press.payload["device_time_s"] >= self.lockout_command.payload.get("device_time_s", self.lockout_command.sim_time)

    @property
    def attribution(self) -> Attribution:
        """Who made each press of the round, re-derived from the trace: the actuator's actuations
        matched to the device's press log (``devices.actuator.attribute``, the croupier's rule), with
        the wagering device's clock uncertainty and the actuator's match window (each actuation
        carries it). A round
        without actuations has none matched."""
        if "attribution" not in self.derived:
            acts = [Actuation(**{k: e.payload[k] for k in ACTUATION_FIELDS if k in e.payload}) for e in self.actuations]
            entries = [Entry(p.payload["press_id"], p.payload["seat"], str(p.payload["spot"]), p.payload["device_time_s"])
                       for p in self.presses]
            u = max((self.clock_uncertainty_s.get(p.device, 0.0) for p in self.presses), default=0.0)
            window = max((float(e.payload.get("match_window_s", 0.010)) for e in self.actuations), default=0.010)
            self.derived["attribution"] = attribute(acts, entries, u, window) if acts else Attribution()
        return self.derived["attribution"]

    @property
    def probe_actuation(self) -> dict[int, Event]:
        """press id -> the actuator's probe actuation it was (re-derived, ``attribution``)."""
        if "probe_actuation" not in self.derived:
            by_id = {e.payload["actuation_id"]: e for e in self.actuations}
            self.derived["probe_actuation"] = {
                pid: by_id[aid] for pid, aid in (self.attribution.matched.items() if self.actuations else ())
                if by_id[aid].payload.get("purpose") == "probe"}
        return self.derived["probe_actuation"]

    def rejected_presses(self) -> dict[int, Event]:
        """press id -> the croupier's ``wager_rejected`` of that press (with its reason)."""
        return {e.payload["press_id"]: e for e in self.by_croupier("wager_rejected")
                if e.payload.get("kind") == "press" and e.payload.get("press_id") is not None and e.payload.get("reason")}

    @property
    def wager_uncertainty_s(self) -> dict[str, float]:
        """device -> the clock uncertainty a press's wager membership is judged with
        (``wager_clock_uncertainty_s``, or the round's largest where it is not set)."""
        return self.clock_uncertainty_s if self.wager_clock_uncertainty_s is None else self.wager_clock_uncertainty_s

    def wager_presses(self, spots: tuple[str, ...] | None = None) -> dict[int, Event]:
        """The one rule every table's checks share (§ 690.2(a), § 617b.4(c)(2), § 633b.17(c)(2)): a
        press is a player's wager only if the *device* reports it accepted, timestamped (device time
        mapped into the rig's) before the croupier's "no more bets" by more than the device clock
        map's uncertainty (``wager_uncertainty_s``: the largest the adapter declared from the round's
        start up to the croupier's decision of the wagers, the one the croupier decided with; 0 for a
        simulated device), and it is not the rig's probe. press_id -> the device's ``press`` report."""
        nmb = self.no_more_bets.sim_time if self.no_more_bets is not None else float("inf")
        u = self.wager_uncertainty_s
        return {p.payload["press_id"]: p for p in self.presses
                if p.payload["accepted"] and p.payload["device_time_s"] + u.get(p.device, 0.0) < nmb
                and not self.is_probe_press(p) and (spots is None or p.payload.get("spot") in spots)}

    def press_excuses(self, settle_foreign: bool = False) -> tuple[set[int], list[tuple[Event, str]]]:
        """The accepted presses the croupier refused for a reason that excuses them from being a
        wager (docs/wire/actuator.md, "Matching a log entry to its actuation"), each held to the
        attribution re-derived from the trace (``attribution``), as ``CT-690.2e-settlement`` holds
        them: refused "not made by the rig" (a real player's press, where the scenario does not
        settle them) — unless the trace matches it to one of the rig's actuations; refused as a
        "duplicate of actuation N" — only if an actuation of the trace doubles it. Returns the press
        ids excused and, for each refusal that does not hold, (its ``wager_rejected``, why): that
        press stays owed. No other reason excuses an on-time accepted press. Where the scenario
        settles real players' presses (``settle_foreign``: ``CheckConfig.foreign_presses``
        ``settle``), "not made by the rig" excuses nothing."""
        key = ("press_excuses", settle_foreign)
        if key not in self.derived:
            att = self.attribution if self.actuations else None
            excused: set[int] = set()
            wrong: list[tuple[Event, str]] = []
            for pid, ev in self.rejected_presses().items():
                reason = str(ev.payload.get("reason"))
                if reason == "not made by the rig":
                    if att is not None and pid in att.matched:
                        wrong.append((ev, f"press {pid} refused as not made by the rig, but it is the rig's "
                                          f"actuation {att.matched[pid]}"))
                        continue
                    if settle_foreign:
                        wrong.append((ev, f"press {pid} refused as not made by the rig, but the scenario settles "
                                          "real players' presses (players.foreign_presses: settle)"))
                        continue
                    excused.add(pid)
                elif reason.startswith("duplicate of actuation"):
                    if att is not None and pid not in att.duplicates:
                        wrong.append((ev, f"press {pid} refused as a duplicate, but no actuation of the trace "
                                          "doubles it"))
                        continue
                    excused.add(pid)
            self.derived[key] = (excused, wrong)
        return self.derived[key]

    def owed_wager_presses(self, spots: tuple[str, ...] | None = None,
                           settle_foreign: bool = False) -> dict[int, Event]:
        """``wager_presses`` less the presses ``press_excuses`` excuses: every one of these the
        device accepted is a wager the croupier owes (collects, pays or refunds; confirms to a
        progressive system's meters). A press silently dropped stays here; a real player's press
        refused stays out of it, so a meter increment for it is one for no wager."""
        excused, _wrong = self.press_excuses(settle_foreign)
        return {pid: p for pid, p in self.wager_presses(spots).items() if pid not in excused}

    def by_croupier(self, kind: str) -> list[Event]:
        """The croupier's records of ``kind`` this round, in order."""
        return [e for e in self.events if e.device == "croupier" and e.kind == kind]

    def by_devices(self, kind: str) -> list[Event]:
        """The devices' reports of ``kind`` this round, in order."""
        return [e for e in self.events if e.device != "croupier" and e.kind == kind]

    @property
    def settled(self) -> bool:
        return self.end is not None and not self.end.payload.get("void", False)

    @property
    def valid_attempt(self) -> Attempt | None:
        for a in self.attempts:
            if a.valid:
                return a
        return None


@dataclass
class BenchView:
    """Round 0: what the devices declared."""

    info: dict[str, dict[str, Any]] = field(default_factory=dict)  # device -> device_info payload
    params: dict[str, Any] = field(default_factory=dict)
    rules: dict[str, Any] | None = None  # the Rules Submission in force
    #: the croupier's other set-up records by kind (a Roulette table: ``table``, ``meters``, ``streak_resumed``)
    croupier: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, events: list[Event]) -> BenchView:
        bv = cls()
        for ev in events:
            if ev.kind == "device_info":
                bv.info[ev.device] = ev.payload
            elif ev.kind == "bench":
                bv.params = ev.payload.get("params", {})
            elif ev.kind == "rules":
                bv.rules = ev.payload
            elif ev.device == "croupier":
                bv.croupier[ev.kind] = ev.payload
        return bv


class Check:
    """Base class: subclasses set ``id``, ``section``, ``title`` and a docstring in the
    regulation's words, and implement ``observe``/``verdict``."""

    id: ClassVar[str]
    section: ClassVar[str]
    title: ClassVar[str]

    def __init__(self, config: CheckConfig) -> None:
        self.config = config
        self.bench = BenchView()
        self.rounds = 0
        self._findings: list[Finding] = []
        self._findings_total = 0

    def setup(self, bench: BenchView) -> None:
        self.bench = bench

    def observe(self, rv: RoundView) -> None:
        raise NotImplementedError

    def verdict(self) -> tuple[Verdict, str, list[Measurement]]:
        raise NotImplementedError

    def finding(self, rnd: int, ev: Event | None, message: str) -> None:
        self._findings_total += 1
        if len(self._findings) < MAX_FINDINGS:
            self._findings.append(Finding(rnd, ev.seq if ev else None, message))

    @property
    def failed(self) -> bool:
        return self._findings_total > 0

    def result(self) -> CheckResult:
        verdict, summary, measurements = self.verdict()
        regulation = " ".join((self.__doc__ or "").split())
        return CheckResult(self.id, self.section, self.title, regulation, verdict, summary,
                           tuple(measurements), tuple(self._findings), self._findings_total, self.rounds)
