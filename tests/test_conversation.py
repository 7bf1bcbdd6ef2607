"""The conversation never traps: what a journalist says before, during and after a run."""

from __future__ import annotations

import re

import pytest

from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.corpus import RIVERTON
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.conversation.messages import parse_first_message

MARKER = "[PLAN_APPROVAL_REQUIRED]"
BRIEF = (
    "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024. "
    "https://rivertondaily.com/news/acme-health-complaints"
)
USER = next(a for a in RIVERTON if a.url.endswith("acme-health-complaints"))
OTHERS = [a for a in RIVERTON if a is not USER]
NEXT = "Next: did XYZ Corp bribe inspectors? https://example.org/xyz-bribes"


def transfers(events) -> list:
    return [c for e in events for c in e.get_function_calls() if c.name == "transfer_to_agent"]


def questions_in(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.rstrip().endswith("?")]


async def finished_quick_run() -> Conversation:
    conversation = Conversation()
    await conversation.send("Quick Search. " + BRIEF)
    events = await conversation.send("APPROVED")
    assert conversation.texts(events)[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    return conversation


# --- after a finished run ------------------------------------------------------------------


async def test_a_second_brief_after_a_finished_run_suggests_a_new_session(env):
    conversation = await finished_quick_run()
    state = await conversation.state()
    page = get_settings().investigation_url(state[keys.INVESTIGATION_ID])

    for text in (NEXT, "APPROVED"):
        events = await conversation.send(text)
        reply = conversation.texts(events)[-1]
        assert "new session" in reply.lower(), reply
        assert page in reply
        assert MARKER not in reply
        assert not transfers(events)
        assert not any(c.name == "analyze_source" for e in events for c in e.get_function_calls())
    assert (await conversation.state())[keys.INVESTIGATION_STATUS] == "completed"


async def test_the_new_session_answer_is_in_the_journalists_language(env):
    conversation = Conversation()
    await conversation.send(
        "Busca rápida. Investigue se a Acme Chemicals poluiu a água de Riverton em 2024."
    )
    await conversation.send("APROVADO")
    events = await conversation.send("Agora: a XYZ Corp subornou fiscais em Maceió?")
    reply = conversation.texts(events)[-1]
    assert "nova sessão" in reply.lower(), reply
    assert not transfers(events)


async def test_a_question_about_the_report_still_reaches_the_model(env):
    conversation = await finished_quick_run()
    events = await conversation.send("What did the EPA find about Acme?")
    reply = conversation.texts(events)[-1]
    assert "new session" not in reply.lower()
    assert MARKER not in reply


# --- while planning ----------------------------------------------------------------------------


def orchestrator_calls() -> int:
    return len(scripted_model.calls_for("orchestrator"))


@pytest.mark.parametrize(
    ("brief", "other", "said"),
    [
        (
            BRIEF,
            "Did the Governor of Texas misuse hurricane relief funds in Houston?",
            "new session",
        ),
        (
            "Investigue se a Acme Chemicals poluiu a água de Riverton em 2024.",
            "Quero investigar as contas da Prefeitura de Maceió com merenda escolar.",
            "nova sessão",
        ),
    ],
)
async def test_a_different_topic_while_planning_is_answered_by_code_not_planned(
    env, brief, other, said
):
    """Seed 001: one investigation, one topic - code says so, the plan on screen stays."""
    conversation = Conversation()
    await conversation.send(brief)
    plan = (await conversation.state())[keys.INVESTIGATION_PLAN]
    asked = orchestrator_calls()
    events = await conversation.send(other)
    reply = conversation.texts(events)[-1]
    assert said in reply.lower(), reply
    assert MARKER not in reply and not transfers(events)
    assert orchestrator_calls() == asked  # no model call: no new plan can come of it
    assert not any(c.name == "analyze_source" for e in events for c in e.get_function_calls())
    state = await conversation.state()
    assert state[keys.INVESTIGATION_PLAN] == plan  # not re-planned
    assert state[keys.AWAITING_APPROVAL] is False  # "yes" answers the suggestion, not the plan
    events = await conversation.send("yes")
    assert not transfers(events) and not any(e.author == "source_finder" for e in events)


@pytest.mark.parametrize(
    "edit",
    [
        "Focus on Acme Chemicals' lead readings at the Riverton plant in the fourth quarter.",
        "Also include what Mayor Jane Doe said about it.",  # names someone new: an edit still
        "Look at the 2023 permits of the plant instead, and the Riverton council's votes.",
    ],
)
async def test_an_edited_brief_on_the_same_subject_still_replans(env, edit):
    conversation = Conversation()
    await conversation.send(BRIEF)
    asked = orchestrator_calls()
    events = await conversation.send(edit)
    assert orchestrator_calls() > asked  # the model was asked, as for any change to the plan
    reply = conversation.texts(events)[-1]
    assert "new session" not in reply.lower()


# --- clarifying questions -------------------------------------------------------------------


async def test_a_vague_brief_gets_questions_then_skip_gets_the_plan(env):
    conversation = Conversation()
    events = await conversation.send("look into the mayor")
    reply = conversation.texts(events)[-1]
    assert MARKER not in reply
    assert 1 <= len(questions_in(reply)) <= 3, reply
    assert "skip" in reply.lower()
    state = await conversation.state()
    assert state[keys.AWAITING_APPROVAL] is False

    events = await conversation.send("skip")
    plan = conversation.texts(events)[-1]
    assert plan.rstrip().endswith(MARKER)
    assert "Investigation Plan" in plan
    assert (await conversation.state())[keys.AWAITING_APPROVAL] is True


@pytest.mark.parametrize(
    ("brief", "asks"),
    [
        ("look into the mayor", True),  # no one named
        ("Look into what Mayor Smith did.", True),  # which Smith? where, when?
        ("investigue o que fez a Prefeitura", True),
        ("Look into what Mayor Smith did in 2023.", False),  # a period places it
        ("Look into what Mayor Smith did in Riverton.", False),  # a second name: the place
        ("Investigate whether Acme Chemicals polluted Riverton's drinking water.", False),
    ],
)
async def test_questions_come_when_the_entity_is_ambiguous_or_place_and_period_missing(
    env, brief, asks
):
    """DESIGN, protocol point 3 (seed 004): no identifiable subject, place or period, or an
    ambiguous entity, gets at most three questions before any plan."""
    conversation = Conversation()
    reply = conversation.texts(await conversation.send(brief))[-1]
    if asks:
        assert MARKER not in reply and 1 <= len(questions_in(reply)) <= 3, reply
        assert (await conversation.state())[keys.CLARIFY] == "asking"
    else:
        assert reply.rstrip().endswith(MARKER) and not questions_in(reply), reply


@pytest.mark.parametrize(
    ("brief", "expected"),
    [
        ("look into the mayor", ["Who exactly", "Where did it happen", "What period"]),
        ("Look into what Mayor Smith did.", ["Which Mayor Smith", "What period"]),
        ("Look into what Mayor Smith did in Riverton.", []),
    ],
)
def test_code_asks_what_the_brief_leaves_open_when_the_model_asks_nothing(brief, expected):
    from vicaran_agent.conversation.planning import clarifying_questions
    from vicaran_agent.schemas import InvestigationConfig

    config = InvestigationConfig.for_mode(
        "quick", investigation_id="x", title=brief, brief=brief, language="en"
    )
    asked = questions_in(clarifying_questions("I have a few questions.", config))
    assert len(asked) == len(expected) or not expected
    for question, start in zip(asked, expected, strict=False):
        assert start in question, asked


async def test_the_models_questions_are_asked_at_most_three(env):
    env.set(VICARAN_FAST_MODEL="scripted/chatty-questions")
    conversation = Conversation()
    events = await conversation.send("look into the mayor")
    reply = conversation.texts(events)[-1]
    assert questions_in(reply)[0].endswith("Which mayor, of which city?")
    assert len(questions_in(reply)) == 3


async def test_a_vague_portuguese_brief_gets_portuguese_questions(env):
    conversation = Conversation()
    events = await conversation.send("investigue o prefeito")
    reply = conversation.texts(events)[-1]
    assert "Qual prefeito, de qual cidade?" in reply and "pular" in reply
    events = await conversation.send("pular")
    assert conversation.texts(events)[-1].rstrip().endswith(MARKER)


async def test_answers_to_the_questions_go_into_the_brief_and_are_asked_once(env):
    conversation = Conversation()
    await conversation.send("look into the mayor")
    events = await conversation.send("the mayor of Riverton, about the 2024 water contract")
    plan = conversation.texts(events)[-1]
    assert plan.rstrip().endswith(MARKER)
    config = (await conversation.state())[keys.INVESTIGATION_CONFIG]
    assert "Riverton" in config["brief"] and "look into the mayor" in config["brief"]


async def test_a_specific_brief_gets_the_plan_with_no_question(env):
    conversation = Conversation()
    events = await conversation.send(BRIEF)
    plan = conversation.texts(events)[-1]
    assert plan.rstrip().endswith(MARKER)
    assert not any(q for q in questions_in(plan) if "?" in q)


# --- the plan is code's ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("brief", "said"),
    [
        ("Quick Search. " + BRIEF, "**Estimated Time:** about 10 minutes"),
        (BRIEF, "**Estimated Time:** 15–20 minutes"),
        (
            "Busca rápida. Investigue se a Acme Chemicals poluiu a água de Riverton em 2024.",
            "**Tempo estimado:** cerca de 10 minutos",
        ),
        (
            "Investigue se a Acme Chemicals poluiu a água de Riverton em 2024.",
            "**Tempo estimado:** 15 a 20 minutos",
        ),
    ],
)
async def test_the_plan_gives_the_seeds_time_estimate_for_its_mode(env, brief, said):
    """Seed 001's estimates (quick ~10 min, detailed 15-20 min): no live run has measured
    Vicaran's own, so it says no less."""
    conversation = Conversation()
    plan = conversation.texts(await conversation.send(brief))[-1]
    assert said in plan, plan


