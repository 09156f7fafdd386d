"""Which bundled scenarios the stubs-versus-simulation comparisons run."""

from __future__ import annotations

from pathlib import Path

import yaml


#: dealer-procedure faults that still depend on what the devices report at the lock-out: kept in
#: the stub comparisons (a late press's timing is the device's)
DEVICE_TIMED_DEALER_FAULTS = frozenset({"settle_late_presses"})


def on_the_wire(path: Path) -> bool:
    """Whether a bundled scenario belongs in a stubs-versus-simulation comparison. A fault
    scenario whose only faults are the croupier's (``faults.croupier``: a wrong dealer procedure)
    runs the same croupier code on any bench — the devices are healthy and their reports are what
    the comparison proves on the wire already in the normal and device-fault scenarios — so it is
    left out (it runs in simulation in tests/hil/test_hil_suite.py), except where the fault acts on
    device-timed presses."""
    faults = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("faults") or {}
    if not faults or set(faults) != {"croupier"}:
        return True
    return bool(set(faults["croupier"] or {}) & DEVICE_TIMED_DEALER_FAULTS)
