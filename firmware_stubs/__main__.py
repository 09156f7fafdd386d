"""``python -m firmware_stubs DEVICE ...`` (also ``croupier stub DEVICE ...``): run a device's
SimPy model behind its wire protocol, in this process, in real time (or ``--time-scale`` × real
time), until SIGTERM/SIGINT.

    croupier stub wagering --modbus tcp://127.0.0.1:0 [--param lockout_latency_mean_s=0.005 ...]
    croupier stub wagering --modbus rtu:///dev/pts/7?baudrate=115200

Once serving, the stub prints one line on stdout, ``READY <device> <url>``, with the bound
port or the pty peer's path — what a test or a bench file needs to reach it. Stubs bind
127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path

import numpy as np
import pydantic

from devices.money_wheel import MoneyWheelParams
from devices.top_slot import TopSlotParams
from devices.wagering import WageringParams
from firmware_stubs.modbus import ModbusStub, ModelClock
from firmware_stubs.money_wheel import MoneyWheelGlue
from firmware_stubs.top_slot import TopSlotGlue, load_par
from firmware_stubs.wagering import WageringGlue
from hil.transport.modbus import ModbusUrl
from hil.wire.registers import default_map, load_register_map
from rules.submission import RulesSubmissionError

#: device → (register map name, params class)
DEVICES = {"wagering": ("wagering", WageringParams),
           "money-wheel": ("money-wheel", MoneyWheelParams),
           "top-slot": ("top-slot", TopSlotParams)}


def _params(cls: type, pairs: list[str]) -> object:
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--param {pair!r}: expected NAME=VALUE")
        raw[key.strip()] = value.strip()
    known = {f for f in cls.__dataclass_fields__}
    if unknown := sorted(set(raw) - known):
        raise SystemExit(f"unknown parameter(s) {unknown}; known: {sorted(known)}")
    try:
        return pydantic.TypeAdapter(cls).validate_python(raw)
    except pydantic.ValidationError as exc:
        raise SystemExit(f"bad parameter: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}") from None


async def _main(args: argparse.Namespace) -> None:
    map_name, params_cls = DEVICES[args.device]
    rmap = load_register_map(args.register_map, map_name) if args.register_map else default_map(map_name)
    params = _params(params_cls, args.param)
    clock = ModelClock(args.time_scale)
    wants_truth = args.truth_file and args.device == "wagering"  # the other devices ignore --truth-file
    truth_file = open(args.truth_file, "a", encoding="utf-8") if wants_truth else None  # noqa: SIM115

    def truth(record: dict) -> None:
        if truth_file:
            truth_file.write(json.dumps(record) + "\n")
            truth_file.flush()

    rng = np.random.default_rng(args.seed)
    if args.device == "wagering":
        glue = WageringGlue(clock, params, rng, rmap, truth)
    elif args.device == "money-wheel":
        try:
            glue = MoneyWheelGlue(clock, params, rng, rmap)
        except ValueError as exc:  # a wheel the map cannot describe (more sections, unknown symbols)
            raise SystemExit(f"money-wheel: {exc}") from None
    else:
        try:
            par = load_par(args.rules)
        except (OSError, RulesSubmissionError) as exc:
            raise SystemExit(f"--rules: {exc}") from None
        glue = TopSlotGlue(clock, params, par, rng, rmap)
    stub = ModbusStub(rmap, glue, clock, unit=args.unit)
    url = ModbusUrl.parse(args.modbus)
    if url.scheme == "tcp":
        port = await stub.start_tcp(url.host, url.port)
        where = f"tcp://{url.host}:{port}"
    else:
        await stub.start_rtu(url.path, url.baudrate, url.parity)
        where = args.modbus
    print(f"READY {args.device} {where}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await stub.stop()
        if truth_file:
            truth_file.close()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="croupier stub", description=__doc__.split("\n\n")[0])
    ap.add_argument("device", choices=sorted(DEVICES))
    ap.add_argument("--modbus", required=True, help="tcp://HOST:PORT (port 0 = any free) or rtu://PATH?baudrate=N")
    ap.add_argument("--unit", type=int, default=1, help="Modbus device id")
    ap.add_argument("--register-map", type=Path, help="a vendor register map TOML (default: the shipped one)")
    ap.add_argument("--param", action="append", default=[], help="model parameter / fault knob NAME=VALUE")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-scale", type=float, default=1.0, help="simulated seconds per wall second")
    ap.add_argument("--truth-file", help="wagering: append the ground truth of every lock-out here (JSON lines)")
    ap.add_argument("--rules", type=Path, help="top-slot: the Rules Submission whose PAR the reels follow "
                    "(default: the shipped one)")
    args = ap.parse_args(argv)
    if args.time_scale <= 0:
        ap.error("--time-scale must be > 0")
    logging.getLogger("pymodbus").setLevel(logging.ERROR)
    try:
        asyncio.run(_main(args))
    except KeyboardInterrupt:
        pass
    sys.stdout.flush()


if __name__ == "__main__":
    main()
