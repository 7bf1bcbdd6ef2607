"""Gazette sources and evidence (Querido Diário) through the records: the store, the read API,
the callback API (both directions), the dashboard and the exports."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.callback_server import CallbackServer
from tests.support.outbox import drain
from tests.support.records import as_json, view
from tests.support.store import dashboard_client, fresh_repository, panel, snapshot_href
from vicaran_agent import export
from vicaran_agent.config import forget_settings, get_settings
from vicaran_agent.read_model import SourceView
from vicaran_agent.schemas import (
    BiasAssessment,
    Claim,
    Evidence,
    InvestigationConfig,
    Source,
    SourceBias,
    Verdict,
    gazette_title,
)
from vicaran_agent.storage import Repository
from vicaran_agent.storage.outbox import queue_for_callback
from vicaran_agent.textmatch import sha256_text

XSS = "<script>alert(1)</script>"
ESCAPED_XSS = "&lt;script&gt;alert(1)&lt;/script&gt;"
TERRITORY = "4314902"
DATE = "2024-05-17"
GAZETTE_URL = "https://data.queridodiario.ok.org.br/4314902/2024-05-17/3a1f9c.pdf"
TXT_URL = "https://data.queridodiario.ok.org.br/4314902/2024-05-17/3a1f9c.txt"
TITLE = "Diário Oficial de Porto Alegre — 2024-05-17"
LABEL = f"📰 {TITLE}"
PASSAGE = (
    "EXTRATO DO CONTRATO EMERGENCIAL 002/2024 PROCESSO 24.17.000001778-5. Contratante: DMLU. "
    "Contratada: LOCAR VEICULOS E EQUIPAMENTOS LTDA. Objeto: limpeza urbana."
)
GAZETTE_TEXT = "DIÁRIO OFICIAL DE PORTO ALEGRE\nEdição 7781\n" + PASSAGE
CLAIM = (
    "A Prefeitura de Porto Alegre firmou contratos emergenciais com empresas privadas para "
    "limpeza urbana após as enchentes de maio de 2024."
)
REASONING = [
    'Round 1: "contrato emergencial" + limpeza in 4314902, 2024-05-01..2024-07-31: 20 gazettes',
    f"Read the gazette of {DATE} (score 0.91)",
]


def gazette_source(**changes: object) -> Source:
    data: dict[str, object] = {
        "url": GAZETTE_URL,
        "display_url": GAZETTE_URL,
        "title": TITLE,
        "domain": "data.queridodiario.ok.org.br",
        "publisher": "Prefeitura de Porto Alegre",
        "credibility_score": 5,
        "content_summary": "Extracts of the city's emergency contracts after the May floods.",
        "published_at": DATE,
        "content_sha256": sha256_text(GAZETTE_TEXT),
        "origin": "gazette",
        "territory_id": TERRITORY,
        "gazette_date": DATE,
        "txt_url": TXT_URL,
    }
    return Source.model_validate({**data, **changes})


def gazette_evidence(**changes: object) -> Evidence:
    data: dict[str, object] = {
        "url": GAZETTE_URL,
        "display_url": GAZETTE_URL,
        "title": TITLE,
        "publisher": "Prefeitura de Porto Alegre",
        "reliability": "high",
        "stance": "supports",
        "snippet": PASSAGE,
        "quote": "EXTRATO DO CONTRATO EMERGENCIAL 002/2024",
        "query": '"contrato emergencial" + limpeza',
        "origin": "gazette",
        "published_at": DATE,
        "content_sha256": sha256_text(PASSAGE),
        "territory_id": TERRITORY,
    }
    return Evidence.model_validate({**data, **changes})


def web_source() -> Source:
    return Source(
        url="https://news.example/floods",
        title="Contracts after the floods",
        domain="news.example",
        credibility_score=3,
        content_summary="The city hired cleaning companies.",
    )


def web_evidence() -> Evidence:
    return Evidence(
        url="https://news.example/floods",
        title="Contracts after the floods",
        publisher="news.example",
        reliability="neutral",
        stance="supports",
        snippet="The city hired cleaning companies.",
    )


def gazette_investigation(
    repo: Repository,
    *,
    source: Source | None = None,
    evidence: Evidence | None = None,
    reasoning: list[str] = REASONING,
) -> str:
    """An investigation with a gazette source and a web one, and a fact-check resting on both;
    the claim was extracted from the gazette (it appears there)."""
    config = InvestigationConfig.for_mode(
        "detailed",
        investigation_id=str(uuid.uuid4()),
        title="Contratos emergenciais em Porto Alegre",
        brief="A prefeitura firmou contratos emergenciais após as enchentes?",
        language="pt-BR",
    )
    repo.start_investigation(config)
    iid = config.investigation_id
    gazette = source or gazette_source()
    ids = repo.save_sources(iid, [gazette, web_source()], {sha256_text(GAZETTE_TEXT): GAZETTE_TEXT})
    claim_ids = repo.save_claims(
        iid,
        [Claim(key="C1", claim_text=CLAIM, importance=0.9, source_ids=[ids[gazette.url]])],
    )
    verdict = Verdict(
        claim_key="C1",
        claim_text=CLAIM,
        claim_id=claim_ids["C1"],
        verdict="verified",
        confidence=0.9,
        explanation="The gazette of 2024-05-17 publishes the emergency contract [1].",
        evidence=[evidence or gazette_evidence(), web_evidence()],
        source_ids=[ids[gazette.url], ids[web_source().url]],
        reasoning=list(reasoning),
    )
    repo.save_verdicts(iid, [verdict], {sha256_text(PASSAGE): PASSAGE})
    rated = SourceBias(url=gazette.url, source_id=ids[gazette.url], bias_score=0.5)
    repo.save_bias(
        iid,
        BiasAssessment(
            overall_bias_score=0.5,
            coverage={"supportive": 0, "neutral": 1, "critical": 0},
            coverage_pct={"supportive": 0.0, "neutral": 100.0, "critical": 0.0},
            per_source=[rated],
        ),
    )
    return iid


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


def saved(repo: Repository, iid: str) -> dict[str, Any]:
    investigation = as_json(repo.get_investigation(iid))
    assert investigation is not None
    return investigation


# --- the store -------------------------------------------------------------------------------


def test_gazette_title_names_the_city_and_the_date() -> None:
    assert gazette_title("Porto Alegre", DATE) == TITLE
    assert gazette_title("  Porto   Alegre ", "") == "Diário Oficial de Porto Alegre"


def test_gazette_fields_survive_the_store(repo: Repository) -> None:
    iid = gazette_investigation(repo)
    investigation = saved(repo, iid)

    gazette, web = investigation["sources"]
    assert (gazette["origin"], gazette["territory_id"], gazette["gazette_date"]) == (
        "gazette",
        TERRITORY,
        DATE,
    )
    assert gazette["txt_url"] == TXT_URL
    assert Source.model_validate(gazette) == gazette_source(source_id=gazette["id"])
    assert (web["territory_id"], web["gazette_date"], web["txt_url"]) == (None, None, None)

    (check,) = investigation["fact_checks"]
    passage, other = check["evidence"]
    assert (passage["origin"], passage["territory_id"]) == ("gazette", TERRITORY)
    assert Evidence.model_validate(passage).territory_id == TERRITORY
    assert (other["origin"], other["territory_id"]) == ("web", None)
    assert repo.get_snapshot(iid, passage["content_sha256"]) == PASSAGE
    assert repo.get_snapshot(iid, gazette["content_sha256"]) == GAZETTE_TEXT


def test_a_source_saved_again_keeps_its_gazette_fields_current(repo: Repository) -> None:
    iid = gazette_investigation(repo)
    repo.save_sources(iid, [gazette_source(gazette_date="2024-05-18", txt_url=None)])
    gazette = saved(repo, iid)["sources"][0]
    assert (gazette["gazette_date"], gazette["txt_url"]) == ("2024-05-18", None)


def test_an_older_database_gains_the_gazette_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Repository(f"sqlite:///{path}").close()
    dropped = {
        "sources": ("territory_id", "gazette_date", "txt_url"),
        "evidence": ("territory_id",),
    }
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
        iid = gazette_investigation(repository)  # and the upgraded store takes the new fields
        investigation = saved(repository, iid)
        assert investigation["sources"][0]["txt_url"] == TXT_URL
        assert investigation["fact_checks"][0]["evidence"][0]["territory_id"] == TERRITORY
    finally:
        repository.close()


def queued(repo: Repository, kind: str) -> list[dict[str, Any]]:
    with sqlite3.connect(repo.database_url.removeprefix("sqlite:///")) as db:
        rows = db.execute("SELECT data FROM callback_outbox WHERE type = ? ORDER BY id", (kind,))
        return [json.loads(data) for (data,) in rows]


# --- the callback API: what Vicaran sends ---------------------------------------------------


def test_queued_payloads_carry_the_gazette_fields(repo: Repository) -> None:
    with queue_for_callback():
        gazette_investigation(repo)
    gazette, web = queued(repo, "SOURCE_FOUND")
    assert (gazette["url"], gazette["origin"]) == (GAZETTE_URL, "gazette")
    assert (gazette["territory_id"], gazette["gazette_date"], gazette["txt_url"]) == (
        TERRITORY,
        DATE,
        TXT_URL,
    )
    assert {"territory_id", "gazette_date", "txt_url"}.isdisjoint(web)  # absent when unknown
    (check,) = queued(repo, "FACT_CHECKED")
    passage, other = check["evidence"]
    assert (passage["origin"], passage["territory_id"]) == ("gazette", TERRITORY)
    assert "territory_id" not in other


@pytest.mark.timeout(120)
async def test_a_newsroom_running_vicaran_receives_and_keeps_the_gazette_fields(
    repo: Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = CallbackServer(tmp_path).start()
    try:
        monkeypatch.setenv("CALLBACK_API_URL", server.url)
        monkeypatch.setenv("AGENT_SECRET", server.secret)
        forget_settings()
        with queue_for_callback():
            iid = gazette_investigation(repo)
        await drain()
        summary = repo.outbox_summary()
        assert summary.counts.failed == 0, summary.failed
        assert summary.counts.pending == 0
        remote = server.investigation(iid)
    finally:
        server.stop()
    assert remote is not None
    # The two sources are delivered concurrently: the receiver may number them either way.
    gazette, web = sorted(remote["sources"], key=lambda s: s["origin"] != "gazette")
    assert (gazette["origin"], gazette["territory_id"], gazette["gazette_date"]) == (
        "gazette",
        TERRITORY,
        DATE,
    )
    assert (gazette["txt_url"], gazette["title"]) == (TXT_URL, TITLE)
    assert (web["territory_id"], web["gazette_date"], web["txt_url"]) == (None, None, None)
    (check,) = remote["fact_checks"]
    passage, other = check["evidence"]
    assert (passage["origin"], passage["territory_id"], passage["url"]) == (
        "gazette",
        TERRITORY,
        GAZETTE_URL,
    )
    assert (other["origin"], other["territory_id"]) == ("web", None)


# --- the read API and the dashboard ----------------------------------------------------------


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    async with dashboard_client() as http:
        yield http


def web_link(url: str, text: str) -> str:
    return f'<a href="{url}" target="_blank" rel="noopener noreferrer">{text}</a>'


@pytest.mark.parametrize(
    ("item", "label"),
    [
        ({"title": TITLE, "gazette_date": DATE}, LABEL),
        ({"title": "Diário Oficial de Porto Alegre", "gazette_date": DATE}, LABEL),
        ({"title": "Diário Oficial de Porto Alegre", "published_at": f"{DATE}T00:00:00"}, LABEL),
        (
            {"title": "", "territory_id": TERRITORY, "gazette_date": DATE},
            f"📰 Diário Oficial (IBGE {TERRITORY}) — {DATE}",
        ),
        ({"title": " Edição\n7781 "}, "📰 Edição 7781"),
        ({}, "📰 Diário Oficial"),
    ],
)
def test_a_gazette_is_named_by_its_title_with_its_date(item: dict[str, Any], label: str) -> None:
    source = SourceView(id="s1", source_id="s1", url=GAZETTE_URL, origin="gazette", **item)
    assert export.gazette_label(source) == label


async def test_the_read_api_returns_the_gazette_fields(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = gazette_investigation(repo)
    data = (await client.get(f"/api/investigations/{iid}")).json()
    gazette, web = data["sources"]
    assert (gazette["territory_id"], gazette["gazette_date"], gazette["txt_url"]) == (
        TERRITORY,
        DATE,
        TXT_URL,
    )
    assert (web["territory_id"], web["gazette_date"], web["txt_url"]) == (None, None, None)
    (check,) = data["fact_checks"]
    assert [e["territory_id"] for e in check["evidence"]] == [TERRITORY, None]


async def test_the_dashboard_shows_a_gazette_by_city_and_date_linking_it_and_its_snapshot(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = gazette_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text

    gazette, web = panel(page, "sources").split('<li class="card source')[1:]
    assert web_link(GAZETTE_URL, LABEL) in gazette  # public: linked where it was published
    assert snapshot_href(iid, GAZETTE_TEXT) in gazette  # and the text Vicaran read
    assert f'href="{TXT_URL}"' in gazette and ">texto completo</a>" in gazette  # in Portuguese
    assert f"<span>Diário de {DATE}</span>" in gazette
    assert f"<span>território IBGE {TERRITORY}</span>" in gazette
    assert "Publicado" not in gazette  # the gazette's date says it once
    assert "📰" not in web and "IBGE" not in web and "full text" not in web

    evidence = panel(page, "fact-checks").split('<ol class="evidence">')[1].split("</ol>")[0]
    passage, other = evidence.split("</li><li>")
    assert web_link(GAZETTE_URL, LABEL) in passage
    assert snapshot_href(iid, PASSAGE) in passage
    assert f"Diário de {DATE} · território IBGE {TERRITORY}" in passage
    assert "📰" not in other and "IBGE" not in other

    (row,) = panel(page, "bias").split("<tbody>")[1].split("</tr>")[:-1]
    assert f"[1]</a> {LABEL}</td>" in row  # the per-source table names it as the cards do


async def test_a_gazette_title_is_shown_as_text(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    title = f"Diário Oficial {XSS}"
    iid = gazette_investigation(
        repo, source=gazette_source(title=title), evidence=gazette_evidence(title=title)
    )
    page = (await client.get(f"/investigations/{iid}")).text
    assert XSS not in page
    assert f">📰 Diário Oficial {ESCAPED_XSS} — {DATE}</a>" in panel(page, "sources")
    assert f">📰 Diário Oficial {ESCAPED_XSS} — {DATE}</a>" in panel(page, "fact-checks")


async def test_a_gazette_full_text_address_that_is_not_http_is_not_linked(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = gazette_investigation(repo, source=gazette_source(txt_url="javascript:alert(1)"))
    page = (await client.get(f"/investigations/{iid}")).text
    assert 'href="javascript:' not in page


# --- exports ---------------------------------------------------------------------------------

REPORT = "# Contratos emergenciais\n\nO Diário Oficial publicou o contrato emergencial [1].\n"


def exported(repo: Repository, fmt: str, public_url: str = "", **changes: Any) -> str:
    iid = gazette_investigation(repo, **changes)
    repo.finish_investigation(iid, "completed", summary=REPORT)
    settings = get_settings().model_copy(update={"vicaran_public_url": public_url})
    return export.render(fmt, view(saved(repo, iid)), repo.get_snapshots(iid), settings=settings)


def test_the_markdown_export_names_gazettes_by_city_and_date(repo: Repository) -> None:
    text = exported(repo, "md")
    evidence, sources = text.split("## Todas as fontes lidas")
    passage = evidence.split("1. ", 1)[1].split("\n2. ")[0]
    assert passage.startswith(f"**{LABEL}** — Prefeitura de Porto Alegre\n")
    assert f"   - Diário de {DATE} · território IBGE {TERRITORY}\n" in passage
    assert "Publicado" not in passage
    assert f"   - Link: <{GAZETTE_URL}>\n" in passage  # public: linked
    assert f"   - Cópia: `{sha256_text(PASSAGE)}`" in passage
    assert f"1. **{LABEL}** — Prefeitura de Porto Alegre — <{GAZETTE_URL}>\n" in sources
    assert f"   - Diário de {DATE} · território IBGE {TERRITORY}\n" in sources
    assert f"   - Texto completo: <{TXT_URL}>\n" in sources
    assert "2. **Contracts after the floods**" in sources and sources.count("IBGE") == 1


def test_the_html_export_links_a_gazette_where_it_was_published(repo: Repository) -> None:
    base = "https://vicaran.newsroom.example"
    title = f"Diário Oficial {XSS}"
    text = exported(
        repo,
        "html",
        base,
        source=gazette_source(title=title),
        evidence=gazette_evidence(title=title),
    )
    assert XSS not in text
    label = f"📰 Diário Oficial {ESCAPED_XSS} — {DATE}"
    heading = f'<strong><a href="{GAZETTE_URL}" rel="noopener noreferrer">{label}</a></strong>'
    assert heading in text  # the passage's heading
    assert f"<li>Diário de {DATE} · território IBGE {TERRITORY}</li>" in text
    sources = text.split('<section id="all-sources">')[1]
    assert f"<strong>{label}</strong>" in sources
    assert (
        f'<li>Texto completo: <a href="{TXT_URL}" rel="noopener noreferrer">{TXT_URL}</a></li>'
        in (sources)
    )
    assert 'href="#snapshot-' in sources  # the snapshot of what Vicaran read, in the file
    assert f"{base}/api/investigations/" not in text


def test_a_gazette_full_text_address_that_is_not_http_is_not_exported_as_a_link(
    repo: Repository,
) -> None:
    source = gazette_source(txt_url="javascript:alert(1)")
    assert "javascript:" not in exported(repo, "html", source=source)
    assert "javascript:" not in exported(repo, "md", source=source)


def test_claimreview_lists_the_public_gazette_as_where_the_claim_appears(
    repo: Repository,
) -> None:
    (review,) = json.loads(exported(repo, "claimreview"))
    assert review["itemReviewed"]["appearance"] == [{"@type": "CreativeWork", "url": GAZETTE_URL}]


def test_the_json_export_keeps_the_gazette_fields(repo: Repository) -> None:
    record = json.loads(exported(repo, "json"))
    gazette = record["investigation"]["sources"][0]
    assert (gazette["territory_id"], gazette["gazette_date"], gazette["txt_url"]) == (
        TERRITORY,
        DATE,
        TXT_URL,
    )
    (check,) = record["investigation"]["fact_checks"]
    assert check["evidence"][0]["territory_id"] == TERRITORY
    assert record["snapshots"][sha256_text(GAZETTE_TEXT)] == GAZETTE_TEXT
