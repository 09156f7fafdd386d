"""``python -m firmware_stubs DEVICE ...`` (also ``croupier stub DEVICE ...``): run a device's
SimPy model behind its wire protocol, in this process, in real time (or ``--time-scale`` × real
time), until SIGTERM/SIGINT.

    croupier stub wagering --modbus tcp://127.0.0.1:0 [--param lockout_latency_mean_s=0.005 ...]
    croupier stub wagering --modbus rtu:///dev/pts/7?baudrate=115200
    croupier stub wagering --pty            # serial frames on a new pty (docs/wire/serial-frames.md)
    croupier stub money-wheel --serial /dev/ttyUSB0 [--baudrate 115200]

Once serving, the stub prints one line on stdout, ``READY <device> <url> [control=<url>]``, with
the bound port or the pty peer's path — what a test or a bench file needs to reach it. Stubs bind
127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import signal
import sys
import threading
from pathlib import Path

import numpy as np

from devices.money_wheel import MoneyWheelParams
from devices.top_slot import TopSlotParams
from devices.wagering import WageringParams
from firmware_stubs.control import ControlServer, validate_params
from firmware_stubs.modbus import ModbusStub, ModelClock
from firmware_stubs.money_wheel import MoneyWheelGlue
from firmware_stubs.top_slot import TopSlotGlue, load_par
from firmware_stubs.wagering import WageringGlue
from hil.wire.url import ModbusUrl
from hil.wire.registers import default_map, load_register_map
from rules.submission import RulesSubmission, RulesSubmissionError

#: device → (register map name, params class)
DEVICES = {"wagering": ("wagering", WageringParams),
           "money-wheel": ("money-wheel", MoneyWheelParams),
           "top-slot": ("top-slot", TopSlotParams)}


def _raw_params(pairs: list[str]) -> dict[str, str]:
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--param {pair!r}: expected NAME=VALUE")
        raw[key.strip()] = value.strip()
    return raw


class DeviceHost:
    """The device model and its glue on the chosen wire; rebuilt with new parameters, fault knobs
    and seed when the control endpoint says so (the device clock runs on)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.device = args.device
        self.wire = "modbus" if args.modbus else "serial"
        self.clock = ModelClock(args.time_scale)
        self.params_cls = DEVICES[args.device][1]
        self.rmap = None
        if self.wire == "modbus":
            map_name = DEVICES[args.device][0]
            self.rmap = load_register_map(args.register_map, map_name) if args.register_map else default_map(map_name)
        self.par = None
        if args.device == "top-slot":
            try:
                self.par = load_par(args.rules)
            except (OSError, RulesSubmissionError) as exc:
                raise SystemExit(f"--rules: {exc}") from None
        wants_truth = args.truth_file and args.device == "wagering"  # the other devices ignore --truth-file
        self.truth_file = open(args.truth_file, "a", encoding="utf-8") if wants_truth else None  # noqa: SIM115
        self.truth_records: list[dict] = []
        self.on_new_glue = lambda glue: None
        try:
            self.glue, self.params = self.make(_raw_params(args.param), args.seed, self.par)
        except ValueError as exc:
            raise SystemExit(f"{args.device}: {exc}") from None

    def truth(self, record: dict) -> None:
        self.truth_records.append(record)
        if self.truth_file:
            self.truth_file.write(json.dumps(record) + "\n")
            self.truth_file.flush()

    def make(self, raw: dict, seed: int, par) -> tuple[object, object]:
        """A glue around a fresh model; ValueError for parameters the model refuses."""
        from firmware_stubs.serial import MoneyWheelFrameGlue, TopSlotFrameGlue, WageringFrameGlue

        params = validate_params(self.params_cls, raw)
        rng = np.random.default_rng(seed)
        clock, modbus = self.clock, self.wire == "modbus"
        if self.device == "wagering":
            glue = (WageringGlue(clock, params, rng, self.rmap, self.truth) if modbus
                    else WageringFrameGlue(clock, params, rng, self.truth))
        elif self.device == "money-wheel":
            glue = MoneyWheelGlue(clock, params, rng, self.rmap) if modbus else MoneyWheelFrameGlue(clock, params, rng)
        else:
            glue = (TopSlotGlue(clock, params, par, rng, self.rmap) if modbus
                    else TopSlotFrameGlue(clock, params, par, rng))
        return glue, params

    def configure(self, raw: dict, seed: int, rules: dict | None) -> dict:
        par = RulesSubmission.model_validate(rules).top_slot if rules and self.device == "top-slot" else self.par
        validate_params(self.params_cls, raw)  # refuse before touching the running model
        self.clock.renew()
        self.glue, self.params = self.make(raw, seed, par)
        self.truth_records.clear()
        self.on_new_glue(self.glue)
        return dataclasses.asdict(self.params)

    def close(self) -> None:
        if self.truth_file:
            self.truth_file.close()


