"""Where a firmware stub listens, and who can reach it (docs/security.md).

A stub listens on up to three TCP sockets: its Modbus TCP server (``--modbus tcp://HOST:PORT``),
its control endpoint (``--control``) and its actuator DO module (``--actuator-modbus``). Each of
them lets its peer move the device: press seat buttons, re-open betting, reprogram the model, read
the ground truth. So each binds loopback unless the stub is told otherwise, on purpose: a host that
is not loopback (``0.0.0.0``, ``::``, a LAN address, a name that resolves to one) is refused unless
the stub is started with ``--allow-remote``, and then a warning on stderr names what is exposed.
Each server checks it again where it binds (``ModbusServer.start_tcp``, ``ControlServer.start``,
``check_exposure`` with the ``allow_remote`` the command line passed through), so a server started
in-process, not from the command line, refuses the same hosts.

Serial wires (``--pty``, ``--serial``, ``rtu://``) are not network listeners: pyserial's
``socket://`` and ``rfc2217://`` connect out to a host, they do not listen.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

#: the host a stub binds when the command line does not say otherwise
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Listener:
    """One TCP socket a stub is asked to bind: what it is, the option that asked for it, where."""

    what: str      # "Modbus TCP server", "control endpoint", "actuator DO module"
    option: str    # "--modbus"
    host: str
    port: int
    #: what a peer that reaches it can do (for the warning)
    reach: str


class ExposureRefused(ValueError):
    """A listener asked for a host that is not loopback, without ``--allow-remote``."""


def loopback_addresses(host: str) -> tuple[bool, list[str]]:
    """(every address ``host`` binds is loopback, those addresses). A literal address is taken as
    it is; a name is resolved the way the socket layer will resolve it to bind (every address it
    gives is bound). A host that does not resolve is not loopback (its bind would fail anyway)."""
    try:
        addrs = [ipaddress.ip_address(host.strip("[]").split("%")[0])]
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        except (OSError, UnicodeError):
            return False, []
        addrs = []
        for info in infos:
            try:
                addrs.append(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
            except ValueError:
                return False, [str(info[4][0])]
    shown = sorted({str(a) for a in addrs})
    # an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is loopback when its IPv4 address is
    is_lo = [(a.ipv4_mapped or a).is_loopback if isinstance(a, ipaddress.IPv6Address) else a.is_loopback
             for a in addrs]
    return bool(addrs) and all(is_lo), shown


def check_exposure(listeners: list[Listener], allow_remote: bool) -> str | None:
    """The warning to print on stderr when ``allow_remote`` lets a listener bind beyond loopback
    (None: everything is on loopback); raises ``ExposureRefused`` naming each such listener when
    it does not."""
    exposed = []
    for ln in listeners:
        ok, addrs = loopback_addresses(ln.host)
        if not ok:
            exposed.append((ln, addrs))
    if not exposed:
        return None
    if not allow_remote:
        lines = [f"{ln.option} tcp://{_where(ln)} binds {_binds(ln.host, addrs)}, not loopback: anyone on the "
                 f"network who reaches the stub's {ln.what} there could {ln.reach}" for ln, addrs in exposed]
        raise ExposureRefused("; ".join(lines) + f". A stub binds {LOOPBACK} by default; to expose it on "
                              "purpose (a lab network you control), add --allow-remote")
    lines = [f"WARNING: --allow-remote: the stub's {ln.what} listens on {_where(ln)}, {_binds(ln.host, addrs)}, "
             f"beyond loopback: anyone on the network who reaches it can {ln.reach}" for ln, addrs in exposed]
    if any(ln.what == "control endpoint" for ln, _ in exposed):
        lines.append("WARNING: the control endpoint's token travels in clear text (plain TCP, no TLS): "
                     "anyone who can see the traffic can take it and reprogram the device")
    return "\n".join(lines)


def _binds(host: str, addrs: list[str]) -> str:
    """What a host binds, in words: every interface, an address, what a name resolves to."""
    if any(ipaddress.ip_address(a).is_unspecified for a in addrs if _is_ip(a)):
        return "every interface"
    if not addrs:
        return f"{host!r}, which does not resolve"
    return ", ".join(addrs)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _where(ln: Listener) -> str:
    host = f"[{ln.host}]" if ":" in ln.host and not ln.host.startswith("[") else ln.host
    return f"{host}:{ln.port}"
