"""Collections of documents and their passages in the records database, with full-text search.

The tables live beside the investigation records (storage/tables.py) and share the records
store's engine and transactions (one engine per database file). Search is SQLite FTS5 or
PostgreSQL full text (`documents/fulltext.py`); the test matrix runs both when a server is given.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast, get_args

from sqlalchemy import delete, func, insert, or_, select
from sqlalchemy.orm import Session

from .. import services
from ..i18n import Phrase
from ..storage.repository import Repository, get_repository
from ..storage.rows import CollectionRow, DocumentRow, PassageRow
from ..storage.tables import new_id, utcnow
from ..urls import extract_urls, normalize_url
from . import fulltext
from .collection import (
    CollectionInfo,
    CollectionRefused,
    Reader,
    collection_name,
    takes_attachments,
)
from .model import (
    DocumentInfo,
    DocumentReliability,
    ParsedDocument,
    PassageHit,
    UnreadablePage,
)
from .passages import split_passages
from .query import query_terms
from .synonyms import synonyms

RELIABILITIES: tuple[str, ...] = get_args(DocumentReliability)
MAX_HITS = 200
URL_PASSAGES = 50  # passages that name an address, read to list a document's addresses


@dataclass(frozen=True)
class AddOutcome:
    """What adding one file did: "added", "unchanged" (same SHA-256) or "replaced"."""

    status: str
    document: DocumentInfo


class DocumentStore:
    """Documents, passages and their index in the database at `database_url`."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._prepared: Repository | None = None
        self._prepare_lock = threading.Lock()

    @property
    def _repository(self) -> Repository:
        """The records store of this database, with the full-text index made (once per engine)."""
        repository = get_repository(self.database_url)
        if repository is not self._prepared:
            with self._prepare_lock:
                if repository is not self._prepared:
                    repository.write(
                        lambda session: fulltext.create_index(session, repository.dialect)
                    )
                    self._prepared = repository
        return repository

    # --- writes ----------------------------------------------------------------------------

    def add(
        self,
        parsed: ParsedDocument,
        collection: str,
        reliability: DocumentReliability | None = None,
        *,
        owner: Reader | None = None,
        own_reliability: DocumentReliability | None = None,
    ) -> AddOutcome:
        """Index one parsed file in `collection` (created on first use).

        The same bytes (SHA-256) already in the collection: "unchanged", nothing written. The same
        file (path, else file name) with new bytes: "replaced", its old passages gone. Else "added".
        Without `owner` it is the operator adding (a new collection is shared); with one, a chat's
        attachment: a new collection is that user's, and a collection that is not an attachment
        collection of that user is refused (CollectionRefused). `own_reliability`: this file's
        own rating (a chat's `Reliability:` line), over its collection's.
        """
        collection = collection_name(collection)
        for rating in (reliability, own_reliability):
            if rating is not None and rating not in RELIABILITIES:
                raise ValueError(f"reliability must be one of {', '.join(RELIABILITIES)}")
        passages = split_passages(parsed.pages)
        key = _file_key(parsed)
        names = list(
            synonyms(parsed.title, parsed.metadata_title, parsed.first_heading, parsed.file_name)
        )

        def op(session: Session) -> AddOutcome:
            row = session.get(CollectionRow, collection)
            if row is None:
                row = CollectionRow(name=collection, reliability=reliability or "neutral")
                if owner is not None:
                    row.owner, row.investigation_id = owner.user_id, owner.investigation_id
                session.add(row)
            elif owner is not None and not takes_attachments(row, owner):
                raise CollectionRefused(
                    Phrase("document_collection_refused", name=parsed.file_name)
                )
            elif reliability is not None and owner is None:
                row.reliability = reliability
            same = session.scalars(
                select(DocumentRow).where(
                    DocumentRow.collection == collection, DocumentRow.sha256 == parsed.sha256
                )
            ).first()
            if same is not None:
                if own_reliability is not None:  # the same file, sent again with a rating
                    same.reliability = own_reliability
                return AddOutcome("unchanged", _info(session, same))
            document = session.scalars(
                select(DocumentRow).where(
                    DocumentRow.collection == collection, DocumentRow.file_key == key
                )
            ).one_or_none()
            status = "replaced"
            if document is None:
                status = "added"
                document = DocumentRow(id=new_id(), collection=collection, file_key=key)
                session.add(document)
            else:
                session.execute(delete(PassageRow).where(PassageRow.document_id == document.id))
            _fill(document, parsed, names)
            document.reliability = own_reliability
            session.flush()
            if passages:
                session.execute(
                    insert(PassageRow),
                    [
                        {
                            "document_id": document.id,
                            "ordinal": p.ordinal,
                            "page": p.page,
                            "start": p.start,
                            "end": p.end,
                            "text": p.text,
                        }
                        for p in passages
                    ],
                )
            return AddOutcome(status, _info(session, document))

        return self._repository.write(op)

    def remove(self, collection: str, name_or_id: str | None = None) -> int:
        """Remove one document (by id, file name or path) or, without one, the whole collection.

        Returns how many documents went (0 when nothing matched).
        """

        def op(session: Session) -> int:
            documents = select(DocumentRow.id).where(DocumentRow.collection == collection)
            if name_or_id is not None:
                documents = documents.where(
                    or_(
                        DocumentRow.id == name_or_id,
                        DocumentRow.file_name == name_or_id,
                        DocumentRow.path == name_or_id,
                    )
                )
            ids = list(session.scalars(documents))
            if ids:
                # Passages first, explicitly: their index stays in sync without relying on cascades.
                session.execute(delete(PassageRow).where(PassageRow.document_id.in_(ids)))
                session.execute(delete(DocumentRow).where(DocumentRow.id.in_(ids)))
            if name_or_id is None:
                session.execute(delete(CollectionRow).where(CollectionRow.name == collection))
            return len(ids)

        return self._repository.write(op)

    # --- reads -----------------------------------------------------------------------------

    def documents(self, collection: str | None = None) -> list[DocumentInfo]:
        """The documents of one collection (or of all), by collection then title."""

        def op(session: Session) -> list[DocumentInfo]:
            statement = select(DocumentRow).order_by(
                DocumentRow.collection, DocumentRow.title, DocumentRow.file_name
            )
            if collection is not None:
                statement = statement.where(DocumentRow.collection == collection)
            rows = list(session.scalars(statement))
            return _infos(session, rows)

        return self._repository.read(op)

    def collections(self, reader: Reader | None = None) -> dict[str, DocumentReliability]:
        """Every collection `reader` may use (without one: every collection) and its reliability.

        A collection `reader` may not use is left out as one that does not exist would be.
        """

        def op(session: Session) -> dict[str, DocumentReliability]:
            rows = session.scalars(select(CollectionRow).order_by(CollectionRow.name))
            return {
                row.name: _reliability(row.reliability)
                for row in rows
                if reader is None or reader.may_use(row)
            }

        return self._repository.read(op)

    def collection_owners(self) -> list[CollectionInfo]:
        """Every collection, attachment collections included, with its owner (by name)."""

        def op(session: Session) -> list[CollectionInfo]:
            counts = dict(
                session.execute(
                    select(DocumentRow.collection, func.count()).group_by(DocumentRow.collection)
                ).all()
            )
            rows = session.scalars(select(CollectionRow).order_by(CollectionRow.name))
            return [
                CollectionInfo(
                    name=row.name,
                    reliability=_reliability(row.reliability),
                    owner=row.owner,
                    investigation_id=row.investigation_id,
                    documents=counts.get(row.name, 0),
                )
                for row in rows
            ]

        return self._repository.read(op)

    def get(self, document_id: str) -> DocumentInfo | None:
        def op(session: Session) -> DocumentInfo | None:
            row = session.get(DocumentRow, document_id)
            return None if row is None else _info(session, row)

        return self._repository.read(op)

    def search(
        self,
        query: str,
        collections: Sequence[str],
        *,
        document_ids: Sequence[str] | None = None,
        limit: int = 8,
    ) -> list[PassageHit]:
        """The passages of `collections` (and of `document_ids`, if given) best matching `query`.

        Any word of the query may match (OR), ranked by BM25; [] when the query has no word
        worth searching for.
        """
        terms = query_terms(query)
        if not terms or not collections or limit <= 0 or document_ids == []:
            return []
        repository = self._repository
        limit = min(limit, MAX_HITS)
        return repository.read(
            lambda session: fulltext.search(
                session, repository.dialect, terms, collections, document_ids, limit
            )
        )

    def best_passages(self, document_id: str, query: str = "", limit: int = 3) -> list[PassageHit]:
        """The document's passages best matching `query`; its first passages when none match.

        A referenced annex is often a table of figures sharing few words with the claim: it is
        read anyway. Empty only for a document without text.
        """
        document = self.get(document_id)
        if document is None or limit <= 0:
            return []
        hits = self.search(query, [document.collection], document_ids=[document_id], limit=limit)
        if hits:
            return hits

        def op(session: Session) -> list[PassageHit]:
            rows = session.scalars(
                select(PassageRow)
                .where(PassageRow.document_id == document_id)
                .order_by(PassageRow.ordinal)
                .limit(limit)
            )
            return [
                PassageHit(
                    passage_id=row.id,
                    document_id=document_id,
                    collection=document.collection,
                    file_name=document.file_name,
                    title=document.title,
                    page=row.page,
                    start=row.start,
                    end=row.end,
                    text=row.text,
                    score=0.0,
                )
                for row in rows
            ]

        return self._repository.read(op)

    def written_urls(self, document_id: str, limit: int = 5) -> list[str]:
        """The first web addresses written in a document (what the plan lists, never opens)."""

        def op(session: Session) -> list[str]:
            return list(
                session.scalars(
                    select(PassageRow.text)
                    .where(PassageRow.document_id == document_id, PassageRow.text.contains("://"))
                    .order_by(PassageRow.ordinal)
                    .limit(URL_PASSAGES)
                )
            )

        found: dict[str, str] = {}
        for passage in self._repository.read(op):
            for url in extract_urls(passage, limit):
                found.setdefault(normalize_url(url), url)
            if len(found) >= limit:
                break
        return list(found.values())[:limit]

    def page_text(self, document_id: str, page: int) -> str | None:
        """The text of one page (1-based) as its passages hold it; None when it has none."""

        def op(session: Session) -> list[str]:
            return list(
                session.scalars(
                    select(PassageRow.text)
                    .where(PassageRow.document_id == document_id, PassageRow.page == page)
                    .order_by(PassageRow.ordinal)
                )
            )

        pieces = self._repository.read(op)
        if not pieces:
            return None
        joined = pieces[0]
        for passage in pieces[1:]:
            joined += _after_overlap(joined, passage)
        return joined


