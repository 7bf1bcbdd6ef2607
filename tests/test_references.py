"""References in documents: detection, the document registry, and following them within limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from vicaran_agent.documents.model import DocumentInfo
from vicaran_agent.documents.names import fold
from vicaran_agent.documents.references import detect_references, references_from_model
from vicaran_agent.documents.registry import DocumentRegistry


def _targets(text: str) -> list[tuple[str, str]]:
    return [(r.kind, r.target) for r in detect_references(text)]


# --- detection -------------------------------------------------------------------------------


def test_portuguese_references_are_detected_and_normalized():
    text = (
        "O pagamento seguiu o art. 75, inciso II, da Lei nº 14.133, de 1º de abril de 2021, "
        "e o Decreto nº 10.024/2019. Ver Portaria n° 1.234/2020 e o Contrato nº 002/2024, "
        "conforme Anexo II. Processo SEI nº 23000.123456/2020-11. Lei 8.666/93."
    )
    found = _targets(text)
    assert found == [
        ("legal_section", "Art. 75"),
        ("law", "Lei 14.133/2021"),
        ("decree", "Decreto 10.024/2019"),
        ("ordinance", "Portaria 1.234/2020"),
        ("contract", "Contrato 002/2024"),
        ("annex", "Anexo II"),
        ("process", "Processo SEI 23000.123456/2020-11"),
        ("law", "Lei 8.666/1993"),
    ]
    article = detect_references(text)[0]
    assert article.within == "Lei 14.133/2021"  # the act the article belongs to


def test_english_references_are_detected():
    text = (
        "Under Section 12 of the Act, the city signed Contract No. 2024-17 (see Annex 3 and "
        "Appendix B). Executive Order 14028 applies; details at https://example.org/report.pdf."
    )
    assert _targets(text) == [
        ("legal_section", "Section 12"),
        ("contract", "Contract 2024-17"),
        ("annex", "Annex 3"),
        ("annex", "Appendix B"),
        ("decree", "Executive Order 14028"),
        ("url", "https://example.org/report.pdf"),
    ]


def test_offsets_point_at_what_was_written():
    text = "Segundo o relatório, o Contrato nº 002/2024 foi assinado. Veja https://x.example/a."
    for reference in detect_references(text):
        assert text[reference.offset :].startswith(reference.text)
    contract, url = detect_references(text)
    assert contract.text == "Contrato nº 002/2024"
    assert url.text == "https://x.example/a"


def test_references_are_deduplicated_by_kind_and_normalized_target():
    text = (
        "Contrato nº 002/2024 ... contrato 2/2024 ... CONTRATO N.º 002/2024. Lei 14133/2021 e "
        "Lei nº 14.133/2021. Anexo II, anexo II."
    )
    found = detect_references(text)
    assert [(r.kind, r.target) for r in found] == [
        ("contract", "Contrato 002/2024"),
        ("law", "Lei 14133/2021"),
        ("annex", "Anexo II"),
    ]
    assert found[0].offset == 0  # the first occurrence is kept


def test_document_titles_are_detected_conservatively():
    text = (
        "Os valores estão conforme o Relatório de Auditoria nº 15/2023 da CGU. "
        "Veja também a tabela abaixo; conforme dito antes, nada mudou. "
        'See "Water Quality Review 2023" and see Table 3.'
    )
    assert _targets(text) == [
        ("document", "Relatório de Auditoria nº 15/2023 da CGU"),
        ("document", "Water Quality Review 2023"),
    ]


def test_words_that_only_look_like_references_are_not_references():
    text = (
        "A arte 5 estrelas; um anexo importante; Anexo Individual; the article said; "
        "in case 2 of them; the section below; sei que a lei é clara."
    )
    assert detect_references(text) == []


def test_a_megabyte_of_adversarial_text_is_scanned_with_a_bounded_result():
    pieces = [
        "1." * 50_000,
        "nº " * 50_000,
        "Contrato nº " + "1.1." * 20_000,
        "Lei nº " * 20_000,
        "Anexo " * 20_000,
        "see Aa " * 20_000,
        "Art. 1 " * 10_000,
        "https://" * 10_000,
        "".join(f"Contrato nº {i}/2024 " for i in range(20_000)),
    ]
    text = " ".join(pieces)[:1_000_000]
    assert len(text) == 1_000_000
    found = detect_references(text)
    assert 0 < len(found) <= 100
    assert len({(r.kind, fold(r.target)) for r in found}) == len(found)


def test_references_the_model_lists_get_a_kind():
    found = references_from_model(
        [
            "Contrato nº 002/2024",
            "Anexo II",
            "https://example.org/x",
            "Relatório Final da Comissão",
            "  ",
        ]
    )
    assert [(r.kind, r.target) for r in found] == [
        ("contract", "Contrato 002/2024"),
        ("annex", "Anexo II"),
        ("url", "https://example.org/x"),
        ("document", "Relatório Final da Comissão"),
    ]
    assert all(r.offset == -1 for r in found)


def test_fold_drops_accents_case_numbering_words_and_reads_annex_numerals():
    assert fold("Contrato nº 002/2024") == "contrato 2 2024"
    assert fold("contrato-002-2024") == "contrato 2 2024"
    assert fold("Lei 14.133/2021") == fold("LEI N. 14133/2021") == "lei 14133 2021"
    assert fold("ANEXO II — Planilha") == fold("Anexo 2 - planilha") == "anexo 2 planilha"
    assert fold("Relatório de Gestão") == "relatorio de gestao"
    assert fold("gastos no município") == "gastos no municipio"  # "no" only before a number


@pytest.mark.parametrize("text", ["", "   ", "sem referências aqui"])
def test_text_without_references(text):
    assert detect_references(text) == []


# --- the document registry -------------------------------------------------------------------


@dataclass(frozen=True)
class _Doc(DocumentInfo):
    """A document as the store may describe it, with synonyms."""

    synonyms: tuple[str, ...] = ()


def doc(document_id: str, file_name: str, title: str = "", **fields: object) -> _Doc:
    values: dict[str, Any] = {
        "collection": "caso",
        "kind": "pdf",
        "page_count": 1,
        "language": "pt-BR",
        "sha256": document_id,
        "title": title or file_name.rsplit(".", 1)[0],
        **fields,
    }
    return _Doc(document_id=document_id, file_name=file_name, **values)


def test_exact_beats_fuzzy_beats_substring():
    exact = doc("e", "contrato-002-2024.pdf", "Prestação de serviços de limpeza")
    mention = doc("s", "relatorio.pdf", "Relatório sobre o Contrato nº 002/2024 e aditivos")
    registry = DocumentRegistry([mention, exact])
    found = registry.resolve("Contrato 002/2024")
    assert (found.document, found.how, found.matched, found.score) == (
        exact,
        "exact",
        "file name",
        1.0,
    )

    similar = doc("f", "rag.pdf", "Relatório Anual da Gestão 2023")
    longer = doc(
        "l", "resumo.pdf", "Relatório Anual de Gestão 2023 - Resumo para o conselho fiscal"
    )
    found = DocumentRegistry([longer, similar]).resolve("Relatorio Anual de Gestao 2023")
    assert (found.document, found.how) == (similar, "fuzzy")
    assert 0.7 <= found.score < 1

    found = DocumentRegistry([longer]).resolve("Relatório Anual de Gestão 2023")
    assert (found.document, found.how) == (longer, "substring")


def test_titles_headings_synonyms_and_numerals_all_name_a_document():
    law = doc(
        "law", "l14133.pdf", "Lei nº 14.133, de 1º de abril de 2021", first_heading="LICITAÇÕES"
    )
    annex = doc("annex", "scan-0042.pdf", "scan-0042", metadata_title="Annex II")
    limpeza = doc("c", "c.pdf", "Termo", synonyms=("Contrato de Limpeza Urbana",))
    registry = DocumentRegistry([law, annex, limpeza])
    assert registry.resolve("Licitações").document == law
    assert registry.resolve("Annex 2").document == annex
    assert registry.resolve("contrato de limpeza urbana").matched == "synonym"


def test_a_near_miss_on_a_number_is_not_a_match():
    registry = DocumentRegistry([doc("c2", "contrato-002-2024.pdf", "Contrato nº 002/2024")])
    assert registry.resolve("Contrato 003/2024") is None
    assert registry.resolve("Contrato 002/2023") is None
    assert registry.resolve("Anexo") is None


def test_a_document_never_resolves_to_itself():
    contract = doc("c2", "contrato-002-2024.pdf", "Contrato nº 002/2024")
    copy = doc("c2b", "contrato 002 2024 (copia).pdf", "Cópia do Contrato nº 002/2024")
    registry = DocumentRegistry([contract, copy])
    assert registry.resolve("Contrato 002/2024").document == contract
    assert registry.resolve("Contrato 002/2024", context=contract).document == copy
    assert DocumentRegistry([contract]).resolve("Contrato 002/2024", context=contract) is None


def test_an_annex_resolves_to_the_one_of_the_referring_contract():
    ours = doc("a1", "anexo-ii.pdf", "Anexo II - Planilha de custos do Contrato 002/2024")
    theirs = doc("a2", "anexo-ii.pdf", "Anexo II - Cronograma do Contrato 005/2023")
    contract = doc("c2", "contrato-002-2024.pdf", "Contrato nº 002/2024")
    other = doc("c5", "contrato-005-2023.pdf", "Contrato nº 005/2023")
    registry = DocumentRegistry([theirs, ours, contract, other])
    assert registry.resolve("Anexo II", context=contract).document == ours
    assert registry.resolve("Anexo II", context=other).document == theirs
    # an annex titled only "Anexo II" (another contract's) does not win on its exact title
    bare = doc("a3", "anexo-ii.pdf", "Anexo II", path="/outro/anexo-ii.pdf")
    planilha = doc("a4", "planilha.pdf", "Anexo II - Planilha de custos do Contrato 002/2024")
    registry = DocumentRegistry([bare, planilha, contract])
    assert registry.resolve("Anexo II", context=contract).document == planilha
    assert registry.resolve("Anexo II").document == bare
