"""Fractional meter increments (issue 16): every meter with a rate, on a stake that makes its
increment a fraction of a cent, so the fraction carried from one wager to the next is pinned.

At 100 cents every Roulette Up rate (20 %, 18 %, 19 % of § 617b.4(h)(2)) is whole cents, so a
system (or a check) that drops the fraction of a cent looks healthy. At the issue's 125 cents an
18 % row adds 22.5 cents a wager: the meter shows +22, +23, +22, ... A 19 % row adds 23.75; the
20 % rows are whole at 125, so they are staked 123 cents (24.6). The Blackjack progressive
system's meters (§ 633b.17(h), § 633b.18(i), § 633b.21(g)) the same, each row at 125 cents and,
where 125 makes its rates whole, at 123.

Every expected figure here is transcribed BY HAND from the regulation's rows (the ``ROWS`` tables
below, each cell as printed), never taken from ``rules.*``: the meter a run shows is
``floor(seed + k × rate × stake)`` after its k-th wager, worked out in the test with ``Fraction``.

Each test can fail: the healthy runs pin the figures and a "pass" with no finding (a check that
drops the carry on its side fails them); the planted-bug tests give the simulated system a
controller that drops the fraction (``_carry_dropped``: each increment truncated to whole cents,
the residue lost at a reseed, the reserve's fraction lost, a snapshot without its residue) and the
meter check must fail, naming the increments.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import floor
from pathlib import Path

import numpy as np
import pytest
import simpy

from devices.contracts import BallResult
from devices.illuminator import IlluminatorParams, IlluminatorSim
from devices.progressive import Increment, MeterSpec, ProgressiveController, ProgressiveParams, ProgressiveTableSim
from devices.roulette_wheel import pocket_order
from hil.bench import Devices, load_bench
from hil.checks import CheckConfig, run_checks
from hil.roulette import RouletteController
from hil.runner import load_roulette_x_rules, load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader, TraceWriter

ROULETTE_METER = "RU-617b.4h2-meter"
BJ_METER = "BJ-meter-accounting"

# --------------------------------------------------------------------------- the regulation's rows, by hand

#: § 617b.4(h)(2) Progressive Paytables 1–7: (Seed/Reseed in progressive wagers, Incrementation %,
#: Reserve Rate % (None: "n/a")), and the streak length that pays "100% of progressive meter".
UP_ROWS = {
    "P1": (10_000, 20, 4, 9),
    "P2": (10_000, 20, 4, 9),
    "P3": (10_000, 18, 4, 9),
    "P4": (3_000, 18, 5, 8),
    "P5": (3_000, 18, 5, 8),
    "P6": (3_000, 18, 5, 8),
    "P7": (3_000, 19, None, 8),
}

#: § 633b.17(h) (21+3 progressive: paytable, decks -> Seed/Reseed, Increment Rate %, Reserve Rate %),
#: § 633b.18(i) (Royal Match progressive: seed 10,000× the minimum wager, 15 %), § 633b.21(g) (Blazing
#: 7's multi-progressive: mega 2,000×, 14 %; major 1,000×, 6 %; minor 500×, 4 %). A seed is
#: ("x", N) for N× the wager, ("$", N) for $N, None for "N/A" (no seed: the meter restarts at its reserve).
BJ_ROWS = {
    ("twenty-one-plus-three", "1", 3): {"progressive": (("x", 2_000), 20, 0)},
    ("twenty-one-plus-three", "1", 6): {"progressive": (("x", 2_000), 17, 0)},
    ("twenty-one-plus-three", "2", 3): {"progressive": (("x", 3_000), 24, 0)},
    ("twenty-one-plus-three", "2", 6): {"progressive": (("x", 2_000), 17, 0)},
    ("twenty-one-plus-three", "3", 3): {"progressive": (None, 17, 4)},
    ("twenty-one-plus-three", "3", 6): {"progressive": (("$", 2_000), 17, 0)},
    ("twenty-one-plus-three", "4", 6): {"progressive": (("$", 2_000), 17, 0)},
    ("twenty-one-plus-three", "5", 6): {"progressive": (("$", 2_000), 17, 0)},
    ("twenty-one-plus-three", "6", 6): {"progressive": (("$", 2_000), 17, 0)},
    ("twenty-one-plus-three", "7", 6): {"progressive": (None, 16, 4)},
    ("twenty-one-plus-three", "8", 6): {"progressive": (None, 15, 5)},
    ("twenty-one-plus-three", "9", 6): {"progressive": (None, 16, 4)},
    ("twenty-one-plus-three", "10", 6): {"progressive": (None, 17, 4)},
    ("twenty-one-plus-three", "11", 6): {"progressive": (None, 18, 4)},
    ("royal-match", "A", 6): {"progressive": (("x", 10_000), 15, 0)},
    ("blazing-sevens-multi", "A", 8): {"mega": (("x", 2_000), 14, 0), "major": (("x", 1_000), 6, 0),
                                       "minor": (("x", 500), 4, 0)},
    ("blazing-sevens-multi", "B", 8): {"mega": (("x", 2_000), 14, 0), "major": (("x", 1_000), 6, 0),
                                       "minor": (("x", 500), 4, 0)},
}


def stake_for(*percents: int | None) -> int:
    """The issue's 125 cents, unless every rate makes it whole cents (a multiple of 4 %): then 123."""
    return 125 if any(p and (p * 125) % 100 for p in percents) else 123


