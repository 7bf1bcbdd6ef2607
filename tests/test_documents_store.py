"""The documents store: collections, add/unchanged/replaced, full-text search with BM25, removal."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from tests.support import documents as gen
from vicaran_agent.config import Settings
from vicaran_agent.documents import fulltext
from vicaran_agent.documents.model import PageText, ParsedDocument, UnreadablePage
from vicaran_agent.documents.parse import parse_bytes, parse_file
from vicaran_agent.documents.query import fts5_match, query_terms
from vicaran_agent.documents.store import DocumentStore, get_document_store
from vicaran_agent.documents.synonyms import name_variants, normalize_name, synonyms
from vicaran_agent.storage import get_repository


@pytest.fixture
def database_url(records_url: str) -> Iterator[str]:
    url = records_url
    yield url
    get_repository(url).close()


@pytest.fixture
def store(database_url: str) -> DocumentStore:
    return get_document_store(database_url)


def parsed(
    file_name: str,
    *pages: str,
    path: str = "",
    title: str = "",
    unreadable: tuple[UnreadablePage, ...] = (),
) -> ParsedDocument:
    data = "\f".join(pages).encode()
    return ParsedDocument(
        file_name=file_name,
        kind="text",
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        title=title or Path(file_name).stem,
        page_count=len(pages) + len(unreadable),
        pages=[PageText(n, page) for n, page in enumerate(pages, start=1) if page],
        unreadable=list(unreadable),
        path=path,
    )


def fts_in_sync(database_url: str) -> None:
    """FTS5's own check that the index holds exactly the passages table (raises when not).

    PostgreSQL's index is an expression index over the passages themselves: always in sync.
    """
    repository = get_repository(database_url)
    if repository.dialect != "sqlite":
        return
    repository.write(
        lambda s: s.execute(
            text("INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)")
        )
    )


def passage_count(database_url: str) -> int:
    return get_repository(database_url).read(
        lambda s: s.execute(text("SELECT count(*) FROM passages")).scalar_one()
    )


LONG = " ".join(f"Sentence {n} of the audit report about school meals." for n in range(120))


def test_adding_the_same_bytes_again_is_unchanged_and_writes_nothing(
    store: DocumentStore, database_url: str
) -> None:
    first = store.add(parsed("audit.txt", LONG, path="/docs/audit.txt"), "merenda")
    before = [h.passage_id for h in store.search("audit report", ["merenda"], limit=50)]
    again = store.add(parsed("audit.txt", LONG, path="/docs/audit.txt"), "merenda")

    assert (first.status, again.status) == ("added", "unchanged")
    assert again.document.document_id == first.document.document_id
    assert [h.passage_id for h in store.search("audit report", ["merenda"], limit=50)] == before
    assert first.document.passages > 1
    assert passage_count(database_url) == first.document.passages
    assert len(store.documents("merenda")) == 1


def test_a_changed_file_replaces_its_passages_and_the_index(
    store: DocumentStore, database_url: str
) -> None:
    old = store.add(
        parsed("contract.txt", "The alpha clause pays 10 million.", path="/d/c.txt"), "c"
    )
    new = store.add(
        parsed("contract.txt", "The omega clause pays 12 million.", path="/d/c.txt"), "c"
    )

    assert new.status == "replaced"
    assert new.document.document_id == old.document.document_id
    assert store.search("alpha", ["c"]) == []
    assert [h.text for h in store.search("omega", ["c"])] == ["The omega clause pays 12 million."]
    assert passage_count(database_url) == new.document.passages == 1
    fts_in_sync(database_url)


def test_the_same_name_in_another_folder_is_another_document(store: DocumentStore) -> None:
    store.add(parsed("report.txt", "first folder", path="/a/report.txt"), "c")
    outcome = store.add(parsed("report.txt", "second folder", path="/b/report.txt"), "c")

    assert outcome.status == "added"
    assert len(store.documents("c")) == 2


def test_an_attachment_with_the_same_name_and_new_bytes_replaces_the_old_one(
    store: DocumentStore,
) -> None:
    store.add(parsed("memo.txt", "draft memo"), "c")
    outcome = store.add(parsed("memo.txt", "final memo"), "c")

    assert outcome.status == "replaced"
    assert [h.text for h in store.search("memo", ["c"])] == ["final memo"]


def test_bm25_ranks_the_passage_with_the_query_terms_first(store: DocumentStore) -> None:
    store.add(parsed("a.txt", "The city council met on Tuesday to discuss parking."), "c")
    store.add(
        parsed("b.txt", "School meal contract overpriced: the school meal supplier billed twice."),
        "c",
    )
    store.add(parsed("c.txt", "The contract for road repairs was signed in March."), "c")

    hits = store.search("overpriced school meal contract", ["c"])

    assert [h.file_name for h in hits] == ["b.txt", "c.txt"]
    assert hits[0].score > hits[1].score > 0


def test_accents_are_ignored_both_ways(store: DocumentStore) -> None:
    store.add(parsed("edital.txt", "A licitação da merenda foi anulada pelo tribunal."), "c")
    store.add(parsed("plain.txt", "Processo de licitacao numero 12."), "c")

    found = {h.file_name for h in store.search("licitacao", ["c"])}
    found_accented = {h.file_name for h in store.search("LICITAÇÃO", ["c"])}

    assert found == found_accented == {"edital.txt", "plain.txt"}


def test_search_is_scoped_to_collections_and_documents(store: DocumentStore) -> None:
    a = store.add(parsed("a.txt", "budget figures for 2024"), "one").document
    b = store.add(parsed("b.txt", "budget figures for 2023"), "one").document
    store.add(parsed("c.txt", "budget figures for 2022"), "two")

    assert {h.file_name for h in store.search("budget", ["one"])} == {"a.txt", "b.txt"}
    assert {h.file_name for h in store.search("budget", ["two"])} == {"c.txt"}
    scoped = store.search("budget", ["one"], document_ids=[b.document_id])
    assert [h.document_id for h in scoped] == [b.document_id]
    assert store.search("budget", ["one"], document_ids=[]) == []
    assert store.search("budget", []) == []
    assert a.document_id not in {h.document_id for h in scoped}


def test_hits_cite_one_based_pages_and_their_passage(store: DocumentStore) -> None:
    document = store.add(
        parsed("report.txt", "introduction", "nothing here", "the decisive figure is 41%"), "c"
    ).document

    (hit,) = store.search("decisive figure", ["c"])

    assert hit.page == 3
    assert hit.title == "report"
    assert hit.url == f"doc://{document.document_id}/p3/{hit.passage_id}"
    assert hit.text == "the decisive figure is 41%"
    assert (hit.start, hit.end) == (0, len(hit.text))


def test_best_passages_fall_back_to_the_first_passages_when_nothing_matches(
    store: DocumentStore,
) -> None:
    table = "\n".join(f"Item {n:03d} | R$ {n * 1250},00 | unidade" for n in range(1, 200))
    annex = store.add(parsed("anexo-ii.txt", table, "Total geral R$ 9.870.000,00"), "c").document
    store.add(parsed("other.txt", "school meal supplier billed twice"), "c")

    fallback = store.best_passages(annex.document_id, "school meal supplier billed twice", 2)
    matched = store.best_passages(annex.document_id, "total geral", 2)

    assert [h.passage_id for h in fallback] == [
        h.passage_id for h in store.best_passages(annex.document_id, "", 2)
    ]
    assert len(fallback) == 2
    assert {h.document_id for h in fallback} == {annex.document_id}
    assert fallback[0].page == 1 and fallback[0].text.startswith("Item 001")
    assert matched[0].page == 2 and "Total geral" in matched[0].text


def test_best_passages_of_an_unknown_or_empty_document_are_none(store: DocumentStore) -> None:
    scan = parsed("scan.txt", "", unreadable=(UnreadablePage(1, "no text layer"),))
    empty = store.add(scan, "c").document

    assert store.best_passages(empty.document_id, "anything") == []
    assert store.best_passages("no-such-id", "anything") == []
    assert empty.unreadable == (UnreadablePage(1, "no text layer"),)
    assert empty.passages == 0


def test_remove_a_document_by_name_or_id_and_a_whole_collection(
    store: DocumentStore, database_url: str
) -> None:
    a = store.add(parsed("a.txt", "shared words alpha"), "c").document
    store.add(parsed("b.txt", "shared words beta"), "c")
    store.add(parsed("c.txt", "shared words gamma"), "c")
    store.add(parsed("d.txt", "shared words delta"), "kept")

    assert store.remove("c", "b.txt") == 1
    assert store.remove("c", a.document_id) == 1
    assert store.remove("c", "missing.txt") == 0
    assert {h.file_name for h in store.search("shared", ["c", "kept"])} == {"c.txt", "d.txt"}
    fts_in_sync(database_url)

    assert store.remove("c") == 1
    assert "c" not in store.collections()
    assert store.search("shared", ["c"]) == []
    assert [d.file_name for d in store.documents()] == ["d.txt"]
    assert passage_count(database_url) == 1
    fts_in_sync(database_url)


def test_passage_ids_are_never_reused_after_a_removal(store: DocumentStore) -> None:
    first = store.add(parsed("a.txt", "unique zebra words"), "c")
    (old,) = store.search("zebra", ["c"])
    store.remove("c", first.document.document_id)
    store.add(parsed("b.txt", "unique zebra words again"), "c")
    (new,) = store.search("zebra", ["c"])

    assert new.passage_id > old.passage_id


HOSTILE = [
    'NEAR(a b) "unterminated',
    '"',
    "*",
    "-budget",
    "text:budget",
    "budget AND OR NOT",
    "a* OR (b",
    "^budget",
    "{text}: budget",
    "'; DROP TABLE passages; --",
    "\x00budget\x00",
    "budget" * 400,
    "...",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_query_text_never_errors(store: DocumentStore, query: str) -> None:
    store.add(parsed("a.txt", "the budget was approved, text and NEAR words included"), "c")

    hits = store.search(query, ["c"])

    assert isinstance(hits, list)
    assert store.best_passages(store.documents("c")[0].document_id, query)


def test_hostile_query_words_still_match_as_words(store: DocumentStore) -> None:
    store.add(parsed("a.txt", "the budget was approved"), "c")

    assert [h.file_name for h in store.search('-budget "NEAR(', ["c"])] == ["a.txt"]


def test_an_empty_or_stop_word_query_finds_nothing(store: DocumentStore) -> None:
    store.add(parsed("a.txt", "the and of a o que de"), "c")

    assert store.search("", ["c"]) == []
    assert store.search("the and of", ["c"]) == []
    assert store.search("o que de", ["c"]) == []


def test_query_terms_are_quoted_and_or_ed() -> None:
    assert query_terms('The "Budget" of NEAR(2024)!') == ["budget", "near", "2024"]
    assert fts5_match(["budget", 'a"b']) == '"budget" OR "a""b"'


def test_collections_are_created_on_first_add_with_their_reliability(
    store: DocumentStore,
) -> None:
    store.add(parsed("a.txt", "one"), "plain")
    store.add(parsed("b.txt", "two"), "official", "high")
    document = store.add(parsed("c.txt", "three"), "plain", "low").document

    assert store.collections() == {"official": "high", "plain": "low"}
    assert document.reliability == "low"
    with pytest.raises(ValueError):
        store.add(parsed("d.txt", "four"), "   ")
    with pytest.raises(ValueError):
        store.add(parsed("d.txt", "four"), "c", "trusted")  # type: ignore[arg-type]


def test_documents_carry_their_names_and_synonyms(store: DocumentStore) -> None:
    doc = parsed("Anexo_II.txt", "tabela", title="Anexo II - Planilha de custos")
    doc.metadata_title = "Contrato nº 002/2024"
    doc.first_heading = "ANEXO II"
    info = store.add(doc, "c").document

    assert store.get(info.document_id) == info
    assert info.metadata_title == "Contrato nº 002/2024"
    assert {"anexo ii", "anexo 2", "annex ii", "annex 2", "contrato 002/2024"} <= set(info.synonyms)
    assert store.get("missing") is None


def test_name_normalization() -> None:
    assert normalize_name("Contrato nº 002/2024") == "contrato 002/2024"
    assert normalize_name("Lei n. 8.666/1993") == "lei 8.666/1993"
    assert normalize_name("Decreto No. 10.024, de 2019") == "decreto 10.024 de 2019"
    assert normalize_name("Licitação-Pública") == "licitacao publica"
    assert "lei 8666/1993" in name_variants("Lei nº 8.666/1993")
    assert set(name_variants("Annex 4")) == {"annex 4", "annex iv", "anexo 4", "anexo iv"}
    assert name_variants("Anexo LX") == ["anexo lx", "annex lx"]  # beyond L: not a part number
    assert synonyms(file_name="contrato-002-2024.pdf")[:2] == (
        "contrato 002-2024",
        "contrato 002/2024",
    )


def test_page_text_is_rebuilt_from_overlapping_passages(store: DocumentStore) -> None:
    page = " ".join(f"Paragraph {n} states figure {n * 7}." for n in range(300))
    document = store.add(parsed("long.txt", "short first page", page), "c").document

    assert document.passages > 3
    assert store.page_text(document.document_id, 2) == page
    assert store.page_text(document.document_id, 1) == "short first page"
    assert store.page_text(document.document_id, 9) is None


def test_thousands_of_passages_go_in_one_batch(store: DocumentStore, database_url: str) -> None:
    pages = [f"Page {n}: " + LONG for n in range(1, 301)]
    document = store.add(parsed("big.txt", *pages), "big").document

    assert document.passages == passage_count(database_url) > 1500
    (hit,) = store.search("Page 217", ["big"], document_ids=[document.document_id], limit=1)
    assert hit.page == 217
    fts_in_sync(database_url)


def test_tables_live_in_the_records_database(store: DocumentStore, database_url: str) -> None:
    store.add(parsed("a.txt", "hello"), "c")

    engine = create_engine(database_url)
    try:
        names = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert {"collections", "documents", "passages", "investigations"} <= names
    if engine.dialect.name == "sqlite":
        assert "passages_fts" in names


def test_a_new_store_object_reads_what_another_wrote(database_url: str) -> None:
    DocumentStore(database_url).add(parsed("a.txt", "persisted words"), "c")

    assert [h.file_name for h in DocumentStore(database_url).search("persisted", ["c"])] == [
        "a.txt"
    ]


def test_a_word_in_most_passages_is_not_searched_beside_rarer_words(
    store: DocumentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fulltext, "_COMMON_TERM_ROWS", 1)  # as in a collection of 100,000
    for n in range(6):
        store.add(parsed(f"{n}.txt", f"Maceió merenda report number {n}."), "c")
    store.add(parsed("contract.txt", "Maceió contrato 002/2024 of the merenda."), "c")

    names = [h.file_name for h in store.search("maceio contrato", ["c"])]
    if get_repository(store.database_url).dialect == "sqlite":
        assert names == ["contract.txt"]
    else:  # PostgreSQL keeps no vocabulary to count terms in: the common word only ranks lower
        assert names[0] == "contract.txt"
    assert len(store.search("Maceió merenda", ["c"], limit=50)) == 7  # alone, it is searched
    scoped = store.search(
        "maceio contrato", ["c"], document_ids=[store.documents("c")[0].document_id]
    )
    assert len(scoped) == 1  # within one document every word counts


def test_a_small_collection_is_found_under_a_big_one_that_matches_better(
    store: DocumentStore,
) -> None:
    for n in range(50):
        store.add(parsed(f"big{n}.txt", f"budget budget budget report {n}"), "big")
    store.add(
        parsed("small.txt", "the budget, once, among many other words of a long memo"), "small"
    )
    store.add(parsed("other.txt", "nothing to see"), "small")

    assert [h.file_name for h in store.search("budget", ["small"], limit=8)] == ["small.txt"]
    both = store.search("budget", ["small", "big"], limit=60)
    assert len(both) == 51 and both[-1].file_name == "small.txt"
    ranked = store.search("budget", ["big"], limit=3)
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)


# --- what parsers hand the store: no character a database refuses ---------------------------


def test_a_pdf_titled_with_a_nul_is_added_and_searchable_titled_without_it(
    store: DocumentStore, tmp_path: Path
) -> None:
    # ImageMagick writes such titles; PostgreSQL refuses any text holding a NUL
    path = gen.text_pdf(
        tmp_path / "scan.pdf", ["Inspectors counted 77 burst pipes in Riverton."], title="scan\x00"
    )
    document = store.add(parse_file(path, Settings(_env_file=None)), "c").document

    assert (document.title, document.metadata_title) == ("scan", "scan")
    assert [d.title for d in store.documents("c")] == ["scan"]
    [hit] = store.search("burst pipes", ["c"])
    assert (hit.title, hit.page) == ("scan", 1)
    assert "scan" in document.synonyms


def test_controls_in_a_file_name_and_its_text_never_reach_the_database(
    store: DocumentStore,
) -> None:
    data = "Budget\x00 line\x01 for the school\x85meals 😀 paid.".encode()
    parsed_file = parse_bytes(data, "notes\x00\x1b[31m.txt", settings=Settings(_env_file=None))
    document = store.add(parsed_file, "c").document

    assert document.file_name == "notes[31m.txt"
    [hit] = store.search("school meals", ["c"])
    assert hit.text == "Budget line for the school\nmeals 😀 paid."


def test_a_file_named_in_a_legacy_encoding_is_added_under_a_name_that_shows_its_bytes(
    store: DocumentStore, tmp_path: Path
) -> None:
    # Python reads a file name that is not UTF-8 with lone surrogates; no database stores those
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9 da merenda.txt"))
    path.write_text("Relatório sobre a merenda escolar de 2024.")
    document = store.add(parse_file(path, Settings(_env_file=None)), "c").document

    assert document.file_name == "caf\\xe9 da merenda.txt"
    assert document.path == f"{tmp_path}/caf\\xe9 da merenda.txt"
    assert [h.file_name for h in store.search("merenda escolar", ["c"])] == [document.file_name]
    assert store.remove("c", document.path) == 1
