"""The journalist's documents getting into an investigation: the brief, attachments, the plan."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from google.genai import types

from tests.support import scripted_model
from tests.support.api_server import APP, free_port, run_sse
from tests.support.conversation import Conversation
from tests.support.inprocess import adk_api_serving
from tests.support.records import as_json
from vicaran_agent import state_keys as keys
from vicaran_agent.briefing import choose_collections
from vicaran_agent.config import get_settings
from vicaran_agent.conversation.messages import read_first_message
from vicaran_agent.documents import intake
from vicaran_agent.documents.model import PageText, ParsedDocument, UnreadablePage
from vicaran_agent.documents.store import DocumentStore, get_document_store
from vicaran_agent.storage import get_repository
from vicaran_agent.tools.analyze_source import SourceAnalyzer

MARKER = "[PLAN_APPROVAL_REQUIRED]"

# --- Collection: NAME in the brief --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Did Acme pollute Riverton?\nCollection: acme-files", ["acme-files"]),
        ("Collection: acme, epa-letters\nDid Acme pollute Riverton?", ["acme", "epa-letters"]),
        (
            'Coleção: contratos\nColecao: "licitações"\nA prefeitura pagou?',
            ["contratos", "licitações"],
        ),
        ("collections: a; b\nCOLLECTION: a\nDid Acme pollute?", ["a", "b"]),
        ("Did the collection agency lie?", []),
        ("The collection: a history of Acme", []),  # not a line of its own
    ],
)
def test_collection_lines_are_read_and_removed(text, names):
    found, rest = choose_collections(text)
    assert found == names
    if names:
        assert "ollection" not in rest.lower() and "cole" not in rest.lower()
        assert rest.endswith("?")
    else:
        assert rest == text


def test_the_first_message_keeps_collections_out_of_brief_and_title():
    first = read_first_message(
        "Collection: acme-files\nMode: Quick Search\nDid Acme pollute Riverton in 2024?"
    )
    assert first.collections == ["acme-files"]
    assert first.mode == "quick"
    assert first.brief == first.title == "Did Acme pollute Riverton in 2024?"


# --- a store for the journalist's documents -------------------------------------------------


@pytest.fixture
def store(env) -> DocumentStore:
    return get_document_store(get_settings().database_url)


def text_file(name: str, text: str, mime: str = "text/plain") -> types.Part:
    return types.Part(inline_data=types.Blob(data=text.encode(), mime_type=mime, display_name=name))


def parsed(name: str, pages: list[str], unreadable: list[tuple[int, str]] = ()) -> ParsedDocument:
    return ParsedDocument(
        file_name=name,
        kind="pdf",
        sha256=hashlib.sha256("".join(pages).encode()).hexdigest(),
        size_bytes=sum(len(p) for p in pages),
        title=name.rsplit(".", 1)[0].replace("-", " ").title(),
        page_count=len(pages),  # an unreadable page is an empty string here
        pages=[PageText(i + 1, text) for i, text in enumerate(pages) if text],
        unreadable=[UnreadablePage(n, reason) for n, reason in unreadable],
        language="pt",
    )


BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
MEMO = (
    "# EPA inspection memo\n\nOn 2024-03-12 EPA inspectors found lead at 41 parts per billion in "
    "Riverton's drinking water, nearly three times the federal action level. Acme Chemicals "
    "discharged untreated water into the Clear River in February 2024, the memo says.\n"
)

CONTRACT_P1 = (
    "CONTRATO 002/2024. Between the City of Riverton and Acme Chemicals, for the treatment of "
    "the Clear River intake. Signed on 2024-01-15 by the mayor and Acme's director."
)
CONTRACT_P2 = (
    "Clause 4. The City of Riverton pays Acme Chemicals 1.2 million dollars for the water "
    "treatment in 2024, in four instalments. Acme Chemicals guarantees lead below the limit."
)


def plan_of(conversation: Conversation, events) -> str:
    return conversation.texts(events)[-1]


async def test_a_named_collection_that_does_not_exist_is_in_the_plan_with_the_command(store):
    store.add(parsed("contract-002.pdf", ["Contrato 002/2024 ..."]), "acme-files", "high")
    conversation = Conversation()
    events = await conversation.send(f"{BRIEF}\nCollection: acme-files, epa-letters")
    plan = plan_of(conversation, events)
    assert plan.rstrip().endswith(MARKER)
    not_used = plan.split("**Not used in this investigation:**")[1]
    assert 'Collection "epa-letters": not found' in not_used
    assert "`vicaran docs add PATH --collection epa-letters`" in not_used
    assert "acme-files" not in not_used
    assert "Contract 002 (contract-002.pdf) - 1 page" in plan.split("**Your documents:**")[1]
    config = (await conversation.state())[keys.INVESTIGATION_CONFIG]
    assert config["collections"] == ["acme-files", "epa-letters"]
    assert "Collection" not in config["brief"] and "Collection" not in config["title"]


async def test_the_plan_lists_documents_with_pages_language_and_unreadable_pages(store):
    store.add(
        parsed(
            "audit-report.pdf",
            ["The audit found ...", "", "Table 3 ...", ""],
            [(2, "no text layer (scanned image; OCR unavailable)"), (4, "encrypted")],
        ),
        "audits",
    )
    conversation = Conversation()
    events = await conversation.send(f"{BRIEF}\nColeção: audits")
    plan = plan_of(conversation, events)
    line = next(x for x in plan.splitlines() if "audit-report.pdf" in x)
    assert "Audit Report" in line and "4 pages" in line and "Portuguese" in line
    assert "2 pages could not be read" in line and "p. 2: no text layer" in line
    assert "p. 4: encrypted" in line
    # what Vicaran will look for in them: the model's list, by title
    look_for = plan.split("**In your documents I'll look for:**")[1]
    assert "- Audit Report: the figures and dates it gives" in look_for
    # the orchestrator's model knew the documents by title and pages, delimited, never their text
    (call,) = scripted_model.calls_for("orchestrator")
    assert "<<<DATA DOCUMENTS\n- Audit Report (audit-report.pdf; 4 pages" in call["instruction"]
    assert "The audit found" not in call["instruction"] + call["prompt"]


# --- files attached in the chat -------------------------------------------------------------


def orchestrator_requests() -> str:
    """Everything the orchestrator's model was sent: instructions and conversation."""
    return "\n".join(
        c["instruction"] + c["prompt"] for c in scripted_model.calls_for("orchestrator")
    )


