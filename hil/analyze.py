"""``croupier analyze``: a device's or a studio's outcome data read from any source into
``hil.stats.data.OutcomeData``, judged by the battery of ``hil.stats.battery`` (docs/analyze.md).

Sources (``read``):

* **a trace** (``croupier run``'s ``*.sqlite``) or **a run folder** (every trace in ``OUT/traces``),
  read only through ``hil.trace.TraceReader``. The evidence is what the *devices* reported, never
  the croupier's decisions: the money wheel's ``spin_stop`` (section, direction; a rest on a peg
  or a push of under three revolutions is void, § 690.2(b), (d)), the Top Slot's ``top_slot_stop``
  of the same spin (its reels, aligned or not: columns of the money wheel's plays), Pachinko's
  ``puck_landed`` (landing spot; a drop outside zones 4..13 is left out), the bonus boards'
  ``board_generated`` cells per game (Double cells left out), the roulette ball wheel's
  ``ball_result`` (pocket, rotor direction; a misspin or a ``game_void`` is void) with the RNG
  illuminator's ``illumination`` of the same round (lit numbers, their count and multipliers:
  columns), the coin flipper's ``coin_flip_stop`` (the face up; the face up at launch is its release
  point) and the Crazy Time World wheel's ``ctw_stop`` (the first clapper's section). Devices are
  found by what they declared in round 0 (``device_info``), not by name. A Crazy Time lab's forced outcome (``croupier.force_result``) changes the game played,
  not where the wheel stopped, so the wheel's sections stay evidence. One data set per device kind
  and trace: traces are different runs (seeds, device parameters, fault scenarios) and are never
  pooled.
* **``croupier outcomes`` CSV or JSON** (``hil.outcomes``), and **a plain CSV** with a ``result``
  column and optional ``direction`` (cw / ccw / clockwise / anticlockwise / +1 / -1 / 0 / empty),
  ``time`` (seconds, or ISO 8601), ``dealer``, ``spin`` (and ``status``: only ``settled`` rows
  count) columns; ``wheel`` says which alphabet where the file cannot (``WHEELS``). Rows naming
  several ``source`` values (``croupier outcomes`` of a run folder) are one data set per source.
* **a raw wheel log** (``source="slingshot"``): ``hil.outcomes.from_slingshot_log``.

Void plays are excluded and counted; a device's report of a result it cannot produce (a pocket not
on its wheel, a multiplier its Rules Submission does not declare) is counted as ``off_alphabet``
and fails the analysis (``analyze``): it is evidence of a fault, never dropped in silence. A file's
result not on the wheel is bad input (``AnalyzeError``, exit 2).

``analyze(datasets, alpha, correction)`` runs the battery on each data set, and on each dealer's
plays where the data name dealers. The family of the multiple-comparison correction is every test
of every data set: α is split equally (Bonferroni) over the data sets (and dealer splits), and each
data set's battery applies ``correction`` (Holm or Bonferroni) within it.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hil.stats.data import ABSENT, Alphabet, OutcomeData

#: ``--wheel``: what a file's results are when the file cannot say (aliases -> the canonical name)
WHEELS: dict[str, str] = {
    "single": "single-zero", "single-zero": "single-zero", "double": "double-zero", "double-zero": "double-zero",
    "money-wheel": "money-wheel", "money-wheel-spots": "money-wheel-spots", "pachinko": "pachinko",
    "top-slot-reel1": "top-slot-reel1", "top-slot-reel2": "top-slot-reel2",
}
#: ``--from``: how to read PATH (None: by what it is)
SOURCES = ("trace", "csv", "json", "slingshot")
#: § 690.2(b): a spin of fewer revolutions is no spin
MIN_REVOLUTIONS = 3.0
#: the money wheel's symbols (§ 690.1(a)), as a file names them
_MONEY_SPOTS = ("1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time")
_DIRECTION = {"cw": 1, "clockwise": 1, "+1": 1, "1": 1, "ccw": -1, "acw": -1, "anticlockwise": -1,
              "counterclockwise": -1, "counter-clockwise": -1, "-1": -1, "0": 0, "": 0, "?": 0, "unknown": 0}
#: the board games' names in the trace -> ``Alphabet.board_values``'s
_BOARD_GAMES = {"coin-flip": "coin-flip", "cash-hunt": "cash-hunt", "pachinko": "pachinko",
                "crazy-time": "crazy-time-world", "crazy-time-world": "crazy-time-world"}


class AnalyzeError(ValueError):
    """Input that cannot be analysed (``croupier analyze`` exits 2 with its one line)."""


@dataclass
class Dataset:
    """One device kind's outcome data from one source, with what was left out and why."""

    name: str  # "money wheel", "roulette ball wheel", "pachinko landings", "cash-hunt board values", …
    data: OutcomeData
    #: plays or cells left out, by reason ("void: on_peg", "open", "drop zone outside 4..13", …)
    excluded: dict[str, int] = field(default_factory=dict)
    #: results the device reported that are not on its alphabet (a fault: fails the analysis)
    off_alphabet: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    scenario: str | None = None  # a trace's scenario
    expected_failures: list[str] = field(default_factory=list)  # a fault scenario's expect.fail

    @property
    def void(self) -> int:
        return sum(v for k, v in self.excluded.items() if k.startswith("void"))


