"""A run belongs to the server: a client that goes away mid-run does not stop it."""

from __future__ import annotations

from google.genai import types

from tests.support.conversation import Conversation, text_of
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.detached import wait_for_detached_runs
from vicaran_agent.storage import get_repository

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water."


async def test_a_client_that_leaves_mid_run_does_not_stop_the_investigation(env):
    conversation = Conversation()
    await conversation.send(BRIEF)
    stream = conversation.runner.run_async(
        user_id="journalist",
        session_id=conversation.session_id,
        new_message=types.Content(role="user", parts=[types.Part(text="APPROVED")]),
    )
    seen = []
    async for event in stream:
        seen.append(text_of(event))
        if "**Analyzing source 1/" in seen[-1]:
            break
    await stream.aclose()  # the tab is closed
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "in_progress"  # it was mid-run when the client left
    assert not any("[INVESTIGATION_COMPLETE]" in t for t in seen)

    await wait_for_detached_runs()
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    record = get_repository(get_settings().database_url).get_investigation(
        state[keys.INVESTIGATION_ID]
    )
    assert record["status"] == "completed" and record["fact_checks"]
    # reopening the session shows the rest of the run: its progress and the report
    session = await conversation.runner.session_service.get_session(
        app_name=conversation.app.name, user_id="journalist", session_id=conversation.session_id
    )
    texts = [text_of(e) for e in session.events]
    assert any("🔍 [PROGRESS] Verifying claim" in t for t in texts)
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert sum("[INVESTIGATION_COMPLETE]" in t for t in texts) == 1  # nothing appended twice
    ids = [e.id for e in session.events]
    assert len(ids) == len(set(ids))


async def test_a_client_that_leaves_on_investigation_started_does_not_stop_it(env):
    conversation = Conversation()
    await conversation.send(BRIEF)
    stream = conversation.runner.run_async(
        user_id="journalist",
        session_id=conversation.session_id,
        new_message=types.Content(role="user", parts=[types.Part(text="APPROVED")]),
    )
    seen = []
    async for event in stream:
        seen.append(text_of(event))
        if "[INVESTIGATION_STARTED]" in seen[-1]:
            break
    await stream.aclose()  # the tab is closed on the very event that says the run started
    assert "[INVESTIGATION_STARTED]" in seen[-1]

    await wait_for_detached_runs()
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    record = get_repository(get_settings().database_url).get_investigation(
        state[keys.INVESTIGATION_ID]
    )
    assert record["status"] == "completed" and record["sources"] and record["fact_checks"]
    session = await conversation.runner.session_service.get_session(
        app_name=conversation.app.name, user_id="journalist", session_id=conversation.session_id
    )
    texts = [text_of(e) for e in session.events]
    assert sum("[INVESTIGATION_STARTED]" in t for t in texts) == 1
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
