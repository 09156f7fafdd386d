"""``python -m firmware_stubs DEVICE ...`` (also ``croupier stub DEVICE ...``): run a device's
SimPy model behind its wire protocol, in this process, in real time (or ``--time-scale`` × real
time), until SIGTERM/SIGINT.

    croupier stub wagering --modbus tcp://127.0.0.1:0 [--param lockout_latency_mean_s=0.005 ...]
    croupier stub wagering --modbus rtu:///dev/pts/7?baudrate=115200
    croupier stub wagering --modbus 'rtu://pty?baudrate=9600&parity=E'   # RTU on a new pty, at 9600 8E1's pace
    croupier stub wagering --pty            # serial frames on a new pty (docs/wire/serial-frames.md)
    croupier stub money-wheel --serial /dev/ttyUSB0 [--baudrate 115200]
    croupier stub multiplier-board --modbus tcp://127.0.0.1:0 [--rules my_rules.toml]
    croupier stub illuminator --modbus tcp://127.0.0.1:0 [--rules roulette_x.toml] [--param wheel=double-zero]
    croupier stub roulette-wheel --pty [--param wheel=double-zero]   # the vendor's line protocol, paced at 9600 baud
    croupier stub roulette-wheel --pty --param power_off_game=3     # the live wheel (its own cycle) loses power in game 3
    croupier stub roulette-wheel --pty --param profile=model        # the model's commanded wheel (*K)
    croupier stub progressive-system --modbus tcp://127.0.0.1:0 [--param link_loss_at_s=2 ...] [--control tcp://127.0.0.1:0]
    croupier stub money-wheel --modbus tcp://127.0.0.1:0 --clock-ppm 2000   # its clock runs 2,000 ppm fast

The bonus games' devices (``multiplier-board``, ``coin-flipper``, ``pachinko-board``,
``crazy-time-world-wheel``) and Roulette X's ``illuminator`` speak Modbus only: they have no serial frames.
The ``roulette-wheel`` speaks the vendor's line protocol only (``--pty`` / ``--serial``;
docs/wire/slingshot-roulette.md): it has no register map.

Once serving, the stub prints one line on stdout, ``READY <device> <url> [control=<url>]``, with
the bound port or the pty peer's path — what a test or a bench file needs to reach it; the control
URL carries the stub's token (``control=tcp://127.0.0.1:PORT?token=<hex>``, drawn at start or set with
``--control-token HEX``): the bench's ``control`` takes the whole URL. Stubs listen on loopback only:
a host that is not loopback is refused (exit 2) unless ``--allow-remote`` is given, and then a
warning on stderr names what is exposed (docs/security.md).

The wagering device and the progressive system hold a supervisor key (docs/wire/modbus-wagering.md,
"The supervisor key"): drawn at start (``secrets.token_bytes(16)``) or set with ``--supervisor-key
HEX``, it is printed in the device URL's query, ``tcp://127.0.0.1:PORT?supervisor_key=<hex>`` (or the
pty path's), and the rig's adapter takes it from there.

``-v`` logs each connection and each command on stderr (``croupier.stub.<device>``: Modbus
requests with their function code, address, count and result; serial frames; the control
endpoint's ops, never its token), ``-vv`` the values too, ``--log-file FILE`` as JSON lines
(``hil.logs``); the default logs neither. The command line is a typer app (``app``, help on every
option), the same whether started as ``python -m firmware_stubs`` or ``croupier stub``.

``rtu://pty?...`` serves Modbus RTU on a new pty pair behind ``firmware_stubs.rtu_pty``'s relay,
which adds each byte burst's wire time at the URL's baud rate, parity and stop bits (ptys
ignore baud rate); READY then names ``rtu://<peer path>?<the same query>``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, NoReturn, Optional
from urllib.parse import urlsplit

import typer


from devices.coin_flipper import CoinFlipperParams
from devices.ctw_wheel import CtwWheelParams
from devices.illuminator import IlluminatorParams
from devices.money_wheel import MoneyWheelParams
from devices.multiplier_board import MultiplierBoardParams
from devices.pachinko import PachinkoParams
from devices.progressive import ProgressiveParams
from devices.top_slot import TopSlotParams
from devices.wagering import WageringParams
from firmware_stubs.board import MultiplierBoardGlue, load_rules
from firmware_stubs.coin_flipper import CoinFlipperGlue
from firmware_stubs.control import (ControlServer, TruthRing, check_token, control_url, generator, new_token,
                                    validate_params)
from firmware_stubs.ctw_wheel import CtwWheelGlue
from firmware_stubs.exposure import LOOPBACK, ExposureRefused, Listener, check_exposure
from firmware_stubs.illuminator import IlluminatorGlue, load_roulette_x
from firmware_stubs.modbus import ModbusStub, ModelClock
from firmware_stubs.money_wheel import MoneyWheelGlue
from firmware_stubs.pachinko import PachinkoGlue
from firmware_stubs.progressive import ProgressiveGlue, cli_params
from firmware_stubs.slingshot import WIRE_KNOBS, SlingshotParams, stub_params
from firmware_stubs.top_slot import TopSlotGlue, load_par
from firmware_stubs.wagering import WageringGlue
from hil import logs
from hil.wire.supervisor import with_key
from hil.wire.url import ModbusUrl
from hil.wire.registers import default_map, load_register_map
from rules.roulette_x import RouletteXSubmission
from rules.submission import RulesSubmission, RulesSubmissionError

#: the devices that hold a supervisor key (``--supervisor-key``; docs/wire/modbus-wagering.md)
KEYED = ("wagering", "progressive-system")

#: ``--modbus rtu://pty?...``: RTU on a new pty pair, paced at the URL's baud rate (firmware_stubs.rtu_pty)
RTU_PTY = "pty"

#: device → (register map name, params class)
DEVICES = {"wagering": ("wagering", WageringParams),
           "money-wheel": ("money-wheel", MoneyWheelParams),
           "top-slot": ("top-slot", TopSlotParams),
           "multiplier-board": ("multiplier-board", MultiplierBoardParams),
           "coin-flipper": ("coin-flipper", CoinFlipperParams),
           "pachinko-board": ("pachinko-board", PachinkoParams),
           "crazy-time-world-wheel": ("crazy-time-world-wheel", CtwWheelParams),
           "illuminator": ("illuminator", IlluminatorParams),
           "progressive-system": ("progressive-system", ProgressiveParams),
           "roulette-wheel": (None, SlingshotParams)}
#: The command devices (``firmware_stubs.command``: the bonus games', Roulette X's illuminator): Modbus only.
MODBUS_ONLY = ("multiplier-board", "coin-flipper", "pachinko-board", "crazy-time-world-wheel", "illuminator")
MODBUS_ONLY += ("progressive-system",)  # the progressive table game system: no serial frames either
#: Devices with a vendor line protocol instead of the frames (``firmware_stubs.slingshot``): serial only,
#: and their line's baud rate when ``--baudrate`` is not given (a pty is paced at it).
SERIAL_ONLY = {"roulette-wheel": 9600}


def _raw_params(pairs: list[str]) -> dict[str, str]:
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"error: --param {pair!r}: expected NAME=VALUE")
        raw[key.strip()] = value.strip()
    return raw


class DeviceHost:
    """The device model and its glue on the chosen wire; rebuilt with new parameters, fault knobs
    and seed when the control endpoint says so (the device clock runs on)."""

    def __init__(self, args: SimpleNamespace) -> None:
        self.args = args
        self.device = args.device
        self.wire = "modbus" if args.modbus else "serial"
        self.clock = ModelClock(args.time_scale, args.clock_ppm)
        self.params_cls = DEVICES[args.device][1]
        self.rmap = None
        if self.wire == "modbus":
            map_name = DEVICES[args.device][0]
            try:
                self.rmap = (load_register_map(args.register_map, map_name) if args.register_map
                             else default_map(map_name))
            except ValueError as exc:  # hil.config.ConfigError: the file, its line and field
                raise SystemExit(f"error: --register-map: {exc}") from None
        self.par = None  # what the device draws from: the Top Slot's PAR, the board's or illuminator's Rules Submission
        if args.device in ("top-slot", "multiplier-board", "illuminator"):
            load = {"top-slot": load_par, "multiplier-board": load_rules, "illuminator": load_roulette_x}[args.device]
            try:
                self.par = load(args.rules)
            except OSError as exc:
                raise SystemExit(f"error: --rules {args.rules}: cannot read: {exc.strerror or exc}") from None
            except RulesSubmissionError as exc:
                raise SystemExit(f"error: --rules: {exc}") from None
        wants_truth = args.truth_file and args.device == "wagering"  # the other devices ignore --truth-file
        self.truth_file = open(args.truth_file, "a", encoding="utf-8") if wants_truth else None  # noqa: SIM115
        #: the newest lock-outs' truth for the control endpoint (bounded; --truth-file keeps them all)
        self.truth_records = TruthRing()
        self.on_new_glue = lambda glue: None
        #: the supervisor key (``--supervisor-key`` or drawn in ``main``): the stub's, kept across configure
        self.supervisor_key: bytes | None = getattr(args, "supervisor_key_bytes", None)
        self.refusal_log = None
        if args.device in KEYED:
            from firmware_stubs.wagering import RefusalLogger

            self.refusal_log = RefusalLogger(args.device)
        try:
            self.glue, self.params = self.make(_raw_params(args.param), args.seed, self.par)
        except ValueError as exc:
            raise SystemExit(f"error: {args.device}: {exc}") from None

    def truth(self, record: dict) -> None:
        self.truth_records.append(record)
        if self.truth_file:
            self.truth_file.write(json.dumps(record) + "\n")
            self.truth_file.flush()

    def make(self, raw: dict, seed: int | dict, par) -> tuple[object, object]:
        """A glue around a fresh model; ValueError for parameters the model refuses."""
        from firmware_stubs.serial import MoneyWheelFrameGlue, TopSlotFrameGlue, WageringFrameGlue

        if self.device == "progressive-system":
            raw = cli_params(raw)  # --param meters=JSON
        params = stub_params(raw) if self.device == "roulette-wheel" else validate_params(self.params_cls, raw)
        rng = generator(seed)
        clock, modbus = self.clock, self.wire == "modbus"
        if self.device == "wagering":
            key, refusals = self.supervisor_key, self.refusal_log
            glue = (WageringGlue(clock, params, rng, self.rmap, self.truth, key, refusals) if modbus
                    else WageringFrameGlue(clock, params, rng, self.truth, key, refusals))
        elif self.device == "money-wheel":
            glue = MoneyWheelGlue(clock, params, rng, self.rmap) if modbus else MoneyWheelFrameGlue(clock, params, rng)
        elif self.device == "multiplier-board":
            glue = MultiplierBoardGlue(clock, params, par, rng, self.rmap)
        elif self.device == "coin-flipper":
            glue = CoinFlipperGlue(clock, params, rng, self.rmap)
        elif self.device == "pachinko-board":
            glue = PachinkoGlue(clock, params, rng, self.rmap)
        elif self.device == "crazy-time-world-wheel":
            glue = CtwWheelGlue(clock, params, rng, self.rmap)
        elif self.device == "illuminator":
            glue = IlluminatorGlue(clock, params, par, rng, self.rmap)
        elif self.device == "progressive-system":
            glue = ProgressiveGlue(clock, params, rng, self.rmap, self.truth, self.supervisor_key, self.refusal_log)
        elif self.device == "roulette-wheel":
            from firmware_stubs.slingshot import SlingshotGlue

            glue = SlingshotGlue(clock, params, rng)
        else:
            glue = (TopSlotGlue(clock, params, par, rng, self.rmap) if modbus
                    else TopSlotFrameGlue(clock, params, par, rng))
        return glue, params

    def configure(self, raw: dict, seed: int | dict, rules: dict | None) -> dict:
        par = self.par
        if rules and self.device == "top-slot":
            par = RulesSubmission.model_validate(rules).top_slot
        elif rules and self.device == "multiplier-board":
            par = RulesSubmission.model_validate(rules)
        elif rules and self.device == "illuminator":
            par = RouletteXSubmission.model_validate(rules)  # a Roulette X submission
        if self.device == "roulette-wheel":  # the wire knobs given on the command line stay
            raw = {**{k: v for k, v in _raw_params(self.args.param).items() if k in WIRE_KNOBS}, **raw}
            stub_params(raw)  # refuse before touching the running model
        else:
            validate_params(self.params_cls, raw)  # refuse before touching the running model
        running = self.clock.env
        self.clock.renew()
        try:
            self.glue, self.params = self.make(raw, seed, par)
        except ValueError:  # a glue that cannot carry this model (e.g. more Pachinko rows than
            self.clock.env = running  # the map's path holds): the running model keeps its clock
            raise
        self.truth_records.clear()
        self.on_new_glue(self.glue)
        return dataclasses.asdict(self.params)

    def set_clock(self, ppm: float | None) -> dict:
        """The control endpoint's ``clock`` op: the device clock's drift from now on."""
        if ppm is not None:
            self.clock.set_ppm(ppm)
        return {"ppm": self.clock.ppm, "time_scale": self.clock.time_scale}

    def info(self) -> dict:
        """The control endpoint's ``info`` op: what this stub is."""
        return {"device": self.device, "wire": self.wire, "time_scale": self.clock.time_scale,
                "clock_ppm": self.clock.ppm, "params": dataclasses.asdict(self.params)}

    def close(self) -> None:
        if self.truth_file:
            self.truth_file.close()


