"""Wire contracts of the real devices: Modbus register maps (``registers``), serial frames (``frames``)."""
