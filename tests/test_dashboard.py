"""The read API, the dashboard pages, the token and the summary Markdown, over HTTP (no browser)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from html import escape
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.linear import assert_linear
from tests.support.records import as_json
from tests.support.store import dashboard_client, fresh_repository
from vicaran_agent.config import forget_settings
from vicaran_agent.markdown_html import render_markdown
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
from vicaran_agent.server import views
from vicaran_agent.server.access import cookie_value
from vicaran_agent.server.app import build_server
from vicaran_agent.server.dashboard import COOKIE_NAME
from vicaran_agent.storage import Repository

XSS = "<script>alert(1)</script>"
ESCAPED_XSS = "&lt;script&gt;alert(1)&lt;/script&gt;"
TOKEN = "s3cret-dashboard-token"
SUMMARY = "# Dam contract\n\n## Executive Summary\nThe mayor **signed** it [1], see [2].\n"


# --- records (also used by test_dashboard_browser.py) --------------------------------------


def start(
    repo: Repository, title: str = "Dam contract", mode: Mode = "detailed", language: str = "en"
) -> str:
    """A new investigation, in progress; returns its id."""
    config = InvestigationConfig.for_mode(
        mode,
        investigation_id=str(uuid.uuid4()),
        title=title,
        brief="Who approved the 2024 dam contract?",
        language=language,
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
        "published_at_source": "metadata",
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


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# What Vicaran read of source 1 and of the contract; the quote is found in the latter.
SOURCE_TEXT = "Story 1 as read: the mayor signed the dam contract on 1 March 2024. Ünïcödé ✓"
EVIDENCE_TEXT = "Council minutes, page 3. Signed on 1 March 2024 by the mayor, in public."
QUOTE = "Signed on 1 March 2024 by the mayor"
QUERY = "mayor dam contract signature 2024"
DISPLAY_1 = "https://www.news1.example/Story?ref=home"
EVIDENCE_DISPLAY = "https://records.example/Contract.pdf"
NOT_INDEPENDENT = "the page this claim was extracted from"
STANCE_NOTE = "counted as context, not 'supports': the quote is not in the text read"
VERDICTS = ("verified", "partially_true", "misleading", "false", "unverified")
REPORT = SUMMARY + "\n[INVESTIGATION_COMPLETE]\n"
QUALITY = {
    "scores": {
        "factual_accuracy": 91,
        "citation_correctness": 82,
        "plan_coverage": 73,
        "structure": 64,
        "relevance": 55,
    },
    "overall": 73,
    "threshold": 70,
    "audited": 9,
    "unsupported": 2,
    "removed": 1,
    "rewrites": 1,
    "problems": ["The timeline repeats the findings."],
}


def trust_investigation(repo: Repository, language: str = "en") -> tuple[str, list[str]]:
    """A completed investigation with the trust fields filled in; returns (id, source ids).

    Sources: 1 as found at DISPLAY_1 with its snapshot, 2 set aside as off-topic, 3 with a
    hostile title. Claims C1..C5 have one verdict each (VERDICTS, in order): C1 comes from
    sources 1 and 3, C2-C4 from source 1, C5 only from the brief. Each check has a quoted,
    independent item (with a snapshot) and one that is not independent; C4 has no `as_of`.
    No bias (no source could be rated); the report ends with the protocol marker.
    """
    iid = start(repo, language=language)
    sources = [
        source(
            1,
            display_url=DISPLAY_1,
            publisher="News One",
            content_sha256=sha256(SOURCE_TEXT),
            retrieved_at="2024-04-02T10:00:00+00:00",
            is_user_provided=True,
            relevance=0.9,
            relevance_reason="About the contract.",
        ),
        source(2, relevant=False, relevance=0.12, relevance_reason="About a football match."),
        source(3, title=XSS, published_at=None),  # its page states no date
    ]
    ids = repo.save_sources(iid, sources, texts={sha256(SOURCE_TEXT): SOURCE_TEXT})
    source_ids = [ids[s.url] for s in sources]
    linked = {1: [source_ids[0], source_ids[2]], 5: []}
    claims = [
        Claim(
            key=f"C{n}",
            claim_text=f"Claim {n} about the dam contract.",
            importance=0.5,
            source_ids=linked.get(n, [source_ids[0]]),
            origin="brief" if n == 5 else "source",
        )
        for n in range(1, len(VERDICTS) + 1)
    ]
    claim_ids = repo.save_claims(iid, claims)
    evidence = [
        Evidence(
            url="https://records.example/contract",
            display_url=EVIDENCE_DISPLAY,
            title="Signed contract",
            publisher="City records",
            reliability="high",
            stance="supports",
            quote=QUOTE,
            query=QUERY,
            published_at="2024-03-02",
            published_at_source="search",
            retrieved_at="2024-04-02T11:00:00+00:00",
            content_sha256=sha256(EVIDENCE_TEXT),
        ),
        Evidence(
            url=sources[0].url,
            display_url=DISPLAY_1,
            title="Story 1",
            publisher="News One",
            reliability="neutral",
            stance="context",
            independent=False,
            independence_note=NOT_INDEPENDENT,
            stance_note=STANCE_NOTE,
        ),
    ]
    verdicts = [
        Verdict(
            claim_key=claim.key,
            claim_text=claim.claim_text,
            claim_id=claim_ids[claim.key],
            verdict=label,
            confidence=0.8,
            explanation=f"Checked against the contract [1] ({label}).",
            evidence=evidence,
            as_of=None if claim.key == "C4" else "2024-04-03",
        )
        for claim, label in zip(claims, VERDICTS, strict=True)
    ]
    repo.save_verdicts(iid, verdicts, texts={sha256(EVIDENCE_TEXT): EVIDENCE_TEXT})
    repo.finish_investigation(iid, "completed", summary=REPORT, quality=QUALITY)
    return iid, source_ids


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    async with dashboard_client() as http:
        yield http


@pytest.fixture
async def served(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    """The dashboard as `vicaran serve` serves it: behind the access middleware."""
    transport = httpx.ASGITransport(app=build_server(with_adk=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        yield http


def set_token(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    monkeypatch.setenv("VICARAN_DASHBOARD_TOKEN", token)
    forget_settings()


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
    assert data == {**as_json(repo.get_investigation(iid)), "summary_html": data["summary_html"]}
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
    assert "No sources yet." in page and "The summary is written when" in page
    # The page's refresh asks for its <main> again: the same HTML, alone, with the page's headers.
    live = await client.get(f"/investigations/{iid}", headers={"Vicaran-Fragment": "main"})
    assert live.status_code == 200 and live.text.startswith('<main class="wrap" id="investigation"')
    assert "<html" not in live.text and live.text in page
    assert "script-src 'self'" in live.headers["content-security-policy"]
    gone = await client.get(f"/investigations/{uuid.uuid4()}", headers={"Vicaran-Fragment": "main"})
    assert gone.status_code == 404


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


async def test_list_rows_tell_alike_titles_apart(client: httpx.AsyncClient, repo: Repository):
    """Same title twice: each row has its short id, its start day and its verdicts."""
    first, _ = full_investigation(repo)
    second = start(repo, title="Dam contract", mode="quick")
    page = (await client.get("/investigations")).text
    rows = {iid: page[page.index(f'<tr data-id="{iid}">') :] for iid in (first, second)}
    for iid, row in rows.items():
        row = row[: row.index("</tr>")]
        assert '<code title="Its id: any command or address takes' in row
        assert f">{iid[:8]}</code> · started <time" in row
    first_row = rows[first][: rows[first].index("</tr>")]
    assert '<span class="badge verdict-partially_true">1 Partially true</span>' in first_row
    assert "verdict-" not in rows[second][: rows[second].index("</tr>")]
    listed = (await client.get("/api/investigations")).json()
    assert {item["id"]: item["verdicts"] for item in listed} == {
        first: {"partially_true": 1},
        second: {},
    }


def panel(page: str, key: str) -> str:
    """The HTML of one tab's panel."""
    start_at = page.index(f'<section class="panel" id="{key}"')
    end_at = page.find('<section class="panel"', start_at + 1)
    return page[start_at : end_at if end_at != -1 else len(page)]