async def test_a_model_that_omits_the_marker_still_presents_an_approvable_plan(env):
    env.set(VICARAN_FAST_MODEL="scripted/forgets-marker")
    conversation = Conversation()
    events = await conversation.send(BRIEF)
    plan = conversation.texts(events)[-1]
    assert plan.rstrip().endswith(MARKER)
    for part in ("Investigation Topic", "What I'll Investigate", "Mode:", "Estimated Time"):
        assert part in plan, part
    assert "Health complaints rise in Riverton" in plan  # the journalist's source, from code
    events = await conversation.send("APPROVED")
    assert conversation.texts(events)[0].startswith("[INVESTIGATION_STARTED]")


async def test_everything_that_will_not_be_used_is_in_the_plan_before_approval(env):
    env.services.jina.fail(USER.url, 404)
    env.set(TAVILY_API_KEY="", VICARAN_MAX_USER_URLS="2")
    conversation = Conversation()
    brief = (
        "Investigate whether Acme Chemicals polluted Riverton's water in 2024.\n"
        f"{USER.url}\n{OTHERS[0].url}\n{OTHERS[1].url}\n"
        "ftp://files.example.org/report.pdf\nfile:///home/me/leak.pdf"
    )
    events = await conversation.send(brief)
    plan = conversation.texts(events)[-1]
    assert plan.rstrip().endswith(MARKER)
    # with the reason in plain words; the services' answers stay in the record's details
    assert f"{USER.url}: could not be read (the site could not be found" in plan
    assert "Jina Reader" not in plan and "Errno" not in plan and "resolve" not in plan
    assert "ftp://files.example.org/report.pdf" in plan
    assert "file:///home/me/leak.pdf" in plan
    assert OTHERS[1].url in plan and "limit" in plan  # over VICARAN_MAX_USER_URLS
    assert "TAVILY_API_KEY" in plan
    responses = {
        r.response["url"]: r.response
        for e in events
        for r in e.get_function_responses()
        if r.name == "analyze_source"
    }
    unreadable = next(v for k, v in responses.items() if "acme-health" in k)
    assert unreadable["status"] == "error"
    assert "could not be read (the site could not be found" in unreadable["error_message"]


