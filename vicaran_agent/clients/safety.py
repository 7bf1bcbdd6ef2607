"""SSRF guard: Vicaran fetches pages itself only from public http(s) addresses.

`resolve_url` resolves a URL's host ONCE, refuses it unless every address is public, and
returns those addresses: the fetch then connects to exactly them (`http.pinned_client`), so a
name that answers a public address to the check and 127.0.0.1 to the connection (DNS
rebinding) cannot reach the internal address. `ensure_public_url` is the check alone.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

ALLOWED_SCHEMES = frozenset({"http", "https"})
_SHARED_SPACE = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")


class UnsafeURLError(ValueError):
    """The URL must not be fetched (wrong scheme, credentials, or a non-public address)."""


class UnreachableURLError(ValueError):
    """The URL's host name could not be resolved."""


def _ipv4_literal(host: str) -> ipaddress.IPv4Address | None:
    """Parse IPv4 the way inet_aton does (`2130706433`, `0x7f.1`, `0177.0.0.1`); None if a name."""
    labels = host.split(".")
    if not all(_NUMERIC_LABEL.match(label) for label in labels):
        return None
    try:
        numbers = [
            int(x, 16) if x.startswith("0x") else int(x, 8 if x[0] == "0" else 10) for x in labels
        ]
    except ValueError:  # "0x" alone, or 8/9 in an octal label
        numbers = []
    # The last label fills the bytes the others leave: `127.1` is 127.0.0.1.
    width = 5 - len(numbers)
    if not 1 <= width <= 4 or any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256**width:
        raise UnsafeURLError(f"malformed IPv4 address: {host}")
    value = 0
    for number in numbers[:-1]:
        value = value * 256 + number
    return ipaddress.IPv4Address(value * 256**width + numbers[-1])


def _ip_literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return _ipv4_literal(host) if ":" not in host else None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (compat, NAT64, 6to4, Teredo), if any."""
    if int(ip) >> 32 == 0 and int(ip) > 1:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    return ip.teredo[1] if ip.teredo is not None else None


def non_public_reason(ip: IPAddress) -> str | None:
    """Why `ip` is not a public internet address ("loopback", "private" ...), or None."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return non_public_reason(ip.ipv4_mapped)
        embedded = _embedded_ipv4(ip)
        if embedded is not None and (reason := non_public_reason(embedded)):
            return reason
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("site-local", getattr(ip, "is_site_local", False)),
        ("multicast", ip.is_multicast),
        ("carrier-grade NAT", ip in _SHARED_SPACE),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("non-public", not ip.is_global),
    )
    return next((reason for reason, failed in checks if failed), None)


async def _resolve(host: str, port: int) -> Iterable[IPAddress]:
    """The host's addresses, in the resolver's order of preference (tests replace this)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise UnreachableURLError(f"could not resolve host {host}: {exc}") from exc
    addresses: dict[IPAddress, None] = {}
    for *_, sockaddr in infos:
        try:
            addresses[ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])] = None
        except ValueError as exc:
            raise UnsafeURLError(f"{host} resolved to an unexpected address") from exc
    if not addresses:
        raise UnreachableURLError(f"could not resolve host {host}: no addresses")
    return list(addresses)


@dataclass(frozen=True)
class ResolvedURL:
    """Where a fetch of one URL may connect: its host and port, and the checked addresses."""

    host: str  # as the URL names it (lowercase, no trailing dot): for TLS and the Host header
    port: int
    addresses: tuple[IPAddress, ...]  # resolved once; the connection goes to one of these


_LOOPBACK = (ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1"))


def _parts(url: str) -> tuple[SplitResult, int]:
    """The URL's parts and port (the scheme's default when none), if it is http(s)."""
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(f"malformed URL: {url!r}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"{scheme}:" if scheme else "a URL without a scheme"
        raise UnsafeURLError(f"only http and https URLs can be fetched, not {shown} ({url})")
    return parts, port or (80 if scheme == "http" else 443)


def _host(parts: SplitResult, url: str) -> str:
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise UnsafeURLError(f"URL has no host: {url}")
    return host


def _is_localhost(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")


async def resolve_url(url: str, *, allow_private: bool = False) -> ResolvedURL:
    """Resolve `url`'s host once; raise UnsafeURLError unless every address is public.

    With `allow_private` (tests only) private and loopback addresses are allowed, but the
    host is still resolved once here and the fetch still connects only to what was resolved.
    """
    parts, port = _parts(url)
    if not allow_private and (parts.username is not None or parts.password is not None):
        raise UnsafeURLError(f"URLs with credentials are not fetched: {url}")
    host = _host(parts, url)
    literal = _ip_literal(host)
    if literal is not None:
        addresses: list[IPAddress] = [literal]
    elif _is_localhost(host):
        if not allow_private:
            raise UnsafeURLError(f"refusing to fetch {url}: {host} is a loopback host")
        addresses = list(_LOOPBACK)  # RFC 6761: localhost names are loopback, no DNS asked
    else:
        addresses = list(dict.fromkeys(await _resolve(host, port)))
        if not addresses:
            raise UnreachableURLError(f"could not resolve host {host}: no addresses")
    if not allow_private:
        for ip in sorted(addresses, key=str):
            if reason := non_public_reason(ip):
                where = host if literal is not None else f"{host} resolves to {ip}, which"
                raise UnsafeURLError(f"refusing to fetch {url}: {where} is a {reason} address")
    return ResolvedURL(host=host, port=port, addresses=tuple(addresses))


async def ensure_public_url(url: str, *, allow_private: bool = False) -> None:
    """Raise UnsafeURLError unless `url` is http(s) on a public address (DNS checked).

    A check only: a fetch must connect to the addresses `resolve_url` returns instead, or the
    name could resolve differently when it connects.
    """
    _parts(url)
    if allow_private:
        return
    await resolve_url(url)