def get_document_store(database_url: str) -> DocumentStore:
    """The store for `database_url` the process shares."""
    shared = services.current()
    with shared.lock:
        store = shared.document_stores.get(database_url)
        if store is None:
            store = shared.document_stores[database_url] = DocumentStore(database_url)
        return store


# --- helpers -------------------------------------------------------------------------------


def _file_key(parsed: ParsedDocument) -> str:
    """Which file this is: its absolute path when read from disk, else its name (an attachment)."""
    if parsed.path:
        return "path:" + str(Path(parsed.path).absolute())
    return "name:" + parsed.file_name


def _fill(row: DocumentRow, parsed: ParsedDocument, names: list[str]) -> None:
    row.file_name = parsed.file_name
    row.path = parsed.path
    row.sha256 = parsed.sha256
    row.kind = parsed.kind
    row.title = parsed.title
    row.metadata_title = parsed.metadata_title
    row.first_heading = parsed.first_heading
    row.synonyms = names
    row.language = parsed.language
    row.page_count = parsed.page_count
    row.unreadable = [{"page": u.number, "reason": u.reason} for u in parsed.unreadable]
    row.ocr_pages = list(parsed.ocr_pages)
    row.size = parsed.size_bytes
    row.added_at = utcnow()


def _reliability(value: str | None) -> DocumentReliability:
    return cast(DocumentReliability, value) if value in RELIABILITIES else "neutral"


