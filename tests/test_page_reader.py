"""PageReader against the loopback Jina Reader and website fakes: real HTTP, no network.

Every reader here uses a transport (Jina) and a dialer (direct fetches) that refuse any host but
127.0.0.1, so even a broken SSRF guard could never send a packet to the private addresses these
tests name; the DNS-rebinding tests fence every socket the process opens instead.
"""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import ssl
import zlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.fakes.jina import FakeJinaReader, Page, http_date
from tests.fakes.web import FakeDNS, FakeWeb, LoopbackDialer, SocketFence
from tests.support.clock import FakeClock
from vicaran_agent.clients import page_reader as page_reader_module
from vicaran_agent.clients import page_text
from vicaran_agent.clients import safety as safety_module
from vicaran_agent.clients.page_reader import PageReader, PageResult
from vicaran_agent.clients.safety import ResolvedURL, resolve_url
from vicaran_agent.config import Settings
from vicaran_agent.urls import normalize_url

PARAGRAPHS = [
    "The city council approved the new budget on Tuesday after a six-hour session that "
    "stretched late into the night, with eleven votes in favour and four against the plan.",
    "Opposition members said the cuts to public transport would hurt the poorest districts, "
    "while the mayor argued that the city had no choice after two years of falling revenue.",
    "The budget now goes to the state auditor, who has thirty days to review the figures "
    "before the spending plan takes effect at the start of the next fiscal year in January.",
]
ARTICLE_MD = (
    "# Council approves budget\n\n![Photo](https://cdn.news.example/p.jpg)\n\n"
    + "\n\n".join(PARAGRAPHS)
    + "\n\nRead the [full budget](https://news.example/budget.pdf) here."
)
STORY = "https://news.example/budget"


_TLS = ssl.create_default_context()


