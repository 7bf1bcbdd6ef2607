"""The passages' full-text index and its queries, one dialect each.

SQLite: FTS5 with BM25 (tokenizer unicode61 without diacritics, so "licitacao" finds
"licitação"). PostgreSQL: a GIN index over to_tsvector('simple', text without accents), ranked
with ts_rank_cd. `documents/store.py` calls `create_index` once per engine and `search`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, TextClause, bindparam, func, select, text

from ..storage.tables import passages
from .model import PassageHit
from .query import fts5_match, tsquery
from .synonyms import fold

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


def create_index(connection: Connection, dialect: str) -> None:
    """The full-text index over passages (idempotent), rebuilt if the passages came first."""
    if dialect == "sqlite":
        existed = connection.execute(
            text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passages_fts'")
        ).first()
        for statement in _SQLITE_INDEX:
            connection.execute(text(statement))
        if existed is None:
            connection.execute(text("INSERT INTO passages_fts(passages_fts) VALUES ('rebuild')"))
    elif dialect == "postgresql":
        for statement in _POSTGRES_INDEX:
            connection.execute(text(statement))


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
    connection: Connection, terms: list[str], scope: _Scope, limit: int
) -> list[PassageHit]:
    """The best `limit` passages in scope: ranked in the index alone, else ranked after filtering."""
    params = scope.params()
    ranges = ""
    if scope.document_ids is None:
        terms = _discriminating(connection, terms)
    else:  # a document's passages have consecutive ids: FTS5 reads only that range
        params["low"], params["high"] = _id_range(connection, scope.document_ids)
        ranges = _RANGE
    params["match"] = fts5_match(terms)
    params["window"] = max(4 * limit, 32)
    sql = _SQLITE_RANK.format(range=ranges)
    ranked = connection.execute(_statement(sql, params), params).all()
    hits = _sqlite_hits(connection, ranked, scope)[:limit]
    if len(hits) < limit and len(ranked) == params["window"]:
        params["window"] = limit  # better passages of other collections filled the window
        sql = _SQLITE_RANK_FILTERED.format(range=ranges, scope=scope.sql)
        ranked = connection.execute(_statement(sql, params), params).all()
        hits = _sqlite_hits(connection, ranked, scope)
    return hits


def _sqlite_hits(connection: Connection, ranked: Sequence[Any], scope: _Scope) -> list[PassageHit]:
    """The ranked passage ids that are in scope, as hits, best first."""
    if not ranked:
        return []
    score = {rowid: -rank for rowid, rank in ranked}
    params = {**scope.params(), "ids": list(score)}
    sql = _SQLITE_HITS.format(scope=scope.sql)
    hits = [
        _hit((*row, score[row[0]])) for row in connection.execute(_statement(sql, params), params)
    ]
    return sorted(hits, key=lambda hit: (-hit.score, hit.passage_id))


def _postgres_search(
    connection: Connection, terms: list[str], scope: _Scope, limit: int
) -> list[PassageHit]:
    params = {**scope.params(), "match": tsquery([fold(term) for term in terms]), "limit": limit}
    if not params["match"]:
        return []
    sql = _POSTGRES_SEARCH.format(scope=scope.sql)
    return [_hit(row) for row in connection.execute(_statement(sql, params), params)]


def _discriminating(connection: Connection, terms: list[str]) -> list[str]:
    """The terms without those in more than half of all passages (unless no other term is left).

    FTS5's BM25 gives such a term an IDF of about zero, so it changes no ranking, but matching it
    means scoring most of the index: a collection about Maceió has "maceio" in every passage.
    """
    folded = {term: fold(term) for term in terms}
    counts = dict(
        connection.execute(
            text("SELECT term, doc FROM passages_fts_vocab WHERE term IN :terms").bindparams(
                bindparam("terms", expanding=True)
            ),
            {"terms": sorted(set(folded.values()))},
        ).all()
    )
    common = max(counts.values(), default=0)
    if common < _COMMON_TERM_ROWS:
        return terms
    total = connection.execute(select(func.count()).select_from(passages)).scalar_one()
    kept = [term for term in terms if counts.get(folded[term], 0) * 2 <= total]
    if kept:
        return kept
    return [min(terms, key=lambda term: counts.get(folded[term], 0))]


def _id_range(connection: Connection, document_ids: Sequence[str]) -> tuple[int, int]:
    low, high = connection.execute(
        select(func.min(passages.c.id), func.max(passages.c.id)).where(
            passages.c.document_id.in_(list(document_ids))
        )
    ).one()
    return (low or 0, high or 0)


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


def search(
    connection: Connection,
    dialect: str,
    terms: list[str],
    collections: Sequence[str],
    document_ids: Sequence[str] | None,
    limit: int,
) -> list[PassageHit]:
    """The passages of `collections` (and of `document_ids`, if given) best matching `terms`."""
    scope = _Scope(list(collections), None if document_ids is None else list(document_ids))
    if dialect == "postgresql":
        return _postgres_search(connection, terms, scope, limit)
    return _sqlite_search(connection, terms, scope, limit)
