"""The read API, the dashboard pages, the token and the summary Markdown, over HTTP (no browser)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from vicaran_agent.config import get_settings
from vicaran_agent.schemas import (
    BiasAssessment,
    Claim,
    Evidence,
    InvestigationConfig,
    Mode,
    Source,
    SourceBias,
    TimelineEvent,
    Verdict,
)
from vicaran_agent.server.dashboard import COOKIE_NAME, dashboard_router
from vicaran_agent.server.markdown import render_markdown
from vicaran_agent.storage import Repository, get_repository

XSS = "<script>alert(1)</script>"
ESCAPED_XSS = "&lt;script&gt;alert(1)&lt;/script&gt;"
TOKEN = "s3cret-dashboard-token"
SUMMARY = "# Dam contract\n\n## Executive Summary\nThe mayor **signed** it [1], see [2].\n"


# --- records (also used by test_dashboard_browser.py) --------------------------------------


def start(repo: Repository, title: str = "Dam contract", mode: Mode = "detailed") -> str:
    """A new investigation, in progress; returns its id."""
    config = InvestigationConfig.for_mode(
        mode,
        investigation_id=str(uuid.uuid4()),
        title=title,
        brief="Who approved the 2024 dam contract?",
        language="en",
    )
    repo.start_investigation(config)
    return config.investigation_id


def source(n: int, **changes: object) -> Source:
    data: dict[str, object] = {
        "url": f"https://news{n}.example/story",
        "title": f"Story {n}",
        "domain": f"news{n}.example",
        "credibility_score": 4,
        "content_summary": f"What news{n} reported.",
        "published_at": "2024-03-01",
    }
    return Source.model_validate({**data, **changes})


def add_findings(repo: Repository, iid: str, source_ids: list[str]) -> None:
    """One claim with its fact-check, a bias assessment and a timeline event."""
    claim_ids = repo.save_claims(
        iid,
        [
            Claim(
                key="C1",
                claim_text="The mayor signed the contract in March 2024.",
                importance=0.9,
                source_ids=source_ids,
            )
        ],
    )
    evidence = Evidence(
        url="https://records.example/contract",
        title="Signed contract",
        publisher="City records",
        reliability="high",
        stance="supports",
        snippet="Signed on 1 March 2024.",
    )
    verdict = Verdict(
        claim_key="C1",
        claim_text="The mayor signed the contract in March 2024.",
        claim_id=claim_ids["C1"],
        verdict="partially_true",
        confidence=0.7,
        explanation="The signature is on record; the date is disputed.",
        evidence=[evidence],
        source_ids=source_ids[:1],
    )
    repo.save_verdicts(iid, [verdict])
    repo.save_bias(
        iid,
        BiasAssessment(
            overall_bias_score=3.5,
            coverage={"supportive": 1, "neutral": 1, "critical": 0},
            coverage_pct={"supportive": 50.0, "neutral": 50.0, "critical": 0.0},
            per_source=[
                SourceBias(
                    url="https://news1.example/story",
                    source_id=source_ids[0],
                    bias_score=6,
                    stance="critical",
                    indicators=["loaded language"],
                )
            ],
            recommendation="Seek the council's side.",
        ),
    )
    repo.save_timeline(
        iid,
        [
            TimelineEvent(
                event_date="2024-03-01", event_text="Contract signed", source_ids=source_ids
            ),
            TimelineEvent(event_date="2023-11", date_precision="month", event_text="Tender opened"),
        ],
    )


def full_investigation(repo: Repository, mode: Mode = "detailed") -> tuple[str, list[str]]:
    """A completed investigation with two sources (the second unreachable) and everything else."""
    iid = start(repo, mode=mode)
    sources = [source(1), source(2, is_reachable=False, unreachable_reason="HTTP 404")]
    ids = repo.save_sources(iid, sources)
    source_ids = [ids[s.url] for s in sources]
    add_findings(repo, iid, source_ids)
    repo.finish_investigation(iid, "completed", summary=SUMMARY)
    return iid, source_ids


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    url = f"sqlite:///{tmp_path / 'vicaran.db'}"
    monkeypatch.setenv("VICARAN_DATABASE_URL", url)
    monkeypatch.delenv("VICARAN_DASHBOARD_TOKEN", raising=False)
    get_settings.cache_clear()
    repository = get_repository(url)
    yield repository
    repository.close()
    get_settings.cache_clear()


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    app.include_router(dashboard_router())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


def set_token(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    monkeypatch.setenv("VICARAN_DASHBOARD_TOKEN", token)
    get_settings.cache_clear()


# --- JSON ----------------------------------------------------------------------------------


async def test_list_is_newest_first_with_counts(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    older, _ = full_investigation(repo)
    newer = start(repo, title="Port tender", mode="quick")
    response = await client.get("/api/investigations")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    items = response.json()
    assert [item["id"] for item in items] == [newer, older]
    assert items[0]["title"] == "Port tender"
    assert (items[0]["mode"], items[0]["status"]) == ("quick", "in_progress")
    assert items[1]["status"] == "completed"
    counts = [items[1][k] for k in ("source_count", "claim_count", "fact_check_count")]
    assert counts == [2, 1, 1]
    assert items[1]["created_at"] and items[1]["updated_at"]


async def test_one_investigation_has_everything_and_the_rendered_summary(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, source_ids = full_investigation(repo)
    data = (await client.get(f"/api/investigations/{iid}")).json()
    assert data == {**repo.get_investigation(iid), "summary_html": data["summary_html"]}
    assert [s["id"] for s in data["sources"]] == source_ids
    assert data["fact_checks"][0]["verdict"] == "partially_true"
    assert data["bias"]["overall_bias_score"] == 3.5
    assert "<h4>Executive Summary</h4>" in data["summary_html"]
    assert (
        '<strong>signed</strong> it <a href="#source-1" class="cite">[1]</a>'
        in (data["summary_html"])
    )


async def test_unknown_investigation_is_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/investigations/nope")
    assert response.status_code == 404
    assert response.json() == {"success": False, "error": "investigation not found"}
    page = await client.get("/investigations/nope")
    assert page.status_code == 404
    assert "Investigation not found" in page.text


# --- HTML ----------------------------------------------------------------------------------


async def test_detail_page_shows_every_tab(client: httpx.AsyncClient, repo: Repository) -> None:
    iid, _ = full_investigation(repo)
    response = await client.get(f"/investigations/{iid}")
    assert response.status_code == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page = response.text
    for tab in ("sources", "claims", "fact-checks", "bias", "timeline", "summary"):
        assert f'<a class="tab" id="tab-{tab}" href="#{tab}"' in page
        assert f'<section class="panel" id="{tab}"' in page
    assert 'data-status="completed"' in page and "status-completed" in page
    assert "Detailed mode" in page and "Live: refreshing" not in page
    # Sources: stars, domain, summary, reachability.
    assert 'id="source-1"' in page and 'id="source-2"' in page
    assert 'aria-label="Credibility 4 of 5: Good credibility"' in page
    assert "news1.example" in page and "What news1 reported." in page
    assert "Read successfully" in page and "Not reachable: HTTP 404" in page
    # Claims and fact-checks.
    assert "The mayor signed the contract in March 2024." in page and "90%" in page
    assert '<span class="badge verdict-partially_true">Partially true</span>' in page
    assert "Confidence" in page and "70%" in page
    assert '<a href="https://records.example/contract" target="_blank"' in page
    assert "High reliability" in page and "Supports" in page
    # Bias: score, coverage bars, per-source table (detailed mode).
    assert "3.5<span> / 10</span>" in page
    assert 'class="bar-fill stance-supportive" style="width:50.0%"' in page
    assert 'class="bar-fill stance-critical" style="width:0.0%"' in page
    assert "Per source" in page and "loaded language" in page
    # Timeline: chronological, with the date's precision.
    assert page.index('<time datetime="2023-11">') < page.index('<time datetime="2024-03-01">')
    assert '<time datetime="2023-11">November 2023</time>' in page and "month only" in page
    # Summary, and the static files.
    assert '<div class="prose"><h3>Dam contract</h3>' in page
    assert '<script src="/dashboard-static/dashboard.js" defer></script>' in page


async def test_running_investigation_page_announces_polling(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = start(repo, mode="quick")
    page = (await client.get(f"/investigations/{iid}")).text
    assert 'data-status="in_progress"' in page and "Live: refreshing every 3 s" in page
    assert f'data-api="/api/investigations/{iid}"' in page
    assert "No sources yet." in page and "The summary is written when" in page


async def test_quick_mode_shows_no_per_source_bias(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = full_investigation(repo, mode="quick")
    page = (await client.get(f"/investigations/{iid}")).text
    assert "Coverage balance" in page and "Per source" not in page


async def test_list_page(client: httpx.AsyncClient, repo: Repository) -> None:
    iid, _ = full_investigation(repo)
    page = (await client.get("/investigations")).text
    assert f'<a href="/investigations/{iid}">Dam contract</a>' in page
    assert '<span class="badge status-completed">Completed</span>' in page
    assert f'<a href="/api/investigations/{iid}">JSON</a>' in page


async def test_injected_markup_is_shown_as_text(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = start(repo, title=XSS)
    bad = source(
        1, title=XSS, url="javascript:alert(1)", content_summary='"><img src=x onerror=alert(1)>'
    )
    repo.save_sources(iid, [bad])
    summary = f"# {XSS}\n<img src=x onerror=alert(1)>\n[click](javascript:alert(1)) [1]"
    repo.finish_investigation(iid, "completed", summary=summary)
    for path in (f"/investigations/{iid}", "/investigations"):
        page = (await client.get(path)).text
        assert XSS not in page and ESCAPED_XSS in page
        assert "<img" not in page and 'href="javascript:' not in page
    data = (await client.get(f"/api/investigations/{iid}")).json()
    assert data["title"] == XSS  # JSON keeps the data; the page script writes it as text
    html = data["summary_html"]
    assert XSS not in html and ESCAPED_XSS in html
    assert "<img" not in html and 'href="javascript:' not in html
    assert '<a href="#source-1" class="cite">[1]</a>' in html


async def test_citations_link_to_the_numbered_sources(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = full_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    assert '<a href="#source-2" class="cite">[2]</a>' in page  # in the summary
    assert 'id="source-2"' in page
    assert '<a href="#source-1" class="cite" title="Story 1">[1]</a>' in page  # claim's sources


async def test_static_files(client: httpx.AsyncClient) -> None:
    script = await client.get("/dashboard-static/dashboard.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "textContent" in script.text
    assert not any(sink in script.text for sink in (".innerHTML", "outerHTML", "AdjacentHTML"))
    style = await client.get("/dashboard-static/dashboard.css")
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    for name in ("dashboard.py", "..%2Fdashboard.py", "missing.js"):
        assert (await client.get(f"/dashboard-static/{name}")).status_code == 404


# --- the token -----------------------------------------------------------------------------

PATHS = (
    "/api/investigations",
    "/api/investigations/{iid}",
    "/investigations",
    "/investigations/{iid}",
)


async def test_without_a_token_setting_everything_is_open(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = full_investigation(repo)
    for path in PATHS:
        assert (await client.get(path.format(iid=iid))).status_code == 200


async def test_token_is_required_when_set(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = full_investigation(repo)
    set_token(monkeypatch, TOKEN)
    for path in (p.format(iid=iid) for p in PATHS):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            response = await client.get(path, headers=headers)
            assert response.status_code == 401, (path, headers)
            assert response.headers["www-authenticate"] == "Bearer"
        ok = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200, path
    denied_api = await client.get("/api/investigations")
    assert denied_api.json() == {"success": False, "error": "Unauthorized"}
    denied_page = await client.get(f"/investigations/{iid}")
    assert denied_page.headers["content-type"].startswith("text/html")
    assert "Access token needed" in denied_page.text and "Dam contract" not in denied_page.text
    # The static files hold no data and stay public.
    assert (await client.get("/dashboard-static/dashboard.js")).status_code == 200


async def test_query_token_sets_a_cookie_that_then_works(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = full_investigation(repo)
    set_token(monkeypatch, TOKEN)
    assert (await client.get("/api/investigations?token=wrong")).status_code == 401
    response = await client.get(f"/investigations/{iid}?token={TOKEN}&x=1")
    assert response.status_code == 303
    assert response.headers["location"] == f"/investigations/{iid}?x=1"  # token dropped
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE_NAME}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert TOKEN not in cookie  # the cookie carries a derived value
    # The client now holds the cookie: the page and the polling API work without the token.
    assert client.cookies.get(COOKIE_NAME)
    assert (await client.get(f"/investigations/{iid}")).status_code == 200
    assert (await client.get(f"/api/investigations/{iid}")).status_code == 200
    # A query token on the API answers directly (and sets the cookie too).
    client.cookies.clear()
    api = await client.get(f"/api/investigations?token={TOKEN}")
    assert api.status_code == 200 and api.json()[0]["id"] == iid
    assert api.headers["set-cookie"].startswith(f"{COOKIE_NAME}=")
    # Settings are read per request: a new token invalidates the old cookie.
    set_token(monkeypatch, "another-token")
    assert (await client.get(f"/api/investigations/{iid}")).status_code == 401
    client.cookies.set(COOKIE_NAME, "forged")
    assert (await client.get(f"/investigations/{iid}")).status_code == 401


# --- the summary Markdown ------------------------------------------------------------------


def test_markdown_subset() -> None:
    text = (
        "# Title\n## Part\n### Detail\n#### not a heading\n\n"
        "Some **bold**, *italic* and _also italic_ text [3], a snake_case_name.\n"
        "Next line https://example.org/a?b=1&c=2.\n\n"
        "1. first\n2. second\n\n- one\n- two\n"
    )
    assert render_markdown(text) == (
        "<h1>Title</h1>\n<h2>Part</h2>\n<h3>Detail</h3>\n"
        "<p>#### not a heading</p>\n"
        "<p>Some <strong>bold</strong>, <em>italic</em> and <em>also italic</em> text "
        '<a href="#source-3" class="cite">[3]</a>, a snake_case_name.<br>\n'
        'Next line <a href="https://example.org/a?b=1&amp;c=2" rel="noopener noreferrer">'
        "https://example.org/a?b=1&amp;c=2</a>.</p>\n"
        "<ol><li>first</li><li>second</li></ol>\n<ul><li>one</li><li>two</li></ul>"
    )
    assert render_markdown("# T", heading_offset=2) == "<h3>T</h3>"


@pytest.mark.parametrize(
    ("markdown", "forbidden"),
    [
        (XSS, "<script"),
        ("<img src=x onerror=alert(1)>", "<img"),
        ("[x](javascript:alert(1))", 'href="javascript:'),
        ("javascript:alert(1)", "<a"),
        ('https://a.example/"onmouseover="alert(1)', '"onmouseover'),
        ("https://a.example/<script>", "<script"),
        ("**<b>bold</b>**", "<b>"),
    ],
)
def test_markdown_never_emits_markup_from_the_text(markdown: str, forbidden: str) -> None:
    assert forbidden not in render_markdown(markdown)


def test_markdown_url_keeps_balanced_parentheses() -> None:
    html = render_markdown("(see https://en.wikipedia.org/wiki/Dam_(disambiguation))")
    assert 'href="https://en.wikipedia.org/wiki/Dam_(disambiguation)"' in html
    assert html.endswith("</a>)</p>")
