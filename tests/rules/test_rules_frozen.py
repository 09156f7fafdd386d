"""rules.frozen.quick_init: the frozen dataclasses of the hot path keep every dataclass behaviour."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import InitVar, dataclass, field

import pytest

from devices.contracts import PressAnswer
from rules.crazy_time import Collection, Spot, Wager
from rules.frozen import quick_init


@dataclass(frozen=True)
class Plain:
    a: int
    b: str
    c: tuple


@quick_init
@dataclass(frozen=True)
class Quick:
    a: int
    b: str
    c: tuple


@quick_init
@dataclass(frozen=True)
class Checked:
    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError(f"n must be >= 0, not {self.n}")
        object.__setattr__(self, "n", self.n * 10)


def test_quick_init_builds_what_the_dataclass_builds():
    q, p = Quick(1, "x", (2,)), Plain(1, "x", (2,))
    assert vars(q) == vars(p) == {"a": 1, "b": "x", "c": (2,)}
    assert Quick(a=1, c=(2,), b="x") == q and Quick(1, "x", (3,)) != q
    assert hash(q) == hash(Quick(1, "x", (2,))) and repr(q) == "Quick(a=1, b='x', c=(2,))"
    assert list(inspect.signature(Quick).parameters) == list(inspect.signature(Plain).parameters) == ["a", "b", "c"]
    assert dataclasses.replace(q, b="y") == Quick(1, "y", (2,)) and dataclasses.asdict(q) == dataclasses.asdict(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Quick(1, "x")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick(1, "x", (2,), 4)  # type: ignore[call-arg]
    assert Quick.__init__.__qualname__ == "Quick.__init__"


def test_quick_init_calls_post_init():
    assert Checked(3).n == 30
    with pytest.raises(ValueError, match="n must be >= 0, not -1"):
        Checked(-1)


def test_the_hot_path_classes_keep_their_fields_and_checks():
    assert list(inspect.signature(PressAnswer).parameters) == [f.name for f in dataclasses.fields(PressAnswer)]
    a = PressAnswer(7, 2, "1", 500, True, 1.25, 1.5, None)
    assert (a.press_id, a.seat, a.spot, a.stake_cents, a.accepted, a.device_time_s, a.answer_time_s, a.reason) \
        == (7, 2, "1", 500, True, 1.25, 1.5, None)
    w = Wager("1-7", 2, "2", 500)
    assert w.spot is Spot("2") and w == Wager("1-7", 2, Spot("2"), 500)
    for bad in (("", 2, "2", 500), ("1-7", True, "2", 500), ("1-7", 2, "nope", 500), ("1-7", 2, "2", 0)):
        with pytest.raises(ValueError):
            Wager(*bad)
    c = Collection("1-7", 2, Spot("2"), 500)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.stake_cents = 1  # type: ignore[misc]


@pytest.mark.parametrize("make", [
    lambda: dataclass(frozen=True)(type("D", (), {"__annotations__": {"a": "int"}, "a": 1})),
    lambda: dataclass(frozen=True)(type("F", (), {"__annotations__": {"a": "list"}, "a": field(default_factory=list)})),
    lambda: dataclass(frozen=True)(type("I", (), {"__annotations__": {"a": "int", "b": InitVar[int]}})),
    lambda: dataclass(frozen=True)(type("N", (), {"__annotations__": {"a": "int"}, "a": field(init=False)})),
    lambda: dataclass(frozen=True, slots=True)(type("S", (), {"__annotations__": {"a": "int"}})),
    lambda: dataclass(type("M", (), {"__annotations__": {"a": "int"}})),
    lambda: type("X", (), {}),
], ids=["default", "factory", "initvar", "no-init", "slots", "not-frozen", "no-dataclass"])
def test_quick_init_refuses_what_it_does_not_do(make):
    with pytest.raises(TypeError, match="quick_init"):
        quick_init(make())