def bj_seed(seed, stake: int) -> int:
    if seed is None:
        return 0
    kind, n = seed
    return n * stake if kind == "x" else n * 100


def values_after(seed_cents: int, percent: int, stake: int, k: int) -> list[int]:
    """The meter shown after each of ``k`` wagers: whole cents, the fraction carried."""
    return [floor(seed_cents + Fraction(percent, 100) * stake * i) for i in range(1, k + 1)]


# --------------------------------------------------------------------------- planted bugs (the system's)

def _truncating_increment(self: ProgressiveController, stake_cents: int) -> list[Increment]:
    """A system that keeps whole cents: each increment truncated, its fraction of a cent dropped."""
    out = []
    for spec in self.specs:
        amount = floor(spec.increment * stake_cents)
        self._value[spec.name] += amount
        self._reserve[spec.name] += spec.reserve * stake_cents
        out.append(Increment(spec.name, amount, floor(self._value[spec.name])))
    return out


def _rounding_increment(self: ProgressiveController, stake_cents: int) -> list[Increment]:
    """A system that rounds each increment half up to whole cents (the fraction never carried)."""
    out = []
    for spec in self.specs:
        amount = floor(spec.increment * stake_cents + Fraction(1, 2))
        self._value[spec.name] += amount
        self._reserve[spec.name] += spec.reserve * stake_cents
        out.append(Increment(spec.name, amount, floor(self._value[spec.name])))
    return out


def _truncating_reserve(self: ProgressiveController, stake_cents: int) -> list[Increment]:
    """The meter exact, its reserve in whole cents (the reserve's fraction of a cent dropped)."""
    out = _REAL_INCREMENT(self, stake_cents)
    for spec in self.specs:
        self._reserve[spec.name] -= spec.reserve * stake_cents - floor(spec.reserve * stake_cents)
    return out


def _pay_dropping_residue(self: ProgressiveController, meter: str, percent: int, winners: int):
    """A payout that reseeds the meter in whole cents: the fraction of a cent it held is lost."""
    paid = _REAL_PAY(self, meter, percent, winners)
    self._value[meter] = Fraction(floor(self._value[meter]))
    return paid


_REAL_INCREMENT = ProgressiveController.increment
_REAL_PAY = ProgressiveController.pay

PLANTED = {"truncated": ("increment", _truncating_increment), "rounded": ("increment", _rounding_increment),
           "reserve-truncated": ("increment", _truncating_reserve), "reseed-drops-residue": ("pay", _pay_dropping_residue)}