# =========================================================================== reading
def read(path: Path, source: str | None = None, wheel: str | None = None) -> list[Dataset]:
    """Every data set in ``path`` (module docstring); ``AnalyzeError`` for input that cannot be read.
    Data sets without a single counted play are dropped (said in no data set: ``AnalyzeError`` when
    none is left)."""
    path = Path(path)
    if wheel is not None and wheel not in WHEELS:
        from hil.config import did_you_mean

        raise AnalyzeError(f"--wheel {wheel!r}: one of {', '.join(sorted(set(WHEELS)))}"
                           f"{did_you_mean(wheel, list(WHEELS))}")
    canonical = WHEELS[wheel] if wheel else None
    if source is not None and source not in SOURCES:
        from hil.config import did_you_mean

        raise AnalyzeError(f"--from {source!r}: one of {', '.join(SOURCES)}{did_you_mean(source, list(SOURCES))}")
    if not path.exists():
        raise AnalyzeError(f"{path}: no such file or folder")
    if path.is_dir():
        if source not in (None, "trace"):
            raise AnalyzeError(f"{path}: a folder; --from {source} reads a file")
        found = sorted((path / "traces").glob("*.sqlite")) or sorted(path.glob("*.sqlite"))
        if not found:
            raise AnalyzeError(f"{path}: a folder with no traces (*.sqlite) in it or in its traces/")
        sets = [d for p in found for d in read_trace(p)]
        where = f"{path} ({len(found)} trace(s))"
    else:
        kind = source or _sniff(path)
        if kind == "trace":
            sets = read_trace(path)
        elif kind == "slingshot":
            sets = read_slingshot(path, canonical)
        elif kind == "json":
            sets = read_outcomes_json(path, canonical)
        else:
            sets = read_csv(path, canonical)
        where = str(path)
    if not sets:
        raise AnalyzeError(f"{where}: no outcome data (no report of a wheel or an RNG device it can analyse)")
    # a data set without a counted play is dropped (a device that had no round to play) unless the device
    # reported something: plays all void (thin evidence, undecided) or results off its alphabet (a fault)
    kept = [d for d in sets if d.data.n > 0 or d.excluded or d.off_alphabet]
    if not any(d.data.n for d in kept) and not any(d.off_alphabet for d in kept):
        left = sum(sum(d.excluded.values()) for d in sets)
        raise AnalyzeError(f"{where}: empty data: no play to analyse ({left} left out: "
                           + ", ".join(f"{k} {v}" for k, v in _sum_counts(d.excluded for d in sets).items()) + ")"
                           if left else f"{where}: empty data: no play to analyse")
    return kept


def _sum_counts(counts) -> dict[str, int]:
    total: Counter[str] = Counter()
    for c in counts:
        total.update(c)
    return dict(total)


