"""Hostile page text: every parser stays linear, off the event loop, apart from the DB's threads.

Costs are compared as RATIOS of CPU time to a benign input of the same size measured in the same
test (`tests.support.linear`), never as wall time and with no absolute floor: a pathological input
may cost at most SLACK times what a realistic page of the same size costs. A backtracking regex or
a quadratic scan fails that by orders of magnitude (the regexes these parsers replaced took
7-12 s on 100 kB that parse in milliseconds).

SIZE is the page cap these tests apply (the reader cuts every body to `vicaran_max_page_bytes`
before parsing; production's default is larger, and linear parsers keep the same ratio at any
size, while quadratic ones only get worse).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trafilatura

from tests.fakes.jina import FakeJinaReader, Page
from tests.fakes.web import FakeWeb
from tests.support import hostile, wait
from tests.support.linear import assert_linear
from vicaran_agent.clients import page_reader as page_reader_module
from vicaran_agent.clients import page_text
from vicaran_agent.clients.content import (
    MAX_EXTRACT_ELEMENTS,
    blocked_reason,
    clip_text,
    extract_readable,
)
from vicaran_agent.clients.page_reader import PageReader
from vicaran_agent.config import Settings
from vicaran_agent.urls import extract_urls
from vicaran_agent.workers.parsing import parse_pool, run_parser

SIZE = 200_000


def fit(unit: str, size: int = SIZE) -> str:
    """`unit` repeated to exactly `size` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def test_the_guard_fails_a_quadratic_scan_and_passes_a_linear_one() -> None:
    def scan(text: str, *, quadratic: bool) -> int:
        """Each `[` looks for its `]`: from itself (quadratic on `[[[`), or from the last look."""
        reached, end = 0, len(text)
        for index, char in enumerate(text):
            if char == "[":
                reached = index if quadratic else max(index, reached)
                while reached < end and text[reached] != "]":
                    reached += 1
        return reached

    benign, hostile = fit(MARKDOWN_PAGE, 2_000), "[" * 2_000
    assert_linear(lambda text: scan(text, quadratic=False), benign, hostile)
    with pytest.raises(AssertionError, match="more than 20"):
        assert_linear(lambda text: scan(text, quadratic=True), benign, hostile)


# --- Markdown from Jina Reader ---------------------------------------------------------------

MARKDOWN_PAGE = (
    "## City council\n\nThe council approved the [new budget](https://news.example/budget) on "
    "Tuesday after a long debate, with eleven votes in favour and four against. "
    "![Photo: the chamber](https://cdn.news.example/p/chamber.jpg)\n\n"
    "* [Home](/)\n* [Politics](/politics)\n* [World (Europe)](https://news.example/world_(eu))\n\n"
)

HOSTILE_MARKDOWN = {
    "[": "[",
    "![": "![",
    "]": "]",
    "(": "(",
    "](": "](",
    "[](": "[](",
    "[a](": "[a](",
    "![a](": "![a](",
    "![](": "![](",
    "[a](b": "[a](b",
    "[a](()": "[a](()",
    "[a](x y": "[a](x y ",
    "[[]]": "[[]]",
    "[a]\\n": "[a]\n",
    "!": "!",
}


@pytest.mark.parametrize("unit", HOSTILE_MARKDOWN.values(), ids=HOSTILE_MARKDOWN.keys())
def test_markdown_stripping_is_linear(unit: str) -> None:
    assert_linear(page_text._plain_markdown, fit(MARKDOWN_PAGE), fit(unit))