async def _main(args: SimpleNamespace) -> None:
    host = DeviceHost(args)
    stub = ModbusStub(host.rmap, host.glue, host.clock, unit=args.unit, log=_log(args))
    host.on_new_glue = stub.replace_glue
    url = ModbusUrl.parse(args.modbus)
    relay = None
    if url.scheme == "tcp":
        port = await stub.start_tcp(url.host, url.port, allow_remote=args.allow_remote)
        where = f"tcp://{url.host}:{port}"
    elif url.path == RTU_PTY:
        from firmware_stubs.rtu_pty import WireTimeRelay

        relay = WireTimeRelay(url.baudrate, url.parity, url.stopbits, url.bytesize)
        try:
            # the server's end is a pty: parity means nothing there (the relay adds the parity
            # bit's time), and some kernels refuse PARENB on a pty (EINVAL)
            await stub.start_rtu(relay.server_path, url.baudrate, "N")
        except BaseException:
            relay.close()
            raise
        query = urlsplit(args.modbus).query
        where = f"rtu://{relay.peer_path}" + (f"?{query}" if query else "")
    else:
        await stub.start_rtu(url.path, url.baudrate, url.parity)
        where = args.modbus
    if host.supervisor_key is not None:
        where = with_key(where, host.supervisor_key)
    control = None
    if args.control:
        curl = ModbusUrl.parse(args.control)
        control = ControlServer(host.configure, host.truth_records.answer, host.set_clock, host.info,
                                token=args.control_token, allow_remote=args.allow_remote, log=_log(args, "control"))
        where += f" control={control_url(curl.host, await control.start(curl.host, curl.port), args.control_token)}"
    relays = None
    if getattr(args, "actuator_modbus", None):  # a DO module wired across the model's buttons (docs/wire/actuator.md)
        from firmware_stubs.actuator import wired_to

        aurl = ModbusUrl.parse(args.actuator_modbus)
        relays = wired_to(host)
        where += f" actuator=tcp://{aurl.host}:{await relays.start_tcp(aurl.host, aurl.port, args.allow_remote)}"
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
        if relays is not None:
            await relays.stop()
        await stub.stop()
        if relay is not None:
            relay.close()
        host.close()


