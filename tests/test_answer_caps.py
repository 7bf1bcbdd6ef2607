"""Every external JSON is read up to a limit, then refused with one line.

A Querido Diário that answered a 1 GB `/gazettes` body (20,000 gazettes when 30 were asked) cost
the server 2.95 GB: the answer was read whole, then parsed. Here each service's client faces a
server that answers 200 with a JSON body of 1 GB (streamed, and once gzip-compressed so that a
small download unpacks to it). The client runs in a child process whose address space is capped:
a client that reads the whole answer fails there with MemoryError, never taking the machine down.
What is asserted: the one-line failure, that the server could send little more than the limit
before the client closed the connection, and how much the child's peak memory grew (Linux).

Below them, the two helpers every client uses: `read_answer` (a response the client streams) and
`capped_client` (a client a library drives: the Tavily SDK), at the limit's very byte.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import resource
import zlib
from collections.abc import Iterator
from multiprocessing.pool import Pool

import httpx
import pytest

from tests.fakes.server import FakeServer, RecordedRequest, Response
from vicaran_agent.clients.http import (
    ACCEPT_ENCODING,
    AnswerTooLarge,
    BodyDecodeError,
    async_client,
    capped_client,
    read_answer,
)
from vicaran_agent.config import forget_settings

HUGE = 1_000_000_000  # the body
CHUNK = 256 * 1024
CHILD_MEMORY = 2_500_000_000  # address space of the child that runs the client
SLACK = 16_000_000  # what loopback socket buffers hold once the client stops reading
PRIVATE_PAGE = "http://10.0.0.1/a-page"  # Jina is asked for it; fetched directly, it is refused

GAZETTE = (
    b'{"territory_id": "2704302", "date": "2023-11-01", "scraped_at": "2023-11-01T21:02:39",'
    b' "url": "https://data.queridodiario.ok.org.br/2704302/2023-11-01/abc.pdf",'
    b' "territory_name": "Macei\\u00f3", "state_code": "AL",'
    b' "excerpts": ["... <b>licita\\u00e7\\u00e3o</b> ..."], "edition": "6799",'
    b' "is_extra_edition": false,'
    b' "txt_url": "https://data.queridodiario.ok.org.br/2704302/2023-11-01/abc.txt"}, '
)
RESULT = (
    b'{"url": "https://example.org/article", "title": "Article title", "score": 0.7,'
    b' "content": "' + b"snippet " * 100 + b'", "raw_content": null}, '
)
CLAIM = (
    b'{"text": "A claim", "claimant": "Someone", "claimDate": "2024-01-01T00:00:00Z",'
    b' "claimReview": [{"publisher": {"name": "Checker", "site": "checker.example"},'
    b' "url": "https://checker.example/a", "title": "A review",'
    b' "reviewDate": "2024-01-02T00:00:00Z", "textualRating": "False",'
    b' "languageCode": "en"}]}, '
)
SERVICES = {
    # service: (opening of the JSON, an item repeated until HUGE)
    "querido_diario": (b'{"total_gazettes": 20000, "gazettes": [', GAZETTE),
    "tavily": (b'{"query": "q", "answer": null, "images": [], "results": [', RESULT),
    "factcheck": (b'{"claims": [', CLAIM),
    "jina": (b'{"code": 200, "status": 20000, "data": {"title": "T", "content": "', b"A" * 1024),
}


def huge_json(head: bytes, item: bytes) -> Iterator[bytes]:
    """`head`, then `item` over and over, until HUGE bytes (the JSON never closes)."""
    block = item * max(1, CHUNK // len(item))
    yield head
    for _ in range(HUGE // len(block)):
        yield block


def gzipped(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """`chunks` as one gzip stream, compressed as they are asked for: about 1,000 to 1, so the
    whole 1 GB is about 1 MB on the wire, under every limit (only a cap on what it unpacks to
    stops it)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16, 9)
    for chunk in chunks:
        if packed := packer.compress(chunk):
            yield packed
    yield packer.flush()


class HostileService(FakeServer):
    """Answers every request 200 with a JSON body of HUGE bytes, as a compromised service (or a
    proxy gone wrong) could; gzip-compressed when `gzip`."""

    def __init__(self, service: str, *, gzip: bool = False) -> None:
        super().__init__()
        self.head, self.item = SERVICES[service]
        self.gzip = gzip

    def handle(self, request: RecordedRequest) -> Response:
        body = huge_json(self.head, self.item)
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if self.gzip:
            headers["Content-Encoding"] = "gzip"
            return Response(200, headers, gzipped(body))
        return Response(200, headers, body)


# --- the client, in a child process with its memory capped ---------------------------------------


