"""Collections of documents and their passages in the records database, with full-text search.

The tables live beside the investigation records (storage/tables.py) and share the records
store's engine and transactions (one engine per database file). Search is SQLite FTS5 with BM25
(tokenizer unicode61 without diacritics, so "licitacao" finds "licitação") by default, and
PostgreSQL full text (a GIN index over to_tsvector('simple', text without accents), ranked with
ts_rank_cd) when the database is PostgreSQL; the test matrix runs both when a server is given.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast, get_args

from sqlalchemy import TextClause, bindparam, delete, func, insert, or_, select, text
from sqlalchemy.orm import Session

from ..i18n import Phrase
from ..storage.repository import Repository, get_repository
from ..storage.tables import CollectionRow, DocumentRow, PassageRow, new_id, utcnow
from ..tools.urls import extract_urls, normalize_url
from .model import (
    DocumentError,
    DocumentInfo,
    DocumentReliability,
    ParsedDocument,
    PassageHit,
    UnreadablePage,
)
from .passages import split_passages
from .query import fts5_match, query_terms, tsquery
from .synonyms import fold, synonyms

RELIABILITIES: tuple[str, ...] = get_args(DocumentReliability)
MAX_COLLECTION_CHARS = 255
MAX_HITS = 200
URL_PASSAGES = 50  # passages that name an address, read to list a document's addresses
_COMMON_TERM_ROWS = 2000  # below this, no term is worth dropping: counting passages costs more

_SQLITE_INDEX = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(text, content='passages', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS passages_fts_insert AFTER INSERT ON passages BEGIN "
    "INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS passages_fts_delete AFTER DELETE ON passages BEGIN "
    "INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
    "CREATE TRIGGER IF NOT EXISTS passages_fts_update AFTER UPDATE OF text ON passages BEGIN "
    "INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text); "
    "INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts_vocab USING fts5vocab(passages_fts, 'row')",
)


def _accent_table() -> tuple[str, str]:
    """Latin letters with diacritics and their bare letters, for PostgreSQL's translate().

    Like FTS5's `remove_diacritics 2`, without the unaccent extension (which needs privileges).
    """
    accented, bare = [], []
    for code in range(0xC0, 0x250):
        char = chr(code)
        base = fold(char)
        if len(base) == 1 and base.isascii() and base.isalpha() and base != char.lower():
            accented.append(char)
            bare.append(base)
    return "".join(accented), "".join(bare)


_ACCENTED, _BARE = _accent_table()
# The same expression in the index and in every query, so that the index is used.
_POSTGRES_VECTOR = (
    "to_tsvector('simple', translate({column}, '" + _ACCENTED + "', '" + _BARE + "'))"
)
_POSTGRES_INDEX = (
    "DROP INDEX IF EXISTS ix_passages_text_fts",  # the first index did not fold accents
    "CREATE INDEX IF NOT EXISTS ix_passages_text_folded_fts ON passages "
    f"USING gin ({_POSTGRES_VECTOR.format(column='text')})",
)
_HIT_COLUMNS = (
    'p.id, p.document_id, d.collection, d.file_name, d.title, p.page, p.start, p."end", p.text'
)
# SQLite ranks in two steps: the best rows of the whole index by BM25 alone (touching no other
# table: reading a passage row per match is what costs at 100,000 passages), then those rows'
# passages and documents, filtered by collection. When the filter leaves too few, the exact
# query (joined and filtered before ranking) runs instead. CROSS JOIN keeps SQLite's join order:
# passages by id first (not every passage of the collection's documents).
_SQLITE_RANK = (
    "SELECT passages_fts.rowid, bm25(passages_fts) FROM passages_fts "
    "WHERE passages_fts MATCH :match {range} ORDER BY 2 LIMIT :window"
)
_SQLITE_RANK_FILTERED = (
    "SELECT passages_fts.rowid, bm25(passages_fts) FROM passages_fts "
    "CROSS JOIN passages p ON p.id = passages_fts.rowid "
    "CROSS JOIN documents d ON d.id = p.document_id "
    "WHERE passages_fts MATCH :match AND d.collection IN :collections {range} {scope} "
    "ORDER BY 2 LIMIT :window"
)
_SQLITE_HITS = (
    f"SELECT {_HIT_COLUMNS} FROM passages p CROSS JOIN documents d ON d.id = p.document_id "
    "WHERE p.id IN :ids AND d.collection IN :collections {scope}"
)
_SCOPE = "AND p.document_id IN :document_ids"
_RANGE = "AND passages_fts.rowid BETWEEN :low AND :high"
_POSTGRES_SEARCH = (
    f"SELECT {_HIT_COLUMNS}, ts_rank_cd({_POSTGRES_VECTOR.format(column='p.text')}, q.query) "
    "AS score FROM passages p JOIN documents d ON d.id = p.document_id, "
    "(SELECT to_tsquery('simple', :match) AS query) q "
    f"WHERE {_POSTGRES_VECTOR.format(column='p.text')} @@ q.query "
    "AND d.collection IN :collections {scope} ORDER BY score DESC, p.id LIMIT :limit"
)


@dataclass(frozen=True)
class Reader:
    """A conversation naming collections: its ADK user, and the investigation it plans or runs.

    It may use the operator's collections (`vicaran docs add`: shared) and the attachment
    collections its user owns; one made before owners were kept only from its own investigation.
    The operator's commands read every collection (no Reader).
    """

    user_id: str
    investigation_id: str = ""

    def may_use(self, row: CollectionRow) -> bool:
        if row.investigation_id is None:
            return row.owner is None or row.owner == self.user_id
        if row.owner is not None:
            return row.owner == self.user_id
        # Made before owners were kept: only from its investigation, named by its whole id.
        return _is_uuid(self.investigation_id) and row.investigation_id == self.investigation_id


@dataclass(frozen=True)
class CollectionInfo:
    """A collection as the operator sees it: whose it is and how many documents it holds."""

    name: str
    reliability: DocumentReliability
    owner: str | None  # the ADK user whose chat attachments it holds; None: unknown or shared
    investigation_id: str | None  # None: the operator's, shared
    documents: int

    @property
    def shared(self) -> bool:
        return self.investigation_id is None and self.owner is None


class CollectionRefused(DocumentError):
    """A conversation's attachments cannot go into a collection that is not its user's."""


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
                    repository.write(lambda session: _create_index(session, repository.dialect))
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
    ) -> AddOutcome:
        """Index one parsed file in `collection` (created on first use).

        The same bytes (SHA-256) already in the collection: "unchanged", nothing written. The same
        file (path, else file name) with new bytes: "replaced", its old passages gone. Else "added".
        Without `owner` it is the operator adding (a new collection is shared); with one, a chat's
        attachment: a new collection is that user's, and a collection that is not an attachment
        collection of that user is refused (CollectionRefused).
        """
        collection = _collection_name(collection)
        if reliability is not None and reliability not in RELIABILITIES:
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
            elif owner is not None and not _takes_attachments(row, owner):
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
        wanted = _Scope(list(collections), None if document_ids is None else list(document_ids))
        limit = min(limit, MAX_HITS)
        if repository.dialect == "postgresql":
            return repository.read(lambda session: _postgres_search(session, terms, wanted, limit))
        return repository.read(lambda session: _sqlite_search(session, terms, wanted, limit))

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


_STORES: dict[str, DocumentStore] = {}
_STORES_LOCK = threading.Lock()


def get_document_store(database_url: str) -> DocumentStore:
    """The process-wide store for `database_url`."""
    with _STORES_LOCK:
        store = _STORES.get(database_url)
        if store is None:
            store = _STORES[database_url] = DocumentStore(database_url)
        return store


# --- helpers -------------------------------------------------------------------------------


def _create_index(session: Session, dialect: str) -> None:
    """The full-text index over passages (idempotent), rebuilt if the passages came first."""
    if dialect == "sqlite":
        existed = session.execute(
            text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passages_fts'")
        ).first()
        for statement in _SQLITE_INDEX:
            session.execute(text(statement))
        if existed is None:
            session.execute(text("INSERT INTO passages_fts(passages_fts) VALUES ('rebuild')"))
    elif dialect == "postgresql":
        for statement in _POSTGRES_INDEX:
            session.execute(text(statement))


@dataclass(frozen=True)
class _Scope:
    """Where a search looks: these collections, and only these documents when given."""

    collections: list[str]
    document_ids: list[str] | None

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"collections": self.collections}
        if self.document_ids is not None:
            params["document_ids"] = self.document_ids
        return params

    @property
    def sql(self) -> str:
        return "" if self.document_ids is None else _SCOPE


def _statement(sql: str, params: dict[str, Any]) -> TextClause:
    """`sql` with the lists in `params` bound as IN lists."""
    lists = [
        bindparam(name, expanding=True)
        for name, value in params.items()
        if isinstance(value, list) and f":{name} " in f"{sql} "
    ]
    return text(sql).bindparams(*lists)


def _sqlite_search(
    session: Session, terms: list[str], scope: _Scope, limit: int
) -> list[PassageHit]:
    """The best `limit` passages in scope: ranked in the index alone, else ranked after filtering."""
    params = scope.params()
    ranges = ""
    if scope.document_ids is None:
        terms = _discriminating(session, terms)
    else:  # a document's passages have consecutive ids: FTS5 reads only that range
        params["low"], params["high"] = _id_range(session, scope.document_ids)
        ranges = _RANGE
    params["match"] = fts5_match(terms)
    params["window"] = max(4 * limit, 32)
    sql = _SQLITE_RANK.format(range=ranges)
    ranked = session.execute(_statement(sql, params), params).all()
    hits = _sqlite_hits(session, ranked, scope)[:limit]
    if len(hits) < limit and len(ranked) == params["window"]:
        params["window"] = limit  # better passages of other collections filled the window
        sql = _SQLITE_RANK_FILTERED.format(range=ranges, scope=scope.sql)
        ranked = session.execute(_statement(sql, params), params).all()
        hits = _sqlite_hits(session, ranked, scope)
    return hits


def _sqlite_hits(session: Session, ranked: Sequence[Any], scope: _Scope) -> list[PassageHit]:
    """The ranked passage ids that are in scope, as hits, best first."""
    if not ranked:
        return []
    score = {rowid: -rank for rowid, rank in ranked}
    params = {**scope.params(), "ids": list(score)}
    sql = _SQLITE_HITS.format(scope=scope.sql)
    hits = [_hit((*row, score[row[0]])) for row in session.execute(_statement(sql, params), params)]
    return sorted(hits, key=lambda hit: (-hit.score, hit.passage_id))


def _postgres_search(
    session: Session, terms: list[str], scope: _Scope, limit: int
) -> list[PassageHit]:
    params = {**scope.params(), "match": tsquery([fold(term) for term in terms]), "limit": limit}
    if not params["match"]:
        return []
    sql = _POSTGRES_SEARCH.format(scope=scope.sql)
    return [_hit(row) for row in session.execute(_statement(sql, params), params)]


def _discriminating(session: Session, terms: list[str]) -> list[str]:
    """The terms without those in more than half of all passages (unless no other term is left).

    FTS5's BM25 gives such a term an IDF of about zero, so it changes no ranking, but matching it
    means scoring most of the index: a collection about Maceió has "maceio" in every passage.
    """
    folded = {term: fold(term) for term in terms}
    counts = dict(
        session.execute(
            text("SELECT term, doc FROM passages_fts_vocab WHERE term IN :terms").bindparams(
                bindparam("terms", expanding=True)
            ),
            {"terms": sorted(set(folded.values()))},
        ).all()
    )
    common = max(counts.values(), default=0)
    if common < _COMMON_TERM_ROWS:
        return terms
    total = session.execute(select(func.count()).select_from(PassageRow)).scalar_one()
    kept = [term for term in terms if counts.get(folded[term], 0) * 2 <= total]
    if kept:
        return kept
    return [min(terms, key=lambda term: counts.get(folded[term], 0))]


def _id_range(session: Session, document_ids: Sequence[str]) -> tuple[int, int]:
    low, high = session.execute(
        select(func.min(PassageRow.id), func.max(PassageRow.id)).where(
            PassageRow.document_id.in_(list(document_ids))
        )
    ).one()
    return (low or 0, high or 0)


def _is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def _takes_attachments(row: CollectionRow, owner: Reader) -> bool:
    """Whether a chat's attachments may go into `row`: an attachment collection of its user
    (one made before owners were kept: of its investigation, which then owns it)."""
    if row.investigation_id is None or not owner.may_use(row):
        return False
    if row.owner is None:
        row.owner = owner.user_id
    return True


def _collection_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise ValueError("a collection needs a name")
    if len(name) > MAX_COLLECTION_CHARS:
        raise ValueError(f"a collection name has at most {MAX_COLLECTION_CHARS} characters")
    return name


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
    """DocumentInfo of each row, with its passage count and its collection's reliability."""
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
            reliability=_reliability(reliability.get(row.collection)),
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


def _hit(row: Any) -> PassageHit:
    passage_id, document_id, collection, file_name, title, page, start, end, passage, score = row
    return PassageHit(
        passage_id=passage_id,
        document_id=document_id,
        collection=collection,
        file_name=file_name,
        title=title,
        page=page,
        start=start,
        end=end,
        text=passage,
        score=float(score),
    )


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
