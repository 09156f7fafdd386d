"""The Modbus conformance kit's clock-rate clause (``hil.conformance.modbus_common.clock_rate``) on
scripted clock samples: a later sample whose round trips a moment's load stretched (a fresh machine
left MB-clock-rate undecided at -474 ± 679 ppm over 1.4 s) is sampled again, further apart, and the
narrowest bracket is judged; a device clock off by more than the limit still fails, and a link too
slow for the longest span still says so (skip), never a pass on a bracket wider than the limit."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from hil.conformance import modbus_common
from hil.conformance.core import ClauseFailed, ClauseSkipped
from hil.conformance.modbus import ClockSample

MS = 1_000_000


class Scripted:
    """A context whose clock reads come from a script: each ``clock_samples`` call takes the next
    (wall time of the read, round trip) and reads a device clock running ``ppm`` off the wall."""

    def __init__(self, reads: list[tuple[float, float]], ppm: float, limit: float = 500.0) -> None:
        self.reads, self.ppm, self.max_drift_ppm, self.notes = list(reads), ppm, limit, {}
        self.calls = 0

    async def clock_samples(self, n: int = 8) -> list[ClockSample]:
        at_s, rtt_ms = self.reads.pop(0)
        self.calls += 1
        mid = int(at_s * 1e9)
        half = int(rtt_ms * MS / 2)
        return [ClockSample(mid - half, mid + half, int(mid * (1 + self.ppm * 1e-6)))]


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    async def sleep(_s: float) -> None:
        return None
    monkeypatch.setattr(modbus_common.asyncio, "sleep", sleep)


def run(ctx: Scripted) -> str:
    return asyncio.run(modbus_common.clock_rate(ctx))


def test_a_stretched_last_sample_is_sampled_again_and_the_clause_judged():
    # the first read at 0.3 ms, the second (1.4 s on) stretched to 1.6 ms: 679 ppm wide, past the limit;
    # the third, 2.0 s on at 0.3 ms, narrows it to 150 ppm
    ctx = Scripted([(1.0, 0.3), (2.4, 1.6), (3.0, 0.3)], ppm=-100)
    got = run(ctx)
    assert ctx.calls == 3
    assert got == "-100 ± 150 ppm (limit ±500 ppm)"
    assert ctx.notes["clock_rate_ppm"] == (-100.0, 150.0)


def test_one_quiet_second_needs_no_second_try():
    ctx = Scripted([(1.0, 0.2), (2.0, 0.2)], ppm=40)
    assert run(ctx) == "+40 ± 200 ppm (limit ±500 ppm)" and ctx.calls == 2


def test_a_fast_clock_still_fails_on_the_narrowest_bracket():
    ctx = Scripted([(1.0, 0.3), (2.4, 1.6), (3.0, 0.3)], ppm=2000)
    with pytest.raises(ClauseFailed, match=r"\+2000 ± 150 ppm"):
        run(ctx)


def test_a_link_too_slow_for_the_longest_span_is_skipped_never_passed():
    # 6.5 ms round trips (RTU through a pty): the span is capped at RATE_SPAN_MAX_S and the bracket
    # stays wider than the limit however often it samples
    reads = [(0.0, 6.5)] + [(10.0 + 0.5 * i, 6.5) for i in range(40)]
    ctx = Scripted(reads, ppm=0)
    with pytest.raises(ClauseSkipped, match="too long to judge"):
        run(ctx)
    assert ctx.calls == 2  # the first span already reached the cap: no further wait past it
