"""Tavily's recorded answers (tests/fixtures/contracts/tavily) read by Vicaran's WebSearch.

Each answer is served on loopback as recorded and read through the real SDK and `WebSearch`:
a general search has no dates, a news search has Tavily's dates (source `search`), and each
error becomes the one-line failure a journalist can act on.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import pytest

from tests.fakes.tavily import FakeTavily
from tests.support import contracts
from vicaran_agent.clients import web_search
from vicaran_agent.clients.web_search import WebSearch
from vicaran_agent.config import Settings
from vicaran_agent.i18n import Phrase

RECORDED = {r.name: r for r in contracts.every("tavily")}


def _search(url: str, **overrides: Any) -> WebSearch:
    values: dict[str, Any] = {
        "tavily_api_key": "tvly-test",
        "tavily_base_url": url,
        "vicaran_max_retries": 1,
        "vicaran_search_timeout_seconds": 5.0,
        "vicaran_search_include_domains": "",
        "vicaran_search_exclude_domains": "",
    }
    return WebSearch(Settings(_env_file=None, **{**values, **overrides}))


def test_every_recording_cites_its_source_and_is_tested() -> None:
    assert set(RECORDED) == {
        "search-general",
        "search-news",
        "error-401",
        "error-429",
        "error-432",
    }
    for recorded in RECORDED.values():
        assert recorded.sources and recorded.header("content-type") == "application/json"


async def test_a_general_search_has_no_dates() -> None:
    with contracts.serve(RECORDED["search-general"]) as server:
        outcome = await _search(server.url).search_many(["Riverton lead"])
    assert outcome.failures == []
    assert [h.url for h in outcome.hits] == [
        "https://www.epa.gov/enforcement/acme-chemicals-riverton",
        "https://en.wikipedia.org/wiki/Riverton_water_crisis",
    ]
    assert [(h.published_at, h.published_at_source) for h in outcome.hits] == [(None, None)] * 2


async def test_a_news_search_gives_tavilys_dates() -> None:
    with contracts.serve(RECORDED["search-news"]) as server:
        outcome = await _search(server.url).search_many(["Riverton lead"], topic="news")
        (request,) = server.requests
    assert request.json["topic"] == "news" and request.json["days"] == web_search.NEWS_DAYS
    assert outcome.failures == []
    dated = {h.url: (h.published_at, h.published_at_source) for h in outcome.hits}
    assert dated == {
        "https://www.reuters.com/world/us/acme-riverton-lead-2025/": ("2025-11-28", "search"),
        "https://apnews.com/article/riverton-acme-epa-enforcement": ("2025-12-01", "search"),
    }


async def test_a_rejected_key_is_one_failure_not_retried() -> None:
    with contracts.serve(RECORDED["error-401"]) as server:
        outcome = await _search(server.url).search_many(["a"])
        sent = len(server.requests)
    assert outcome.failures == [Phrase("tavily_key_rejected")]
    assert sent == 1  # not retried: the key will not get better


async def test_a_rate_limit_is_retried_after_the_time_tavily_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float | None] = []

    def backoff(attempt: int, retry_after: float | None, **_: Any) -> float:
        waits.append(retry_after)
        return 0.0

    monkeypatch.setattr(web_search, "backoff_delay", backoff)
    with contracts.serve(RECORDED["error-429"]) as server:
        outcome = await _search(server.url).search_many(["q"])
        sent = len(server.requests)
    assert waits == [7.0]  # the recorded retry-after header, read past the SDK
    assert sent == 2
    assert outcome.failures == [
        "Tavily rate limit hit (429) (still failing after 1 retry): wait a minute, "
        "or lower VICARAN_CONCURRENCY"
    ]


async def test_a_spent_plan_names_the_credit_limit() -> None:
    with contracts.serve(RECORDED["error-432"]) as server:
        outcome = await _search(server.url).search_many(["q"])
        sent = len(server.requests)
    assert outcome.failures == [Phrase("tavily_credits")]
    assert sent == 1


# --- the fake answers in the recorded shapes -------------------------------------------------


def test_the_fake_answers_in_the_recorded_shapes() -> None:
    """Where the fake and the real API differ, the fake changes: compare them here."""
    results = RECORDED["search-news"].json()["results"]  # dated: only a news search shows it
    usage = {r.name: r for r in contracts.every("tavily-usage")}
    with FakeTavily(results, key_limit=3, today=date(2025, 12, 2)) as fake:
        key = {"Authorization": "Bearer tvly-test"}
        wrong = {"Authorization": "Bearer tvly-wrong"}
        url = f"{fake.url}/search"
        answers = {
            "search-general": httpx.post(url, json={"query": "q", "max_results": 2}, headers=key),
            "search-news": httpx.post(
                url, json={"query": "q", "topic": "news", "days": 3650}, headers=key
            ),
            "error-401": httpx.post(url, json={"query": "q"}, headers=wrong),
        }
        fake.fail(429, times=1, retry_after=7)
        answers["error-429"] = httpx.post(url, json={"query": "q"}, headers=key)
        httpx.post(url, json={"query": "q"}, headers=key)  # the key's third credit: spent
        answers["error-432"] = httpx.post(url, json={"query": "q"}, headers=key)
        usage_answers = {
            "spent": httpx.get(f"{fake.url}/usage", headers=key),
            "refused": httpx.get(f"{fake.url}/usage", headers=wrong),
        }

    for name, answer in answers.items():
        recorded = RECORDED[name]
        assert answer.status_code == recorded.status, name
        assert answer.headers["content-type"] == recorded.header("content-type"), name
        assert contracts.shape(answer.json()) == contracts.shape(recorded.json()), name
    assert answers["error-429"].headers["retry-after"] == RECORDED["error-429"].header(
        "retry-after"
    )
    for name, answer in usage_answers.items():
        assert answer.status_code == usage[name].status, name
        assert contracts.shape(answer.json()) == contracts.shape(usage[name].json()), name
