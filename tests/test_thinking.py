"""Thinking models: thought is billed against the output cap, and no answer is cut off by it.

Gemini 2.5/3 count thought tokens against `max_output_tokens` (googleapis/python-genai#2062).
The scripted model spends thought the same way (`thinks-<n>`, SCRIPTED_THINKING_TOKENS), so a
cap sized for the answer alone shows here as a cut-off answer, as it would against Gemini.
"""

from __future__ import annotations

import pytest
from google.adk.models import LLMRegistry
from google.adk.models.llm_request import LlmRequest
from google.genai import errors as genai_errors
from google.genai import types

from tests.support import scripted_model
from vicaran_agent.schemas import QualityReview

LEVEL = types.ThinkingLevel


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
    assert not cut.content.parts and not cut.usage_metadata.candidates_token_count
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
