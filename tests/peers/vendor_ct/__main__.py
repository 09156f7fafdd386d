"""``python -m tests.peers.vendor_ct --ports-file F [options]``: the vendor's four devices.

Starts the money wheel, the Top Slot, the wagering device and the relay module (the actuator),
each a Modbus TCP server on 127.0.0.1 (port 0: the kernel picks), prints one line per device,
``READY <role> tcp://127.0.0.1:<port>``, and writes the same as JSON to ``--ports-file``
(``{"wheel": url, "top_slot": url, "wagering": url, "actuator": url, "pid": pid, "unit": 1}``,
written atomically once every server listens). Runs until SIGTERM or SIGINT; then writes the
devices' ground truth (spins, lock-outs, presses, contact closings) to ``--truth-file`` if given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import numpy as np

from .clock import DeviceClock, World
from .modbus import serve, stop
from .top_slot import TopSlot
from .wagering import RelayModule, WageringDevice, WageringTiming
from .wheel import MoneyWheel, WheelFaults, WheelPhysics

ROLES = ("wheel", "top_slot", "wagering", "actuator")


def _stakes(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--button-stakes wants comma-separated cents, got {text!r}") from None
    if any(x < 0 for x in out):
        raise argparse.ArgumentTypeError("--button-stakes: a stake is ≥ 0 cents")
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.peers.vendor_ct", description=__doc__.split("\n")[0])
    p.add_argument("--ports-file", type=Path, required=True)
    p.add_argument("--truth-file", type=Path)
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--time-scale", type=float, default=1.0, help="world seconds per wall second (the bench's)")
    p.add_argument("--unit", type=int, default=1)
    p.add_argument("--wheel-clock-ppm", type=float, default=0.0, help="the wheel's crystal error (2000 = fast)")
    p.add_argument("--wheel-epoch-ns", type=int, default=None, help="the wheel counter at start (default: drawn)")
    p.add_argument("--top-slot-clock-ppm", type=float, default=0.0)
    p.add_argument("--wagering-clock-ppm", type=float, default=0.0)
    p.add_argument("--seats", type=int, default=7)
    p.add_argument("--button-stakes", type=_stakes, default=None, help="cents per seat, e.g. 100,500,200")
    p.add_argument("--wagering-supervisor-key", metavar="HEX", default=None,
                   help="the bet terminal's supervisor key, 32 hex digits (default: drawn); its URL carries it")
    p.add_argument("--wagering-injection", action="store_true",
                   help="the optional press-injection and armed-probe features (test firmware)")
    p.add_argument("--lockout-processing-ms", type=float, default=None,
                   help="the wagering firmware's lock-out processing time (default 2.8 ms; a slow device: 25)")
    p.add_argument("--foreign-press-rate-hz", type=float, default=0.0,
                   help="real players at the table pressing their buttons while betting is open (world Hz)")
    p.add_argument("--foreign-seats", type=lambda t: tuple(int(x) for x in t.split(",")), default=(1,))
    p.add_argument("--no-seat-registers", action="store_true",
                   help="the wagering device has no per-seat display registers (input 11-122)")
    p.add_argument("--max-connections", type=int, default=None,
                   help="each device serves at most this many Modbus TCP clients at once (many embedded devices: 1)")
    p.add_argument("--relay-outputs", type=int, default=80)
    p.add_argument("--relay-operate-ms", type=float, default=0.0)
    p.add_argument("--relay-operate-jitter-ms", type=float, default=0.0)
    p.add_argument("--relay-bounce-ms", type=float, default=0.0,
                   help="a bouncing contact: each closing also registers a second press this much later")
    p.add_argument("--push-speed-rps", type=float, default=None,
                   help="the pusher's mean rim speed (default 0.95 rev/s ≈ 8 turns, 18 s; 0.8 ≈ 5.7 turns, 15 s)")
    p.add_argument("--on-peg-band-j", type=float, default=None,
                   help="a worn clapper: the energy band in which it balances on a peg (default 0.009 J: ~0.5 %% of spins; 0.5: ~30 %%)")
    p.add_argument("--wheel-start-reported-late", action="store_true",
                   help="fault: state and spin id change at the push, spin_start_ns stays 0 until the rim moves")
    p.add_argument("--top-slot-late-start-s", type=float, default=0.0)
    p.add_argument("--command-seq", type=int, default=None,
                   help="the wheel's and Top Slot's command_seq at power-up (default: drawn, as a device that ran)")
    return p


def build(args: argparse.Namespace) -> dict:
    world = World(time_scale=args.time_scale)
    ss = np.random.SeedSequence(args.seed)
    r_wheel, r_slot, r_wag, r_relay, r_clock = (np.random.default_rng(s) for s in ss.spawn(5))
    # each device's counter: its own uptime (hours to weeks), never the rig's
    epochs = [int(x) for x in r_clock.integers(3_600 * 10**9, 3_000_000 * 10**9, size=3)]
    seq = [int(x) for x in r_clock.integers(1, 65536, size=2)] if args.command_seq is None else [args.command_seq] * 2
    wheel = MoneyWheel(DeviceClock(world, args.wheel_epoch_ns if args.wheel_epoch_ns is not None else epochs[0],
                                   args.wheel_clock_ppm), r_wheel,
                       phys=WheelPhysics(**{k: v for k, v in (("push_speed_mean_rps", args.push_speed_rps),
                                                              ("on_peg_band_j", args.on_peg_band_j)) if v is not None}),
                       faults=WheelFaults(start_reported_late=args.wheel_start_reported_late), command_seq=seq[0])
    slot = TopSlot(DeviceClock(world, epochs[1], args.top_slot_clock_ppm), r_slot, command_seq=seq[1],
                   late_start_s=args.top_slot_late_start_s)
    stakes = args.button_stakes or (100, 500, 200, 1000, 100, 2500, 100, 200)[:args.seats]
    wag = WageringDevice(DeviceClock(world, epochs[2], args.wagering_clock_ppm), r_wag, seats=args.seats,
                         button_stake_cents=stakes, injection=args.wagering_injection,
                         foreign_press_rate_hz=args.foreign_press_rate_hz, foreign_seats=args.foreign_seats,
                         seat_registers=not args.no_seat_registers,
                         **({"supervisor_key": bytes.fromhex(args.wagering_supervisor_key)}
                            if args.wagering_supervisor_key else {}),
                         timing=WageringTiming() if args.lockout_processing_ms is None else
                         WageringTiming(lockout_processing_s=args.lockout_processing_ms / 1000))
    # the relay module has no clock anyone reads; it shares the world with the buttons it closes
    relay = RelayModule(DeviceClock(world, 0), r_relay, wag, outputs=args.relay_outputs,
                        operate_s=args.relay_operate_ms / 1000, operate_jitter_s=args.relay_operate_jitter_ms / 1000,
                        bounce_s=args.relay_bounce_ms / 1000)
    return {"wheel": wheel, "top_slot": slot, "wagering": wag, "actuator": relay}


def truth(devices: dict) -> dict:
    wheel, slot, wag, relay = (devices[r] for r in ROLES)
    return {
        "wheel": [{"spin_id": s.spin_id, "direction": s.direction, "start_s": s.start_s, "rest_s": s.rest_s,
                   "section_index": s.section_index, "on_peg": s.on_peg, "revolutions": s.revolutions,
                   "pulses": len(s.pulse_times_s), "stop_kind": s.stop_kind} for s in wheel.log],
        "top_slot": [{"spin_id": s.spin_id, "start_s": s.start_s, "stop_s": s.stop_s, "spot": s.spot,
                      "multiplier": s.multiplier, "aligned": s.aligned} for s in slot.log],
        "lockouts": [{"command_s": c, "effective_s": e} for c, e in wag.lockout_log],
        "presses": [{"press_id": p.press_id, "seat": p.seat, "spot": p.spot, "stake_cents": p.stake_cents,
                     "press_s": p.press_s, "status": p.status, "reason": p.reason, "source": p.source}
                    for p in wag.presses],
        "contact_closings": [{"coil": c, "t_s": t} for c, t in relay.edges],
        "clocks": {r: {"epoch_ns": d.clock.epoch_ns, "drift_ppm": d.clock.drift_ppm} for r, d in devices.items()},
    }


async def run(args: argparse.Namespace) -> int:
    devices = build(args)
    servers, urls = [], {}
    try:
        for role in ROLES:
            server, port = await serve(devices[role], "127.0.0.1", 0, args.unit, args.max_connections)
            servers.append(server)
            urls[role] = f"tcp://127.0.0.1:{port}"
            if role == "wagering":  # docs/wire/modbus-wagering.md: the key travels in the URL's query
                urls[role] += f"?supervisor_key={devices[role].supervisor_key.hex()}"
        for role in ROLES:
            print(f"READY {role} {urls[role]}", flush=True)
        tmp = args.ports_file.with_suffix(args.ports_file.suffix + ".tmp")
        tmp.write_text(json.dumps({**urls, "pid": os.getpid(), "unit": args.unit,
                                   "time_scale": args.time_scale}))
        os.replace(tmp, args.ports_file)
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, done.set)
        await done.wait()
    finally:
        for server in servers:
            await stop(server)
        if args.truth_file:
            tmp = args.truth_file.with_suffix(args.truth_file.suffix + ".tmp")
            tmp.write_text(json.dumps(truth(devices), indent=1))
            os.replace(tmp, args.truth_file)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return asyncio.run(run(args))
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
