"""An outside vendor's Crazy Time base-game devices, written from docs/wire and docs/devices only.

Four Modbus TCP servers, one process (``python -m tests.peers.vendor_ct``): the money wheel
(``wheel``), the Top Slot (``top_slot``), the wagering device with its seat buttons
(``wagering``) and the relay / digital-output module wired to those buttons (``actuator``).
The wagering device and the relay module share one state: a coil's rising edge closes a
button's contact, and the wagering device registers the press at that instant.

Nothing here imports the project's device models, adapters or wire code (``devices``,
``hil.adapters``, ``hil.wire``, ``firmware_stubs``): what the docs did not say is guessed and
listed in ``GAPS.md``.
"""
