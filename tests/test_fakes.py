"""The loopback fakes speak the real contracts: checked with the real Tavily SDK and httpx."""

from __future__ import annotations

import asyncio
import email.utils
import http.client
import json
import time
import urllib.parse
from datetime import date

import httpx
import pytest
import requests
import tavily
from tavily.errors import ForbiddenError
from tavily.errors import TimeoutError as TavilyTimeoutError

from tests.fakes.jina import FakeJinaReader, Page, http_date, text_representation
from tests.fakes.tavily import FakeTavily
from tests.fakes.web import FakeWeb
from tests.support.clock import FakeClock

RESULTS = [
    {
        "url": "https://news.example.org/a",
        "title": "A",
        "content": "alpha",
        "score": 0.9,
        "published_date": "Fri, 28 Nov 2025 06:34:57 GMT",
    },
    {"url": "https://blog.other.net/b", "title": "B", "content": "beta", "score": 0.8},
    {"url": "https://www.third.com/c", "title": "C", "content": "gamma", "score": 0.7},
]


@pytest.fixture
def fake_tavily():
    with FakeTavily(RESULTS) as fake:
        yield fake


@pytest.fixture
def reader():
    pages = {
        "https://example.com/": Page(
            "Example Domain",
            "# Example Domain\n\nThis domain is for use in examples.",
            last_modified=None,  # its server sends no Last-Modified
        ),
        "https://news.example/a?b=c": Page(
            "Headline",
            "# Headline\n\nBody.",
            published_time="Tue, 18 Aug 2026 20:06:42 GMT",
            warning="Target URL returned error 404: Not Found",
        ),
    }
    with FakeJinaReader(pages) as fake:
        yield fake


# --- Tavily --------------------------------------------------------------------------------


async def test_async_client_gets_documented_shape(fake_tavily: FakeTavily) -> None:
    client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake_tavily.url)
    try:
        body = await client.search("who is X", max_results=2)
    finally:
        await client.close()
    assert set(body) >= {
        "query",
        "follow_up_questions",
        "answer",
        "images",
        "results",
        "response_time",
        "request_id",
    }
    assert body["query"] == "who is X"
    assert body["answer"] is None and body["follow_up_questions"] is None and body["images"] == []
    assert [r["url"] for r in body["results"]] == [RESULTS[0]["url"], RESULTS[1]["url"]]
    first, second = body["results"]
    assert "published_date" not in first and "published_date" not in second  # general: none
    assert first["raw_content"] is None and first["content"] == "alpha" and first["score"] == 0.9
    (req,) = fake_tavily.requests
    assert req.method == "POST" and req.path == "/search"
    assert req.header("authorization") == "Bearer tvly-test"
    assert req.json == {"query": "who is X", "max_results": 2}


async def test_tavily_dates_only_for_news_in_rfc_1123() -> None:
    """`published_date` comes with topic="news" only, as an RFC 1123 date, within `days`
    (3 unless the request says otherwise) of the fake's today."""
    results = [
        {**RESULTS[0], "published_date": "2025-11-28"},  # an ISO day is sent as the API does
        {**RESULTS[1], "published_date": "Mon, 24 Nov 2025 10:00:00 GMT"},
        RESULTS[2],  # undated: never in a news index
    ]
    with FakeTavily(results, today=date(2025, 11, 29)) as fake:
        client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
        try:
            general = await client.search("x")
            recent = await client.search("x", topic="news")
            older = await client.search("x", topic="news", days=30)
        finally:
            await client.close()
    assert [r.get("published_date") for r in general["results"]] == [None, None, None]
    assert [r["published_date"] for r in recent["results"]] == ["Fri, 28 Nov 2025 00:00:00 GMT"]
    assert [r["published_date"] for r in older["results"]] == [
        "Fri, 28 Nov 2025 00:00:00 GMT",
        "Mon, 24 Nov 2025 10:00:00 GMT",
    ]


