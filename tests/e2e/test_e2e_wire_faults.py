"""Faults on the wire, end to end: ``croupier run`` over Modbus TCP against the three firmware
stubs in their own processes, with a fault-injecting TCP proxy (a thread of this test) between
the rig and the money-wheel stub.

docs/wire/README.md, "Faults on the wire": a timeout, an exception response or a disconnection
is recorded as ``<device>/wire_fault`` with its kind; the link reconnects (``wire_reconnected``);
a command lost to a fault leaves its result untriggered, the croupier's timeout voids the spin,
and a void spin is respun — never settled. Each test checks this from the trace alone
(``TraceReader``), and that every check (settlement included) still passes.

The proxy triggers on the wheel's spin command (every FC16 write the rig sends the wheel is one,
docs/wire/modbus-money-wheel.md), so the fault lands mid-round, after betting closed.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from typer.testing import CliRunner

from hil.cli import app
from hil.trace import TraceReader

#: simulated seconds per wall second, stubs and bench alike (20: the Top Slot's ±100 ms start
#: tolerance is then 5 ms of wall time, which a loaded 2-core machine keeps)
SCALE = 20
ROUNDS = 3
FC_WRITE_REGISTERS = 16
DEVICE_BUSY = 6
EVIDENCE = "CT-690.2c-result-evidence"
ROLES = {"wheel": "money-wheel", "top_slot": "top-slot", "wagering": "wagering"}

runner = CliRunner()


# ----------------------------------------------------------------------------- the proxy
@dataclass
class Fault:
    """What to do to the ``on_write``-th FC16 request (1-based) and for how long (wall s)."""

    mode: str  # "disconnect" | "stall" | "refuse"
    on_write: int
    hold_s: float = 0.0  # disconnect: refuse connections this long; stall: drop bytes this long
    fired: threading.Event = field(default_factory=threading.Event)


class ModbusFaultProxy:
    """127.0.0.1:0 → upstream, forwarding Modbus TCP frames whole, on one thread (select).

    * ``disconnect``: the spin request reaches the device, then every connection is closed before
      the answer comes back, and the port refuses connections for ``hold_s`` (the listener is
      closed, as a device that is away; then it listens again on the same port);
    * ``stall``: from the spin request on, nothing is forwarded either way for ``hold_s`` (the
      link is up but dead: the rig's requests time out); the device never sees the request;
    * ``refuse``: the spin request is answered with exception DEVICE_BUSY by the "device" (the
      request is not forwarded: a refusing device changes nothing).
    """

    def __init__(self, upstream: str, fault: Fault) -> None:
        host, port = upstream.removeprefix("tcp://").rsplit(":", 1)
        self.upstream = (host, int(port))
        self.fault = fault
        self.writes = 0
        self._listener: socket.socket | None = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = self._listener.getsockname()[1]
        self.url = f"tcp://127.0.0.1:{self.port}"
        self._pairs: dict[socket.socket, socket.socket] = {}  # both directions
        self._buf: dict[socket.socket, bytes] = {}  # client → proxy bytes not yet framed
        self._clients: set[socket.socket] = set()
        self._refuse_until = 0.0
        self._stall_until = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="modbus-fault-proxy", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for s in list(self._pairs):
            s.close()
        self._pairs.clear()
        if self._listener is not None:
            self._listener.close()

    # ------------------------------------------------------------------ proxy thread
    def _now(self) -> float:
        import time

        return time.monotonic()

    def _drop(self, s: socket.socket) -> None:
        peer = self._pairs.pop(s, None)
        self._pairs.pop(peer, None) if peer is not None else None
        for x in (s, peer):
            if x is not None:
                self._clients.discard(x)
                self._buf.pop(x, None)
                x.close()

    def _drop_all(self) -> None:
        for s in list(self._clients):
            self._drop(s)

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        try:
            up = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            client.close()
            return
        client.setblocking(True)
        up.setblocking(True)
        self._pairs[client], self._pairs[up] = up, client
        self._clients.add(client)
        self._buf[client] = b""

    def _from_client(self, client: socket.socket, data: bytes) -> None:
        """Forward whole request frames (MBAP length), applying the fault to its trigger."""
        buf = self._buf[client] + data
        while len(buf) >= 8:
            length = struct.unpack(">H", buf[4:6])[0]
            if len(buf) < 6 + length:
                break
            frame, buf = buf[:6 + length], buf[6 + length:]
            if self._now() < self._stall_until:
                continue  # lost on a dead link
            if frame[7] == FC_WRITE_REGISTERS:
                self.writes += 1
                if self.writes == self.fault.on_write:
                    self.fault.fired.set()
                    if self.fault.mode == "disconnect":
                        self._pairs[client].sendall(frame)  # the device gets the push...
                        self._refuse_until = self._now() + self.fault.hold_s
                        self._listener.close()  # the device is away: connections are refused
                        self._listener = None
                        self._drop_all()  # ...and the answer never comes back
                        return
                    if self.fault.mode == "stall":
                        self._stall_until = self._now() + self.fault.hold_s
                        continue
                    if self.fault.mode == "refuse":
                        pdu = bytes([frame[7] | 0x80, DEVICE_BUSY])
                        client.sendall(frame[:4] + struct.pack(">H", 1 + len(pdu)) + frame[6:7] + pdu)
                        continue
            self._pairs[client].sendall(frame)
        self._buf[client] = buf

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._listener is None and self._now() >= self._refuse_until:
                self._listener = socket.create_server(("127.0.0.1", self.port))  # back
                self._listener.setblocking(False)
            socks = [*([self._listener] if self._listener is not None else []), *self._pairs]
            readable, _, _ = select.select(socks, [], [], 0.02)
            for s in readable:
                if s is self._listener:
                    self._accept()
                    continue
                if s not in self._pairs:
                    continue  # dropped meanwhile
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self._drop(s if s in self._clients else self._pairs[s])
                elif s in self._clients:
                    self._from_client(s, data)
                elif self._now() >= self._stall_until:
                    try:
                        self._pairs[s].sendall(data)
                    except OSError:
                        self._drop(self._pairs[s])


@contextmanager
def proxy(upstream: str, fault: Fault):
    p = ModbusFaultProxy(upstream, fault)
    try:
        yield p
    finally:
        p.close()


# ----------------------------------------------------------------------------- the run
SCENARIO = """\
schema: 1
name: wire-fault
description: a few healthy rounds while the wheel's link misbehaves once
game: crazy-time
seed: 4242
rounds: {rounds}
players: {{count: 3, wagers_per_player: [1, 2], stake_cents: [100, 1000], late_press_probability: 0}}
lockout: {{budget_s: 0.010, probe: {{presses: 4, step_s: 0.0005}}}}
croupier:
  betting_window_s: 5.0
  spin_delay_s: 1.0
  respin_limit: 3
  spin_timeout_s: 60.0
  top_slot_timeout_s: 60.0
  between_rounds_s: 2.0
expect:
  # A push whose wheel telemetry was lost on the wire (no start or rest report) fails § 690.2(c)'s
  # check (every push must have its evidence) — whether it is lost depends on when the fault hit;
  # ``evidence_gaps_only_in_void_spins`` pins where any gap may be.
  fail: []
"""


def run_with_fault(stub_control, tmp_path: Path, fault: Fault) -> tuple[dict, Path]:
    """``croupier run`` of SCENARIO with the wheel behind the proxy; (scenario report, trace)."""
    scenario = tmp_path / "wire_fault.yaml"
    scenario.write_text(SCENARIO.format(rounds=ROUNDS))
    with stub_control(ROLES, "modbus", SCALE) as urls:
        with proxy(urls["wheel"][0], fault) as p:
            lines = ["schema = 1", 'name = "stubs-with-a-faulty-wheel-link"', f"time_scale = {SCALE}"]
            for role, (url, control) in urls.items():
                lines += [f"[devices.{role}]", 'kind = "modbus"', f'url = "{p.url if role == "wheel" else url}"',
                          f'control = "{control}"', "timeout_s = 0.25", "poll_period_s = 0.002"]
            bench = tmp_path / "bench.toml"
            bench.write_text("\n".join(lines) + "\n")
            result = runner.invoke(app, ["run", str(scenario), "--bench", str(bench), "--out", str(tmp_path / "out")])
    assert fault.fired.is_set(), f"the proxy never saw spin command #{fault.on_write}"
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (sc,) = report["scenarios"]
    assert result.exit_code in (0, 1, 3), result.output + (sc["error"] or "")  # 1: see SCENARIO's expect
    return sc, tmp_path / "out" / sc["trace"]


def rounds_of(trace: Path) -> dict[int, list]:
    with TraceReader(trace) as r:
        return {n: evs for n, evs in r.rounds()}


def assert_sound(sc: dict, rounds: dict[int, list]) -> None:
    """No crash, every round played, every check passing, and each settled round settled on a
    spin the rig saw whole: its wheel ``spin_start`` and ``spin_stop`` (same spin id), the
    croupier's ``spin_valid`` of that result, and the round's result that spot."""
    assert sc["error"] is None
    assert sc["stats"]["rounds"] == ROUNDS
    failed = {c["id"] for c in sc["checks"] if c["verdict"] == "fail"}
    assert failed <= {EVIDENCE, "EVIDENCE-link"}
    # a run on a faulty link is never MET silently: its own evidence check fails on the wire faults
    wire_faults = sum(1 for evs in rounds.values() for e in evs if e.kind == "wire_fault")
    assert ("EVIDENCE-link" in failed) == (wire_faults > 0), wire_faults
    settlement = [c for c in sc["checks"] if c["id"] == "CT-690.2e-settlement"]
    assert settlement and settlement[0]["verdict"] == "pass"
    assert sorted(n for n in rounds if n > 0) == list(range(1, ROUNDS + 1))
    for n in range(1, ROUNDS + 1):
        evs = rounds[n]
        (end,) = [e for e in evs if (e.device, e.kind) == ("croupier", "round_end")]
        if end.payload["void"]:
            assert not [e for e in evs if e.kind in ("pay", "collect")], f"round {n}: void but settled"
            continue
        valid = [e for e in evs if (e.device, e.kind) == ("croupier", "spin_valid")]
        assert len(valid) == 1, f"round {n}: {len(valid)} valid spins"
        last_cmd = max(e.seq for e in evs if e.kind == "spin_command" and e.seq < valid[0].seq)
        starts = [e for e in evs if (e.device, e.kind) == ("wheel", "spin_start") and last_cmd < e.seq < valid[0].seq]
        stops = [e for e in evs if (e.device, e.kind) == ("wheel", "spin_stop") and last_cmd < e.seq < valid[0].seq]
        assert len(starts) == 1 and len(stops) == 1, f"round {n}: settled spin seen partly: {starts} {stops}"
        assert starts[0].payload["spin_id"] == stops[0].payload["spin_id"]
        assert stops[0].payload["section_index"] == valid[0].payload["section_index"]
        assert end.payload["result"] == stops[0].payload["spot"] == valid[0].payload["spot"]


def evidence_gaps_only_in_void_spins(sc: dict, rounds: dict[int, list], n: int) -> None:
    """§ 690.2(c)'s check may flag the pushes whose telemetry the fault lost — and nothing else:
    each finding is in round ``n`` and points at an attempt that was voided (its push, or its void)."""
    (check,) = [c for c in sc["checks"] if c["id"] == EVIDENCE]
    assert check["verdict"] == "pass" or check["findings"]
    by_seq = {e.seq: e for e in rounds[n]}
    voided = {e.payload["attempt"] for e in rounds[n] if e.kind == "spin_void"}
    for f in check["findings"]:
        assert f["round"] == n, f
        ev = by_seq[f["seq"]]
        assert ev.kind in ("spin_command", "spin_void") and ev.payload["attempt"] in voided, (f, ev)


def faults_of(rounds: dict[int, list], kind: str) -> list:
    return [e for evs in rounds.values() for e in evs
            if (e.device, e.kind) == ("wheel", "wire_fault") and e.payload["kind"] == kind]


def voided_then_respun(rounds: dict[int, list], n: int) -> None:
    """Round ``n``'s first spin was voided for want of the wheel's result, and respun."""
    evs = rounds[n]
    voids = [e.payload for e in evs if (e.device, e.kind) == ("croupier", "spin_void")]
    assert voids and voids[0] == {"attempt": 1, "reason": "no_wheel_result", "respin": True}, voids
    attempts = [e.payload["attempt"] for e in evs if e.kind == "spin_command"]
    assert attempts[:2] == [1, 2], attempts


# ----------------------------------------------------------------------------- the tests
def test_wheel_disconnects_mid_round_and_comes_back(stub_control, tmp_path):
    # Round 2's push reaches the wheel, then the link drops; the wheel is away for 0.5 s wall
    # (10 s simulated: most of its spin) and comes back.
    sc, trace = run_with_fault(stub_control, tmp_path, Fault("disconnect", on_write=2, hold_s=0.5))
    rounds = rounds_of(trace)
    assert faults_of(rounds, "disconnected"), "no disconnection recorded"
    reconnected = [e for evs in rounds.values() for e in evs if (e.device, e.kind) == ("wheel", "wire_reconnected")]
    assert reconnected
    faulted = {e.round for e in faults_of(rounds, "disconnected")}
    assert min(faulted) == 2
    voided_then_respun(rounds, 2)
    evidence_gaps_only_in_void_spins(sc, rounds, 2)
    assert_sound(sc, rounds)


def test_stalled_link_times_out_and_the_spin_is_voided_and_respun(stub_control, tmp_path):
    # From round 2's push on, nothing crosses the wheel's link for 1.5 s wall (30 s simulated):
    # the push is lost, the rig's requests time out (timeout_s = 0.25).
    sc, trace = run_with_fault(stub_control, tmp_path, Fault("stall", on_write=2, hold_s=1.5))
    rounds = rounds_of(trace)
    timeouts = faults_of(rounds, "timeout")
    assert timeouts, "no timeout recorded"
    assert min(e.round for e in timeouts) == 2
    voided_then_respun(rounds, 2)
    # voided after the croupier's spin timeout (60 s simulated) from the push, not before
    evs = rounds[2]
    cmd = next(e for e in evs if e.kind == "spin_command")
    void = next(e for e in evs if e.kind == "spin_void")
    assert void.sim_time - cmd.sim_time >= 60.0 - 1e-6
    evidence_gaps_only_in_void_spins(sc, rounds, 2)
    assert_sound(sc, rounds)


def test_refused_push_is_an_exception_response_and_the_spin_is_respun(stub_control, tmp_path):
    # Round 2's push is answered DEVICE_BUSY: nothing happened on the wheel.
    sc, trace = run_with_fault(stub_control, tmp_path, Fault("refuse", on_write=2))
    rounds = rounds_of(trace)
    refused = faults_of(rounds, "exception_response")
    assert len(refused) == 1 and refused[0].round == 2, refused
    assert "write holding" in refused[0].payload["detail"]
    voided_then_respun(rounds, 2)
    evidence_gaps_only_in_void_spins(sc, rounds, 2)
    assert_sound(sc, rounds)
