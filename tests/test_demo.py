"""`make demo`: the bundled sample investigation, served read-only without any key."""

from __future__ import annotations

from pathlib import Path

import httpx

from vicaran_agent.config import Settings
from vicaran_agent.demo import load, sample, sample_server
from vicaran_agent.server import pages
from vicaran_agent.services import Services, serving
from vicaran_agent.storage import get_repository


def test_the_sample_loads_with_every_record_and_text(tmp_path: Path) -> None:
    document = sample()
    repository = get_repository(f"sqlite:///{tmp_path / 'demo.db'}")
    iid = load(repository, document)
    loaded = repository.get_investigation(iid)
    assert loaded is not None
    record = document["investigation"]
    assert (loaded.title, loaded.status, loaded.summary) == (
        record["title"],
        record["status"],
        record["summary"],
    )
    assert [s.url for s in loaded.sources] == [s["url"] for s in record["sources"]]
    assert [c.claim_text for c in loaded.claims] == [c["claim_text"] for c in record["claims"]]
    assert [(f.claim_text, f.verdict) for f in loaded.fact_checks] == [
        (f["claim_text"], f["verdict"]) for f in record["fact_checks"]
    ]
    assert all(f.source_ids for f in loaded.fact_checks if f.evidence)
    assert len(loaded.timeline) == len(record["timeline"]) and loaded.bias is not None
    assert repository.get_snapshots(iid) == document["snapshots"]
    repository.close()


async def test_the_demo_serves_the_sample_read_only_and_says_it_is_sample_data(tmp_path):
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        vicaran_database_url=f"sqlite:///{tmp_path / 'demo.db'}",
        vicaran_dashboard_token="",
        google_api_key="",
        tavily_api_key="",
    )
    app, shown, page = sample_server(settings)  # what `vicaran demo` serves
    iid = page.rsplit("/", 1)[1]
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        home = await http.get("/")
        assert home.status_code == 307 and home.headers["location"] == f"/investigations/{iid}"
        page = await http.get(f"/investigations/{iid}")
        assert page.status_code == 200 and "Sample data: a finished investigation" in page.text
        listed = await http.get("/investigations")
        assert "Sample data" in listed.text and iid[:8] in listed.text
        download = await http.get(f"/api/investigations/{iid}/export", params={"format": "md"})
        assert download.status_code == 200 and "## Evidence" in download.text
        refused = await http.post("/api/agent-callback", json={})
        assert refused.status_code == 405 and "make run" in refused.json()["error"]
    shown.close()
    with serving(Services(settings=settings)):  # a server without the flag shows no banner
        assert "Sample data" not in pages.page("Investigations", "<main></main>").body.decode()
