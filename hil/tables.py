"""Tables as plugins: one ``Table`` interface and a registry, so the runner has no per-game branch.

A table knows its game's device roles (``hil.bench.GAME_ROLES``), how to build its devices and
its croupier (a ``hil.controller.TableCroupier``), what it records in round 0 (the bench, the rules
in force, the table it judges against), its tallies, its checks (``hil.checks.GAME_CHECKS``) and
whether it keeps durable state (streak trackers, meters: ``TableCroupier.state``/``restore``).
Adding a game is one ``Table`` subclass registered here (plus its croupier, checks and roles).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import simpy

from hil.bench import Built, LoadedBench, build_devices
from hil.checks import checks_for
from hil.controller import CROUPIER, CrazyTimeController, TableCroupier, bench_record
from hil.scenario import Scenario
from hil.trace import TraceWriter


@dataclass
class TableContext:
    """What a table is built from: the scenario, the bench, the rules in force and the run's streams."""

    scenario: Scenario
    bench: LoadedBench
    rules: Any  # the game's LoadedRules (hil.runner), or None for a table whose paytables are the regulation's
    env: simpy.Environment
    writer: TraceWriter
    io: Any
    ss_devices: np.random.SeedSequence
    ss_croupier: np.random.SeedSequence
    #: False on a resumed run: round 0's set-up records are already in the trace
    record_setup: bool = True
    built: Built | None = field(default=None, init=False)
    #: role -> the ``device_info`` each device declared while it was built (the bench/scenario
    #: mismatch check reads it: ``hil.applicability.mismatches``)
    device_info: dict[str, dict[str, Any]] = field(default_factory=dict, init=False)

    @property
    def croupier_rng(self) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(self.ss_croupier))

    def devices(self, submission: Any = None, **kw: Any) -> Built:
        sc = self.scenario
        # the devices write straight to the trace; their ``device_info`` is kept here as it is recorded
        self.writer.watch(("device_info",), lambda device, _kind, data: self.device_info.__setitem__(device, data))
        self.built = build_devices(self.env, self.bench, sc.device_overrides(), submission, self.ss_devices,
                                   self.writer.record, self.io, roles=sc.roles, **kw)
        if self.record_setup:
            bench_record(self.writer, self.built.params)
        return self.built

    def setup(self, kind: str, payload: dict) -> None:
        """A round-0 set-up record (``rules``, ``table``), once per trace."""
        if self.record_setup:
            self.writer.record(CROUPIER, kind, payload)


class Table:
    """One game's table. Subclasses set ``game`` and implement ``build``."""

    game: ClassVar[str]
    #: the regulation whose paytables the table uses when it has no Rules Submission file (trace metadata)
    regulation: ClassVar[str | None] = None
    #: the Rules Submission the table reads: "crazy-time", "roulette-x" or None (the regulation's own rows)
    rules_kind: ClassVar[str | None] = None
    #: the table keeps durable state across rounds (``croupier run --resume`` goes on from it)
    stateful: ClassVar[bool] = False

    def build(self, ctx: TableContext) -> TableCroupier:
        """Build the devices and the croupier, recording round 0's set-up; returns the croupier."""
        raise NotImplementedError

    def stats(self, ctl: TableCroupier) -> dict[str, int]:
        return dict(ctl.stats)

    @property
    def checks(self) -> tuple:
        return checks_for(self.game)


TABLES: dict[str, Table] = {}


def register(cls: type[Table]) -> type[Table]:
    TABLES[cls.game] = cls()
    return cls


def table_for(game: str) -> Table:
    try:
        return TABLES[game]
    except KeyError:
        raise ValueError(f"no table for game {game!r} (tables: {', '.join(sorted(TABLES))})") from None


@register
class CrazyTimeTable(Table):
    game = "crazy-time"
    rules_kind = "crazy-time"

    def build(self, ctx: TableContext) -> TableCroupier:
        sub = ctx.rules.submission
        built = ctx.devices(sub)
        ctx.setup("rules", sub.model_dump(mode="json", by_alias=True))
        ctx.writer.commit()
        return CrazyTimeController(ctx.env, built.devices, ctx.writer, ctx.scenario, sub, ctx.croupier_rng)

    def stats(self, ctl: TableCroupier) -> dict[str, int]:
        bonus = {f"bonus_{game.replace('-', '_')}": n for game, n in ctl.bonus.stats.items()}  # type: ignore[attr-defined]
        return {**ctl.stats, **bonus}


@register
class RouletteTable(Table):
    game = "roulette"
    rules_kind = "roulette-x"
    stateful = True

    def build(self, ctx: TableContext) -> TableCroupier:
        from hil.roulette import RouletteController, table_rules

        sc = ctx.scenario
        assert sc.table is not None
        rx = table_rules(ctx.rules.submission, sc.table)
        built = ctx.devices(roulette_x=rx)
        ctx.setup("rules", rx.model_dump(mode="json", by_alias=True))
        ctl = RouletteController(ctx.env, built.devices, ctx.writer, sc, rx, ctx.croupier_rng)
        ctx.setup("table", ctl.describe())
        return ctl


class CardTable(Table):
    """A card table: the regulation's own paytables, set-up committed before the first round."""

    controller: ClassVar[Callable[..., TableCroupier]]

    def build(self, ctx: TableContext) -> TableCroupier:
        built = ctx.devices()
        ctl = type(self).controller(ctx.env, built.devices, ctx.writer, ctx.scenario, ctx.croupier_rng)
        self.extras(ctx, ctl)
        ctx.setup("table", ctl.describe())
        ctx.writer.commit()
        return ctl

    def extras(self, ctx: TableContext, ctl: TableCroupier) -> None:
        """Whatever else the table runs beside its croupier."""


def _blackjack_controller(*args: Any) -> TableCroupier:
    from hil.blackjack import BlackjackController

    return BlackjackController(*args)


@register
class BlackjackTable(CardTable):
    game = "blackjack"
    regulation = "§§ 633b.17–633b.21"
    stateful = True
    controller = staticmethod(_blackjack_controller)

    def extras(self, ctx: TableContext, ctl: TableCroupier) -> None:
        from hil.blackjack import run_linked_tables

        sc = ctx.scenario
        if sc.cards is not None and sc.cards.linked_tables > 1:
            run_linked_tables(ctx.env, ctl.dev.progressive, sc.cards.linked_tables - 1, sc,  # type: ignore[attr-defined]
                              np.random.Generator(np.random.PCG64(ctx.ss_croupier.spawn(1)[0])))


def _poker(game: str) -> Callable[..., TableCroupier]:
    def make(*args: Any) -> TableCroupier:
        from hil.poker_tables import POKER_CONTROLLERS

        return POKER_CONTROLLERS[game](*args)
    return staticmethod(make)  # type: ignore[return-value]


@register
class UthTable(CardTable):
    game = "uth"
    regulation = "§§ 653b.2–653b.5"
    controller = _poker("uth")


@register
class CrissCrossTable(CardTable):
    game = "criss-cross"
    regulation = "§ 674b.1"
    controller = _poker("criss-cross")


@register
class Crazy4Table(CardTable):
    game = "crazy-4"
    regulation = "§ 657a.7"
    controller = _poker("crazy-4")
