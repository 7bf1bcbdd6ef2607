"""HTTP clients: cheap to create, pinned to checked addresses, bounded body reads.

Building an `httpx.AsyncClient` loads the CA bundle each time (~100 ms of CPU that blocks the
event loop); sharing one `ssl.SSLContext` makes a client cost a few milliseconds.

Fetching an untrusted URL (`pinned_client`): the SSRF guard (`safety.resolve_url`) resolves the
host once and checks every address; the client then connects only to those addresses. This is
done where sockets are opened, in httpcore's network backend (`PinnedBackend`): the URL, the
Host header, TLS SNI and certificate verification all keep the real host name, untouched, and
only the TCP connect ignores DNS and dials the checked address. A client is made per request
hop, so a connection is never reused for another host. (The alternative, rewriting the URL to
the IP and passing SNI and Host by hand, touches every one of those and lets a pooled
connection verified for one name serve another.)

Reading a body (`read_capped`): at most `limit` bytes of DECODED content. gzip and deflate are
decoded here, with the output of each step bounded, so a small compressed body that expands to
gigabytes costs no more memory than `limit`. A service's answer (JSON) is read whole or not at
all: `read_answer` (a streamed response) and `capped_client` (a client a library drives) refuse
it with AnswerTooLarge past a limit, having read no more than that.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import certifi
import httpcore
import httpx

if TYPE_CHECKING:
    from .safety import ResolvedURL

# The only content codings Vicaran asks for, and decodes itself with bounded output.
ACCEPT_ENCODING = "gzip, deflate"


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


class LoopBound:
    """At most `size` at once; usable from any event loop (one semaphore per loop)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def slot(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.size), loop
        return self._semaphore


def async_client(**options: Any) -> httpx.AsyncClient:
    """`httpx.AsyncClient(**options)` with the shared TLS context."""
    options.setdefault("verify", tls_context())
    return httpx.AsyncClient(**options)