def plant(monkeypatch, bug: str) -> None:
    name, fn = PLANTED[bug]
    monkeypatch.setattr(ProgressiveController, name, fn)


# --------------------------------------------------------------------------- Roulette Up on a scripted wheel

RX = load_roulette_x_rules().submission


class ScriptedWheel:
    """A RouletteWheel that lands on the scripted numbers in turn (one spin each, 8 s)."""

    name = "ball_wheel"

    def __init__(self, env, telemetry, wheel: str, numbers: list[int]) -> None:
        self.env, self.telemetry, self.numbers = env, telemetry, list(numbers)
        self.order = pocket_order(wheel)
        self.spins = 0
        telemetry(self.name, "device_info", {"model": "scripted", "wheel": wheel, "pockets": list(self.order)})

    def spin(self):
        self.spins += 1
        pocket, start, done = self.numbers.pop(0), self.env.now, self.env.event()

        def stop(_e):
            r = BallResult(spin_id=self.spins, pocket=pocket, pocket_index=self.order.index(pocket),
                           ball_revolutions=8.0, rotor_direction="cw", misspin=False, launch_speed_rps=2.0,
                           rotor_speed_rps=0.5, start_time_s=start, launch_time_s=start + 0.5,
                           drop_time_s=start + 6.0, stop_time_s=self.env.now)
            self.telemetry(self.name, "ball_result", dict(vars(r)))
            done.succeed(r)

        self.env.timeout(8.0).callbacks.append(stop)
        return done


def up_scenario(paytable: str, stake: int, players: int = 3):
    """A single zero table with Roulette Up ``paytable`` on a ``stake``-cent progressive wager; every
    player places one Roulette Up wager at each streak's start, never a late one."""
    pl = {"count": players, "wagers_per_player": [1, 1], "roulette_up_probability": 1.0,
          "roulette_up_late_probability": 0.0, "late_press_probability": 0.0}
    text = (f"schema: 1\nname: meter-fractions\ngame: roulette\nseed: 16\nrounds: 1\n"
            f"table: {{wheel: single-zero, roulette_up: {paytable}, progressive_stake_cents: {stake}}}\n"
            f"players: {json.dumps(pl)}\n")
    return parse_scenario(text, "t.yaml").scenario


def play_up(tmp: Path, sc, numbers: list[int], state: dict | None = None, name: str = "trace"):
    """The Roulette croupier and the simulated progressive system (the row's meter) for one round per
    number; (trace path, controller)."""
    path = tmp / f"{name}.sqlite"
    env = simpy.Environment()
    writer = TraceWriter(path, {"game": "roulette", "scenario": sc.name})
    writer.clock = env
    rng = np.random.default_rng(16)
    devices = Devices(None, None, None)  # type: ignore[arg-type]
    devices.ball_wheel = ScriptedWheel(env, writer.record, sc.table.wheel, numbers)
    devices.illuminator = IlluminatorSim(env, IlluminatorParams(wheel=sc.table.wheel), RX, None, rng, writer.record)
    meters = tuple(MeterSpec(**m) for m in sc.table.wagering_meters())
    devices.roulette_wagering = ProgressiveTableSim(env, ProgressiveParams(meters=meters), rng, writer.record,
                                                    name="roulette_wagering")
    ctl = RouletteController(env, devices, writer, sc, RX, rng)
    writer.record("croupier", "table", ctl.describe())
    if state is not None:
        ctl.restore(state)
    env.run(until=ctl.run(len(numbers)))
    writer.close()
    return path, ctl


def of(path: Path, kind: str, device: str = "roulette_wagering") -> list[dict]:
    with TraceReader(path) as r:
        return [e.payload for e in r.events() if e.kind == kind and e.device == device]


def _events(path: Path) -> list:
    with TraceReader(path) as r:
        return list(r.events())


def check(path: Path, check_id: str):
    return next(c for c in run_checks(path, CheckConfig(chi2_min_spins=100_000)) if c.id == check_id)