class ControlThread:
    """A ``ControlServer`` on its own asyncio loop in a helper thread (the serial stub's serve
    loop owns the main thread); ``close()`` stops the server and the loop and joins the thread."""

    def __init__(self, server: ControlServer, host: str, port: int) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="stub-control", daemon=True)
        self.thread.start()
        try:
            self.port = asyncio.run_coroutine_threadsafe(server.start(host, port), self.loop).result(10)
        except BaseException:
            self.close()
            raise

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def close(self) -> None:
        if self.loop.is_closed():
            return

        async def shutdown() -> None:
            await self.server.stop()
            # clients still connected get a moment to hang up; the process ends right after (a
            # cancelled stream handler makes asyncio 3.11 print a traceback: not worth it)
            if tasks := [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
                await asyncio.wait(tasks, timeout=0.2)

        if self.thread.is_alive():
            try:
                asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(5)
            finally:
                self.loop.call_soon_threadsafe(self.loop.stop)
                self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


def _serve_serial(args: SimpleNamespace) -> None:
    """``--serial URL`` / ``--pty``: the model behind the serial frames, in this thread. With
    ``--control``, the control endpoint runs in a helper thread and hands each request to the
    serve loop (``SerialStub.call``), which applies it between two iterations."""
    from firmware_stubs.pty import open_pty
    from firmware_stubs.serial import FdPort, SerialStub, UrlPort

    host = DeviceHost(args)
    pair = control = None
    if args.pty:
        pair = open_pty()
        port, where = FdPort(pair.master_fd), pair.peer_path
    else:
        try:
            port, where = UrlPort(args.serial, args.baudrate or 115_200), args.serial
        except (OSError, ValueError) as exc:  # serial.SerialException is an OSError
            host.close()
            why = os.strerror(exc.errno) if isinstance(getattr(exc, "errno", None), int) else str(exc)
            raise SystemExit(f"error: --serial {args.serial}: cannot open: {why}") from None
    if host.supervisor_key is not None:
        where = with_key(where, host.supervisor_key)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if args.device in SERIAL_ONLY:  # a vendor line protocol, paced on a pty (a real UART paces itself)
        from firmware_stubs.slingshot import SlingshotStub

        stub = SlingshotStub(port, host.glue, host.clock, baudrate=args.baudrate if args.pty else None, log=_log(args))
    else:
        stub = SerialStub(port, host.glue, host.clock, log=_log(args))
    _log(args).info("serial line open", extra={"path": where.split("?")[0]})
    host.on_new_glue = stub.replace_glue  # called by host.configure, in the serve loop
    try:
        if args.control:
            curl = ModbusUrl.parse(args.control)
            server = ControlServer(lambda raw, seed, rules: _in_loop(stub, host.configure, raw, seed, rules),
                                   lambda: _in_loop(stub, host.truth_records.answer),
                                   lambda ppm: _in_loop(stub, host.set_clock, ppm), lambda: _in_loop(stub, host.info),
                                   token=args.control_token, allow_remote=args.allow_remote,
                                   log=_log(args, "control"))
            control = ControlThread(server, curl.host, curl.port)
            where += f" control={control_url(curl.host, control.port, args.control_token)}"
        print(f"READY {args.device} {where}", flush=True)
        stub.serve(stop)
    finally:
        if control is not None:
            control.close()
        if pair is not None:
            pair.close()
        else:
            port.close()
        host.close()


def _log(args: SimpleNamespace, part: str | None = None) -> logging.Logger:
    """The stub's logger, ``croupier.stub.<device>`` (``.control`` for its control endpoint)."""
    return logging.getLogger(f"croupier.stub.{args.device}" + (f".{part}" if part else ""))


def _in_loop(stub, fn, *args):
    """``fn(*args)`` run by the serial stub's serve loop; a stub that cannot run it (stopping,
    stuck) is a refused request (``ValueError``, answered ``ok: false``), never a hung client."""
    try:
        return stub.call(lambda: fn(*args))
    except (TimeoutError, RuntimeError) as exc:
        raise ValueError(f"the stub could not apply the request: {exc or type(exc).__name__}") from None


def _refuse(message: str) -> NoReturn:
    """Bad input on the command line: one ``error:`` line on stderr, exit 2, nothing started."""
    sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(EXIT_BAD_INPUT)


def _check_listeners(args: SimpleNamespace) -> None:
    """The control token (drawn, or ``--control-token`` checked) and where the stub may listen:
    a TCP listener beyond loopback without ``--allow-remote`` is an error (exit 2); with it, a
    warning on stderr (``firmware_stubs.exposure``)."""
    if args.control_token is not None and not args.control:
        _refuse("--control-token needs --control URL")
    listeners = []
    for option, attr, what, reach in (
            ("--modbus", "modbus", "Modbus TCP server",
             "read the device and write its registers (commands, presses where the map has injection)"),
            ("--control", "control", "control endpoint",
             "try the control endpoint (it refuses requests without the token; the token travels in clear text)"),
            ("--actuator-modbus", "actuator_modbus", "actuator DO module", "press the device's seat buttons")):
        value = getattr(args, attr, None)
        if not value:
            continue
        if value.startswith("tcp://:"):  # no host: loopback (never "every interface", as an empty host binds)
            value = f"tcp://{LOOPBACK}{value.removeprefix('tcp://')}"
            setattr(args, attr, value)
        try:
            url = ModbusUrl.parse(value)
        except ValueError as exc:
            _refuse(f"{option}: {exc}")
        if option != "--modbus" and url.scheme != "tcp":
            _refuse(f"{option} {value!r}: expected tcp://HOST:PORT")
        if option == "--control" and urlsplit(value).query:
            _refuse(f"--control {value!r}: give the address only (tcp://HOST:PORT); the token is drawn, "
                    "or set with --control-token HEX")
        if url.scheme == "tcp":
            listeners.append(Listener(what, option, url.host, url.port, reach))
    if args.control:
        try:
            args.control_token = new_token() if args.control_token is None else check_token(args.control_token)
        except ValueError as exc:
            _refuse(f"--control-token: {exc}")
    try:
        warning = check_exposure(listeners, args.allow_remote)
    except ExposureRefused as exc:
        _refuse(str(exc))
    if warning:
        print(warning, file=sys.stderr, flush=True)


#: the program name in usage lines, whichever way the stub was started
PROG = "croupier stub"
EXIT_BAD_INPUT = 2

STUB_HELP = (
    "Run a device's firmware stub: its SimPy model behind its wire protocol, in this process.\n\n"
    "The stub serves until SIGTERM or SIGINT, in real time (or --time-scale times real time). "
    "Once serving, it prints one line on stdout, READY DEVICE URL \\[control=URL] \\[actuator=URL], "
    "naming the bound port or the pty's peer path: what a test or a bench file needs to reach it. "
    "The control URL carries the stub's token (?token=HEX); the wagering device's and the progressive "
    "system's URL carry the supervisor key (?supervisor_key=HEX).\n\n"
    "Stubs listen on loopback only: a host that is not loopback is refused (exit 2) unless --allow-remote "
    "is given, and then a warning on stderr names what is exposed (docs/security.md).\n\n"
    "The bonus games' devices (multiplier-board, coin-flipper, pachinko-board, crazy-time-world-wheel), "
    "the illuminator and the progressive-system speak Modbus only; the roulette-wheel speaks its vendor's "
    "line protocol only (--pty or --serial).\n\n"
    "Examples:\n\n"
    "  croupier stub wagering --modbus tcp://127.0.0.1:0 -v\n"
    "  croupier stub wagering --modbus 'rtu://pty?baudrate=9600&parity=E'\n"
    "  croupier stub wagering --pty --param lockout_latency_mean_s=0.005\n"
    "  croupier stub money-wheel --modbus tcp://:0 --clock-ppm 2000\n"
    "  croupier stub roulette-wheel --pty --param wheel=double-zero\n"
    "  croupier stub top-slot --modbus tcp://:0 --control tcp://:0\n\n"
    "Exit status: 0 once stopped by SIGTERM or SIGINT, 2 for bad input (nothing was started).")

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, context_settings={"max_content_width": 100})