async def test_an_attachment_lands_in_the_collection_as_an_artifact_and_never_in_the_model(store):
    conversation = Conversation()
    memo = text_file("epa-memo.md", MEMO, "text/markdown")
    events = await conversation.send(BRIEF, [memo])
    plan = plan_of(conversation, events)

    state = await conversation.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    (document,) = store.documents(own)
    assert document.file_name == "epa-memo.md" and store.collections()[own] == "neutral"
    assert state[keys.INVESTIGATION_CONFIG]["collections"] == [own]
    # saved as an ADK artifact of the session, bytes as sent
    artifact = await conversation.runner.artifact_service.load_artifact(
        app_name=conversation.app.name,
        user_id="journalist",
        session_id=conversation.session_id,
        filename="epa-memo.md",
    )
    assert artifact is not None and artifact.inline_data.data == MEMO.encode()
    # the model was told a file is attached, by name; it never got the bytes or the text
    assert all(c["files"] == [] for c in scripted_model.CALLS)
    sent = orchestrator_requests()
    assert "[Attached file: epa-memo.md" in sent
    assert "41 parts per billion" not in sent and "inspectors found lead" not in sent
    # the plan lists it with its pages
    documents = plan.split("**Your documents:**")[1]
    assert "(epa-memo.md) - 1 page" in documents
    assert plan.rstrip().endswith(MARKER)


async def test_an_attachment_without_a_name_gets_one_from_its_type(store):
    conversation = Conversation()
    blob = types.Blob(data=MEMO.encode(), mime_type="text/markdown")  # no display_name
    await conversation.send(BRIEF, [types.Part(inline_data=blob)])
    state = await conversation.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    name = f"attachment-{hashlib.sha256(MEMO.encode()).hexdigest()[:8]}.md"
    assert [d.file_name for d in store.documents(own)] == [name]


