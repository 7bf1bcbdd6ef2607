"""Jina Reader's recorded answers (tests/fixtures/contracts/jina) read by Vicaran's PageReader.

Each answer is served on loopback as recorded and read by the reader's Jina step (the direct
fetch that would follow a failure is not part of Reader's contract): the text and JSON formats,
what counts as a date in each, and each error as the reason a journalist reads.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import contracts
from tests.test_page_reader import make_reader
from vicaran_agent.tools import page_reader
from vicaran_agent.tools.page_reader import PageReader

RECORDED = {r.name: r for r in contracts.every("jina")}
STORY = "https://news.example/budget"
OPENING = "The city council approved the new budget on Tuesday"


async def _read(name: str, url: str = STORY, **settings: Any) -> Any:
    """What the reader's Jina step makes of the recorded answer: a page, or the failure."""
    with contracts.serve(RECORDED[name]) as server:
        reader: PageReader = make_reader(None, jina_reader_base_url=server.url, **settings)
        reader.backoff_max = 60.0
        try:
            return await reader._jina_once(url)
        except page_reader._Failed as failure:
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