# --- connections pinned to checked addresses ----------------------------------------------


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections to the checked addresses only, whatever DNS says now.

    httpcore asks for `host:port` (the URL's); this backend refuses any other host or port and
    dials the checked addresses in order instead of resolving the name again. `dialer` opens
    the sockets (httpcore's anyio backend; tests pass one that fences or routes them).
    """

    def __init__(
        self,
        host: str,
        port: int,
        addresses: Sequence[str],
        dialer: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.host = host.lower().rstrip(".")
        self.port = port
        self.addresses = tuple(addresses)
        self.dialer = dialer or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if host.lower().rstrip(".") != self.host or port != self.port:
            raise httpcore.ConnectError(
                f"refusing to connect to {host}:{port}: this connection was checked for "
                f"{self.host}:{self.port} only"
            )
        error: Exception = httpcore.ConnectError(f"no checked address for {self.host}")
        for address in self.addresses:
            try:
                return await self.dialer.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc  # try the next checked address, as a resolver-driven connect would
        raise error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("pinned connections are TCP only")

    async def sleep(self, seconds: float) -> None:
        await self.dialer.sleep(seconds)


class _PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport, over a connection pool whose sockets `PinnedBackend` opens.

    `AsyncHTTPTransport.__init__` is deliberately not called (it would build an unpinned pool);
    this sets `_pool`, the one attribute the class's request and close methods use. Should a
    future httpx rename it, requests fail (AttributeError) instead of connecting unpinned, and
    the pinning tests say so.
    """

    def __init__(self, backend: PinnedBackend) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=tls_context(),
            max_connections=2,
            http1=True,
            http2=False,
            network_backend=backend,
        )


def pinned_client(
    target: ResolvedURL, *, dialer: httpcore.AsyncNetworkBackend | None = None, **options: Any
) -> httpx.AsyncClient:
    """A client for ONE request hop to `target`'s host, connecting only to its addresses.

    Proxy settings from the environment are ignored (`trust_env=False`): a proxy would resolve
    the name itself, outside the check. Redirects are the caller's to check, hop by hop.
    """
    backend = PinnedBackend(target.host, target.port, [str(a) for a in target.addresses], dialer)
    options.setdefault("follow_redirects", False)
    return httpx.AsyncClient(transport=_PinnedTransport(backend), trust_env=False, **options)


MAX_REDIRECTS = 5
REDIRECTS = frozenset({301, 302, 303, 307, 308})


class RedirectError(Exception):
    """A redirect chain not followed: a redirect without a Location (`status`), or more than
    MAX_REDIRECTS hops (`status` None)."""

    def __init__(self, status: int | None) -> None:
        super().__init__(status)
        self.status = status


@asynccontextmanager
async def guarded_get(
    url: str,
    *,
    allow_private: bool,
    hop_seconds: float,
    headers: dict[str, str],
    accept: str,
    dialer: httpcore.AsyncNetworkBackend | None = None,
    before_hop: Callable[[], Awaitable[None]] | None = None,
    next_url: Callable[[str], str] | None = None,
    trusted: Callable[[str], bool] | None = None,
) -> AsyncIterator[tuple[str, httpx.Response]]:
    """(final URL, streamed response) of a GET of the untrusted `url`, redirects followed hop
    by hop: each hop's host is checked (`safety.resolve_url`) and dialled at the checked
    addresses, each hop within `hop_seconds` (reading the body included).

    `before_hop` runs after a hop's check (a request budget); `next_url` normalizes a
    redirect's target; `trusted` names URLs the operator configured (a service's own address),
    which may be private: they are still resolved once and dialled at those addresses. Raises
    the guard's UnsafeURLError/UnreachableURLError, RedirectError, TimeoutError and httpx's
    errors.
    """
    from .safety import resolve_url

    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        private = allow_private or (trusted is not None and trusted(current))
        target = await resolve_url(current, allow_private=private)
        if before_hop is not None:
            await before_hop()
        async with (
            asyncio.timeout(hop_seconds),
            pinned_client(
                target, dialer=dialer, headers=headers, timeout=httpx.Timeout(hop_seconds)
            ) as client,
            client.stream("GET", current, headers={"Accept": accept}) as response,
        ):
            if response.status_code not in REDIRECTS:
                yield current, response
                return
            location = response.headers.get("location", "").strip()
            if not location:
                raise RedirectError(response.status_code)
            joined = urljoin(current, location)
            current = next_url(joined) if next_url is not None else joined
    raise RedirectError(None)


# --- bounded body reads --------------------------------------------------------------------


class BodyDecodeError(ValueError):
    """The body's content coding is not one Vicaran decodes, or the data is corrupt."""


class _Inflater:
    """gzip or deflate (zlib-wrapped or raw, as servers send both), output bounded per call."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        gzip = coding in ("gzip", "x-gzip")
        self._raw_fallback = not gzip  # "deflate" is meant zlib-wrapped; some servers send raw
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS)
        self._started = False

    @property
    def eof(self) -> bool:
        return self._zlib.eof

    @property
    def pending(self) -> bytes:
        return self._zlib.unconsumed_tail

    def inflate(self, data: bytes, room: int) -> bytes:
        """At most `room` (> 0) bytes of output; input beyond it waits in `pending`."""
        try:
            out = self._zlib.decompress(data, room)
        except zlib.error as exc:
            if self._started or not self._raw_fallback:
                raise BodyDecodeError(f"corrupt {self.coding} data ({exc})") from exc
            self._raw_fallback = False
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            return self.inflate(data, room)
        self._started = True
        return out


def _inflater(content_encoding: str) -> _Inflater | None:
    codings = [c.strip().lower() for c in content_encoding.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return None
    if len(codings) == 1 and codings[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflater(codings[0])
    raise BodyDecodeError(f"unsupported content encoding ({', '.join(codings)})")


async def read_capped(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """(at most `limit` bytes of the decoded body, whether it was cut); stops reading there.

    Reads the raw stream and decodes gzip/deflate itself, never more than the room left, so a
    decompression bomb stops at `limit` bytes of output. Raises BodyDecodeError for other
    content codings or corrupt data.
    """
    limit = max(1, limit)
    chunks: list[bytes] = []
    size = 0
    coding = response.headers.get("content-encoding", "")
    async for piece in _decoded(response.aiter_raw(), coding, limit):
        chunks.append(piece)
        size += len(piece)
    return b"".join(chunks), size >= limit


async def _decoded(raw: AsyncIterator[bytes], coding: str, limit: int) -> AsyncIterator[bytes]:
    """The body `raw` carries, decoded (gzip/deflate), at most `limit` bytes in all: reading
    stops there, and never decodes more than the room left (BodyDecodeError for other codings
    or corrupt data)."""
    inflater = _inflater(coding)
    size = 0
    async for chunk in raw:
        if inflater is None:
            piece = chunk[: limit - size]
            size += len(piece)
            yield piece
            if size >= limit:
                return
            continue
        data = chunk
        while data and size < limit and not inflater.eof:
            out = inflater.inflate(data, limit - size)
            size += len(out)
            yield out
            tail = inflater.pending
            if not out and tail == data:  # no progress (cannot happen with room > 0)
                break
            data = tail
        if size >= limit:
            return
        if inflater.eof:  # the end of the (first) gzip member: nothing more to decode
            return


# --- services' answers ---------------------------------------------------------------------


class AnswerTooLarge(Exception):
    """A service answered more than Vicaran reads of one answer (`limit` bytes, decoded)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"answer larger than {limit:,} bytes")
        self.limit = limit