def _cap_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _ask(service: str, base: str) -> tuple[list[str], int]:
    """In the child: ask `service` at `base` once; (the failure lines, how much the peak
    resident memory grew meanwhile, in bytes)."""
    for name in list(os.environ):  # this machine's settings play no part
        if name.startswith(("VICARAN_", "TAVILY_", "JINA_", "FACTCHECK_", "QUERIDO_", "GOOGLE_")):
            del os.environ[name]
    os.environ.update(
        {
            "ADK_DISABLE_LOAD_DOTENV": "1",
            "QUERIDO_DIARIO_BASE_URL": base,
            "TAVILY_BASE_URL": base,
            "TAVILY_API_KEY": "tvly-test",
            "FACTCHECK_BASE_URL": base,
            "FACTCHECK_API_KEY": "test-key",
            "JINA_READER_BASE_URL": base,
            "VICARAN_MAX_RETRIES": "0",
            "VICARAN_SEARCH_TIMEOUT_SECONDS": "60",
            "VICARAN_PAGE_TIMEOUT_SECONDS": "60",
            "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS": "60",
        }
    )
    from vicaran_agent.config import get_settings

    forget_settings()
    settings = get_settings()

    async def ask() -> list[str]:
        if service == "querido_diario":
            from vicaran_agent.clients.querido_diario import QueridoDiario

            return list((await QueridoDiario(settings).search(["licitação"])).failures)
        if service == "tavily":
            from vicaran_agent.clients.web_search import WebSearch

            return list((await WebSearch(settings).search_many(["acme riverton"])).failures)
        if service == "factcheck":
            from vicaran_agent.clients.fact_check_api import FactCheckApi

            return list((await FactCheckApi(settings).search(["acme riverton"])).failures)
        from vicaran_agent.clients.page_reader import PageReader

        async with PageReader(settings) as reader:
            # the direct fetch that follows Jina's refusal is refused too, without a DNS lookup
            result = await reader.read(PRIVATE_PAGE)
        return [result.error or ""]

    before = _reset_peak()
    failures = asyncio.run(ask())
    return [str(f) for f in failures], _memory("VmHWM") - before


def _reset_peak() -> int:
    """Start this call's peak memory afresh (Linux: writing 5 to clear_refs resets VmHWM to
    what is resident now); what is resident now, in bytes."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    return _memory("VmRSS")


def _memory(field: str) -> int:
    """A memory figure of this process from /proc/self/status, in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    raise LookupError(field)


@pytest.fixture(scope="module")
def child() -> Iterator[Pool]:
    """One child process for every case (Vicaran is imported once), its memory capped."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1, initializer=_cap_memory, initargs=(CHILD_MEMORY,)) as pool:
        yield pool


# --- the caps ------------------------------------------------------------------------------------


EXPECTED = {
    # service: (the failure line's start, the limit it names, what it says to check)
    "querido_diario": ("Querido Diário sent an answer larger than", 2_000_000, "QUERIDO_DIARIO"),
    "tavily": ("Tavily sent an answer larger than", 5_000_000, "check TAVILY_BASE_URL"),
    "factcheck": ("Fact Check Tools sent an answer larger than", 2_000_000, "FACTCHECK_BASE"),
    # then the page is fetched directly (refused here without a DNS lookup: a private address)
    "jina": ("Jina Reader: answer larger than", 3_000_000, "(VICARAN_MAX_PAGE_BYTES)"),
}


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="Linux's memory figures")
@pytest.mark.timeout(180)
@pytest.mark.parametrize("gzip", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("service", list(SERVICES))
def test_a_huge_answer_is_read_up_to_the_limit_then_refused(
    child: Pool, service: str, gzip: bool
) -> None:
    with HostileService(service, gzip=gzip) as hostile:
        failures, growth = child.apply(_ask, (service, hostile.url))
        assert hostile.wait_idle(), "the client never closed the connection"
        (request,) = hostile.requests  # refused, not retried
    start, limit, check = EXPECTED[service]
    assert len(failures) == 1, failures
    (line,) = failures
    assert line.startswith(start) and f"{limit:,} bytes" in line and check in line, line
    assert "\n" not in line
    # it stopped reading: of a 1 GB answer the server could send no more than the limit and
    # what the socket buffers hold (gzip: the whole answer is about 1 MB on the wire, so the
    # client's memory is what shows it stopped unpacking)
    assert request.bytes_sent < limit + SLACK
    assert growth < 100_000_000, f"the client's memory grew by {growth:,} bytes"


class TooGenerous(FakeServer):
    """A /gazettes answer within the size limit (1.2 MB), with more than was asked of everything."""

    def handle(self, request: RecordedRequest) -> Response:
        item = json.loads(GAZETTE.rstrip(b", "))
        gazettes = [
            {
                **item,
                "txt_url": f"https://data.example/{i}.txt",
                "excerpts": ["<b>licitação</b> " + "x" * 3_000] * 4,
            }
            for i in range(100)
        ]
        return Response.json(200, {"total_gazettes": 20_000, "gazettes": gazettes})


async def test_no_more_gazettes_nor_excerpts_are_kept_than_were_asked(env) -> None:
    from vicaran_agent.clients.gazette_data import NUMBER_OF_EXCERPTS
    from vicaran_agent.clients.querido_diario import QueridoDiario
    from vicaran_agent.config import get_settings

    with TooGenerous() as generous:
        env.set(QUERIDO_DIARIO_BASE_URL=generous.url)
        outcome = await QueridoDiario(get_settings()).search(["licitação"], size=30)
    assert outcome.failures == []
    assert len(outcome.gazettes) == 30  # asked 30, sent 100
    assert outcome.totals == {"licitação": 20_000}
    assert all(len(g.excerpts) <= NUMBER_OF_EXCERPTS for g in outcome.gazettes)
    assert all(len(e) <= 2_000 for g in outcome.gazettes for e in g.excerpts)  # asked 500


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
