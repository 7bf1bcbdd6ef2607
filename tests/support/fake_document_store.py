"""An in-memory document store with the real store's interface, for the intake tests.

It stands in for `vicaran_agent.documents.store.DocumentStore` wherever Vicaran looks the store
up (`vicaran_agent.documents.intake.get_document_store`). With a `path` it keeps its documents in
a JSON file, so an `adk api_server` subprocess and the test that drives it share one store (load
it there with VICARAN_MODEL_PLUGINS=...,tests.support.fake_document_store and FAKE_DOCUMENT_STORE=<path>).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vicaran_agent.documents import intake
from vicaran_agent.documents.model import (
    DocumentInfo,
    DocumentReliability,
    PageText,
    ParsedDocument,
    PassageHit,
    UnreadablePage,
)
from vicaran_agent.documents.passages import split_passages
from vicaran_agent.documents.store import AddOutcome, DocumentStore

ENV = "FAKE_DOCUMENT_STORE"


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w{4,}", text.lower()))


class FakeDocumentStore(DocumentStore):
    """Documents, their pages and naive word-overlap search, in memory (or in one JSON file)."""

    def __init__(self, path: Path | None = None) -> None:
        super().__init__("fake://")
        self.path = path
        self.infos: dict[str, DocumentInfo] = {}
        self.pages: dict[str, list[PageText]] = {}
        self.reliabilities: dict[str, DocumentReliability] = {}
        self.calls: list[tuple[str, Any]] = []

    # --- persistence (only with a path) -------------------------------------------------------

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        data = json.loads(self.path.read_text())
        self.reliabilities = data["collections"]
        self.infos, self.pages = {}, {}
        for item in data["documents"]:
            info = dict(item["info"])
            info["unreadable"] = tuple(UnreadablePage(**u) for u in info["unreadable"])
            self.infos[info["document_id"]] = DocumentInfo(**info)
            self.pages[info["document_id"]] = [PageText(**p) for p in item["pages"]]

    def _save(self) -> None:
        if self.path is None:
            return
        documents = [
            {
                "info": dataclasses.asdict(info),
                "pages": [dataclasses.asdict(p) for p in self.pages[doc_id]],
            }
            for doc_id, info in self.infos.items()
        ]
        self.path.write_text(
            json.dumps({"collections": self.reliabilities, "documents": documents})
        )

    # --- the interface ------------------------------------------------------------------------

    def add(
        self,
        parsed: ParsedDocument,
        collection: str,
        reliability: DocumentReliability | None = None,
    ) -> AddOutcome:
        self._load()
        self.calls.append(("add", parsed.file_name))
        if collection not in self.reliabilities or reliability:
            self.reliabilities[collection] = reliability or "neutral"
        same = [
            i
            for i in self.infos.values()
            if i.collection == collection and i.file_name == parsed.file_name
        ]
        if same and same[0].sha256 == parsed.sha256:
            return AddOutcome("unchanged", same[0])
        document_id = (
            same[0].document_id if same else f"d{len(self.infos) + 1:04d}{parsed.sha256[:8]}"
        )
        info = DocumentInfo(
            document_id=document_id,
            collection=collection,
            file_name=parsed.file_name,
            title=parsed.title,
            kind=parsed.kind,
            page_count=parsed.page_count,
            language=parsed.language,
            sha256=parsed.sha256,
            reliability=self.reliabilities[collection],
            unreadable=tuple(parsed.unreadable),
            passages=len(split_passages(parsed.pages)),
            path=parsed.path,
        )
        self.infos[document_id] = info
        self.pages[document_id] = list(parsed.pages)
        self._save()
        return AddOutcome("replaced" if same else "added", info)

    def documents(self, collection: str | None = None) -> list[DocumentInfo]:
        self._load()
        return [i for i in self.infos.values() if collection in (None, i.collection)]

    def collections(self) -> dict[str, DocumentReliability]:
        self._load()
        return dict(self.reliabilities)

    def get(self, document_id: str) -> DocumentInfo | None:
        self._load()
        return self.infos.get(document_id)

    def remove(self, collection: str, name_or_id: str | None = None) -> int:
        raise NotImplementedError

    def _hits(self, document_id: str) -> list[PassageHit]:
        info = self.infos[document_id]
        return [
            PassageHit(
                passage_id=hash((document_id, p.ordinal)) % 100_000,
                document_id=document_id,
                collection=info.collection,
                file_name=info.file_name,
                title=info.title,
                page=p.page,
                start=p.start,
                end=p.end,
                text=p.text,
                score=0.0,
            )
            for p in split_passages(self.pages[document_id])
        ]

    def search(
        self,
        query: str,
        collections: Sequence[str],
        *,
        document_ids: Sequence[str] | None = None,
        limit: int = 8,
    ) -> list[PassageHit]:
        self._load()
        self.calls.append(("search", query))
        wanted = _words(query)
        hits = [
            dataclasses.replace(hit, score=float(len(wanted & _words(hit.text))))
            for doc_id, info in self.infos.items()
            if info.collection in collections and (document_ids is None or doc_id in document_ids)
            for hit in self._hits(doc_id)
        ]
        ranked = sorted((h for h in hits if h.score > 0), key=lambda h: -h.score)
        return ranked[:limit]

    def best_passages(self, document_id: str, query: str = "", limit: int = 3) -> list[PassageHit]:
        self._load()
        self.calls.append(("best_passages", (document_id, query)))
        if document_id not in self.infos:
            return []
        wanted = _words(query)
        hits = [
            dataclasses.replace(hit, score=float(len(wanted & _words(hit.text))))
            for hit in self._hits(document_id)
        ]
        return sorted(hits, key=lambda h: -h.score)[:limit]

    def page_text(self, document_id: str, page: int) -> str | None:
        self._load()
        return next((p.text for p in self.pages.get(document_id, []) if p.number == page), None)


def use_fake_store(store: FakeDocumentStore) -> None:
    """Vicaran's document store is `store` from now on (tests undo it with monkeypatch)."""
    intake.get_document_store = lambda _url: store  # type: ignore[assignment]


if path := os.environ.get(ENV):  # loaded as a plugin in a subprocess
    use_fake_store(FakeDocumentStore(Path(path)))