def _info(session: Session, row: DocumentRow) -> DocumentInfo:
    return _infos(session, [row])[0]


def _infos(session: Session, rows: list[DocumentRow]) -> list[DocumentInfo]:
    """DocumentInfo of each row, with its passage count and its reliability (its own, else its
    collection's)."""
    if not rows:
        return []
    ids = [row.id for row in rows]
    counts = dict(
        session.execute(
            select(PassageRow.document_id, func.count())
            .where(PassageRow.document_id.in_(ids))
            .group_by(PassageRow.document_id)
        ).all()
    )
    names = {row.collection for row in rows}
    reliability = dict(
        session.execute(
            select(CollectionRow.name, CollectionRow.reliability).where(
                CollectionRow.name.in_(names)
            )
        ).all()
    )
    return [
        DocumentInfo(
            document_id=row.id,
            collection=row.collection,
            file_name=row.file_name,
            title=row.title,
            kind=row.kind,
            page_count=row.page_count,
            language=row.language,
            sha256=row.sha256,
            reliability=_reliability(row.reliability or reliability.get(row.collection)),
            unreadable=tuple(
                UnreadablePage(int(u.get("page", 0)), str(u.get("reason", "")))
                for u in row.unreadable or []
            ),
            metadata_title=row.metadata_title,
            first_heading=row.first_heading,
            passages=counts.get(row.id, 0),
            path=row.path,
            added_at=_iso(row.added_at),
            synonyms=tuple(row.synonyms or ()),
            ocr_pages=tuple(row.ocr_pages or ()),
        )
        for row in rows
    ]


def _after_overlap(joined: str, passage: str) -> str:
    """What `passage` adds after `joined` (passages of a page overlap by about 150 characters)."""
    for size in range(min(len(joined), len(passage), 400), 0, -1):
        if joined.endswith(passage[:size]):
            return passage[size:]
    return "\n" + passage


def _iso(value: datetime | None) -> str:
    if value is None:
        return ""
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