def _sniff(path: Path) -> str:
    """What a file is: an SQLite file is a trace, ``{``/``[`` JSON, anything else CSV."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise AnalyzeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if head.startswith(b"SQLite format 3"):
        return "trace"
    if path.suffix == ".sqlite":
        raise AnalyzeError(f"{path}: not a Croupier trace (not an SQLite file)")
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return "json"
    return "csv"


def _dir(value: Any) -> int:
    return _DIRECTION.get(str(value if value is not None else "").strip().lower(), 0)


# --------------------------------------------------------------------------- a trace
class _Series:
    """Plays of one device kind being collected from a trace."""

    def __init__(self, name: str, alphabet: Alphabet) -> None:
        self.name, self.alphabet = name, alphabet
        self.results: list[int] = []
        self.direction: list[int] = []
        self.time: list[float] = []
        self.spin: list[int] = []
        self.round: list[int] = []
        self.columns: dict[str, tuple[Alphabet, list[Any]]] = {}
        self.excluded: Counter[str] = Counter()
        self.off: Counter[str] = Counter()
        self.notes: list[str] = []
        self.has_direction = False

    def add(self, symbol: Any, *, rnd: int, direction: Any = None, time: Any = None, spin: Any = None,
            index: int | None = None) -> bool:
        """One counted play (``symbol``, or ``index`` into the alphabet); False if it is not on it."""
        if index is None:
            try:
                index = self.alphabet.index(symbol)
            except ValueError:
                self.off[str(symbol)] += 1
                return False
        elif not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < self.alphabet.k):
            self.off[str(index)] += 1
            return False
        self.results.append(index)
        self.has_direction |= direction is not None
        self.direction.append(_dir(direction))
        self.time.append(float(time) if isinstance(time, (int, float)) and math.isfinite(time) else math.nan)
        self.spin.append(int(spin) if isinstance(spin, int) and not isinstance(spin, bool) else -1)
        self.round.append(rnd)
        return True

    def dataset(self, source: str, meta: dict[str, Any]) -> Dataset:
        n = len(self.results)
        cols = {}
        for cname, (ca, values) in self.columns.items():
            if len(values) != n or any(v is None for v in values):
                missing = n - sum(v is not None for v in values[:n])
                self.notes.append(f"column {cname} left out: {missing} of {n} plays have no report of it, or one off "
                                  "its alphabet")
                continue
            width = max((len(v) for v in values if isinstance(v, list)), default=0)
            if width:
                arr = np.full((n, width), ABSENT, dtype=np.int64)
                for i, v in enumerate(values):
                    arr[i, :len(v)] = v
            else:
                arr = np.asarray(values, dtype=np.int64)
            cols[cname] = (ca, arr)
        t = np.asarray(self.time, dtype=float)
        data = OutcomeData(
            source=f"{source}: {self.name}", alphabet=self.alphabet, results=np.asarray(self.results, dtype=np.int64),
            direction=np.asarray(self.direction, dtype=np.int64) if self.has_direction and n else None,
            time=t if n and np.isfinite(t).all() else None,
            spin=np.asarray(self.spin, dtype=np.int64) if n and min(self.spin) >= 0 else None, columns=cols)
        expect = meta.get("expect") if isinstance(meta.get("expect"), dict) else {}
        return Dataset(self.name, data, dict(self.excluded), dict(self.off), self.notes,
                       scenario=meta.get("scenario") if isinstance(meta.get("scenario"), str) else None,
                       expected_failures=[str(x) for x in expect.get("fail") or ()])


def _open_trace(path: Path):
    """The trace's reader, its metadata and its rounds (a generator: a trace is read in one pass, its
    rounds never all in memory); ``AnalyzeError`` for a file that is no readable trace."""
    from hil.trace import TraceReader

    try:
        reader = TraceReader(path)
    except FileNotFoundError:
        raise AnalyzeError(f"{path}: no such trace") from None
    except sqlite3.DatabaseError as exc:
        raise AnalyzeError(f"{path}: not a readable Croupier trace ({exc})") from None
    try:
        meta = reader.meta()
        if "trace_schema" not in meta:
            raise ValueError("no trace_schema in its metadata")
    except (sqlite3.DatabaseError, ValueError) as exc:
        reader.close()
        raise AnalyzeError(f"{path}: not a readable Croupier trace ({exc})") from None
    return reader, meta


def _submission(payload: dict[str, Any] | None, game: str) -> Any:
    """The trace's Rules Submission of ``game`` ("crazy-time" / "roulette-x"), or None (the packaged
    reference one is then the null, said in a note)."""
    if not payload or payload.get("game") != game:
        return None
    try:
        if game == "roulette-x":
            from rules.roulette_x import RouletteXSubmission

            return RouletteXSubmission.model_validate(payload)
        from rules.submission import RulesSubmission

        return RulesSubmission.model_validate(payload)
    except ValueError:
        return None


def read_trace(path: Path) -> list[Dataset]:
    """The devices' own reports in one trace: one data set per device kind (module docstring). The
    trace is read once, round by round (constant memory in the rounds)."""
    path = Path(path)
    reader, meta = _open_trace(path)
    collectors: list[Any] = []
    try:
        for rnd, events in reader.rounds():
            if rnd == 0 and not collectors:
                collectors = _collectors(path, events)
                continue
            for c in collectors:
                c.feed(rnd, events)
    except (sqlite3.DatabaseError, ValueError) as exc:  # TraceDamaged is a ValueError
        raise AnalyzeError(f"{path}: not a readable Croupier trace ({exc})") from None
    finally:
        reader.close()
    return [d for c in collectors for d in c.finish(str(path), meta)]


def _collectors(path: Path, setup: list[Any]) -> list[Any]:
    """One collector per device kind the bench declared (round 0's ``device_info``), found by what
    each device declared, not by its name."""
    info: dict[str, dict[str, Any]] = {}
    rules = None
    for e in setup:
        if e.kind == "device_info" and isinstance(e.payload, dict):
            info[e.device] = e.payload
        elif e.device == "croupier" and e.kind == "rules" and isinstance(e.payload, dict):
            rules = e.payload
    role: dict[str, str] = {}
    for dev, p in info.items():
        if isinstance(p.get("sections"), list):
            role.setdefault("money_wheel", dev)
        elif "reel1" in p and "reel2" in p:
            role.setdefault("top_slot", dev)
        elif "pockets" in p and "wheel" in p and "multipliers" not in p:
            role.setdefault("ball_wheel", dev)
        elif "multipliers" in p and "wheel" in p:
            role.setdefault("illuminator", dev)
        elif "zones" in p and "spots" in p:
            role.setdefault("pachinko", dev)
        elif "games" in p and "cells" in p:
            role.setdefault("board", dev)
        elif isinstance(p.get("sides"), list):
            role.setdefault("coin", dev)
        elif isinstance(p.get("sections"), int) and "clappers" in p:
            role.setdefault("ctw_wheel", dev)
    out: list[Any] = []
    if "money_wheel" in role:
        out.append(_MoneyWheel(info, role, _submission(rules, "crazy-time")))
    if "ball_wheel" in role:
        out.append(_BallWheel(path, info, role, _submission(rules, "roulette-x")))
    if "pachinko" in role:
        out.append(_Pachinko(role["pachinko"], _submission(rules, "crazy-time")))
    if "board" in role:
        out.append(_Boards(role["board"], _submission(rules, "crazy-time")))
    if "coin" in role:
        out.append(_Coin(role["coin"], info[role["coin"]]["sides"]))
    if "ctw_wheel" in role:
        out.append(_CtwWheel(role["ctw_wheel"], info[role["ctw_wheel"]]["sections"]))
    return out


_REFERENCE_NOTE = ("no readable {game} Rules Submission in the trace: the null of {what} is the packaged reference "
                   "PAR")


class _MoneyWheel:
    """The money wheel's ``spin_stop`` reports, each with the Top Slot's ``top_slot_stop`` of the
    same spin as columns."""

    def __init__(self, info, role, sub) -> None:
        from rules.crazy_time import WHEEL_SECTIONS

        self.dev, self.top = role["money_wheel"], role.get("top_slot")
        sections = [str(s) for s in info[self.dev]["sections"]]
        self.s = _Series("money wheel", Alphabet.money_wheel(sections))
        if sections != [str(x) for x in WHEEL_SECTIONS]:
            self.s.notes.append("the wheel declared a layout other than § 690.1(b)'s: analysed as it declared it")
        if self.top is not None:
            self.reels = (Alphabet.top_slot(sub, 1), Alphabet.top_slot(sub, 2), Alphabet.top_slot_aligned(sub))
            for name, a in zip(_TOP_COLUMNS, self.reels):
                self.s.columns[name] = (a, [])
            if sub is None:
                self.s.notes.append(_REFERENCE_NOTE.format(game="Crazy Time", what="the Top Slot"))

    def feed(self, rnd: int, events: list[Any]) -> None:
        s = self.s
        tops = {e.payload.get("spin_id"): e.payload for e in events
                if e.device == self.top and e.kind == "top_slot_stop" and isinstance(e.payload, dict)}
        for e in events:
            if e.device != self.dev or e.kind != "spin_stop":
                continue
            p = e.payload
            if not isinstance(p, dict):
                s.excluded["malformed report"] += 1
                continue
            if p.get("on_peg"):
                s.excluded["void: on a peg (between two sections)"] += 1
                continue
            revs = p.get("revolutions")
            if isinstance(revs, (int, float)) and revs < MIN_REVOLUTIONS:
                s.excluded["void: under three revolutions"] += 1
                continue
            if not s.add(None, index=p.get("section_index"), rnd=rnd, direction=p.get("direction"),
                         time=p.get("stop_time_s", e.sim_time), spin=p.get("spin_id")):
                continue
            if self.top is None:
                continue
            t = tops.get(p.get("spin_id"))
            vals: list[Any] = [None, None, None]
            if t is not None:
                r1, r2, al = self.reels
                raw = (t.get("spot"), f"{t.get('multiplier')}x", "yes" if t.get("aligned") else "no")
                off = [f"top slot reel {i + 1} {v}" for i, (a, v) in enumerate(zip(self.reels, raw)) if v not in a.symbols]
                if off:
                    for o in off:
                        s.off[o] += 1
                else:
                    vals = [r1.index(raw[0]), r2.index(raw[1]), al.index(raw[2])]
            for name, v in zip(_TOP_COLUMNS, vals):
                s.columns[name][1].append(v)

    def finish(self, source: str, meta: dict[str, Any]) -> list[Dataset]:
        return [self.s.dataset(source, meta)]


_TOP_COLUMNS = ("top_slot_reel1", "top_slot_reel2", "top_slot_aligned")
_LIT_COLUMNS = ("lit_numbers", "lit_count", "lit_multipliers")


class _BallWheel:
    """The roulette ball wheel's ``ball_result`` / ``game_void`` reports, each with the RNG
    illuminator's ``illumination`` of the round as columns."""

    def __init__(self, path, info, role, sub) -> None:
        from devices.roulette_wheel import POCKET_ORDER
        from rules.roulette import Wheel

        self.dev, self.ill = role["ball_wheel"], role.get("illuminator")
        wheel = str(info[self.dev].get("wheel"))
        try:
            alphabet = Alphabet.roulette(wheel)
        except ValueError as exc:
            raise AnalyzeError(f"{path}: the ball wheel declared {exc}") from None
        self.s = _Series("roulette ball wheel", alphabet)
        declared = [str(x) for x in info[self.dev].get("pockets") or ()]
        if declared and declared != [str(x) for x in POCKET_ORDER[Wheel(wheel)]]:
            self.s.notes.append("the wheel declared a pocket order other than the real wheel's: the pocket "
                                "distances are those of the real order")
        if self.ill is not None:
            self.lit = (Alphabet.lit_numbers(wheel), Alphabet.lit_counts(sub), Alphabet.lit_multipliers(sub))
            for name, a in zip(_LIT_COLUMNS, self.lit):
                self.s.columns[name] = (a, [])
            if sub is None:
                self.s.notes.append(_REFERENCE_NOTE.format(game="Roulette X", what="the lit counts and multipliers"))

    def _lit(self, light: dict[str, Any]) -> list[Any]:
        nums_a, count_a, mult_a = self.lit
        nums = [str(x) for x in light.get("numbers") or ()]
        mults = [f"{m}:1" for m in light.get("multipliers") or ()]
        off = [f"lit number {v}" for v in nums if v not in nums_a.symbols] + \
              [f"lit multiplier {v}" for v in mults if v not in mult_a.symbols]
        if str(len(nums)) not in count_a.symbols:
            off.append(f"lit count {len(nums)}")
        if len(set(nums)) != len(nums):  # § 617b.5(d): distinct numbers
            off.append("lit numbers repeated in one illumination")
        if off:
            for o in off:
                self.s.off[o] += 1
            return [None, None, None]
        return [[nums_a.index(v) for v in nums], count_a.index(str(len(nums))), [mult_a.index(v) for v in mults]]

    def feed(self, rnd: int, events: list[Any]) -> None:
        s = self.s
        lights = [e.payload for e in events if e.device == self.ill and e.kind == "illumination"
                  and isinstance(e.payload, dict)]
        paired = False
        for e in events:
            if e.device != self.dev:
                continue
            p = e.payload
            if e.kind == "game_void":
                s.excluded[f"void: {p.get('reason') if isinstance(p, dict) else 'game void'}"] += 1
                continue
            if e.kind != "ball_result":
                continue
            if not isinstance(p, dict):
                s.excluded["malformed report"] += 1
                continue
            if p.get("misspin"):
                s.excluded["void: misspin"] += 1
                continue
            if not s.add(p.get("pocket"), rnd=rnd, direction=p.get("rotor_direction"),
                         time=p.get("stop_time_s", e.sim_time), spin=p.get("spin_id")):
                continue
            if self.ill is None:
                continue
            vals: list[Any] = [None, None, None]
            if len(lights) == 1 and not paired:  # the round's one illumination, with its one counted result
                vals = self._lit(lights[0])
                paired = True
            for name, v in zip(_LIT_COLUMNS, vals):
                s.columns[name][1].append(v)

    def finish(self, source: str, meta: dict[str, Any]) -> list[Dataset]:
        return [self.s.dataset(source, meta)]


class _Pachinko:
    """Pachinko's ``puck_landed`` reports: the landing spot of each drop from zones 4..13."""

    def __init__(self, dev, sub) -> None:
        self.dev = dev
        self.s = _Series("pachinko landings", Alphabet.pachinko_spots(sub))
        if sub is None:
            self.s.notes.append(_REFERENCE_NOTE.format(game="Crazy Time", what="the lattice"))

    def feed(self, rnd: int, events: list[Any]) -> None:
        from rules.pachinko import DROP_ZONES

        for e in events:
            if e.device != self.dev or e.kind != "puck_landed":
                continue
            p = e.payload
            if not isinstance(p, dict):
                self.s.excluded["malformed report"] += 1
            elif p.get("zone") not in DROP_ZONES:
                self.s.excluded["drop zone outside 4..13 (PA-690.7d-drop-zone judges it)"] += 1
            else:
                self.s.add(p.get("spot"), rnd=rnd, time=p.get("stop_time_s", e.sim_time), spin=p.get("drop_id"))

    def finish(self, source: str, meta: dict[str, Any]) -> list[Dataset]:
        return [self.s.dataset(source, meta)]


class _Boards:
    """The bonus boards' ``board_generated`` cells, one data set per game (Double cells left out)."""

    def __init__(self, dev, sub) -> None:
        self.dev, self.sub = dev, sub
        self.series: dict[str, _Series] = {}

    def feed(self, rnd: int, events: list[Any]) -> None:
        from rules.bonus import DOUBLE

        for e in events:
            if e.device != self.dev or e.kind != "board_generated":
                continue
            p = e.payload
            game = _BOARD_GAMES.get(str(p.get("game"))) if isinstance(p, dict) else None
            if game is None or not isinstance(p.get("values"), list):
                continue
            s = self.series.get(game)
            if s is None:
                s = self.series[game] = _Series(f"{game} board values", Alphabet.board_values(game, self.sub))
                if self.sub is None:
                    s.notes.append(_REFERENCE_NOTE.format(game="Crazy Time", what="the board values"))
            for v in p["values"]:
                if v == DOUBLE:
                    s.excluded["Double cells"] += 1
                else:
                    s.add(f"{v}x", rnd=rnd, time=p.get("device_time_s", e.sim_time), spin=p.get("board_id"))

    def finish(self, source: str, meta: dict[str, Any]) -> list[Dataset]:
        return [s.dataset(source, meta) for s in self.series.values()]


class _Coin:
    """The Coin Flip's ``coin_flip_stop`` reports (§ 690.5(d)): the face up at rest, and as the release
    point the face up at launch. The two faces are a circle of two (the "distance" from one flip to
    the next: the same face or the other; the release offset: the launch face kept or turned), each
    face 1/2 under the null (§ 690.5(b): "a coin with two distinct sides")."""

    def __init__(self, dev, sides) -> None:
        self.dev = dev
        faces = tuple(str(x) for x in sides)
        try:
            alphabet = Alphabet("coin flip faces", faces, None, True)
        except ValueError as exc:
            raise AnalyzeError(f"the coin flipper declared {exc}") from None
        self.s = _Series("coin flips", alphabet)
        self.release: list[int] = []

    def feed(self, rnd: int, events: list[Any]) -> None:
        for e in events:
            if e.device != self.dev or e.kind != "coin_flip_stop":
                continue
            p = e.payload
            if not isinstance(p, dict):
                self.s.excluded["malformed report"] += 1
            elif self.s.add(p.get("face"), rnd=rnd, time=p.get("stop_time_s", e.sim_time), spin=p.get("flip_id")):
                start = str(p.get("start_face"))
                self.release.append(self.s.alphabet.symbols.index(start) if start in self.s.alphabet.symbols else ABSENT)

    def finish(self, source: str, meta: dict[str, Any]) -> list[Dataset]:
        d = self.s.dataset(source, meta)
        if d.data.n and any(r != ABSENT for r in self.release):
            from dataclasses import replace

            d.data = replace(d.data, release=np.asarray(self.release, dtype=np.int64))
        return [d]


class _CtwWheel:
    """The Crazy Time World virtual wheel's ``ctw_stop`` reports (§ 690.8(d)): the section under the
    first clapper at every stop, respins included (the other clappers sit at fixed offsets from it:
    no evidence of their own), each of the 64 sections 1/64 under the null; circular, in section order."""

    def __init__(self, dev, sections: int) -> None:
        self.dev = dev
        if isinstance(sections, bool) or not isinstance(sections, int) or sections < 2:
            raise AnalyzeError(f"the Crazy Time World wheel declared {sections!r} sections")
        self.s = _Series("crazy-time-world wheel", Alphabet("crazy-time-world sections",
                                                            tuple(str(i) for i in range(sections)), None, True))

    def feed(self, rnd: int, events: list[Any]) -> None:
        for e in events:
            if e.device != self.dev or e.kind != "ctw_stop":
                continue
            p = e.payload
            secs = p.get("sections") if isinstance(p, dict) else None
            if not isinstance(secs, list) or not secs:
                self.s.excluded["malformed report"] += 1
            else:
                self.s.add(None, index=secs[0], rnd=rnd, time=p.get("stop_time_s", e.sim_time), spin=p.get("spin_id"))

    def finish(self, source: str, meta: dict[str, Any]) -> list[Dataset]:
        return [self.s.dataset(source, meta)]


# --------------------------------------------------------------------------- files
def _alphabet_for(path: Path, values: list[str], wheel: str | None, extra_wheels: set[str]) -> Alphabet:
    """The alphabet of a file's results: ``wheel``'s, or the one the results can only be on."""
    said = set()
    for w in extra_wheels:  # a ``wheel`` column
        if w.lower() not in WHEELS:
            raise AnalyzeError(f"{path}: wheel {w!r} in its wheel column: one of {', '.join(sorted(set(WHEELS.values())))}")
        said.add(WHEELS[w.lower()])
    if len(said) > 1:
        raise AnalyzeError(f"{path}: mixed wheels in one file ({', '.join(sorted(said))}): one wheel a file")
    if said and wheel is not None and said != {wheel}:
        raise AnalyzeError(f"{path}: --wheel {wheel}, but its wheel column says {next(iter(said))}")
    if wheel is None and said:
        wheel = next(iter(said))
    distinct = set(values)
    if wheel is None:
        spots_only = {v for v in distinct if v in _MONEY_SPOTS and not v.isdigit()}
        numbers_only = {v for v in distinct if v not in _MONEY_SPOTS}
        if spots_only and numbers_only:
            raise AnalyzeError(f"{path}: mixed wheels in one file: money wheel symbols ({', '.join(sorted(spots_only)[:3])}) "
                               f"and roulette numbers ({', '.join(sorted(numbers_only, key=str)[:3])})")
        if spots_only:
            wheel = "money-wheel-spots"
        elif "00" in distinct or "37" in distinct and all(_is_int(v, 0, 37) for v in distinct):
            wheel = "double-zero"
        else:
            raise AnalyzeError(f"{path}: the file does not say which wheel: give --wheel (one of "
                               f"{', '.join(sorted(set(WHEELS.values())))})")
    if wheel in ("single-zero", "double-zero"):
        return Alphabet.roulette(wheel)
    if wheel == "money-wheel":
        return Alphabet.money_wheel()
    if wheel == "money-wheel-spots":
        return Alphabet.money_wheel_spots()
    if wheel == "pachinko":
        return Alphabet.pachinko_spots()
    if wheel == "top-slot-reel1":
        return Alphabet.top_slot(None, 1)
    if wheel == "top-slot-reel2":
        return Alphabet.top_slot(None, 2)
    raise AnalyzeError(f"{path}: no alphabet for wheel {wheel!r}")  # WHEELS and this function disagree


def _is_int(v: str, lo: int, hi: int) -> bool:
    return v.isdigit() and lo <= int(v) <= hi


def _symbol(value: str, alphabet: Alphabet) -> str:
    """A file's result as the alphabet's symbol: "37" is "00" on a double zero wheel (``croupier
    outcomes``), a section index "17" is "17:<spot>" on the money wheel, "7" is "7x" on reel 2."""
    v = value.strip()
    if alphabet.kind == "roulette double-zero" and v == "37":
        return "00"
    if alphabet.kind == "money-wheel sections" and v.isdigit() and int(v) < alphabet.k:
        return alphabet.symbols[int(v)]
    if alphabet.kind.startswith("top-slot reel 2") and v.isdigit():
        return f"{v}x"
    return v


def _time_s(values: list[str], path: Path, lines: list[int]) -> np.ndarray | None:
    """A ``time`` column as seconds: numbers, or ISO 8601 stamps (seconds since the first)."""
    if not values or any(v.strip() == "" for v in values):
        return None
    try:
        return np.asarray([float(v) for v in values], dtype=float)
    except ValueError:
        pass
    out = []
    for v, ln in zip(values, lines):
        try:
            t = dt.datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
        except ValueError:
            raise AnalyzeError(f"{path}: line {ln}: time {v!r} is neither seconds nor ISO 8601") from None
        if t.tzinfo is None:
            t = t.replace(tzinfo=dt.timezone.utc)
        out.append(t.timestamp())
    arr = np.asarray(out, dtype=float)
    return arr - arr[0]


def _table(path: Path, name: str, rows: list[dict[str, str]], lines: list[int], wheel: str | None,
           unit: str = "line") -> Dataset:
    """Rows of a file (``result`` and optional ``status``, ``direction``, ``time``, ``dealer``,
    ``spin``, ``wheel``) as one data set."""
    excluded: Counter[str] = Counter()
    kept: list[tuple[int, dict[str, str]]] = []
    for ln, r in zip(lines, rows):
        status = (r.get("status") or "settled").strip().lower()
        if status != "settled":
            excluded[f"void: {(r.get('void_reason') or '').strip() or status}" if status == "void" else status] += 1
            continue
        if not (r.get("result") or "").strip():
            raise AnalyzeError(f"{path}: {unit} {ln}: no result")
        kept.append((ln, r))
    wheels = {(r.get("wheel") or "").strip() for _ln, r in kept} - {""}
    values = [r["result"].strip() for _ln, r in kept]
    if not kept:
        raise AnalyzeError(f"{path}: empty data: no settled result"
                           + (f" ({', '.join(f'{k} {v}' for k, v in excluded.items())})" if excluded else ""))
    alphabet = _alphabet_for(path, values, wheel, wheels)
    try:
        results = alphabet.encode(_symbol(v, alphabet) for v in values)
    except ValueError:
        for ln, v in zip((ln for ln, _r in kept), values):
            if _symbol(v, alphabet) not in alphabet.symbols:
                raise AnalyzeError(f"{path}: {unit} {ln}: result {v!r} is not on the {alphabet.kind}") from None
        raise
    n = len(values)
    cols = set().union(*(r.keys() for _ln, r in kept))

    def col(name: str) -> list[str]:
        return [(r.get(name) or "").strip() for _ln, r in kept]

    direction = None
    if "direction" in cols:
        dirs = col("direction")
        if bad := next(((ln, d) for (ln, _r), d in zip(kept, dirs) if d.lower() not in _DIRECTION), None):
            raise AnalyzeError(f"{path}: {unit} {bad[0]}: direction {bad[1]!r} is none of cw, ccw, clockwise, "
                               "anticlockwise, +1, -1, 0 or empty")
        direction = np.asarray([_DIRECTION[d.lower()] for d in dirs], dtype=np.int64)
    time_col = "time" if "time" in cols else "time_s" if "time_s" in cols else None
    time = _time_s(col(time_col), path, [ln for ln, _r in kept]) if time_col else None
    dealer = None
    if "dealer" in cols:
        dl = col("dealer")
        dealer = np.asarray([d or "(none)" for d in dl], dtype=object) if any(dl) else None
    spin = None
    if "spin" in cols and all(s.lstrip("-").isdigit() for s in col("spin")):
        spin = np.asarray([int(s) for s in col("spin")], dtype=np.int64)
    data = OutcomeData(source=f"{path}: {name}", alphabet=alphabet, results=results, direction=direction,
                       time=time, dealer=dealer, spin=spin)
    ds = Dataset(name, data, dict(excluded))
    if n and direction is not None and not direction.any():
        ds.notes.append("no play has a known direction")
    return ds


def _tables(path: Path, name: str, rows: list[dict[str, str]], lines: list[int], wheel: str | None,
            unit: str = "line") -> list[Dataset]:
    """``_table`` per ``source`` where the rows name several (``croupier outcomes`` of a run folder:
    one trace each): different runs are never pooled, as with the traces themselves. A source without
    a settled row is said in a note of the first data set."""
    sources = list(dict.fromkeys((r.get("source") or "").strip() for r in rows))
    if len(sources) <= 1:
        return [_table(path, name, rows, lines, wheel, unit)]
    out, empty = [], []
    for src in sources:
        mine = [(r, ln) for r, ln in zip(rows, lines) if (r.get("source") or "").strip() == src]
        if not any((r.get("status") or "settled").strip().lower() == "settled" for r, _ln in mine):
            empty.append(f"source {src or '(none)'}: no settled result ({len(mine)} row(s) left out)")
            continue
        d = _table(path, f"{name} of {src or '(no source)'}", [r for r, _ln in mine], [ln for _r, ln in mine], wheel,
                   unit)
        out.append(d)
    if not out:
        raise AnalyzeError(f"{path}: empty data: no settled result in any of its {len(sources)} sources")
    out[0].notes += empty
    return out


def read_csv(path: Path, wheel: str | None = None) -> list[Dataset]:
    """A ``croupier outcomes`` CSV, or a plain CSV with a ``result`` column."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise AnalyzeError(f"{path}: not a CSV file (not UTF-8 text)") from None
    except OSError as exc:
        raise AnalyzeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        if "result" not in header:
            shown = ", ".join(header[:8]) if header else "nothing"
            raise AnalyzeError(f"{path}: a CSV without a 'result' column (its header: {shown})")
        reader.fieldnames = header
        rows, lines = [], []
        for r in reader:
            if None in r:
                raise AnalyzeError(f"{path}: line {reader.line_num}: more fields than the header has")
            if not any((v or "").strip() for v in r.values()):
                continue
            rows.append(r)
            lines.append(reader.line_num)
    except csv.Error as exc:
        raise AnalyzeError(f"{path}: not a CSV file ({exc})") from None
    if not rows:
        raise AnalyzeError(f"{path}: empty data: a header and no rows")
    from hil.outcomes import COLUMNS

    name = "roulette outcomes" if set(COLUMNS) <= set(header) else "results"
    return _tables(Path(path), name, rows, lines, wheel)


def read_outcomes_json(path: Path, wheel: str | None = None) -> list[Dataset]:
    """``croupier outcomes --json``: its ``outcomes`` rows."""
    import orjson

    try:
        doc = orjson.loads(Path(path).read_bytes())
    except OSError as exc:
        raise AnalyzeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise AnalyzeError(f"{path}: not JSON ({exc})") from None
    rows = doc.get("outcomes") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise AnalyzeError(f"{path}: not the JSON of `croupier outcomes` (no list of outcomes)")
    if not rows:
        raise AnalyzeError(f"{path}: empty data: no outcomes")
    table = []
    for r in rows:
        if "result" not in r or "status" not in r:
            raise AnalyzeError(f"{path}: outcome {len(table) + 1}: no result or status (not `croupier outcomes`)")
        table.append({k: "" if r.get(k) is None else str(r.get(k)) for k in ("result", "status", "void_reason",
                                                                                "direction", "spin", "dealer",
                                                                                "source")}
                     | {"time_s": "" if r.get("time_s") is None else str(r.get("time_s"))})
    return _tables(Path(path), "roulette outcomes", table, list(range(1, len(table) + 1)), wheel, "outcome")


def read_slingshot(path: Path, wheel: str | None = None) -> list[Dataset]:
    """A raw Slingshot-style wheel log (``hil.outcomes.from_slingshot_log``)."""
    from hil.outcomes import OutcomesError, from_slingshot_log

    w = wheel or "single-zero"
    if w not in ("single-zero", "double-zero"):
        raise AnalyzeError(f"--from slingshot: a roulette wheel's log: --wheel single or double, not {wheel}")
    if not Path(path).is_file():
        raise AnalyzeError(f"{path}: no such log file")
    try:
        got = from_slingshot_log(Path(path), w)
    except OutcomesError as exc:
        raise AnalyzeError(str(exc)) from None
    counts = next(iter(got.counts.values()), {})
    if not got.rows and counts.get("garbled", 0) and not any(counts.get(k, 0) for k in ("status", "bare", "power")):
        raise AnalyzeError(f"{path}: not a slingshot wheel log (none of its {counts['garbled']} non-blank line(s) "
                           "is a line of the wheel's protocol)")
    table = [{"result": "" if r.result is None else str(r.result), "status": r.status, "void_reason": r.void_reason or "",
              "direction": r.direction or "", "spin": "" if r.spin is None else str(r.spin),
              "time_s": "" if r.time_s is None else str(r.time_s)} for r in got.rows]
    if not table:
        raise AnalyzeError(f"{path}: empty data: no game in the log")
    ds = _table(Path(path), "roulette wheel log", table, [r.line or 0 for r in got.rows], w)
    if counts.get("garbled"):
        ds.notes.append(f"{counts['garbled']} garbled line(s) of the log skipped")
    return [ds]


# =========================================================================== judging
@dataclass
class Judged:
    """The battery's result on one data set (or one dealer's plays of it)."""

    id: str
    dataset: Dataset
    dealer: str | None
    data: OutcomeData
    result: Any  # hil.stats.battery.BatteryResult

    @property
    def verdict(self) -> str:
        """The battery's, or "fail" where the device reported results off its alphabet."""
        if self.dealer is None and self.dataset.off_alphabet:
            return "fail"
        return self.result.verdict


