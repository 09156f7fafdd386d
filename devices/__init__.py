"""Device contracts (``devices.contracts``) and the SimPy models that implement them."""

from devices.contracts import (
    MoneyWheel,
    PressAnswer,
    SpinStop,
    Telemetry,
    TopSlot,
    TopSlotStop,
    WageringDevice,
    WheelInfo,
)
from devices.money_wheel import (
    MoneyWheelParams,
    MoneyWheelSim,
    SpinBatch,
    SpinPhysics,
    SpinTrajectory,
    simulate_spin,
    simulate_spins_batch,
    spin_trajectory,
)
from devices.top_slot import TopSlotParams, TopSlotSim
from devices.wagering import WageringParams, WageringSim

__all__ = [
    "MoneyWheel", "PressAnswer", "SpinStop", "Telemetry", "TopSlot", "TopSlotStop", "WageringDevice", "WheelInfo",
    "MoneyWheelParams", "MoneyWheelSim", "SpinBatch", "SpinPhysics", "SpinTrajectory", "simulate_spin",
    "simulate_spins_batch", "spin_trajectory", "TopSlotParams", "TopSlotSim", "WageringParams", "WageringSim",
]
