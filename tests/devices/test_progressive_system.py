"""The progressive table game system (devices.progressive): a wagering device per seat with the
dealer's lock-out, win lights and meters (§§ 617b.4(c), 633b.17(c), 633b.18(d), 633b.21(a)), linked
tables sharing a controller (§ 605a.8), and each fault knob doing its fault. An accepted press is
pending: the meters grow only when the dealer confirms it (``confirm_wagers``); the rest are void."""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pydantic
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from devices.contracts import MeterPayout, MeterReading, PressAnswer, ProgressiveSystem, WageringDevice
from devices.progressive import (
    MeterSpec,
    MeterState,
    ProgressiveController,
    ProgressiveParams,
    ProgressiveTableSim,
    parse_rate,
)
from devices.wagering import WageringSim

DOC = Path(__file__).resolve().parents[2] / "docs" / "devices" / "progressive-system.md"
#: § 633b.21(g) on a $5 minimum: mega 2,000×, major 1,000×, minor 500×; 14 %, 6 %, 4 %
BLAZING = (MeterSpec("mega", 1_000_000, None, "14%", "1%"), MeterSpec("major", 500_000, None, "6%"),
           MeterSpec("minor", 250_000, None, "4%"))


class Bench:
    """One or more tables on one simpy.Environment, their telemetry by table name."""

    def __init__(self, params: ProgressiveParams = ProgressiveParams(meters=BLAZING), seed: int = 0,
                 tables: int = 1, controller: ProgressiveController | None = None) -> None:
        self.env = simpy.Environment()
        self.events: list[tuple[float, str, str, dict]] = []
        self.tables = [self.add(params, f"table-{i + 1}" if tables > 1 else "progressive", seed + i, controller)
                       for i in range(tables)]
        self.dev = self.tables[0] if self.tables else None

    def add(self, params: ProgressiveParams, name: str, seed: int = 0,
            controller: ProgressiveController | None = None) -> ProgressiveTableSim:
        return ProgressiveTableSim(self.env, params, np.random.default_rng(seed), self._sink, name, controller)

    def _sink(self, device: str, kind: str, payload: dict) -> None:
        self.events.append((self.env.now, device, kind, dict(payload)))

    def of(self, kind: str, device: str | None = None) -> list[dict]:
        return [p for _, d, k, p in self.events if k == kind and (device is None or d == device)]

    def run(self, ev: simpy.Event):
        """Run until ``ev`` is processed; its value."""
        return self.env.run(until=ev)

    def press(self, seat: int, stake_cents: int, dev=None, spot: str = "progressive") -> PressAnswer:
        return self.run((dev or self.dev).press(seat, spot, stake_cents))

    def confirm(self, press_ids, dev=None) -> tuple[int, ...]:
        """The dealer's confirmation of ``press_ids``; the ids that incremented."""
        return self.run((dev or self.dev).confirm_wagers(list(press_ids)))

    def wager(self, seat: int, stake_cents: int, dev=None) -> PressAnswer:
        """A press the dealer confirms at once (a player's wager)."""
        a = self.press(seat, stake_cents, dev)
        if a.accepted:
            self.confirm([a.press_id], dev)
        return a

    def at(self, t: float) -> None:
        self.env.run(until=t)