@dataclass
class Analysis:
    path: str
    alpha: float
    correction: str
    judged: list[Judged]
    datasets: list[Dataset]

    @property
    def alpha_each(self) -> float:
        """The family-wise α each battery runs at: α split equally (Bonferroni) over the batteries."""
        return self.alpha / max(len(self.judged), 1)

    @property
    def off_alphabet(self) -> int:
        return sum(sum(d.off_alphabet.values()) for d in self.datasets)

    @property
    def verdict(self) -> str:
        """"fail" when a battery failed or a device reported a result it cannot produce; else
        "undecided" when the battery of a data set (all its plays) was undecided: a pass covers every
        device the source holds, never only the ones with enough data; else "pass". (A dealer's
        plays too few for a battery of their own are listed in ``thin``, not undecided.)"""
        if self.off_alphabet or any(j.verdict == "fail" for j in self.judged):
            return "fail"
        if any(j.verdict == "undecided" for j in self.judged if j.dealer is None):
            return "undecided"
        return "pass"

    @property
    def thin(self) -> list[str]:
        out = []
        for j in self.judged:
            label = j.data.source
            if j.verdict == "undecided":
                out.append(f"{label}: UNDECIDED: too few plays ({j.data.n}) for the battery")
            out += [f"{label}: {t}" for t in j.result.thin]
        return out

    def to_json(self, plots: bool = True) -> dict[str, Any]:
        sets = []
        tests = []
        for j in self.judged:
            d = j.dataset
            entry = {"id": j.id, "name": d.name, "source": j.data.source, "scenario": d.scenario,
                     "expected_failures": d.expected_failures, "dealer": j.dealer, "alphabet": j.data.alphabet.kind,
                     "n": j.data.n, "excluded": d.excluded if j.dealer is None else {},
                     "void": d.void if j.dealer is None else 0,
                     "off_alphabet": d.off_alphabet if j.dealer is None else {}, "notes": d.notes if j.dealer is None else [],
                     "columns": sorted(j.data.columns), "verdict": j.verdict, "family_size": j.result.family_size}
            if plots and j.dealer is None:
                entry["plot"] = plot_data(j.data, self.alpha_each)
            sets.append(entry)
            for t in j.result.tests:
                tests.append({"dataset": j.id, "source": j.data.source, "dealer": j.dealer, **t.to_json()})
        return {"path": self.path, "verdict": self.verdict, "alpha": self.alpha, "correction": self.correction,
                "family": {"batteries": len(self.judged), "alpha_each": self.alpha_each,
                           "rule": (f"α = {self.alpha:g} split equally (Bonferroni) over {len(self.judged)} "
                                    f"battery(ies) (a data set, or one dealer's plays of it), {self.correction} "
                                    "within each battery")},
                "off_alphabet": self.off_alphabet, "datasets": sets, "tests": tests, "thin": self.thin}


