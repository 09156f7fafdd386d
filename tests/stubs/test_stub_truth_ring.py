"""A stub's ground truth for its control endpoint is bounded (docs/security.md, "Bounded by
construction"): ``DeviceHost`` keeps the newest ``TRUTH_KEPT`` records in a ring and counts the
ones it dropped, the ``truth`` answer reports that count, and the rig's ``stub_truth`` refuses an
incomplete truth (``StubTruthIncomplete``) instead of passing a part for the whole. The
``--truth-file`` keeps every record. In-process: the host's ring is filled past its bound directly,
and served by a ``ControlServer`` on a loop thread bound to 127.0.0.1 port 0."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from firmware_stubs.__main__ import ControlThread, DeviceHost
from firmware_stubs.control import TRUTH_KEPT, ControlServer, TruthRing
from hil.adapters.stub_control import StubTruthIncomplete, request, stub_truth

TOKEN = "5e" * 16


def _host(tmp_path) -> DeviceHost:
    args = argparse.Namespace(device="wagering", modbus="tcp://127.0.0.1:0", time_scale=1.0, clock_ppm=0.0,
                              register_map=None, rules=None, truth_file=str(tmp_path / "truth.jsonl"), param=[],
                              seed=0, supervisor_key_bytes=None)
    return DeviceHost(args)


@contextmanager
def _served(host: DeviceHost) -> Iterator[str]:
    """``host``'s truth and configure behind a control endpoint on its own loop thread (the serial
    stub's ``ControlThread``); its URL."""
    control = ControlThread(ControlServer(host.configure, host.truth_records.answer, token=TOKEN), "127.0.0.1", 0)
    try:
        yield f"tcp://127.0.0.1:{control.port}?token={TOKEN}"
    finally:
        control.close()


def test_the_truth_past_its_bound_says_how_many_records_were_dropped(tmp_path):
    host = _host(tmp_path)
    over = 37
    try:
        with _served(host) as url:
            for i in range(TRUTH_KEPT - 1):
                host.truth({"lockout": i, "latency_s": 0.005})
            answer = request(url, {"op": "truth"})
            assert answer["dropped"] == 0 and len(answer["truth"]) == TRUTH_KEPT - 1
            assert len(stub_truth(url)) == TRUTH_KEPT - 1  # complete: the rig takes it

            for i in range(TRUTH_KEPT - 1, TRUTH_KEPT + over):
                host.truth({"lockout": i, "latency_s": 0.005})
            answer = request(url, {"op": "truth"})
            assert answer["dropped"] == over
            assert [r["lockout"] for r in answer["truth"]] == list(range(over, TRUTH_KEPT + over))  # the newest
            with pytest.raises(StubTruthIncomplete, match=f"dropped its {over} oldest") as info:
                stub_truth(url)
            assert info.value.dropped == over and len(info.value.records) == TRUTH_KEPT

            # a fresh model (the next scenario's configure) starts a complete truth again
            request(url, {"op": "configure", "params": {}, "seed": 1})
            assert request(url, {"op": "truth"}) == {"ok": True, "truth": [], "dropped": 0}
            assert stub_truth(url) == []
    finally:
        host.close()
    # nothing recorded is lost: the truth file holds every record, the dropped ones too
    lines = (tmp_path / "truth.jsonl").read_text().splitlines()
    assert [json.loads(line)["lockout"] for line in lines] == list(range(TRUTH_KEPT + over))


def test_the_ring_counts_only_what_it_drops():
    ring = TruthRing(kept=3)
    for i in range(3):
        ring.append({"i": i})
    assert ring.answer() == {"truth": [{"i": 0}, {"i": 1}, {"i": 2}], "dropped": 0}
    ring.append({"i": 3})
    ring.append({"i": 4})
    assert ring.answer() == {"truth": [{"i": 2}, {"i": 3}, {"i": 4}], "dropped": 2}
    ring.clear()
    assert ring.answer() == {"truth": [], "dropped": 0} and len(ring) == 0


def test_a_plain_list_truth_is_answered_complete():
    """A ``ControlServer`` given a list-returning truth (as before the ring) answers ``dropped`` 0."""
    server = ControlServer(lambda *_: {}, lambda: [{"a": 1}], token=TOKEN)
    assert server.handle({"op": "truth"}) == {"ok": True, "truth": [{"a": 1}], "dropped": 0}
