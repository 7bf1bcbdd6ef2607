"""The web archive: each page read kept as WARC records, and the `--format warc` export."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path
from urllib.parse import quote

import httpx

from tests.fakes.jina import FakeJinaReader, Page
from tests.fakes.web import FakeWeb, LoopbackDialer
from tests.support.conversation import Conversation
from tests.support.warc import check, records
from vicaran_agent import cli
from vicaran_agent import state_keys as keys
from vicaran_agent.archive import PageArchive
from vicaran_agent.clients.page_reader import PageReader
from vicaran_agent.config import Settings, get_settings
from vicaran_agent.export.warc import was_read
from vicaran_agent.storage import get_repository
from vicaran_agent.urls import normalize_url

STORY = "https://news.example/budget"
BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water."
USER_URL = "https://rivertondaily.com/news/acme-health-complaints"
ID = "0b7e4a4e-1111-4222-8333-944445555666"
ARTICLE = " ".join(f"The council cut budget line {n} by {n} percent on Tuesday." for n in range(40))


def reader(records_url: str, jina_url: str, **overrides: object) -> PageReader:
    values: dict[str, object] = {
        "jina_reader_base_url": jina_url,
        "jina_api_key": "jina-secret-key",
        "vicaran_fetch_allow_private": True,
        "vicaran_page_timeout_seconds": 2.0,
        "vicaran_max_retries": 0,
        "vicaran_database_url": records_url,
        **overrides,
    }
    settings = Settings(_env_file=None, **values)  # type: ignore[arg-type]
    archive = PageArchive(ID, records_url)
    return PageReader(settings, dialer=LoopbackDialer(), archive=archive)


def kept(records_url: str) -> list[dict]:
    repository = get_repository(records_url)
    ids = repository.capture_ids(ID)
    return [records(data) for data in repository.get_captures(ID, ids.values()).values()]


async def test_a_page_read_through_the_reader_is_kept_as_received_without_the_key(records_url):
    with FakeJinaReader({STORY: Page("Budget", ARTICLE)}) as jina:
        jina.api_key = "jina-secret-key"
        page_reader = reader(records_url, jina.url)
        try:
            result = await page_reader.read(STORY)
        finally:
            await page_reader.aclose()
        (request,) = jina.requests
        reader_url = jina.url
    assert result.ok and result.via == "jina"
    (capture,) = kept(records_url)
    response, asked, metadata = capture
    assert (response["type"], asked["type"], metadata["type"]) == (
        "response",
        "request",
        "metadata",
    )
    # the exchange Vicaran had: with the reader, at the reader's address, the bytes it sent
    assert response["uri"] == f"{reader_url}/{quote(STORY, safe='')}"
    assert response["status"] == 200 and response["payload"] == request.body_sent
    assert asked["warc"]["WARC-Concurrent-To"] == response["id"]
    assert "Authorization" not in asked["http"] and "jina-secret-key" not in str(capture)
    # ... standing for the page the journalist's report cites
    assert metadata["uri"] == STORY and metadata["warc"]["WARC-Refers-To"] == response["id"]
    assert b"read-via: jina" in metadata["payload"]


async def test_a_read_does_not_wait_for_its_archive_and_the_closing_reader_does(records_url):
    gate, order = asyncio.Event(), []

    class SlowStore(PageArchive):
        async def _save(self, page_url, exchange, via):
            await gate.wait()
            order.append("archived")

    with FakeJinaReader({STORY: Page("Budget", ARTICLE)}) as jina:
        settings = Settings(_env_file=None, jina_reader_base_url=jina.url, jina_api_key="")
        page_reader = PageReader(settings, archive=SlowStore(ID, records_url))
        assert (await page_reader.read(STORY)).ok
        order.append("read")
        closing = asyncio.ensure_future(page_reader.aclose())
        await asyncio.sleep(0)
        assert not closing.done()  # the run's end waits for its archive
        gate.set()
        await closing
    assert order == ["read", "archived"]


async def test_a_page_fetched_directly_is_kept_decoded_and_cut_where_reading_stopped(
    records_url, tmp_path
):
    paragraphs = "".join(
        f"<p>Item {n}: the council voted on budget line {n}.</p>" for n in range(600)
    )
    html = f"<html><head><title>Minutes</title></head><body>{paragraphs}</body></html>".encode()
    with FakeJinaReader({}) as jina, FakeWeb() as web:  # the reader refuses: read directly
        url, again = (
            web.add_raw(
                path,
                gzip.compress(html),
                "text/html; charset=utf-8",
                headers={"Content-Encoding": "gzip"},
            )
            for path in ("/minutes", "/minutes-again")
        )
        whole = reader(records_url, jina.url)
        cut = reader(records_url, jina.url, vicaran_max_page_bytes=20_000)
        try:
            result = await whole.read(url)
            assert result.via == "direct", result.error
            assert (await cut.read(again)).via == "direct"
        finally:
            await whole.aclose()
            await cut.aclose()
    first, second = kept(records_url)
    assert first[0]["uri"] == url and len(first) == 2  # read where it is: no metadata record
    assert first[0]["payload"] == html  # as received, decoded of its gzip
    headers = {name.lower(): value for name, value in first[0]["http"].items()}
    assert "content-encoding" not in headers  # the body archived is not gzip any more
    assert headers["content-length"] == str(len(html))
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert "WARC-Truncated" not in first[0]["warc"]
    assert second[0]["payload"] == html[:20_000]
    assert second[0]["warc"]["WARC-Truncated"] == "length"


async def test_the_warc_export_holds_each_cited_page_as_read_and_passes_warcio_check(
    env, tmp_path: Path, capsys
):
    conversation = Conversation()
    await conversation.send(f"{BRIEF} {USER_URL}")
    await conversation.send("APPROVED")
    state = await conversation.state()
    investigation_id = state[keys.INVESTIGATION_ID]
    out = tmp_path / "riverton.warc.gz"

    assert cli.main(["export", investigation_id[:8], "--format", "warc", "--out", str(out)]) == 0
    assert "Web archive (WARC) export" in capsys.readouterr().out
    code, said = check(out)
    assert code == 0 and "digest pass" in said, said
    exported = records(out.read_bytes())
    assert exported[0]["type"] == "warcinfo"
    assert investigation_id.encode() in exported[0]["payload"]
    assert b"not-archived" not in exported[0]["payload"]  # every page read was kept

    served = {r.raw_path: r.body_sent for r in env.services.jina.requests if r.status == 200}
    stands_for = {
        r["warc"]["WARC-Refers-To"]: normalize_url(r["uri"])
        for r in exported
        if r["type"] == "metadata"
    }
    responses = {stands_for.get(r["id"], r["uri"]): r for r in exported if r["type"] == "response"}
    investigation = get_repository(get_settings().database_url).get_investigation(investigation_id)
    assert investigation is not None
    read = [s for s in investigation.sources if was_read(s)]
    read += [e for c in investigation.fact_checks for e in c.evidence if was_read(e)]
    assert len(read) >= 3 and any(s.url == USER_URL for s in read)  # the journalist's page too
    for item in read:
        response = responses[normalize_url(item.url)]
        target = "/" + response["uri"].split(env.services.jina.url + "/", 1)[1]
        assert response["payload"] == served[target]  # the bytes Vicaran was sent

    # the dashboard: the same file, and each page's archived copy beside its snapshot
    from vicaran_agent.server.app import build_server

    app = build_server(get_settings(), with_adk=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        download = await http.get(f"/api/investigations/{investigation_id}/export?format=warc")
        assert download.status_code == 200
        assert download.headers["content-type"] == "application/warc"
        assert "warc.gz" in download.headers["content-disposition"]
        assert {r["uri"] for r in records(download.content)} == {r["uri"] for r in exported}
        page = await http.get(f"/investigations/{investigation_id}")
        source = next(s for s in investigation.sources if s.url == USER_URL)
        link = f"/api/investigations/{investigation_id}/archives/{source.archive_id}"
        assert f'href="{link}"' in page.text and "archived copy" in page.text
        one = await http.get(link)
        assert [r["type"] for r in records(one.content)] == ["response", "request", "metadata"]
        other = await http.get(f"/api/investigations/{'f' * 32}/archives/{source.archive_id}")
        assert other.status_code == 404  # an archived copy is read through its investigation


async def test_with_archiving_off_nothing_is_kept_and_the_export_says_which_pages_are_missing(
    env, tmp_path: Path
):
    env.set(VICARAN_ARCHIVE_PAGES="false")
    conversation = Conversation()
    await conversation.send(f"{BRIEF} {USER_URL}")
    await conversation.send("APPROVED")
    investigation_id = (await conversation.state())[keys.INVESTIGATION_ID]
    repository = get_repository(get_settings().database_url)
    assert repository.capture_ids(investigation_id) == {}
    out = tmp_path / "off.warc.gz"
    assert cli.main(["export", investigation_id, "--format", "warc", "--out", str(out)]) == 0
    (info,) = records(out.read_bytes())
    assert b"not-archived: " in info["payload"] and USER_URL.encode() in info["payload"]


def test_a_web_archive_is_not_written_to_a_terminal(env, monkeypatch, capsys):
    repository = get_repository(get_settings().database_url)
    from vicaran_agent.schemas import InvestigationConfig

    config = InvestigationConfig.for_mode(
        "quick", investigation_id=ID, title="T", brief="T", language="en"
    )
    repository.start_investigation(config)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert cli.main(["export", ID, "--format", "warc"]) == 2
    assert "--out FILE.warc.gz" in capsys.readouterr().err


def test_documents_and_gazettes_go_in_as_the_texts_read_and_snippets_stay_out():
    from vicaran_agent.export.warc import to_warc
    from vicaran_agent.read_model import (
        EvidenceView,
        FactCheckView,
        InvestigationView,
        SourceView,
    )
    from vicaran_agent.textmatch import sha256_text

    memo, gazette, snippet = "The audit memo, page 4.", "Extrato do contrato 12/2024.", "A snippet."
    gazette_url = "https://querido-diario.nyc3.cdn.digitaloceanspaces.com/2704302/2024-03-01.txt"
    investigation = InvestigationView(
        id=ID,
        status="completed",
        sources=[
            SourceView(
                id="s1",
                source_id="s1",
                url="doc://audits/memo.pdf#page=4",
                origin="document",
                content_sha256=sha256_text(memo),
            ),
        ],
        fact_checks=[
            FactCheckView(
                id="f1",
                fact_check_id="f1",
                claim_id="c1",
                claim_key="c1",
                claim_text="The contract was signed without a tender.",
                verdict="verified",
                confidence=0.8,
                evidence=[
                    EvidenceView(
                        url=gazette_url, origin="gazette", content_sha256=sha256_text(gazette)
                    ),
                    # a search hit known by its snippet only: Vicaran never fetched the page
                    EvidenceView(
                        url="https://news.example/x",
                        origin="web",
                        content_sha256=sha256_text(snippet),
                    ),
                ],
            )
        ],
    )
    texts = {sha256_text(t): t for t in (memo, gazette, snippet)}
    kept = records(to_warc(investigation, {}, texts, filename="vicaran-0b7e4a4e.warc.gz"))
    assert [(r["type"], r["uri"]) for r in kept] == [
        ("warcinfo", None),
        ("resource", "doc://audits/memo.pdf#page=4"),
        ("resource", gazette_url),
    ]
    assert [r["payload"].decode() for r in kept[1:]] == [memo, gazette]
    assert b"not-archived" not in kept[0]["payload"]  # a snippet is not a page Vicaran read


def test_snapshots_can_be_asked_for_by_name_and_only_the_investigations(records_url):
    """What the WARC export loads: the texts it puts in, not every snapshot of the run."""
    from vicaran_agent.schemas import InvestigationConfig, Source
    from vicaran_agent.textmatch import sha256_text

    repository = get_repository(records_url)
    iid = "1" * 8 + "-0000-4000-8000-" + "1" * 12
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=iid, title="t", brief="b", language="en"
    )
    repository.start_investigation(config)
    texts = {sha256_text(t): t for t in ("first text", "second text")}
    sources = [
        Source(url=f"https://example.org/{n}", title="s", domain="example.org",
               credibility_score=3, content_sha256=sha)
        for n, sha in enumerate(texts)
    ]  # fmt: skip
    repository.save_sources(iid, sources, texts)
    first, second = texts
    assert repository.get_snapshots(iid) == texts
    assert repository.get_snapshots(iid, only=[first]) == {first: "first text"}
    assert repository.get_snapshots(iid, only=[]) == {}
    assert repository.get_snapshots(iid, only=[sha256_text("never kept"), second]) == {
        second: "second text"
    }
