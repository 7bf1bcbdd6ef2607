"""A claim's kind and who is quoted, and an authority's own record among its evidence, through
the records: the store (both databases), what Vicaran sends to the callback API, the dashboard and
the exports."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.records import as_json
from tests.support.store import dashboard_client, fresh_repository, panel
from vicaran_agent import export
from vicaran_agent.config import get_settings
from vicaran_agent.schemas import Claim, Evidence, InvestigationConfig, Source, Verdict
from vicaran_agent.storage import Repository
from vicaran_agent.storage.outbox import queue_for_callback

NOTICE = "https://www.epa.gov/enforcement/notice"
WIRE = "https://www.reuters.com/business/halvorsen"
PARTY = "Environmental Protection Agency (EPA)"
SAID = "The EPA found that Halvorsen Chemical exceeded its lead limits by 312% in 2024"
FACT = "Halvorsen Chemical exceeded its lead limits by 312% in 2024"
OWN_NOTE = f"the own record of {PARTY}: what it says, not independent evidence that it is so"


def _item(url: str, **changes: Any) -> Evidence:
    data: dict[str, Any] = {
        "url": url,
        "title": "Notice of Violation",
        "publisher": "epa.gov",
        "reliability": "high",
        "stance": "supports",
        "quote": "exceeded its permitted lead discharge limits by 312%",
    }
    return Evidence.model_validate({**data, **changes})


def investigation(repo: Repository) -> str:
    """Two claims from the EPA's notice and a wire report: what the EPA found (decided by the
    notice, its own record) and the fact itself (the notice is not independent of it)."""
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=str(uuid.uuid4()), title="Halvorsen", brief="b", language="en"
    )
    repo.start_investigation(config)
    iid = config.investigation_id
    sources = [
        Source(url=NOTICE, title="Notice", domain="epa.gov", credibility_score=5),
        Source(url=WIRE, title="Wire", domain="reuters.com", credibility_score=5),
    ]
    ids = repo.save_sources(iid, sources)
    claim_ids = repo.save_claims(
        iid,
        [
            Claim(
                key="C1",
                claim_text=SAID,
                importance=0.9,
                kind="attribution",
                attributed_to=PARTY,
                source_ids=list(ids.values()),
            ),
            Claim(
                key="C2",
                claim_text=FACT,
                importance=0.8,
                attributed_to=PARTY,
                source_ids=list(ids.values()),
            ),
        ],
    )
    wire = _item(WIRE, publisher="reuters.com", stance="context", quote="", independent=False)
    wire.independence_note = "the page this claim was extracted from"
    repo.save_verdicts(
        iid,
        [
            Verdict(
                claim_key="C1",
                claim_text=SAID,
                claim_id=claim_ids["C1"],
                verdict="verified",
                confidence=0.9,
                explanation="The EPA's notice says so [1].",
                evidence=[_item(NOTICE, primary_record=True), wire],
            ),
            Verdict(
                claim_key="C2",
                claim_text=FACT,
                claim_id=claim_ids["C2"],
                verdict="unverified",
                confidence=0.3,
                explanation="Only the EPA says so.",
                evidence=[
                    _item(
                        NOTICE,
                        primary_record=True,
                        independent=False,
                        independence_note=OWN_NOTE,
                        stance="context",
                        quote="",
                    )
                ],
            ),
        ],
    )
    return iid


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


def test_kind_who_is_quoted_and_own_records_survive_the_store(records_url: str) -> None:
    repository = Repository(records_url)
    try:
        iid = investigation(repository)
        saved = as_json(repository.get_investigation(iid))
    finally:
        repository.close()
    assert saved is not None
    said, fact = saved["claims"]
    assert (said["kind"], said["attributed_to"]) == ("attribution", PARTY)
    assert (fact["kind"], fact["attributed_to"]) == ("fact", PARTY)
    decided, undecided = saved["fact_checks"]
    notice, wire = decided["evidence"]
    assert (notice["primary_record"], notice["independent"]) == (True, True)
    assert wire["primary_record"] is False
    (own,) = undecided["evidence"]
    assert (own["primary_record"], own["independent"]) == (True, False)
    assert own["independence_note"] == OWN_NOTE


def queued(repo: Repository, kind: str) -> list[dict[str, Any]]:
    with sqlite3.connect(repo.database_url.removeprefix("sqlite:///")) as db:
        rows = db.execute("SELECT data FROM callback_outbox WHERE type = ? ORDER BY id", (kind,))
        return [json.loads(data) for (data,) in rows]


def test_queued_payloads_say_who_is_quoted_and_which_item_is_an_own_record(
    repo: Repository,
) -> None:
    with queue_for_callback():
        investigation(repo)
    said, fact = queued(repo, "CLAIM_EXTRACTED")
    assert (said["kind"], said["attributed_to"]) == ("attribution", PARTY)
    assert (fact["kind"], fact["attributed_to"]) == ("fact", PARTY)
    decided, _ = queued(repo, "FACT_CHECKED")
    notice, wire = decided["evidence"]
    assert notice["primary_record"] is True and "primary_record" not in wire


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    async with dashboard_client() as http:
        yield http


async def test_the_dashboard_says_who_is_quoted_and_marks_own_records(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text

    said, fact = panel(page, "claims").split('<li class="card claim')[1:]
    assert "What Environmental Protection Agency (EPA) said or did" in said
    assert "On the word of Environmental Protection Agency (EPA)" in fact
    checks = panel(page, "fact-checks")
    assert "Independent: own record of the party quoted" in checks
    assert f"Not independent: {OWN_NOTE}" in checks.replace("&#x27;", "'")


def test_the_markdown_export_says_who_is_quoted(repo: Repository) -> None:
    iid = investigation(repo)
    repo.finish_investigation(iid, "completed", summary="# Halvorsen\n\nText [1].\n")
    saved = repo.get_investigation(iid)
    assert saved is not None
    text = export.render("md", saved, repo.get_snapshots(iid), settings=get_settings())
    assert f"**Claim:** {SAID} — what {PARTY} said or did" in text
    assert f"**Claim:** {FACT} — on the word of {PARTY}" in text
    assert "Independent: own record of the party quoted" in text
