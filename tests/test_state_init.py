"""State is initialised once per investigation, from the first message; later turns keep it."""

from __future__ import annotations

import uuid

import pytest

from tests.support.conversation import Conversation
from vicaran_agent import state_keys as keys
from vicaran_agent.conversation.messages import parse_first_message
from vicaran_agent.i18n import detect_language

ID = "550e8400-e29b-41d4-a716-446655440000"


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("Quick Search: did the mayor lie about the budget?", "quick"),
        ("quick - the mayor's budget claims", "quick"),
        ("Busca rápida: a prefeitura mentiu sobre o orçamento?", "quick"),
        ("Detailed Inquiry into the mayor's budget claims", "detailed"),
        ("Check quickly whether the mayor lied", "detailed"),
        ("Investigate the mayor's budget claims", "detailed"),
        ("Mode: Detailed Inquiry\nA quick look at the mayor's budget claims", "detailed"),
        ("Modo: Busca Rápida\nA prefeitura mentiu?", "quick"),
    ],
)
def test_mode_from_the_message(text, mode):
    assert parse_first_message(text)[1] == mode


def test_id_brief_and_title_from_the_message():
    text = f"Investigation ID: {ID}\nMode: Quick Search\nDid Acme pollute Riverton?\nMore detail."
    investigation_id, mode, brief, title = parse_first_message(text)
    assert investigation_id == ID
    assert mode == "quick"
    assert brief == "Did Acme pollute Riverton?\nMore detail."
    assert title == "Did Acme pollute Riverton?"


def test_no_id_in_the_message():
    assert parse_first_message("Did Acme pollute Riverton?")[0] is None


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Investigate whether the city council approved the contract", "en"),
        ("Investigue se a prefeitura de Maceió assinou o contrato sem licitação", "pt-BR"),
        ("Verificar a denúncia sobre a merenda escolar em São Paulo", "pt-BR"),
    ],
)
def test_language_of_the_brief(text, language):
    assert detect_language(text) == language


async def test_state_is_set_on_the_first_turn_and_kept_on_later_turns(env):
    conversation = Conversation()
    await conversation.send(f"Investigation ID: {ID}\nQuick Search. Did Acme pollute Riverton?")
    first = await conversation.state()
    assert first[keys.INVESTIGATION_ID] == ID
    assert first[keys.INVESTIGATION_MODE] == "quick"
    assert first[keys.INVESTIGATION_CONFIG]["investigation_id"] == ID
    assert first[keys.INVESTIGATION_CONFIG]["source_limit"] == 15
    assert first[keys.INVESTIGATION_LANGUAGE] == "English"
    assert first[keys.INVESTIGATION_PLAN]
    assert first[keys.AWAITING_APPROVAL] is True

    # A later message mentioning another id or mode changes nothing; the plan survives.
    other = str(uuid.uuid4())
    await conversation.send(f"Investigation ID: {other} detailed please, does Acme deny it?")
    later = await conversation.state()
    for key in (keys.INVESTIGATION_ID, keys.INVESTIGATION_MODE, keys.INVESTIGATION_CONFIG):
        assert later[key] == first[key]
    assert later[keys.INVESTIGATION_PLAN]
    assert later[keys.USER_PROMPT] == first[keys.USER_PROMPT]


async def test_new_uuid_when_no_id_is_given(env):
    conversation = Conversation()
    await conversation.send("Did Acme pollute Riverton's water?")
    state = await conversation.state()
    assert uuid.UUID(state[keys.INVESTIGATION_ID]).version == 4
    assert state[keys.INVESTIGATION_MODE] == "detailed"