# ----------------------------------------------------------------------------- contract
def test_the_model_is_a_progressive_system_and_a_wagering_device():
    b = Bench()
    dev = b.dev
    assert isinstance(dev, ProgressiveSystem) and isinstance(dev, WageringDevice)
    assert isinstance(dev, WageringSim)  # the seats' wagering is the wagering device's, not a copy
    dev.open_betting()
    a = b.press(3, 125)
    assert isinstance(a, PressAnswer) and a.accepted and a.answer_time_s == pytest.approx(a.device_time_s + 0.002)
    assert not b.of("meter_increment")  # pending until the dealer confirms it
    t_confirm = b.env.now
    assert b.confirm([a.press_id]) == (a.press_id,)
    dev.light_win(3, True)
    reading = b.run(dev.meters())
    assert isinstance(reading, MeterReading) and reading.link_up
    assert reading.meters == {"mega": 1_000_017, "major": 500_007, "minor": 250_005}
    paid = b.run(dev.pay_meter("minor", 100, 1))
    assert isinstance(paid, MeterPayout) and paid.paid_cents == 250_005 and paid.value_cents == 250_000
    kinds = [k for _, _, k, _ in b.events]
    assert kinds == ["device_info", "betting_open", "press", "meter_increment", "meter_increment", "meter_increment",
                     "win_light", "meter_reading", "meter_hit"]
    [info] = b.of("device_info")
    assert info == {"seats": 7, "button_stake_cents": [100] * 7, "linked": False, "link_id": None, "meters": [
        {"name": "mega", "seed_cents": 1_000_000, "reseed_cents": 1_000_000, "increment_rate": "7/50",
         "reserve_rate": "1/100", "reseed_from_reserve": False},
        {"name": "major", "seed_cents": 500_000, "reseed_cents": 500_000, "increment_rate": "3/50", "reserve_rate": "0",
         "reseed_from_reserve": False},
        {"name": "minor", "seed_cents": 250_000, "reseed_cents": 250_000, "increment_rate": "1/25", "reserve_rate": "0",
         "reseed_from_reserve": False}]}
    assert b.of("meter_increment")[0] == {"press_id": 1, "meter": "mega", "amount_cents": 17, "value_cents": 1_000_017,
                                          "device_time_s": t_confirm}  # the confirmation's time
    assert b.of("win_light") == [{"seat": 3, "on": True, "device_time_s": b.of("win_light")[0]["device_time_s"]}]
    json.dumps([p for *_, p in b.events])  # every payload is JSON-able


def test_refused_presses_do_not_increment():
    b = Bench()
    b.press(1, 100)  # betting never opened
    b.dev.open_betting()
    assert [b.press(s, 100).reason for s in (0, 8)] == ["invalid_seat", "invalid_seat"]
    assert b.press(2, 0).reason == "invalid_stake"
    assert not b.of("meter_increment")
    assert b.run(b.dev.meters()).meters == {"mega": 1_000_000, "major": 500_000, "minor": 250_000}


def test_only_confirmed_presses_increment_the_rest_are_void_and_unknown_ids_refused():
    """ProgressiveSystem.confirm_wagers: the dealer's confirmation after "no more bets" is what
    increments; an accepted press it leaves out is dropped (press_void), an id that is not pending
    (never pressed, refused, already confirmed) is reported (confirm_refused) and changes nothing."""
    b = Bench()
    b.dev.open_betting()
    ok = [b.press(seat, 500) for seat in (1, 2, 3)]
    refused = b.press(9, 500)  # invalid seat: never pending
    t = b.env.now
    done = b.confirm([ok[0].press_id, ok[2].press_id, refused.press_id, 77, ok[0].press_id])
    assert done == (ok[0].press_id, ok[2].press_id)
    assert {p["press_id"] for p in b.of("meter_increment")} == set(done)
    assert all(p["device_time_s"] == t for p in b.of("meter_increment"))
    assert b.of("press_void") == [{"press_id": ok[1].press_id, "reason": "not_confirmed", "device_time_s": t}]
    assert [p["press_id"] for p in b.of("confirm_refused")] == [refused.press_id, 77, ok[0].press_id]
    assert b.dev.shown()["mega"] == 1_000_000 + 2 * 70
    # a press accepted after the confirmation (a lock-out that never came) is dropped at the next round
    late = b.press(4, 500)
    b.dev.open_betting()
    assert b.of("press_void")[-1]["press_id"] == late.press_id and b.dev.shown()["mega"] == 1_000_140
    kinds = [k for _, _, k, _ in b.events]
    assert kinds.index("press_void", kinds.index("confirm_refused")) < len(kinds) - 1  # before the new round
    assert kinds[-1] == "betting_open"


