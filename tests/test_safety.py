from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable
from typing import Any

import httpcore
import httpx
import pytest

from vicaran_agent.clients.http import pinned_client
from vicaran_agent.clients.safety import (
    ResolvedURL,
    UnreachableURLError,
    UnsafeURLError,
    ensure_public_url,
    non_public_reason,
    resolve_url,
)

Resolver = Callable[..., object]


def _infos(*addresses: str) -> list[tuple[object, ...]]:
    infos: list[tuple[object, ...]] = []
    for address in addresses:
        if ":" in address:
            infos.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, 443, 0, 0)))
        else:
            infos.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 443)))
    return infos


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, list[str]]], list[str]]:
    """Replace the running loop's getaddrinfo with a table; returns the hosts looked up."""
    looked_up: list[str] = []

    def install(table: dict[str, list[str]]) -> list[str]:
        async def getaddrinfo(host: str, port: object, *args: object, **kwargs: object) -> object:
            looked_up.append(host)
            if host not in table:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return _infos(*table[host])

        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
        return looked_up

    return install


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://127.0.0.1:8000/admin", "loopback"),
        ("http://10.0.0.5/", "private"),
        ("http://172.16.1.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("http://[::ffff:169.254.169.254]/", "link-local"),
        ("http://[::7f00:1]/", "loopback"),
        ("http://[2002:7f00:1::]/", "loopback"),
        ("http://[64:ff9b::a00:1]/", "private"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[::]/", "unspecified"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fd00::1]/", "private"),
        ("http://[fc00::1]/", "private"),
        ("http://224.0.0.1/", "multicast"),
        ("http://[ff02::1]/", "multicast"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://100.127.255.254/", "carrier-grade NAT"),
        ("http://240.0.0.1/", "reserved"),
        ("http://2130706433/", "loopback"),
        ("http://0x7f.1/", "loopback"),
        ("http://0x7f000001/", "loopback"),
        ("http://0177.0.0.1/", "loopback"),
        ("http://127.1/", "loopback"),
        ("http://0/", "unspecified"),
        ("http://167772165/", "private"),
        ("http://127.0.0.1./", "loopback"),
    ],
)
async def test_non_public_ip_literals_are_refused(
    url: str, reason: str, dns: Callable[[dict[str, list[str]]], list[str]]
) -> None:
    looked_up = dns({})
    with pytest.raises(UnsafeURLError, match=f"is a {reason} address"):
        await ensure_public_url(url)
    assert looked_up == []


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/",
        "https://93.184.215.14:8443/path?q=1",
        "http://[2606:4700:4700::1111]/",
        "http://[::ffff:93.184.215.14]/",
        "http://1572394766/",
    ],
)
async def test_public_ip_literals_pass_without_dns(
    url: str, dns: Callable[[dict[str, list[str]]], list[str]]
) -> None:
    looked_up = dns({})
    await ensure_public_url(url)
    assert looked_up == []


@pytest.mark.parametrize("url", ["http://1.2.3.4.5/", "http://256.1.1.1/", "http://08.0.0.1/"])
async def test_malformed_ipv4_literals_are_refused(url: str) -> None:
    with pytest.raises(UnsafeURLError, match="malformed IPv4"):
        await ensure_public_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/file",
        "gopher://example.com/",
        "data:text/html,<script>alert(1)</script>",
        "javascript:alert(1)",
        "ws://example.com/socket",
        "example.com/no-scheme",
        "",
    ],
)
async def test_non_http_schemes_are_refused(url: str) -> None:
    with pytest.raises(UnsafeURLError, match="only http and https"):
        await ensure_public_url(url)
    with pytest.raises(UnsafeURLError, match="only http and https"):
        await ensure_public_url(url, allow_private=True)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://user:secret@example.com/", "credentials"),
        ("http://user@example.com/", "credentials"),
        ("http:///path-only", "no host"),
        ("http://[::1", "malformed URL"),
        ("http://example.com:99999/", "malformed URL"),
    ],
)
async def test_credentials_missing_host_and_malformed_urls(url: str, message: str) -> None:
    with pytest.raises(UnsafeURLError, match=message):
        await ensure_public_url(url)


@pytest.mark.parametrize(
    "url",
    ["http://localhost/", "http://LOCALHOST:8080/x", "http://localhost./", "http://a.localhost/"],
)
async def test_localhost_is_refused_by_name(
    url: str, dns: Callable[[dict[str, list[str]]], list[str]]
) -> None:
    looked_up = dns({})
    with pytest.raises(UnsafeURLError, match="loopback"):
        await ensure_public_url(url)
    assert looked_up == []


