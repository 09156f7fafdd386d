"""``MB-illegal-function`` probes every kind of function code outside the contract
(docs/wire/README.md, "Answers to bad requests": any but 1–6, 15, 16 is exception 1 and changes
nothing): the codes a stock Modbus server implements, a user-defined one and a high one, each a
well-formed request of its kind, against a snapshot of the writable points. pymodbus' own server,
as it comes, fails it for the codes it answers and for the mask write it executes; a peer that
never answers fails it at the first code, without waiting out the others."""

from __future__ import annotations

import asyncio

import pytest

from hil.conformance.core import ClauseFailed
from hil.conformance.modbus import ModbusContext
from hil.conformance.modbus_common import CONTRACT_FUNCTIONS, UNLISTED_FUNCTIONS, illegal_function
from hil.wire.registers import default_map
from tests.conformance.peers import static_peer, stock_pymodbus_peer


def _clause(url: str, device: str = "money-wheel") -> str:
    async def go() -> str:
        ctx = ModbusContext(url, 1, default_map(device))
        await ctx.connect()
        try:
            return await illegal_function(ctx)
        finally:
            ctx.close()

    return asyncio.run(go())


def test_the_probed_codes_are_outside_the_contract_and_include_pymodbus_defaults():
    assert not set(UNLISTED_FUNCTIONS) & CONTRACT_FUNCTIONS
    assert {8, 11, 12, 17, 20, 21, 22, 23, 24, 43} <= set(UNLISTED_FUNCTIONS)
    assert max(UNLISTED_FUNCTIONS) >= 0x80  # a code an exception answer's bit cannot be added to


def test_pymodbus_as_it_comes_fails_for_the_codes_it_answers_and_the_write_it_executes():
    with stock_pymodbus_peer() as url:
        with pytest.raises(ClauseFailed) as info:
            _clause(url)
    detail = str(info.value)
    for fc in (8, 17, 22, 43):
        assert f"function code {fc} answered" in detail, detail
    # FC22 (mask write) and FC23 executed: the holding register they aim at changed
    assert "writable points changed" in detail and "holding" in detail, detail


def test_a_peer_that_never_answers_fails_at_the_first_code():
    with static_peer() as url:
        with pytest.raises(ClauseFailed, match=rf"function code {UNLISTED_FUNCTIONS[0]} was not answered "
                                               rf"\({len(UNLISTED_FUNCTIONS) - 1} other code"):
            _clause(url)


def test_the_stubs_own_server_passes_it_and_says_what_it_probed():
    import numpy as np

    from devices.money_wheel import MoneyWheelParams
    from firmware_stubs.money_wheel import MoneyWheelGlue
    from tests.conformance.peers import served_glue

    def make(clock, rmap):
        return MoneyWheelGlue(clock, MoneyWheelParams(), np.random.default_rng(3), rmap)

    with served_glue("money-wheel", make) as url:
        detail = _clause(url)
    assert detail.startswith(f"function codes {', '.join(map(str, UNLISTED_FUNCTIONS))}: exception 1"), detail
    assert "unchanged" in detail
