"""Exports: Markdown, standalone HTML, JSON and ClaimReview, from the CLI and the dashboard."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from markdown_it import MarkdownIt

from tests.support.records import as_json, stored, view
from tests.support.store import dashboard_client, fresh_repository
from tests.test_dashboard import (
    DISPLAY_1,
    ESCAPED_XSS,
    EVIDENCE_DISPLAY,
    EVIDENCE_TEXT,
    NOT_INDEPENDENT,
    QUALITY,
    QUERY,
    QUOTE,
    SOURCE_TEXT,
    TOKEN,
    VERDICTS,
    XSS,
    sha256,
    trust_investigation,
)
from vicaran_agent import cli, export
from vicaran_agent.config import forget_settings
from vicaran_agent.storage import Repository

MARKER = "[INVESTIGATION_COMPLETE]"
LABELS = {
    "en": ["Verified", "Partially true", "Misleading", "False", "Unverified"],
    "pt-BR": ["Verificado", "Parcialmente verdadeiro", "Enganoso", "Falso", "Não verificado"],
}
RATINGS = [5, 3, 2, 1, None]
FORMATS = [
    ("md", "md", "text/markdown; charset=utf-8"),
    ("html", "html", "text/html; charset=utf-8"),
    ("json", "json", "application/json"),
    ("claimreview", "jsonld", "application/ld+json"),
]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    unset = ("VICARAN_PUBLISHER_NAME", "VICARAN_PUBLISHER_URL", "VICARAN_PUBLIC_URL")
    with fresh_repository(tmp_path, monkeypatch, *unset) as repository:
        yield repository


@pytest.fixture
async def client(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    async with dashboard_client() as http:
        yield http


def configure(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    forget_settings()


def is_http_url(value: Any) -> bool:
    parts = urlsplit(value) if isinstance(value, str) else None
    return parts is not None and parts.scheme in ("http", "https") and bool(parts.netloc)


def assert_valid_claimreview(review: dict[str, Any]) -> None:
    """The properties schema.org ClaimReview rich results require, with their types."""
    assert review["@context"] == "https://schema.org"
    assert review["@type"] == "ClaimReview"
    assert isinstance(review["claimReviewed"], str) and review["claimReviewed"].strip()
    assert is_http_url(review["url"])
    author = review["author"]
    assert author["@type"] == "Organization" and author["name"].strip()
    assert "url" not in author or is_http_url(author["url"])
    rating = review["reviewRating"]
    assert rating["@type"] == "Rating"
    assert isinstance(rating["alternateName"], str) and rating["alternateName"].strip()
    assert (rating["bestRating"], rating["worstRating"]) == (5, 1)
    if "ratingValue" in rating:
        assert isinstance(rating["ratingValue"], int)
        assert rating["worstRating"] <= rating["ratingValue"] <= rating["bestRating"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", review["datePublished"])
    assert review["itemReviewed"]["@type"] == "Claim"
    for appearance in review["itemReviewed"].get("appearance", []):
        assert appearance["@type"] == "CreativeWork" and is_http_url(appearance["url"])
    assert review["inLanguage"] in ("en", "pt-BR")


def reviews_of(repo: Repository, iid: str) -> list[dict[str, Any]]:
    text = export.render("claimreview", stored(repo, iid))
    return json.loads(text)


# --- ClaimReview ---------------------------------------------------------------------------


def test_claimreview_is_valid_for_every_verdict(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    reviews = reviews_of(repo, iid)
    assert len(reviews) == len(VERDICTS) == 5
    for review, label, value in zip(reviews, LABELS["en"], RATINGS, strict=True):
        assert_valid_claimreview(review)
        rating = review["reviewRating"]
        assert rating["alternateName"] == label
        assert rating.get("ratingValue") == value
    unverified = reviews[-1]["reviewRating"]
    assert "ratingValue" not in unverified and unverified["alternateName"] == "Unverified"
    assert [r["claimReviewed"] for r in reviews] == [
        f"Claim {n} about the dam contract." for n in range(1, 6)
    ]


def test_claimreview_labels_follow_the_brief_language(repo: Repository) -> None:
    iid, _ = trust_investigation(repo, language="pt-BR")
    reviews = reviews_of(repo, iid)
    for review, label in zip(reviews, LABELS["pt-BR"], strict=True):
        assert_valid_claimreview(review)
        assert review["reviewRating"]["alternateName"] == label
        assert review["inLanguage"] == "pt-BR"
    assert "ratingValue" not in reviews[-1]["reviewRating"]
    assert "Não verificado" in export.render("claimreview", stored(repo, iid))


def test_claimreview_author_and_url_come_from_the_settings(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = trust_investigation(repo)
    review = reviews_of(repo, iid)[0]
    assert review["author"] == {"@type": "Organization", "name": "Vicaran"}  # no url when unset
    # Each review names the page that carries it: its claim's own (see test_public_links.py).
    assert review["url"] == f"http://127.0.0.1:8000/investigations/{iid}/claims/1"
    configure(
        monkeypatch,
        VICARAN_PUBLISHER_NAME="Diário do Rio",
        VICARAN_PUBLISHER_URL="https://diario.example",
        VICARAN_PUBLIC_URL="https://vicaran.diario.example/",
    )
    reviews = reviews_of(repo, iid)
    assert reviews[0]["author"] == {
        "@type": "Organization",
        "name": "Diário do Rio",
        "url": "https://diario.example",
    }
    assert [r["url"] for r in reviews] == [
        f"https://vicaran.diario.example/investigations/{iid}/claims/{n}" for n in range(1, 6)
    ]


def test_claimreview_appearance_is_where_the_claim_was_found(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    reviews = reviews_of(repo, iid)
    third = investigation["sources"][2]["display_url"]
    assert reviews[0]["itemReviewed"]["appearance"] == [
        {"@type": "CreativeWork", "url": DISPLAY_1},  # as found, not the normalized url
        {"@type": "CreativeWork", "url": third},
    ]
    assert reviews[1]["itemReviewed"]["appearance"] == [{"@type": "CreativeWork", "url": DISPLAY_1}]
    assert reviews[4]["itemReviewed"] == {"@type": "Claim"}  # C5: only from the brief


def test_claimreview_date_is_the_check_date_else_the_investigation_date(
    repo: Repository,
) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    dates = [r["datePublished"] for r in reviews_of(repo, iid)]
    finished = investigation["completed_at"][:10]
    assert finished != "2024-04-03"
    assert dates == ["2024-04-03"] * 3 + [finished] + ["2024-04-03"]  # C4 has no as_of


# --- Markdown, HTML, JSON ------------------------------------------------------------------


def test_markdown_export_has_the_report_and_the_evidence(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    text = export.render("md", stored(repo, iid))
    assert MARKER not in text
    assert text.startswith("# Dam contract\n")
    report_end = text.index("## Evidence")
    assert "The mayor **signed** it [1], see [2]." in text[:report_end]
    appendix = text[report_end:]
    for heading in (
        "Claim 1 · ✅ VERIFIED",
        "Claim 2 · ⚠️ PARTIALLY TRUE",
        "Claim 5 · ❓ UNVERIFIED",
    ):
        assert f"### {heading}" in appendix
    assert "**Claim (from the brief):** Claim 5 about the dam contract." in appendix
    assert appendix.count("**Checked on:** 2024-04-03") == 4
    assert appendix.count(f'Quote: "{QUOTE}"') == 5
    assert appendix.count("Supports · High reliability · Independent") == 5
    assert appendix.count(f"Not independent: {NOT_INDEPENDENT}") == 5
    assert "Note: Counted as context, not 'supports'" in appendix
    assert appendix.count(f"Found by: {QUERY}") == 5
    assert "Published 2024-03-02 (search service) · Retrieved 2024-04-02T11:00:00+00:00" in appendix
    assert appendix.count("Publication date unknown") == 5 + 1  # 5 undated items, source 3
    assert appendix.count(f"Link: <{EVIDENCE_DISPLAY}>") == 5
    assert appendix.count(f"Snapshot: `{sha256(EVIDENCE_TEXT)}`") == 5
    sources = appendix[appendix.index("## All sources read") :]
    assert "3 sources, 1 set aside as off-topic." in sources
    assert f"1. **Story 1** — News One — <{DISPLAY_1}>" in sources
    assert f"Snapshot: `{sha256(SOURCE_TEXT)}`" in sources
    assert "Set aside: off-topic (relevance 12%): About a football match." in sources
    assert "Relevance 90%" in sources and "Provided by you" in sources


def html_export(repo: Repository, iid: str, investigation: dict[str, Any] | None = None) -> str:
    """The HTML export, with the texts Vicaran read, as the dashboard and the CLI give it."""
    investigation = investigation or as_json(repo.get_investigation(iid)) or {}
    return export.render("html", view(investigation), repo.get_snapshots(iid))


def test_html_export_is_standalone_escaped_and_its_citations_resolve(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    html = html_export(repo, iid)
    assert html.startswith("<!doctype html>") and '<meta charset="utf-8">' in html
    assert "<style>" in html and "<link" not in html
    assert "<script" not in html.lower() and ESCAPED_XSS in html and XSS not in html
    assert MARKER not in html
    assert "<h1>Dam contract</h1>" in html
    cited = set(re.findall(r'href="#(source-\d+)"', html))
    assert cited == {"source-1", "source-2"}
    for n in (1, 2, 3):
        assert html.count(f'id="source-{n}"') == 1
    assert all(f'id="{target}"' in html for target in cited)
    assert html.count(f"<blockquote>{QUOTE}</blockquote>") == 5
    assert html.count(f"Not independent: {NOT_INDEPENDENT}") == 5
    assert f'<a href="{EVIDENCE_DISPLAY}" rel="noopener noreferrer">' in html
    assert html.count(f'<a href="#snapshot-{sha256(EVIDENCE_TEXT)}"><code>') == 5
    assert f"<code>{sha256(SOURCE_TEXT)}</code>" in html
    assert 'id="claim-C1"><h3>Claim 1 · ✅ VERIFIED</h3>' in html
    # Snapshots link to the texts the file carries, not to a server.
    assert f'<a href="#snapshot-{sha256(SOURCE_TEXT)}">' in html
    assert "/api/investigations/" not in html
    assert "Set aside: off-topic (relevance 12%): About a football match." in html


def snapshot_sections(html: str) -> dict[str, str]:
    """{sha256: the text shown ("" when none)} of every snapshot section of an HTML export."""
    shown = {}
    for article in re.findall(r'<article id="snapshot-[0-9a-f]{64}".*?</article>', html, re.S):
        sha = article[len('<article id="snapshot-') :][:64]
        text = re.search(r"<pre>(.*)</pre>", article, re.S)
        shown[sha] = unescape(text.group(1)) if text else ""
    return shown


def test_html_export_carries_every_text_it_cites(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    hostile = f"Minutes {XSS} </pre></article><a href=https://evil.example>x</a> & more"
    repo.save_snapshots({sha256(hostile): hostile})
    investigation["fact_checks"][0]["evidence"][1]["content_sha256"] = sha256(hostile)
    snapshots = {**repo.get_snapshots(iid), sha256(hostile): hostile}
    # The report links a snapshot where the server was when it was written.
    written = f"http://127.0.0.1:8000/api/investigations/{iid}/snapshots/{sha256(SOURCE_TEXT)}"
    investigation["summary"] = f"# Dam contract\n\n- [1] **Story 1** — [snapshot]({written})\n"
    html = export.render("html", view(investigation), snapshots)
    shown = snapshot_sections(html)
    assert shown == {
        sha256(SOURCE_TEXT): SOURCE_TEXT,
        sha256(EVIDENCE_TEXT): EVIDENCE_TEXT,
        sha256(hostile): hostile,
    }
    assert XSS not in html and 'href="https://evil.example' not in html
    targets = set(re.findall(r'href="#(snapshot-[0-9a-f]{64})"', html))
    assert targets == {f"snapshot-{sha}" for sha in shown}
    report = html[: html.index('<div class="appendix">')]
    assert f'<a href="#snapshot-{sha256(SOURCE_TEXT)}" rel="noopener noreferrer">' in report
    assert "/api/investigations/" not in html and "127.0.0.1" not in html


def test_html_export_keeps_its_size_when_texts_are_huge(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    huge = "Página " + "x" * (3 * export.SNAPSHOT_CHARS)
    sha = sha256(huge)
    investigation["fact_checks"][0]["evidence"][1]["content_sha256"] = sha
    snapshots = {**repo.get_snapshots(iid), sha: huge}
    html = export.render("html", view(investigation), snapshots)
    shown = snapshot_sections(html)
    assert shown[sha] == huge[: export.SNAPSHOT_CHARS]
    assert len(html) < 2 * export.SNAPSHOT_CHARS
    assert f"first {export.SNAPSHOT_CHARS:,} of {len(huge):,} characters" in html
    assert f'href="#snapshot-{sha}"' in html
    # Past the export's whole budget, a text is named (its anchor still resolves), not copied.
    monkeypatch.setattr(export.html, "SNAPSHOT_CHARS", 50)
    monkeypatch.setattr(export.html, "EXPORT_SNAPSHOT_CHARS", len(SOURCE_TEXT) + 10)
    html = export.render("html", view(investigation), snapshots)
    shown = snapshot_sections(html)
    assert shown[sha256(SOURCE_TEXT)] == SOURCE_TEXT[:50]  # the first one cited
    assert shown[sha256(EVIDENCE_TEXT)] == EVIDENCE_TEXT[: len(SOURCE_TEXT) + 10 - 50]
    assert shown[sha] == ""
    assert "not copied" in html and "JSON export" in html
    targets = set(re.findall(r'href="#(snapshot-[0-9a-f]{64})"', html))
    assert targets == {f"snapshot-{name}" for name in shown}


def test_html_export_links_only_web_addresses(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    investigation["sources"][0]["display_url"] = "javascript:alert(1)"
    html = export.render("html", view(investigation))
    assert 'href="javascript:' not in html and "Link: javascript:alert(1)" in html


def test_html_export_links_only_the_saved_sources(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    saved = investigation["sources"][0]["display_url"]
    investigation["summary"] = (
        f"# R\nSee {saved} and https://evil.example/pwn or [this](https://evil.example/x)."
    )
    html = export.render("html", view(investigation))
    assert f'href="{saved}"' in html
    assert 'href="https://evil.example' not in html


def test_json_export_is_the_full_record_set(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    snapshots = repo.get_snapshots(iid)
    text = export.render("json", view(investigation), snapshots)
    assert MARKER not in text
    assert "Ünïcödé ✓" in text  # not escaped to \u sequences
    assert text.startswith('{\n  "format": "vicaran-investigation"')  # pretty-printed
    document = json.loads(text)
    assert (document["format"], document["version"]) == ("vicaran-investigation", 1)
    exported = datetime.fromisoformat(document["exported_at"])
    assert exported.utcoffset() == timedelta(0)
    summary = investigation["summary"].replace(MARKER, "").strip()
    assert document["investigation"] == {**investigation, "summary": summary}
    assert document["investigation"]["quality"] == QUALITY
    assert document["snapshots"] == snapshots
    assert set(snapshots) == {sha256(SOURCE_TEXT), sha256(EVIDENCE_TEXT)}
    for name, body in document["snapshots"].items():
        assert hashlib.sha256(body.encode("utf-8")).hexdigest() == name


def test_markdown_and_json_exports_link_snapshots_where_the_server_is(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report written while the server was elsewhere (a headless run, another port) is
    exported with its snapshot links on the server that exports it."""
    iid, _ = trust_investigation(repo)
    configure(monkeypatch, VICARAN_PUBLIC_URL="http://127.0.0.1:8123")
    investigation = as_json(repo.get_investigation(iid)) or {}
    path = f"/api/investigations/{iid}/snapshots/{sha256(SOURCE_TEXT)}"
    other = f"/api/investigations/other-id/snapshots/{sha256(SOURCE_TEXT)}"
    investigation["summary"] = (
        f"# Dam contract\n\n- [1] **Story 1** — <https://news1.example/story> — "
        f"[snapshot](http://127.0.0.1:8000{path})\n- see also http://localhost:8000{path}.\n"
        f"- not this one: http://127.0.0.1:8000{other}\n"
        f"- nor an address followed by a path: http://news1.example/a and {path}\n"
    )
    markdown = export.render("md", view(investigation))
    assert f"[snapshot](http://127.0.0.1:8123{path})" in markdown
    assert f"see also http://127.0.0.1:8123{path}." in markdown
    assert f"http://127.0.0.1:8000{other}" in markdown  # another investigation's: as written
    assert f"`http://news1.example/a` and {path}\n" in markdown  # not saved: shown as code
    assert "<https://news1.example/story>" in markdown
    summary = json.loads(export.render("json", view(investigation)))["investigation"]["summary"]
    assert f"[snapshot](http://127.0.0.1:8123{path})" in summary  # the record, rebased
    assert f"http://127.0.0.1:8000{path}" not in summary


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown export format"):
        export.render("pdf", {})