def analyze(datasets: list[Dataset], alpha: float = 0.01, correction: str = "holm", path: str = "") -> Analysis:
    """The battery on each data set and on each of its dealers' plays (module docstring)."""
    from hil.stats.battery import run_battery

    units: list[tuple[Dataset, str | None, OutcomeData]] = []
    for d in datasets:
        units.append((d, None, d.data))
        if d.data.dealer is not None:
            for name in sorted(set(d.data.dealer.tolist())):
                units.append((d, name, d.data.subset(d.data.dealer == name, f"dealer {name}")))
    each = alpha / max(len(units), 1)
    judged = [Judged(f"d{i + 1}", d, dealer, data, run_battery(data, each, correction))
              for i, (d, dealer, data) in enumerate(units)]
    return Analysis(path, alpha, correction, judged, datasets)


def plot_data(data: OutcomeData, alpha: float) -> dict[str, Any]:
    """What the report's figures of one data set draw (``hil.plots.analysis_figures``): the count per
    symbol against its null expectation with each count's two-sided binomial band at ``alpha``,
    per direction where both occur, and (a circular alphabet) the histogram of the clockwise
    pocket distance from one result to the next, against its null expectation."""
    from scipy import stats

    a = data.alphabet
    p = a.p

    def panel(results: np.ndarray) -> dict[str, Any]:
        n = int(results.size)
        obs = np.bincount(results, minlength=a.k)
        return {"n": n, "observed": obs.tolist(), "expected": (n * p).tolist(),
                "band_lo": stats.binom.ppf(alpha / 2, n, p).tolist() if n else [0.0] * a.k,
                "band_hi": stats.binom.ppf(1 - alpha / 2, n, p).tolist() if n else [0.0] * a.k}

    out: dict[str, Any] = {"symbols": list(a.symbols), "alpha": alpha, "panels": {"all": panel(data.results)}}
    d = data.direction
    if d is not None and (d == 1).any() and (d == -1).any():
        out["panels"]["clockwise"] = panel(data.results[d == 1])
        out["panels"]["anticlockwise"] = panel(data.results[d == -1])
    if a.circular and data.n > 1:
        k = a.k
        q = np.real(np.fft.ifft(np.fft.fft(p) * np.fft.fft(p[(-np.arange(k)) % k])))  # P((b - a) mod k = j)
        q = np.clip(q, 0, None)
        q = q / q.sum()
        dist = {}
        r = data.results
        pairs = {"all": np.ones(r.size - 1, dtype=bool)}
        if "clockwise" in out["panels"]:
            pairs["clockwise"] = d[1:] == 1
            pairs["anticlockwise"] = d[1:] == -1
        for label, m in pairs.items():
            dd = (r[1:][m] - r[:-1][m]) % k
            n = int(dd.size)
            dist[label] = {"n": n, "observed": np.bincount(dd, minlength=k).tolist(), "expected": (n * q).tolist()}
        out["distance"] = dist
    return out


