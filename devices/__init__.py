"""Device contracts (``devices.contracts``) and the SimPy models that implement them."""

from devices.coin_flipper import CoinFlight, CoinFlipperParams, CoinFlipperSim, coin_flight, same_face_probability
from devices.contracts import (
    BoardDraw,
    BoardShown,
    CoinFlipper,
    CoinFlipResult,
    CrazyTimeWorldWheel,
    CtwStop,
    MoneyWheel,
    MultiplierBoard,
    PachinkoBoard,
    PressAnswer,
    PuckLanding,
    SpinStop,
    Telemetry,
    TopSlot,
    TopSlotStop,
    WageringDevice,
    WheelInfo,
)
from devices.ctw_wheel import CtwWheelParams, CtwWheelSim
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
from devices.multiplier_board import MultiplierBoardParams, MultiplierBoardSim
from devices.pachinko import PachinkoParams, PachinkoSim
from devices.top_slot import TopSlotParams, TopSlotSim
from devices.wagering import WageringParams, WageringSim

__all__ = [
    "MoneyWheel", "PressAnswer", "SpinStop", "Telemetry", "TopSlot", "TopSlotStop", "WageringDevice", "WheelInfo",
    "MoneyWheelParams", "MoneyWheelSim", "SpinBatch", "SpinPhysics", "SpinTrajectory", "simulate_spin",
    "simulate_spins_batch", "spin_trajectory", "TopSlotParams", "TopSlotSim", "WageringParams", "WageringSim",
    "BoardDraw", "BoardShown", "CoinFlipper", "CoinFlipResult", "CrazyTimeWorldWheel", "CtwStop", "MultiplierBoard",
    "PachinkoBoard", "PuckLanding",
    "CoinFlight", "CoinFlipperParams", "CoinFlipperSim", "coin_flight", "same_face_probability",
    "PachinkoParams", "PachinkoSim", "MultiplierBoardParams", "MultiplierBoardSim", "CtwWheelParams", "CtwWheelSim",
]
