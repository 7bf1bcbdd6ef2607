"""A plain loopback website for Vicaran's direct-fetch fallback.

Usage:

    web = FakeWeb().start()
    web.add_article("/story", "Mayor resigns", ["First paragraph ...", "Second ..."])
    web.add_redirect("/old", "/story")            # 302 (or 301) with a Location header
    web.add_hang("/slow")                          # never answers (until stop)
    web.add_huge("/big", 5_000_000)                # a streamed HTML page of that many bytes
    web.add_raw("/doc.pdf", b"%PDF-1.7 ...", "application/pdf")
    web.add_gzip_bomb("/bomb", 256 * 2**20)        # a small gzip body that expands to 256 MiB

Unknown paths answer 404; the query string is ignored when matching routes.

The network around it, for SSRF tests (no packet ever leaves loopback):

    dns = FakeDNS().add("rebind.example", ["93.184.215.14"], ["127.0.0.1"])
    dns.install(monkeypatch)         # the running loop's getaddrinfo answers from the table
    fence = SocketFence(dns).install(monkeypatch)
    fence.route("142.250.64.100", web.port)   # this "public" address is served by the fake

`SocketFence` replaces the socket-opening step of httpx/httpcore: loopback and routed addresses
connect, anything else is refused and recorded; host names are resolved through the FakeDNS.
"""

from __future__ import annotations

import asyncio
import html
import ipaddress
import socket
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import httpcore
import pytest

from tests.fakes.server import FakeServer, RecordedRequest, Response


def article_html(
    title: str, paragraphs: list[str], *, published: str | None = None, lang: str = "en"
) -> str:
    """A small news-article page: <title>, <h1>, an <article> of paragraphs, site chrome."""
    meta = (
        f'<meta property="article:published_time" content="{html.escape(published)}">'
        if published
        else ""
    )
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>{meta}</head>\n<body>\n"
        '<nav><a href="/">Home</a> <a href="/politics">Politics</a></nav>\n'
        f"<main><article><h1>{html.escape(title)}</h1>\n{body}\n</article></main>\n"
        "<footer>© Example News. All rights reserved.</footer>\n</body></html>\n"
    )


@dataclass
class _Route:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    hang: bool = False
    huge: int = 0  # bytes to stream
    declare_length: bool = True


