"""An attachment is stored once, as an ADK artifact; the session keeps a reference, not the bytes.

Before, the user message kept every attached file inline: ADK's session store held the whole
base64 body (80 MB for a 60 MB PDF) next to the artifact copy Vicaran saved.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from google.adk.sessions import Session
from google.genai import types

from tests.support import scripted_model
from tests.support.api_server import APP, free_port, run_sse
from tests.support.conversation import Conversation
from tests.support.inprocess import adk_api_serving
from vicaran_agent import state_keys as keys
from vicaran_agent.adk_compat import get_artifact_uri
from vicaran_agent.config import get_settings
from vicaran_agent.documents import intake
from vicaran_agent.documents.store import DocumentStore, get_document_store

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
MEMO = (
    "# EPA inspection memo\n\nOn 2024-03-12 EPA inspectors found lead at 41 parts per billion in "
    "Riverton's drinking water, nearly three times the federal action level.\n"
)
MARKER = "[PLAN_APPROVAL_REQUIRED]"


@pytest.fixture
def store(env) -> DocumentStore:
    return get_document_store(get_settings().database_url)


def attached(name: str, data: bytes, mime: str = "text/markdown") -> types.Part:
    return types.Part(inline_data=types.Blob(data=data, mime_type=mime, display_name=name))


async def stored_session(conversation: Conversation) -> Session:
    session = await conversation.runner.session_service.get_session(
        app_name=conversation.app.name,
        user_id="journalist",
        session_id=conversation.session_id or "",
    )
    assert session is not None
    return session


def inline_parts(session: Session) -> list[types.Part]:
    return [
        part
        for event in session.events
        for part in (event.content.parts if event.content and event.content.parts else [])
        if part.inline_data is not None
    ]


async def test_the_session_keeps_a_reference_and_the_artifact_holds_the_file_once(store):
    conversation = Conversation()
    memo = MEMO.encode() + b"x" * 200_000  # big enough to see in a session
    events = await conversation.send(BRIEF, [attached("epa-memo.md", memo)])
    assert conversation.texts(events)[-1].rstrip().endswith(MARKER)

    session = await stored_session(conversation)
    assert inline_parts(session) == []  # no event holds the bytes
    user = next(e for e in session.events if e.author == "user")
    (reference,) = [p for p in user.content.parts if p.file_data is not None]
    assert reference.file_data.file_uri == get_artifact_uri(
        app_name=APP, user_id="journalist", filename="epa-memo.md", version=0, session_id=session.id
    )
    assert reference.file_data.display_name == "epa-memo.md"
    assert reference.file_data.mime_type == "text/markdown"
    assert len(session.model_dump_json()) < 50_000  # the 200 KB file is not in it

    artifacts = conversation.runner.artifact_service
    versions = await artifacts.list_versions(
        app_name=APP, user_id="journalist", session_id=session.id, filename="epa-memo.md"
    )
    assert versions == [0]  # stored once
    artifact = await artifacts.load_artifact(
        app_name=APP, user_id="journalist", session_id=session.id, filename="epa-memo.md"
    )
    assert artifact is not None and artifact.inline_data.data == memo

    state = await conversation.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    (document,) = store.documents(own)  # indexed from the artifact
    assert document.file_name == "epa-memo.md"
    assert "41 parts per billion" in (store.page_text(document.document_id, 1) or "")
    # the dev UI lists it: the turn's events name the artifact
    assert any(e.actions.artifact_delta.get("epa-memo.md") == 0 for e in session.events)
    # the model never got the file, nor its reference
    assert all(c["files"] == [] for c in scripted_model.CALLS)
    sent = "\n".join(c["prompt"] for c in scripted_model.calls_for("orchestrator"))
    assert "[Attached file: epa-memo.md" in sent and "artifact://" not in sent


async def test_a_file_over_the_document_limit_is_neither_kept_nor_stored(store, env):
    env.set(VICARAN_DOCUMENT_MAX_BYTES="1000")
    conversation = Conversation()
    events = await conversation.send(
        BRIEF, [attached("huge.md", b"A" * 5000), attached("memo.md", MEMO.encode())]
    )
    plan = conversation.texts(events)[-1]
    line = next(x for x in plan.split("**Not used")[1].splitlines() if "huge.md" in x)
    assert "too large" in line and "5,000 bytes" in line
    session = await stored_session(conversation)
    assert inline_parts(session) == []
    keys_ = await conversation.runner.artifact_service.list_artifact_keys(
        app_name=APP, user_id="journalist", session_id=session.id
    )
    assert keys_ == ["memo.md"]
    assert [d.file_name for d in store.documents()] == ["memo.md"]


async def test_a_reference_to_another_conversations_file_is_never_followed(store):
    victim = Conversation()
    await victim.send(BRIEF, [attached("memo.md", MEMO.encode())])
    stolen = types.Part(
        file_data=types.FileData(
            file_uri=get_artifact_uri(
                app_name=APP,
                user_id="journalist",
                filename="memo.md",
                version=0,
                session_id=victim.session_id,
            ),
            mime_type="text/markdown",
            display_name="memo.md",
        )
    )
    attacker = Conversation()
    attacker.runner = victim.runner  # the same server: the artifact exists there
    attacker.app = victim.app
    await attacker.send(BRIEF, [stolen])
    state = await attacker.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    assert store.documents(own) == []  # nothing of the victim's was read into it
    records = state[keys.INVESTIGATION_DOCUMENTS]["attachments"]
    assert [(r["file_name"], r["status"]) for r in records] == [("memo.md", "unreadable")]


# --- through `adk api_server` -----------------------------------------------------------------


@pytest.fixture
def documents_server(env, tmp_path: Path) -> Iterator[tuple[str, DocumentStore]]:
    """`adk api_server` (ADK's command, in this process) on a SQLite session store."""
    with adk_api_serving(free_port(), f"sqlite:///{tmp_path}/sessions.db") as served:
        yield served.base, get_document_store(get_settings().database_url)


@pytest.mark.e2e
@pytest.mark.timeout(240)
def test_run_sse_stores_the_attachment_once_and_the_session_only_names_it(documents_server):
    base, store = documents_server
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
    memo = MEMO.encode() + b"\n" + b"Appendix line.\n" * 100_000  # 1.5 MB
    part = {
        "inlineData": {
            "displayName": "epa-memo.md",
            "mimeType": "text/markdown",
            "data": base64.b64encode(memo).decode(),
        }
    }
    events = [event for _, event in run_sse(base, session["id"], BRIEF, files=[part])]
    plan = "".join(p.get("text") or "" for p in events[-1]["content"]["parts"])
    assert "(epa-memo.md)" in plan.split("**Your documents:**")[1]

    stored = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}")
    assert len(stored.content) < 100_000  # the session is not the 2 MB of base64
    assert "inlineData" not in stored.text
    references = [
        p["fileData"]
        for e in stored.json()["events"]
        for p in (e.get("content") or {}).get("parts") or []
        if p.get("fileData")
    ]
    assert [r["displayName"] for r in references] == ["epa-memo.md"]
    artifacts = f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}/artifacts"
    assert httpx.get(artifacts).json() == ["epa-memo.md"]
    assert httpx.get(f"{artifacts}/epa-memo.md/versions").json() == [0]
    state = stored.json()["state"]
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    (document,) = store.documents(own)
    assert document.file_name == "epa-memo.md"
    assert json.dumps(state).count("Appendix line.") == 0