#: Three streaks of one (5 then 3, 2 then 1, 7 then 4), then 1..(the meter's length): four streak
#: starts of three wagers each before the hit.
def up_numbers(hit_length: int) -> list[int]:
    return [5, 3, 2, 1, 7, 4] + list(range(1, hit_length + 1)) + [1, 2]


@pytest.mark.parametrize("paytable", sorted(UP_ROWS))
def test_the_roulette_up_meter_carries_the_fraction_of_a_cent_on_every_progressive_row(tmp_path, paytable):
    """§ 617b.4(h)(2): 12 wagers of the row's stake before the streak that wins the meter; each shows
    floor(seed + k × rate × stake) — P3–P6 at 125 cents: +22, +23, +22, +23, ... (22.5 a wager) —
    and the meter check passes with no finding."""
    multiple, percent, reserve, hit = UP_ROWS[paytable]
    stake = stake_for(percent, reserve)
    seed = multiple * stake
    path, _ctl = play_up(tmp_path, up_scenario(paytable, stake), up_numbers(hit))
    (declared,) = of(path, "device_info")[0]["meters"]
    assert (declared["seed_cents"], declared["reseed_cents"]) == (seed, seed)
    assert Fraction(declared["increment_rate"]) == Fraction(percent, 100)
    assert Fraction(declared["reserve_rate"]) == Fraction(reserve or 0, 100)
    incs = of(path, "meter_increment")
    before_hit = incs[:12]
    assert [i["value_cents"] for i in before_hit] == values_after(seed, percent, stake, 12)
    amounts = [i["amount_cents"] for i in before_hit]
    assert amounts == [b - a for a, b in zip([seed] + values_after(seed, percent, stake, 11),
                                             values_after(seed, percent, stake, 12))]
    if (percent * stake) % 100:  # the fraction of a cent shows as unequal whole-cent steps
        assert len(set(amounts)) == 2, amounts
    (hit_ev,) = of(path, "meter_hit")
    jackpot = values_after(seed, percent, stake, 12)[-1]
    assert (hit_ev["jackpot_cents"], hit_ev["winners"], hit_ev["reseed_cents"]) == (jackpot, 3, seed)
    assert (hit_ev["paid_cents"], hit_ev["remainder_cents"]) == divmod(jackpot, 3)
    result = check(path, ROULETTE_METER)
    assert [f.message for f in result.findings] == [] and result.verdict == "pass"


def test_an_18_percent_row_at_125_cents_literally(tmp_path):
    """Progressive Paytable 3 (seed 10,000×, 18 %, 4 %) on a 125-cent wager, figures worked by hand:
    seed $12,500.00; 22.5 cents a wager; reserve 5 cents a wager. Nine wagers (three streak starts
    of three), then the streak 1..9 wins the meter with 202.5 cents on it: the three winners share
    1,250,202 (416,734 each), the half cent stays on the reseeded meter, so the next three wagers
    show +23, +22, +23 (1,250,023; 1,250,045; 1,250,068)."""
    path, ctl = play_up(tmp_path, up_scenario("P3", 125), [5, 3, 2, 1] + list(range(1, 10)) + [1])
    incs = of(path, "meter_increment")
    assert [i["amount_cents"] for i in incs] == [22, 23, 22, 23, 22, 23, 22, 23, 22, 23, 22, 23]
    assert [i["value_cents"] for i in incs] == [
        1_250_022, 1_250_045, 1_250_067, 1_250_090, 1_250_112, 1_250_135, 1_250_157, 1_250_180, 1_250_202,
        1_250_023, 1_250_045, 1_250_068]
    (hit,) = of(path, "meter_hit")
    assert {k: hit[k] for k in ("jackpot_cents", "winners", "paid_cents", "remainder_cents", "reseed_cents",
                                "value_cents", "reserve_cents")} == {
        "jackpot_cents": 1_250_202, "winners": 3, "paid_cents": 416_734, "remainder_cents": 0,
        "reseed_cents": 1_250_000, "value_cents": 1_250_000, "reserve_cents": 0}
    assert [s.get("meter_share_cents") for s in of(path, "up_settle", "croupier")][-3:] == [416_734] * 3
    # the system's state (committed with each round) keeps the half cent: 1,250,000.5 + 67.5
    (m,) = ctl.state()["meters"]
    assert (m["value_cents"], Fraction(m["residue"]), m["reserve_cents"], Fraction(m["reserve_residue"])) == (
        1_250_068, Fraction(0), 15, Fraction(0))
    result = check(path, ROULETTE_METER)
    assert [f.message for f in result.findings] == [] and result.verdict == "pass"
    got = {m.name: m.value for m in result.measurements}
    assert (got["increments"], got["meter_hits"], got["meter_end_cents"], got["reserve_end_cents"]) == (12, 1, 1_250_068, 15)


