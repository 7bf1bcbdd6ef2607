"""WebSearch against the loopback Tavily fake: the real SDK, real HTTP, no network."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.fakes.tavily import FakeTavily
from tests.support.clock import FakeClock
from vicaran_agent.clients.web_search import (
    KEY_MISSING,
    MAX_QUERY_CHARS,
    NEWS_DAYS,
    SearchHit,
    WebSearch,
    cap_query,
    clean_queries,
)
from vicaran_agent.config import Settings

CORPUS = [
    {
        "url": "https://www.news.example.org/story/?utm_source=x",
        "title": "Story",
        "content": "  The   mayor resigned. ",
        "score": 0.6,
        "published_date": "Fri, 28 Nov 2025 06:34:57 GMT",
    },
    {"url": "https://blog.other.net/b", "title": "B", "content": "beta", "score": 0.8},
    {"url": "https://spam.example.com/c", "title": "C", "content": "gamma", "score": 0.7},
]


@pytest.fixture
def fake():
    with FakeTavily(CORPUS) as server:
        yield server


def settings_for(fake: FakeTavily | None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "tavily_api_key": "tvly-test",
        "tavily_base_url": fake.url if fake else "http://127.0.0.1:9",
        "vicaran_max_retries": 2,
        "vicaran_search_timeout_seconds": 30.0,  # (a loaded machine must not time out)
        "vicaran_concurrency": 4,
        "vicaran_search_include_domains": "",
        "vicaran_search_exclude_domains": "",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


def search(settings: Settings) -> WebSearch:
    return WebSearch(settings, backoff_base=0.01, backoff_max=0.05)


def sent_queries(fake: FakeTavily) -> list[str]:
    return [r.json["query"] for r in fake.requests]


async def test_hits_are_deduplicated_by_normalized_url_and_sorted(fake: FakeTavily) -> None:
    fake.overrides = {
        "second": [
            {"url": "https://news.example.org/story", "title": "Story again", "score": 0.9},
            {"url": "https://blog.other.net/b/", "title": "B again", "score": 0.1},
        ]
    }
    outcome = await search(settings_for(fake)).search_many(["first query", "second query"])
    assert outcome.failures == []
    assert outcome.queries == ["first query", "second query"]
    # One hit per page (www., trailing slash and tracking parameters do not count), the best
    # score wins and keeps its own URL as given (fetchable as is).
    assert [(h.url, h.score, h.query) for h in outcome.hits] == [
        ("https://news.example.org/story", 0.9, "second query"),
        ("https://blog.other.net/b", 0.8, "first query"),
        ("https://spam.example.com/c", 0.7, "first query"),
    ]
    assert fake.count("/search") == 2


async def test_hit_fields(fake: FakeTavily) -> None:
    outcome = await search(settings_for(fake)).search_many(["mayor"], topic="news")
    story = next(h for h in outcome.hits if h.title == "Story")
    assert story == SearchHit(
        url="https://www.news.example.org/story/?utm_source=x",  # as given: fetchable
        title="Story",
        snippet="The mayor resigned.",
        published_at="2025-11-28",
        score=0.6,
        query="mayor",
    )
    assert story.published_at_source == "search"
    assert {h.title for h in outcome.hits} == {"Story"}  # news: dated items only


async def test_only_a_news_search_carries_publication_dates(fake: FakeTavily) -> None:
    """Tavily gives `published_date` for topic="news" only; a general search has no dates."""
    general = await search(settings_for(fake)).search_many(["mayor"])
    assert general.hits and all(h.published_at is None for h in general.hits)
    assert all(h.published_at_source is None for h in general.hits)
    news = await search(settings_for(fake)).search_many(["mayor"], topic="news")
    dated = {h.title: (h.published_at, h.published_at_source) for h in news.hits}
    assert dated["Story"] == ("2025-11-28", "search")  # from "Fri, 28 Nov 2025 06:34:57 GMT"


async def test_request_body_options(fake: FakeTavily) -> None:
    await search(settings_for(fake)).search_many(["q"], max_results=50, topic="news")
    (req,) = fake.requests
    # A news search reaches back years, not the API's default window of a few days.
    assert req.json == {"query": "q", "topic": "news", "max_results": 20, "days": NEWS_DAYS}
    assert req.header("authorization") == "Bearer tvly-test"
    await search(settings_for(fake)).search_many(["q"], max_results=3)
    assert fake.requests[-1].json == {"query": "q", "topic": "general", "max_results": 3}


async def test_domain_lists_are_enforced_over_a_leaky_api(fake: FakeTavily) -> None:
    settings = settings_for(fake, vicaran_search_exclude_domains="spam.example.com, Other.NET")
    outcome = await search(settings).search_many(["q"], exclude_domains=["nothing.example"])
    assert [h.url for h in outcome.hits] == [CORPUS[0]["url"]]
    assert fake.requests[0].json["exclude_domains"] == [
        "nothing.example",
        "spam.example.com",
        "other.net",
    ]
    # The fake leaked them: the filtering above was ours.
    assert len(fake.requests) == 1

    settings = settings_for(fake, vicaran_search_include_domains="example.org")
    outcome = await search(settings).search_many(["q2"], include_domains=["other.net"])
    assert {h.url for h in outcome.hits} == {CORPUS[0]["url"], CORPUS[1]["url"]}
    assert fake.requests[-1].json["include_domains"] == ["other.net", "example.org"]


async def test_queries_are_cleaned_capped_and_deduplicated(fake: FakeTavily) -> None:
    long_query = " ".join(["investigation"] * 60)  # 839 characters
    outcome = await search(settings_for(fake)).search_many(
        ["  Mayor   resigns ", "mayor RESIGNS", "", "   ", long_query]
    )
    sent = sent_queries(fake)
    assert sorted(sent, key=len) == sorted(outcome.queries, key=len)
    assert len(sent) == 2
    assert "Mayor resigns" in sent
    capped = next(q for q in sent if q.startswith("investigation"))
    assert len(capped) <= MAX_QUERY_CHARS
    assert long_query.startswith(capped) and capped.endswith("investigation")
    assert long_query[len(capped)] == " "  # cut on a word boundary


def test_cap_query_and_clean_queries() -> None:
    assert cap_query("short") == "short"
    word = "a" * 500
    assert cap_query(word) == "a" * MAX_QUERY_CHARS  # no boundary: hard cut
    assert cap_query("x" * 398 + " yyyyy") == "x" * 398
    assert clean_queries(["A  b", "a b", " a\tB ", "c", None]) == ["A b", "c"]  # type: ignore[list-item]


async def test_concurrency_overlaps_but_stays_bounded() -> None:
    clock = FakeClock()
    with FakeTavily(CORPUS, latency=0.25, clock=clock) as fake:
        settings = settings_for(fake, vicaran_concurrency=2)
        searching = asyncio.ensure_future(
            search(settings).search_many([f"query {i}" for i in range(6)])
        )
        for _ in range(3):  # 3 waves of two, not 6 one after the other
            await clock.sleeping(2)
            assert fake.holding == 2
            clock.advance(0.25)
        outcome = await searching
        assert outcome.failures == [] and len(outcome.hits) == 3
        assert fake.count("/search") == 6
        assert fake.peak_concurrency == 2


async def test_concurrency_shared_by_calls_on_one_instance() -> None:
    clock = FakeClock()
    with FakeTavily(CORPUS, latency=0.2, clock=clock) as fake:
        web = search(settings_for(fake, vicaran_concurrency=2))
        searching = asyncio.gather(
            web.search_many(["a1", "a2", "a3"]), web.search_many(["b1", "b2", "b3"])
        )
        for _ in range(3):  # two at a time across both calls
            await clock.sleeping(2)
            assert fake.holding == 2
            clock.advance(0.2)
        await searching
        assert fake.count("/search") == 6 and fake.peak_concurrency == 2


async def test_wrong_key_gives_one_clear_failure_and_one_request(fake: FakeTavily) -> None:
    settings = settings_for(fake, tavily_api_key="tvly-wrong", vicaran_concurrency=1)
    outcome = await search(settings).search_many(["one", "two", "three"])
    assert outcome.hits == []
    assert outcome.failures == [
        "Tavily rejected the API key (401): set a valid TAVILY_API_KEY in .env "
        "(keys at https://app.tavily.com)"
    ]
    assert fake.count() == 1  # not retried, and the other queries were not sent


async def test_401_with_concurrent_queries_is_one_message(fake: FakeTavily) -> None:
    settings = settings_for(fake, tavily_api_key="tvly-wrong")
    outcome = await search(settings).search_many(["one", "two", "three"])
    assert len(outcome.failures) == 1 and "401" in outcome.failures[0]
    assert fake.count() <= 3


async def test_missing_key_sends_nothing(fake: FakeTavily) -> None:
    outcome = await search(settings_for(fake, tavily_api_key="")).search_many(["q", "r"])
    assert outcome.failures == [KEY_MISSING]
    assert outcome.hits == [] and outcome.queries == ["q", "r"]
    assert fake.count() == 0


async def test_429_is_retried_then_succeeds(fake: FakeTavily) -> None:
    fake.fail(429, times=1, retry_after=0)
    outcome = await search(settings_for(fake)).search_many(["q"])
    assert outcome.failures == [] and len(outcome.hits) == 3
    assert fake.count() == 2


async def test_429_retry_after_is_honoured(fake: FakeTavily) -> None:
    fake.fail(429, times=1, retry_after=1)
    clock = FakeClock(autojump=True)
    web = WebSearch(settings_for(fake), backoff_base=0.01, backoff_max=5, clock=clock)
    outcome = await web.search_many(["q"])
    assert outcome.failures == [] and fake.count() == 2
    assert clock.slept == [1.0]  # the server's word, not the 0.01 s backoff


async def test_a_retry_after_past_the_backoff_cap_waits_the_cap(fake: FakeTavily) -> None:
    fake.fail(429, times=1, retry_after=600)
    clock = FakeClock(autojump=True)
    web = WebSearch(settings_for(fake), backoff_base=0.01, backoff_max=5, clock=clock)
    assert (await web.search_many(["q"])).failures == []
    assert clock.slept == [5.0]


async def test_429_that_never_clears_is_reported(fake: FakeTavily) -> None:
    fake.fail(429, retry_after=0)
    outcome = await search(settings_for(fake, vicaran_max_retries=1)).search_many(["q"])
    assert outcome.failures == [
        "Tavily rate limit hit (429) (still failing after 1 retry): wait a minute, "
        "or lower VICARAN_CONCURRENCY"
    ]
    assert fake.count() == 2


async def test_500_is_retried_then_recorded(fake: FakeTavily) -> None:
    fake.fail(500)
    outcome = await search(settings_for(fake)).search_many(["q"])
    assert outcome.hits == []
    assert outcome.failures == [
        "Tavily server error (HTTP 500) (still failing after 2 retries): try again later"
    ]
    assert fake.count() == 3  # 1 + max_retries


async def test_502_once_then_success(fake: FakeTavily) -> None:
    fake.fail(502, times=1)
    outcome = await search(settings_for(fake)).search_many(["q"])
    assert outcome.failures == [] and outcome.hits and fake.count() == 2


async def test_one_failing_query_does_not_sink_the_others(fake: FakeTavily) -> None:
    fake.fail(500, query="broken")
    outcome = await search(settings_for(fake, vicaran_max_retries=0)).search_many(
        ["broken one", "good one"]
    )
    assert len(outcome.hits) == 3 and {h.query for h in outcome.hits} == {"good one"}
    assert outcome.failures == ["Tavily server error (HTTP 500): try again later"]


async def test_hang_fails_within_the_timeout_budget(fake: FakeTavily) -> None:
    fake.fail("hang")
    settings = settings_for(fake, vicaran_search_timeout_seconds=0.3, vicaran_max_retries=1)
    outcome = await search(settings).search_many(["q"])
    assert outcome.hits == []
    assert outcome.failures == [
        "Tavily search timed out after 0.3 s (still failing after 1 retry): try again "
        "later or raise VICARAN_SEARCH_TIMEOUT_SECONDS"
    ]
    assert fake.count() == 2  # two tries, each cut by the timeout (then nothing waits)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (432, "Tavily credit limit of your plan reached (432)"),
        (433, "Tavily pay-as-you-go limit reached (433)"),
        (403, "Tavily refused the request (403 forbidden: Forbidden"),
    ],
)
async def test_plan_and_permission_errors_are_not_retried(
    fake: FakeTavily, status: int, expected: str
) -> None:
    fake.fail(status)
    outcome = await search(settings_for(fake)).search_many(["q"])
    assert len(outcome.failures) == 1 and outcome.failures[0].startswith(expected)
    assert "https://app.tavily.com" in outcome.failures[0]
    assert fake.count() == 1


async def test_bad_request_names_the_query(fake: FakeTavily) -> None:
    fake.fail(400, message="Query is too long.")
    outcome = await search(settings_for(fake)).search_many(["some query"])
    assert outcome.failures == [
        'Tavily rejected the search "some query" (400: Query is too long.): '
        "rephrase the query or check the search options"
    ]
    assert fake.count() == 1


async def test_unreachable_server_is_retried_and_reported() -> None:
    dead = FakeTavily().start()
    settings = settings_for(dead, vicaran_max_retries=1)
    dead.stop()
    outcome = await search(settings).search_many(["q"])
    assert len(outcome.failures) == 1
    assert outcome.failures[0].startswith(f"Could not reach Tavily at {settings.tavily_base_url}")
    assert "(still failing after 1 retry)" in outcome.failures[0]


async def test_repeated_query_is_served_from_cache(fake: FakeTavily) -> None:
    web = search(settings_for(fake))
    first = await web.search_many(["Mayor resigns"])
    again = await web.search_many(["  mayor   RESIGNS", "new query"])
    assert fake.count() == 2
    assert sent_queries(fake) == ["Mayor resigns", "new query"]
    assert {h.url for h in first.hits} <= {h.url for h in again.hits}
    await web.search_many(["mayor resigns"], topic="news")  # other options: not cached
    assert fake.count() == 3
    # Failures are not cached.
    fake.fail(500, times=3)
    failed = await web.search_many(["fresh"])
    assert failed.failures and fake.count() == 6
    assert (await web.search_many(["fresh"])).failures == [] and fake.count() == 7
    await web.aclose()


async def test_results_without_a_web_url_are_dropped(fake: FakeTavily) -> None:
    fake.results = [
        {"url": "ftp://files.example/x", "title": "F", "score": 0.9},
        {"url": "  ", "title": "E", "score": 0.8},
        {"url": "https://ok.example/a", "title": "OK"},
    ]
    outcome = await search(settings_for(fake)).search_many(["q"])
    assert [h.url for h in outcome.hits] == ["https://ok.example/a"]


async def test_no_queries_no_requests(fake: FakeTavily) -> None:
    outcome = await search(settings_for(fake)).search_many(["", "  "])
    assert (outcome.hits, outcome.failures, outcome.queries) == ([], [], [])
    assert fake.count() == 0