# --- the command line ----------------------------------------------------------------------


def test_cli_writes_to_stdout_without_out(
    repo: Repository, capsys: pytest.CaptureFixture[str]
) -> None:
    iid, _ = trust_investigation(repo)
    assert cli.main(["export", iid, "--format", "md"]) == 0
    printed = capsys.readouterr()
    assert printed.out == export.render("md", stored(repo, iid))
    assert printed.err == ""
    assert cli.main(["export", iid, "--format", "claimreview"]) == 0
    reviews = json.loads(capsys.readouterr().out)
    assert [r["reviewRating"]["alternateName"] for r in reviews] == LABELS["en"]


def test_cli_writes_the_file_with_out(
    repo: Repository, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    iid, _ = trust_investigation(repo)
    out = tmp_path / "export.json"
    assert cli.main(["export", iid, "--format", "json", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1 and str(out) in printed
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["investigation"]["id"] == iid
    assert document["snapshots"][sha256(SOURCE_TEXT)] == SOURCE_TEXT


def test_cli_html_export_carries_the_texts_it_cites(
    repo: Repository, capsys: pytest.CaptureFixture[str]
) -> None:
    iid, _ = trust_investigation(repo)
    assert cli.main(["export", iid, "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert html == html_export(repo, iid)
    assert f'id="snapshot-{sha256(SOURCE_TEXT)}"' in html


def test_cli_unknown_investigation_exits_1(
    repo: Repository, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never.md"
    assert cli.main(["export", "no-such-id", "--format", "md", "--out", str(out)]) == 1
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.strip() == "No investigation with id no-such-id is saved here."
    assert not out.exists()


# --- the dashboard route -------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "extension", "media_type"), FORMATS)
async def test_export_route_serves_a_download(
    client: httpx.AsyncClient, repo: Repository, fmt: str, extension: str, media_type: str
) -> None:
    iid, _ = trust_investigation(repo)
    response = await client.get(f"/api/investigations/{iid}/export", params={"format": fmt})
    assert response.status_code == 200
    assert response.headers["content-type"] == media_type
    assert response.headers["content-disposition"] == (
        f'attachment; filename="vicaran-{iid[:8]}.{extension}"'
    )
    assert response.headers["cache-control"] == "no-store"
    assert MARKER not in response.text
    investigation = as_json(repo.get_investigation(iid)) or {}
    if fmt == "json":
        assert response.json()["snapshots"] == repo.get_snapshots(iid)
        assert response.json()["investigation"]["id"] == iid
    else:
        assert response.text == export.render(fmt, view(investigation), repo.get_snapshots(iid))


async def test_export_route_refuses_unknown_formats_and_investigations(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    for query in ("?format=pdf", "?format=", ""):
        response = await client.get(f"/api/investigations/{iid}/export{query}")
        assert response.status_code == 400, query
        assert response.json()["success"] is False
        assert "md, html, json, claimreview or warc" in response.json()["error"]
    missing = await client.get("/api/investigations/no-such-id/export?format=md")
    assert missing.status_code == 404
    assert missing.json() == {"success": False, "error": "investigation not found"}


async def test_export_route_needs_the_token_when_set(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = trust_investigation(repo)
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    path = f"/api/investigations/{iid}/export?format=md"
    assert (await client.get(path)).status_code == 401
    ok = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.text.startswith("# Dam contract")


# --- exports escape (issue 20, point 6) ----------------------------------------------------

EVIL = "evil.example"
HOSTILE = (
    "<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) "
    "[y](https://evil.example/y) https://evil.example/bare www.evil.example/w "
    "![i](https://evil.example/beacon.png) &#60;script&#62; *em* _u_ `c` | ~s~"
)
HOSTILE_REPORT = (
    "# Dam <b onclick=alert(4)>contract</b>\n\n"
    f"The mayor signed it [1]. {HOSTILE}\n\n"
    "<div onmouseover=alert(5)>block</div>\n\n"
    "- [z](javascript:alert(6)) and <https://evil.example/auto>\n"
    "- [r]\n\n"
    "[r]: https://evil.example/ref\n"
)


def hostile_investigation(repo: Repository) -> dict[str, Any]:
    """The trust investigation with a hostile value in every untrusted field."""
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    investigation["title"] = HOSTILE
    investigation["summary"] = HOSTILE_REPORT
    for source in investigation["sources"]:
        source.update(
            title=HOSTILE,
            publisher=HOSTILE,
            relevance_reason=HOSTILE,
            unreachable_reason=HOSTILE,
            published_at=HOSTILE,
        )
    investigation["sources"][1].update(origin="document", page=3)  # a document: its file name
    for check in investigation["fact_checks"]:
        check.update(claim_text=HOSTILE, explanation=HOSTILE, reasoning=[HOSTILE, "# " + HOSTILE])
        check["as_of"] = HOSTILE
        for item in check["evidence"]:
            item.update(
                title=HOSTILE,
                publisher=HOSTILE,
                quote=HOSTILE,
                stance_note=HOSTILE,
                query=HOSTILE,
                rating=HOSTILE,
                stance=HOSTILE,
            )
    return investigation


class _Rendered(HTMLParser):
    """What a browser would build from the HTML a Markdown renderer made."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.outside_code: list[str] = []
        self._code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._code += tag == "code"

    def handle_endtag(self, tag: str) -> None:
        self._code -= tag == "code"

    def handle_data(self, data: str) -> None:
        if not self._code:
            self.outside_code.append(data)


def rendered(markdown: str) -> _Rendered:
    """`markdown` through a permissive CommonMark renderer (raw HTML on, as many have it)."""
    page = _Rendered()
    page.feed(MarkdownIt("commonmark", {"html": True}).render(markdown))
    return page


def test_markdown_export_escapes_every_untrusted_field(repo: Repository) -> None:
    investigation = hostile_investigation(repo)
    # the records' own addresses (sources, evidence) and the snapshots of the saved sources
    saved = export.saved_links(view(investigation)) | {
        item[key]
        for check in investigation["fact_checks"]
        for item in check["evidence"]
        for key in ("url", "display_url")
    }
    markdown = export.render("md", view(investigation))
    page = rendered(markdown)
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "img", "div", "b", "iframe"}, tags
    for tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        href = attrs.get("href") or ""
        if tag == "a" and not href.startswith("#"):
            assert href in saved, href
    # every foreign address is shown as code: no renderer links or loads it
    assert all(EVIL not in text for text in page.outside_code)
    assert "javascript:" not in " ".join(a.get("href") or "" for _, a in page.tags)
    # and what was written is still there to read, as text
    assert "<script>alert(1)</script>" in "".join(page.outside_code)
    assert "The mayor signed it [1]." in markdown  # citations stay as written
    # no tag is even begun, for renderers that read HTML more loosely than CommonMark
    assert not [t for t in ("<script", "<img", "<div", "<b ") if t in markdown]


def test_markdown_export_links_only_the_saved_sources(repo: Repository) -> None:
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    saved = investigation["sources"][0]["display_url"]
    investigation["summary"] = (
        f"# R\nSee {saved} and https://evil.example/pwn or [this](https://evil.example/x) "
        f"or [that]({saved})."
    )
    page = rendered(export.render("md", view(investigation)))
    hrefs = [a.get("href") for tag, a in page.tags if tag == "a"]
    assert saved in hrefs
    assert not [h for h in hrefs if h and EVIL in h]


def test_claimreview_json_ld_cannot_end_a_script_element(repo: Repository) -> None:
    """Every JSON-LD is written with <, > and & escaped: embedded, it stays one script."""
    iid, _ = trust_investigation(repo)
    investigation = as_json(repo.get_investigation(iid)) or {}
    closing = "</script><script>alert(1)</script> <!-- & -->"
    investigation["fact_checks"][0]["claim_text"] = closing
    text = export.render("claimreview", view(investigation))
    assert not {"<", ">", "&"} & set(text)
    assert "\\u003c/script\\u003e" in text
    assert json.loads(text)[0]["claimReviewed"] == closing  # the same data, escaped
