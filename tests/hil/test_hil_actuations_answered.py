"""The croupier takes a round's wagers (the attribution, taken once) only when every actuation has
reported and its entry is in the device's press log, or its answer could have come
(``TableCroupier._actuations_answered``): a probe press the device answered after the croupier
decided was called lost, and a lost actuation fails EVIDENCE-link. Exact simulated instants."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import simpy

from devices.contracts import Actuation, PressAnswer
from hil.controller import ANSWER_WAIT_STEP_S, ANSWER_WAIT_WALL_S, TableCroupier


def croupier(env, *, answer_delay_s: float = 0.002, due: int = 0, uncertainty_s: float = 0.0) -> TableCroupier:
    c = object.__new__(TableCroupier)
    c.env = env
    c.actuator = SimpleNamespace(match_window_s=0.010)
    c.wagering = SimpleNamespace(params=SimpleNamespace(answer_delay_s=answer_delay_s),
                                 clock=SimpleNamespace(uncertainty_s=uncertainty_s))
    c.sc = SimpleNamespace(croupier=SimpleNamespace(bonus_timeout_s=5.0))
    c.answers, c.actuations, c._actuations_due = [], [], due
    return c


def act(aid: int, lo: float, hi: float, ok: bool = True) -> Actuation:
    return Actuation(aid, 7, "5", aid, "probe", lo, hi, ok=ok)


def answer(pid: int, t: float) -> PressAnswer:
    return PressAnswer(pid, 7, "5", 100, False, t, t + 0.002, "locked_out")


def waited(env, c) -> float:
    start = env.now
    env.run(env.process(c._actuations_answered()))
    return round(env.now - start, 9)


def test_nothing_to_wait_for_without_an_actuator_or_once_every_actuation_matched():
    env = simpy.Environment()
    c = croupier(env)
    c.actuator = None
    assert waited(env, c) == 0.0
    c = croupier(env)
    c.actuations, c.answers = [act(1, 0.100, 0.101)], [answer(1, 0.1005)]
    assert waited(env, c) == 0.0
    c.actuations.append(act(2, 0.200, 0.201, ok=False))  # a failed actuation pressed nothing: not awaited
    assert waited(env, c) == 0.0


def test_an_actuation_still_to_come_and_its_late_answer_are_waited_for():
    env = simpy.Environment()
    c = croupier(env, due=1, answer_delay_s=0.2)
    c.actuations, c.answers = [act(1, 0.0, 0.001)], [answer(1, 0.0005)]

    def device():  # the last probe press closes at 0.45 s; its answer is read 0.095 s later
        yield env.timeout(0.45)
        c._actuations_due -= 1
        c.actuations.append(act(2, 0.449, 0.451))
        yield env.timeout(0.095)
        c.answers.append(answer(2, 0.4502))

    env.process(device())
    assert waited(env, c) == pytest.approx(0.55)  # the first 10 ms step after the answer arrived
    assert ANSWER_WAIT_STEP_S == 0.01


def test_an_answer_that_never_comes_is_given_up_after_its_allowance():
    env = simpy.Environment()
    c = croupier(env, answer_delay_s=0.002, uncertainty_s=0.003)
    c.actuations = [act(1, 0.0, 0.001), act(2, 0.300, 0.302)]
    c.answers = [answer(1, 0.0005)]
    # the last closing's end 0.302 + u 0.003 + window 0.010 + the device's answer delay 0.002
    assert waited(env, c) == pytest.approx(0.317)


class ScaledEnvironment(simpy.Environment):
    """A real bench's environment as the croupier sees it (its ``time_scale``), without the wall clock."""

    time_scale = 40.0


def test_on_a_real_bench_the_allowance_is_wall_time_at_the_time_scale():
    env = ScaledEnvironment()
    c = croupier(env)
    c.sc.croupier.bonus_timeout_s = 60.0
    c.actuations = [act(1, 0.0, 0.001)]
    # 0.5 s of wall clock at 40x: 20 s simulated past the closing and its window
    assert waited(env, c) == pytest.approx(0.001 + 0.010 + ANSWER_WAIT_WALL_S * 40.0)


def test_an_actuator_that_never_reports_is_waited_for_at_most_the_bonus_timeout():
    env = simpy.Environment()
    c = croupier(env, due=1)
    assert waited(env, c) == pytest.approx(5.0)
