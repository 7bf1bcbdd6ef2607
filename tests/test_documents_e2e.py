"""Acceptance: `vicaran docs add` a folder, then a brief naming `Collection: NAME` runs end to
end with the scripted model - the plan lists the documents, the claim is decided from a passage
two references away, and the report cites it as [N, p. P] with the passage's snapshot."""

from __future__ import annotations

from pathlib import Path

from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.documents import (
    CHAIN_FIGURE,
    CHAIN_FIGURE_PAGE,
    CHAIN_FILES,
    CHAIN_TITLES,
    FACT_PAGE,
    chain_documents,
    thirty_page_pdf,
)
from tests.support.records import as_json
from vicaran_agent import cli
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.storage import get_repository

MARKER = "[PLAN_APPROVAL_REQUIRED]"
CLAIM = f"The annual value of agreement 002/2024 for drugs reached {CHAIN_FIGURE}."
BRIEF = (
    "Quick Search. Audit of the Santa Luzia regional hospital's medicine purchases.\n"
    f"{CLAIM}\nCollection: auditoria"
)


def add_chain(tmp_path: Path, capsys) -> None:
    chain_documents(tmp_path / "chain")
    code = cli.main(
        [
            "docs",
            "add",
            str(tmp_path / "chain"),
            "--collection",
            "auditoria",
            "--reliability",
            "high",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("added") >= 3


async def test_docs_add_and_a_collection_brief_run_end_to_end(env, tmp_path, capsys):
    add_chain(tmp_path, capsys)
    env.services.tavily.overrides = lambda query, body: []
    conversation = Conversation()
    planned = await conversation.send(BRIEF)
    plan = conversation.texts(planned)[-1]
    assert plan.rstrip().endswith(MARKER)
    for title in CHAIN_TITLES.values():
        assert title in plan  # the plan lists every document of the collection

    run = await conversation.send("APPROVED")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] in ("completed", "partial"), state[keys.PARTIAL_REASON]

    verdicts = state[keys.VERDICT_RECORDS]
    decided = next(v for v in verdicts if CHAIN_FIGURE in v["claim_text"])
    assert decided["verdict"] == "verified", decided["explanation"]
    annex = next(
        e for e in decided["evidence"] if e["stance"] == "supports" and e["origin"] == "document"
    )
    assert annex["page"] == CHAIN_FIGURE_PAGE and CHAIN_FIGURE in annex["quote"]
    # A document is weighed passage by passage, each with its page, never as its digest.
    documents = {s["url"] for s in state[keys.SOURCE_RECORDS] if s["origin"] == "document"}
    assert not [e for e in decided["evidence"] if e["url"] in documents]

    # The report cites the annex with its page, and lists the page linked to the passage read.
    report = state[keys.INVESTIGATION_SUMMARY]
    sources = state[keys.SOURCE_RECORDS]
    number = 1 + next(i for i, s in enumerate(sources) if s["document_id"] == annex["document_id"])
    assert f"[{number}, p. {CHAIN_FIGURE_PAGE}]" in report
    listed = next(line for line in report.splitlines() if line.startswith(f"- [{number}] "))
    assert f"p. {CHAIN_FIGURE_PAGE}" in listed and annex["content_sha256"] in listed
    assert "doc://" not in report

    # Saved: the read API returns the page, the passage snapshot and the reasoning log.
    saved = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    evidence = [e for fc in saved["fact_checks"] for e in fc["evidence"]]
    assert any(e["page"] == CHAIN_FIGURE_PAGE and e["origin"] == "document" for e in evidence)
    repository = get_repository(get_settings().database_url)
    assert CHAIN_FIGURE in (repository.get_snapshot_text(annex["content_sha256"]) or "")

    # No document text reached the web services; progress showed what was read.
    sent = " ".join(
        r.raw_path + r.body.decode("utf-8", "replace")
        for service in (env.services.tavily, env.services.jina)
        for r in service.requests
    )
    for fragment in ("Planilha", "CLÁUSULA", "Vale Verde", "Dipirona"):
        assert fragment not in sent
    # Claims only the documents make are checked against them alone, and the log says why.
    private = [v for v in verdicts if CHAIN_FIGURE not in v["claim_text"]]
    assert private and all("🔒" in " ".join(v["reasoning"]) for v in private)
    assert any(CHAIN_FILES["C"] in t or CHAIN_TITLES["C"] in t for t in conversation.texts(run))


async def test_without_a_search_key_the_run_uses_the_documents_only(env, tmp_path, capsys):
    add_chain(tmp_path, capsys)
    env.set(TAVILY_API_KEY="")
    conversation = Conversation()
    plan = conversation.texts(await conversation.send(BRIEF))[-1]
    assert "runs only on your documents and the links you gave" in plan, plan
    await conversation.send("APPROVED")
    state = await conversation.state()
    decided = next(v for v in state[keys.VERDICT_RECORDS] if CHAIN_FIGURE in v["claim_text"])
    assert decided["verdict"] == "verified"
    assert not env.services.tavily.requests
    assert scripted_model.calls_for("ClaimAssessment")


def test_a_fact_on_page_17_of_a_30_page_pdf_is_found_and_shown_with_its_page(env, tmp_path, capsys):
    thirty_page_pdf(tmp_path / "inspections.pdf")
    assert cli.main(["docs", "add", str(tmp_path / "inspections.pdf"), "--collection", "w"]) == 0
    capsys.readouterr()
    assert cli.main(["docs", "search", "burst water mains Riverton", "--collection", "w"]) == 0
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if "p. " in line)
    assert f"p. {FACT_PAGE}" in first and "4,812" in out