# =========================================================================== the terminal


def _g(x: float | None, fmt: str = ".4g") -> str:
    return "" if x is None else format(x, fmt)


def print_analysis(a: Analysis, verbosity: int = 0, console: Any = None) -> None:
    """The analysis as tables (one per data set, and per dealer), then the verdict; at -q one line."""
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    tests = [t for j in a.judged for t in j.result.tests]
    failed = sum(t.verdict == "fail" for t in tests)
    head = (f"{a.verdict.upper()}: {len(a.datasets)} data set(s), {len(a.judged)} battery(ies), {len(tests)} tests, "
            f"{failed} failed (α = {a.alpha:g}, {a.correction}; α/{len(a.judged)} = {a.alpha_each:.3g} each): {a.path}")
    if verbosity < 0:
        con.print(head, markup=False, highlight=False, soft_wrap=True)
        return
    style = {"pass": "green", "fail": "bold red", "too few": "yellow", "undecided": "bold yellow"}
    for j in a.judged:
        d = j.dataset
        title = j.data.source + (f" — {d.scenario}" if d.scenario and j.dealer is None else "")
        if d.expected_failures and j.dealer is None:
            title += " (a fault scenario)"
        t = Table(title=title, title_justify="left")
        for col, just in (("test", "left"), ("column / split", "left"), ("n", "right"), ("statistic", "right"),
                          ("dof", "right"), ("p", "right"), ("p adj.", "right"), ("power", "right"), ("verdict", "left")):
            t.add_column(col, justify=just)
        if verbosity > 0:
            t.add_column("null hypothesis")
        for r in j.result.tests:
            where = " / ".join(x for x in (r.column, r.split) if x not in ("result", "all")) or "result"
            row = [r.test, where, str(r.n), f"{r.statistic_name} {_g(r.statistic)}" if r.statistic is not None else "",
                   "" if r.dof is None else str(r.dof), _g(r.p_value, ".3g"), _g(r.p_adjusted, ".3g"),
                   _g(r.power, ".2f"), f"[{style.get(r.verdict, '')}]{r.verdict}[/]"]
            if verbosity > 0:
                row.append(r.null)
            t.add_row(*row)
        parts = [f"{j.data.n} plays ({j.data.alphabet.kind})"]
        if j.dealer is None:
            parts += [f"{k}: {v}" for k, v in d.excluded.items()]
            parts += [f"NOT ON THE ALPHABET: {k} ×{v}" for k, v in d.off_alphabet.items()]
            parts += d.notes
        t.caption = "; ".join(parts) + f" — verdict [{style.get(j.verdict, '')}]{j.verdict.upper()}[/]"
        t.caption_justify = "left"
        con.print(t)
    thin = a.thin
    if thin:
        con.print(f"[bold yellow]Evidence thin: {len(thin)} line(s): tests too few or weak for lack of data[/]",
                  highlight=False)
        if verbosity > 0:
            for line in thin:
                con.print(f"  {line}", markup=False, highlight=False)
        else:
            for j in a.judged:
                few = sum(t.verdict == "too few" for t in j.result.tests)
                weak = len(j.result.thin) - few
                if j.verdict == "undecided" or few or weak:
                    con.print(f"  {j.data.source}: {'UNDECIDED, ' if j.verdict == 'undecided' else ''}{few} test(s) "
                              f"too few, {max(weak, 0)} weak or not run (-v or --json lists them)",
                              markup=False, highlight=False)
    if a.off_alphabet:
        con.print(f"[bold red]{a.off_alphabet} result(s) reported that the device cannot produce: FAIL[/]")
    if a.verdict == "undecided":
        con.print("[bold yellow]UNDECIDED: the evidence is too thin for a verdict on every data set "
                  "(see above)[/]", highlight=False)
    con.print(f"[{style[a.verdict]}]{head}[/]", highlight=False, soft_wrap=True)


# =========================================================================== the HTML report
#: the analysis a run folder keeps beside its report (``hil.html_report`` renders it into report.html)
ANALYSIS_NAME = "analysis.json"


def write_report_section(a: Analysis, out: Path) -> Path:
    """``OUT/analysis.json`` (the analysis with its figures' data, and the run's manifest hash so
    the page never shows the analysis of another run), then ``OUT/report.html`` rendered again from
    ``OUT/report.json`` with its "Outcome analysis" section."""
    import orjson

    from hil.html_report import write_html

    out = Path(out)
    try:
        report = orjson.loads((out / "report.json").read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ValueError(f"{out / 'report.json'} cannot be read: {exc}") from None
    doc = a.to_json(plots=True)
    doc["manifest_sha256"] = (report.get("manifest") or {}).get("sha256")
    doc["written_utc"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    tmp = out / (ANALYSIS_NAME + ".tmp")
    tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    tmp.replace(out / ANALYSIS_NAME)
    return write_html(report, out)
