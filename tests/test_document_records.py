"""Document evidence and the verdict's reasoning log through the records: the store, the read
API, the callback API (both directions), the dashboard and the exports."""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from markupsafe import escape

from tests.support.callback_server import CallbackServer
from tests.support.outbox import drain
from tests.support.records import as_json
from tests.support.store import dashboard_client, fresh_repository, panel, snapshot_href
from vicaran_agent import export
from vicaran_agent.callbacks.persistence import rested_on
from vicaran_agent.config import forget_settings, get_settings
from vicaran_agent.schemas import (
    REASONING_LINE_MAX,
    REASONING_LINES_MAX,
    Claim,
    Evidence,
    InvestigationConfig,
    Source,
    Verdict,
)
from vicaran_agent.storage import Repository
from vicaran_agent.storage.outbox import queue_for_callback
from vicaran_agent.textmatch import sha256_text

XSS = "<script>alert(1)</script>"
ESCAPED_XSS = "&lt;script&gt;alert(1)&lt;/script&gt;"
DOC_ID = "0f3a9c2e"
PASSAGE = "Anexo II. Valor total do contrato: R$ 4.200.000,00, pago em 12 parcelas."
DOCUMENT_TEXT = "Contrato 002/2024 entre a Prefeitura e a Construtora Rio Claro.\n" + PASSAGE
REASONING = [
    "Followed 'Contrato 002/2024' in Relatório de auditoria, p. 3 → Contrato 002/2024",
    f"Followed 'Anexo II' in Contrato 002/2024, p. 9 → Anexo II {XSS}",
]


def document_source(**changes: object) -> Source:
    data: dict[str, object] = {
        "url": f"doc://{DOC_ID}",
        "title": "Contrato 002/2024",
        "domain": "contrato-002-2024.pdf",
        "publisher": "contrato-002-2024.pdf",
        "credibility_score": 4,
        "content_summary": "The contract for the Riverton bridge.",
        "content_sha256": sha256_text(DOCUMENT_TEXT),
        "origin": "document",
        "document_id": DOC_ID,
        "page": 1,
    }
    return Source.model_validate({**data, **changes})


def document_evidence(**changes: object) -> Evidence:
    data: dict[str, object] = {
        "url": f"doc://{DOC_ID}/p4/17",
        "title": "Contrato 002/2024",
        "publisher": "contrato-002-2024.pdf",
        "reliability": "high",
        "stance": "refutes",
        "snippet": PASSAGE,
        "quote": "Valor total do contrato: R$ 4.200.000,00",
        "query": "valor total contrato ponte",
        "origin": "document",
        "content_sha256": sha256_text(PASSAGE),
        "document_id": DOC_ID,
        "page": 4,
    }
    return Evidence.model_validate({**data, **changes})


def web_evidence() -> Evidence:
    return Evidence(
        url="https://news.example/bridge",
        title="Bridge cost $4M",
        publisher="news.example",
        reliability="neutral",
        stance="supports",
        snippet="The bridge cost $4M.",
    )


def document_investigation(
    repo: Repository,
    *,
    source: Source | None = None,
    evidence: Evidence | None = None,
    reasoning: list[str] = REASONING,
) -> str:
    """An investigation with one document source, and a fact-check resting on a page of it."""
    config = InvestigationConfig.for_mode(
        "detailed",
        investigation_id=str(uuid.uuid4()),
        title="Riverton bridge",
        brief="Collection: riverton. How much did the bridge cost?",
        language="en",
    )
    repo.start_investigation(config)
    iid = config.investigation_id
    doc = source or document_source()
    ids = repo.save_sources(iid, [doc], {sha256_text(DOCUMENT_TEXT): DOCUMENT_TEXT})
    claim_ids = repo.save_claims(
        iid,
        [
            Claim(
                key="C1",
                claim_text="The bridge cost $4M.",
                importance=0.9,
                source_ids=[ids[doc.url]],
            )
        ],
    )
    verdict = Verdict(
        claim_key="C1",
        claim_text="The bridge cost $4M.",
        claim_id=claim_ids["C1"],
        verdict="misleading",
        confidence=0.8,
        explanation="The contract's annex says R$ 4.2M [1]; the news said $4M [2].",
        evidence=[evidence or document_evidence(), web_evidence()],
        source_ids=[ids[doc.url]],
        reasoning=list(reasoning),
    )
    repo.save_verdicts(iid, [verdict], {sha256_text(PASSAGE): PASSAGE})
    return iid


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


# --- the store and the read API -----------------------------------------------------------