@app.command(help=STUB_HELP, no_args_is_help=True)
def stub(
    device: Annotated[str, typer.Argument(
        metavar="DEVICE", show_default=False,
        help="the device to serve: " + ", ".join(sorted(DEVICES)))],
    modbus: Annotated[Optional[str], typer.Option(
        metavar="URL", help="serve Modbus: tcp://HOST:PORT (port 0: any free one; tcp://:PORT: 127.0.0.1), "
                            "rtu://PATH?baudrate=N, or rtu://pty?baudrate=N&parity=E (a new pty, paced at "
                            "that line's speed)")] = None,
    serial: Annotated[Optional[str], typer.Option(
        metavar="URL", help="serve serial frames on a pyserial URL: a device path, socket://HOST:PORT, "
                            "rfc2217://..., loop://")] = None,
    pty: Annotated[bool, typer.Option(
        "--pty", help="serve serial frames on a new pty; READY names the peer's path")] = False,
    baudrate: Annotated[Optional[int], typer.Option(
        help="the serial line's baud rate (default 115200; roulette-wheel: 9600, and its --pty is paced "
             "at it)", show_default=False)] = None,
    unit: Annotated[int, typer.Option(help="the Modbus device id")] = 1,
    register_map: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="a vendor register map TOML (default: the shipped one)")] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        metavar="NAME=VALUE", help="a model parameter or fault knob; repeat for more")] = None,
    seed: Annotated[int, typer.Option(help="the model's random seed")] = 0,
    time_scale: Annotated[float, typer.Option(help="simulated seconds per wall second")] = 1.0,
    clock_ppm: Annotated[float, typer.Option(
        help="the device clock runs this many ppm fast (negative: slow) against the model's time, as a "
             "drifting crystal does (docs/wire/clock.md)")] = 0.0,
    truth_file: Annotated[Optional[str], typer.Option(
        metavar="FILE", help="wagering: append the ground truth of every lock-out here (JSON lines)")] = None,
    rules: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="top-slot, multiplier-board, illuminator: the Rules Submission whose PAR the reels "
                             "follow or whose distributions the board draws from (illuminator: a Roulette X "
                             "one; default: the shipped one)")] = None,
    actuator_modbus: Annotated[Optional[str], typer.Option(
        metavar="URL", help="wagering, progressive-system (with --modbus): also serve a Modbus DO module on "
                            "tcp://HOST:PORT whose coils press the seat buttons (docs/wire/actuator.md)")] = None,
    control: Annotated[Optional[str], typer.Option(
        metavar="URL", help="serve the control endpoint on tcp://127.0.0.1:PORT (0: any free port), where the "
                            "rig sets the model's parameters and fault knobs per scenario; READY prints its URL "
                            "with the token")] = None,
    control_token: Annotated[Optional[str], typer.Option(
        metavar="HEX", help="with --control: the token every request must carry, at least 32 hex digits "
                            "(default: a fresh secrets.token_hex(16), printed on READY)")] = None,
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote", help="let --modbus, --control and --actuator-modbus bind a host that is not loopback "
                               "(0.0.0.0, ::, a LAN address); a warning names what is exposed "
                               "(docs/security.md)")] = False,
    supervisor_key: Annotated[Optional[str], typer.Option(
        metavar="HEX", help="wagering, progressive-system: the supervisor key (32 hex digits) that opening a "
                            "round, paying, confirming wagers and the win lights need (default: a fresh random "
                            "one); READY prints it in the device URL's ?supervisor_key=")] = None,
    verbose: Annotated[int, typer.Option(
        "--verbose", "-v", count=True, help="log each connection and each command on stderr (-v); also the "
                                            "values read and written (-vv)")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="log errors only on stderr")] = False,
    log_file: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="also append the log to FILE as JSON lines (info and above; debug at -vv)")] = None,
) -> None:
    args = SimpleNamespace(device=device, modbus=modbus, serial=serial, pty=pty, baudrate=baudrate, unit=unit,
                           register_map=register_map, param=list(param or []), seed=seed, time_scale=time_scale,
                           clock_ppm=clock_ppm, truth_file=truth_file, rules=rules, actuator_modbus=actuator_modbus,
                           control=control, control_token=control_token, allow_remote=allow_remote,
                           supervisor_key=supervisor_key, verbosity=-1 if quiet and not verbose else min(verbose, 2),
                           log_file=log_file)
    serve(args)


