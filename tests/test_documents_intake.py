"""The journalist's documents getting into an investigation: the brief, attachments, the plan."""

from __future__ import annotations

import hashlib

import pytest
from google.genai import types

from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.documents import FakeDocumentStore
from vicaran_agent import state_keys as keys
from vicaran_agent.briefing import choose_collections
from vicaran_agent.callbacks.orchestrator import read_first_message
from vicaran_agent.documents import intake
from vicaran_agent.documents.model import PageText, ParsedDocument, UnreadablePage

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
def store(env, monkeypatch) -> FakeDocumentStore:
    fake = FakeDocumentStore()
    monkeypatch.setattr(intake, "get_document_store", lambda _url: fake)
    return fake


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
