"""Models by name: one shared instance per name (ADK's registry resolves it), a stand-in that says
what to configure when a name or key is missing, and a model error said in one sentence.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator

import httpx
from google.adk.models import BaseLlm, LLMRegistry
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import errors as genai_errors
from google.genai import types

from . import services
from .adk_compat import LlmCallsLimitExceededError, is_gemini_model
from .config import Settings, get_settings
from .i18n import Phrase, localized


class Truncated(Exception):
    """The answer stopped at the output cap: its room went to thought, or the answer ran long."""

    def __init__(self, thought: int, by_thought: bool) -> None:
        super().__init__("cut off at the output cap")
        self.thought = thought
        self.by_thought = by_thought


class ModelCallError(Exception):
    """A model call that failed for good; `message` is one sentence for the journalist.

    `str(error)` is that sentence in English; `said_in(language)` (and `i18n.message`, given
    the error as a value) words it in the journalist's language.
    """

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.permanent = permanent

    def said_in(self, language: str) -> str:
        return str(localized(self.message, language))


def credentials_problem(model: str, settings: Settings | None = None) -> Phrase | None:
    """The configuration hint when `model` is a Gemini model and no credentials are set."""
    settings = settings or get_settings()
    if not is_gemini_model(model):
        return None
    return settings.gemini_credentials_problem()


def describe_model_error(error: BaseException, model: str) -> tuple[Phrase, bool]:
    """(one-sentence explanation, transient?) for an exception raised by a model call.

    The explanation is English as a `str`; `localized` words it in the journalist's language.
    """
    if isinstance(error, genai_errors.APIError):
        text = f"{error.status or ''} {error.message or ''}".strip()
        if error.code in (400, 401, 403) and re.search(
            r"API[_ ]KEY|api key|PERMISSION", text, re.I
        ):
            return Phrase("model_key_rejected"), False
        if error.code == 404:
            return Phrase("model_missing", model=model), False
        if error.code == 429:
            return Phrase("model_rate_limited"), True
        if error.code >= 500:
            return Phrase("model_provider_error", code=error.code), True
        return Phrase("model_failed_code", code=error.code, detail=text[:200]), False
    if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
        return Phrase("model_timeout"), True
    if isinstance(error, LlmCallsLimitExceededError):
        return Phrase("model_call_limit"), False
    if isinstance(error, httpx.TransportError):
        return Phrase("model_unreachable", error=type(error).__name__), True
    if isinstance(error, ValueError) and "not found" in str(error).lower():
        return Phrase("model_unknown", model=model), False
    if isinstance(error, ValueError) and "api key" in str(error).lower():
        return get_settings().gemini_credentials_problem() or Phrase("model_no_key"), False
    detail = str(error)[:200]
    return Phrase("model_failed", error=type(error).__name__, detail=detail), False


def shared_llm(model: str) -> BaseLlm:
    """One model object per name and event loop (its API client is costly to build)."""
    per_loop = services.current().llms.setdefault(asyncio.get_running_loop(), {})
    if model not in per_loop:
        per_loop[model] = LLMRegistry.new_llm(model)
    return per_loop[model]


# Marks a reply that explains a failed or misconfigured model: an answer, not the model's words.
MODEL_FAILED = "vicaran_model_failed"


class ConfigHintModel(BaseLlm):
    """Stands in for a model name that cannot be resolved: every answer is the fix to make."""

    hint: str

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=self.hint)]),
            custom_metadata={MODEL_FAILED: True},
        )


def resolvable_model(model: str, problem: str | None = None) -> str | BaseLlm:
    """`model` when ADK can resolve it, else a stand-in that explains the configuration error.

    A known configuration `problem` (a model plugin that did not load) is the explanation.
    """
    if problem:
        return ConfigHintModel(model=model, hint=problem)
    try:
        LLMRegistry.resolve(model)
    except (ValueError, ImportError):
        return ConfigHintModel(
            model=model, hint=describe_model_error(ValueError(f"{model} not found"), model)[0]
        )
    return model
