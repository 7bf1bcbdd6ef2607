"""The journalist's documents as sources: each one read, through its best passages, like a page.

A document's digest is one model call over the passages closest to the brief (the same digest
instruction web pages get); the passages read are the source's snapshot. The text goes to the
configured model only, inside a data block.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..clients.content import clip_text, published_date
from ..formatting import data_block
from ..i18n import Phrase, message
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import SourceDigest
from ..runtime import TextStore
from ..sanitize import clean
from ..schemas import Source
from ..tools.analyze_source import Analysis, now_iso
from .collection import Reader
from .intake import document_store
from .model import DocumentInfo

PASSAGES_PER_DOCUMENT = 4
CREDIBILITY = {"high": 4, "neutral": 3, "low": 2}  # a collection's reliability, as stars
OWN_DOMAIN = "documents"  # the investigation's own attachments


@dataclass(frozen=True)
class ListedDocument:
    info: DocumentInfo  # its reliability: its own rating, else its collection's
    domain: str  # "documents" for an attachment, else the collection's name


async def list_documents(
    collections: Sequence[str], own: Collection[str], reader: Reader
) -> list[ListedDocument]:
    """Every document of the named collections `reader` may use, once each (raises when the
    store cannot say)."""
    store = document_store()
    known = await asyncio.to_thread(store.collections, reader)
    listed: dict[str, ListedDocument] = {}
    for name in dict.fromkeys(collections):
        if name not in known:
            continue
        domain = OWN_DOMAIN if name in own else name
        for info in await asyncio.to_thread(store.documents, name):
            listed.setdefault(info.document_id, ListedDocument(info, domain))
    return list(listed.values())


class DocumentReader:
    """Reads documents into sources: best passages for the brief, one digest call each."""

    def __init__(
        self, model: ModelClient, instruction: str, texts: TextStore, brief: str, language: str
    ) -> None:
        self.model = model
        self.instruction = instruction
        self.texts = texts
        self.brief = brief
        self.language = language

    async def read(self, listed: ListedDocument) -> Analysis:
        info = listed.info
        base: dict[str, object] = dict(
            url=info.url,
            display_url=info.url,
            title=clean(info.title) or info.file_name,
            domain=listed.domain,
            publisher=info.publisher,
            credibility_score=CREDIBILITY.get(info.reliability, 3),
            origin="document",
            is_user_provided=True,  # the journalist's own: never set aside as off-topic
            retrieved_at=now_iso(),
            document_id=info.document_id,
        )
        hits = await asyncio.to_thread(
            document_store().best_passages, info.document_id, self.brief, PASSAGES_PER_DOCUMENT
        )
        hits = sorted(hits, key=lambda h: (h.page, h.start))
        if not hits:
            reason = message("document_no_text", self.language)
            return Analysis(Source(**base, is_reachable=False, unreachable_reason=reason), None)
        passages = "\n\n".join(f"[page {h.page}]\n{h.text.strip()}" for h in hits)
        text = (
            f"Title: {info.title}\nFile: {info.file_name} ({info.page_count} pages), one of the "
            f"journalist's documents\n\n{passages}"
        )
        base["content_sha256"] = self.texts.put(text)
        update: dict[str, object] = {}
        problem = None
        try:
            digest = await self.model.generate(
                instruction=self.instruction,
                prompt=data_block("DOCUMENT", text),
                schema=SourceDigest,
            )
            update.update(
                content_summary=clean(digest.summary) or clip_text(passages, 480),
                key_claims=[clean(c) for c in digest.key_claims],
                published_at=published_date(digest.published_date),  # as the document says
                published_at_source="document",
                relevance=round(min(1.0, max(0.0, digest.relevance)), 2),
                relevance_reason=clean(" ".join(digest.relevance_reason.split())[:300]) or None,
            )
            if not clean(info.title).strip():  # the document's own title, else the model's
                update["title"] = clean(digest.title) or info.file_name
        except ModelCallError as error:
            update["content_summary"] = clip_text(" ".join(h.text for h in hits), 480)
            problem = Phrase("document_not_summarised", title=base["title"], error=error.message)
        return Analysis(Source.model_validate({**base, **update}), problem)
