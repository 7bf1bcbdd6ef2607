"""Links follow the server: `vicaran serve --port P` (`make run PORT=P`) → every link Vicaran
gives to itself names port P, and each checked claim has its own page with its ClaimReview.

The end-to-end test runs `vicaran serve` (the command, in a thread of the test's process, as a
fresh process runs it) on a free port with the loopback fakes and the scripted model; its
environment has no VICARAN_PUBLIC_URL, or the value `.env.example` shipped until the links
followed the server (the `.env` of everyone who ran `make run` before).
The others check the settings, the terminal's link and the claim page one by one.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

import httpx
import pytest
from pydantic import ValidationError

from tests.support.api_server import APP, free_port, run_sse
from tests.support.corpus import RIVERTON
from tests.support.inprocess import vicaran_serving
from tests.support.records import as_json, view
from tests.support.store import dashboard_client, fresh_repository, panel
from tests.support.wait import in_thread
from tests.test_dashboard import QUOTE, XSS, start, trust_investigation
from vicaran_agent import cli, export
from vicaran_agent.cli import server as cli_server
from vicaran_agent.config import Settings, forget_settings, get_settings
from vicaran_agent.schemas import Claim, Evidence, Verdict
from vicaran_agent.server.app import build_server
from vicaran_agent.storage import Repository

ROOT = Path(__file__).resolve().parent.parent
# An absolute link in text, Markdown, HTML or JSON: up to the first character none of them
# puts inside an address.
LINK = re.compile(r"https?://[^\s\"'<>()\[\]`\\]+")
OWN_PATHS = ("/investigations", "/api/investigations", "/dev-ui")
FORMATS = ("md", "html", "json", "claimreview")
RETIRED = "http://127.0.0.1:8000"  # what .env.example shipped, and `make run` copied to .env


def text(event: dict) -> str:
    parts = (event.get("content") or {}).get("parts") or []
    return "".join(p.get("text") or "" for p in parts)


def own_links(content: str) -> list[SplitResult]:
    """The absolute links in `content` to Vicaran's own pages and API."""
    links = [urlsplit(link) for link in LINK.findall(content)]
    return [link for link in links if link.path.startswith(OWN_PATHS)]


