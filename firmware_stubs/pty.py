"""A pty pair for a stub: the stub serves on the master side, the rig opens the peer's path.

``os.openpty()`` gives both ends; the stub keeps both open for its whole life (so the rig may
open, close and reopen the peer without the master seeing a hang-up) and puts the peer in raw
mode at once, before anyone opens it: no echo, no line editing, 8-bit clean. ptys ignore baud
rate: a stub that wants a slow link must add the wire time itself (DESIGN.md, Pitfalls).
"""

from __future__ import annotations

import os
import tty
from dataclasses import dataclass


@dataclass
class PtyPair:
    master_fd: int
    peer_fd: int
    peer_path: str  # what the rig opens, e.g. /dev/pts/7

    def close(self) -> None:
        for fd in (self.master_fd, self.peer_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def open_pty() -> PtyPair:
    master, peer = os.openpty()
    tty.setraw(peer)
    return PtyPair(master, peer, os.ttyname(peer))