async def test_an_unreadable_attachment_is_listed_as_not_used_with_the_reason(store):
    conversation = Conversation()
    clip = types.Part(
        inline_data=types.Blob(
            data=b"\x1aE\xdf\xa3", mime_type="video/webm", display_name="clip.webm"
        )
    )
    events = await conversation.send(BRIEF, [clip, text_file("notes.txt", MEMO)])
    plan = plan_of(conversation, events)
    not_used = plan.split("**Not used in this investigation:**")[1]
    line = next(x for x in not_used.splitlines() if "clip.webm" in x)
    assert "could not be read" in line and "cannot read this kind of file" in line
    assert "(notes.txt) - 1 page" in plan.split("**Your documents:**")[1]
    state = await conversation.state()
    assert [d.file_name for d in store.documents()] == ["notes.txt"]
    assert all(c["files"] == [] for c in scripted_model.CALLS)
    records = state[keys.INVESTIGATION_DOCUMENTS]["attachments"]
    assert [(r["file_name"], r["status"]) for r in records] == [
        ("clip.webm", "unreadable"),
        ("notes.txt", "added"),
    ]


async def test_a_photographed_page_attached_without_a_name_is_read_into_the_collection(
    store, tmp_path, monkeypatch
):
    from tests.support import documents as gen
    from vicaran_agent.documents import ocr

    fake = tmp_path / "tesseract"
    fake.write_text(
        '#!/bin/sh\n[ "$1" = --list-langs ] && { echo eng; exit 0; }\necho Lead at 41 ppb.\n'
    )
    fake.chmod(0o755)
    monkeypatch.setattr(ocr, "find_tesseract", lambda: str(fake))
    photos = []
    for mime, image_format in (
        ("image/png", "PNG"),
        ("image/jpeg", "JPEG"),
        ("image/tiff", "TIFF"),
    ):
        data = io.BytesIO()
        gen.page_image("Lead at 41 ppb.").save(data, format=image_format)
        photos.append(types.Part(inline_data=types.Blob(data=data.getvalue(), mime_type=mime)))
    conversation = Conversation()
    plan = plan_of(conversation, await conversation.send(BRIEF, photos))

    state = await conversation.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    documents = store.documents(own)
    assert sorted(d.file_name.rsplit(".", 1)[1] for d in documents) == ["jpg", "png", "tiff"]
    assert all((d.kind, d.page_count, d.ocr_pages) == ("image", 1, (1,)) for d in documents)
    assert [h.page for h in store.search("lead ppb", [own], limit=5)] == [1, 1, 1]
    assert "**Not used in this investigation:**" not in plan


async def test_an_attachment_on_a_later_planning_turn_updates_the_plan(store):
    conversation = Conversation()
    first = plan_of(conversation, await conversation.send(BRIEF))
    assert "**Your documents:**" not in first
    events = await conversation.send("", [text_file("epa-memo.md", MEMO, "text/markdown")])
    plan = plan_of(conversation, events)
    assert "(epa-memo.md) - 1 page" in plan.split("**Your documents:**")[1]
    assert plan.rstrip().endswith(MARKER)
    run = await conversation.send("APPROVED")
    assert conversation.texts(run)[0].startswith("[INVESTIGATION_STARTED]")


async def test_files_sent_before_the_brief_wait_for_it(store):
    conversation = Conversation()
    events = await conversation.send("", [text_file("epa-memo.md", MEMO, "text/markdown")])
    reply = conversation.texts(events)[-1]
    assert "epa-memo.md" in reply and "what to investigate" in reply
    plan = plan_of(conversation, await conversation.send(BRIEF))
    assert "(epa-memo.md) - 1 page" in plan.split("**Your documents:**")[1]
    state = await conversation.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    assert state[keys.INVESTIGATION_CONFIG]["collections"] == [own]


async def test_an_attachment_after_approval_is_answered_not_dropped(store):
    conversation = Conversation()
    await conversation.send("Quick Search. " + BRIEF)
    await conversation.send("APPROVED")
    events = await conversation.send("", [text_file("late.txt", MEMO)])
    reply = conversation.texts(events)[-1]
    assert "late.txt was not added" in reply and "new session" in reply
    assert not [d for d in store.documents() if d.file_name == "late.txt"]


# --- through `adk api_server` -----------------------------------------------------------------


