"""The approval gate is code: no approved plan, no pipeline - whatever the model does."""

from __future__ import annotations

import pytest

from tests.support.conversation import Conversation
from tests.support.records import as_json
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.conversation.messages import is_approval
from vicaran_agent.storage import get_repository

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."


def nothing_searched_or_saved(env, investigation_id: str) -> None:
    assert env.services.tavily.count("/search") == 0
    repository = get_repository(get_settings().database_url)
    assert as_json(repository.get_investigation(investigation_id)) is None


async def test_model_that_transfers_early_is_refused_and_the_plan_is_requested(env):
    env.set(VICARAN_FAST_MODEL="scripted/eager-transfer")
    conversation = Conversation()
    events = await conversation.send(BRIEF)

    refusals = [
        r.response
        for e in events
        for r in e.get_function_responses()
        if r.name == "transfer_to_agent"
    ]
    assert refusals and refusals[0]["status"] == "error"
    assert conversation.texts(events)[-1].rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    assert not any(e.author == "source_finder" for e in events)
    state = await conversation.state()
    assert state[keys.PLAN_APPROVED] is False
    assert state[keys.PIPELINE_STARTED] is False
    nothing_searched_or_saved(env, state[keys.INVESTIGATION_ID])


async def test_a_model_that_never_stops_transferring_is_stopped_in_code(env):
    env.set(VICARAN_FAST_MODEL="scripted/always-transfer")
    conversation = Conversation()
    events = await conversation.send(BRIEF)
    assert "the plan has not been approved" in conversation.texts(events)[-1]
    transfers = [c for e in events for c in e.get_function_calls() if c.name == "transfer_to_agent"]
    assert len(transfers) == 2
    state = await conversation.state()
    nothing_searched_or_saved(env, state[keys.INVESTIGATION_ID])


async def test_eager_model_on_a_question_turn_is_refused(env):
    conversation = Conversation()
    await conversation.send(BRIEF)
    env.set(VICARAN_FAST_MODEL="scripted/eager-transfer")  # a model that never waits
    await conversation.send("Is the plan going to include court records?")
    state = await conversation.state()
    nothing_searched_or_saved(env, state[keys.INVESTIGATION_ID])


async def test_the_pipeline_refuses_to_run_without_approval(env):
    """The second lock: even a transfer that slips past the tool gate is refused."""
    from vicaran_agent import agent

    env.monkeypatch.setattr(agent, "gate_tools", lambda *a, **k: None)
    env.set(VICARAN_FAST_MODEL="scripted/eager-transfer")
    conversation = Conversation()
    events = await conversation.send(BRIEF)
    texts = conversation.texts(events)
    assert any("the plan has not been approved" in t for t in texts)
    assert not any(e.author == "source_finder" for e in events)
    state = await conversation.state()
    nothing_searched_or_saved(env, state[keys.INVESTIGATION_ID])


async def test_approval_as_the_first_message_starts_nothing(env):
    conversation = Conversation()
    events = await conversation.send("APPROVED")
    assert "what you want to investigate" in conversation.texts(events)[-1]
    assert not any(e.author == "source_finder" for e in events)
    assert env.services.tavily.count("/search") == 0


async def test_edited_brief_gets_a_new_plan(env):
    conversation = Conversation()
    await conversation.send(BRIEF)
    events = await conversation.send(
        "Focus the Riverton investigation on the Acme lead readings from 2024 instead."
    )
    reply = conversation.texts(events)[-1]
    assert reply.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    assert "lead readings" in (await conversation.state())[keys.INVESTIGATION_PLAN]
    assert not any(e.author == "source_finder" for e in events)


async def test_different_topic_is_not_planned_and_yes_does_not_start_the_old_plan(env):
    conversation = Conversation()
    await conversation.send(BRIEF)
    events = await conversation.send("Look into the mayor of Springfield's campaign finances.")
    reply = conversation.texts(events)[-1]
    assert "new investigation" in reply
    assert "[PLAN_APPROVAL_REQUIRED]" not in reply
    events = await conversation.send("yes")
    assert not any(e.author == "source_finder" for e in events)
    assert env.services.tavily.count("/search") == 0


async def test_empty_brief_asks_for_one_without_starting_anything(env):
    conversation = Conversation()
    events = await conversation.send("   ")
    assert "what you want to investigate" in conversation.texts(events)[-1]
    assert keys.INVESTIGATION_CONFIG not in await conversation.state()


@pytest.mark.parametrize(
    "text",
    [
        "APPROVED",
        "approve",
        "Yes",
        "go",
        "Start",
        "yes, go ahead",
        "Looks good, let's start!",
        "✅ Approve & Start",
        "Sim, pode começar",
        "aprovado",
    ],
)
def test_approval_words(text):
    assert is_approval(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no",
        "Yes, but focus on 2023 instead",
        "Don't start yet",
        "start over with the mayor",
        "Can you add court records?",
        "Não, espere",
        "yes " * 20,
    ],
)
def test_not_approvals(text):
    assert not is_approval(text)