class FakeWeb(FakeServer):
    """Serves configured routes by path (the query string is ignored); 404 otherwise."""

    def __init__(self, *, latency: float = 0.0, clock: Any = None) -> None:
        super().__init__(latency=latency, clock=clock)
        self._routes: dict[str, _Route] = {}

    def page_url(self, path: str) -> str:
        return self.url + path

    def add_html(
        self,
        path: str,
        document: str,
        *,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        self._routes[path] = _Route(status, {"Content-Type": content_type}, document.encode())
        return self.page_url(path)

    def add_article(
        self,
        path: str,
        title: str,
        paragraphs: list[str],
        *,
        published: str | None = None,
        status: int = 200,
    ) -> str:
        return self.add_html(
            path, article_html(title, paragraphs, published=published), status=status
        )

    def add_raw(
        self,
        path: str,
        body: bytes,
        content_type: str,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> str:
        self._routes[path] = _Route(status, {"Content-Type": content_type, **(headers or {})}, body)
        return self.page_url(path)

    def add_redirect(self, path: str, location: str, *, status: int = 302) -> str:
        """`location` may be absolute (any host) or a path on this site."""
        self._routes[path] = _Route(status, {"Location": location, "Content-Length": "0"})
        return self.page_url(path)

    def add_hang(self, path: str) -> str:
        self._routes[path] = _Route(hang=True)
        return self.page_url(path)

    def add_huge(
        self,
        path: str,
        size: int,
        *,
        declare_length: bool = True,
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        """A page of `size` bytes, streamed; with declare_length=False no Content-Length."""
        self._routes[path] = _Route(
            200, {"Content-Type": content_type}, huge=size, declare_length=declare_length
        )
        return self.page_url(path)

    def add_gzip_bomb(
        self,
        path: str,
        expanded: int,
        *,
        prefix: bytes = b"<!DOCTYPE html><html><head><title>Bomb</title></head><body><p>",
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        """`Content-Encoding: gzip`: a small body that expands to `expanded` bytes (`prefix`,
        then the letter A)."""
        body = gzip_bomb(expanded, prefix)
        headers = {"Content-Type": content_type, "Content-Encoding": "gzip"}
        self._routes[path] = _Route(200, headers, body)
        return self.page_url(path)

    def handle(self, request: RecordedRequest) -> Response:
        route = self._routes.get(request.path)
        if route is None:
            return Response.text(
                404, "<html><title>Not Found</title><body>404</body></html>", "text/html"
            )
        if route.hang:
            return Response(hang=True)
        if route.huge:
            headers = dict(route.headers)
            if route.declare_length:
                headers["Content-Length"] = str(route.huge)
            return Response(route.status, headers, _huge_body(route.huge))
        headers = {k: v for k, v in route.headers.items() if k != "Content-Length"}
        return Response(route.status, headers, route.body)


def _huge_body(size: int) -> Iterator[bytes]:
    head = b"<!DOCTYPE html><html><head><title>Huge page</title></head><body><article>"
    para = b"<p>" + b"All work and no play makes a very long page. " * 20 + b"</p>\n"
    sent = 0
    chunk = head
    while sent < size:
        while len(chunk) < 64 * 1024:
            chunk += para
        piece = chunk[: size - sent]
        sent += len(piece)
        yield piece
        chunk = b""


@lru_cache(maxsize=4)
def gzip_bomb(expanded: int, prefix: bytes = b"") -> bytes:
    """gzip data of `prefix` + b"A" * (expanded - len(prefix)), compressed ~1000:1."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [packer.compress(prefix)]
    block = b"A" * 2**20
    left = expanded - len(prefix)
    while left > 0:
        parts.append(packer.compress(block[: min(left, len(block))]))
        left -= len(block)
    parts.append(packer.flush())
    return b"".join(parts)


# --- the network around the fake website ----------------------------------------------------


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


class FakeDNS:
    """Host names answered from a table; each lookup takes the next answer (the last repeats).

    `add("rebind.example", ["93.184.215.14"], ["127.0.0.1"])`: the first lookup gets the public
    address, every later one 127.0.0.1 (DNS rebinding). IP literals answer themselves; unknown
    names fail as on a closed network.
    """

    def __init__(self) -> None:
        self._answers: dict[str, list[list[str]]] = {}
        self.lookups: list[str] = []

    def add(self, host: str, *answers: list[str]) -> FakeDNS:
        self._answers[host.lower()] = [list(a) for a in answers]
        return self

    def resolve(self, host: str) -> list[str]:
        if _ip(host) is not None:
            return [host.strip("[]")]
        self.lookups.append(host)
        answers = self._answers.get(host.lower().rstrip("."))
        if not answers:
            raise socket.gaierror(socket.EAI_NONAME, f"{host}: not in the test's DNS table")
        return answers.pop(0) if len(answers) > 1 else answers[0]

    async def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else str(host)
        infos: list[Any] = []
        for address in self.resolve(name):
            if ":" in address:
                infos.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0)))
            else:
                infos.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)))
        return infos

    def install(self, monkeypatch: pytest.MonkeyPatch) -> FakeDNS:
        """Answer the running event loop's getaddrinfo (call from inside the test)."""
        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", self.getaddrinfo)
        return self


class _PlainTLS(httpcore.AsyncNetworkStream):
    """A connection to a plain-HTTP fake that pretends its TLS handshake succeeded."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        return self

    def get_extra_info(self, info: str) -> Any:
        return None if info == "ssl_object" else self._inner.get_extra_info(info)


@dataclass
class Dial:
    host: str  # what was asked for (a name, or an address)
    address: str  # where it would go
    port: int
    allowed: bool


class SocketFence:
    """The only way httpx/httpcore sockets open during a test (patches httpcore's anyio backend).

    Loopback addresses connect; an address given to `route` connects to that fake server
    instead; anything else is refused with httpcore.ConnectError and recorded. Host names are
    resolved through `dns` (never real DNS), so even a client that resolves names itself (the
    bug under test) cannot send a packet off the machine.
    """

    def __init__(self, dns: FakeDNS | None = None) -> None:
        self.dns = dns or FakeDNS()
        self.dials: list[Dial] = []
        self._routes: dict[str, tuple[int, bool]] = {}

    def route(self, address: str, port: int, *, plain_tls: bool = True) -> SocketFence:
        """Connections to `address` (any port) reach 127.0.0.1:`port`; TLS is skipped."""
        self._routes[str(ipaddress.ip_address(address))] = (port, plain_tls)
        return self

    @property
    def refused(self) -> list[Dial]:
        return [d for d in self.dials if not d.allowed]

    def install(self, monkeypatch: pytest.MonkeyPatch) -> SocketFence:
        original = httpcore.AnyIOBackend.connect_tcp
        fence = self

        async def connect_tcp(
            backend: httpcore.AnyIOBackend,
            host: str,
            port: int,
            timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore.AsyncNetworkStream:
            try:
                addresses = fence.dns.resolve(host)
            except OSError as exc:
                raise httpcore.ConnectError(str(exc)) from exc
            for address in addresses:
                ip = ipaddress.ip_address(address)
                routed = fence._routes.get(str(ip))
                allowed = ip.is_loopback or routed is not None
                fence.dials.append(Dial(host, str(ip), port, allowed))
                if not allowed:
                    continue
                stream = await original(
                    backend,
                    "127.0.0.1" if routed else str(ip),
                    routed[0] if routed else port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
                return _PlainTLS(stream) if routed and routed[1] else stream
            raise httpcore.ConnectError(f"test fence: no traffic to {host} ({addresses})")

        monkeypatch.setattr(httpcore.AnyIOBackend, "connect_tcp", connect_tcp)
        return self


class LoopbackDialer(httpcore.AsyncNetworkBackend):
    """A dialer (httpcore network backend) that opens sockets to loopback addresses only."""

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()
        self.dialed: list[str] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.dialed.append(host)
        ip = _ip(host)
        if ip is None or not ip.is_loopback:
            raise httpcore.ConnectError(f"test guard: no traffic to {host}")
        return await self._inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
