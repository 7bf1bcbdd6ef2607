"""Where each record's publication date comes from: the page's metadata, the search service,
the document; never the model's reading of a text, never the day it was read."""

from __future__ import annotations

from typing import Any

import pytest

from vicaran_agent.clients.page_reader import PageResult
from vicaran_agent.config import Settings

STORY = "https://news.example/budget"


class _Digest:
    """A model whose digest reads a date in the text: a document's date (the document states
    it), never a web page's (whose date is its metadata's)."""

    async def generate(self, **_: Any) -> Any:
        from vicaran_agent.model_outputs import SourceDigest

        return SourceDigest(
            title="T", summary="S", key_claims=[], published_date="1999-12-31", relevance=1.0
        )


class _Pages:
    def __init__(self, page: PageResult) -> None:
        self.page = page

    async def read(self, url: str) -> PageResult:
        return self.page


@pytest.mark.parametrize(
    ("page", "hint", "expected"),
    [
        # the page's metadata wins; the search service's date stands in; the model's never counts
        (
            PageResult(STORY, True, "T", "x" * 300, "2019-03-05", "metadata"),
            "Fri, 08 Mar 2019 10:00:00 GMT",
            ("2019-03-05", "metadata"),
        ),
        (
            PageResult(STORY, True, "T", "x" * 300),
            "Fri, 08 Mar 2019 10:00:00 GMT",
            ("2019-03-08", "search"),
        ),
        (PageResult(STORY, True, "T", "x" * 300), None, (None, None)),
        (
            PageResult(STORY, False, error="HTTP 404"),
            "Fri, 08 Mar 2019 10:00:00 GMT",
            ("2019-03-08", "search"),
        ),
        (PageResult(STORY, False, error="HTTP 404"), None, (None, None)),
    ],
)
async def test_a_source_is_dated_by_its_page_or_the_search_never_by_the_model(
    page: PageResult, hint: str | None, expected: tuple[str | None, str | None]
) -> None:
    from vicaran_agent.runtime import TextStore
    from vicaran_agent.tools.analyze_source import SourceAnalyzer

    settings = Settings(_env_file=None)
    analyzer = SourceAnalyzer(
        _Digest(),
        "instruction",
        settings,
        pages=_Pages(page),
        texts=TextStore(settings),  # type: ignore[arg-type]
    )
    source = (await analyzer.analyze(STORY, published_hint=hint)).source
    assert (source.published_at, source.published_at_source) == expected
    assert source.retrieved_at  # when it was read: kept apart, never the date


async def test_a_document_is_dated_by_what_it_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """A document has no server and no search: its date is the one it states, source
    `document` (the digest reads it from the passages)."""
    from vicaran_agent.documents import sources as document_sources
    from vicaran_agent.documents.model import DocumentInfo, PassageHit
    from vicaran_agent.runtime import TextStore

    info = DocumentInfo("d1", "c", "contract.pdf", "Contract", "pdf", 1, "en", "0" * 64)
    hit = PassageHit(1, "d1", "c", "contract.pdf", "Contract", 1, 0, 300, "y" * 300, 1.0)

    class Store:
        def best_passages(self, *args: object) -> list[PassageHit]:
            return [hit]

    monkeypatch.setattr(document_sources, "document_store", Store)
    settings = Settings(_env_file=None)
    reader = document_sources.DocumentReader(
        _Digest(),
        "instruction",
        TextStore(settings),
        "brief",
        "en",  # type: ignore[arg-type]
    )
    listed = document_sources.ListedDocument(info, "c")
    source = (await reader.read(listed)).source
    assert (source.published_at, source.published_at_source) == ("1999-12-31", "document")