@pytest.mark.parametrize(
    "hostile",
    [
        "[a](" + "(" * SIZE,
        "[" * (SIZE // 2) + "]" * (SIZE // 2),
        "[" * (SIZE // 2) + "](" * (SIZE // 4),
        "[a](" + "x" * SIZE,
        "![" * (SIZE // 4) + "](" * (SIZE // 4),
    ],
    ids=["open-parens", "nested-brackets", "labels-then-closers", "endless-url", "images"],
)
def test_markdown_stripping_is_linear_on_shaped_input(hostile: str) -> None:
    assert_linear(page_text._plain_markdown, fit(MARKDOWN_PAGE), hostile[:SIZE])


def test_markdown_stripping_keeps_its_meaning() -> None:
    strip = page_text._plain_markdown
    assert strip("Read the [full budget](https://x.example/b.pdf) here.") == (
        "Read the full budget here."
    )
    assert strip("A ![photo](https://cdn.example/p.jpg) B") == "A  B"
    assert strip("[![logo](https://cdn.example/l.png)](https://x.example/)") == ""
    assert strip('[title](https://x.example/a "A title") and [w](https://w.example/F_(b))') == (
        "title and w"
    )
    assert strip("![a](data:image/png;base64," + "A" * 50_000 + ")") == ""
    assert strip("[not a link] (x) and [open](https://x.example/a\nb)") == (
        "[not a link] (x) and [open](https://x.example/a\nb)"
    )
    assert strip("[a[b](u) [c](v)") == "[ab c"  # the closest `[` opens a label


# --- the rest of Reader's answers ------------------------------------------------------------

JINA_TEXT = "Title: Budget\n\nURL Source: https://news.example/a\n\nMarkdown Content:\n{}"


def jina_text(content: str) -> bytes:
    return JINA_TEXT.format(content).encode()


def parse_jina(answer: tuple[bytes, str]) -> object:
    body, content_type = answer
    try:
        return page_text.page_from_jina(body, "utf-8", content_type)
    except page_text.Failed as failure:  # unreadable is a fine answer
        return failure


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (("Warning: " + fit("x", 50) + "\n\n") * (SIZE // 62) + "Markdown Content:\nx", "text"),
        ("Warning: " + fit("Target URL returned error ", SIZE) + "\n\nMarkdown Content:\n", "t"),
        ("Title: " + fit("[a](", SIZE) + "\n\nMarkdown Content:\nx", "text"),
        (fit("Title: x\n"), "text/plain"),
        ("[" * SIZE, "application/json"),
        ('{"data": {"content": "' + fit("[a](", SIZE) + '"}}', "application/json"),
        ('{"data": {"warning": "' + fit("captcha ", SIZE) + '"}}', "application/json"),
    ],
    ids=["warnings", "target-error", "title", "headers", "deep-json", "json-links", "json-warn"],
)
def test_jina_answers_are_parsed_in_linear_time(body: str, content_type: str) -> None:
    benign = (jina_text(fit(MARKDOWN_PAGE, SIZE - 80)), "text/plain")
    assert_linear(parse_jina, benign, (body.encode(), content_type))


def test_absurdly_nested_json_is_an_unreadable_answer_not_a_crash() -> None:
    with pytest.raises(page_text.Failed, match="unreadable JSON answer"):
        page_text._parse_jina_json("[" * 1_000_000)
    page, warnings = page_text._parse_jina_json(
        json.dumps({"data": {"title": "T", "content": "x", "publishedTime": {"y": 2026}}})
    )
    assert page.title == "T" and page.published_at is None and warnings == []


# --- HTML from direct fetches ----------------------------------------------------------------

HTML_ITEM = (
    '<div class="item"><h3><a href="/n/1">Council approves the budget</a></h3>'
    "<p>The municipal council approved the new budget on Tuesday after a long debate about "
    '<a href="/t/transport">public transport</a>, schools and parks.</p>'
    '<ul><li><a href="/tag/a">Politics</a></li><li><a href="/tag/b">City</a></li></ul></div>\n'
)
HTML_PAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>City News</title></head>'
    "<body><main>" + fit(HTML_ITEM, SIZE - 120) + "</main></body></html>"
)


def parse_html(document: str) -> object:
    # no charset from HTTP: the page's own <meta charset> is sniffed too
    return page_text._extract(document.encode(), None, "text/html", "https://x.example/")


HOSTILE_HTML = {
    "comment": "<!--",
    "comment-dashes": "<!-- -",
    "script": "<script",
    "script-open": "<script>",
    "style": "<style>",
    "title": "<title>",
    "head-title": "<head><title>",
    "deep-div": "<div>",
    "deep-b": "<b>x",
    "li": "<li>x",
    "p": "<p>x",
    "a": "<a>",
    "td": "<td>x",
    "br": "<br>",
    "lt": "<",
    "meta": "<meta ",
    "meta-charset": "<meta charset=",
    "entity": "&amp;",
    "tag-attrs": '<p a="',
}


@pytest.mark.parametrize("unit", HOSTILE_HTML.values(), ids=HOSTILE_HTML.keys())
def test_html_extraction_is_linear(unit: str) -> None:
    assert_linear(parse_html, HTML_PAGE, fit(unit))


@pytest.mark.parametrize("unit", ["<p>x", "<div><p>x</p></div>", "<li>x"])
def test_html_extraction_is_bounded_just_under_the_element_cap(unit: str) -> None:
    """Pages trafilatura still reads: the most elements it is given, of the costliest kinds."""
    per = unit.count("<") - unit.count("</")
    dense = unit * ((MAX_EXTRACT_ELEMENTS - 100) // per)
    hostile = (dense + "<p>" + fit("words and more words ", SIZE)).encode()[:SIZE].decode()
    assert_linear(parse_html, HTML_PAGE, hostile)


@pytest.mark.parametrize("unit", ["<!--", "<script", "<title>", "<style>x"])
def test_the_tag_stripping_fallback_is_linear(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With trafilatura finding nothing, the whole page's text is taken: the path the
    backtracking `_COMMENT`/`_HIDDEN`/`_TITLE` regexes used to take."""
    monkeypatch.setattr(trafilatura, "extract", lambda *args, **kwargs: None)
    monkeypatch.setattr(trafilatura, "extract_metadata", lambda *args, **kwargs: None)
    assert_linear(lambda html: extract_readable(html), HTML_PAGE, fit(unit))


def test_a_charset_with_a_quadratic_decoder_is_not_used() -> None:
    # Python's punycode decoder inserts character by character: seconds on 100 kB.
    hostile = "<meta charset=punycode>-" + fit("99", SIZE - 25)
    assert_linear(parse_html, HTML_PAGE, hostile)
    page = page_text._extract(b"<p>caf\xc3\xa9</p>", "punycode", "text/html", "")
    assert "café" in page.text


def test_charset_sniffing() -> None:
    sniff = page_text._meta_charset
    assert sniff(b'<html><head><meta charset="ISO-8859-1"><title>') == "iso-8859-1"
    assert sniff(b"<META http-equiv=Content-Type content='text/html; charset=windows-1252'>") == (
        "windows-1252"
    )
    assert sniff(b"<p>charset=utf-8</p><meta name=x>") is None
    assert sniff(b"<meta" * 1000) is None


# --- other text Vicaran scans -----------------------------------------------------------------


@pytest.mark.parametrize("closer", [")", "]", ".", ")."])
def test_url_extraction_is_linear(closer: str) -> None:
    benign = fit("See https://example.com/story/1 and (https://example.com/a_(b)) for more. ")
    hostile = ("https://example.com/a" + closer * SIZE)[:SIZE]
    assert_linear(lambda text: extract_urls(text, limit=100), benign, hostile)


@pytest.mark.parametrize("unit", ["\n", " ", "\r\n", " \n", "\t\n\n"])
def test_clipping_and_block_checks_are_linear(unit: str) -> None:
    def check(text: str) -> object:
        return blocked_reason(text), clip_text(text)

    assert_linear(check, fit(MARKDOWN_PAGE), fit(unit))


# --- off the event loop, in the parse pool, never in asyncio's default executor ---------------


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb() as site:
        yield site


def reader_for(jina_url: str, **overrides: Any) -> PageReader:
    values: dict[str, Any] = {
        "jina_reader_base_url": jina_url,
        "jina_api_key": "",
        "vicaran_fetch_allow_private": True,
        "vicaran_page_timeout_seconds": 30.0,
        "vicaran_max_retries": 0,
        **overrides,
    }
    return PageReader(Settings(_env_file=None, **values), backoff_base=0.01, backoff_max=0.05)


async def test_jina_answers_are_parsed_in_a_worker_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page is parsed in the parse pool's worker processes: a parser broken in this (the
    server's) process is never called, and the pool counts the page."""

    def broken(markdown: str) -> str:
        raise AssertionError("a page was parsed in the server's own process")

    monkeypatch.setattr(page_text, "_plain_markdown", broken)
    pool = parse_pool()
    before = pool.stats.tasks
    story = "https://news.example/budget"
    with FakeJinaReader({story: Page("Budget", fit(MARKDOWN_PAGE, 20_000))}) as jina:
        reader = reader_for(jina.url)
        try:
            result = await reader.read(story)
        finally:
            await reader.aclose()
    assert result.ok and result.via == "jina", result.error
    assert pool.stats.tasks > before


async def test_a_page_whose_parser_dies_costs_that_page_only(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parser that aborts (as PDFium does out of memory) takes its worker down, not this
    process: the page says why, the worker is replaced and the next page is read."""
    story = "https://news.example/budget"
    monkeypatch.setattr(page_reader_module, "page_from_jina", hostile.abort)
    with FakeJinaReader({story: Page("Budget", fit(MARKDOWN_PAGE, 20_000))}) as jina:
        reader = reader_for(jina.url, vicaran_fetch_allow_private=False)
        try:
            result = await reader.read(story)
            assert not result.ok
            assert "Jina Reader: the page's parser stopped" in (result.error or ""), result.error
            monkeypatch.undo()
            again = await reader.read(story)
        finally:
            await reader.aclose()
    assert again.ok and again.via == "jina", again.error
    assert parse_pool().stats.failures.get("crashed", 0) >= 1


async def test_database_saves_never_queue_behind_page_parsing(tmp_path: Path) -> None:
    """More parses than asyncio's default executor has threads, every one held in (or queued
    for) a worker: a database-style `asyncio.to_thread` call still runs, because the waiting
    is the pool's own (event order, not timing: the waits below only guard against a hang)."""
    pool = parse_pool()
    default_threads = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor
    parses = [
        asyncio.create_task(run_parser(hostile.hold, str(tmp_path), str(n), seconds=60))
        for n in range(default_threads + 2)
    ]
    events: list[str] = []
    try:
        await wait.until(
            lambda: len(hostile.holding(tmp_path)) >= pool.size, "every worker holds a parse"
        )

        def save() -> None:  # what the persistence callbacks run through asyncio.to_thread
            events.append("database saved")

        await asyncio.wait_for(asyncio.to_thread(save), timeout=20)
        events.append(f"{len(hostile.holding(tmp_path))} parses held")
    finally:
        (tmp_path / "release").touch()
        pids = await asyncio.gather(*parses)
    assert events == ["database saved", f"{pool.size} parses held"]
    # every parse ran, at most one per worker at a time, none in this process
    assert len(pids) == default_threads + 2 and os.getpid() not in pids
    assert len(set(pids)) <= pool.size


async def test_waiting_for_a_parser_does_not_count_against_the_read(tmp_path: Path) -> None:
    """Every worker busy for longer than a whole read may take: the page waits in the pool's
    queue and is read all the same (the read's clocks stop while it is in the pool, where its
    parse has a limit of its own). The sleep is the time passing, not a synchronisation."""
    pool = parse_pool()
    held = [
        asyncio.create_task(run_parser(hostile.hold, str(tmp_path), str(n), seconds=60))
        for n in range(pool.size)
    ]
    await wait.until(lambda: len(hostile.holding(tmp_path)) >= pool.size, "every worker holds one")
    story = "https://news.example/budget"
    with FakeJinaReader({story: Page("Budget", fit(MARKDOWN_PAGE, 20_000))}) as jina:
        reader = reader_for(jina.url, vicaran_page_timeout_seconds=1.0)  # a whole read: 3 s
        try:
            read = asyncio.create_task(reader.read(story))
            await asyncio.sleep(reader.overall_timeout + 1)
            assert not read.done()  # still waiting for a parser, not timed out
            (tmp_path / "release").touch()
            result = await read
        finally:
            (tmp_path / "release").touch()
            await asyncio.gather(*held)
            await reader.aclose()
    assert result.ok and result.via == "jina", result.error