def test_sync_client_and_default_max_results() -> None:
    many = [{"url": f"https://s{i}.example/x", "title": str(i), "content": "c"} for i in range(9)]
    with FakeTavily(many) as fake:
        body = tavily.TavilyClient(api_key="tvly-test", api_base_url=fake.url).search("q")
        assert len(body["results"]) == 5  # the server default
        scores = [r["score"] for r in body["results"]]
        assert scores == sorted(scores, reverse=True)
        extracted = tavily.TavilyClient(api_key="tvly-test", api_base_url=fake.url).extract(
            ["https://nope.example/"]
        )
        assert extracted["results"] == []
        assert extracted["failed_results"][0]["url"] == "https://nope.example/"
        assert fake.requests[-1].json == {"urls": ["https://nope.example/"], "timeout": 30}


async def test_overrides_by_substring_and_callable() -> None:
    special = [{"url": "https://special.example/", "title": "S", "content": "s"}]
    with FakeTavily(RESULTS, overrides={"mayor": special}) as fake:
        client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
        assert (await client.search("The MAYOR resigned"))["results"][0]["url"] == special[0]["url"]
        assert (await client.search("other"))["results"][0]["url"] == RESULTS[0]["url"]
        await client.close()

    def pick(query: str, body: dict) -> list[dict] | None:
        return special if body.get("search_depth") == "advanced" else None

    with FakeTavily(RESULTS, overrides=pick) as fake:
        client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
        assert (await client.search("x", search_depth="advanced"))["results"] == [
            {**special[0], "score": 0.9, "raw_content": None}
        ]
        assert len((await client.search("x"))["results"]) == 3
        await client.close()


def test_domain_filter_is_leaky_by_default_and_strict_on_request() -> None:
    for strict in (False, True):
        with FakeTavily(RESULTS, honour_domain_filters=strict) as fake:
            client = tavily.TavilyClient(api_key="tvly-test", api_base_url=fake.url)
            urls = [
                r["url"]
                for r in client.search(
                    "q", include_domains=["other.net", "third.com"], exclude_domains=["third.com"]
                )["results"]
            ]
            if strict:
                assert urls == ["https://blog.other.net/b"]
            else:
                assert "https://www.third.com/c" in urls  # exclusion ignored
                assert "https://news.example.org/a" in urls  # inclusion only preferred
                assert urls[0] == "https://blog.other.net/b"


async def test_wrong_key_is_401_with_documented_body(fake_tavily: FakeTavily) -> None:
    client = tavily.AsyncTavilyClient(api_key="tvly-wrong", api_base_url=fake_tavily.url)
    with pytest.raises(tavily.InvalidAPIKeyError, match="missing or invalid API key"):
        await client.search("q")
    await client.close()
    async with httpx.AsyncClient() as http:
        raw = await http.post(f"{fake_tavily.url}/search", json={"query": "q"})
    assert raw.status_code == 401
    assert raw.json() == {"detail": {"error": "Unauthorized: missing or invalid API key."}}


def test_usage_counts_the_credits_spent_and_a_spent_key_gets_432() -> None:
    with FakeTavily(RESULTS, key_limit=3) as fake:
        client = tavily.TavilyClient(api_key="tvly-test", api_base_url=fake.url)
        client.search("q", search_depth="advanced")  # 2 credits
        client.search("q")  # 1 credit: the limit
        with pytest.raises(ForbiddenError):  # 432, as the SDK reports it
            client.search("q")
        usage = httpx.get(f"{fake.url}/usage", headers={"Authorization": "Bearer tvly-test"})
        wrong = httpx.get(f"{fake.url}/usage", headers={"Authorization": "Bearer tvly-no"})
    assert usage.status_code == 200
    assert usage.json()["key"] == {"usage": 3, "limit": 3}
    assert set(usage.json()["account"]) == {
        "current_plan", "plan_usage", "plan_limit", "paygo_usage", "paygo_limit",
    }  # fmt: skip
    assert wrong.status_code == 401 and wrong.json()["detail"]["error"]


@pytest.mark.parametrize(
    ("status", "exception"),
    [
        (400, tavily.BadRequestError),
        (401, tavily.InvalidAPIKeyError),
        (403, ForbiddenError),
        (429, tavily.UsageLimitExceededError),
        (432, ForbiddenError),
        (433, ForbiddenError),
        (500, httpx.HTTPStatusError),
        (502, httpx.HTTPStatusError),
    ],
)
async def test_injected_failures_raise_the_sdk_exceptions(
    fake_tavily: FakeTavily, status: int, exception: type[Exception]
) -> None:
    fake_tavily.fail(status, times=1)
    client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake_tavily.url)
    with pytest.raises(exception):
        await client.search("q")
    assert (await client.search("q"))["results"]  # only the next request failed
    await client.close()