@pytest.mark.parametrize("bug, paytable, findings", [
    ("truncated", "P3", 6),  # 22 a wager: every second increment is a cent short of 22.5 × k
    ("rounded", "P3", 12),  # 23 a wager: each a cent over the 22.5 the check carries from the meter shown
    ("truncated", "P7", 6),  # 23.75 -> 23: every second increment is off
    ("reseed-drops-residue", "P3", 2),  # the half cent on the meter at the hit lost at the reseed: the next
                                        # increment is a cent short, and the one after a cent over what the
                                        # check carries from the meter shown
])
def test_a_system_that_drops_the_fraction_of_a_cent_fails_the_roulette_up_meter_check(tmp_path, monkeypatch, bug,
                                                                                       paytable, findings):
    """The planted bug of issue 16: at 125 cents the meter check names every increment the dropped
    carry puts off (one finding per discrepancy: the check then follows the meter shown, in whole
    cents, so the counts are exact and deterministic)."""
    plant(monkeypatch, bug)
    numbers = [5, 3, 2, 1] + list(range(1, UP_ROWS[paytable][3] + 1)) + [1]
    path, _ = play_up(tmp_path, up_scenario(paytable, 125), numbers)
    result = check(path, ROULETTE_METER)
    assert result.verdict == "fail"
    messages = [f.message for f in result.findings]
    assert len(messages) == findings, messages
    assert all("the meter went" in m or "when paid" in m for m in messages), messages
    # each finding names its round and the meter reading it disagrees with (the event's seq in the trace)
    seqs = {e.seq: e for e in _events(path)}
    for f in result.findings:
        assert isinstance(f.round, int) and f.round >= 1, f
        assert f.seq in seqs and seqs[f.seq].round == f.round and "meter" in seqs[f.seq].kind, (f, seqs.get(f.seq))


def test_the_roulette_up_meter_check_passes_the_same_runs_without_the_planted_bug(tmp_path):
    """The control for the planted-bug test: the same scripted runs on the healthy system pass."""
    for paytable in ("P3", "P7"):
        numbers = [5, 3, 2, 1] + list(range(1, UP_ROWS[paytable][3] + 1)) + [1]
        path, _ = play_up(tmp_path, up_scenario(paytable, 125), numbers, name=paytable)
        result = check(path, ROULETTE_METER)
        assert result.verdict == "pass" and not result.findings, [f.message for f in result.findings]


def test_the_roulette_up_state_keeps_the_half_cent_and_a_restored_system_goes_on_from_it(tmp_path, monkeypatch):
    """The table's state (committed with each round) holds the meter to the fraction of a cent: after
    three 125-cent wagers on P3 it is 1,250,067 and 1/2; a new system restored from it shows +23
    first (1,250,090). A snapshot that drops the residue restores 1,250,067 and shows +22."""
    sc = up_scenario("P3", 125)
    _first, ctl = play_up(tmp_path, sc, [5], name="first")
    state = json.loads(json.dumps(ctl.state()))
    (m,) = state["meters"]
    assert (m["value_cents"], m["residue"], m["reserve_cents"]) == (1_250_067, "1/2", 15)
    broken = json.loads(json.dumps(state))
    broken["meters"][0]["residue"] = "0"  # the snapshot without its fraction of a cent
    second, ctl2 = play_up(tmp_path, sc, [3, 2], state, name="second")  # 5 then 3 ends it; 2 starts the next
    incs = of(second, "meter_increment")
    assert [i["amount_cents"] for i in incs] == [23, 22, 23]
    assert ctl2.wagering.controller.exact("progressive") == 1_250_135  # 1,250,067.5 + 3 × 22.5
    third, _ = play_up(tmp_path, sc, [3, 2], broken, name="third")
    assert [i["amount_cents"] for i in of(third, "meter_increment")] == [22, 23, 22]