class LoopbackOnly(httpx.AsyncBaseTransport):
    """Lets requests reach 127.0.0.1 only; anything else fails loudly instead of connecting."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=_TLS)  # one TLS context for all readers
        self.hosts: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.hosts.append(request.url.host)
        if request.url.host != "127.0.0.1":
            raise httpx.ConnectError(f"test guard: no traffic to {request.url.host}")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
def jina():
    pages = {
        STORY: Page(
            "Council approves budget",
            ARTICLE_MD,
            published_time="2026-08-18T20:06:42+00:00",  # its article:published_time meta tag
        )
    }
    with FakeJinaReader(pages) as fake:
        yield fake


@pytest.fixture
def web():
    with FakeWeb() as fake:
        yield fake


def make_reader(
    jina: FakeJinaReader | None, clock: FakeClock | None = None, **overrides: Any
) -> PageReader:
    values: dict[str, Any] = {
        "jina_reader_base_url": jina.url if jina else "http://127.0.0.1:9",
        "jina_api_key": "",
        "vicaran_fetch_allow_private": True,
        "vicaran_page_timeout_seconds": 1.0,
        "vicaran_max_retries": 2,
        "vicaran_max_page_bytes": 3_000_000,
    }
    values.update(overrides)
    settings = Settings(_env_file=None, **values)
    return PageReader(
        settings,
        backoff_base=0.01,
        backoff_max=0.05,
        transport=LoopbackOnly(),
        dialer=LoopbackDialer(),
        **({"clock": clock} if clock else {}),
    )


async def read(reader: PageReader, url: str) -> PageResult:
    try:
        return await reader.read(url)
    finally:
        await reader.aclose()


# --- Jina Reader ---------------------------------------------------------------------------


async def test_jina_success(jina: FakeJinaReader) -> None:
    result = await read(make_reader(jina), STORY)
    assert result.ok and result.error is None and result.via == "jina"
    assert result.url == STORY
    assert result.title == "Council approves budget"
    assert (result.published_at, result.published_at_source) == ("2026-08-18", "metadata")
    assert PARAGRAPHS[1] in result.text
    assert "![" not in result.text and "cdn.news.example" not in result.text  # image dropped
    assert "Read the full budget here." in result.text  # link reduced to its text
    (request,) = jina.requests
    assert request.method == "GET" and request.raw_path == "/" + quote(STORY, safe="")
    assert request.header("authorization") is None  # no key, no header
    # the JSON envelope: it carries the page's meta tags, which say whether a date is one
    assert request.header("accept") == "application/json"
    assert "Vicaran" in (request.header("user-agent") or "")


async def test_a_page_without_date_metadata_has_no_date_through_jina(
    jina: FakeJinaReader,
) -> None:
    """Reader prints the server's Last-Modified as `Published Time` when the page states no
    date: a 2019 article on a server that rewrites its pages would look published today."""
    jina.pages[STORY] = Page(
        "Council approves budget",
        ARTICLE_MD,
        metadata={"og:title": "Council approves budget", "article:modified_time": "2026-01-02"},
        last_modified="Fri, 27 Nov 2026 04:00:00 GMT",
    )
    async with httpx.AsyncClient() as client:
        said = (await client.get(f"{jina.url}/{quote(STORY, safe='')}")).text
    assert "Published Time: Fri, 27 Nov 2026 04:00:00 GMT" in said  # what Reader says
    result = await read(make_reader(jina), STORY)
    assert result.ok and result.via == "jina"
    assert (result.published_at, result.published_at_source) == (None, None)
    assert page_text._parse_jina_text(said)[0].published_at is None  # text: neither


async def test_jina_dates_come_from_the_pages_own_date_metadata(jina: FakeJinaReader) -> None:
    """A date in the page's meta tags (any of htmldate's publication names) is its date, in
    whatever format the page writes it; Reader's Last-Modified line adds nothing."""
    for tags, expected in [
        ({"article:published_time": "2019-03-05T08:00:00-03:00"}, "2019-03-05"),
        ({"date": "2019/03/05"}, "2019-03-05"),  # Reader prints Last-Modified for this one
        ({"DC.date.issued": "5 March 2019"}, "2019-03-05"),
        ({"parsely-pub-date": ["2019-03-05T10:00:00Z", "2019-03-06T10:00:00Z"]}, "2019-03-05"),
        ({"og:updated_time": "2026-11-01"}, None),  # a modification date is not one
        ({"gentime": "2026-11-27 04:00"}, None),  # the time the page was generated: neither
    ]:
        jina.pages[STORY] = Page("Budget", ARTICLE_MD, metadata=tags)
        result = await read(make_reader(jina), STORY)
        assert result.ok and result.via == "jina", tags
        assert result.published_at == expected, tags
        assert result.published_at_source == ("metadata" if expected else None), tags
    # JSON-LD is not in Reader's metadata: its date cannot be told from Last-Modified there
    jina.pages[STORY] = Page("Budget", ARTICLE_MD, json_ld_published="2019-03-05T08:00:00Z")
    result = await read(make_reader(jina), STORY)
    assert result.ok and result.published_at is None


async def test_jina_key_is_sent_when_set(jina: FakeJinaReader) -> None:
    jina.api_key = "jina_good"
    jina.require_key = True
    result = await read(make_reader(jina, jina_api_key="jina_good"), STORY)
    assert result.ok and result.via == "jina"
    assert jina.requests[0].header("authorization") == "Bearer jina_good"


async def test_jina_bad_key_falls_back_and_says_what_to_do(
    jina: FakeJinaReader, web: FakeWeb
) -> None:
    jina.api_key = "jina_good"
    url = web.add_article("/story", "Budget passes", PARAGRAPHS)
    result = await read(make_reader(jina, jina_api_key="jina_bad"), url)
    assert result.ok and result.via == "direct"
    assert jina.count() == 1  # 401 is not retried
    result = await read(make_reader(jina, jina_api_key="jina_bad"), web.page_url("/missing"))
    assert result.error == (
        "Jina Reader: rejected the API key (401): set a valid JINA_API_KEY in .env, or remove "
        "it; direct fetch: the site answered HTTP 404"
    )


async def test_long_text_is_clipped(jina: FakeJinaReader) -> None:
    jina.pages[STORY] = Page("Long", "\n\n".join(PARAGRAPHS * 40))
    result = await read(make_reader(jina), STORY)
    assert result.ok and len(result.text) <= 5000 and result.text.endswith("…")
    assert result.published_at is None  # no date metadata: Reader's Last-Modified is not one


