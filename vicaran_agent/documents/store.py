"""Collections of documents and their passages in the records database, with full-text search.

INTERFACE STUB - implemented by the store work (see the issue 11 plan).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import DocumentInfo, DocumentReliability, ParsedDocument, PassageHit


@dataclass(frozen=True)
class AddOutcome:
    """What adding one file did: "added", "unchanged" (same SHA-256) or "replaced"."""

    status: str
    document: DocumentInfo


class DocumentStore:
    """Documents, passages and their index in the database at `database_url`."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url

    def add(
        self,
        parsed: ParsedDocument,
        collection: str,
        reliability: DocumentReliability | None = None,
    ) -> AddOutcome:
        raise NotImplementedError

    def documents(self, collection: str | None = None) -> list[DocumentInfo]:
        raise NotImplementedError

    def collections(self) -> dict[str, DocumentReliability]:
        raise NotImplementedError

    def get(self, document_id: str) -> DocumentInfo | None:
        raise NotImplementedError

    def remove(self, collection: str, name_or_id: str | None = None) -> int:
        raise NotImplementedError

    def search(
        self,
        query: str,
        collections: Sequence[str],
        *,
        document_ids: Sequence[str] | None = None,
        limit: int = 8,
    ) -> list[PassageHit]:
        raise NotImplementedError

    def best_passages(self, document_id: str, query: str = "", limit: int = 3) -> list[PassageHit]:
        raise NotImplementedError

    def page_text(self, document_id: str, page: int) -> str | None:
        raise NotImplementedError


def get_document_store(database_url: str) -> DocumentStore:
    """The process-wide store for `database_url`."""
    raise NotImplementedError
