"""How much a model call may write and think: output caps per task (within the model's limit and
the setting), thinking levels per task, and each model's way of taking them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Literal

from google.adk.models import BaseLlm, LLMRegistry
from google.genai import types
from pydantic import BaseModel

from .adk_compat import extract_model_name, is_gemini_model
from .config import Settings

# Answer sizes (tokens) per call, sized to what each answer needs; VICARAN_MAX_OUTPUT_TOKENS
# overrides them all. A model that rambles costs bounded time and tokens. On a thinking model
# the cap also keeps room for thought above the answer (THINKING_ROOM), because Gemini 2.5/3
# bill thought tokens against `max_output_tokens` (googleapis/python-genai#2062).
ORCHESTRATOR_OUTPUT_TOKENS = 2048


LIVE_SEARCH_OUTPUT_TOKENS = 1024


DEFAULT_OUTPUT_TOKENS = 2048


OUTPUT_TOKENS = {
    "SearchPlan": 512,
    "SourceDigest": 1024,
    "BriefClaims": 1024,
    "ClaimDraft": 4096,
    "ClaimAssessment": 2048,
    "BiasJudgement": 2048,
    "TimelineDraft": 4096,
    "ReportDraft": 8192,
    "CitationAudit": 2048,
    "QualityReview": 1024,
    "GazetteSufficiency": 512,
    "GazetteReading": 2048,
}


LOW, MEDIUM, HIGH = types.ThinkingLevel.LOW, types.ThinkingLevel.MEDIUM, types.ThinkingLevel.HIGH


# How hard each task thinks (docs/models.md says why): judging and writing think, sorting and
# searching think little. Gemini 3+ is sent the level, Gemini 2.5 a token budget of its room.
ORCHESTRATOR_THINKING = LOW


LIVE_SEARCH_THINKING = LOW


DEFAULT_THINKING = MEDIUM


THINKING = {
    "SearchPlan": LOW,
    "SourceDigest": LOW,
    "BriefClaims": MEDIUM,
    "ClaimDraft": MEDIUM,
    "ClaimAssessment": HIGH,
    "BiasJudgement": MEDIUM,
    "TimelineDraft": LOW,
    "ReportDraft": HIGH,
    "CitationAudit": MEDIUM,
    "QualityReview": LOW,
    "GazetteSufficiency": LOW,
    "GazetteReading": MEDIUM,
    "ReferenceGate": LOW,
}


# Thought tokens each level is given room for above the answer (and the budget Gemini 2.5 gets).
THINKING_ROOM = {LOW: 2048, MEDIUM: 4096, HIGH: 8192}


MAX_OUTPUT_TOKENS = 65_536  # the most Gemini 2.5/3 write in one response


SHORTER = (
    "\n\nYour previous answer was cut off at the output limit. Answer again, briefly: fewer "
    "items, shorter sentences, nothing but the JSON."
)


ThinkingStyle = Literal["level", "budget"]


def thinking_style(model: str, llm: type[BaseLlm] | BaseLlm | None = None) -> ThinkingStyle | None:
    """How `model` is told to think: a level (Gemini 3+), a token budget (Gemini 2.5), or not
    at all (older Gemini, other providers). A model class may declare its own
    (`vicaran_thinking: ClassVar[Literal["level", "budget"]]`)."""
    declared = getattr(llm, "vicaran_thinking", None)
    if declared in ("level", "budget"):
        return declared
    if not is_gemini_model(model):
        return None
    version = extract_model_name(model).removeprefix("gemini-").split("-", 1)[0]
    major, _, minor = version.partition(".")
    if not major.isdigit():
        return None
    if int(major) >= 3:
        return "level"
    return "budget" if (major, minor) == ("2", "5") else None


@dataclass(frozen=True)
class OutputBudget:
    """One call's output: room for the answer and, above it, room for thought."""

    answer: int
    thought: int = 0  # 0: the model is not asked to think
    thinking: types.ThinkingConfig | None = None

    @property
    def cap(self) -> int:
        """`max_output_tokens`: thought and answer together, as Gemini counts them."""
        return min(MAX_OUTPUT_TOKENS, self.answer + self.thought)

    def roomier(self, thought_spent: int) -> OutputBudget:
        """The same call with twice the room for thought (at least twice what it spent)."""
        return replace(self, thought=2 * max(self.thought, thought_spent, 1))


def output_budget(
    settings: Settings,
    model: str,
    answer: int,
    level: types.ThinkingLevel,
    llm: type[BaseLlm] | BaseLlm | None = None,
) -> OutputBudget:
    """The output budget of one task on `model`: VICARAN_MAX_OUTPUT_TOKENS (else the task's own
    size) for the answer, and on a thinking model the task's level with room for it above."""
    answer = output_cap(settings, answer)
    style = thinking_style(model, llm)
    if style == "budget":
        room = THINKING_ROOM[level]
        return OutputBudget(answer, room, types.ThinkingConfig(thinking_budget=room))
    if style == "level":
        if level == MEDIUM and re.match(r"gemini-3-pro", extract_model_name(model)):
            level = HIGH  # Gemini 3 Pro knows LOW and HIGH only
        config = types.ThinkingConfig(thinking_level=level)
        return OutputBudget(answer, THINKING_ROOM[level], config)
    return OutputBudget(answer)


def declared_class(model: str) -> type[BaseLlm] | None:
    """The class ADK resolves `model` to (for what it declares), or None when it resolves none."""
    # ADK asks LiteLLM about an unknown `provider/model`; LiteLLM would fetch its price list from
    # GitHub on import, a request to a service nobody configured.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        return LLMRegistry.resolve(model)
    except (ValueError, ImportError):
        return None


def task_budget(
    settings: Settings,
    model: str,
    schema: type[BaseModel],
    llm: type[BaseLlm] | BaseLlm | None = None,
) -> OutputBudget:
    """The output budget of a structured call for `schema` (the task) on `model`."""
    name = schema.__name__
    answer = OUTPUT_TOKENS.get(name, DEFAULT_OUTPUT_TOKENS)
    return output_budget(settings, model, answer, THINKING.get(name, DEFAULT_THINKING), llm)


def output_cap(settings: Settings, sized: int) -> int:
    """The answer's share of one call: VICARAN_MAX_OUTPUT_TOKENS, else the call's own size."""
    return settings.vicaran_max_output_tokens or sized