# --------------------------------------------------------------------------- the Blackjack progressive system

BJ_TEXT = """schema: 1
name: meter-fractions
game: blackjack
seed: 16
rounds: %(rounds)d
cards: {decks: %(decks)d, progressive: %(wager)s, progressive_paytable: '%(table)s', progressive_stake_cents: %(stake)d, declared_suit: s, side: {}}
players: {count: %(players)d, progressive_probability: 1.0, side_probability: 0.0, late_press_probability: 0.0}
"""


def bj_run(tmp: Path, wager: str, table: str, decks: int, stake: int, rounds: int = 3, players: int = 4,
           stacked: str | None = None):
    text = BJ_TEXT % {"rounds": rounds, "decks": decks, "wager": wager, "table": table, "stake": stake,
                      "players": players}
    if stacked:
        text += f'bench:\n  shoe: {{stacked: "{stacked}", penetration: 0.01}}\n'
    result = run_scenario(parse_scenario(text, "t.yaml"), load_bench(), load_rules(), tmp)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp / result["trace"]) as r:
        events = [e for e in r.events() if e.device == "progressive"]
    meter = next(c for c in result["checks"] if c["id"] == BJ_METER)
    return events, meter


@pytest.mark.parametrize("wager, table, decks", sorted(BJ_ROWS))
def test_every_blackjack_progressive_meter_carries_the_fraction_of_a_cent(tmp_path, wager, table, decks):
    """Each row's meters on a stake that makes its rates fractions of a cent (125, else 123): the
    system declares the row, each increment shows floor(seed + k × rate × stake), and the meter check
    passes with no finding."""
    rows = BJ_ROWS[(wager, table, decks)]
    stake = stake_for(*(p for _s, inc, res in rows.values() for p in (inc, res)))
    events, meter = bj_run(tmp_path, wager, table, decks, stake)
    declared = {m["name"]: m for m in next(e.payload for e in events if e.kind == "device_info")["meters"]}
    assert sorted(declared) == sorted(rows)
    for name, (seed, inc, res) in rows.items():
        d = declared[name]
        assert d["seed_cents"] == bj_seed(seed, stake) and bool(d.get("reseed_from_reserve")) == (seed is None)
        assert (Fraction(d["increment_rate"]), Fraction(d["reserve_rate"])) == (Fraction(inc, 100), Fraction(res, 100))
        shown = [e.payload["value_cents"] for e in events if e.kind == "meter_increment" and e.payload["meter"] == name]
        assert len(shown) == 12 and not [e for e in events if e.kind == "meter_hit"]
        assert shown == values_after(bj_seed(seed, stake), inc, stake, 12)
    assert meter["verdict"] == "pass" and meter["findings"] == [], meter["findings"]


@pytest.mark.parametrize("wager, table, decks", [("twenty-one-plus-three", "11", 6), ("twenty-one-plus-three", "1", 6),
                                                 ("royal-match", "A", 6), ("blazing-sevens-multi", "A", 8),
                                                 ("twenty-one-plus-three", "1", 3)])