@pytest.fixture
def documents_server(env, tmp_path: Path) -> Iterator[tuple[str, DocumentStore]]:
    """`adk api_server` (ADK's command, in this process), on the records database this test
    reads too."""
    with adk_api_serving(free_port()) as served:
        yield served.base, get_document_store(get_settings().database_url)


@pytest.mark.e2e
@pytest.mark.timeout(240)
def test_an_attachment_sent_to_run_sse_lands_in_the_collection(documents_server):
    base, store = documents_server
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
    # what the dev UI sends: the text, then one inlineData part per file (base64, displayName)
    memo = {
        "inlineData": {
            "displayName": "epa-memo.md",
            "mimeType": "text/markdown",
            "data": base64.b64encode(MEMO.encode()).decode(),
        }
    }
    events = [event for _, event in run_sse(base, session["id"], BRIEF, files=[memo])]
    plan = "".join(p.get("text") or "" for p in events[-1]["content"]["parts"])
    assert "(epa-memo.md) - 1 page" in plan.split("**Your documents:**")[1]
    state = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()["state"]
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    (document,) = store.documents(own)
    assert document.file_name == "epa-memo.md"
    assert (store.page_text(document.document_id, 1) or "").strip() == MEMO.strip()
    artifacts = httpx.get(
        f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}/artifacts"
    ).json()
    assert "epa-memo.md" in artifacts


async def test_without_a_search_key_the_plan_says_the_run_is_documents_and_links_only(store, env):
    env.set(TAVILY_API_KEY="", FACTCHECK_API_KEY="", VICARAN_LIVE_SEARCH_FALLBACK="false")
    conversation = Conversation()
    events = await conversation.send(BRIEF, [text_file("epa-memo.md", MEMO, "text/markdown")])
    not_used = plan_of(conversation, events).split("**Not used in this investigation:**")[1]
    assert (
        "Web search: off (no TAVILY_API_KEY in .env). This investigation runs only on your "
        "documents and the links you gave." in not_used
    )
    assert "unverified" not in not_used  # the documents are evidence


async def test_without_a_search_key_portuguese_plan_says_so_too(store, env):
    env.set(TAVILY_API_KEY="", FACTCHECK_API_KEY="test-key", VICARAN_LIVE_SEARCH_FALLBACK="false")
    conversation = Conversation()
    brief = "Investigue se a Prefeitura de Maceió pagou a merenda escolar sem licitação em 2024."
    events = await conversation.send(brief, [text_file("contrato.txt", "Contrato 002/2024 ...")])
    plan = plan_of(conversation, events)
    assert "**Seus documentos:**" in plan and "(contrato.txt) - 1 página" in plan
    assert (
        "Esta investigação usa apenas os seus documentos e os links que você enviou; as "
        "alegações também são checadas com checagens publicadas (Google Fact Check Tools)."
    ) in plan


# --- documents as sources ---------------------------------------------------------------------


def document_sources(state) -> list[dict]:
    return [s for s in state[keys.SOURCE_RECORDS] if s["origin"] == "document"]