async def test_451_falls_back_to_a_direct_fetch(jina: FakeJinaReader, web: FakeWeb) -> None:
    url = web.add_article("/story", "Budget passes", PARAGRAPHS, published="2025-03-02")
    result = await read(make_reader(jina), url)
    assert result.ok and result.via == "direct" and result.error is None
    assert result.title == "Budget passes"
    assert result.published_at == "2025-03-02"
    assert PARAGRAPHS[0] in result.text and "All rights reserved" not in result.text
    assert jina.count() == 1  # the real Reader refuses loopback targets: 451, not retried
    assert web.count("/story") == 1
    assert "Vicaran" in (web.requests[0].header("user-agent") or "")


async def test_target_error_warning_falls_back(web: FakeWeb) -> None:
    url = web.add_article("/gone", "Still here", PARAGRAPHS)
    pages = {url: Page("404", "Not found", warning="Target URL returned error 404: Not Found")}
    with FakeJinaReader(pages, refuse_private=False) as jina:
        result = await read(make_reader(jina), url)
        assert result.ok and result.via == "direct" and result.title == "Still here"
        web.add_html("/gone", "<html><title>Nope</title><body>gone</body></html>", status=404)
        result = await read(make_reader(jina), url)
    assert not result.ok
    assert result.error == (
        "Jina Reader: the site answered 404 Not Found; direct fetch: the site answered HTTP 404"
    )
    assert result.kind == "missing"  # "the page no longer exists at this address"


async def test_429_retry_after_seconds_is_honoured(jina: FakeJinaReader) -> None:
    jina.fail(STORY, 429, times=1, retry_after=1)
    clock = FakeClock(autojump=True)
    reader = make_reader(jina, clock=clock)
    reader.backoff_max = 5
    result = await read(reader, STORY)
    assert result.ok and result.via == "jina" and jina.count() == 2
    assert clock.slept == [1.0]  # the server's word, not the 0.01 s backoff


async def test_429_retry_after_date_is_honoured_and_capped(jina: FakeJinaReader) -> None:
    clock = FakeClock(autojump=True, wall=1_780_000_000.0)
    jina.fail(STORY, 429, times=1, retry_after=http_date(2, now=clock.wall()))
    reader = make_reader(jina, clock=clock)
    reader.backoff_max = 5
    assert (await read(reader, STORY)).ok
    assert clock.slept == [2.0]  # counted from the clock's own time
    # A Retry-After far away is capped at backoff_max.
    jina.reset_log()
    jina.fail(STORY, 429, times=1, retry_after=600)
    clock = FakeClock(autojump=True)
    assert (await read(make_reader(jina, clock=clock), STORY)).ok
    assert clock.slept == [0.05] and jina.count() == 2


async def test_429_that_never_clears_falls_back(jina: FakeJinaReader, web: FakeWeb) -> None:
    jina.fail(None, 429, retry_after=0)
    result = await read(make_reader(jina, vicaran_max_retries=1), web.page_url("/none"))
    assert jina.count() == 2
    assert result.error == (
        "Jina Reader: rate limited (429): set JINA_API_KEY in .env for higher limits (still "
        "failing after 1 retries); direct fetch: the site answered HTTP 404"
    )


async def test_5xx_is_retried(jina: FakeJinaReader) -> None:
    jina.fail(STORY, 503, times=2)
    result = await read(make_reader(jina), STORY)
    assert result.ok and result.via == "jina" and jina.count() == 3


async def test_garbage_falls_back(jina: FakeJinaReader, web: FakeWeb) -> None:
    url = web.add_article("/story", "Budget passes", PARAGRAPHS)
    for kind in ("captcha", "binary"):
        with FakeJinaReader(refuse_private=False) as permissive:
            permissive.fail(None, kind)
            result = await read(make_reader(permissive), url)
            assert permissive.count() == 1  # garbage is not retried
        assert result.ok and result.via == "direct" and result.title == "Budget passes", kind
    web.add_html("/blocked", "<html><title>x</title><body>Attention Required!</body></html>")
    with FakeJinaReader(refuse_private=False) as permissive:
        permissive.fail(None, "captcha")
        result = await read(make_reader(permissive), web.page_url("/blocked"))
    assert not result.ok
    assert result.error is not None and result.error.startswith("Jina Reader: blocked page")
    assert "; direct fetch: " in result.error