def test_document_fields_and_the_reasoning_log_survive_the_store(repo: Repository) -> None:
    iid = document_investigation(repo)
    saved = as_json(repo.get_investigation(iid))
    assert saved is not None

    (source,) = saved["sources"]
    assert (source["origin"], source["document_id"], source["page"]) == ("document", DOC_ID, 1)
    assert Source.model_validate(source) == document_source(
        source_id=source["id"], display_url=f"doc://{DOC_ID}"
    )

    (check,) = saved["fact_checks"]
    assert check["reasoning"] == REASONING
    document, web = check["evidence"]
    assert (document["origin"], document["document_id"], document["page"]) == (
        "document",
        DOC_ID,
        4,
    )
    assert (web["origin"], web["document_id"], web["page"]) == ("web", None, None)
    assert repo.get_snapshot(iid, document["content_sha256"]) == PASSAGE


def test_a_verdict_saved_again_replaces_its_reasoning_log(repo: Repository) -> None:
    iid = document_investigation(repo)
    saved = as_json(repo.get_investigation(iid))
    assert saved is not None
    (check,) = saved["fact_checks"]
    again = Verdict.model_validate({**check, "reasoning": ["Searched the collection once."]})
    repo.save_verdicts(iid, [again])
    (check,) = as_json(repo.get_investigation(iid))["fact_checks"]  # type: ignore[index]
    assert check["reasoning"] == ["Searched the collection once."]


def test_a_fact_check_without_a_reasoning_log_reads_as_an_empty_list(repo: Repository) -> None:
    iid = document_investigation(repo)
    with sqlite3.connect(repo.database_url.removeprefix("sqlite:///")) as db:
        db.execute("UPDATE fact_checks SET reasoning = NULL")
    (check,) = as_json(repo.get_investigation(iid))["fact_checks"]  # type: ignore[index]
    assert check["reasoning"] == []


def test_the_reasoning_log_is_bounded() -> None:
    verdict = Verdict(
        claim_key="C1",
        claim_text="x",
        verdict="unverified",
        confidence=0,
        explanation="",
        reasoning=["  step\n one  ", "", *(f"line {n} " + "x" * 2_000 for n in range(500))],
    )
    assert verdict.reasoning[0] == "step one"  # one line, blank lines dropped
    assert len(verdict.reasoning) == REASONING_LINES_MAX
    assert all(len(line) <= REASONING_LINE_MAX for line in verdict.reasoning)


def test_an_older_database_gains_the_document_and_reasoning_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Repository(f"sqlite:///{path}").close()
    dropped = {"sources": ("document_id", "page"), "evidence": ("document_id", "page")}
    dropped["fact_checks"] = ("reasoning",)
    with sqlite3.connect(path) as db:  # a database from before migrations (and the columns)
        db.execute("DROP TABLE alembic_version")
        for table, columns in dropped.items():
            for column in columns:
                db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    repository = Repository(f"sqlite:///{path}")
    try:
        with sqlite3.connect(path) as db:
            for table, columns in dropped.items():
                have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
                assert set(columns) <= have, table
        iid = document_investigation(repository)  # and the upgraded store takes the new fields
        (check,) = as_json(repository.get_investigation(iid))["fact_checks"]  # type: ignore[index]
        assert check["reasoning"] == REASONING and check["evidence"][0]["page"] == 4
    finally:
        repository.close()


# --- the callback API: what Vicaran sends ---------------------------------------------------


def queued(repo: Repository, kind: str) -> list[dict[str, Any]]:
    with sqlite3.connect(repo.database_url.removeprefix("sqlite:///")) as db:
        rows = db.execute("SELECT data FROM callback_outbox WHERE type = ? ORDER BY id", (kind,))
        return [json.loads(data) for (data,) in rows]


def test_queued_payloads_carry_the_document_fields_and_the_reasoning_log(
    repo: Repository,
) -> None:
    with queue_for_callback():
        document_investigation(repo)
    (source,) = queued(repo, "SOURCE_FOUND")
    assert (source["url"], source["origin"]) == (f"doc://{DOC_ID}", "document")
    assert (source["document_id"], source["page"]) == (DOC_ID, 1)
    (check,) = queued(repo, "FACT_CHECKED")
    assert check["reasoning_log"] == REASONING
    document, web = check["evidence"]
    assert (document["origin"], document["document_id"], document["page"]) == (
        "document",
        DOC_ID,
        4,
    )
    assert {"document_id", "page"}.isdisjoint(web)  # optional fields: absent when unknown


def test_a_fact_check_without_reasoning_sends_no_reasoning_log(repo: Repository) -> None:
    with queue_for_callback():
        document_investigation(repo, reasoning=[])
    (check,) = queued(repo, "FACT_CHECKED")
    assert "reasoning_log" not in check and check["evidence"][0]["page"] == 4