def test_a_blackjack_system_that_truncates_its_increments_fails_the_meter_check(tmp_path, monkeypatch, wager, table,
                                                                                 decks):
    """The planted bug on the Blackjack meters: 18 % (22.5), 17 % (21.25), 15 % (18.75), 14 % and 6 %
    (17.5, 7.5) at 125 cents, 20 % at 123 (24.6): a system in whole cents is off within four wagers
    and the check says so for each meter whose rate leaves a fraction (4 % of 125, the minor, is whole)."""
    plant(monkeypatch, "truncated")
    rows = BJ_ROWS[(wager, table, decks)]
    stake = stake_for(*(p for _s, inc, res in rows.values() for p in (inc, res)))
    _events, meter = bj_run(tmp_path, wager, table, decks, stake)
    assert meter["verdict"] == "fail"
    named = {f["message"].split(" meter ")[0] for f in meter["findings"]}
    assert named == {n for n, (_s, inc, _r) in rows.items() if (inc * stake) % 100}, meter["findings"]
    assert all("after the increment" in f["message"] for f in meter["findings"])


def test_an_unseeded_row_restarts_at_its_reserve_to_the_fraction_of_a_cent(tmp_path, monkeypatch):
    """§ 633b.17(h) Paytable 8 (Seed/Reseed "N/A", 15 %, reserve 5 %) at 125 cents: 18.75 to the
    meter and 6.25 to the reserve a wager. One player dealt three kings of spades (the declared suit:
    100 % of the meter) each round: round 1 pays 18 and restarts the meter at the whole reserve,
    6.25, plus the 0.75 left: 7; round 2: 7 + 18.75 = 25.75 pays 25 and restarts at 6.25 + 0.75 = 7
    again. A reserve kept in whole cents restarts it at 6 (+ 0.75) and the check fails."""
    events, meter = bj_run(tmp_path / "ok", "twenty-one-plus-three", "8", 6, 125, rounds=2, players=1,
                           stacked="Ks Ks Ks 2h")
    hits = [e.payload for e in events if e.kind == "meter_hit"]
    assert [(h["jackpot_cents"], h["paid_cents"], h["reseed_cents"], h["value_cents"], h["reserve_cents"])
            for h in hits] == [(18, 18, 6, 7, 0), (25, 25, 6, 7, 0)]
    assert meter["verdict"] == "pass" and meter["findings"] == []
    plant(monkeypatch, "reserve-truncated")
    _events, broken = bj_run(tmp_path / "bug", "twenty-one-plus-three", "8", 6, 125, rounds=2, players=1,
                             stacked="Ks Ks Ks 2h")
    assert broken["verdict"] == "fail"
    assert any("after the payout" in f["message"] for f in broken["findings"]), broken["findings"]


def test_the_half_cent_left_on_an_18_percent_meter_survives_its_reseed(tmp_path, monkeypatch):
    """§ 633b.17(h) Paytable 11 (Seed/Reseed "N/A", 18 %, reserve 4 %) at 125 cents: 22.5 to the meter
    and 5 to the reserve a wager; three aces of spades (the declared suit) each round. Round 1 pays 22
    and restarts the meter at the reserve, 5, plus the half cent left: 5.5; round 2: 5.5 + 22.5 = 28
    is paid. A payout that reseeds in whole cents loses the half cent: round 2 shows 27, and the
    check fails."""
    events, meter = bj_run(tmp_path / "ok", "twenty-one-plus-three", "11", 6, 125, rounds=2, players=1,
                           stacked="As As As 2h")
    assert [e.payload["value_cents"] for e in events if e.kind == "meter_increment"] == [22, 28]
    hits = [e.payload for e in events if e.kind == "meter_hit"]
    assert [(h["jackpot_cents"], h["paid_cents"], h["reseed_cents"], h["value_cents"], h["reserve_cents"])
            for h in hits] == [(22, 22, 5, 5, 0), (28, 28, 5, 5, 0)]
    assert meter["verdict"] == "pass" and meter["findings"] == []
    plant(monkeypatch, "reseed-drops-residue")
    events, broken = bj_run(tmp_path / "bug", "twenty-one-plus-three", "11", 6, 125, rounds=2, players=1,
                            stacked="As As As 2h")
    assert [e.payload["value_cents"] for e in events if e.kind == "meter_increment"] == [22, 27]
    assert broken["verdict"] == "fail"
    assert any("after the increment" in f["message"] for f in broken["findings"]), broken["findings"]


