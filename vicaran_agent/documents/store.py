"""Collections of documents and their passages in the records database, with full-text search.

The tables live beside the investigation records (storage/tables.py) and share the records
store's engine and transactions (one engine per database file). Reads go through Core (no ORM
loaded: `vicaran docs list` and `docs search` start quickly); adding a file uses the ORM.
Search is SQLite FTS5 or PostgreSQL full text (`documents/fulltext.py`); the test matrix runs
both when a server is given.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, get_args

from sqlalchemy import Connection, delete, func, insert, or_, select

from .. import services
from ..i18n import Phrase
from ..storage import tables
from ..storage.base import RecordsDatabase
from ..storage.reads import get_reader
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

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from ..storage.rows import DocumentRow

RELIABILITIES: tuple[str, ...] = get_args(DocumentReliability)
_collections, _documents, _passages = tables.collections, tables.documents, tables.passages
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
        self._prepared: RecordsDatabase | None = None
        self._prepare_lock = threading.Lock()

    @property
    def _repository(self) -> RecordsDatabase:
        """The records store of this database (to write), with the full-text index made."""
        from ..storage import get_repository

        return self._ready(get_repository(self.database_url))

    @property
    def _records(self) -> RecordsDatabase:
        """What reads this database (no ORM), with the full-text index made."""
        return self._ready(get_reader(self.database_url))

    def _ready(self, database: RecordsDatabase) -> RecordsDatabase:
        """`database`, its full-text index made (once per engine)."""
        if database is not self._prepared:
            with self._prepare_lock:
                if database is not self._prepared:
                    database.change(
                        lambda connection: fulltext.create_index(connection, database.dialect)
                    )
                    self._prepared = database
        return database

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

        from ..storage.rows import CollectionRow, DocumentRow

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
                session.execute(delete(_passages).where(_passages.c.document_id == document.id))
            _fill(document, parsed, names)
            document.reliability = own_reliability
            session.flush()
            if passages:
                session.execute(
                    insert(_passages),
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

        documents = _documents.c

        def op(session: Session) -> int:
            chosen = select(documents.id).where(documents.collection == collection)
            if name_or_id is not None:
                chosen = chosen.where(
                    or_(
                        documents.id == name_or_id,
                        documents.file_name == name_or_id,
                        documents.path == name_or_id,
                    )
                )
            ids = list(session.scalars(chosen))
            if ids:
                # Passages first, explicitly: their index stays in sync without relying on cascades.
                session.execute(delete(_passages).where(_passages.c.document_id.in_(ids)))
                session.execute(delete(_documents).where(documents.id.in_(ids)))
            if name_or_id is None:
                session.execute(delete(_collections).where(_collections.c.name == collection))
            return len(ids)

        return self._repository.write(op)

    # --- reads -----------------------------------------------------------------------------

    def documents(self, collection: str | None = None) -> list[DocumentInfo]:
        """The documents of one collection (or of all), by collection then title."""

        documents = _documents.c
        statement = select(_documents).order_by(
            documents.collection, documents.title, documents.file_name
        )
        if collection is not None:
            statement = statement.where(documents.collection == collection)

        def op(connection: Connection) -> list[DocumentInfo]:
            return _infos(connection, list(connection.execute(statement)))

        return self._records.query(op)

    def collections(self, reader: Reader | None = None) -> dict[str, DocumentReliability]:
        """Every collection `reader` may use (without one: every collection) and its reliability.

        A collection `reader` may not use is left out as one that does not exist would be.
        """

        def op(connection: Connection) -> dict[str, DocumentReliability]:
            rows = connection.execute(select(_collections).order_by(_collections.c.name))
            return {
                row.name: _reliability(row.reliability)
                for row in rows
                if reader is None or reader.may_use(row)
            }

        return self._records.query(op)

    def collection_owners(self) -> list[CollectionInfo]:
        """Every collection, attachment collections included, with its owner (by name)."""

        def op(connection: Connection) -> list[CollectionInfo]:
            per = _documents.c.collection
            counts = dict(connection.execute(select(per, func.count()).group_by(per)).all())
            rows = connection.execute(select(_collections).order_by(_collections.c.name))
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

        return self._records.query(op)

    def get(self, document_id: str) -> DocumentInfo | None:
        def op(connection: Connection) -> DocumentInfo | None:
            row = connection.execute(
                select(_documents).where(_documents.c.id == document_id)
            ).one_or_none()
            return None if row is None else _info(connection, row)

        return self._records.query(op)

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
        records = self._records
        limit = min(limit, MAX_HITS)
        return records.query(
            lambda connection: fulltext.search(
                connection, records.dialect, terms, collections, document_ids, limit
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

        passages = _passages.c

        def op(connection: Connection) -> list[PassageHit]:
            rows = connection.execute(
                select(_passages)
                .where(passages.document_id == document_id)
                .order_by(passages.ordinal)
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

        return self._records.query(op)

    def written_urls(self, document_id: str, limit: int = 5) -> list[str]:
        """The first web addresses written in a document (what the plan lists, never opens)."""

        passages = _passages.c
        statement = (
            select(passages.text)
            .where(passages.document_id == document_id, passages.text.contains("://"))
            .order_by(passages.ordinal)
            .limit(URL_PASSAGES)
        )
        found: dict[str, str] = {}
        for passage in self._records.query(lambda c: list(c.scalars(statement))):
            for url in extract_urls(passage, limit):
                found.setdefault(normalize_url(url), url)
            if len(found) >= limit:
                break
        return list(found.values())[:limit]

    def page_text(self, document_id: str, page: int) -> str | None:
        """The text of one page (1-based) as its passages hold it; None when it has none."""

        passages = _passages.c
        statement = (
            select(passages.text)
            .where(passages.document_id == document_id, passages.page == page)
            .order_by(passages.ordinal)
        )
        pieces = self._records.query(lambda c: list(c.scalars(statement)))
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


def _info(executor: Connection | Session, row: Any) -> DocumentInfo:
    return _infos(executor, [row])[0]


def _infos(executor: Connection | Session, rows: list[Any]) -> list[DocumentInfo]:
    """DocumentInfo of each row (a Core row or an ORM object), with its passage count and its
    reliability (its own, else its collection's)."""
    if not rows:
        return []
    ids = [row.id for row in rows]
    passages, collections = _passages.c, _collections.c
    counts = dict(
        executor.execute(
            select(passages.document_id, func.count())
            .where(passages.document_id.in_(ids))
            .group_by(passages.document_id)
        ).all()
    )
    names = {row.collection for row in rows}
    reliability = dict(
        executor.execute(
            select(collections.name, collections.reliability).where(collections.name.in_(names))
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