async def test_hanging_everywhere_fails_within_budget(jina: FakeJinaReader, web: FakeWeb) -> None:
    url = web.add_hang("/slow")
    with FakeJinaReader(refuse_private=False) as hanging:
        hanging.fail(None, "hang")
        reader = make_reader(hanging, vicaran_page_timeout_seconds=0.3)
        result = await read(reader, url)
    # each step was cut by its timeout (a hang is never waited out: the fakes hang 60 s)
    assert not result.ok and result.timed_out
    assert result.error is not None
    assert result.error.startswith("Jina Reader: timed out")
    assert "direct fetch: timed out" in result.error


async def test_unreachable_jina_is_retried_then_direct(web: FakeWeb) -> None:
    url = web.add_article("/story", "Budget passes", PARAGRAPHS)
    result = await read(make_reader(None, vicaran_max_retries=1), url)
    assert result.ok and result.via == "direct"
    result = await read(make_reader(None, vicaran_max_retries=1), web.page_url("/nope"))
    assert result.error == (
        "Jina Reader: could not reach http://127.0.0.1:9 (ConnectError) (still failing after "
        "1 retries); direct fetch: the site answered HTTP 404"
    )


# --- direct fetch --------------------------------------------------------------------------


async def test_direct_fetch_refuses_loopback_by_default(jina: FakeJinaReader, web: FakeWeb) -> None:
    url = web.add_article("/story", "Budget passes", PARAGRAPHS)
    result = await read(make_reader(jina, vicaran_fetch_allow_private=False), url)
    assert not result.ok and result.via == ""
    assert result.error is not None
    assert result.error.startswith("Jina Reader: refused the URL (451")
    assert "direct fetch: refusing to fetch" in result.error and "loopback" in result.error
    assert web.count() == 0


async def test_direct_fetch_refuses_private_addresses(jina: FakeJinaReader) -> None:
    reader = make_reader(jina, vicaran_fetch_allow_private=False)
    result = await read(reader, "http://10.0.0.1/admin")
    assert result.error == (
        "Jina Reader: refused the URL (451: blocked site or private address); "
        "direct fetch: refusing to fetch http://10.0.0.1/admin: 10.0.0.1 is a private address"
    )
    assert "10.0.0.1" not in reader._transport.hosts  # type: ignore[union-attr]