def serve(args: SimpleNamespace) -> None:
    """The stub the command line describes: its input checked (exit 2 for bad input, nothing
    started), then served until SIGTERM/SIGINT."""
    if args.device not in DEVICES:
        from difflib import get_close_matches

        near = get_close_matches(args.device, list(DEVICES), n=1)
        _refuse(f"unknown device {args.device!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
                + f"; the devices: {', '.join(sorted(DEVICES))}")
    wires = [w for w, given in (("--modbus", args.modbus), ("--serial", args.serial), ("--pty", args.pty)) if given]
    if not wires:
        _refuse("say which wire to serve: --modbus URL, --serial URL or --pty")
    if len(wires) > 1:
        _refuse(f"{' and '.join(wires)}: give one wire only (--modbus URL, --serial URL or --pty)")
    args.supervisor_key_bytes = None
    if args.device in KEYED:
        from devices.supervisor import new_key, parse_key

        try:
            args.supervisor_key_bytes = new_key() if args.supervisor_key is None else parse_key(args.supervisor_key)
        except ValueError as exc:
            _refuse(f"--supervisor-key: {exc}")
    elif args.supervisor_key is not None:
        _refuse(f"--supervisor-key: {args.device} holds no supervisor key (wagering, progressive-system do)")
    _check_listeners(args)
    if args.time_scale <= 0:
        _refuse("--time-scale must be > 0")
    if not -1e5 < args.clock_ppm < 1e5:
        _refuse("--clock-ppm must be within ±100000 (±10 %)")
    if args.modbus is None and args.device in MODBUS_ONLY:
        _refuse(f"{args.device} speaks Modbus only (--modbus URL): it has no serial frames")
    if args.modbus is not None and args.device in SERIAL_ONLY:
        _refuse(f"{args.device} speaks its vendor's serial line protocol only (--pty or --serial URL): "
                f"it has no Modbus register map")
    if args.device in SERIAL_ONLY and args.baudrate is None:
        args.baudrate = SERIAL_ONLY[args.device]
    try:
        logs.configure(args.verbosity, args.log_file)
    except OSError as exc:
        _refuse(f"--log-file {args.log_file}: cannot write: {exc.strerror or exc}")
    try:
        if args.modbus is None:
            _serve_serial(args)
        else:
            logging.getLogger("pymodbus").setLevel(logging.ERROR)
            try:
                asyncio.run(_main(args))
            except KeyboardInterrupt:
                pass
        sys.stdout.flush()
    finally:
        logs.reset()  # a stub run in-process (tests) leaves the croupier loggers as it found them


def main(argv: list[str] | None = None) -> None:
    """``python -m firmware_stubs DEVICE ...`` and ``croupier stub DEVICE ...``: returns when the
    stub has stopped; SystemExit for bad input (2) or a device that cannot be built."""
    try:
        app(args=argv, prog_name=PROG, standalone_mode=True)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise


if __name__ == "__main__":
    main()