class JsonLd(HTMLParser):
    """The text of every `<script type="application/ld+json">` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and dict(attrs).get("type") == "application/ld+json":
            self._inside = True
            self.blocks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.blocks[-1] += data


def json_ld(page: str) -> list[dict]:
    parser = JsonLd()
    parser.feed(page)
    return [json.loads(block) for block in parser.blocks]


def investigate(base: str) -> tuple[str, str]:
    """A quick investigation through the agent API, approved: its id and last message."""
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
    brief = (
        "Quick Search. Investigate whether Acme Chemicals polluted Riverton's drinking water. "
        f"{RIVERTON[0].url}"
    )
    plan = text(run_sse(base, session["id"], brief)[-1][1])
    assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    said = [text(e) for _, e in run_sse(base, session["id"], "APPROVED") if text(e)]
    assert said[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    state = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()
    assert state["state"]["investigation_status"] == "completed"
    return state["state"]["investigation_id"], said[-1]


@pytest.mark.e2e
@pytest.mark.timeout(300)
@pytest.mark.parametrize("configured", [None, RETIRED], ids=["unset", "retired"])
def test_every_link_names_the_port_the_server_listens_on(env, configured: str | None) -> None:
    env.set(VICARAN_SESSION_DB_URL="memory://")
    if configured is not None:
        env.set(VICARAN_PUBLIC_URL=configured)
    with vicaran_serving("127.0.0.1", free_port()) as served:
        base = served.base
        port = urlsplit(base).port
        assert port != 8000
        iid, last_message = investigate(base)
        record = httpx.get(f"{base}/api/investigations/{iid}").json()
        page = httpx.get(f"{base}/investigations/{iid}")
        assert page.status_code == 200
        exports = {}
        for fmt in FORMATS:
            response = httpx.get(f"{base}/api/investigations/{iid}/export", params={"format": fmt})
            assert response.status_code == 200, (fmt, response.text)
            exports[fmt] = response.text
        checks = record["fact_checks"]
        claim_pages = [
            httpx.get(f"{base}/investigations/{iid}/claims/{n}") for n in range(1, len(checks) + 1)
        ]
    log = served.said()

    said = {
        "the run's last message": last_message,
        "the saved report": record["summary"],
        "the dashboard page": page.text,
        **{f"the {fmt} export": exports[fmt] for fmt in FORMATS},
        **{f"claim page {n}": p.text for n, p in enumerate(claim_pages, 1)},
    }
    for where, content in said.items():
        elsewhere = {link.geturl() for link in own_links(content) if link.port != port}
        assert elsewhere == set(), where
        assert ":8000/" not in content, where
    # Each kind of link is there, so the check above has something to check.
    assert f"{base}/investigations/{iid}" in last_message
    snapshots = f"{base}/api/investigations/{iid}/snapshots/"
    assert snapshots in record["summary"] and snapshots in exports["md"]
    reviews = json.loads(exports["claimreview"])
    pages = [f"{base}/investigations/{iid}/claims/{n}" for n in range(1, len(checks) + 1)]
    assert checks and [review["url"] for review in reviews] == pages
    # The HTML export needs no server: the texts it cites are inside it.
    assert own_links(exports["html"]) == []
    assert 'id="snapshot-' in exports["html"]
    # One page per claim, carrying exactly that claim's ClaimReview, which names the page.
    for n, (claim_page, check) in enumerate(zip(claim_pages, checks, strict=True), 1):
        assert claim_page.status_code == 200
        (review,) = json_ld(claim_page.text)
        assert review["@type"] == "ClaimReview"
        assert review["url"] == pages[n - 1] == str(claim_page.url)
        assert review["claimReviewed"] == check["claim_text"]
        assert review == reviews[n - 1]
    # The dashboard leads to them.
    for url in pages:
        assert f'href="{urlsplit(url).path}"' in page.text
    assert f"dashboard {base}/investigations" in log
    assert (f"VICARAN_PUBLIC_URL={RETIRED}" in log) is (configured == RETIRED)


def test_make_run_passes_its_port_to_vicaran_serve() -> None:
    """`make run PORT=8123` serves on 8123, so the test above covers what it links."""
    dry_run = subprocess.run(
        ["make", "-n", "run", "PORT=8123"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    (serve,) = [line for line in dry_run.stdout.splitlines() if "vicaran serve" in line]
    assert serve.endswith("vicaran serve --host 127.0.0.1 --port 8123")


# --- the address links name -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8123, "http://127.0.0.1:8123"),
        ("localhost", 8100, "http://localhost:8100"),
        ("10.1.2.3", 80, "http://10.1.2.3:80"),
        ("::1", 8123, "http://[::1]:8123"),
        ("[::1]", 8123, "http://[::1]:8123"),
        ("fe80::1", 8123, "http://[fe80::1]:8123"),
        # Bound to every interface: the address that reaches it from its own machine, which the
        # Host check answers by default.
        ("0.0.0.0", 8123, "http://127.0.0.1:8123"),
        ("::", 8123, "http://[::1]:8123"),
    ],
)
def test_links_name_the_address_the_server_is_bound_to(env, host: str, port: int, url: str):
    assert Settings(_env_file=None).serving_at(host, port) == url  # type: ignore[call-arg]


def test_env_example_leaves_the_public_url_to_the_server(env):
    example = ROOT / ".env.example"
    settings = Settings(_env_file=example)  # type: ignore[call-arg]
    assert settings.serving_at("127.0.0.1", 8123) == "http://127.0.0.1:8123"
    assert re.search(r"^# VICARAN_PUBLIC_URL=", example.read_text(), re.M)


@pytest.mark.parametrize("retired", [RETIRED, RETIRED + "/"])
def test_the_retired_default_is_taken_as_unset_and_said_so(env, tmp_path: Path, retired: str):
    dotenv = tmp_path / ".env"  # what `make run` copied from .env.example before
    dotenv.write_text(f"VICARAN_PUBLIC_URL={retired}\n")
    settings = Settings(_env_file=dotenv)  # type: ignore[call-arg]
    assert settings.vicaran_public_url == retired
    assert settings.serving_at("127.0.0.1", 8123) == "http://127.0.0.1:8123"
    (notice,) = cli_server.serve_notices(settings, "127.0.0.1", 8123)
    assert notice.startswith(f"VICARAN_PUBLIC_URL={RETIRED} ")
    assert "http://127.0.0.1:8123" in notice and "\n" not in notice
    # Served where it says, it is right: nothing to say.
    assert cli_server.serve_notices(settings, "127.0.0.1", 8000) == []
    # Any other address is the operator's: kept, and nothing said.
    chosen = Settings(_env_file=None, vicaran_public_url="http://localhost:8000/")  # type: ignore[call-arg]
    assert chosen.serving_at("127.0.0.1", 8123) == "http://localhost:8000"
    assert cli_server.serve_notices(chosen, "0.0.0.0", 8123) == []


def test_a_server_on_every_interface_says_what_its_links_name(env):
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    (notice,) = cli_server.serve_notices(settings, "0.0.0.0", 8123)
    assert "http://127.0.0.1:8123" in notice and "VICARAN_PUBLIC_URL" in notice
    assert cli_server.serve_notices(settings, "127.0.0.1", 8123) == []


@pytest.mark.parametrize("value", ["vicaran.example.org", "ftp://vicaran.example.org", "http://"])
def test_a_public_url_that_is_not_an_address_is_refused(env, value: str):
    with pytest.raises(ValidationError, match="VICARAN_PUBLIC_URL must be"):
        Settings(_env_file=None, vicaran_public_url=value)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("configured", "base"),
    [(None, RETIRED), (RETIRED, RETIRED), ("https://vicaran.example.org/", None)],
    ids=["unset", "retired", "set"],
)
async def test_a_headless_run_says_which_address_its_links_assume(
    env, capsys: pytest.CaptureFixture[str], configured: str | None, base: str | None
):
    if configured:
        env.set(VICARAN_PUBLIC_URL=configured)
    iid = "5d1c2b3a-0f9e-4d8c-b7a6-112233445566"
    brief = "Did Acme Chemicals pollute Riverton's drinking water?"
    code = await in_thread(cli.main, ["investigate", brief, "--yes", "--id", iid])
    assert code == 0
    *_, label, link = capsys.readouterr().out.rstrip().splitlines()
    assert link == get_settings().investigation_url(iid)
    if base is None:
        assert link == f"https://vicaran.example.org/investigations/{iid}"
        assert label == "Open it in the dashboard (`make run` or `vicaran serve`):"
    else:
        assert link == f"{base}/investigations/{iid}"
        assert "by default" in label and "VICARAN_PUBLIC_URL" in label


# --- the dashboard ----------------------------------------------------------------------------

PUBLIC = "https://vicaran.example.org"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch, "VICARAN_PUBLIC_URL") as repository:
        monkeypatch.setenv("VICARAN_PUBLIC_URL", PUBLIC + "/")
        forget_settings()
        yield repository


async def test_the_dashboard_links_a_reports_snapshots_on_this_server(repo: Repository):
    """A report written while the server was elsewhere (a headless run, another port) links
    its snapshots here: the dashboard's links are paths on the server that shows them."""
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    sha = investigation["sources"][0]["content_sha256"]
    written = f"{RETIRED}/api/investigations/{iid}/snapshots/{sha}"
    repo.finish_investigation(
        iid, "completed", summary=f"# Dam contract\n\n- [1] **Story 1** — [snapshot]({written})"
    )
    async with dashboard_client() as client:
        page = (await client.get(f"/investigations/{iid}")).text
    summary = panel(page, "summary")
    assert f'href="/api/investigations/{iid}/snapshots/{sha}"' in summary
    assert RETIRED not in page


