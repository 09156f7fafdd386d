"""Addresses of real devices, shared by the rig and the firmware stubs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class ModbusUrl:
    scheme: Literal["tcp", "rtu"]
    host: str = ""
    port: int = 0
    path: str = ""
    baudrate: int = 115_200
    parity: str = "N"
    stopbits: int = 1
    bytesize: int = 8

    @classmethod
    def parse(cls, url: str) -> ModbusUrl:
        u = urlsplit(url)
        if u.scheme == "tcp":
            if not u.hostname or u.port is None:
                raise ValueError(f"{url!r}: expected tcp://HOST:PORT")
            return cls("tcp", host=u.hostname, port=u.port)
        if u.scheme == "rtu":
            q = {k: v[-1] for k, v in parse_qs(u.query).items()}
            path = (u.netloc + u.path) or ""
            if not path:
                raise ValueError(f"{url!r}: expected rtu://PATH[?baudrate=N&parity=N|E|O]")
            return cls("rtu", path=path, baudrate=int(q.get("baudrate", 115_200)),
                       parity=q.get("parity", "N").upper(), stopbits=int(q.get("stopbits", 1)),
                       bytesize=int(q.get("bytesize", 8)))
        raise ValueError(f"{url!r}: scheme must be tcp:// or rtu://")