@pytest.mark.parametrize("tamper, verdict", [(None, "pass"), ("residue", "fail")])
def test_the_roulette_up_meter_check_holds_a_restart_to_the_half_cent(tmp_path, tamper, verdict):
    """A restart in the trace (the croupier's ``streak_resumed`` with the committed meters): after
    three 125-cent wagers on P3 the meter is 1,250,067 and 1/2; a restart that restores it without
    the half cent fails the meter check ("restored at"), one that restores it exactly passes. At
    100 cents the residue is always 0 and this could not be told."""
    sc = up_scenario("P3", 125)
    path = tmp_path / "resumed.sqlite"
    writer = TraceWriter(path, {"game": "roulette", "scenario": sc.name})
    state = None
    for part, (numbers, first) in enumerate([([5], 1), ([3, 2, 4], 2)]):
        env = simpy.Environment()
        writer.clock = env
        rng = np.random.default_rng([16, part])
        devices = Devices(None, None, None)  # type: ignore[arg-type]
        devices.ball_wheel = ScriptedWheel(env, writer.record, sc.table.wheel, numbers)
        devices.illuminator = IlluminatorSim(env, IlluminatorParams(wheel=sc.table.wheel), RX, None, rng,
                                             writer.record)
        meters = tuple(MeterSpec(**m) for m in sc.table.wagering_meters())
        devices.roulette_wagering = ProgressiveTableSim(env, ProgressiveParams(meters=meters), rng, writer.record,
                                                        name="roulette_wagering")
        ctl = RouletteController(env, devices, writer, sc, RX, rng)
        if state is None:
            writer.record("croupier", "table", ctl.describe())
        else:
            writer.round = first
            if tamper == "residue":
                state["meters"][0]["residue"] = "0"  # the half cent lost in the restart
            ctl.restore(state)
        env.run(until=ctl.run(first + len(numbers) - 1, first))
        state = json.loads(json.dumps(ctl.state()))
    writer.close()
    (resumed,) = of(path, "streak_resumed", "croupier")
    assert resumed["meters"][0]["value_cents"] == 1_250_067
    assert resumed["meters"][0]["residue"] == ("0" if tamper else "1/2")
    result = check(path, ROULETTE_METER)
    assert result.verdict == verdict, [f.message for f in result.findings]
    if tamper:
        assert any("restored at 1250067 + 0" in f.message for f in result.findings), [f.message for f in result.findings]
    else:
        assert not result.findings


def test_the_bundled_fraction_scenario_meets_its_expectation_with_the_meter_exact(tmp_path):
    """scenarios/roulette/roulette_up_meter_fractions.yaml (P4: seed 3,000×, 18 %, 5 % on 125 cents),
    run as the suite runs it: MET, and the meter check's figures are the regulation's to the fraction
    of a cent — the meter 375,000 + 22.5 a wager, the reserve 6.25 a wager — with the increments
    showing both +22 and +23."""
    from hil.scenario import load_scenario

    suite = Path(__file__).resolve().parents[2] / "scenarios" / "roulette"
    result = run_scenario(load_scenario(suite / "roulette_up_meter_fractions.yaml"), load_bench(), load_rules(), tmp_path)
    assert result["error"] is None and result["expectation_met"], result["outcome"]
    meter = next(c for c in result["checks"] if c["id"] == ROULETTE_METER)
    got = {m["name"]: m["value"] for m in meter["measurements"]}
    n = got["increments"]
    assert meter["verdict"] == "pass" and meter["findings"] == [] and n >= 50
    assert got["meter_hits"] == 0
    assert (got["meter_end_cents"], got["reserve_end_cents"]) == (375_000 + n * 22.5, n * 6.25)
    amounts = [i["amount_cents"] for i in of(tmp_path / result["trace"], "meter_increment")]
    assert len(amounts) == n and sorted(set(amounts)) == [22, 23]
    assert sum(amounts) == floor(Fraction(45, 2) * n)
