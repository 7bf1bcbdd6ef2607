"""Thinking models: thought is billed against the output cap, and no answer is cut off by it.

Gemini 2.5/3 count thought tokens against `max_output_tokens` (googleapis/python-genai#2062).
The scripted model spends thought the same way (`thinks-<n>`, SCRIPTED_THINKING_TOKENS), so a
cap sized for the answer alone shows here as a cut-off answer, as it would against Gemini.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from google.adk.models import BaseLlm, LLMRegistry
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import errors as genai_errors
from google.genai import types

from tests.support import scripted_model
from tests.support.records import as_json
from tests.test_flow import BRIEF, run_investigation
from vicaran_agent import state_keys as keys
from vicaran_agent.agent import orchestrator_config
from vicaran_agent.config import Settings, get_settings
from vicaran_agent.factcheck.live_search import LiveSearch
from vicaran_agent.llm import TASKS, ModelClient
from vicaran_agent.llm_budgets import (
    DEFAULT_OUTPUT_TOKENS,
    LIVE_SEARCH_OUTPUT_TOKENS,
    LIVE_SEARCH_THINKING,
    ORCHESTRATOR_OUTPUT_TOKENS,
    ORCHESTRATOR_THINKING,
    OUTPUT_TOKENS,
    SHORTER,
    THINKING,
    THINKING_ROOM,
    output_budget,
    task_budget,
)
from vicaran_agent.llm_models import ModelCallError
from vicaran_agent.model_outputs import QualityReview
from vicaran_agent.storage import get_repository

DEFAULTS = ("gemini-3.5-flash", "gemini-3.8-flash")  # config.py's fast and pro models
LEVEL = types.ThinkingLevel


@pytest.fixture
def gemini_defaults(env) -> Iterator[None]:
    """The product's default model names, answered by the scripted model thinking 1,024 tokens
    a call unless the request bounds it (as the issue's stand-in for Gemini did)."""
    env.set(
        VICARAN_FAST_MODEL=DEFAULTS[0],
        VICARAN_PRO_MODEL=DEFAULTS[1],
        GOOGLE_API_KEY="test-key",
        SCRIPTED_THINKING_TOKENS="1024",
    )
    with scripted_model.registered_as(*DEFAULTS):
        yield


# --- whole runs on the default model names ------------------------------------------------


@pytest.mark.parametrize("mode", ["quick", "detailed"])
async def test_default_models_that_think_1024_tokens_a_call_cut_off_no_answer(
    gemini_defaults, mode
):
    brief = ("Quick Search. " if mode == "quick" else "") + BRIEF
    conversation, _, _ = await run_investigation(brief)
    state = await conversation.state()
    calls = scripted_model.CALLS
    assert {c["model"] for c in calls} == set(DEFAULTS)
    cut = [c["task"] for c in calls if c["finish"] == "MAX_TOKENS"]
    assert cut == [], f"{len(cut)} of {len(calls)} answers cut off: {cut}"
    assert state[keys.INVESTIGATION_STATUS] == "completed", state.get(keys.PARTIAL_REASON)
    assert all(c["thoughts"] == 1024 for c in calls)  # every call thought as much as it wanted
    # each task asked for its own level; the orchestrator thinks little
    for call in calls:
        wanted = THINKING.get(call["task"], LEVEL.LOW)
        assert call["thinking_config"].thinking_level == wanted, call["task"]
    # thought is billed: the investigation's output tokens count it
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert record is not None
    pipeline = [c for c in calls if c["task"] != "orchestrator"]
    assert record["tokens"]["output"] > 1024 * len(pipeline)


# --- what each task asks for ---------------------------------------------------------------


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_every_task_sets_its_thinking_and_leaves_the_answer_its_room_above_it():
    assert set(TASKS) <= set(THINKING)  # no task left to the model's default thinking
    for name, level in THINKING.items():
        schema = type(name, (QualityReview,), {})
        answer = OUTPUT_TOKENS.get(name, DEFAULT_OUTPUT_TOKENS)
        on_3 = task_budget(settings(), "gemini-3.8-flash", schema)
        assert on_3.thinking == types.ThinkingConfig(thinking_level=level)
        assert on_3.cap == answer + THINKING_ROOM[level]
        on_25 = task_budget(settings(), "gemini-2.5-pro", schema)
        assert on_25.thinking == types.ThinkingConfig(thinking_budget=THINKING_ROOM[level])
        assert on_25.cap == answer + THINKING_ROOM[level]
    assert THINKING["ClaimAssessment"] == THINKING["ReportDraft"] == LEVEL.HIGH
    assert THINKING["SearchPlan"] == THINKING["SourceDigest"] == LEVEL.LOW
    assert THINKING["GazetteSufficiency"] == LEVEL.LOW


@pytest.mark.parametrize(
    "model",
    [
        *DEFAULTS,
        "gemini-3-pro-preview",
        "gemini-3.1-pro-preview",
        "gemini-3-flash-preview",
        "gemini-2.5-pro",
        "gemini-2.5-flash",
        "gemini-2.5-flash-lite",
    ],
)
def test_gemini_accepts_every_thinking_config_vicaran_sends_it(model):
    for name, level in THINKING.items():
        budget = output_budget(settings(), model, 1024, level)
        assert budget.thinking is not None, (model, name)
        scripted_model.check_thinking(model, budget.thinking)  # a refusal raises a 400


@pytest.mark.parametrize(
    "model", ["gemini-2.0-flash", "scripted/default", "openai/gpt-4o", "ollama_chat/llama3"]
)
def test_models_not_known_to_think_get_no_thinking_config_and_the_answers_cap(model):
    budget = output_budget(settings(), model, 1024, LEVEL.HIGH)
    assert budget.thinking is None and budget.cap == 1024


def test_a_model_class_that_declares_thinking_gets_its_config():
    class LevelThinker(scripted_model.ScriptedModel):
        vicaran_thinking: ClassVar[str] = "level"

    budget = output_budget(settings(), "scripted/x", 1024, LEVEL.MEDIUM, LevelThinker)
    assert budget.thinking == types.ThinkingConfig(thinking_level=LEVEL.MEDIUM)
    assert budget.cap == 1024 + THINKING_ROOM[LEVEL.MEDIUM]


def test_max_output_tokens_setting_caps_the_answer_and_thought_keeps_its_room():
    capped = settings(vicaran_max_output_tokens=777)
    budget = output_budget(capped, "gemini-3.5-flash", 4096, LEVEL.LOW)
    assert budget.answer == 777 and budget.cap == 777 + THINKING_ROOM[LEVEL.LOW]
    assert output_budget(capped, "scripted/default", 4096, LEVEL.LOW).cap == 777


def test_the_orchestrator_thinks_little_with_room_for_its_reply():
    config = orchestrator_config(settings(vicaran_fast_model="gemini-3.5-flash"))
    assert config.thinking_config == types.ThinkingConfig(thinking_level=LEVEL.LOW)
    assert config.max_output_tokens == 2048 + THINKING_ROOM[LEVEL.LOW]
    plain = orchestrator_config(settings(vicaran_fast_model="scripted/default"))
    assert plain.thinking_config is None and plain.max_output_tokens == 2048


async def test_the_live_search_fallback_has_a_cap_and_thinks_little(gemini_defaults):
    outcome = await LiveSearch(DEFAULTS[1], get_settings()).search("Acme polluted the river.")
    assert outcome.answer
    (call,) = scripted_model.calls_for("live_search")
    assert call["thinking_config"] == types.ThinkingConfig(thinking_level=LEVEL.LOW)
    assert call["max_output_tokens"] == LIVE_SEARCH_OUTPUT_TOKENS + THINKING_ROOM[LEVEL.LOW]
    assert call["finish"] is None and call["thoughts"] == 1024


def test_docs_state_each_tasks_thinking_and_cap_as_the_code_sets_them():
    text = (Path(__file__).resolve().parent.parent / "docs" / "models.md").read_text()
    rows = {
        cells[0].strip("` "): cells
        for line in text.splitlines()
        if line.startswith("| `")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    tasks = {
        **{
            name: (OUTPUT_TOKENS.get(name, DEFAULT_OUTPUT_TOKENS), lvl)
            for name, lvl in THINKING.items()
        },
        "orchestrator": (ORCHESTRATOR_OUTPUT_TOKENS, ORCHESTRATOR_THINKING),
        "live_search": (LIVE_SEARCH_OUTPUT_TOKENS, LIVE_SEARCH_THINKING),
    }
    assert set(rows) == set(tasks)
    for name, (answer, level) in tasks.items():
        _, _, thinking, answer_cell, cap_cell, *_ = rows[name]
        assert thinking == level.value.lower(), name
        assert answer_cell == f"{answer:,}", name
        assert cap_cell == f"{answer + THINKING_ROOM[level]:,}", name


# --- cut-off answers: more room when thought took it, less only when the answer ran long ----


async def review(model: str) -> QualityReview:
    client = ModelClient(model, get_settings())
    return await client.generate(instruction="Review.", prompt="The report.", schema=QualityReview)


async def test_an_answer_whose_room_went_to_thought_is_asked_again_with_more_room(env):
    # no thinking config for this name: the cap is the answer's 1,024 tokens, all thought away
    await review("scripted/thinks-1024")
    first, second = scripted_model.calls_for("QualityReview")
    assert first["finish"] == "MAX_TOKENS" and first["thoughts"] == 1024
    assert SHORTER not in second["prompt"]  # never "ask for less" for what thought took
    assert second["max_output_tokens"] > first["max_output_tokens"] + 1024
    assert second["finish"] is None


class SilentThinker(BaseLlm):
    """Reports no usage: an answer cut off to nothing at the first cap it is given."""

    requests: ClassVar[list[LlmRequest]] = []

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"silent-thinker/.*"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        if len(self.requests) == 1:
            yield LlmResponse(finish_reason=types.FinishReason.MAX_TOKENS)
            return
        scores = dict.fromkeys(QualityReview.model_fields, 80) | {"problems": []}
        text = json.dumps(scores)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


LLMRegistry.register(SilentThinker)


async def test_no_answer_and_no_count_of_thought_is_asked_again_with_more_room(env):
    SilentThinker.requests.clear()
    await review("silent-thinker/x")
    first, second = SilentThinker.requests
    assert second.config.max_output_tokens > first.config.max_output_tokens
    assert SHORTER not in (second.contents[0].parts[0].text or "")


async def test_an_answer_that_itself_ran_long_is_asked_for_less_after_more_room(env):
    await review("scripted/thinks-1024+truncates-QualityReview")
    calls = scripted_model.calls_for("QualityReview")
    assert [SHORTER in c["prompt"] for c in calls] == [False, False, True]
    assert calls[1]["max_output_tokens"] == calls[2]["max_output_tokens"]
    assert [c["finish"] for c in calls] == ["MAX_TOKENS", "MAX_TOKENS", None]


async def test_a_thinking_model_whose_answer_runs_long_is_asked_for_less_with_the_same_cap(
    gemini_defaults,
):
    with scripted_model.registered_as("gemini-3.5-flash", flags=("truncates-QualityReview",)):
        await review("gemini-3.5-flash")
    first, second = scripted_model.calls_for("QualityReview")
    assert first["thoughts"] == 1024 and first["finish"] == "MAX_TOKENS"
    assert SHORTER in second["prompt"] and second["finish"] is None
    assert second["max_output_tokens"] == first["max_output_tokens"]


async def test_thought_that_never_leaves_room_fails_with_one_clear_sentence(env):
    with pytest.raises(ModelCallError) as raised:
        await review("scripted/thinks-100000")
    calls = scripted_model.calls_for("QualityReview")
    assert len(calls) == 2 and not any(SHORTER in c["prompt"] for c in calls)
    cap = calls[-1]["max_output_tokens"]
    english, portuguese = raised.value.said_in("en"), raised.value.said_in("pt-BR")
    assert f"output limit ({cap} tokens) thinking" in english
    assert f"limite de saída ({cap} tokens) pensando" in portuguese


# --- the stand-in spends thought the way Gemini does ---------------------------------------


def request(cap: int | None, thinking: types.ThinkingConfig | None = None) -> LlmRequest:
    return LlmRequest(
        contents=[types.Content(role="user", parts=[types.Part(text="The report.")])],
        config=types.GenerateContentConfig(
            response_schema=QualityReview,
            max_output_tokens=cap,
            thinking_config=thinking,
        ),
    )


async def answer(model: str, req: LlmRequest):
    llm = LLMRegistry.new_llm(model)
    return [r async for r in llm.generate_content_async(req)][-1]


async def test_the_stand_in_bills_thought_against_the_cap_like_gemini():
    with scripted_model.registered_as("gemini-3.5-flash", flags=("thinks-1024",)):
        cut = await answer("gemini-3.5-flash", request(600))
        whole = await answer("gemini-3.5-flash", request(4000))
        shown = await answer(
            "gemini-3.5-flash", request(4000, types.ThinkingConfig(include_thoughts=True))
        )
    assert cut.finish_reason == types.FinishReason.MAX_TOKENS
    assert cut.usage_metadata.thoughts_token_count == 600  # all of it went to thought
    assert cut.content is None and not cut.usage_metadata.candidates_token_count
    assert cut.error_code == types.FinishReason.MAX_TOKENS  # what ADK makes of an empty answer
    assert whole.finish_reason is None and whole.usage_metadata.thoughts_token_count == 1024
    text = whole.content.parts[0].text
    QualityReview.model_validate_json(text)
    assert whole.usage_metadata.candidates_token_count == len(text) // 4
    assert [p.thought for p in shown.content.parts] == [True, None]


async def test_a_thinking_budget_bounds_the_stand_ins_thought_and_a_level_only_loosely():
    with scripted_model.registered_as(
        "gemini-2.5-flash", "gemini-3.5-flash", flags=("thinks-30000",)
    ):
        budgeted = await answer(
            "gemini-2.5-flash", request(4000, types.ThinkingConfig(thinking_budget=256))
        )
        low = await answer(
            "gemini-3.5-flash", request(None, types.ThinkingConfig(thinking_level=LEVEL.LOW))
        )
    assert budgeted.usage_metadata.thoughts_token_count == 256
    assert low.usage_metadata.thoughts_token_count == scripted_model.LEVEL_CEILING["LOW"]


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        ("gemini-3.5-flash", types.ThinkingConfig(thinking_level=LEVEL.LOW, thinking_budget=512)),
        ("gemini-2.5-pro", types.ThinkingConfig(thinking_level=LEVEL.LOW)),
        ("gemini-2.5-pro", types.ThinkingConfig(thinking_budget=0)),  # 2.5 Pro always thinks
        ("gemini-2.5-flash", types.ThinkingConfig(thinking_budget=30000)),
        ("gemini-3.8-flash", types.ThinkingConfig(thinking_level=LEVEL.MINIMAL)),
        ("gemini-3-pro-preview", types.ThinkingConfig(thinking_level=LEVEL.MEDIUM)),
    ],
)
async def test_the_stand_in_refuses_thinking_configs_gemini_refuses(model, thinking):
    with scripted_model.registered_as(model), pytest.raises(genai_errors.ClientError) as raised:
        await answer(model, request(4000, thinking))
    assert raised.value.code == 400


async def test_the_stand_in_is_scoped_to_its_block():
    with scripted_model.registered_as("gemini-3.5-flash"):
        assert issubclass(LLMRegistry.resolve("gemini-3.5-flash"), scripted_model.ScriptedModel)
    assert not issubclass(LLMRegistry.resolve("gemini-3.5-flash"), scripted_model.ScriptedModel)