async def test_list_page_refreshes_only_while_an_investigation_runs(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    full_investigation(repo)
    page = (await client.get("/investigations")).text
    assert 'http-equiv="refresh"' not in page and "Live:" not in page
    assert 'data-running="false"' in page
    running = start(repo, title="Port tender")
    page = (await client.get("/investigations")).text
    # Without JS the page reloads itself; with JS the script asks for the list's <main> instead.
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in page
    assert 'data-running="true"' in page
    live = (await client.get("/investigations", headers={"Vicaran-Fragment": "main"})).text
    assert live.startswith('<main class="wrap" id="investigations"') and live in page
    assert (
        '<p id="list-live" class="live" aria-live="polite">Live: refreshing every 3 s</p>' in page
    )
    repo.finish_investigation(running, "completed", summary=SUMMARY)
    page = (await client.get("/investigations")).text
    assert 'http-equiv="refresh"' not in page and 'data-running="false"' in page


async def test_list_table_cells_carry_their_column_label(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    """Narrow screens show each row as a card: every cell names its column."""
    full_investigation(repo)
    page = (await client.get("/investigations")).text
    assert '<table class="list investigations">' in page
    for label in ("Status", "Mode", "Sources", "Claims", "Fact-checks", "Last update", "Data"):
        assert f'data-label="{label}"' in page, label


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Skipped in Quick Search: the timeline is built only in a Detailed Inquiry."),
        (
            "pt-BR",
            "Etapa pulada na Busca Rápida: a linha do tempo só é montada na Investigação "
            "Detalhada.",
        ),
    ],
)
async def test_quick_mode_timeline_says_it_was_skipped(
    client: httpx.AsyncClient, repo: Repository, language: str, expected: str
) -> None:
    iid = start(repo, mode="quick", language=language)
    running = (await client.get(f"/investigations/{iid}")).text
    repo.finish_investigation(iid, "completed", summary=SUMMARY)
    done = (await client.get(f"/investigations/{iid}")).text
    for page in (running, done):
        assert f'<p class="empty">{escape(expected)}</p>' in panel(page, "timeline")
        assert "No timeline events." not in page
    detailed = start(repo, language=language)
    page = (await client.get(f"/investigations/{detailed}")).text
    none_yet = "Ainda sem eventos." if language == "pt-BR" else "No events yet."
    assert f'<p class="empty">{none_yet}</p>' in panel(page, "timeline")


