"""The short id Vicaran shows (eight hex digits, as in export file names) names an investigation
wherever an id is asked for: `vicaran export`, the read API, the dashboard's pages and downloads."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.store import dashboard_client, fresh_repository
from vicaran_agent import cli
from vicaran_agent.schemas import InvestigationConfig, Source
from vicaran_agent.storage import Repository

FIRST = "7a7d75a8-0b1c-4d2e-8f30-415263748596"
TWIN = "7a7d75a8-99aa-4bbb-8ccc-ddddeeeeffff"  # shares FIRST's eight-digit short id
OTHER = "c0ffee00-1234-4abc-8def-0123456789ab"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    async with dashboard_client() as http:
        yield http


def start(repo: Repository, investigation_id: str, title: str) -> None:
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=investigation_id, title=title, brief=title, language="en"
    )
    repo.start_investigation(config)
    url = f"https://example.org/{title.replace(' ', '-')}"
    source = Source(url=url, title=title, domain="example.org", credibility_score=3)
    repo.save_sources(investigation_id, [source])


def test_export_takes_the_short_id_in_the_file_name(repo, capsys, tmp_path):
    start(repo, OTHER, "Port tender")
    assert cli.main(["export", OTHER, "--format", "json"]) == 0
    full = capsys.readouterr().out
    out = tmp_path / "short.json"
    assert cli.main(["export", OTHER[:8], "--format", "json", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == full
    assert json.loads(full)["investigation"]["id"] == OTHER
    assert OTHER in capsys.readouterr().out  # "... export of <the full id> written to ..."
    assert cli.main(["export", OTHER[:13].upper(), "--format", "md"]) == 0  # hyphen, any case


def test_a_short_id_two_investigations_share_names_both_and_asks_for_more(repo, capsys):
    start(repo, FIRST, "Dam contract")
    start(repo, TWIN, "Dam contract")
    assert cli.main(["export", FIRST[:8], "--format", "md"]) == 1
    printed = capsys.readouterr()
    assert printed.out == ""
    assert FIRST in printed.err and TWIN in printed.err and "give more of it" in printed.err
    assert cli.main(["export", FIRST[:9], "--format", "md"]) == 1  # "7a7d75a8-": still both
    assert cli.main(["export", FIRST[:10], "--format", "md"]) == 0


def test_fewer_than_eight_digits_name_nothing(repo, capsys):
    start(repo, OTHER, "Port tender")
    assert cli.main(["export", OTHER[:7], "--format", "md"]) == 1
    assert "No investigation with id c0ffee0 is saved here." in capsys.readouterr().err
    assert repo.resolve_id(OTHER[:7]) is None
    assert repo.resolve_id("c0ffee0%") is None  # a pattern is not a prefix
    assert repo.resolve_id(OTHER[:8]) == OTHER


async def test_the_read_api_and_the_pages_take_the_short_id(repo, client):
    start(repo, OTHER, "Port tender")
    short = OTHER[:8]
    answer = await client.get(f"/api/investigations/{short}")
    assert answer.status_code == 200 and answer.json()["id"] == OTHER
    page = await client.get(f"/investigations/{short}")
    assert page.status_code == 200 and "Port tender" in page.text
    download = await client.get(f"/api/investigations/{short}/export", params={"format": "md"})
    assert download.status_code == 200 and "Port tender" in download.text
    start(repo, TWIN, "Dam contract")
    start(repo, FIRST, "Dam contract")
    ambiguous = await client.get(f"/api/investigations/{FIRST[:8]}")
    assert ambiguous.status_code == 404
    assert FIRST in ambiguous.json()["error"] and "give more of it" in ambiguous.json()["error"]
    assert (await client.get("/api/investigations/c0ffee99")).json()["error"] == (
        "investigation not found"
    )
    assert (await client.get(f"/api/investigations/{FIRST[:10]}")).json()["id"] == FIRST
