"""The journalist's documents as evidence: passages with pages, references followed A → B → C,
conflicts with the web stated, and no document text sent to any web service."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import scripted_model
from tests.support.documents import (
    CHAIN_FIGURE,
    CHAIN_FIGURE_PAGE,
    CHAIN_FILES,
    chain_documents,
    text_pdf,
)
from vicaran_agent.clients.fact_check_api import FactCheckApi
from vicaran_agent.clients.querido_diario import QueridoDiario
from vicaran_agent.config import get_settings
from vicaran_agent.documents.collection import Reader
from vicaran_agent.documents.parse import parse_file
from vicaran_agent.documents.store import get_document_store
from vicaran_agent.factcheck.checker import CheckSettings, ClaimChecker
from vicaran_agent.factcheck.documents import DocumentEvidence
from vicaran_agent.factcheck.outlets import ENGLISH_OUTLETS
from vicaran_agent.llm import ModelClient
from vicaran_agent.prompts.fact_checker import FACT_CHECKER_INSTRUCTION
from vicaran_agent.runtime import investigation_runtime
from vicaran_agent.schemas import Claim

# The scripted model decides a claim on its figure: the annex states it, few words match.
CLAIM = f"The annual value of agreement 002/2024 for drugs reached {CHAIN_FIGURE}"
QUERY = "hospital medicine purchase single contract"  # finds the audit report (doc A) only


@dataclass
class Docs:
    env: object
    check: Callable[..., object]
    ids: dict[str, str]  # file name -> document id


def add_folder(folder: Path, collection: str, reliability: str = "neutral") -> dict[str, str]:
    store = get_document_store(get_settings().database_url)
    ids = {}
    for path in sorted(folder.iterdir()):
        outcome = store.add(parse_file(path), collection, reliability)  # type: ignore[arg-type]
        ids[path.name] = outcome.document.document_id
    return ids


@pytest.fixture
async def docs(env, tmp_path: Path) -> AsyncIterator[Docs]:
    env.set(VICARAN_PAGES_PER_CLAIM="0", VICARAN_DOCUMENT_PASSAGES_PER_CLAIM="1")
    env.services.tavily.overrides = lambda query, body: []
    chain_documents(tmp_path / "chain")
    ids = add_folder(tmp_path / "chain", "auditoria", "high")
    async with investigation_runtime("documents-test", get_settings()) as runtime:

        async def check(
            claim_text: str = CLAIM,
            queries: tuple[str, ...] = (QUERY,),
            cap: int = 2,
            model_name: str = "scripted/default",
            source_urls: list[str] | None = None,
            city: str = "",
        ) -> tuple[ClaimChecker, object]:
            settings = get_settings()
            model = ModelClient(model_name, settings)
            shared = CheckSettings(
                settings=settings,
                model=model,
                instruction=FACT_CHECKER_INSTRUCTION,
                language="en",
                cap=cap,
                sources=[],
                runtime=runtime,
                factcheck=FactCheckApi(settings, backoff_base=0.01),
                outlets=list(ENGLISH_OUTLETS),
                gazettes=QueridoDiario(settings) if city else None,
                documents=await DocumentEvidence.open(
                    settings,
                    ["auditoria"],
                    model=model,
                    language="en",
                    read_url=runtime.pages.read,
                    reader=Reader("journalist", "documents-test"),
                ),
            )
            claim = Claim(
                key="C1",
                claim_text=claim_text,
                importance=0.9,
                queries=list(queries),
                source_urls=source_urls or [],
                city=city,
            )
            lines: list[str] = []
            checker = ClaimChecker(shared, claim, emit=lines.append)
            verdict = await checker.run()
            return checker, (verdict, lines)

        yield Docs(env, check, ids)


async def test_a_claim_is_decided_from_the_annex_two_references_away_with_its_page(docs):
    checker, (verdict, lines) = await docs.check()
    annex = docs.ids[CHAIN_FILES["C"]]
    decisive = [e for e in verdict.evidence if e.document_id == annex and e.stance == "supports"]
    assert verdict.verdict == "verified", verdict.explanation
    assert decisive and decisive[0].page == CHAIN_FIGURE_PAGE
    assert CHAIN_FIGURE in decisive[0].quote
    assert decisive[0].origin == "document" and decisive[0].reliability == "high"
    # The path is logged in order: the report cites the contract, the contract its annex.
    a, b, c = (CHAIN_FILES[k] for k in "ABC")
    to_b = next(i for i, line in enumerate(checker.reasoning) if a in line and b in line)
    to_c = next(i for i, line in enumerate(checker.reasoning) if b in line and c in line)
    assert to_b < to_c
    assert [line for line in lines if line in checker.reasoning] == checker.reasoning
    assert verdict.reasoning == checker.reasoning  # saved with the verdict


async def test_without_following_the_annex_is_never_read(docs):
    docs.env.set(VICARAN_REFERENCE_DEPTH="0")
    _, (verdict, _) = await docs.check(cap=1)  # one round: the query alone finds only doc A
    annex = docs.ids[CHAIN_FILES["C"]]
    assert verdict.verdict == "unverified"
    assert not any(e.document_id == annex for e in verdict.evidence)


async def test_the_gate_is_asked_once_per_depth_level(docs):
    scripted_model.reset_calls()
    await docs.check()
    gates = scripted_model.calls_for("ReferenceGate")
    assert 1 <= len(gates) <= 2  # depth 1 (A → B) and depth 2 (B → C), never per reference


async def test_references_are_followed_while_the_round_is_judged_not_after_it(docs):
    scripted_model.reset_calls()
    model = "scripted/latency-50+ClaimAssessment-waits-for-ReferenceGate"
    _, (verdict, _) = await docs.check(model_name=model)
    first_judgement = scripted_model.calls_for("ClaimAssessment")[0]
    first_gate = scripted_model.calls_for("ReferenceGate")[0]
    # the gate did not wait for the judgement (it may even be done before the judge starts)
    assert first_gate["start"] < first_judgement["end"]
    assert verdict.verdict == "verified"  # what was followed joined the next round


async def test_a_claim_the_web_supports_and_a_document_refutes_ends_with_the_conflict(
    docs, tmp_path: Path
):
    claim = "Riverton's water utility replaced 1,250 lead pipes in 2024"
    folder = tmp_path / "utility"
    folder.mkdir()
    text_pdf(
        folder / "relatorio_anual.pdf",
        [
            "Relatório anual da companhia de águas de Riverton.",
            "Riverton's water utility replaced 1,250 lead pipes in 2024 is false: the utility "
            "replaced 310 lead pipes in 2024, the annual report's audited table shows.",
        ],
        title="Relatório anual 2024",
    )
    add_folder(folder, "auditoria", "high")
    docs.env.services.tavily.overrides = lambda query, body: [
        {
            "url": "https://www.reuters.com/water/riverton",
            "title": "Riverton",
            "content": f"Officials said {claim}.",
            "score": 0.9,
        }
    ]
    _, (verdict, _) = await docs.check(claim, (claim,))
    stances = {(e.origin, e.stance) for e in verdict.evidence}
    assert ("document", "refutes") in stances and ("web", "supports") in stances
    assert "high-reliability sources conflict" in verdict.explanation
    refuting = next(e for e in verdict.evidence if e.origin == "document")
    assert refuting.page == 2


async def test_no_document_text_reaches_the_search_or_page_reading_services(docs):
    await docs.check()
    await docs.check("Vale Verde supplied the hospital under contract 002/2024", ("Vale Verde",))
    sent = [
        r.raw_path + r.body.decode("utf-8", "replace")
        for service in (docs.env.services.tavily, docs.env.services.jina)
        for r in service.requests
    ]
    assert docs.env.services.tavily.requests  # the web was searched
    for fragment in ("Planilha", "CLÁUSULA", "Anexo II", "conforme", "Dipirona"):
        assert not any(fragment.lower() in s.lower() for s in sent), fragment


async def test_a_claim_only_documents_make_stays_off_the_web_and_one_with_a_web_source_does_not(
    docs,
):
    report = f"doc://{docs.ids[CHAIN_FILES['A']]}"
    for sources, searched in (([report], False), ([report, "https://apnews.com/a"], True)):
        docs.env.services.tavily.reset_log()
        _, (verdict, _) = await docs.check(source_urls=sources)
        assert bool(docs.env.services.tavily.requests) is searched
        assert ("🔒" in " ".join(verdict.reasoning)) is not searched


async def test_a_claim_only_documents_make_is_not_searched_in_the_gazettes_either(docs):
    report = f"doc://{docs.ids[CHAIN_FILES['A']]}"
    await docs.check(source_urls=[report], city="Porto Alegre")
    assert not [r for r in docs.env.services.querido_diario.requests if r.path == "/gazettes"]
    await docs.check(source_urls=[report, "https://apnews.com/a"], city="Porto Alegre")
    assert [r for r in docs.env.services.querido_diario.requests if r.path == "/gazettes"]


async def test_each_round_reads_at_most_the_passages_per_claim_over_all_its_queries(docs):
    docs.env.set(VICARAN_REFERENCE_DEPTH="0")
    checker, _ = await docs.check(queries=(QUERY, "Contrato 002/2024 CLÁUSULA"), cap=1)
    found = [c for c in checker.pool.items if c.query in (QUERY, "Contrato 002/2024 CLÁUSULA")]
    assert len(found) == 1  # VICARAN_DOCUMENT_PASSAGES_PER_CLAIM=1