# --- one page per claim ---------------------------------------------------------------------


def claim_path(iid: str, n: int | str) -> str:
    return f"/investigations/{iid}/claims/{n}"


async def test_each_checked_claim_has_its_page_carrying_its_claimreview(repo: Repository):
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    reviews = export.claim_reviews(view(investigation))
    async with dashboard_client() as client:
        for n, check in enumerate(investigation["fact_checks"], 1):
            page = await client.get(claim_path(iid, n))
            assert page.status_code == 200
            assert page.headers["content-type"].startswith("text/html")
            (review,) = json_ld(page.text)
            assert review == reviews[n - 1]
            assert review["url"] == f"{PUBLIC}{claim_path(iid, n)}"
            assert (
                review["claimReviewed"]
                == check["claim_text"]
                == f"Claim {n} about the dam contract."
            )
            assert f'<link rel="canonical" href="{review["url"]}">' in page.text
            # What the markup says is on the page: the claim, its verdict and its evidence.
            assert f"<h1>{check['claim_text']}</h1>" in page.text
            assert review["reviewRating"]["alternateName"] in page.text
            assert check["explanation"] in page.text and QUOTE in page.text
            assert f'href="/investigations/{iid}"' in page.text  # back to the investigation
    assert [r["url"] for r in reviews] == [f"{PUBLIC}{claim_path(iid, n)}" for n in range(1, 6)]