def test_sync_client_exceptions(fake_tavily: FakeTavily) -> None:
    client = tavily.TavilyClient(api_key="tvly-test", api_base_url=fake_tavily.url)
    fake_tavily.fail(432, times=1)
    with pytest.raises(ForbiddenError):
        client.search("q")
    fake_tavily.fail(500, times=1)
    with pytest.raises(requests.exceptions.HTTPError):
        client.search("q")
    fake_tavily.fail(429, times=1)
    with pytest.raises(tavily.UsageLimitExceededError):
        client.search("q")


def test_429_carries_retry_after_and_error_bodies(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail(429, retry_after=7)
    headers = {"Authorization": "Bearer tvly-test"}
    raw = httpx.post(f"{fake_tavily.url}/search", json={"query": "q"}, headers=headers)
    assert raw.status_code == 429 and raw.headers["retry-after"] == "7"
    assert isinstance(raw.json()["detail"]["error"], str)
    fake_tavily.clear_failures()
    fake_tavily.fail(502)
    raw = httpx.post(f"{fake_tavily.url}/search", json={"query": "q"}, headers=headers)
    assert raw.status_code == 502 and raw.headers["content-type"].startswith("text/plain")


async def test_failure_only_for_matching_query(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail(500, query="broken")
    client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake_tavily.url)
    with pytest.raises(httpx.HTTPStatusError):
        await client.search("a broken one")
    assert (await client.search("fine"))["results"]
    await client.close()


async def test_hang_times_out_and_server_stops_promptly() -> None:
    fake = FakeTavily(RESULTS).start()
    fake.fail("hang")
    client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
    started = time.monotonic()
    with pytest.raises(TavilyTimeoutError):
        await client.search("q", timeout=0.3)
    assert time.monotonic() - started < 10  # cut by the timeout, not left hanging
    await client.close()
    started = time.monotonic()
    fake.stop()
    assert time.monotonic() - started < 10  # cut by the timeout, not left hanging


async def test_latency_and_peak_concurrency() -> None:
    """Latency holds each request by the fake's clock: overlap is shown by the clock, not by
    wall time, so a loaded machine changes nothing."""
    clock = FakeClock()
    with FakeTavily(RESULTS, latency=0.2, clock=clock) as fake:
        client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
        searches = asyncio.gather(*(client.search(f"q{i}") for i in range(4)))
        await clock.sleeping(4)  # all four are in, held by the latency
        clock.advance(0.1)
        assert clock.sleepers == 4 and fake.active == 4  # not yet: the latency is 0.2 s
        clock.advance(0.1)
        assert len(await searches) == 4
        assert fake.peak_concurrency == 4
        assert [r.ended - r.started for r in fake.requests] == [pytest.approx(0.2)] * 4
        await client.close()


# --- Jina Reader ---------------------------------------------------------------------------


def test_jina_text_format_exact(reader: FakeJinaReader) -> None:
    resp = httpx.get(f"{reader.url}/https://example.com/")
    assert resp.status_code == 200
    assert resp.headers["content-type"] == "text/plain; charset=utf-8"
    assert int(resp.headers["x-usage-tokens"]) > 0
    assert resp.text == (
        "Title: Example Domain\n\nURL Source: https://example.com/\n\n"
        "Markdown Content:\n# Example Domain\n\nThis domain is for use in examples.\n"
    )


def test_jina_text_format_with_extra_lines_and_query_target(reader: FakeJinaReader) -> None:
    resp = httpx.get(f"{reader.url}/https://news.example/a?b=c")
    assert resp.status_code == 200
    assert resp.text == (
        "Title: Headline\n\nURL Source: https://news.example/a?b=c\n\n"
        "Published Time: Tue, 18 Aug 2026 20:06:42 GMT\n\n"
        "Warning: Target URL returned error 404: Not Found\n\n"
        "Markdown Content:\n# Headline\n\nBody.\n"
    )
    # A percent-encoded target reaches the same page.
    encoded = httpx.get(f"{reader.url}/https%3A%2F%2Fnews.example%2Fa%3Fb%3Dc")
    assert encoded.text == resp.text
    assert reader.targets() == ["https://news.example/a?b=c"] * 2


def test_jina_json_envelope_only_without_text_plain(reader: FakeJinaReader) -> None:
    resp = httpx.get(
        f"{reader.url}/https://news.example/a?b=c", headers={"Accept": "application/json"}
    )
    assert resp.headers["content-type"] == "application/json"
    body = resp.json()
    assert body["code"] == 200 and body["status"] == 20000
    data = body["data"]
    assert data["title"] == "Headline" and data["url"] == "https://news.example/a?b=c"
    assert data["content"] == "# Headline\n\nBody."
    assert data["publishedTime"] == "Tue, 18 Aug 2026 20:06:42 GMT"
    assert data["usage"]["tokens"] > 0
    both = httpx.get(
        f"{reader.url}/https://example.com/",
        headers={"Accept": "application/json, text/plain"},
    )
    assert both.headers["content-type"].startswith("text/plain")


def test_jina_post_form(reader: FakeJinaReader) -> None:
    resp = httpx.post(f"{reader.url}/", json={"url": "https://example.com/"})
    assert resp.status_code == 200 and resp.text.startswith("Title: Example Domain\n")


def _jina_error(resp: httpx.Response, code: int, name: str, status: int) -> dict:
    assert resp.status_code == code
    assert resp.headers["content-type"] == "application/json"
    body = resp.json()
    assert body["data"] is None
    assert (body["code"], body["name"], body["status"]) == (code, name, status)
    assert body["readableMessage"] == f"{name}: {body['message']}"
    return body


def test_jina_errors(reader: FakeJinaReader) -> None:
    unknown = httpx.get(f"{reader.url}/https://unknown.example/x")
    body = _jina_error(unknown, 422, "AssertionFailureError", 42206)
    assert body["message"] == "No content available for URL https://unknown.example/x"
    _jina_error(httpx.get(f"{reader.url}/ftp://x.example/"), 400, "ParamValidationError", 40001)
    for private in ("http://127.0.0.1:8080/", "http://10.0.0.1/", "http://localhost/a"):
        resp = httpx.get(f"{reader.url}/{private}")
        _jina_error(resp, 451, "SecurityCompromiseError", 45102)
    reader.fail("https://example.com/", 402)
    _jina_error(
        httpx.get(f"{reader.url}/https://example.com/"), 402, "InsufficientBalanceError", 40203
    )
    reader.clear_failures()
    reader.fail(None, 503, times=1)
    _jina_error(httpx.get(f"{reader.url}/https://example.com/"), 503, "ServiceCrashedError", 50302)
    assert httpx.get(f"{reader.url}/https://example.com/").status_code == 200


def test_jina_429_retry_after_seconds_and_date(reader: FakeJinaReader) -> None:
    reader.fail("https://example.com/", 429, times=1, retry_after=3)
    resp = httpx.get(f"{reader.url}/https://example.com/")
    body = _jina_error(resp, 429, "RateLimitTriggeredError", 42903)
    assert resp.headers["retry-after"] == "3" and body["retryAfter"] == 3
    date = http_date(5)
    reader.fail("https://example.com/", 429, times=1, retry_after=date)
    resp = httpx.get(f"{reader.url}/https://example.com/")
    assert resp.headers["retry-after"] == date
    assert httpx.get(f"{reader.url}/https://example.com/").status_code == 200


def test_jina_text_only_client_gets_text_error(reader: FakeJinaReader) -> None:
    resp = httpx.get(f"{reader.url}/https://unknown.example/", headers={"Accept": "text/plain"})
    assert resp.status_code == 422
    assert resp.text == (
        "AssertionFailureError: No content available for URL https://unknown.example/\n"
    )


def test_jina_auth() -> None:
    pages = {"https://example.com/": Page("T", "C")}
    with FakeJinaReader(pages, api_key="jina_good", require_key=True) as fake:
        missing = httpx.get(f"{fake.url}/https://example.com/")
        _jina_error(missing, 401, "AuthenticationRequiredError", 40103)
        wrong = httpx.get(
            f"{fake.url}/https://example.com/", headers={"Authorization": "Bearer jina_bad"}
        )
        _jina_error(wrong, 401, "AuthenticationFailedError", 40102)
        good = httpx.get(
            f"{fake.url}/https://example.com/", headers={"Authorization": "Bearer jina_good"}
        )
        assert good.status_code == 200
        assert fake.requests[-1].header("authorization") == "Bearer jina_good"


def test_jina_index_without_a_target_and_a_spent_key() -> None:
    with FakeJinaReader({"https://example.com/": Page("T", "C")}, balance=0) as fake:
        anonymous = httpx.get(f"{fake.url}/")
        keyed = httpx.get(f"{fake.url}/", headers={"Authorization": "Bearer jina_any"})
        spent = httpx.get(
            f"{fake.url}/https://example.com/", headers={"Authorization": "Bearer jina_any"}
        )
    assert anonymous.text.splitlines() == [
        "[Usage 1] https://r.jina.ai/YOUR_URL",
        "[Usage 2] https://s.jina.ai/YOUR_SEARCH_QUERY",
        "[Homepage] https://jina.ai/reader",
        "[Source code] https://github.com/jina-ai/reader",
    ]
    assert keyed.text.endswith(
        "reader\n\n[Authenticated as] user-test (Test Newsroom)\n[Balance left] 0\n"
    )
    _jina_error(spent, 402, "InsufficientBalanceError", 40203)


def test_jina_garbage_and_hang(reader: FakeJinaReader) -> None:
    reader.fail("https://example.com/", "captcha", times=1)
    resp = httpx.get(f"{reader.url}/https://example.com/")
    assert resp.status_code == 200
    assert resp.text.startswith("Title: Attention Required! | Cloudflare\n")
    reader.fail("https://example.com/", "binary", times=1)
    resp = httpx.get(f"{reader.url}/https://example.com/")
    assert resp.status_code == 200 and "\x00" in resp.text
    reader.fail("https://example.com/", "hang")
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(f"{reader.url}/https://example.com/", timeout=0.3)
    assert time.monotonic() - started < 10  # cut by the timeout, not left hanging


def test_text_representation_rules() -> None:
    assert text_representation("https://u/", Page("T", "C", last_modified=None)) == (
        "Title: T\n\nURL Source: https://u/\n\nMarkdown Content:\nC\n"
    )
    # the warnings are one mixin (lines joined by "\n"); mixins are joined by a blank line
    two = Page("T", "C", warning=["w1", "w2"], last_modified="Tue, 18 Aug 2026 20:06:42 GMT")
    assert text_representation("https://u/", two) == (
        "Title: T\n\nURL Source: https://u/\n\nPublished Time: Tue, 18 Aug 2026 20:06:42 GMT\n\n"
        "Warning: w1\nWarning: w2\n\nMarkdown Content:\nC\n"
    )


def test_jina_published_time_as_snapshot_formatter_picks_it(reader: FakeJinaReader) -> None:
    """JSON-LD datePublished, else the article:published_time meta tag, else the server's
    Last-Modified (the time of the read unless the page says otherwise), each as written."""
    lm = "Wed, 02 Jan 2019 10:00:00 GMT"
    cases = [
        (Page("T", "C", json_ld_published="2019-01-01", published_time="2019-01-03"), "2019-01-01"),
        (
            Page("T", "C", published_time="2019-01-03T10:00:00Z", last_modified=lm),
            "2019-01-03T10:00:00Z",
        ),
        (
            Page("T", "C", metadata={"parsely-pub-date": "2019-01-04"}, last_modified=lm),
            "2019-01-04",
        ),
        (Page("T", "C", metadata={"date": "2019-01-05"}, last_modified=lm), lm),
        (Page("T", "C", last_modified=lm), lm),
    ]
    for page, expected in cases:
        assert page.reader_published_time() == expected
    before = time.time()
    served = email.utils.parsedate_to_datetime(Page("T", "C").reader_published_time() or "")
    assert served.timestamp() >= int(before)  # a server that rewrites its pages: "today"
    reader.pages["https://example.com/"] = Page(
        "T", "C", metadata={"og:title": "T", "date": ["2019-01-05", "x"]}, last_modified=lm
    )
    data = httpx.get(
        f"{reader.url}/https://example.com/", headers={"Accept": "application/json"}
    ).json()["data"]
    assert data["publishedTime"] == lm
    assert data["metadata"] == {"og:title": "T", "date": ["2019-01-05", "x"]}


def test_jina_decodes_the_target_once_as_the_real_reader() -> None:
    """crawler.ts: pathname + search of the request URL, decodeURIComponent'd once."""
    meant = "https://site.example/a%2Fb?q=fish%26chips&t=%23x"
    with FakeJinaReader({meant: Page("T", "C")}) as fake:
        raw = httpx.get(f"{fake.url}/{meant}")  # appended as is: its escapes are decoded
        encoded = httpx.get(f"{fake.url}/{urllib.parse.quote(meant, safe='')}")
        malformed = httpx.get(f"{fake.url}/https://site.example/100%25/%zz")
        connection = http.client.HTTPConnection("127.0.0.1", fake.port)
        connection.request("GET", "/https://site.example/a/%2E%2e/b")  # as sent, unresolved
        dots = connection.getresponse()
        connection.close()
        twice = httpx.get(f"{fake.url}/https://https://site.example/c")
    assert raw.status_code == 422 and encoded.status_code == 200
    assert fake.targets() == [
        "https://site.example/a/b?q=fish&chips&t=#x",
        meant,
        "https://site.example/100%25/%zz",  # decodeURIComponent throws: kept as is
        "https://site.example/b",  # the request URL's dot segments are resolved first
        "https://site.example/c",
    ]
    assert malformed.status_code == dots.status == twice.status_code == 422


# --- Plain web -----------------------------------------------------------------------------


def test_web_pages_redirects_and_types() -> None:
    with FakeWeb() as web:
        url = web.add_article("/story", "Mayor resigns", ["One.", "Two."], published="2025-03-02")
        web.add_redirect("/old", "/story", status=301)
        web.add_redirect("/away", "http://10.0.0.1/secret")
        web.add_raw("/doc.pdf", b"%PDF-1.7 junk", "application/pdf")
        page = httpx.get(url)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "<title>Mayor resigns</title>" in page.text and "<p>Two.</p>" in page.text
        assert 'content="2025-03-02"' in page.text
        moved = httpx.get(web.page_url("/old"))
        assert moved.status_code == 301 and moved.headers["location"] == "/story"
        assert httpx.get(web.page_url("/old"), follow_redirects=True).url == url
        assert httpx.get(web.page_url("/away")).headers["location"] == "http://10.0.0.1/secret"
        pdf = httpx.get(web.page_url("/doc.pdf"))
        assert pdf.headers["content-type"] == "application/pdf"
        assert httpx.get(web.page_url("/missing")).status_code == 404


@pytest.mark.parametrize("declare_length", [True, False])
def test_web_huge_page_streams(declare_length: bool) -> None:
    size = 20_000_000
    with FakeWeb() as web:
        url = web.add_huge("/big", size, declare_length=declare_length)
        with httpx.stream("GET", url) as resp:
            assert ("content-length" in resp.headers) is declare_length
            received = 0
            for chunk in resp.iter_bytes():
                received += len(chunk)
                if received > 200_000:
                    break
        full = httpx.get(web.add_huge("/small", 300_000, declare_length=declare_length))
        assert len(full.content) == 300_000 and full.text.startswith("<!DOCTYPE html>")
        assert web.wait_idle()  # the client hung up: the fake stopped sending
        assert web.requests[0].bytes_sent < size  # the client stopped it early


def test_web_hang_and_prompt_stop() -> None:
    web = FakeWeb().start()
    url = web.add_hang("/slow")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(url, timeout=0.3)
    started = time.monotonic()
    web.stop()
    assert time.monotonic() - started < 10  # cut by the timeout, not left hanging


def test_log_records_json_body_and_headers(fake_tavily: FakeTavily) -> None:
    httpx.post(
        f"{fake_tavily.url}/search",
        content=json.dumps({"query": "q"}),
        headers={"Authorization": "Bearer tvly-test", "X-Test": "1"},
    )
    (req,) = fake_tavily.requests
    assert req.json == {"query": "q"} and req.header("x-test") == "1" and req.status == 200
    assert fake_tavily.count("/search", "POST") == 1