async def _main(args: argparse.Namespace) -> None:
    host = DeviceHost(args)
    stub = ModbusStub(host.rmap, host.glue, host.clock, unit=args.unit)
    host.on_new_glue = stub.replace_glue
    url = ModbusUrl.parse(args.modbus)
    if url.scheme == "tcp":
        port = await stub.start_tcp(url.host, url.port)
        where = f"tcp://{url.host}:{port}"
    else:
        await stub.start_rtu(url.path, url.baudrate, url.parity)
        where = args.modbus
    control = None
    if args.control:
        curl = ModbusUrl.parse(args.control)
        control = ControlServer(host.configure, lambda: list(host.truth_records))
        where += f" control=tcp://{curl.host}:{await control.start(curl.host, curl.port)}"
    print(f"READY {args.device} {where}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        if control is not None:
            await control.stop()
        await stub.stop()
        host.close()


def _serve_serial(args: argparse.Namespace) -> None:
    """``--serial URL`` / ``--pty``: the model behind the serial frames, in this thread."""
    from firmware_stubs.pty import open_pty
    from firmware_stubs.serial import FdPort, SerialStub, UrlPort

    host = DeviceHost(args)
    pair = None
    if args.pty:
        pair = open_pty()
        port, where = FdPort(pair.master_fd), pair.peer_path
    else:
        port, where = UrlPort(args.serial, args.baudrate), args.serial
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stub = SerialStub(port, host.glue, host.clock)
    print(f"READY {args.device} {where}", flush=True)
    try:
        stub.serve(stop)
    finally:
        if pair is not None:
            pair.close()
        else:
            port.close()
        host.close()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="croupier stub", description=__doc__.split("\n\n")[0])
    ap.add_argument("device", choices=sorted(DEVICES))
    wire = ap.add_mutually_exclusive_group(required=True)
    wire.add_argument("--modbus", help="tcp://HOST:PORT (port 0 = any free) or rtu://PATH?baudrate=N")
    wire.add_argument("--serial", metavar="URL", help="serial frames on a pyserial URL (a device path, "
                      "socket://HOST:PORT, rfc2217://..., loop://)")
    wire.add_argument("--pty", action="store_true", help="serial frames on a new pty; READY names the peer's path")
    ap.add_argument("--baudrate", type=int, default=115_200, help="--serial: baud rate")
    ap.add_argument("--unit", type=int, default=1, help="Modbus device id")
    ap.add_argument("--register-map", type=Path, help="a vendor register map TOML (default: the shipped one)")
    ap.add_argument("--param", action="append", default=[], help="model parameter / fault knob NAME=VALUE")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-scale", type=float, default=1.0, help="simulated seconds per wall second")
    ap.add_argument("--truth-file", help="wagering: append the ground truth of every lock-out here (JSON lines)")
    ap.add_argument("--rules", type=Path, help="top-slot: the Rules Submission whose PAR the reels follow "
                    "(default: the shipped one)")
    ap.add_argument("--control", metavar="URL", help="tcp://127.0.0.1:PORT (0 = any free): the rig configures "
                    "the model's parameters and fault knobs per scenario here (--modbus only for now)")
    args = ap.parse_args(argv)
    if args.time_scale <= 0:
        ap.error("--time-scale must be > 0")
    if args.modbus is None:
        if args.control:
            ap.error("--control is available with --modbus only (for now)")
        _serve_serial(args)
        sys.stdout.flush()
        return
    logging.getLogger("pymodbus").setLevel(logging.ERROR)
    try:
        asyncio.run(_main(args))
    except KeyboardInterrupt:
        pass
    sys.stdout.flush()


if __name__ == "__main__":
    main()
