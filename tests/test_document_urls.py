"""Nothing written in a document is fetched (issue 20, point 5): an address inside the journalist's
document is listed in the plan and the report, never read, unless VICARAN_FOLLOW_DOCUMENT_URLS is
true; and VICARAN_CALLBACK_DOCUMENT_TEXT decides whether document text travels to the callback
API. A loopback beacon stands for the host a hostile document names: it counts every request,
whether it comes through Jina Reader (whose address it also takes) or directly."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote

import pytest
from google.genai import types
from sqlalchemy import select

from tests.fakes.server import FakeServer, RecordedRequest, Response
from tests.support.conversation import Conversation
from tests.test_dashboard import source, start
from tests.test_references import MemoryStore
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.documents.follow import ReferenceFollower
from vicaran_agent.llm import ModelClient
from vicaran_agent.runtime import investigation_runtime
from vicaran_agent.schemas import Claim, Evidence, Verdict
from vicaran_agent.storage import get_repository
from vicaran_agent.storage.outbox import queue_for_callback
from vicaran_agent.storage.rows import OutboxRow

MARKER = "[PLAN_APPROVAL_REQUIRED]"
CLAIM = "The Riverton water contract paid Acme Chemicals 1.2 million dollars in 2024."


class Beacon(FakeServer):
    """Answers anything with a page; every request is a leak."""

    def handle(self, request: RecordedRequest) -> Response:
        return Response.text(200, "Riverton water contract: the tracking pixel page.")

    def leaks(self) -> list[str]:
        return [r.raw_path for r in self.requests]


@pytest.fixture
def beacon(env) -> Iterator[tuple[Beacon, str]]:
    """The beacon, reachable (the SSRF guard is not what stops it) and standing for Jina too."""
    with Beacon() as server:
        env.set(VICARAN_FETCH_ALLOW_PRIVATE="true", JINA_READER_BASE_URL=server.url)
        yield server, f"{server.url}/riverton-water-contract?leak=memo-secret-line"


def memo(url: str) -> str:
    return (
        "# Riverton water contract memo\n\n"
        "The Riverton water contract paid Acme Chemicals 1.2 million dollars in 2024, the "
        f"memo says. The signed copy of the Riverton water contract is at {url} for the team.\n"
    )


def attachment(text: str) -> types.Part:
    blob = types.Blob(data=text.encode(), mime_type="text/markdown", display_name="memo.md")
    return types.Part(inline_data=blob)


async def test_an_address_in_a_document_is_listed_in_the_plan_and_report_never_fetched(env, beacon):
    server, url = beacon
    env.services.tavily.overrides = lambda query, body: []
    conversation = Conversation()
    planned = await conversation.send(f"Quick Search. {CLAIM}", [attachment(memo(url))])
    plan = conversation.texts(planned)[-1]
    assert plan.rstrip().endswith(MARKER)
    documents = plan.split("**Your documents:**")[1]
    assert url in documents and "not opened" in documents
    assert server.leaks() == []

    await conversation.send("APPROVED")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] in ("completed", "partial")
    report = state[keys.INVESTIGATION_SUMMARY]
    assert url in report and "not opened" in report
    assert server.leaks() == []  # no request of any kind reached the document's host


def follower(store: MemoryStore, read_url) -> ReferenceFollower:
    settings = get_settings()
    return ReferenceFollower(
        store, ["caso"], ModelClient("scripted/default", settings), read_url=read_url
    )


async def test_an_address_in_a_document_is_read_only_when_the_operator_allows_it(env, beacon):
    server, url = beacon
    store = MemoryStore()
    report = store.add("memo.pdf", "Memo", memo(url))
    async with investigation_runtime("document-urls", get_settings()) as runtime:
        result = await follower(store, runtime.pages.read).follow(CLAIM, [store.page(report, 1)])
    assert server.leaks() == [] and result.pages == []
    assert result.listed == [(url, "memo.pdf p. 1")]
    assert any(url in line and "not opened" in line for line in result.log)

    env.set(VICARAN_FOLLOW_DOCUMENT_URLS="true")
    async with investigation_runtime("document-urls-on", get_settings()) as runtime:
        result = await follower(store, runtime.pages.read).follow(CLAIM, [store.page(report, 1)])
    assert server.leaks() and all("leak=memo-secret-line" in unquote(x) for x in server.leaks())
    assert result.listed == []


# --- what of a document the callback API receives ------------------------------------------

WEB = "What news2 reported."
PASSAGE = "The mayor's brother owns the contractor, says the unpublished memo on page 3."


def queued(setting: str | None, env) -> list[dict]:
    """The callback payloads of a document source and a verdict resting on one of its passages."""
    if setting is not None:
        env.set(VICARAN_CALLBACK_DOCUMENT_TEXT=setting)
    repo = get_repository(get_settings().database_url)
    iid = start(repo)
    with queue_for_callback():
        document = source(
            1,
            url="doc://d1",
            title="Memo on the dam",
            origin="document",
            document_id="d1",
            page=3,
            content_summary=f"A memo: {PASSAGE}",
        )
        ids = repo.save_sources(iid, [document, source(2)])
        claims = repo.save_claims(
            iid, [Claim(key="C1", claim_text="The contract went to family.", importance=0.5)]
        )
        item = {"reliability": "neutral", "stance": "supports"}
        evidence = [
            Evidence(url="doc://d1/p3/7", title="Memo on the dam", publisher="memo.pdf",
                     origin="document", document_id="d1", page=3, snippet=PASSAGE,
                     quote=PASSAGE[:40], **item),
            Evidence(url="https://news2.example/story", title="Story 2", publisher="news2",
                     origin="page", snippet=WEB, quote=WEB, **item),
        ]  # fmt: skip
        verdict = Verdict(
            claim_key="C1",
            claim_text="The contract went to family.",
            claim_id=claims["C1"],
            verdict="partially_true",
            confidence=0.6,
            explanation="The memo says so [1].",
            evidence=evidence,
            reasoning=["↪ memo.pdf p. 3 cites “Contrato nº 2”: 1 passage (depth 1)"],
        )
        repo.save_verdicts(iid, [verdict])
    assert ids
    query = select(OutboxRow.type, OutboxRow.data)
    rows = repo.read(lambda session: list(session.execute(query)))
    assert {kind for kind, _ in rows} >= {"SOURCE_FOUND", "FACT_CHECKED"}
    return [dict(data) | {"type": kind} for kind, data in rows]


def test_document_quotes_reach_the_callback_api_by_default(env):
    records = queued(None, env)
    sent = repr(records)
    assert PASSAGE in sent and PASSAGE[:40] in sent


def test_with_none_the_callback_api_gets_the_documents_reference_not_its_text(env):
    records = queued("none", env)
    assert PASSAGE[:40] not in repr(records) and "unpublished memo" not in repr(records)
    document = next(r for r in records if r.get("origin") == "document")
    assert (document["title"], document["page"], document["url"]) == (
        "Memo on the dam",
        3,
        "doc://d1",
    )
    check = next(r for r in records if r["type"] == "FACT_CHECKED")
    passage, page = check["evidence"]
    assert (passage["title"], passage["page"], passage["url"]) == (
        "Memo on the dam",
        3,
        "doc://d1/p3/7",
    )
    assert page["quote"] == page["snippet"] == WEB  # a web page's quote still goes
    assert "reasoning_log" not in check  # it names what following read in the documents


# --- the planning model opens only the journalist's own addresses ---------------------------


async def test_the_planning_model_cannot_open_an_address_a_page_gave_it(env, beacon):
    """A page the journalist gave asks the model to read an address with the brief in it: the
    model's call is refused, only the journalist's address is read."""
    server, _ = beacon
    env.set(VICARAN_FAST_MODEL="scripted/obeys-pages")
    page = f"{server.url}/story"
    conversation = Conversation()
    events = await conversation.send(f"Riverton water contract secret deal. See {page}")
    assert conversation.texts(events)[-1].rstrip().endswith(MARKER)
    called = [
        p.function_call.args["url"]
        for e in events
        for p in (e.content.parts if e.content else [])
        if p.function_call and p.function_call.name == "analyze_source"
    ]
    assert any("leak=" in url for url in called)  # the model did ask
    assert server.leaks() and not [x for x in server.leaks() if "leak" in unquote(x)]
