"""Transports to real devices: Modbus TCP/RTU (pymodbus, async), serial (pyserial), VISA (pyvisa).

All I/O runs on one asyncio loop in its own thread (``IoLoop``); arrival times are stamped with
``time.perf_counter_ns()`` where the bytes arrive, never in the controller."""
