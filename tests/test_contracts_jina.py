"""Jina Reader's recorded answers (tests/fixtures/contracts/jina) read by Vicaran's PageReader.

Each answer is served on loopback as recorded and read by the reader's Jina step (the direct
fetch that would follow a failure is not part of Reader's contract): the text and JSON formats,
what counts as a date in each, and each error as the reason a journalist reads.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.fakes.jina import FakeJinaReader, Page
from tests.support import contracts
from tests.test_page_reader import make_reader
from vicaran_agent.clients import page_reader, page_text
from vicaran_agent.clients.page_reader import PageReader

RECORDED = {r.name: r for r in contracts.every("jina")}
STORY = "https://news.example/budget"
OPENING = "The city council approved the new budget on Tuesday"


async def _read(name: str, url: str = STORY, **settings: Any) -> Any:
    """What the reader's Jina step makes of the recorded answer: a page, or the failure."""
    with contracts.serve(RECORDED[name]) as server:
        reader: PageReader = make_reader(None, jina_reader_base_url=server.url, **settings)
        reader.backoff_max = 60.0
        try:
            page, _exchange = await reader._jina_once(url)
            return page
        except page_text.Failed as failure:
            return failure
        finally:
            await reader.aclose()
            assert [r.raw_path for r in server.requests] == ["/https%3A%2F%2Fnews.example%2Fbudget"]


def test_every_recording_cites_its_source_and_is_tested() -> None:
    assert set(RECORDED) == {
        "text",
        "text-published-time",
        "text-target-error",
        "json",
        "json-last-modified",
        "no-content-422",
        "blocked-451",
        "rate-limited-429",
    }
    assert all(recorded.sources for recorded in RECORDED.values())


async def test_the_text_format() -> None:
    page = await _read("text")
    assert page.title == "Council approves budget" and page.text.startswith("# Council")
    assert OPENING in page.text and page.published_at is None


async def test_a_published_time_line_alone_is_no_date() -> None:
    """It may be the server's Last-Modified, and here it is: the text cannot tell."""
    assert "Published Time: Fri, 27 Nov 2026" in RECORDED["text-published-time"].body.decode()
    page = await _read("text-published-time")
    assert OPENING in page.text and page.published_at is None  # a cached snapshot still reads


async def test_a_target_error_warning_is_a_failure() -> None:
    failure = await _read("text-target-error", "https://news.example/budget")
    assert failure.reason == "the site answered 404 Not Found" and not failure.retry


async def test_the_json_envelope_dates_a_page_by_its_meta_tags() -> None:
    page = await _read("json")
    assert page.title == "Council approves budget" and OPENING in page.text
    assert page.published_at == "2019-03-05"  # article:published_time, not the modified time


async def test_a_json_published_time_without_date_metadata_is_no_date() -> None:
    recorded = RECORDED["json-last-modified"].json()["data"]
    assert recorded["publishedTime"] == "Fri, 27 Nov 2026 04:00:00 GMT"
    page = await _read("json-last-modified")
    assert OPENING in page.text and page.published_at is None


@pytest.mark.parametrize(
    ("name", "reason", "retry"),
    [
        ("no-content-422", "no content available (422)", False),
        ("blocked-451", "refused the URL (451: blocked site or private address)", False),
        (
            "rate-limited-429",
            "rate limited (429): set JINA_API_KEY in .env for higher limits",
            True,
        ),
    ],
)
async def test_errors_become_reasons(name: str, reason: str, retry: bool) -> None:
    failure = await _read(name)
    assert (failure.reason, failure.retry) == (reason, retry)
    if name == "rate-limited-429":
        assert failure.retry_after == 7.0  # the recorded Retry-After


# --- the fake answers in the recorded shapes -------------------------------------------------


def test_the_fake_answers_in_the_recorded_shapes() -> None:
    """Where the fake and the real Reader differ, the fake changes: compare them here."""
    content = RECORDED["json"].json()["data"]["content"]
    pages = {
        STORY: Page(
            "Council approves budget",
            content,
            published_time="2019-03-05T08:00:00-03:00",
            description="The council voted 11 to 4.",
            metadata={"lang": "en", "og:title": "Council approves budget"},
        ),
        "https://news.example/plain": Page("Council approves budget", content, last_modified=None),
        "https://news.example/cached": Page(
            "Council approves budget",
            content,
            last_modified="Fri, 27 Nov 2026 04:00:00 GMT",
            warning="This is a cached snapshot of the original page, consider retry with caching "
            "opt-out.",
        ),
        "https://news.example/gone": Page(
            "Page not found",
            content,
            warning="Target URL returned error 404: Not Found",
            last_modified=None,  # the error page's server sent none
        ),
    }
    with FakeJinaReader(pages) as fake:

        def get(target: str, accept: str | None = page_reader.JINA_ACCEPT) -> httpx.Response:
            headers = {"Accept": accept} if accept else {}
            return httpx.get(f"{fake.url}/{quote(target, safe='')}", headers=headers)

        answers = {
            "json": get(STORY),
            "text": get("https://news.example/plain", None),
            "text-published-time": get("https://news.example/cached", None),
            "text-target-error": get("https://news.example/gone", None),
            "no-content-422": get("https://news.example/unknown"),
            "blocked-451": get("http://10.0.0.7/"),
        }
        fake.fail(STORY, 429, times=1, retry_after=7)
        answers["rate-limited-429"] = get(STORY)

    for name, answer in answers.items():
        recorded = RECORDED[name]
        assert answer.status_code == recorded.status, name
        assert answer.headers["content-type"] == recorded.header("content-type"), name
        if name.startswith("text"):
            assert contracts.fields(answer.text) == contracts.fields(recorded.body.decode()), name
            assert int(answer.headers["x-usage-tokens"]) > 0
        else:
            maps = ("metadata", "external")  # a page's own tags and links
            assert contracts.shape(answer.json(), maps) == contracts.shape(recorded.json(), maps)
    assert answers["rate-limited-429"].headers["retry-after"] == "7"