async def test_claim_text_cannot_break_out_of_the_markup(repo: Repository):
    hostile = f"</script><script>alert(1)</script><!-- {XSS} \u2028 & '\""
    iid = start(repo)
    ids = repo.save_claims(iid, [Claim(key="C1", claim_text=hostile, importance=0.5)])
    verdict = Verdict(
        claim_key="C1",
        claim_text=hostile,
        claim_id=ids["C1"],
        verdict="false",
        confidence=0.9,
        explanation=f"Refuted [1]. {XSS}",
        evidence=[
            Evidence(
                url="https://records.example/x",
                title=XSS,
                publisher="Records",
                reliability="high",
                stance="refutes",
                snippet=XSS,
            )
        ],
    )
    repo.save_verdicts(iid, [verdict])
    async with dashboard_client() as client:
        page = (await client.get(claim_path(iid, 1))).text
    (review,) = json_ld(page)
    assert review["claimReviewed"] == hostile
    assert page.lower().count("<script") == 2  # the dashboard's script and the JSON-LD
    assert "<script>alert" not in page and "<!--" not in page


@pytest.mark.parametrize("n", ["0", "6", "-1", "01", "1.0", "x", "9" * 30])
async def test_a_claim_number_out_of_range_is_a_404_page(repo: Repository, n: str):
    iid, _ = trust_investigation(repo)
    async with dashboard_client() as client:
        page = await client.get(claim_path(iid, n))
        unknown = await client.get(claim_path("no-such-id", 1))
    for response in (page, unknown):
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert json_ld(response.text) == []


async def test_the_claim_page_has_the_dashboards_access_rules(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
):
    iid, _ = trust_investigation(repo)
    monkeypatch.setenv("VICARAN_DASHBOARD_TOKEN", "s3cret")
    forget_settings()
    path = claim_path(iid, 1)
    transport = httpx.ASGITransport(app=build_server(with_adk=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        refused = await http.get(path)
        assert refused.status_code == 401 and "Access token needed" in refused.text
        assert json_ld(refused.text) == []
        bearer = {"Authorization": "Bearer s3cret"}
        assert (await http.get(path, headers=bearer)).status_code == 200
        elsewhere = await http.get(path, headers={**bearer, "Host": "evil.example"})
        assert elsewhere.status_code == 421
    async with dashboard_client() as client:  # the router alone stays closed too
        assert (await client.get(path)).status_code == 401


async def test_the_dashboard_links_each_checked_claim_to_its_page(repo: Repository):
    iid, _ = trust_investigation(repo)
    repo.save_claims(iid, [Claim(key="C6", claim_text="Not checked.", importance=0.1)])
    async with dashboard_client() as client:
        page = (await client.get(f"/investigations/{iid}")).text
    claims = panel(page, "claims")
    checks = panel(page, "fact-checks")
    for n in range(1, 6):
        assert claims.count(f'href="{claim_path(iid, n)}"') == 1
        assert checks.count(f'href="{claim_path(iid, n)}"') == 1
    assert claim_path(iid, 6) not in page


def test_a_server_without_keys_names_each_one_and_what_it_turns_off(env):
    env.set(GOOGLE_API_KEY="", GEMINI_API_KEY="", TAVILY_API_KEY="", FACTCHECK_API_KEY="")
    env.set(VICARAN_FAST_MODEL="gemini-3.5-flash")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    (notice,) = cli_server.serve_notices(settings, "127.0.0.1", 8000)
    assert notice.startswith("Not set: GOOGLE_API_KEY (no model: nothing can be planned")
    assert "TAVILY_API_KEY (no web search" in notice and "FACTCHECK_API_KEY (no published" in notice
    assert "\n" not in notice and ".env.example" in notice
    env.set(GOOGLE_API_KEY="g", TAVILY_API_KEY="t", FACTCHECK_API_KEY="f")
    assert cli_server.serve_notices(Settings(_env_file=None), "127.0.0.1", 8000) == []  # type: ignore[call-arg]
