"""Clauses, their verdicts and the report (``croupier conformance``; docs/conformance.md).

A *clause* is one rule of a device's wire contract, with an id (``MW-spin-start``), a title and
the docs/wire page section it checks (``modbus-money-wheel.md#spin-state-transitions``). Running
a clause gives a ``Verdict``: ``pass``, ``fail`` (what was expected, what was seen) or ``skip``
(why it could not be judged on this device: e.g. a wagering device without the injection
feature has no armed probe to time its lock-out with). A suite is the clauses of one device kind
in the order they run; evidence one step gathers (a spin, a lock-out) is shared by the clauses
that judge it (``Evidence``), so a spin is made once.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["pass", "fail", "skip"]


class ClauseFailed(Exception):
    """Raised inside a clause: the clause fails with this message."""


class ClauseSkipped(Exception):
    """Raised inside a clause: the clause cannot be judged on this device (the message says why)."""


class Unreachable(Exception):
    """The device does not answer at all: nothing can be judged (exit 2)."""


def expect(ok: bool, message: str) -> None:
    """Fail the running clause with ``message`` unless ``ok``."""
    if not ok:
        raise ClauseFailed(message)


@dataclass(frozen=True)
class Clause:
    id: str
    title: str
    cites: str  # docs/wire page and section, e.g. "modbus-money-wheel.md#spin-state-transitions"
    run: Callable[[Any], Awaitable[str | None]]  # returns what was seen (pass) or raises


@dataclass(frozen=True)
class Verdict:
    id: str
    title: str
    cites: str
    status: Status
    detail: str
    duration_s: float

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "cites": f"docs/wire/{self.cites}", "status": self.status,
                "detail": self.detail, "duration_s": round(self.duration_s, 3)}


@dataclass
class Report:
    device: str
    url: str
    register_map: str | None
    verdicts: list[Verdict] = field(default_factory=list)
    error: str | None = None  # unreachable / bad input: nothing judged
    #: figures the clauses measured, with their brackets: the clock rate (ppm, ± ppm), the lock-out
    #: boundary ((last accepted, first rejected] µs after the command, device clock) …
    measured: dict[str, Any] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(v.status == s for v in self.verdicts) for s in ("pass", "fail", "skip")}

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return 2
        return 1 if any(v.status == "fail" for v in self.verdicts) else 0

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "url": self.url, "register_map": self.register_map,
                "result": "error" if self.error else ("fail" if self.exit_code else "pass"),
                "error": self.error, "counts": self.counts, "measured": self.measured,
                "clauses": [v.as_dict() for v in self.verdicts]}


async def run_clauses(clauses: list[Clause], ctx: Any, report: Report) -> None:
    """Each clause in order; an ``Unreachable`` (the device stopped answering) ends the run, the
    clauses not run are skipped saying so."""
    for i, c in enumerate(clauses):
        t0 = time.perf_counter()
        try:
            seen = await c.run(ctx)
            status, detail = "pass", seen or ""
        except ClauseFailed as exc:
            status, detail = "fail", str(exc)
        except ClauseSkipped as exc:
            status, detail = "skip", str(exc)
        except (ValueError, KeyError, TypeError, IndexError, ArithmeticError) as exc:
            # what the device answered could not be judged at all (a value no clause expected):
            # failed, saying so, never a traceback that hides the other clauses
            status, detail = "fail", f"the answer could not be judged: {type(exc).__name__}: {exc}"
        except Unreachable as exc:
            report.verdicts.append(Verdict(c.id, c.title, c.cites, "fail", f"the device stopped answering: {exc}",
                                           time.perf_counter() - t0))
            for rest in clauses[i + 1:]:
                report.verdicts.append(Verdict(rest.id, rest.title, rest.cites, "skip",
                                               "not run: the device stopped answering", 0.0))
            return
        report.verdicts.append(Verdict(c.id, c.title, c.cites, status, detail, time.perf_counter() - t0))


class Evidence:
    """Steps run once and shared by the clauses judging them: ``await ev.get("spin", coro_fn)``.
    A step that failed fails every clause that needs it, with the step's message."""

    def __init__(self) -> None:
        self._done: dict[str, Any] = {}
        self._failed: dict[str, BaseException] = {}

    async def get(self, name: str, make: Callable[[], Awaitable[Any]]) -> Any:
        if name in self._failed:
            exc = self._failed[name]
            raise type(exc)(str(exc))
        if name not in self._done:
            try:
                self._done[name] = await make()
            except (ClauseFailed, ClauseSkipped) as exc:
                self._failed[name] = exc
                raise
        return self._done[name]
