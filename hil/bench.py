"""The bench: which implementation stands behind each device role, and its parameters.

A bench file is versioned TOML. Each device role (``wheel``, ``top_slot``, ``wagering``)
names its ``kind`` — ``"sim"`` (a SimPy model from ``devices``) or, from the real-device path
issue on, ``"modbus"`` / ``"serial"`` — and its parameters. Swapping a simulated device for the
real one is one line. Sim parameters are the model's frozen params dataclass, validated here
with pydantic so a typo fails at load with file, line and field.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pydantic
import simpy

from devices.contracts import MoneyWheel, Telemetry, TopSlot, WageringDevice
from devices.money_wheel import MoneyWheelParams, MoneyWheelSim
from devices.top_slot import TopSlotParams, TopSlotSim
from devices.wagering import WageringParams, WageringSim
from hil.config import ConfigError, dotted, parse_toml, read_text, validate
from rules.submission import RulesSubmission

ROLES = ("wheel", "top_slot", "wagering")

#: role -> (sim model name, params dataclass)
SIM_MODELS: dict[str, tuple[str, type]] = {
    "wheel": ("money-wheel", MoneyWheelParams),
    "top_slot": ("top-slot", TopSlotParams),
    "wagering": ("wagering", WageringParams),
}

DEFAULT_BENCH_RESOURCE = "data/default_bench.toml"


class DeviceConfig(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)

    kind: Literal["sim", "modbus", "serial"]
    model: str | None = None
    params: dict[str, Any] = {}
    # Real-device fields (used from the real-device path issue on).
    url: str | None = None
    unit: int | None = None
    register_map: str | None = None
    timeout_s: float | None = None
    poll_period_s: float | None = None


class BenchConfig(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = pydantic.Field(alias="schema")
    name: str
    description: str = ""
    devices: dict[Literal["wheel", "top_slot", "wagering"], DeviceConfig]

    @pydantic.model_validator(mode="after")
    def _all_roles(self) -> BenchConfig:
        missing = [r for r in ROLES if r not in self.devices]
        if missing:
            raise ValueError(f"missing device role(s): {', '.join(missing)}")
        return self


@dataclass(frozen=True)
class LoadedBench:
    config: BenchConfig
    source: str  # file path, or "embedded:<resource>"
    text: str  # the exact bytes hashed into provenance


@functools.cache
def params_adapter(role: str) -> pydantic.TypeAdapter:
    return pydantic.TypeAdapter(SIM_MODELS[role][1])


def _unknown(role: str, params: dict[str, Any]) -> list[str]:
    known = {f.name for f in dataclasses.fields(SIM_MODELS[role][1])}
    return [k for k in params if k not in known]


def sim_params(role: str, *layers: dict[str, Any]) -> Any:
    """The params dataclass for ``role`` from the defaults overlaid by each layer in turn."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    if unknown := _unknown(role, merged):
        raise ValueError(f"unknown {role} parameter(s) {unknown}")
    return params_adapter(role).validate_python(merged)


def check_params(role: str, params: dict[str, Any]) -> list[tuple[tuple, str]]:
    """Validation errors (loc, message) of sim params for ``role``; empty when they are valid."""
    if role not in SIM_MODELS:
        return [((), f"unknown device role {role!r} (known: {', '.join(ROLES)})")]
    if unknown := _unknown(role, params):
        known = ", ".join(f.name for f in dataclasses.fields(SIM_MODELS[role][1]))
        return [((k,), f"unknown parameter (known: {known})") for k in unknown]
    try:
        params_adapter(role).validate_python(params)
    except pydantic.ValidationError as exc:
        return [(tuple(e["loc"]), e["msg"]) for e in exc.errors()]
    return []


def parse_bench(text: str, source: str) -> LoadedBench:
    data, lines = parse_toml(text, source)
    config = validate(BenchConfig, data, source, lines)
    for role, dev in config.devices.items():
        if dev.kind != "sim":
            raise ConfigError(source, lines.line(("devices", role, "kind")), f"devices.{role}.kind",
                              f"kind {dev.kind!r} is not available in this release: only 'sim' "
                              "(the real-device path adds 'modbus' and 'serial')")
        expected_model = SIM_MODELS[role][0]
        if dev.model not in (None, expected_model):
            raise ConfigError(source, lines.line(("devices", role, "model")), f"devices.{role}.model",
                              f"unknown sim model {dev.model!r} for {role} (expected {expected_model!r})")
        for loc, msg in check_params(role, dev.params):
            path = ("devices", role, "params", *loc)
            raise ConfigError(source, lines.line(path), dotted(path), msg)
    return LoadedBench(config, source, text)


def load_bench(path: Path | None = None) -> LoadedBench:
    """The bench file at ``path``, or the embedded default simulated bench."""
    if path is None:
        res = importlib.resources.files("hil").joinpath(DEFAULT_BENCH_RESOURCE)
        return parse_bench(res.read_text(encoding="utf-8"), f"embedded:hil/{DEFAULT_BENCH_RESOURCE}")
    return parse_bench(read_text(path), str(path))


@dataclass
class Devices:
    wheel: MoneyWheel
    top_slot: TopSlot
    wagering: WageringDevice


def build_devices(
    env: simpy.Environment,
    bench: BenchConfig,
    overrides: dict[str, dict[str, Any]],
    rules: RulesSubmission,
    seeds: np.random.SeedSequence,
    telemetry: Telemetry,
) -> tuple[Devices, dict[str, dict[str, Any]]]:
    """Instantiate each role; returns the devices and the effective params per role (for the trace)."""
    rngs = dict(zip(ROLES, (np.random.Generator(np.random.PCG64(s)) for s in seeds.spawn(len(ROLES)))))
    params = {role: sim_params(role, bench.devices[role].params, overrides.get(role, {})) for role in ROLES}
    devices = Devices(
        wheel=MoneyWheelSim(env, params["wheel"], rngs["wheel"], telemetry, name="wheel"),
        top_slot=TopSlotSim(env, params["top_slot"], rules.top_slot, rngs["top_slot"], telemetry, name="top_slot"),
        wagering=WageringSim(env, params["wagering"], rngs["wagering"], telemetry, name="wagering"),
    )
    return devices, {role: dataclasses.asdict(p) for role, p in params.items()}