async def test_an_unreadable_source_is_still_kept_as_the_journalists_source(env):
    env.services.jina.fail(USER.url, 404)
    conversation = Conversation()
    await conversation.send(BRIEF)
    state = await conversation.state()
    (source,) = state[keys.USER_SOURCES]
    assert source["is_reachable"] is False
    assert (
        source["unreachable_reason"] == "the site could not be found (its address does not exist)"
    )
    assert "Jina Reader" in source["unreachable_detail"] and "404" in source["unreachable_detail"]


# --- mode by choice ---------------------------------------------------------------------


def test_quick_inside_the_story_is_not_a_mode_choice():
    _, mode, brief, _ = parse_first_message(
        "Investigate the quick approval of the dam permit in Riverton in 2024."
    )
    assert mode == "detailed"
    assert "quick approval" in brief


def test_the_mode_phrase_is_a_choice_and_leaves_title_and_brief():
    for text in (
        "Quick Search. Investigate the Riverton dam permit.",
        "Investigate the Riverton dam permit.\nMode: Quick Search",
        "Investigate the Riverton dam permit (quick mode)",
        "Busca rápida: investigue a licença da barragem de Riverton.",
    ):
        _, mode, brief, title = parse_first_message(text)
        assert mode == "quick", text
        assert not re.search(r"quick|rápida|mode", brief + title, re.I), (brief, title)
        assert "Riverton" in title


