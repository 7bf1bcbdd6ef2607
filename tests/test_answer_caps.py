"""Every external JSON is read up to a limit, then refused with one line.

The two helpers every client uses: `read_answer` (a response the client streams) and
`capped_client` (a client a library drives: the Tavily SDK), at the limit's very byte.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx
import pytest

from tests.fakes.server import FakeServer, RecordedRequest, Response
from vicaran_agent.tools.http import (
    ACCEPT_ENCODING,
    AnswerTooLarge,
    BodyDecodeError,
    async_client,
    capped_client,
    read_answer,
)


def gzipped(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """`chunks` as one gzip stream, compressed as they are asked for: about 1,000 to 1, so the
    whole 1 GB is about 1 MB on the wire, under every limit (only a cap on what it unpacks to
    stops it)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16, 9)
    for chunk in chunks:
        if packed := packer.compress(chunk):
            yield packed
    yield packer.flush()


# --- the helpers: read_answer (a streamed response) and capped_client (a library's client) -------


class Fixed(FakeServer):
    """Answers every request with `body`, gzip-compressed when `coding` is gzip (any other
    coding is only named in the header)."""

    def __init__(self, body: bytes, coding: str = "") -> None:
        super().__init__()
        self.body, self.coding = body, coding

    def handle(self, request: RecordedRequest) -> Response:
        headers = {"Content-Type": "application/json"}
        body = self.body
        if self.coding:
            headers["Content-Encoding"] = self.coding
            if self.coding == "gzip":
                body = b"".join(gzipped(iter([body])))
        return Response(200, headers, body)


async def _capped_get(url: str, limit: int) -> bytes:
    async with capped_client(limit) as client:
        return (await client.get(url)).content


async def _streamed_get(url: str, limit: int) -> bytes:
    async with async_client() as client, client.stream("GET", url) as response:
        return await read_answer(response, limit)


READERS = {"capped_client": _capped_get, "read_answer": _streamed_get}


@pytest.mark.parametrize("coding", ["", "gzip"], ids=["plain", "gzip"])
@pytest.mark.parametrize("reader", list(READERS))
async def test_an_answer_of_the_limit_is_read_whole_and_one_byte_more_is_refused(
    reader: str, coding: str
) -> None:
    body = b'{"items": "' + b"x" * 987 + b'"}'  # 1,000 bytes
    assert len(body) == 1_000
    with Fixed(body, coding) as fake:
        assert await READERS[reader](fake.url, 1_000) == body
        with pytest.raises(AnswerTooLarge) as refused:
            await READERS[reader](fake.url, 999)
    assert refused.value.limit == 999
    assert str(refused.value) == "answer larger than 999 bytes"


@pytest.mark.parametrize("reader", list(READERS))
async def test_a_coding_that_cannot_be_decoded_is_refused(reader: str) -> None:
    with Fixed(b"\x8b\x00 not brotli", "br") as fake, pytest.raises(BodyDecodeError):
        await READERS[reader](fake.url, 1_000)


async def test_a_capped_client_asks_only_for_codings_it_decodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # what httpx offers when brotli and zstandard are installed
    monkeypatch.setattr(httpx._client, "ACCEPT_ENCODING", "gzip, deflate, br, zstd")
    with Fixed(b"{}") as fake:
        async with capped_client(1_000, headers={"User-Agent": "test"}) as client:
            await client.get(fake.url)
        (request,) = fake.requests
    assert request.header("accept-encoding") == ACCEPT_ENCODING
    assert request.header("user-agent") == "test"
