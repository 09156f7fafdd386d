"""Real-device path timing, over Modbus TCP on loopback against the wagering firmware stub running
in ANOTHER process (python -m firmware_stubs), measured side by side in one run:

(a) read round trip: a bare pymodbus ``read_input_registers`` loop vs the rig's adapter read
    (``ModbusLink.read``, as the adapter's poller does it on the I/O loop) vs the same read
    requested from the simulation thread (adds the hop to the I/O thread) — same stub, same run;
(b) lock-out latency measured vs the stub's injected truth, for several injected latencies (with
    jitter): per round the rig arms its press actuator around the lock-out (the controller's
    boundary search plus the sentinel at the budget), sends the lock-out, and brackets the
    latency between the last accepted and the first rejected press; the truth is the latency
    the stub drew for that lock-out (its --truth-file). |error| = |bracket midpoint − truth|.

The last line is one JSON object with at least ``adapter_over_bare_p50``,
``lockout_error_p99_us`` and ``lockout_bracket_p99_us``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_stubs.launch import launch  # noqa: E402
from hil.adapters.modbus_wagering import ModbusWageringDevice  # noqa: E402
from hil.clock import WallClockEnvironment  # noqa: E402
from hil.lockout import BoundarySearch  # noqa: E402
from hil.transport.ioloop import IoLoop  # noqa: E402
from hil.transport.modbus import ModbusLink  # noqa: E402
from hil.wire.registers import default_map  # noqa: E402

LATENCIES_S = (0.002, 0.005, 0.010, 0.020)
JITTER_S = 0.0005
ROUNDS = 150
STEP_S = 0.00025  # the boundary search's resolution
PRESSES = 15  # + the sentinel = the 16 slots of the armed probe
CONVERGE = 5  # rounds the search takes to settle, reported apart


@contextmanager
def stub(*args: str):
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", *args) as s:
        yield s.url


def pct(a, q) -> float:
    return float(np.percentile(np.asarray(a, dtype=float), q))


def read_round_trips(url: str, n: int = 2000) -> dict:
    from pymodbus.client import AsyncModbusTcpClient

    host, port = url.removeprefix("tcp://").split(":")
    rmap = default_map("wagering")
    p = rmap.point("press_count")

    async def bare() -> list[int]:
        c = AsyncModbusTcpClient(host, port=int(port))
        await c.connect()
        out = []
        for _ in range(n):
            t = time.perf_counter_ns()
            await c.read_input_registers(p.address, count=p.span, device_id=1)
            out.append(time.perf_counter_ns() - t)
        c.close()
        return out

    async def adapter(link: ModbusLink) -> list[int]:
        out = []
        for _ in range(n):
            t = time.perf_counter_ns()
            await link.read(p.table, p.address, p.span)
            out.append(time.perf_counter_ns() - t)
        return out

    with IoLoop() as io:
        link = ModbusLink(url)
        io.run(link.connect())
        bare_ns = io.run(bare())
        adapter_ns = io.run(adapter(link))
        hop_ns = []
        for _ in range(n // 4):
            t = time.perf_counter_ns()
            io.run(link.read(p.table, p.address, p.span))
            hop_ns.append(time.perf_counter_ns() - t)
        link.close()
    return {"bare_read_p50_us": pct(bare_ns, 50) / 1e3, "bare_read_p99_us": pct(bare_ns, 99) / 1e3,
            "adapter_read_p50_us": pct(adapter_ns, 50) / 1e3, "adapter_read_p99_us": pct(adapter_ns, 99) / 1e3,
            "adapter_from_sim_thread_p50_us": pct(hop_ns, 50) / 1e3,
            "adapter_over_bare_p50": pct(adapter_ns, 50) / pct(bare_ns, 50),
            "adapter_from_sim_thread_over_bare_p50": pct(hop_ns, 50) / pct(bare_ns, 50)}


def lockout_rounds(latency_s: float, rounds: int) -> dict:
    budget = 2 * max(LATENCIES_S)
    with tempfile.TemporaryDirectory() as d, stub("--param", f"lockout_latency_mean_s={latency_s}",
                                                 "--param", f"lockout_latency_jitter_s={JITTER_S}",
                                                 "--truth-file", f"{d}/truth.jsonl", "--seed", "1") as url, IoLoop() as io:
        env = WallClockEnvironment()
        events: list = []
        dev = ModbusWageringDevice(env, io, url, 1, default_map("wagering"),
                                   lambda _d, k, p: events.append((k, p)), "wagering", 0.5, 0.002)
        search = BoundarySearch.for_budget(budget, STEP_S, PRESSES)
        rng = np.random.default_rng(7)
        brackets: list[tuple[float, float] | None] = []
        sends: list[float] = []
        try:
            def run():
                for _ in range(rounds):
                    dev.open_betting()
                    yield env.timeout(0.005)
                    offsets = sorted(search.offsets(float(rng.random())) + [budget])
                    armed = dev.arm_probe(7, "1", 100, offsets)
                    yield env.timeout(0.003)
                    sends.append(env.now)
                    dev.lock_out()
                    yield env.all_of(armed) | env.timeout(1.0)
                    answers = [(o, ev.value.accepted) for o, ev in zip(offsets, armed) if ev.triggered]
                    brackets.append(search.update(answers) if len(answers) == len(offsets) else None)
            env.run(env.process(run()))
            time.sleep(0.05)
        finally:
            dev.close()
        truth = [json.loads(line)["latency_s"] for line in Path(d, "truth.jsonl").read_text().splitlines()]
    cmds = [p["device_time_s"] for k, p in events if k == "lockout_command"]
    # The boundary search converges in its first rounds (a wide first window): the accuracy is
    # that of the converged search; the first CONVERGE rounds are reported apart.
    pairs_all = [(b, t) for b, t in zip(brackets, truth) if b is not None]
    pairs = [(b, t) for b, t in list(zip(brackets, truth))[CONVERGE:] if b is not None]
    err_all = [abs((lo + hi) / 2 - t) for (lo, hi), t in pairs_all]
    errors = [abs((lo + hi) / 2 - t) for (lo, hi), t in pairs]
    widths = [hi - lo for (lo, hi), _ in pairs]
    contained = sum(lo <= t <= hi + 1e-9 for (lo, hi), t in pairs)
    link_delay = [c - s for c, s in zip(cmds, sends)]  # rig's command → the device saw it
    return {"latency_ms": latency_s * 1e3, "rounds": rounds, "converge_rounds": CONVERGE,
            "bracketed": len(pairs), "truth_in_bracket": contained,
            "windows_missed": sum(b is None for b in brackets[CONVERGE:]),  # bounded by the sentinel only
            "error_p99_us_incl_convergence": pct(err_all, 99) * 1e6,
            "error_p50_us": pct(errors, 50) * 1e6, "error_p99_us": pct(errors, 99) * 1e6,
            "bracket_p50_us": pct(widths, 50) * 1e6, "bracket_p99_us": pct(widths, 99) * 1e6,
            "command_link_delay_p50_us": pct(link_delay, 50) * 1e6 if link_delay else None,
            "errors": errors, "widths": widths}


def parse_args(argv: list[str] | None = None) -> int:
    """The rounds per injected latency (``ROUNDS`` by default); ``--help`` prints the usage. A bad
    count is a usage error (exit 2), never a traceback."""
    import argparse

    def positive(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not CONVERGE < n <= 100_000:
            raise argparse.ArgumentTypeError(f"need {CONVERGE + 1}..100000 rounds (the first {CONVERGE} "
                                             f"are the search converging), not {n}")
        return n

    parser = argparse.ArgumentParser(prog="bench/hil_latency.py", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("rounds", nargs="?", type=positive, default=ROUNDS,
                        help=f"lock-out rounds per injected latency (default {ROUNDS})")
    return parser.parse_args(argv).rounds


def main(argv: list[str] | None = None) -> None:
    rounds = parse_args(argv)
    with stub() as url:
        rt = read_round_trips(url)
    print(f"read round trip (stub in another process, loopback TCP): bare pymodbus p50 {rt['bare_read_p50_us']:.0f} µs, "
          f"adapter {rt['adapter_read_p50_us']:.0f} µs (×{rt['adapter_over_bare_p50']:.2f}), "
          f"adapter from the simulation thread {rt['adapter_from_sim_thread_p50_us']:.0f} µs "
          f"(×{rt['adapter_from_sim_thread_over_bare_p50']:.2f})")
    per = [lockout_rounds(lat, rounds) for lat in LATENCIES_S]
    all_err = [e for r in per for e in r.pop("errors")]
    all_w = [w for r in per for w in r.pop("widths")]
    for r in per:
        print(f"lock-out {r['latency_ms']:.1f} ms ± {JITTER_S * 1e3:.1f}: {r['bracketed']}/{r['rounds'] - CONVERGE} "
              f"rounds after the first {CONVERGE} bracketed, "
              f"truth inside {r['truth_in_bracket']}; |error| p50 {r['error_p50_us']:.0f} µs p99 {r['error_p99_us']:.0f} µs; "
              f"bracket p50 {r['bracket_p50_us']:.0f} µs p99 {r['bracket_p99_us']:.0f} µs; "
              f"command over the link p50 {r['command_link_delay_p50_us']:.0f} µs")
    result = {**{k: round(v, 3) for k, v in rt.items()},
              "lockout_error_p50_us": round(pct(all_err, 50) * 1e6, 1),
              "lockout_error_p99_us": round(pct(all_err, 99) * 1e6, 1),
              "lockout_bracket_p50_us": round(pct(all_w, 50) * 1e6, 1),
              "lockout_bracket_p99_us": round(pct(all_w, 99) * 1e6, 1),
              "lockout_truth_in_bracket": sum(r["truth_in_bracket"] for r in per),
              "lockout_rounds_bracketed": sum(r["bracketed"] for r in per),
              "lockout_windows_missed": sum(r["windows_missed"] for r in per),
              "per_latency": per, "peer": "another process, loopback TCP"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