async def test_sources_show_the_page_host(client: httpx.AsyncClient, repo: Repository) -> None:
    iid = start(repo)
    sources = [
        source(
            1,
            url="https://citynews.example.com/2024/dam",
            domain="citynews.example.com",
            publisher="example.com",
        ),
        source(2, publisher="News Two"),
    ]
    ids = repo.save_sources(iid, sources)
    add_findings(repo, iid, [ids[sources[0].url]])
    verdict = Verdict(
        claim_key="C1",
        claim_text="The mayor signed the contract in March 2024.",
        verdict="verified",
        confidence=0.9,
        explanation="On record.",
        evidence=[
            Evidence(
                url="https://records.example/contract",
                title="Signed contract",
                publisher="City records",
                reliability="high",
                stance="supports",
            ),
            Evidence(
                url="https://records.citynews.example.com/minutes",
                title="Minutes",
                publisher="example.com",
                reliability="high",
                stance="supports",
                snippet="Signed.",
            ),
        ],
    )
    repo.save_verdicts(iid, [verdict])
    page = (await client.get(f"/investigations/{iid}")).text
    first = card(page, "source-1")
    assert '<span class="domain">citynews.example.com</span>' in first
    assert ">example.com<" not in first  # the registrable domain is not shown as the host
    second = card(page, "source-2")
    assert '<span class="publisher">News Two</span>' in second  # a publisher's name is kept
    assert '<span class="domain">news2.example</span>' in second
    checks = panel(page, "fact-checks")
    assert '<span class="muted">records.citynews.example.com</span>' in checks
    assert ">example.com<" not in checks
    assert '<span class="muted">City records</span>' in checks


async def test_bias_legend_reads_as_a_scale_not_as_counts(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = full_investigation(repo)
    bias = panel((await client.get(f"/investigations/{iid}")).text, "bias")
    assert (
        '<p class="stat-note">Low-Moderate bias, on a scale from 0 (balanced) to 10 (one-sided)</p>'
    ) in bias
    assert '<p class="scale-ends" aria-hidden="true"><span>0</span><span>10</span></p>' in bias
    assert re.search(r"\d\s*(balanced|one-sided)", bias) is None  # never "0 balanced"
    # The counts beside the coverage bars say what they count.
    assert '<span class="bar-value">50% · 1 source</span>' in bias
    assert '<span class="bar-value">0% · 0 sources</span>' in bias


STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)


