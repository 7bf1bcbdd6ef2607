"""Attachments cut off by a restart: the next message says which files were not indexed.

A server killed while it indexes a message's files leaves that message in the session (ADK
appends it before any agent runs) and nothing of the turn's state. The next message used to be
taken for a new brief, the files forgotten without a word. Now that turn says which files were not
indexed and asks for them again, once; files sent again are indexed as usual.
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from google.adk.events import Event
from google.genai import types

from tests.support import wait
from tests.support.api_server import APP, ROOT, answers, free_port, run_sse
from tests.support.conversation import Conversation
from tests.support.inprocess import adk_api_serving
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.documents import intake
from vicaran_agent.documents.store import get_document_store

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
MEMO = "EPA inspectors found lead at 41 parts per billion in Riverton's drinking water in 2024.\n"
MARKER = "[PLAN_APPROVAL_REQUIRED]"


def text_file(name: str, text: str = MEMO) -> types.Part:
    return types.Part(
        inline_data=types.Blob(data=text.encode(), mime_type="text/plain", display_name=name)
    )


async def killed_while_indexing(conversation: Conversation, text: str, files: list) -> None:
    """What a server killed while it indexed `files` leaves behind: the message in the session,
    and no state from that turn (its state was to be saved when the turn's callback ended)."""
    service, app = conversation.runner.session_service, conversation.app.name
    if conversation.session_id is None:
        session = await service.create_session(app_name=app, user_id=conversation.user_id)
        conversation.session_id = session.id
    session = await service.get_session(
        app_name=app, user_id=conversation.user_id, session_id=conversation.session_id
    )
    parts = ([types.Part(text=text)] if text else []) + files
    await service.append_event(
        session,
        Event(
            invocation_id="e-killed-mid-index",
            author="user",
            content=types.Content(role="user", parts=parts),
        ),
    )


def last_reply(conversation: Conversation, events) -> str:
    return conversation.texts(events)[-1]


async def test_a_first_message_cut_off_is_named_and_its_files_asked_for_again(env):
    conversation = Conversation()
    await killed_while_indexing(
        conversation, BRIEF, [text_file("memo.txt"), text_file("contract.txt")]
    )

    reply = last_reply(conversation, await conversation.send("Hello? Did you get my files?"))

    assert "memo.txt" in reply and "contract.txt" in reply
    assert "were not indexed" in reply and "attach them again" in reply
    assert "brief" in reply  # the brief was in the message that was cut off
    assert MARKER not in reply
    state = await conversation.state()
    assert not state.get(keys.INVESTIGATION_CONFIG)  # "Hello?" did not become the brief

    # sent again: indexed, and planned with, as any first message
    plan = last_reply(conversation, await conversation.send(BRIEF, [text_file("memo.txt")]))
    assert "(memo.txt) - 1 page" in plan.split("**Your documents:**")[1]
    not_used = plan.split("**Not used in this investigation:**")[1]
    line = next(x for x in not_used.splitlines() if "contract.txt" in x)
    assert "the server restarted" in line and "attach it again" in line
    assert "memo.txt" not in not_used
    state = await conversation.state()
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    store = get_document_store(get_settings().database_url)
    assert [d.file_name for d in store.documents(own)] == ["memo.txt"]


async def test_a_planning_turn_cut_off_is_said_and_then_listed_in_the_plan(env):
    conversation = Conversation()
    first = last_reply(conversation, await conversation.send(BRIEF))
    assert first.rstrip().endswith(MARKER)
    await killed_while_indexing(conversation, "", [text_file("epa-memo.txt")])

    reply = last_reply(conversation, await conversation.send("What will you check first?"))

    assert "epa-memo.txt was not indexed" in reply and "attach it again" in reply
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "planning"
    records = state[keys.INVESTIGATION_DOCUMENTS]["attachments"]
    assert [(r["file_name"], r["status"]) for r in records] == [("epa-memo.txt", "cut_off")]

    # said once: the next turn plans, with the file listed as not used until it comes again
    plan = last_reply(conversation, await conversation.send("Focus on the EPA inspections."))
    assert "was not indexed" not in plan.split("**Not used in this investigation:**")[0]
    line = next(x for x in plan.splitlines() if "epa-memo.txt" in x)
    assert "the server restarted" in line
    plan = last_reply(conversation, await conversation.send("", [text_file("epa-memo.txt")]))
    assert "(epa-memo.txt) - 1 page" in plan.split("**Your documents:**")[1]
    assert "the server restarted" not in plan
    assert plan.rstrip().endswith(MARKER)


async def test_files_sent_again_with_the_next_message_are_not_reported(env):
    conversation = Conversation()
    await killed_while_indexing(conversation, BRIEF, [text_file("memo.txt")])

    plan = last_reply(conversation, await conversation.send(BRIEF, [text_file("memo.txt")]))

    assert "restarted" not in plan and "not indexed" not in plan
    assert "(memo.txt) - 1 page" in plan.split("**Your documents:**")[1]


async def test_a_new_version_of_an_indexed_file_cut_off_is_reported_too(env):
    conversation = Conversation()
    await conversation.send(BRIEF, [text_file("memo.txt")])
    await killed_while_indexing(conversation, "", [text_file("memo.txt", "The revised memo.")])

    reply = last_reply(conversation, await conversation.send("Is the new memo in?"))

    assert "memo.txt was not indexed" in reply


async def test_files_sent_before_the_brief_and_cut_off_are_taken_when_sent_again(env):
    conversation = Conversation()
    await killed_while_indexing(conversation, "", [text_file("memo.txt"), text_file("b.txt")])

    reply = last_reply(conversation, await conversation.send("", [text_file("memo.txt")]))

    assert "I've added memo.txt" in reply
    (line,) = [x for x in reply.splitlines() if "b.txt" in x]
    assert "the server restarted" in line
    assert not [x for x in reply.splitlines() if "memo.txt" in x and "restarted" in x]


async def test_a_session_from_before_the_turns_were_kept_hears_nothing_of_its_old_files(env):
    conversation = Conversation()
    await conversation.send(BRIEF, [text_file("memo.txt")])
    events = await conversation.send(
        "Focus on the EPA inspections.",
        state_delta={keys.ATTACHMENT_TURNS: None},  # as such a session's state was
    )

    reply = last_reply(conversation, events)

    assert "restarted" not in reply and "not indexed" not in reply


async def test_a_conversation_that_was_never_cut_off_hears_nothing_of_it(env):
    conversation = Conversation()
    await conversation.send("", [text_file("memo.txt")])  # files first, then the brief
    annex = text_file("annex.txt", "Annex: lead figures by month.")
    plan = last_reply(conversation, await conversation.send(BRIEF, [annex]))
    documents = plan.split("**Your documents:**")[1]
    assert "(memo.txt) - 1 page" in documents and "(annex.txt) - 1 page" in documents
    reply = last_reply(conversation, await conversation.send("Focus on the EPA inspections."))
    for said in (plan, reply):
        assert "restarted" not in said and "not indexed" not in said


async def test_the_notice_is_in_portuguese_for_a_portuguese_brief(env):
    conversation = Conversation()
    brief = "Investigue se a Prefeitura de Maceió pagou a merenda escolar sem licitação em 2024."
    await killed_while_indexing(conversation, brief, [text_file("contrato.txt")])

    reply = last_reply(conversation, await conversation.send("Olá? Recebeu meus arquivos?"))

    assert "contrato.txt não foi indexado" in reply and "anexe-o de novo" in reply


# --- a real server, killed while it indexes ---------------------------------------------------


@contextmanager
def api_server_process(
    tmp_path: Path, sessions: str, variables: dict[str, str], name: str
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`adk api_server` on the session database `sessions`: (base URL, its process)."""
    port = free_port()
    command = [
        sys.executable, "-m", "google.adk.cli", "api_server",
        "--host", "127.0.0.1", "--port", str(port),
        "--session_service_uri", sessions, "--artifact_service_uri", "memory://", APP,
    ]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **variables}
    with (tmp_path / f"{name}.log").open("w") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: _answers(base, process), f"{name} did not start")
            yield base, process
        finally:
            process.kill()
            process.wait(timeout=30)


def _answers(base: str, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        pytest.fail("the server exited")
    return answers(f"{base}/list-apps")


def wait_for(check, failure: str, seconds: float = 120.0) -> None:
    wait.until_sync(check, failure, seconds)


@pytest.mark.e2e
@pytest.mark.timeout(400)
def test_a_server_killed_while_indexing_says_so_after_the_restart(env, tmp_path):
    sessions = f"sqlite:///{tmp_path / 'sessions.db'}"
    stalled = tmp_path / "indexing-started"
    plugins = "tests.support.scripted_model"
    stalling = {
        "VICARAN_MODEL_PLUGINS": f"{plugins},tests.support.stalled_indexing",
        "STALL_MARKER_FILE": str(stalled),
    }
    with api_server_process(tmp_path, sessions, stalling, "before") as (base, process):
        session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
        body = {
            "appName": APP,
            "userId": "newsroom",
            "sessionId": session["id"],
            "newMessage": {
                "role": "user",
                "parts": [
                    {"text": BRIEF},
                    {
                        "inlineData": {
                            "displayName": "memo.txt",
                            "mimeType": "text/plain",
                            "data": base64.b64encode(MEMO.encode()).decode(),
                        }
                    },
                ],
            },
            "streaming": False,
        }

        def journalist_waits() -> None:  # the browser, until the server goes away
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(f"{base}/run_sse", json=body, timeout=300)

        browser = threading.Thread(target=journalist_waits)
        browser.start()
        wait_for(stalled.exists, "indexing never started")
        assert stalled.read_text() == "memo.txt"
        process.send_signal(signal.SIGKILL)  # the server dies mid-index
        process.wait(timeout=30)
        browser.join(timeout=60)

    # restarted: ADK's same command, in this process, on what the killed one left
    with adk_api_serving(free_port(), sessions) as after:
        events = [e for _, e in run_sse(after.base, session["id"], "Hello? Did you get my file?")]
    reply = "".join(p.get("text") or "" for p in events[-1]["content"]["parts"])
    assert "memo.txt was not indexed" in reply and "attach it again" in reply
    assert MARKER not in reply
