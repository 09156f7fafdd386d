"""The supervisor key and the stake limits in the device models (devices.supervisor,
devices.wagering, devices.progressive): issue 13's attacks on the SimPy models — refused, recorded,
nothing changed — and the key's own rules (constant-time judge, lock per client, its expiry)."""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from devices.progressive import ProgressiveParams, ProgressiveTableSim
from devices.supervisor import LOCK_AFTER, LOCK_S, SupervisorGuard, SupervisorRefused, new_key, parse_key
from devices.wagering import DEFAULT_MAX_STAKE_CENTS, WageringParams, WageringSim

KEY = bytes(range(1, 17))
WRONG = bytes(range(2, 18))
HUGE = 2**32 - 1


def _bench(cls=WageringSim, params=None, key=KEY):
    env = simpy.Environment()
    events = []
    params = params or (ProgressiveParams() if cls is ProgressiveTableSim else WageringParams())
    dev = cls(env, params, np.random.default_rng(0), lambda d, k, p: events.append((k, p)), supervisor_key=key)
    return env, dev, events


def _kinds(events, kind):
    return [p for k, p in events if k == kind]


def test_a_wrong_key_does_not_reopen_a_locked_round_and_is_recorded():
    env, dev, events = _bench()
    dev.open_betting(KEY)
    env.run(until=1.0)
    dev.lock_out()
    env.run(until=1.1)
    with pytest.raises(SupervisorRefused) as err:
        dev.open_betting(WRONG)
    with pytest.raises(SupervisorRefused):
        dev.open_betting()  # no key at all
    assert err.value.reason == "wrong_key" and err.value.command == "round_open"
    late = dev.press(1, "5", 100)
    env.run(until=1.2)
    assert not late.value.accepted and late.value.reason == "locked_out"
    assert [(r["command"], r["reason"]) for r in _kinds(events, "command_refused")] == [("round_open", "wrong_key")] * 2
    assert len(_kinds(events, "betting_open")) == 1  # only the dealer's
    dev.open_betting(KEY)  # the dealer's next round
    again = dev.press(1, "5", 100)
    env.run(until=1.3)
    assert again.value.accepted


def test_a_model_without_a_key_guards_nothing():
    """The rig's in-process SimPy bench: no other client exists."""
    env, dev, events = _bench(key=None)
    dev.open_betting()
    dev.lock_out()
    dev.open_betting()
    assert not _kinds(events, "command_refused") and len(_kinds(events, "betting_open")) == 2


@pytest.mark.parametrize("stake", [0, -5, DEFAULT_MAX_STAKE_CENTS + 1, HUGE])
def test_a_stake_outside_the_limits_is_a_recorded_rejection(stake):
    env, dev, events = _bench()
    dev.open_betting(KEY)
    ev = dev.press(1, "5", stake)
    env.run(until=1.0)
    assert not ev.value.accepted and ev.value.reason == "invalid_stake"
    assert _kinds(events, "press")[0]["reason"] == "invalid_stake"
    assert dev.stake_deviation(stake) is not None and dev.stake_deviation(DEFAULT_MAX_STAKE_CENTS) is None


def test_the_four_attacks_leave_the_progressive_meter_unchanged():
    """A 4,294,967,295 ¢ press is rejected and never pending (its confirmation refused, the meter
    unchanged); pay, confirm and the win lights refuse a wrong key; with the key they work."""
    env, dev, events = _bench(ProgressiveTableSim)
    seed = dev.controller.values()["progressive"]
    dev.open_betting(KEY)
    huge = dev.press(1, "progressive", HUGE)
    ok = dev.press(2, "progressive", 100)
    env.run(until=0.5)
    assert huge.value.reason == "invalid_stake" and ok.value.accepted
    dev.lock_out()
    for attack in (lambda: dev.confirm_wagers([huge.value.press_id, ok.value.press_id], WRONG),
                   lambda: dev.pay_meter("progressive", 100, 1, WRONG),
                   lambda: [dev.light_win(s, True, WRONG) for s in range(1, 8)]):
        with pytest.raises(SupervisorRefused):
            attack()
    env.run(until=0.6)
    assert dev.controller.values()["progressive"] == seed and not any(dev.lights) and dev.controller.pays == 0
    assert not _kinds(events, "meter_increment") and not _kinds(events, "meter_hit")
    # the dealer, with the key: the huge press was never pending (refused), the other increments
    done = dev.confirm_wagers([huge.value.press_id, ok.value.press_id], KEY)
    env.run(until=0.7)
    assert done.value == (ok.value.press_id,)
    assert [r["press_id"] for r in _kinds(events, "confirm_refused")] == [huge.value.press_id]
    assert dev.controller.values()["progressive"] == seed + 20  # 20 % of 100 cents
    dev.light_win(3, True, KEY)
    paid = dev.pay_meter("progressive", 100, 1, KEY)
    env.run(until=0.8)
    assert dev.lights[2] and paid.value.paid_cents == seed + 20


def test_the_guard_locks_one_client_after_wrong_keys_and_unlocks_after_lock_s():
    t = [0.0]
    peer = ["10.0.0.9:5000"]
    refusals = []
    g = SupervisorGuard(KEY, lambda: t[0], refusals.append, peer=lambda: peer[0])
    for _ in range(LOCK_AFTER):
        with pytest.raises(SupervisorRefused, match="wrong supervisor key"):
            g.check("pay", WRONG)
    with pytest.raises(SupervisorRefused) as locked:
        g.check("pay", KEY)  # the right key too, from the locked client
    assert locked.value.reason == "locked" and g.locked_until_s("10.0.0.9:5000") == LOCK_S
    peer[0] = "127.0.0.1:40000"
    g.check("pay", KEY)  # another client (the rig) is not locked out
    peer[0] = "10.0.0.9:5000"
    t[0] = LOCK_S + 0.001
    g.check("pay", KEY)  # the lock ran out
    assert g.refusals == LOCK_AFTER + 1 == len(refusals)
    assert [r.reason for r in refusals] == ["wrong_key"] * LOCK_AFTER + ["locked"]
    with pytest.raises(SupervisorRefused):
        g.check("pay", KEY[:8])  # a short key is no key


def test_keys_are_parsed_strictly():
    assert parse_key(KEY.hex().upper()) == KEY and len(new_key()) == 16 and new_key() != new_key()
    for bad, message in (("abc", "hex digits"), ("00" * 16, "all zero"), ("11" * 15, "32 hex digits")):
        with pytest.raises(ValueError, match=message):
            parse_key(bad)


def test_stake_limits_are_validated():
    with pytest.raises(ValueError, match="outside the table's limits"):
        WageringParams(button_stake_cents=500, max_stake_cents=400)
    with pytest.raises(ValueError, match="min_stake_cents <= max_stake_cents"):
        ProgressiveParams(min_stake_cents=10, max_stake_cents=5, button_stake_cents=10)
    assert ProgressiveParams(max_stake_cents=2500).wagering.max_stake_cents == 2500