async def read_answer(response: httpx.Response, limit: int) -> bytes:
    """A service's whole answer (decoded), or AnswerTooLarge once it passes `limit` bytes: a
    JSON document cut short is no answer, so it is refused rather than cut, and the rest is
    never read."""
    body, _ = await read_capped(response, limit + 1)
    if len(body) > limit:
        raise AnswerTooLarge(limit)
    return body


class _CappedStream(httpx.AsyncByteStream):
    """A response body decoded here, read up to `limit` bytes; past that, AnswerTooLarge."""

    def __init__(self, raw: httpx.AsyncByteStream, coding: str, limit: int) -> None:
        self._raw = raw
        self._coding = coding
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for piece in _decoded(aiter(self._raw), self._coding, self._limit + 1):
            size += len(piece)
            if size > self._limit:
                raise AnswerTooLarge(self._limit)
            yield piece

    async def aclose(self) -> None:
        await self._raw.aclose()


def answer_cap(limit: int) -> Callable[[httpx.Response], Awaitable[None]]:
    """An httpx response hook: the body, decoded here, is read up to `limit` bytes; reading past
    them raises AnswerTooLarge (httpx then closes the connection, the rest unread).

    For clients a library drives (the Tavily SDK reads whole answers with `client.post`): the
    hook runs before the body is read, so the cap applies to whatever the library reads. gzip
    and deflate are decoded with bounded output, and `Content-Encoding` is taken off the
    response so httpx does not decode the body again; another coding is refused
    (BodyDecodeError) before any of it is read.
    """

    async def cap(response: httpx.Response) -> None:
        coding = response.headers.get("content-encoding", "")
        _inflater(coding)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _CappedStream(response.stream, coding, limit)
        for name in ("content-encoding", "content-length"):
            if name in response.headers:
                del response.headers[name]

    return cap


def capped_client(limit: int, **options: Any) -> httpx.AsyncClient:
    """`async_client(**options)` whose every answer is read up to `limit` bytes (decoded), then
    refused with AnswerTooLarge (`answer_cap`, the first response hook).

    It asks for gzip and deflate only, whatever httpx would offer (br, zstd when their packages
    are installed), so a service never answers in a coding the cap cannot decode."""
    hooks = dict(options.pop("event_hooks", None) or {})
    hooks["response"] = [answer_cap(limit), *hooks.get("response", [])]
    headers = httpx.Headers(options.pop("headers", None))
    headers["Accept-Encoding"] = ACCEPT_ENCODING
    return async_client(event_hooks=hooks, headers=headers, **options)