async def test_redirect_to_a_private_host_is_refused(
    jina: FakeJinaReader, web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the fake site's own origin counts as public; every other hop gets the real check.
    async def only_fake_site_is_public(url: str, *, allow_private: bool = False) -> ResolvedURL:
        if url.startswith(web.url + "/"):
            return ResolvedURL("127.0.0.1", web.port, (ipaddress.IPv4Address("127.0.0.1"),))
        return await resolve_url(url, allow_private=allow_private)

    monkeypatch.setattr(safety_module, "resolve_url", only_fake_site_is_public)
    web.add_redirect("/start", "/hop")
    web.add_redirect("/hop", "http://10.0.0.1/admin", status=301)
    reader = make_reader(jina, vicaran_fetch_allow_private=False)
    result = await read(reader, web.page_url("/start"))
    assert not result.ok
    assert result.error is not None and result.error.endswith(
        "direct fetch: refusing to fetch http://10.0.0.1/admin: 10.0.0.1 is a private address"
    )
    assert [r.path for r in web.requests] == ["/start", "/hop"]
    web.add_redirect("/local", f"http://localhost:{web.port}/start")
    result = await read(
        make_reader(jina, vicaran_fetch_allow_private=False), web.page_url("/local")
    )
    assert result.error is not None and "localhost is a loopback host" in result.error
    assert web.count("/start") == 1  # the localhost hop was never fetched


async def test_redirects_are_followed_up_to_five(jina: FakeJinaReader, web: FakeWeb) -> None:
    web.add_article("/story", "Budget passes", PARAGRAPHS)
    web.add_redirect("/old", "/story", status=301)
    web.add_redirect("/older", web.page_url("/old"), status=308)
    result = await read(make_reader(jina), web.page_url("/older"))
    assert result.ok and result.via == "direct" and result.title == "Budget passes"
    for i in range(7):
        web.add_redirect(f"/loop{i}", f"/loop{i + 1}")
    result = await read(make_reader(jina), web.page_url("/loop0"))
    assert result.error is not None
    assert result.error.endswith("direct fetch: too many redirects (more than 5)")
    assert web.count("/loop5") == 1 and web.count("/loop6") == 0


@pytest.mark.parametrize("declare_length", [True, False])
async def test_size_cap_stops_the_download(
    jina: FakeJinaReader, web: FakeWeb, declare_length: bool
) -> None:
    size = 30_000_000
    url = web.add_huge("/big", size, declare_length=declare_length)
    result = await read(make_reader(jina, vicaran_max_page_bytes=200_000), url)
    assert result.ok and result.via == "direct"  # the start of the page is still read
    assert result.title == "Huge page" and len(result.text) <= 5000
    assert await asyncio.to_thread(web.wait_idle)  # the reader hung up: the fake stopped
    assert web.requests[0].bytes_sent < size // 3


async def test_non_html_content_is_refused(jina: FakeJinaReader, web: FakeWeb) -> None:
    url = web.add_raw("/doc.pdf", b"%PDF-1.7 " + bytes(range(256)) * 10, "application/pdf")
    result = await read(make_reader(jina), url)
    assert not result.ok
    assert result.error is not None
    assert result.error.endswith("direct fetch: not a web page (application/pdf)")
    assert result.kind == "not_a_page"
    text_url = web.add_raw("/notes.txt", " ".join(PARAGRAPHS).encode(), "text/plain")
    result = await read(make_reader(jina), text_url)
    assert result.ok and PARAGRAPHS[2] in result.text


async def test_short_or_blocked_direct_page_is_a_failure(
    jina: FakeJinaReader, web: FakeWeb
) -> None:
    url = web.add_article("/tiny", "Tiny", ["Too short."])
    result = await read(make_reader(jina), url)
    assert not result.ok
    assert result.error is not None and "direct fetch: content too short" in result.error
    assert result.kind == "empty"


async def test_read_never_raises_and_skips_non_web_urls(jina: FakeJinaReader) -> None:
    for url in ("", "   ", "not a url", "ftp://files.example/x", "http://[::1", "mailto:a@b.c"):
        result = await read(make_reader(jina, vicaran_fetch_allow_private=False), url)
        assert isinstance(result, PageResult) and not result.ok and result.error
    assert jina.count() == 0  # nothing worth asking Reader about


async def test_unexpected_errors_become_values(
    jina: FakeJinaReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(page_reader_module, "run_parser", explode)
    result = await read(make_reader(jina), STORY)
    assert not result.ok and result.error == "unexpected error: RuntimeError: boom"


def test_the_text_format_is_understood_too(jina: FakeJinaReader) -> None:
    jina.pages[STORY].warning = "This is a cached snapshot of the original page."
    text = httpx.get(f"{jina.url}/{STORY}", headers={"Accept": "text/plain"}).text
    assert "Published Time: 2026-08-18T20:06:42+00:00" in text
    page, warnings = page_text._parse_jina_text(text)
    assert page.title == "Council approves budget"
    assert page.published_at is None  # a bare Published Time line may be Last-Modified
    assert PARAGRAPHS[0] in page.text and "![" not in page.text
    assert warnings == ["This is a cached snapshot of the original page."]


@pytest.mark.parametrize(
    "meant",
    [
        "https://site.example/search?q=fish%26chips&page=2",  # an escaped & is not a separator
        "https://site.example/login?next=%2Fhome%3Ftab%3D1",  # an escaped = is not a pair
        "https://site.example/files/report%2F2024.pdf",  # an escaped / is not a segment
        "https://site.example/tags?q=%23vote",  # an escaped # is not a fragment
        "https://site.example/a%2Fb?x=1%263&y=%3D#top",  # all, and a fragment (not read)
    ],
)
async def test_jina_targets_reach_the_site_exactly(meant: str) -> None:
    """Reader URI-decodes the address once: it must get the one Vicaran means, escapes kept."""
    read_as = meant.partition("#")[0]  # what is read, rated and deduplicated has no fragment
    with FakeJinaReader({read_as: Page("Found", ARTICLE_MD)}) as jina:
        result = await read(make_reader(jina), meant)
    assert jina.targets() == [read_as]
    assert result.ok and result.via == "jina" and result.title == "Found"


# --- DNS rebinding: connect to the address that was checked --------------------------------


def unfenced_reader(**overrides: Any) -> PageReader:
    """A reader with httpx's own sockets (the test's SocketFence is the only guard): Jina is
    unreachable, so every read is a direct fetch."""
    values: dict[str, Any] = {
        "jina_reader_base_url": "http://127.0.0.1:9",
        "jina_api_key": "",
        "vicaran_fetch_allow_private": False,
        "vicaran_page_timeout_seconds": 1.0,
        "vicaran_max_retries": 0,
        **overrides,
    }
    return PageReader(Settings(_env_file=None, **values), backoff_base=0.01, backoff_max=0.05)


async def test_dns_rebinding_cannot_reach_loopback_through_a_direct_fetch(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rebind.example answers a public address to the check, then 127.0.0.1 to any later
    lookup: the fetch must connect to the public address it checked (refused: tests are
    offline), on the URL itself and on a redirect hop, and never reach the loopback site."""
    web.add_article("/secret", "Internal admin", PARAGRAPHS)
    web.add_redirect("/start", f"http://rebind.example:{web.port}/secret")
    dns = FakeDNS().add("start.example", ["142.250.64.100"]).install(monkeypatch)
    # start.example's "public" address is served by the fake site; nothing else leaves loopback
    fence = SocketFence(dns).route("142.250.64.100", web.port, plain_tls=False)
    fence.install(monkeypatch)
    direct = f"http://rebind.example:{web.port}/secret"
    via_redirect = f"http://start.example:{web.port}/start"
    for url in (direct, via_redirect):
        dns.add("rebind.example", ["93.184.215.14"], ["127.0.0.1"])
        result = await read(unfenced_reader(), url)

        assert not result.ok and "Internal admin" not in result.title, url
        assert result.error is not None
        assert result.error.endswith("direct fetch: connection failed (ConnectError)"), url
    assert web.count("/secret") == 0
    assert web.count("/start") == 1
    assert dns.lookups.count("rebind.example") == 2  # once per read: by the guard, only
    assert [(d.host, d.address) for d in fence.refused] == [("93.184.215.14",) * 2] * 2


async def test_allowing_private_addresses_still_pins_the_connection(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    web.add_article("/story", "Budget passes", PARAGRAPHS)
    dns = FakeDNS().add("intranet.example", ["127.0.0.1"], ["10.1.2.3"]).install(monkeypatch)
    fence = SocketFence(dns).install(monkeypatch)

    result = await read(
        unfenced_reader(vicaran_fetch_allow_private=True),
        f"http://intranet.example:{web.port}/story",
    )

    assert result.ok and result.via == "direct" and result.title == "Budget passes"
    assert dns.lookups == ["intranet.example"]  # resolved once, by the guard
    # the socket was opened to the address the guard resolved, not to the name
    direct = [d for d in fence.dials if d.port == web.port]
    assert [(d.host, d.address) for d in direct] == [("127.0.0.1", "127.0.0.1")]
    assert web.requests[0].header("host") == f"intranet.example:{web.port}"


# --- decompression bombs ---------------------------------------------------------------------


@pytest.fixture
def inflated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The size of every piece of output any zlib decompressor produces during the test."""
    sizes: list[int] = []
    real = zlib.decompressobj

    class Spy:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._inner = real(*args, **kwargs)

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            out = self._inner.decompress(data, max_length)
            sizes.append(len(out))
            return out

        def flush(self, *args: Any) -> bytes:
            out = self._inner.flush(*args)
            sizes.append(len(out))
            return out

        def __getattr__(self, name: str) -> Any:
            return getattr(self._inner, name)

    monkeypatch.setattr(zlib, "decompressobj", Spy)
    yield sizes


@pytest.mark.parametrize("via", ["direct", "jina"])
async def test_a_gzip_bomb_is_read_only_up_to_the_cap(
    web: FakeWeb, inflated: list[int], via: str
) -> None:
    cap = 200_000
    expanded = 64 * 2**20  # from about 65 kB of gzip
    if via == "direct":
        url = web.add_gzip_bomb("/bomb", expanded)
        reader = make_reader(None, vicaran_max_page_bytes=cap, vicaran_max_retries=0)
    else:
        url = STORY
        head = f"Title: Bomb\n\nURL Source: {STORY}\n\nMarkdown Content:\n".encode()
        web.add_gzip_bomb(
            "/" + quote(STORY, safe=""), expanded, prefix=head, content_type="text/plain"
        )
        reader = make_reader(None, jina_reader_base_url=web.url, vicaran_max_page_bytes=cap)

    result = await read(reader, url)

    assert result.ok and result.via == via and result.title == "Bomb"
    assert len(result.text) <= 5000 and result.text.startswith("A")
    # Vicaran decoded no more than the cap (plus at most one network chunk's worth): it never
    # held the expansion, whatever the compression ratio
    assert sum(inflated) <= cap + 64 * 1024, sum(inflated)
    assert max(inflated) <= cap


async def test_content_encodings(jina: FakeJinaReader, web: FakeWeb) -> None:
    page = " ".join(PARAGRAPHS).encode()
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    bodies = {
        "gzip": gzip.compress(page),
        "deflate": zlib.compress(page),  # as the RFC means it (zlib-wrapped)
        "Deflate": raw_deflate.compress(page) + raw_deflate.flush(),  # as some servers send it
        "identity": page,
    }
    for coding, body in bodies.items():
        url = web.add_raw(f"/{coding}", body, "text/plain", headers={"Content-Encoding": coding})
        result = await read(make_reader(jina), url)
        assert result.ok and PARAGRAPHS[2] in result.text, coding
    web.add_raw("/br", b"\x1b\x00\x00", "text/plain", headers={"Content-Encoding": "br"})
    web.add_raw("/bad", b"\x1f\x8b not gzip", "text/plain", headers={"Content-Encoding": "gzip"})
    result = await read(make_reader(jina), web.page_url("/br"))
    assert result.error is not None
    assert result.error.endswith("direct fetch: unsupported content encoding (br)")
    result = await read(make_reader(jina), web.page_url("/bad"))
    assert result.error is not None and "direct fetch: corrupt gzip data" in result.error
    assert all(r.header("accept-encoding") == "gzip, deflate" for r in web.requests + jina.requests)


# --- dot segments: the page read is the page rated -----------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        "https://www.reuters.com/world/../../evil.example/fake",
        "https://www.reuters.com/world/%2e%2e/%2E%2E/evil.example/fake",
        "https://www.reuters.com/world/./../../evil.example/fake#top",
        "https://www.reuters.com\\world\\..\\..\\evil.example/fake",
    ],
)
async def test_jina_reads_the_page_that_is_rated_not_where_dot_segments_lead(
    written: str,
) -> None:
    fetched = "https://www.reuters.com/evil.example/fake"
    pages = {
        fetched: Page("Reuters page", ARTICLE_MD),
        "https://evil.example/fake": Page("Evil page", "Fake news. " * 100),
    }
    with FakeJinaReader(pages) as jina:
        result = await read(make_reader(jina), written)

    assert result.ok and result.title == "Reuters page" and result.url == written
    (request,) = jina.requests
    assert request.raw_path == "/" + quote(fetched, safe="")
    assert jina.targets() == [fetched]  # exactly the target that is rated and deduped
    assert (
        normalize_url(written) == normalize_url(fetched) == "https://reuters.com/evil.example/fake"
    )


async def test_a_site_that_does_not_exist_is_said_to_be_one(jina: FakeJinaReader) -> None:
    """Reader has nothing (422) and the host does not resolve: for a journalist, "the site
    could not be found" (the kind); the two technical answers stay in `error`, for the record."""

    jina.fail("https://nonexistent.example.org/story", 422)
    reader = make_reader(jina, vicaran_fetch_allow_private=False)
    result = await read(reader, "https://nonexistent.example.org/story")  # (offline: no DNS)
    assert not result.ok and result.kind == "no_site"
    assert "no content available (422)" in (result.error or "")
    assert "could not resolve host" in (result.error or "")