async def test_documents_become_sources_read_with_the_web_ones(store, env):
    store.add(parsed("contract-002.pdf", [CONTRACT_P1, CONTRACT_P2]), "acme-files", "high")
    conversation = Conversation()
    plan = await conversation.send(
        f"Quick Search. {BRIEF}\nCollection: acme-files",
        [text_file("epa-memo.md", MEMO, "text/markdown")],
    )
    assert plan_of(conversation, plan).rstrip().endswith(MARKER)
    run = await conversation.send("APPROVED")
    texts = conversation.texts(run)
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]

    by_file = {s["publisher"]: s for s in document_sources(state)}
    assert set(by_file) == {"contract-002.pdf", "epa-memo.md"}
    contract, memo = by_file["contract-002.pdf"], by_file["epa-memo.md"]
    info = next(d for d in store.documents("acme-files"))
    assert contract["url"] == contract["display_url"] == f"doc://{info.document_id}"
    assert contract["document_id"] == info.document_id and contract["page"] is None
    assert (contract["domain"], contract["credibility_score"]) == ("acme-files", 4)  # high
    assert (memo["domain"], memo["credibility_score"]) == ("documents", 3)  # attached: neutral
    assert contract["is_user_provided"] and contract["relevant"]
    assert "Signed on 2024-01-15" in " ".join(contract["key_claims"])  # from its passages

    # one digest call per document, over its passages (delimited), with the web pages' instruction
    digests = [
        c for c in scripted_model.calls_for("SourceDigest") if "<<<DATA DOCUMENT" in c["prompt"]
    ]
    assert len(digests) == 2
    assert any("[page 2]\n" + CONTRACT_P2[:40] in c["prompt"] for c in digests)
    web = next(c for c in scripted_model.calls_for("SourceDigest") if "<<<DATA PAGE" in c["prompt"])
    assert all(c["instruction"] == web["instruction"] for c in digests)

    # the passages read are the source's snapshot
    saved = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    repository = get_repository(get_settings().database_url)
    snapshot = repository.get_snapshot_text(contract["content_sha256"])
    assert snapshot and CONTRACT_P2[:40] in snapshot and "[page 2]" in snapshot
    assert {s["origin"] for s in saved["sources"]} >= {"document", "user_url", "web"} - {"user_url"}

    # progress like the web sources', with the pages
    line = next(t for t in texts if "Reading document" in t and "Contract 002" in t)
    assert "(2 pages)" in line and "⭐⭐⭐⭐" in line and "acme-files" in line
    assert any("Reading your 2 documents (always read" in t for t in texts)
    # claims can come from documents
    claims = state[keys.CLAIM_RECORDS]
    assert any(contract["url"] in c["source_urls"] for c in claims)
    # the documents' text reached no reading service
    assert all(
        "1.2 million" not in r.raw_path + r.body.decode(errors="ignore")
        for r in env.services.jina.requests
    )


async def test_documents_are_read_while_the_web_pages_are(store, env, monkeypatch):
    """A rendezvous: each side waits until the other has started; read one after the other,
    one side would wait in vain."""
    store.add(parsed("contract-002.pdf", [CONTRACT_P1, CONTRACT_P2]), "acme-files", "high")
    web_started, document_started = threading.Event(), threading.Event()
    best_passages, analyze = store.best_passages, SourceAnalyzer.analyze

    def waiting_best_passages(*args, **kwargs):
        document_started.set()
        if not web_started.wait(30):
            raise TimeoutError("no web page was being read while the document was")
        return best_passages(*args, **kwargs)

    async def waiting_analyze(self, *args, **kwargs):
        web_started.set()
        if await asyncio.to_thread(document_started.wait, 30):
            return await analyze(self, *args, **kwargs)
        raise TimeoutError("no document was being read while the page was")

    monkeypatch.setattr(store, "best_passages", waiting_best_passages)
    monkeypatch.setattr(SourceAnalyzer, "analyze", waiting_analyze)
    conversation = Conversation()
    await conversation.send(f"Quick Search. {BRIEF}\nCollection: acme-files")
    await conversation.send("APPROVED")
    state = await conversation.state()
    notes = state.get("notes_source_finder") or []
    assert not [n for n in notes if "being read while" in n], notes
    origins = [s["origin"] for s in state[keys.SOURCE_RECORDS] if s["is_reachable"]]
    assert origins.count("document") == 1 and origins.count("web") >= 3


async def test_documents_do_not_count_against_the_source_limit(store, env):
    for i in range(3):
        store.add(
            parsed(f"annex-{i}.pdf", [f"Annex {i}: Acme Chemicals paid {i + 1} million in 2024."]),
            "annexes",
        )
    env.set(VICARAN_SOURCE_LIMIT="2")
    conversation = Conversation()
    await conversation.send(f"Quick Search. {BRIEF}\nCollection: annexes")
    await conversation.send("APPROVED")
    state = await conversation.state()
    origins = [s["origin"] for s in state[keys.SOURCE_RECORDS]]
    assert origins.count("document") == 3 and origins.count("web") == 2