async def test_token_page_is_styled_without_the_token(
    served: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The "Access token needed" page cannot load what the token guards: its style is inline."""
    set_token(monkeypatch, TOKEN)
    for path in ("/investigations", "/dev-ui/"):
        response = await served.get(path)
        assert response.status_code == 401
        page = response.text
        assert "Access token needed" in page
        # Everything it links loads without the token (nothing is linked at all).
        for href in re.findall(r'<(?:link|script)[^>]*(?:href|src)="(/[^"]*)"', page):
            assert (await served.get(href)).status_code == 200, href
        styles = STYLE.findall(page)
        assert len(styles) == 1 and ".topbar" in styles[0]
        # The CSP allows exactly this inline style, by its hash.
        digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
        policy = response.headers["content-security-policy"]
        assert f"style-src 'sha256-{digest}'" in policy
        assert "unsafe-inline'" not in policy.replace("style-src-attr 'unsafe-inline'", "")


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
    served: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = full_investigation(repo)
    set_token(monkeypatch, TOKEN)
    assert (await served.get("/api/investigations?token=wrong")).status_code == 401
    response = await served.get(f"/investigations/{iid}?token={TOKEN}&x=1")
    assert response.status_code == 303
    assert response.headers["location"] == f"/investigations/{iid}?x=1"  # token dropped
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE_NAME}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert TOKEN not in cookie  # the cookie carries a derived value
    # The client now holds the cookie: the page and the polling API work without the token.
    assert served.cookies.get(COOKIE_NAME)
    assert (await served.get(f"/investigations/{iid}")).status_code == 200
    assert (await served.get(f"/api/investigations/{iid}")).status_code == 200
    # A query token on the API is redirected away too (and sets the cookie).
    served.cookies.clear()
    api = await served.get(f"/api/investigations?token={TOKEN}")
    assert api.status_code == 303 and api.headers["location"] == "/api/investigations"
    assert api.headers["set-cookie"].startswith(f"{COOKIE_NAME}=")
    assert (await served.get("/api/investigations")).json()[0]["id"] == iid
    # Settings are read per request: a new token invalidates the old cookie.
    set_token(monkeypatch, "another-token")
    assert (await served.get(f"/api/investigations/{iid}")).status_code == 401
    served.cookies.set(COOKIE_NAME, "forged")
    assert (await served.get(f"/investigations/{iid}")).status_code == 401


async def test_router_alone_stays_closed(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mounted without the middleware, the routes still need the header or the cookie."""
    iid, _ = full_investigation(repo)
    set_token(monkeypatch, TOKEN)
    denied = await client.get(f"/investigations/{iid}?token={TOKEN}")
    assert denied.status_code == 401 and "Access token needed" in denied.text
    client.cookies.set(COOKIE_NAME, cookie_value(TOKEN))
    assert (await client.get(f"/investigations/{iid}")).status_code == 200


# --- snapshots: the texts Vicaran read -----------------------------------------------------


def snapshot_url(iid: str, sha: str) -> str:
    return f"/api/investigations/{iid}/snapshots/{sha}"


NOT_FOUND = {"success": False, "error": "snapshot not found"}


async def test_snapshot_is_the_text_read_and_hashes_to_its_name(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    for text in (SOURCE_TEXT, EVIDENCE_TEXT):
        response = await client.get(snapshot_url(iid, sha256(text)))
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/plain; charset=utf-8"
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.text == text
        assert hashlib.sha256(response.content).hexdigest() == sha256(text)


async def test_unknown_snapshot_is_404(client: httpx.AsyncClient, repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    response = await client.get(snapshot_url(iid, sha256("never read")))
    assert response.status_code == 404 and response.json() == NOT_FOUND
    unknown = await client.get(snapshot_url("no-such-investigation", sha256(SOURCE_TEXT)))
    assert unknown.status_code == 404 and unknown.json() == NOT_FOUND


async def test_snapshot_of_another_investigation_is_404(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    other = start(repo, title="Port tender")
    text = "Only the port tender investigation read this."
    repo.save_sources(other, [source(9, content_sha256=sha256(text))], texts={sha256(text): text})
    assert (await client.get(snapshot_url(other, sha256(text)))).text == text  # it exists
    response = await client.get(snapshot_url(iid, sha256(text)))
    assert response.status_code == 404 and response.json() == NOT_FOUND
    assert (await client.get(snapshot_url(other, sha256(SOURCE_TEXT)))).status_code == 404


async def test_malformed_snapshot_name_is_404_even_when_stored(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = start(repo)
    text = "Stored under a name that is not a lowercase SHA-256."
    upper = sha256(text).upper()  # the store keeps any name; the endpoint must refuse it
    repo.save_sources(iid, [source(1, content_sha256=upper)], texts={upper: text})
    assert repo.get_snapshot(iid, upper) == text
    for name in (upper, sha256(text)[:63], sha256(text) + "0", "g" * 64, "latest"):
        response = await client.get(snapshot_url(iid, name))
        assert response.status_code == 404, name
        assert response.json() == NOT_FOUND


async def test_snapshot_needs_the_token_when_set(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = trust_investigation(repo)
    set_token(monkeypatch, TOKEN)
    path = snapshot_url(iid, sha256(SOURCE_TEXT))
    denied = await client.get(path)
    assert denied.status_code == 401 and denied.json() == {
        "success": False,
        "error": "Unauthorized",
    }
    ok = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.text == SOURCE_TEXT


# --- the trust fields on the page ----------------------------------------------------------


def card(page: str, element_id: str) -> str:
    """The HTML of the card with this id (up to the next card)."""
    start_at = page.index(f'id="{element_id}"')
    end_at = page.find('<li class="card', start_at)
    return page[start_at : end_at if end_at != -1 else len(page)]


async def test_links_go_to_the_address_as_found_with_snapshot_links(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    first = card(page, "source-1")
    assert f'<a href="{DISPLAY_1}" target="_blank" rel="noopener noreferrer">Story 1</a>' in first
    assert 'href="https://news1.example/story"' not in page  # the normalized url is not linked
    assert f'<a class="snap" href="{snapshot_url(iid, sha256(SOURCE_TEXT))}"' in first
    assert ">snapshot</a>" in first
    assert "News One" in first and "news1.example" in first
    assert "Published 2024-03-01 (page metadata)" in first  # the date, and who states it
    assert "Publication date unknown" in card(page, "source-3")  # shown as unknown
    assert "Publication date unknown" not in first
    assert 'Retrieved <time datetime="2024-04-02T10:00:00+00:00">2024-04-02</time>' in first
    assert "Provided by you" in first and "Relevance 90%" in first
    assert 'class="snap"' not in card(page, "source-3")  # no text stored, no snapshot link
    # Evidence: the address as found, and its snapshot.
    assert f'<a href="{EVIDENCE_DISPLAY}" target="_blank"' in page
    assert 'href="https://records.example/contract"' not in page
    assert f'<a class="snap" href="{snapshot_url(iid, sha256(EVIDENCE_TEXT))}"' in page
    # Every snapshot linked from the page is served.
    for name in set(re.findall(r'/snapshots/([0-9a-f]{64})"', page)):
        assert (await client.get(snapshot_url(iid, name))).status_code == 200


async def test_set_aside_sources_are_marked_and_counted(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    aside = card(page, "source-2")
    assert page.count('class="card source set-aside"') == 1
    assert '<li class="card source set-aside" id="source-2">' in page
    assert "Set aside: off-topic (relevance 12%): About a football match." in aside
    assert "Set aside" not in card(page, "source-1")
    assert '<p class="panel-note">1 of 3 sources set aside as off-topic' in page


async def test_claims_from_the_brief_are_tagged(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    assert "From your brief" in card(page, "claim-C5")
    assert all("From your brief" not in card(page, f"claim-C{n}") for n in range(1, 5))
    assert page.count("From your brief") == 1


async def test_evidence_shows_quote_independence_and_provenance(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    checks = page[page.index('<section class="panel" id="fact-checks"') :]
    checks = checks[: checks.index('<section class="panel" id="bias"')]
    assert checks.count(f'<blockquote class="quote">{QUOTE}</blockquote>') == 5
    assert checks.count('<span class="tag ind-yes">Independent</span>') == 5
    assert checks.count(f'<span class="tag ind-no">Not independent: {NOT_INDEPENDENT}</span>') == 5
    assert (
        '<p class="note">Counted as context, not &#39;supports&#39;: the quote is not in the '
        "text read</p>"
    ) in checks
    assert f"Published 2024-03-02 (search service) · found by: {QUERY}" in checks
    assert checks.count("Publication date unknown") == 5  # the items with no date say so
    assert checks.count("Checked on 2024-04-03") == 4  # C4 has no date
    assert "Supports" in checks and "High reliability" in checks


async def test_bias_states_no_score_and_unrated(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    finished, _ = trust_investigation(repo)  # completed, no source could be rated
    page = (await client.get(f"/investigations/{finished}")).text
    assert "No source could be rated, so there is no bias score." in page
    assert "No bias assessment yet." not in page
    running = start(repo)
    page = (await client.get(f"/investigations/{running}")).text
    assert "No bias assessment yet." in page and "No source could be rated" not in page
    rated, _ = full_investigation(repo)
    page = (await client.get(f"/investigations/{rated}")).text
    assert "on a scale from 0 (balanced) to 10 (one-sided)" in page
    assert "rated sources" not in page  # nothing was left unrated
    repo.save_bias(
        rated,
        BiasAssessment(
            overall_bias_score=2.0,
            coverage={"supportive": 1, "neutral": 1, "critical": 0},
            coverage_pct={"supportive": 50.0, "neutral": 50.0, "critical": 0.0},
            unrated=3,
        ),
    )
    page = (await client.get(f"/investigations/{rated}")).text
    assert "<figcaption>Coverage balance over 2 rated sources (3 not rated)</figcaption>" in page


async def test_summary_has_the_report_check_and_no_marker(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    assert "[INVESTIGATION_COMPLETE]" not in page
    summary = page[page.index('<section class="panel" id="summary"') :]
    assert summary.index('<div class="prose">') < summary.index("Report check")
    assert '<p class="stat-value">73<span> / 100</span></p>' in summary
    assert "Rewrite threshold 70" in summary
    labels = ("Factual accuracy", "Citation correctness", "Plan coverage", "Structure", "Relevance")
    for label, score in zip(labels, (91, 82, 73, 64, 55), strict=True):
        assert (
            f'<span class="bar-label">{label}</span><span class="bar" aria-hidden="true">'
            f'<span class="bar-fill " style="width:{score}.0%"></span></span>'
            f'<span class="bar-value">{score}</span>'
        ) in summary
    assert (
        "9 cited sentences checked against their sources · 2 unsupported · 1 removed · "
        "Rewritten once"
    ) in summary
    assert '<ul class="problems"><li>The timeline repeats the findings.</li></ul>' in summary
    # Without a quality record there is no box.
    plain, _ = full_investigation(repo)
    assert "Report check" not in (await client.get(f"/investigations/{plain}")).text


async def test_header_links_every_export(client: httpx.AsyncClient, repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    page = (await client.get(f"/investigations/{iid}")).text
    head = page[page.index('<div class="inv-head">') : page.index('<nav class="tabs"')]
    for fmt in ("md", "html", "json", "claimreview"):
        href = f"/api/investigations/{iid}/export?format={fmt}"
        assert f'<a href="{href}" download>' in head
        assert (await client.get(href)).status_code == 200


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
        "<h4>not a heading</h4>\n"  # CommonMark: #### is a heading too
        "<p>Some <strong>bold</strong>, <em>italic</em> and <em>also italic</em> text "
        '<a href="#source-3" class="cite">[3]</a>, a snake_case_name.<br>\n'
        'Next line <a href="https://example.org/a?b=1&amp;c=2" rel="noopener noreferrer">'
        "https://example.org/a?b=1&amp;c=2</a>.</p>\n"
        "<ol>\n<li>first</li>\n<li>second</li>\n</ol>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>"
    )
    assert render_markdown("# T", heading_offset=2) == "<h3>T</h3>"
    assert render_markdown("###### T", heading_offset=2) == "<h6>T</h6>"  # never past h6
    assert render_markdown("3. third\n4. fourth") == (
        '<ol start="3">\n<li>third</li>\n<li>fourth</li>\n</ol>'
    )


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


# --- only saved sources are linked (DESIGN principle 5) -------------------------------------

SAVED = ("https://news1.example/story", DISPLAY_1)
EVIL = "https://evil.example/login"
HREF = re.compile(r'href="([^"]*)"')


def hrefs(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in HREF.findall(html)]


def assert_only_saved_links(html: str) -> None:
    from vicaran_agent.urls import normalize_url

    saved = {normalize_url(u) for u in SAVED}
    for href in hrefs(html):
        assert re.fullmatch(r"#source-\d+", href) or normalize_url(href) in saved, (href, html)


@pytest.mark.parametrize(
    "markdown",
    [
        f"[the council]({EVIL})",
        f'[the council]({EVIL} "title")',
        f"[the council](<{EVIL}>)",
        f"<{EVIL}>",
        f"see {EVIL}.",
        "HTTPS://EVIL.EXAMPLE/LOGIN and [x](HTTPS://EVIL.EXAMPLE/)",
        "[x](https://evil.example@news1.example/story)",
        "[x](https://news1.example.evil.example/story)",
        "[x](https://news1.example/story/../../evil)",
        f"[1]: {EVIL}\n\nAs reported [1].",
        f"[council][1]\n\n[1]: {EVIL}",
        f"![tracking pixel]({EVIL}.png)",
        "[x](javascript:alert(1)) [y](data:text/html,hi) [z](//evil.example/a)",
        "[x](&#104;ttps://evil.example/a) [y](https&#58;//evil.example/b)",
        f"**[bold]({EVIL})** *{EVIL}* `{EVIL}`",
        f"[outer [inner]({EVIL})]({SAVED[0]})",
    ],
)
def test_link_syntax_never_links_outside_the_allowed_set(markdown: str) -> None:
    html = render_markdown(markdown, allowed_links=SAVED)
    assert_only_saved_links(html)
    assert "<img" not in html and "javascript:" not in html.replace("[x](javascript:", "")


def test_allowed_links_become_links_and_others_stay_text() -> None:
    text = (
        f"Council [minutes]({SAVED[0]}), bare {DISPLAY_1} and https://www.news1.example/story/ "
        f"(the same page), but [login]({EVIL}) and {EVIL}?x=1&y=2 and <{EVIL}> [2]."
    )
    html = render_markdown(text, allowed_links=SAVED)
    link = f'<a href="{SAVED[0]}" rel="noopener noreferrer">minutes</a>'
    assert link in html
    display = DISPLAY_1.replace("&", "&amp;")
    assert f'<a href="{display}" rel="noopener noreferrer">{display}</a>' in html
    assert 'href="https://www.news1.example/story/"' in html  # the same page, as written
    assert f'login (<span class="url">{EVIL}</span>)' in html
    assert f'<span class="url">{EVIL}?x=1&amp;y=2</span>' in html
    assert f'<span class="url">{EVIL}</span> <a href="#source-2" class="cite">[2]</a>' in html
    assert 'href="https://evil' not in html
    # No saved source at all: no link but citations.
    bare = render_markdown(text, allowed_links=())
    assert [h for h in hrefs(bare) if not h.startswith("#source-")] == []
    # Without a set (exports), any http(s) URL may be linked, nothing else.
    assert f'<a href="{EVIL}" rel="noopener noreferrer">login</a>' in render_markdown(text)


async def test_dashboard_summary_links_only_saved_sources(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = start(repo)
    ids = repo.save_sources(iid, [source(1, display_url=DISPLAY_1), source(2)])
    assert len(ids) == 2
    summary = (
        f"# Report\n\nThe mayor signed [1] (see [the story]({DISPLAY_1}) and "
        f"https://news2.example/story). Sign in at [the portal]({EVIL}) or {EVIL}.\n"
    )
    repo.finish_investigation(iid, "completed", summary=summary)
    page = (await client.get(f"/investigations/{iid}")).text
    prose = page[page.index('<div class="prose">') :]
    prose = prose[: prose.index("</div>")]
    data = (await client.get(f"/api/investigations/{iid}")).json()
    for html in (prose, data["summary_html"]):
        assert 'href="https://evil' not in html
        assert f'<span class="url">{EVIL}</span>' in html
        assert f'href="{DISPLAY_1.replace("&", "&amp;")}"' in html
        assert 'href="https://news2.example/story"' in html
        assert '<a href="#source-1" class="cite">[1]</a>' in html


async def test_summary_is_rendered_off_the_event_loop(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = full_investigation(repo)
    where: list[str] = []
    real = views.render_markdown

    def spy(*args: Any, **kwargs: Any) -> str:
        try:
            asyncio.get_running_loop()
            where.append("event loop")
        except RuntimeError:
            where.append("worker thread")
        return real(*args, **kwargs)

    monkeypatch.setattr(views, "render_markdown", spy)
    assert (await client.get(f"/investigations/{iid}")).status_code == 200
    assert (await client.get(f"/api/investigations/{iid}")).status_code == 200
    assert where == ["worker thread", "worker thread"]


# --- the renderer's time: linear on any input ------------------------------------------------

SIZE = 100_000
BENIGN = (
    "## Finding\n\nThe mayor **signed** the contract [1] on *1 March 2024*, as the council "
    "minutes show (https://news1.example/story). See also [the story](https://news1.example/story)"
    " and `code`.\n\n- one point [2]\n- another _point_\n\n"
)
PATHOLOGICAL = {
    "stars": "*" * SIZE,
    "underscores": "_" * SIZE,
    "brackets": "[" * SIZE,
    "link openers": "[a](" * (SIZE // 4),
    "image openers": "![" * (SIZE // 2),
    "nested emphasis": "*a **b " * (SIZE // 7),
    "unclosed strong": "**a" * (SIZE // 3),
    "mixed delimiters": "*_[" * (SIZE // 3),
    "backticks": "`a" * (SIZE // 2),
    "angle brackets": "<a" * (SIZE // 2),
    "urls": "https://" * (SIZE // 8),
    "url with closing parentheses": "https://a.example/" + ")" * SIZE,
    "url with trailing punctuation": "https://a.example/" + ".,;:!?*_" * (SIZE // 8),
    "citations": "[1]" * (SIZE // 3),
    "blockquotes": "> " * (SIZE // 2),
    "list markers": "- " * (SIZE // 2),
}


def _render(text: str) -> object:
    return render_markdown(text, heading_offset=2, allowed_links=SAVED)


@pytest.mark.parametrize("name", PATHOLOGICAL)
def test_pathological_input_renders_in_time_proportional_to_its_size(name: str) -> None:
    """A backtracking renderer takes seconds to minutes here; a linear one, a small multiple of
    a benign report of the same size (CPU time, measured beside it: `tests.support.linear`)."""
    benign = (BENIGN * (SIZE // len(BENIGN) + 1))[:SIZE]
    text = PATHOLOGICAL[name]
    assert len(text) >= SIZE * 0.95, name
    assert_linear(_render, benign, text, slack=40)


async def test_an_interrupted_run_has_its_own_label(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = start(repo)
    assert repo.mark_interrupted([iid], "the server stopped") == [iid]
    page = (await client.get("/investigations")).text
    assert '<span class="badge status-interrupted">Interrupted</span>' in page
    detail = (await client.get(f"/investigations/{iid}")).text
    assert "Interrupted" in detail


async def test_checks_are_numbered_as_the_chat_numbers_their_claims(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    """The chat says "claim 3/3"; so do the dashboard's check and the claim's page, even when
    claim 2 has no check (its check raised)."""
    iid = start(repo)
    claims = [
        Claim(key=f"C{n}", claim_text=f"Claim {n} about the dam.", importance=0.5)
        for n in range(1, 4)
    ]
    ids = repo.save_claims(iid, claims)
    repo.save_verdicts(
        iid,
        [
            Verdict(
                claim_key=c.key,
                claim_text=c.claim_text,
                claim_id=ids[c.key],
                verdict="unverified",
                confidence=0.4,
                explanation="Not settled.",
            )
            for c in (claims[0], claims[2])
        ],
    )
    page = (await client.get(f"/investigations/{iid}")).text
    checks = page.split('id="fact-checks"', 1)[1].split("</section>", 1)[0]
    assert re.findall(r"Claim (\d+)/(\d+)", checks) == [("1", "3"), ("3", "3")]
    second = (await client.get(f"/investigations/{iid}/claims/2")).text  # its second check
    assert "Claim 3/3" in second and "Claim 3 about the dam." in second


async def test_a_portuguese_investigation_is_shown_in_portuguese(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    """The page follows the investigation's language: labels, statuses, verdicts, dates and the
    page's own `lang`; an English one stays English."""
    iid = start(repo, language="pt-BR")
    ids = repo.save_sources(iid, [source(1)])
    add_findings(repo, iid, list(ids.values()))
    page = (await client.get(f"/investigations/{iid}")).text
    assert '<html lang="pt-BR">' in page
    tabs = re.findall(
        r'<a class="tab" id="tab-[a-z-]+" href="#[a-z-]+" data-panel="[a-z-]+">([^<]+)', page
    )
    assert [t.strip() for t in tabs] == [
        "Fontes", "Alegações", "Checagens", "Viés", "Linha do tempo", "Resumo",
    ]  # fmt: skip
    assert '<span class="badge status-in_progress">Em andamento</span>' in page
    assert '<span class="badge verdict-partially_true">Parcialmente verdadeiro</span>' in page
    assert "Ao vivo: atualizando a cada 3 s" in page and "Modo detalhado" in page
    assert '<time datetime="2023-11">novembro de 2023</time>' in page
    assert "Credibilidade 4 de 5: Credibilidade boa" in page
    live = await client.get(f"/investigations/{iid}", headers={"Vicaran-Fragment": "main"})
    assert 'data-lost="Conexão perdida, tentando de novo…"' in live.text
    english = (await client.get(f"/investigations/{start(repo)}")).text
    assert '<html lang="en">' in english and ">In progress</span>" in english


async def test_an_unreadable_source_shows_its_reason_and_its_details_apart(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid = start(repo)
    unread = source(
        1,
        is_reachable=False,
        unreachable_reason="the site could not be found (its address does not exist)",
        unreachable_detail="Jina Reader: no content available (422); direct fetch: could not "
        "resolve host nonexistent.example.org",
    )
    repo.save_sources(iid, [unread])
    page = (await client.get(f"/investigations/{iid}")).text
    assert "Not reachable: the site could not be found (its address does not exist)" in page
    assert (
        '<details class="detail"><summary>Details</summary><code>Jina Reader: no content '
        "available (422); direct fetch: could not resolve host nonexistent.example.org</code>"
    ) in page
    saved = (await client.get(f"/api/investigations/{iid}")).json()["sources"][0]
    assert saved["unreachable_detail"].startswith("Jina Reader")
