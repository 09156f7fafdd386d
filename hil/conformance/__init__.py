"""``croupier conformance``: a device's wire contract, clause by clause, against a device.

    croupier conformance money-wheel --modbus tcp://192.0.2.10:502 [--unit 1] [--register-map FILE] [--json]
    croupier conformance wagering --serial /dev/ttyUSB0 [--json]
    croupier conformance roulette-wheel --serial /dev/ttyUSB2     # the vendor's line protocol, 9600 8N1

Each clause of the contract (docs/wire/*.md; the list is docs/conformance.md) is run against the
device and gets a verdict — pass, fail (expected vs seen) or skip (why it cannot be judged on
this device). The exit code is 0 when no clause failed, 1 when one did, 2 for bad input or an
unreachable device (nothing judged). The rig's own firmware stubs pass every clause.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from hil.conformance.core import Clause, Report, Unreachable, run_clauses
from hil.wire.supervisor import redact
from hil.config import ConfigError

#: device kinds the kit knows, per wire
MODBUS_DEVICES = ("money-wheel", "top-slot", "wagering", "progressive-system", "multiplier-board", "coin-flipper",
                  "pachinko-board", "crazy-time-world-wheel", "illuminator")
SERIAL_DEVICES = ("money-wheel", "top-slot", "wagering", "roulette-wheel")


class BadInput(ValueError):
    """A device, URL or map the kit cannot use (exit 2)."""


def modbus_clauses(device: str) -> list[Clause]:
    if device in ("money-wheel", "top-slot"):
        from hil.conformance import modbus_spinning

        return modbus_spinning.money_wheel_clauses() if device == "money-wheel" else modbus_spinning.top_slot_clauses()
    if device in ("wagering", "progressive-system"):
        from hil.conformance import modbus_wagering

        return modbus_wagering.wagering_clauses(device)
    from hil.conformance import modbus_command

    return modbus_command.command_clauses(device)


def serial_clauses(device: str) -> list[Clause]:
    if device == "roulette-wheel":  # the vendor's line protocol, not the frames
        from hil.conformance import slingshot

        return slingshot.clauses()
    from hil.conformance import serial_frames

    return serial_frames.clauses(device)


def _figures(notes: dict) -> dict:
    """The clauses' measured figures, named with their units."""
    out: dict = {}
    if "clock_rate_ppm" in notes:
        rate, unc = notes["clock_rate_ppm"]
        out["clock_rate_ppm"] = {"value": rate, "uncertainty": unc}
    if "lockout_latency_us" in notes:
        lo, hi = notes["lockout_latency_us"]
        out["lockout_boundary_us"] = {"after": lo, "at_most": hi, "clock": "device"}
    if "garbled_sent" in notes:
        out["garbled_frames_sent"] = notes["garbled_sent"]
    return out


async def _run_modbus(device: str, url: str, unit: int, register_map: Path | None, max_drift_ppm: float,
                      without: tuple[str, ...]) -> Report:
    from hil.conformance.modbus import ModbusContext
    from hil.wire.registers import default_map, load_register_map

    try:
        rmap = load_register_map(register_map, device) if register_map else default_map(device)
        rmap = rmap.without_features(*without) if without else rmap
    except (ConfigError, ValueError) as exc:
        raise BadInput(str(exc)) from None
    shown = str(register_map) if register_map else f"default ({rmap.name})"
    report = Report(device, redact(url), shown + (f" without {', '.join(without)}" if without else ""))
    ctx = ModbusContext(url, unit, rmap, max_drift_ppm=max_drift_ppm)
    try:
        await ctx.connect()
        await run_clauses(modbus_clauses(device), ctx, report)
    except Unreachable as exc:
        report.error = f"unreachable: {exc}"
    finally:
        ctx.close()
    report.measured = _figures(ctx.notes)
    return report


async def _run_serial(device: str, url: str, max_drift_ppm: float) -> Report:
    from hil.conformance.serial_frames import SerialContext
    from hil.conformance.slingshot import LineContext

    report = Report(device, redact(url), None)
    ctx = LineContext(url) if device == "roulette-wheel" else SerialContext(url, device, max_drift_ppm)
    try:
        await ctx.open()
        await run_clauses(serial_clauses(device), ctx, report)
    except Unreachable as exc:
        report.error = f"unreachable: {exc}"
    finally:
        ctx.close()
    report.measured = _figures(ctx.notes)
    return report


def run(device: str, *, modbus: str | None = None, serial: str | None = None, unit: int = 1,
        register_map: Path | None = None, max_drift_ppm: float | None = None,
        without_features: tuple[str, ...] = ()) -> Report:
    """Run ``device``'s clauses against the device at ``modbus`` or ``serial``; ``BadInput`` for
    a combination the kit cannot run. ``max_drift_ppm``: the clock rate allowed (default: the
    bench's default, ``MAX_DRIFT_PPM``); ``without_features``: optional feature groups the device
    lacks (``RegisterMap.without_features``, e.g. ``("injection",)``)."""
    from hil.conformance.modbus_common import MAX_DRIFT_PPM

    drift = MAX_DRIFT_PPM if max_drift_ppm is None else float(max_drift_ppm)
    if not drift > 0:
        raise BadInput(f"--max-drift-ppm must be > 0, not {max_drift_ppm}")
    if (modbus is None) == (serial is None):
        raise BadInput("give exactly one of --modbus URL or --serial URL")
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)  # the kit reports what went wrong itself
    if modbus is not None:
        if device not in MODBUS_DEVICES:
            raise BadInput(f"no Modbus contract for {device!r} (one of {', '.join(MODBUS_DEVICES)})")
        from hil.wire.url import ModbusUrl

        try:
            ModbusUrl.parse(modbus)
        except ValueError as exc:
            raise BadInput(f"--modbus {modbus!r}: {exc}") from None
        return asyncio.run(_run_modbus(device, modbus, unit, register_map, drift, tuple(without_features)))
    if device not in SERIAL_DEVICES:
        raise BadInput(f"no serial framed contract for {device!r} (one of {', '.join(SERIAL_DEVICES)}; the others "
                       "speak Modbus only)")
    if register_map is not None or without_features:
        raise BadInput("--register-map and --without-feature are for --modbus devices")
    return asyncio.run(_run_serial(device, serial, drift))


def print_report(report: Report) -> None:
    """The report as a rich table on stdout."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 140))
    if report.error:
        console.print(f"[bold red]error[/]: {report.error}", markup=True, highlight=False)
        return
    table = Table(title=f"conformance: {report.device} at {report.url}", title_justify="left")
    for col in ("clause", "status", "cites", "detail"):
        table.add_column(col, overflow="fold")
    style = {"pass": "green", "fail": "bold red", "skip": "yellow"}
    for v in report.verdicts:
        table.add_row(v.id, f"[{style[v.status]}]{v.status}[/]", f"docs/wire/{v.cites}", v.detail)
    console.print(table)
    c = report.counts
    console.print(f"{c['pass']} pass, {c['fail']} fail, {c['skip']} skip", highlight=False)