async def test_without_a_search_key_documents_carry_the_run(store, env):
    env.set(TAVILY_API_KEY="", VICARAN_LIVE_SEARCH_FALLBACK="false")
    store.add(parsed("contract-002.pdf", [CONTRACT_P1, CONTRACT_P2]), "acme-files", "high")
    conversation = Conversation()
    await conversation.send(f"Quick Search. {BRIEF}\nCollection: acme-files")
    run = await conversation.send("APPROVED")
    texts = conversation.texts(run)
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    state = await conversation.state()
    assert [s["origin"] for s in state[keys.SOURCE_RECORDS]] == ["document"]
    # search off by choice, said in the plan: not a failure of the run
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    assert state[keys.CLAIM_RECORDS]
    assert "[NO_SOURCES_FOUND]" not in state[keys.DISCOVERED_SOURCES]
    assert env.services.tavily.requests == []


async def test_a_collection_the_store_cannot_read_leaves_the_web_run_partial(
    store, env, monkeypatch
):
    store.add(parsed("contract-002.pdf", [CONTRACT_P1]), "acme-files")
    conversation = Conversation()
    await conversation.send(f"Quick Search. {BRIEF}\nCollection: acme-files")

    def broken(reader=None) -> dict:
        raise OSError("database is locked")

    monkeypatch.setattr(store, "collections", broken)
    run = await conversation.send("APPROVED")
    assert conversation.texts(run)[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert "database is locked" in state[keys.PARTIAL_REASON]
    assert document_sources(state) == [] and state[keys.SOURCE_RECORDS]


async def test_documents_make_a_brief_that_names_no_one_specific_enough(store):
    """Like a link: the document says who. "Check this contract" needs no questions first."""
    conversation = Conversation()
    events = await conversation.send(
        "check what this contract says about the payments",
        [text_file("contract-002.txt", CONTRACT_P1 + "\n\n" + CONTRACT_P2)],
    )
    plan = plan_of(conversation, events)
    assert plan.rstrip().endswith(MARKER)
    assert "(contract-002.txt) - 1 page" in plan


async def test_a_file_sent_with_approved_gets_the_updated_plan_and_no_idle_tool_call(store, env):
    """APPROVED with a new file: code says the file arrived and that the plan (now with it)
    needs approval again; no transfer the gate refuses shows in the chat, and nothing starts."""
    conversation = Conversation()
    await conversation.send(f"Quick Search. {BRIEF}")
    turn = await conversation.send("APPROVED", [text_file("memo.txt", "Acme paid 2 million.")])
    calls = [
        p.function_call.name
        for e in turn
        for p in (e.content.parts if e.content and e.content.parts else [])
        if p.function_call
    ]
    assert calls == []
    (reply,) = conversation.texts(turn)
    assert reply.startswith("📎 You attached 1 file with your approval")
    assert "(memo.txt)" in reply and reply.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "planning" and state[keys.AWAITING_APPROVAL]
    run = await conversation.send("APPROVED")
    assert conversation.texts(run)[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")


async def test_a_reliability_line_rates_the_files_attached_with_it(store, env):
    """`Reliability: high` in the message a file comes with rates that file (not the brief's
    words); a file sent later without one reads as its collection's (neutral)."""
    conversation = Conversation()
    await conversation.send(
        f"Quick Search. {BRIEF}\nReliability: high", [text_file("audit.txt", MEMO)]
    )
    state = await conversation.state()
    config = state[keys.INVESTIGATION_CONFIG]
    assert "Reliability" not in config["brief"] and "Reliability" not in config["title"]
    own = f"investigation-{state[keys.INVESTIGATION_ID]}"
    await conversation.send("And this one.", [text_file("notes.txt", "Acme paid 2 million.")])
    rated = {d.file_name: d.reliability for d in store.documents(own)}
    assert rated == {"audit.txt": "high", "notes.txt": "neutral"}
    await conversation.send("APPROVED")
    state = await conversation.state()
    stars = {s["publisher"]: s["credibility_score"] for s in document_sources(state)}
    assert stars["audit.txt"] > stars["notes.txt"]


def test_the_reliability_line_is_read_in_english_and_portuguese() -> None:
    from vicaran_agent.briefing import choose_reliability

    assert choose_reliability("Brief.\nReliability: High") == ("high", "Brief.")
    assert choose_reliability("Confiabilidade: baixa\nBriefing.") == ("low", "Briefing.")
    assert choose_reliability("The reliability: of the data is the story.")[0] is None
