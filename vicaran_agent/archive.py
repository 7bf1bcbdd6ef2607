"""The web archive of what Vicaran read: WARC records (warcio) made as each page is read, kept in
the records store, and the `.warc.gz` file an export gathers from them.

A page read directly is archived as the exchange with its site; a page read through the reader
service as the exchange with the reader (what Vicaran received), with a `metadata` record naming
the page it stands for. The body is the one received, decoded of its content encoding (so the
headers say no encoding and its real length) and cut where Vicaran stops reading a page
(`WARC-Truncated: length`). Credentials sent with a request are never archived.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from io import BytesIO
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httpx

    from .config import Settings

logger = logging.getLogger(__name__)

WARC_VERSION = "1.1"
# The body is archived decoded and whole (or cut): these would describe another body.
_DESCRIBE_THE_WIRE = frozenset({"content-encoding", "transfer-encoding", "content-length"})
_CREDENTIALS = frozenset({"authorization", "proxy-authorization", "cookie"})


@dataclass(frozen=True)
class Exchange:
    """One HTTP request and the answer Vicaran read from it."""

    url: str  # the address requested (the reader service's, for a page read through it)
    method: str
    request_headers: tuple[tuple[str, str], ...]
    protocol: str
    status: int
    reason: str
    response_headers: tuple[tuple[str, str], ...]
    body: bytes  # decoded of its content encoding, as Vicaran read it
    cut: bool = False  # Vicaran stopped reading at its page limit

    @classmethod
    def of(cls, response: httpx.Response, body: bytes, cut: bool = False) -> Exchange:
        request = response.request
        return cls(
            url=str(request.url),
            method=request.method,
            request_headers=tuple(
                (name, value)
                for name, value in _as_sent(request.headers)
                if name.lower() not in _CREDENTIALS
            ),
            protocol=response.http_version or "HTTP/1.1",
            status=response.status_code,
            reason=response.reason_phrase or "",
            response_headers=tuple(_as_sent(response.headers)),
            body=body,
            cut=cut,
        )


class PageArchive:
    """Where an investigation's reads are kept: its WARC records in the records store.

    A read does not wait for its page to be archived (the records are written beside the run,
    which waits for them when its reader closes: `flush`). Keeping never fails a read: a store
    that is down costs the archived copy, said in the log."""

    def __init__(self, investigation_id: str, database_url: str) -> None:
        self.investigation_id = investigation_id
        self.database_url = database_url
        self._saving: set[asyncio.Future[None]] = set()

    def keep(self, page_url: str, exchange: Exchange, via: str) -> None:
        """Archive one read of `page_url` (made at `exchange.url`), in the background."""
        saving = asyncio.ensure_future(self._save(page_url, exchange, via))
        self._saving.add(saving)
        saving.add_done_callback(self._saving.discard)

    async def flush(self) -> None:
        """Until every read kept so far is in the store."""
        while self._saving:
            await asyncio.gather(*self._saving, return_exceptions=True)

    async def _save(self, page_url: str, exchange: Exchange, via: str) -> None:
        from .storage import get_repository

        def save() -> None:
            records = page_records(exchange, page_url, via)
            repository = get_repository(self.database_url)
            repository.save_capture(self.investigation_id, page_url, via, records)

        try:
            await asyncio.to_thread(save)
        except Exception:
            logger.warning("could not archive the read of %s", page_url, exc_info=True)


def _as_sent(headers: httpx.Headers) -> list[tuple[str, str]]:
    """The headers with their names as they were written on the wire."""
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers.raw]


def page_archive(investigation_id: str, settings: Settings) -> PageArchive | None:
    """The investigation's web archive, or None when VICARAN_ARCHIVE_PAGES is off."""
    if not (settings.vicaran_archive_pages and investigation_id):
        return None
    return PageArchive(investigation_id, settings.database_url)


def page_records(exchange: Exchange, page_url: str, via: str) -> bytes:
    """The gzipped WARC records of one read: response, request and, when the page was read at
    another address (the reader service, a redirect), a `metadata` record naming `page_url`."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    out = BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    headers = [(k, v) for k, v in exchange.response_headers if k.lower() not in _DESCRIBE_THE_WIRE]
    headers.append(("Content-Length", str(len(exchange.body))))
    status = StatusAndHeaders(
        f"{exchange.status} {exchange.reason}".strip(), headers, protocol=exchange.protocol
    )
    response = writer.create_warc_record(
        exchange.url,
        "response",
        payload=BytesIO(exchange.body),
        length=len(exchange.body),
        http_headers=status,
        warc_headers_dict={"WARC-Truncated": "length"} if exchange.cut else {},
    )
    response_id = response.rec_headers.get_header("WARC-Record-ID")
    target = urlsplit(exchange.url)
    path = (target.path or "/") + (f"?{target.query}" if target.query else "")
    request_line = StatusAndHeaders(
        f"{exchange.method} {path} {exchange.protocol}",
        list(exchange.request_headers),
        is_http_request=True,
    )
    request = writer.create_warc_record(
        exchange.url,
        "request",
        http_headers=request_line,
        warc_headers_dict={"WARC-Concurrent-To": response_id},
    )
    writer.write_record(response)
    writer.write_record(request)
    if exchange.url != page_url:
        fields = f"page: {page_url}\nread-via: {via}\nread-at: {exchange.url}\n".encode()
        refers = {"WARC-Refers-To": response_id}
        writer.write_record(
            _plain(writer, page_url, "metadata", fields, "application/warc-fields", refers)
        )
    return out.getvalue()


def archive_file(
    filename: str,
    info: dict[str, str],
    captures: Iterable[bytes],
    texts: Iterable[tuple[str, str]],
) -> bytes:
    """One `.warc.gz`: a `warcinfo` record, the pages' records as they were kept, then a
    `resource` record of each other text read (`texts`: (address, text) - the journalist's
    documents and the gazettes)."""
    from warcio.warcwriter import WARCWriter

    out = BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    writer.write_record(writer.create_warcinfo_record(filename, dict(info)))
    for records in captures:
        out.write(records)  # gzip members, one per record: a WARC file is their concatenation
    for uri, text in texts:
        data = text.encode("utf-8")
        writer.write_record(_plain(writer, uri, "resource", data, "text/plain; charset=utf-8"))
    return out.getvalue()


def _plain(
    writer: Any,
    uri: str,
    kind: str,
    data: bytes,
    media_type: str,
    headers: dict[str, str] | None = None,
) -> Any:
    """A record of `kind` whose block is `data` itself (no HTTP message): metadata, resource."""
    return writer.create_warc_record(
        uri,
        kind,
        payload=BytesIO(data),
        length=len(data),
        warc_content_type=media_type,
        warc_headers_dict=headers or {},
    )