def test_same_lockout_draws_as_the_wagering_device():
    """A healthy table draws exactly what WageringSim draws with the same seed: a stub seeded for
    one is seeded for the other."""
    params = ProgressiveParams(lockout_latency_mean_s=0.03, lockout_latency_jitter_s=0.004)
    env = simpy.Environment()
    plain = WageringSim(env, params.wagering, np.random.default_rng(7), lambda *_: None)
    table = ProgressiveTableSim(env, params, np.random.default_rng(7), lambda *_: None)
    for dev in (plain, table):
        dev.open_betting()
        dev.press(1, "progressive", 100)
    draws = []
    for _ in range(5):
        for dev in (plain, table):
            dev.open_betting()
            dev.lock_out()
        draws.append((plain.lockout_latency_s, table.lockout_latency_s))
    assert all(p == t for p, t in draws)


def test_win_light_reports_changes_only_and_refuses_unknown_seats():
    b = Bench()
    for seat, on in ((2, True), (2, True), (5, True), (2, False), (2, False)):
        b.dev.light_win(seat, on)
    assert [(p["seat"], p["on"]) for p in b.of("win_light")] == [(2, True), (5, True), (2, False)]
    assert b.dev.lights == [False, False, False, False, True, False, False]
    for seat in (0, 8, True):
        with pytest.raises(ValueError, match="no seat"):
            b.dev.light_win(seat, True)