@pytest.mark.timeout(120)
async def test_a_newsroom_running_vicaran_receives_and_keeps_the_document_fields(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = CallbackServer(tmp_path).start()
    try:
        monkeypatch.setenv("CALLBACK_API_URL", server.url)
        monkeypatch.setenv("AGENT_SECRET", server.secret)
        forget_settings()
        with queue_for_callback():
            iid = document_investigation(repo)
        await drain()
        summary = repo.outbox_summary()
        assert summary.counts.failed == 0, summary.failed
        assert summary.counts.pending == 0
        remote = server.investigation(iid)
    finally:
        server.stop()
    assert remote is not None
    (source,) = remote["sources"]
    assert (source["url"], source["origin"], source["document_id"], source["page"]) == (
        f"doc://{DOC_ID}",
        "document",
        DOC_ID,
        1,
    )
    (check,) = remote["fact_checks"]
    assert check["reasoning"] == REASONING
    document, web = check["evidence"]
    assert (document["url"], document["origin"], document["document_id"], document["page"]) == (
        f"doc://{DOC_ID}/p4/17",
        "document",
        DOC_ID,
        4,
    )
    assert (web["origin"], web["page"]) == ("web", None)


# --- the read API and the dashboard ----------------------------------------------------------


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    async with dashboard_client() as http:
        yield http


async def test_the_read_api_returns_the_document_fields_and_the_reasoning_log(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = document_investigation(repo)
    data = (await client.get(f"/api/investigations/{iid}")).json()
    (source,) = data["sources"]
    assert (source["origin"], source["document_id"], source["page"]) == ("document", DOC_ID, 1)
    (check,) = data["fact_checks"]
    assert check["reasoning"] == REASONING
    assert [(e["document_id"], e["page"]) for e in check["evidence"]] == [(DOC_ID, 4), (None, None)]


async def test_the_dashboard_shows_a_document_by_title_and_page_linking_its_passage(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = document_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    assert "doc://" not in page  # a document is never shown or linked as a web address

    sources = panel(page, "sources")
    assert f"{snapshot_href(iid, DOCUMENT_TEXT)} " in sources
    assert ">📄 Contrato 002/2024, p. 1</a>" in sources
    assert "contrato-002-2024.pdf" in sources

    evidence = panel(page, "fact-checks").split('<ol class="evidence">')[1].split("</ol>")[0]
    document, web = evidence.split("</li><li>")
    assert f"{snapshot_href(iid, PASSAGE)} " in document
    assert ">📄 Contrato 002/2024, p. 4</a>" in document
    assert 'href="https://news.example/bridge"' in web and "📄" not in web
    # The linked passage is served.
    response = await client.get(f"/api/investigations/{iid}/snapshots/{sha256_text(PASSAGE)}")
    assert response.text == PASSAGE


async def test_the_fact_check_card_shows_the_reasoning_log_as_text(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    title = f"Anexo II {XSS}"
    iid = document_investigation(
        repo,
        source=document_source(title=title),
        evidence=document_evidence(title=title),
    )
    page = (await client.get(f"/investigations/{iid}")).text
    assert XSS not in page
    checks = panel(page, "fact-checks")
    assert f">📄 Anexo II {ESCAPED_XSS}, p. 4</a>" in checks
    log = checks.split('<details class="reasoning">')[1].split("</details>")[0]
    assert "<summary>How this verdict was reached: 2 steps</summary>" in log
    lines = log.split('<ol class="reasoning-log">')[1].split("</ol>")[0]
    assert lines == "".join(f"<li>{escape(line)}</li>" for line in REASONING)
    assert ESCAPED_XSS in lines


async def test_a_fact_check_without_reasoning_shows_no_log(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = document_investigation(repo, reasoning=[])
    page = (await client.get(f"/investigations/{iid}")).text
    assert "reasoning" not in panel(page, "fact-checks")


# --- exports ---------------------------------------------------------------------------------

REPORT = "# Riverton bridge\n\nThe contract's annex puts the cost at R$ 4.2M [1].\n"


def exported(repo: Repository, fmt: str, public_url: str = "") -> str:
    iid = document_investigation(
        repo, source=document_source(title=f"Contrato {XSS}"), evidence=document_evidence()
    )
    repo.finish_investigation(iid, "completed", summary=REPORT)
    investigation = repo.get_investigation(iid)
    assert investigation is not None
    settings = get_settings().model_copy(update={"vicaran_public_url": public_url})
    return export.render(fmt, investigation, repo.get_snapshots(iid), settings=settings)


@pytest.mark.parametrize("public_url", ["", "https://vicaran.newsroom.example"])
@pytest.mark.parametrize("fmt", ["md", "html", "claimreview"])
def test_exports_never_show_a_document_as_a_web_address(
    repo: Repository, fmt: str, public_url: str
) -> None:
    text = exported(repo, fmt, public_url)
    assert "doc://" not in text and "doc:" not in text


def test_the_markdown_export_names_documents_by_title_and_page(repo: Repository) -> None:
    text = exported(repo, "md")
    evidence, sources = text.split("## All sources read")
    assert "1. **📄 Contrato 002/2024, p. 4** — contrato-002-2024.pdf" in evidence
    assert f"   - Snapshot: `{sha256_text(PASSAGE)}`" in evidence
    # every untrusted text is escaped for any Markdown renderer (issue 20)
    escaped = [r.replace(XSS, ESCAPED_XSS) for r in REASONING]
    assert "\n".join(["How this verdict was reached:", "", *(f"- {r}" for r in escaped)]) in (
        evidence
    )
    assert f"1. **📄 Contrato {ESCAPED_XSS}, p. 1** — contrato-002-2024.pdf\n" in sources


def test_the_html_export_links_a_document_passage_to_its_snapshot(repo: Repository) -> None:
    base = "https://vicaran.newsroom.example"
    text = exported(repo, "html", base)
    assert XSS not in text
    linked = re.findall(r'<a href="([^"]{1,300})"[^>]{0,100}>📄 Contrato 002/2024, p\. 4</a>', text)
    assert linked == [f"#snapshot-{sha256_text(PASSAGE)}"]  # the passage, carried in the file
    section = text.split(f'<article id="snapshot-{sha256_text(PASSAGE)}"')[1].split("</article>")[0]
    assert escape(PASSAGE) in section and base not in text
    assert f"<strong>📄 Contrato {ESCAPED_XSS}, p. 1</strong>" in text
    log = text.split('<ol class="reasoning">')[1].split("</ol>")[0]
    assert log == "".join(f"<li>{escape(line)}</li>" for line in REASONING)


def test_the_html_export_without_the_text_or_an_address_names_the_passage_unlinked(
    repo: Repository,
) -> None:
    iid = document_investigation(repo, evidence=document_evidence())
    found = repo.get_investigation(iid)
    assert found is not None
    text = export.to_html(found, public_url="")
    assert "<strong>📄 Contrato 002/2024, p. 4</strong>" in text


def test_the_json_export_keeps_the_document_fields_and_the_reasoning_log(
    repo: Repository,
) -> None:
    record = json.loads(exported(repo, "json"))
    (check,) = record["investigation"]["fact_checks"]
    assert check["reasoning"] == REASONING
    assert (check["evidence"][0]["document_id"], check["evidence"][0]["page"]) == (DOC_ID, 4)
    assert record["snapshots"][sha256_text(PASSAGE)] == PASSAGE


# --- the verdict's sources -------------------------------------------------------------------


def test_a_verdict_resting_on_a_passage_rests_on_its_document_source() -> None:
    verdict = Verdict(
        claim_key="C1",
        claim_text="The bridge cost $4M.",
        verdict="misleading",
        confidence=0.8,
        explanation="",
        evidence=[
            document_evidence(),
            document_evidence(url=f"doc://{DOC_ID}/p9/30", page=9),
            document_evidence(url="doc://other/p1/1", document_id="other", stance="context"),
            web_evidence(),
        ],
    )
    ids = {f"doc://{DOC_ID}": "S-doc", "doc://other": "S-other", web_evidence().url: "S-web"}
    assert rested_on(verdict, ids) == ["S-doc", "S-web"]  # context is not what it rests on


def test_a_cited_page_in_the_reports_sources_list_is_a_link_everywhere(repo: Repository) -> None:
    """The report's Sources list links a document's cited page to the passage read (as a web
    source links its snapshot): the dashboard and the exports keep it a link, never a raw
    address in parentheses."""
    base = "https://vicaran.newsroom.example"
    iid = document_investigation(repo)
    passage = f"{base}/api/investigations/{iid}/snapshots/{sha256_text(PASSAGE)}"
    report = f"# Bridge\n\nIt cost R$ 4.2M [1].\n\n## Sources\n\n- [1] **Contrato** — [p. 4]({passage})\n"
    repo.finish_investigation(iid, "completed", summary=report)
    investigation = repo.get_investigation(iid)
    assert investigation is not None
    settings = get_settings().model_copy(update={"vicaran_public_url": base})
    markdown = export.render("md", investigation, {}, settings=settings)
    assert f"[p. 4]({passage})" in markdown and f"({passage})" not in markdown.replace(
        f"[p. 4]({passage})", ""
    )
    html = export.render("html", investigation, {}, settings=settings)
    assert f'<a href="{passage}"' in html
    from vicaran_agent.server import views

    dashboard = views.report_html(investigation, settings)  # linked on this server
    assert f'/snapshots/{sha256_text(PASSAGE)}" rel="noopener noreferrer">p. 4</a>' in dashboard