async def test_hostname_resolving_to_loopback_is_refused(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    looked_up = dns({"evil.example": ["127.0.0.1"]})
    with pytest.raises(UnsafeURLError, match=r"evil\.example resolves to 127\.0\.0\.1.*loopback"):
        await ensure_public_url("https://evil.example/steal")
    assert looked_up == ["evil.example"]


async def test_every_resolved_address_must_be_public(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    dns({"mixed.example": ["93.184.215.14", "10.1.2.3"], "v6.example": ["2606:4700::1", "::1"]})
    with pytest.raises(UnsafeURLError, match=r"10\.1\.2\.3.*private"):
        await ensure_public_url("https://mixed.example/")
    with pytest.raises(UnsafeURLError, match="loopback"):
        await ensure_public_url("https://v6.example/")


async def test_hostname_resolving_to_mapped_or_link_local_is_refused(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    dns({"mapped.example": ["::ffff:127.0.0.1"], "meta.example": ["fe80::1%eth0"]})
    with pytest.raises(UnsafeURLError, match="loopback"):
        await ensure_public_url("http://mapped.example/")
    with pytest.raises(UnsafeURLError, match="link-local"):
        await ensure_public_url("http://meta.example/")


async def test_public_hostname_passes(dns: Callable[[dict[str, list[str]]], list[str]]) -> None:
    looked_up = dns({"www.bbc.com": ["151.101.0.81", "2a04:4e42::81"]})
    await ensure_public_url("https://www.bbc.com/news")
    assert looked_up == ["www.bbc.com"]


async def test_dns_failure_is_unreachable_not_unsafe(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    dns({"empty.example": []})
    with pytest.raises(UnreachableURLError, match=r"could not resolve host nowhere\.example"):
        await ensure_public_url("https://nowhere.example/")
    with pytest.raises(UnreachableURLError, match="could not resolve host"):
        await ensure_public_url("https://empty.example/")
    assert not issubclass(UnreachableURLError, UnsafeURLError)
    assert issubclass(UnreachableURLError, ValueError)
    assert issubclass(UnsafeURLError, ValueError)


async def test_allow_private_only_checks_the_scheme(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    looked_up = dns({})
    for url in [
        "http://127.0.0.1:8000/",
        "http://localhost/",
        "http://10.0.0.5/",
        "http://[::1]/",
        "http://intranet.corp/",
    ]:
        await ensure_public_url(url, allow_private=True)
    assert looked_up == []
    with pytest.raises(UnsafeURLError):
        await ensure_public_url("file:///etc/passwd", allow_private=True)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("8.8.8.8", None),
        ("2001:4860:4860::8888", None),
        ("::ffff:8.8.8.8", None),
        ("127.0.0.2", "loopback"),
        ("192.0.2.1", "private"),
        ("::ffff:192.168.0.1", "private"),
    ],
)
def test_non_public_reason(address: str, reason: str | None) -> None:
    assert non_public_reason(ipaddress.ip_address(address)) == reason


# --- resolve once, connect to what was checked ---------------------------------------------


async def test_resolve_url_resolves_once_and_returns_what_to_connect_to(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    looked_up = dns({"www.bbc.com": ["151.101.0.81", "2a04:4e42::81", "151.101.0.81"]})
    target = await resolve_url("https://WWW.BBC.com./news")
    assert looked_up == ["www.bbc.com"]
    assert target == ResolvedURL(
        host="www.bbc.com",
        port=443,
        addresses=(ipaddress.ip_address("151.101.0.81"), ipaddress.ip_address("2a04:4e42::81")),
    )
    assert (await resolve_url("http://93.184.215.14:8080/x")).addresses == (
        ipaddress.ip_address("93.184.215.14"),
    )
    assert looked_up == ["www.bbc.com"]  # literals need no DNS
    with pytest.raises(UnsafeURLError, match="loopback"):
        await resolve_url("http://127.0.0.1/")


async def test_resolve_url_with_private_allowed_still_resolves_and_pins(
    dns: Callable[[dict[str, list[str]]], list[str]],
) -> None:
    looked_up = dns({"intranet.corp": ["10.0.0.5"]})
    target = await resolve_url("http://intranet.corp:8000/", allow_private=True)
    assert target.addresses == (ipaddress.ip_address("10.0.0.5"),) and target.port == 8000
    local = await resolve_url("http://localhost:9/", allow_private=True)
    assert local.addresses == (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))
    assert looked_up == ["intranet.corp"]  # localhost is loopback by definition, no DNS
    with pytest.raises(UnsafeURLError, match="only http and https"):
        await resolve_url("file:///etc/passwd", allow_private=True)


class Refuse(httpcore.AsyncNetworkBackend):
    """A dialer that records what it was asked to dial and never connects."""

    def __init__(self) -> None:
        self.dialed: list[tuple[str, int]] = []

    async def connect_tcp(self, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        self.dialed.append((host, port))
        raise httpcore.ConnectError(f"no connection to {host}")


async def test_a_pinned_client_dials_only_the_checked_addresses() -> None:
    target = ResolvedURL(
        "news.example",
        443,
        (ipaddress.ip_address("93.184.215.14"), ipaddress.ip_address("2606:2800::1")),
    )
    dialer = Refuse()
    async with pinned_client(target, dialer=dialer) as client:
        with pytest.raises(httpx.ConnectError, match=r"no connection to 2606:2800::1"):
            await client.get("https://news.example/story")
        # every checked address is tried in order; the name itself is never dialed
        assert dialer.dialed == [("93.184.215.14", 443), ("2606:2800::1", 443)]
        # the client serves that host and port only
        for other in (
            "https://other.example/",
            "https://news.example:8443/",
            "http://news.example/",
        ):
            with pytest.raises(httpx.ConnectError, match=r"was checked for news\.example:443 only"):
                await client.get(other)
    assert len(dialer.dialed) == 2