def test_detailed_is_the_default_and_can_be_chosen():
    assert parse_first_message("Investigate the Riverton dam permit.")[1] == "detailed"
    _, mode, brief, _ = parse_first_message("Detailed Inquiry. Investigate the Riverton dam.")
    assert mode == "detailed" and "Detailed" not in brief


def test_titles_never_keep_a_mode_phrase():
    """Four runs of one story in the dashboard's list: no title says how it was run."""
    story = "Did XYZ Corp pollute the Clear River?"
    for text in (
        f"{story} Quick Search.",
        f"{story} Detailed investigation.",
        f"{story} Detailed Inquiry.",
        f"Investigação detalhada: {story}",
    ):
        _, _, brief, title = parse_first_message(text)
        assert title == story, text
        assert brief == story, text
    inside = "Run a detailed investigation of the port payments."
    assert parse_first_message(inside)[2] == inside  # the story's words, not a mode


def test_links_do_not_make_an_english_brief_portuguese():
    from vicaran_agent.i18n import detect_language

    brief = "Did Acme pollute Riverton? See https://a.com/as/os and https://b.com.br/a/o/da/do"
    assert detect_language(brief) == "en"


async def test_no_search_key_and_nothing_else_says_claims_would_stay_unverified(env):
    env.set(TAVILY_API_KEY="", FACTCHECK_API_KEY="", VICARAN_LIVE_SEARCH_FALLBACK="false")
    conversation = Conversation()
    plan = conversation.texts(await conversation.send("Investigate Acme Chemicals in Riverton."))[
        -1
    ]
    assert "TAVILY_API_KEY" in plan and "unverified" in plan
    assert plan.rstrip().endswith(MARKER)


async def test_a_brief_that_names_no_one_but_gives_a_link_gets_the_plan(env):
    conversation = Conversation()
    events = await conversation.send(f"look into this story {USER.url}")
    plan = conversation.texts(events)[-1]
    assert plan.rstrip().endswith(MARKER)
    assert not questions_in(plan)


async def test_approved_after_the_run_is_never_taken_for_a_question_on_topic(env):
    """ "Approved" in the brief makes the word on-topic; the approval is still not a question."""
    conversation = Conversation()
    await conversation.send("Quick Search. Who approved the Riverton dam contract in 2024?")
    await conversation.send("APPROVED")
    events = await conversation.send("approved")
    reply = conversation.texts(events)[-1]
    assert "new session" in reply.lower(), reply
    assert not transfers(events)


async def test_a_portuguese_brief_plan_says_when_gazettes_are_searched(env):
    conversation = Conversation()
    events = await conversation.send(
        "Busca Rápida. A Prefeitura de Porto Alegre contratou sem licitação a Construtora "
        "Pampa para obras emergenciais após as enchentes de maio de 2024?"
    )
    plan = conversation.texts(events)[-1]
    assert "Diários oficiais (Querido Diário)" in plan


async def test_an_english_brief_about_elsewhere_does_not_mention_gazettes(env):
    conversation = Conversation()
    events = await conversation.send(
        "Quick Search. Did Acme Chemicals pollute Riverton's water in 2024?"
    )
    assert "Querido Diário" not in conversation.texts(events)[-1]
