"""The journalist's documents as one more evidence gatherer: ranked passages, page by page."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Settings
from ..documents.collection import Reader
from ..documents.follow import ReferenceFollower
from ..documents.follow_records import FollowResult, ReadUrl
from ..documents.model import DocumentInfo, PassageHit
from ..documents.registry import DocumentRegistry
from ..documents.store import DocumentStore, get_document_store
from ..formatting import one_line
from ..i18n import message
from ..llm import ModelClient
from ..safe_markdown import code
from ..schemas import Reliability
from ..tools.analyze_source import now_iso
from .pool import Candidate

if TYPE_CHECKING:
    from .checker import ClaimChecker


@dataclass
class DocumentEvidence:
    """The collections one fact_checker run searches, shared by every claim."""

    store: DocumentStore
    collections: list[str]
    documents: list[DocumentInfo]
    reliability: dict[str, Reliability]  # by document: its own rating, else its collection's
    per_round: int
    follower: ReferenceFollower  # one per run: the registry of documents is built once

    @classmethod
    async def open(
        cls,
        settings: Settings,
        collections: Sequence[str],
        *,
        model: ModelClient,
        language: str,
        read_url: ReadUrl | None,
        reader: Reader,
    ) -> DocumentEvidence | None:
        """The attached collections `reader` may use that hold documents; None when there is
        nothing to search."""
        per_round = settings.vicaran_document_passages_per_claim
        if not collections or not per_round:
            return None
        store = get_document_store(settings.database_url)
        known = await asyncio.to_thread(store.collections, reader)
        names = [c for c in dict.fromkeys(collections) if c in known]
        listed = await asyncio.gather(*(asyncio.to_thread(store.documents, c) for c in names))
        documents = [d for docs in listed for d in docs]
        if not documents:
            return None
        follower = ReferenceFollower(  # its registry from the documents listed here, once
            store,
            names,
            model,
            language=language,
            read_url=read_url,
            settings=settings,
            registry=DocumentRegistry(documents),
        )
        rated = {d.document_id: d.reliability for d in documents}
        return cls(store, names, documents, rated, per_round, follower)

    def reliability_of(self, hit: PassageHit) -> Reliability:
        """The passage's document's rating (its own, else its collection's)."""
        return self.reliability.get(hit.document_id, "neutral")

    async def search(self, queries: Sequence[str]) -> list[tuple[str, PassageHit]]:
        """(query, passage) for the best passages over every query, each passage once."""
        found = await asyncio.gather(
            *(
                asyncio.to_thread(self.store.search, q, self.collections, limit=self.per_round)
                for q in queries
            )
        )
        best: dict[int, tuple[str, PassageHit]] = {}
        for query, hits in zip(queries, found, strict=True):
            for hit in hits:
                if hit.passage_id not in best or hit.score > best[hit.passage_id][1].score:
                    best[hit.passage_id] = (query, hit)
        ranked = sorted(best.values(), key=lambda qh: -qh[1].score)
        return ranked[: self.per_round]


def take_followed(checker: ClaimChecker, followed: FollowResult) -> None:
    """What following read joins the pool; how it got there joins the reasoning log."""
    documents = checker.shared.documents
    assert documents is not None
    texts = checker.shared.runtime.texts
    for line in followed.log:
        checker.reasoning.append(line)
        if checker.emit is not None:
            checker.emit(line)
    for url, origin in followed.listed:  # the report lists what was not opened
        address = code(one_line(url, 200))
        checker.notes.append(
            message("ref_url_listed", checker.shared.language, origin=origin, url=address)
        )
    for passage in followed.passages:
        hit = passage.hit
        query = f"{passage.origin} → {passage.reference.label}"
        candidate = Candidate.from_passage(hit, documents.reliability_of(hit), query)
        candidate.sha, candidate.retrieved_at = texts.put(hit.text), now_iso()
        checker.pool.add(candidate)
    for page in followed.pages:
        candidate = Candidate.from_page(page, "page")
        candidate.read(page.text, texts.put(page.text), checker.claim.claim_text, now_iso())
        candidate.query = f"{page.origin} → {page.reference.label}"
        checker.pool.add(candidate)
