"""Who a request comes from: the socket's peer, or, when that peer is a proxy named in the
trusted list (the web front, a balancer), the address the proxy says it serves.

`X-Forwarded-For` is believed only from a trusted peer, and then read from the right: each
proxy appends the address it was reached from, so the right-most entry that is not itself a
trusted proxy is the first address no one we trust could have made up; anything to its left
is the caller's own writing (docs/decisions/0087-limits-at-the-web-front.md). Pure: the ASGI
scope is passed in.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import Scope

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
UNKNOWN = "unknown"
# an IPv6 client holds a whole /64 (a home, a phone): it is one caller, not 2^64
IPV6_CALLER_PREFIX = 64


class TrustedProxies:
    """The peers whose `X-Forwarded-For` is believed: addresses or CIDR networks."""

    def __init__(self, networks: Iterable[IPNetwork] = ()) -> None:
        self._networks = tuple(networks)

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """`10.0.0.0/8, 192.0.2.7, ::1`: comma-separated; ValueError names a bad entry."""
        networks = []
        for entry in filter(None, (part.strip() for part in text.split(","))):
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or a CIDR network") from None
        return cls(networks)

    def __bool__(self) -> bool:
        return bool(self._networks)

    def trust(self, address: str) -> bool:
        parsed = _address(address)
        return parsed is not None and any(parsed in network for network in self._networks)


@dataclass(frozen=True)
class ClientAddress:
    """The caller's address, and whether a trusted proxy named it (`X-Forwarded-For`)."""

    address: str
    forwarded: bool = False

    @property
    def caller(self) -> str:
        """What the per-address limits count: the address, an IPv6 one by its /64."""
        parsed = _address(self.address)
        if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is None:
            network = ipaddress.IPv6Network((parsed, IPV6_CALLER_PREFIX), strict=False)
            return str(network)
        return self.address


def client_address(scope: Scope, proxies: TrustedProxies) -> ClientAddress:
    """The request's client: its peer, or, from a trusted peer, the right-most entry of
    `X-Forwarded-For` that is not a trusted proxy (the left-most one if all are). An entry
    that is not an IP address stops the walk at the last address a trusted proxy gave."""
    client = scope.get("client")
    peer = _canonical(client[0]) if client else UNKNOWN
    if not proxies or not proxies.trust(peer):
        return ClientAddress(peer)
    entries = [
        entry.strip()
        for name, value in scope.get("headers", ())
        if name == b"x-forwarded-for"
        for entry in value.decode("latin-1").split(",")
    ]
    found = peer
    for entry in reversed([entry for entry in entries if entry]):
        address = _canonical(_without_port(entry))
        if _address(address) is None:
            break
        found = address
        if not proxies.trust(address):
            break
    return ClientAddress(found, forwarded=found != peer)


def _address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _canonical(text: str) -> str:
    """One spelling per address (`::FFFF:0:1` and `::ffff:0:1` are one caller)."""
    parsed = _address(text)
    return text if parsed is None else str(parsed)


def _without_port(entry: str) -> str:
    """`192.0.2.1:4711` -> `192.0.2.1`, `[2001:db8::1]:4711` -> `2001:db8::1`."""
    if entry.startswith("["):
        return entry[1:].partition("]")[0]
    if entry.count(":") == 1:
        return entry.partition(":")[0]
    return entry