# ----------------------------------------------------------------------------- exact increments
def test_increments_carry_the_fraction_of_a_cent():
    """$1.25 at 14 % is 17.5 cents: the meter shows 17, then 35 (18 more), ... never losing the half."""
    b = Bench()
    b.dev.open_betting()
    answers = [b.press(seat, 125) for seat in range(1, 8)]
    assert b.confirm(a.press_id for a in answers) == tuple(range(1, 8))
    mega = [p for p in b.of("meter_increment") if p["meter"] == "mega"]
    assert [p["amount_cents"] for p in mega] == [17, 18, 17, 18, 17, 18, 17]
    assert [p["value_cents"] for p in mega] == [1_000_000 + (i * 35) // 2 for i in range(1, 8)]
    assert b.dev.controller.exact("mega") == 1_000_000 + Fraction(7 * 125 * 14, 100)
    assert b.dev.controller.reserve("mega") == Fraction(7 * 125, 100)
    assert [p["press_id"] for p in mega] == list(range(1, 8))


@settings(max_examples=60, deadline=None)
@given(stakes=st.lists(st.integers(1, 100_000), min_size=1, max_size=40),
       rate=st.sampled_from(["14%", "1/3", "0.07", "6%", "2/7", "100%", "0%"]))
def test_increments_are_exact_whatever_the_stakes(stakes, rate):
    b = Bench(ProgressiveParams(meters=(MeterSpec("m", 12_345, None, rate, "1/7"),)))
    b.dev.open_betting()
    for stake in stakes:
        b.dev.press(1, "progressive", stake)
    b.env.run()
    b.confirm(range(1, len(stakes) + 1))
    exact = 12_345 + parse_rate(rate) * sum(stakes)
    assert b.dev.controller.exact("m") == exact
    assert b.dev.controller.reserve("m") == Fraction(sum(stakes), 7)
    incs = b.of("meter_increment")
    assert sum(p["amount_cents"] for p in incs) == int(exact) - 12_345  # nothing lost to rounding
    assert incs[-1]["value_cents"] == int(exact) == b.dev.shown()["m"]


@pytest.mark.parametrize(("text", "rate"), [("20%", Fraction(1, 5)), ("1/5", Fraction(1, 5)), ("0.2", Fraction(1, 5)),
                                            ("14 %", Fraction(7, 50)), ("0%", 0), ("100%", 1), ("0.145", Fraction(29, 200))])
def test_rates_parse_exactly(text, rate):
    assert parse_rate(text) == rate


@pytest.mark.parametrize(("meters", "message"), [
    ([{"name": "m", "seed_cents": 1, "increment_rate": 0.2}], "valid string"),
    ([{"name": "m", "seed_cents": 1, "increment_rate": "120%"}], "between 0 and 1"),
    ([{"name": "m", "seed_cents": 1, "increment_rate": "twenty"}], "expected a percent"),
    ([{"name": "m", "seed_cents": 1, "reserve_rate": "-1/5"}], "between 0 and 1"),
    ([{"name": "m", "seed_cents": -5}], "seed_cents"),
    ([{"name": " m", "seed_cents": 5}], "name"),
    ([{"name": "m", "seed_cents": 5, "colour": "red"}], "Unexpected keyword|extra"),
    ([{"name": "m", "seed_cents": 5}, {"name": "m", "seed_cents": 6}], "unique"),
    ([], "at least one meter"),
])
def test_bad_meters_are_refused_at_load(meters, message):
    with pytest.raises(pydantic.ValidationError, match=message):
        pydantic.TypeAdapter(ProgressiveParams).validate_python({"meters": meters})


@pytest.mark.parametrize(("knobs", "message"), [
    ({"lost_increment_probability": 1.5}, "lost_increment_probability"),
    ({"power_loss_at_s": -1.0}, "power_loss_at_s"),
    ({"link_loss_duration_s": 1.0}, "needs link_loss_at_s"),
    ({"link_loss_at_s": 1.0, "link_loss_duration_s": 0.0}, "link_loss_duration_s"),
    ({"seats": 0}, "seats"),
    ({"lockout_latency_mean_s": 0.0}, "lockout_latency_mean_s"),
    ({"lockout_jitter": 0.1}, "Unexpected keyword|extra"),
])
def test_bad_knobs_are_refused_at_load(knobs, message):
    with pytest.raises(pydantic.ValidationError, match=message):
        pydantic.TypeAdapter(ProgressiveParams).validate_python(knobs)


def test_the_documented_blazing_7s_meters_validate():
    """docs/devices/progressive-system.md's TOML example is the § 633b.21(g) table and loads."""
    block = re.search(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    params = tomllib.loads(block)["devices"]["progressive"]["params"]
    p = pydantic.TypeAdapter(ProgressiveParams).validate_python(params)
    assert [(m.name, m.seed_cents, m.increment) for m in p.meters] == [
        ("mega", 1_000_000, Fraction(14, 100)), ("major", 500_000, Fraction(6, 100)), ("minor", 250_000, Fraction(4, 100))]


# ----------------------------------------------------------------------------- linked tables
def test_linked_tables_increment_the_shared_meters():
    params = ProgressiveParams(meters=BLAZING, link_id="bank-7")
    controller = ProgressiveController(BLAZING, "bank-7")
    b = Bench(params, tables=2, controller=controller)
    t1, t2 = b.tables
    assert controller.tables == [t1, t2]
    for t in (t1, t2):
        t.open_betting()
    b.wager(1, 500, t1)  # 70 cents to mega
    b.wager(4, 500, t2)
    b.wager(2, 125, t1)  # 17.5
    b.wager(5, 125, t2)
    mega = [(d, p["value_cents"]) for _, d, k, p in b.events if k == "meter_increment" and p["meter"] == "mega"]
    assert mega == [("table-1", 1_000_070), ("table-2", 1_000_140), ("table-1", 1_000_157), ("table-2", 1_000_175)]
    r1, r2 = b.run(t1.meters()), b.run(t2.meters())
    assert r1.meters == r2.meters == controller.values() == {"mega": 1_000_175, "major": 500_075, "minor": 250_050}
    assert all(i["linked"] and i["link_id"] == "bank-7" for i in b.of("device_info"))
    # a hit at one table reseeds the meter every table shows
    paid = b.run(t2.pay_meter("mega", 100, 1))
    assert paid.pay_id == 1 and paid.paid_cents == 1_000_175
    assert b.run(t1.meters()).meters["mega"] == 1_000_000  # reseeded (17.5 × 2 left no fraction of a cent)
    assert b.run(t1.pay_meter("minor", 100, 1)).pay_id == 2  # pay ids count per controller


def test_a_table_refuses_a_controller_with_other_meters():
    controller = ProgressiveController(BLAZING, "bank-7")
    env = simpy.Environment()
    with pytest.raises(ValueError, match="controller"):
        ProgressiveTableSim(env, ProgressiveParams(), np.random.default_rng(0), lambda *_: None, controller=controller)
    with pytest.raises(ValueError, match="controller"):
        ProgressiveTableSim(env, ProgressiveParams(meters=BLAZING), np.random.default_rng(0), lambda *_: None,
                            controller=controller)


# ----------------------------------------------------------------------------- payouts
def test_pay_meter_splits_equally_keeps_the_remainder_and_reseeds():
    """§ 633b.18(j): a jackpot won by several players is split equally; the odd cents stay on the
    reseeded meter, with the fraction of a cent carried."""
    meters = (MeterSpec("progressive", 1_000, 800, "1/3", "1/2"),)
    b = Bench(ProgressiveParams(meters=meters))
    b.dev.open_betting()
    b.wager(1, 10)  # +10/3 = 3.333…: shows 1003
    b.wager(2, 1)  # 1003.666…
    paid = b.run(b.dev.pay_meter("progressive", 100, 2))
    assert (paid.jackpot_cents, paid.paid_cents, paid.remainder_cents) == (1003, 501, 1)
    assert (paid.reseed_cents, paid.value_cents, paid.percent, paid.winners) == (800, 801, 100, 2)
    assert b.dev.controller.exact("progressive") == 801 + Fraction(2, 3)
    assert paid.reserve_cents == 0 and b.dev.controller.reserve("progressive") == 0  # 5.5 cents funded the reseed
    assert b.of("meter_hit") == [dataclasses.asdict(paid)]


def test_a_percentage_payout_deducts_and_does_not_reseed():
    """§ 633b.21(e)(3): a payout that is a percentage of the meter."""
    b = Bench(ProgressiveParams(meters=(MeterSpec("progressive", 10_001, 500, "20%", "10%"),)))
    b.dev.open_betting()
    b.wager(1, 100)  # 10021, reserve 10
    paid = b.run(b.dev.pay_meter("progressive", 10, 3))  # 10 % of 10021 = 1002 → 334 each
    assert (paid.jackpot_cents, paid.paid_cents, paid.remainder_cents, paid.reseed_cents) == (10_021, 334, 0, 0)
    assert paid.value_cents == 10_021 - 1_002 and paid.reserve_cents == 10


def test_the_reserve_funds_the_reseed_as_far_as_it_goes():
    b = Bench(ProgressiveParams(meters=(MeterSpec("progressive", 1_000, None, "20%", "4%"),)))
    b.dev.open_betting()
    for _ in range(300):
        b.dev.press(1, "progressive", 10_000)  # 400 cents of reserve each
    b.env.run()
    b.confirm(range(1, 301))
    paid = b.run(b.dev.pay_meter("progressive", 100, 1))
    assert paid.reserve_cents == 300 * 400 - 1_000 and paid.value_cents == 1_000


def test_a_meter_without_a_fixed_reseed_restarts_at_its_whole_reserve():
    """§ 633b.17(h) "N/A" Seed/Reseed with a reserve rate (e.g. paytable 7: 16 %, 4 %): the meter
    starts at 0 and, once paid in full, restarts at what the reserve holds, to the fraction of a
    cent; the reserve is then empty. A percentage payout leaves the reserve alone."""
    spec = MeterSpec("progressive", 0, None, "16%", "4%", reseed_from_reserve=True)
    assert spec.reseed == 0 and spec.info()["reseed_from_reserve"] is True
    b = Bench(ProgressiveParams(meters=(spec,)))
    b.dev.open_betting()
    for _ in range(3):
        b.wager(1, 130)  # 20.8 cents and 5.2 cents of reserve each
    paid = b.run(b.dev.pay_meter("progressive", 100, 1))
    assert (paid.jackpot_cents, paid.paid_cents, paid.reseed_cents, paid.reserve_cents) == (62, 62, 15, 0)
    assert b.dev.controller.exact("progressive") == Fraction(156, 10) + Fraction(4, 10)  # 15.6 reserve + 0.4 residue
    assert paid.value_cents == 16
    with pytest.raises(ValueError, match="no fixed reseed"):
        MeterSpec("progressive", 0, 100, "16%", "4%", reseed_from_reserve=True)


@pytest.mark.parametrize(("args", "message"), [(("jackpot", 100, 1), "no meter"), (("mega", 0, 1), "percent"),
                                               (("mega", 101, 1), "percent"), (("mega", 100, 0), "winners"),
                                               (("mega", 50.0, 1), "percent")])
def test_pay_meter_refuses_what_the_system_has_not(args, message):
    b = Bench()
    with pytest.raises(ValueError, match=message):
        b.dev.pay_meter(*args)
    assert b.dev.controller.pays == 0 and not b.of("meter_hit")


# ----------------------------------------------------------------------------- faults
def test_lockout_latency_knob_is_where_presses_stop_being_recognised():
    b = Bench(ProgressiveParams(lockout_latency_mean_s=0.030, lockout_latency_jitter_s=0.0))
    b.dev.open_betting()
    b.at(1.0)
    armed = b.dev.arm_probe(1, "progressive", 100, [0.0, 0.029, 0.0299, 0.030, 0.031])
    b.dev.lock_out()
    b.env.run()
    assert b.dev.lockout_latency_s == 0.030
    assert [a.value.accepted for a in armed] == [True, True, True, False, False]
    assert [a.value.reason for a in armed][3:] == ["locked_out"] * 2
    assert not b.of("meter_increment")  # presses the system recognised are pending, not wagers
    assert b.confirm([2]) == (2,)  # had the dealer confirmed one of them: it alone increments
    assert [p["press_id"] for p in b.of("meter_increment")] == [2]
    assert [(p["press_id"], p["reason"]) for p in b.of("press_void")] == [(1, "not_confirmed"), (3, "not_confirmed")]


def test_lockout_ignored_accepts_and_increments_after_no_more_bets():
    b = Bench(ProgressiveParams(meters=BLAZING, lockout_ignored=True))
    b.dev.open_betting()
    b.dev.lock_out()
    b.at(1.0)
    a = b.press(1, 500)
    assert a.accepted  # recognised after "no more bets": a croupier that confirms it feeds the meter
    b.confirm([a.press_id])
    assert b.dev.shown()["mega"] == 1_000_070


def test_lost_increments_knob_loses_increments_and_says_so_only_by_silence():
    b = Bench(ProgressiveParams(meters=BLAZING, lost_increment_probability=0.5), seed=4)
    b.dev.open_betting()
    answers = [b.press(1 + i % 7, 100) for i in range(40)]
    assert all(a.accepted for a in answers)
    done = b.confirm(a.press_id for a in answers)
    lost = b.dev.lost_increments
    assert set(done) == {a.press_id for a in answers} - set(lost) and not b.of("press_void")
    assert 5 < len(lost) < 35
    incremented = {p["press_id"] for p in b.of("meter_increment")}
    assert incremented == {a.press_id for a in answers} - set(lost)
    assert b.dev.controller.exact("mega") == 1_000_000 + Fraction(14, 100) * 100 * (40 - len(lost))
    again = Bench(ProgressiveParams(meters=BLAZING, lost_increment_probability=0.5), seed=4)
    again.dev.open_betting()
    again.confirm(again.press(1 + i % 7, 100).press_id for i in range(40))
    assert again.dev.lost_increments == lost  # the seed decides: a stub with the seed loses the same ones
    every = Bench(ProgressiveParams(lost_increment_probability=1.0))
    every.dev.open_betting()
    a = every.press(1, 100)
    assert a.accepted and every.confirm([a.press_id]) == () and not every.of("meter_increment")


def test_power_loss_resets_the_meters_and_recovery_restores_them_exactly():
    b = Bench(ProgressiveParams(meters=BLAZING, power_loss_at_s=5.0))
    b.dev.open_betting()
    for seat in range(1, 6):
        b.wager(seat, 125)
    saved = b.dev.controller.snapshot()
    assert saved[0] == MeterState("mega", 1_000_087, "1/2", 6, "1/4")
    b.at(6.0)
    [loss] = b.of("power_loss")
    assert loss == {"device_time_s": 5.0}
    assert b.run(b.dev.meters()).meters == {"mega": 1_000_000, "major": 500_000, "minor": 250_000}
    assert b.dev.controller.reserve("mega") == 0
    # the rig's recovery: the snapshot, through JSON, back exactly
    restored = tuple(MeterState(**d) for d in json.loads(json.dumps([dataclasses.asdict(s) for s in saved])))
    b.dev.controller.restore(restored)
    assert b.dev.controller.snapshot() == saved
    assert b.dev.controller.exact("mega") == 1_000_000 + Fraction(5 * 125 * 14, 100)
    b.wager(6, 125)  # the half cent was restored too: 87.5 + 17.5 = 105
    assert b.dev.shown()["mega"] == 1_000_105
    with pytest.raises(ValueError, match="cannot restore"):
        b.dev.controller.restore(saved[:1])


def test_a_lost_link_disables_progressive_wagering_and_restore_rereads_the_meters():
    """The table's link is lost 2 s after power-up for 3 s; the other linked table's link is up."""
    controller = ProgressiveController(BLAZING, "bank-1")
    b = Bench(tables=0)
    faulty = b.add(ProgressiveParams(meters=BLAZING, link_id="bank-1", link_loss_at_s=2.0, link_loss_duration_s=3.0),
                   "faulty", 0, controller)
    healthy = b.add(ProgressiveParams(meters=BLAZING, link_id="bank-1"), "healthy", 1, controller)
    for t in (faulty, healthy):
        t.open_betting()
    assert b.wager(1, 500, faulty).accepted
    b.at(2.5)
    assert b.of("link_lost") == [{"device_time_s": 2.0}]
    during = b.press(1, 500, faulty)
    assert not during.accepted and during.reason == "link_lost"
    assert b.wager(2, 500, healthy).accepted  # the controller goes on with the other table
    shown = b.run(faulty.meters())
    assert not shown.link_up and shown.meters["mega"] == 1_000_070  # the last values it had
    assert controller.values()["mega"] == 1_000_140
    faulty.lock_out()  # locked out *and* link lost: the link is the reason
    b.at(4.0)
    assert b.press(3, 500, faulty).reason == "link_lost"
    b.at(5.5)
    [restored] = b.of("link_restored")
    assert restored == {"device_time_s": 5.0, "meters": controller.values()}
    after = b.run(faulty.meters())
    assert after.link_up and after.meters == controller.values()  # re-read exactly
    assert b.press(4, 500, faulty).reason == "locked_out"
    assert [p["press_id"] for p in b.of("meter_increment", "faulty")] == [1, 1, 1]


def test_link_loss_keeps_wagering_accepts_and_loses_the_increments():
    b = Bench(ProgressiveParams(meters=BLAZING, link_loss_at_s=1.0, link_loss_keeps_wagering=True))
    b.dev.open_betting()
    b.at(1.5)
    a = b.press(1, 500)
    assert a.accepted and b.confirm([a.press_id]) == ()
    assert a.press_id in b.dev.lost_increments and not b.of("meter_increment")
    assert b.dev.controller.values()["mega"] == 1_000_000
    b.at(100.0)
    assert not b.of("link_restored") and not b.dev.link_up  # duration None: never restored
