"""Focused model calls for the pipeline stages: one instruction, one prompt, one typed answer.

Models are resolved by name through ADK's `LLMRegistry`, so Gemini, LiteLLM providers and any
class a test or plugin registers all work the same way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import weakref
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

import httpx
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models import BaseLlm, LLMRegistry
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import errors as genai_errors
from google.genai import types
from pydantic import BaseModel, ValidationError

from .adk_compat import LlmCallsLimitExceededError, extract_model_name, is_gemini_model, model_call
from .clock import SYSTEM_CLOCK, Clock
from .config import Settings, get_settings
from .i18n import Phrase, localized
from .prompts._common import dated
from .tools.retry import backoff_delay
from .usage import TokenLedger, price_of, usage_of

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.MULTILINE)

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


@dataclass
class CallTally:
    """How the model calls of one investigation went (shared by every stage and task)."""

    ok: int = 0
    failed: int = 0
    last_error: str = ""
    tokens: TokenLedger = field(default_factory=TokenLedger)
    budget: int = 0  # VICARAN_TOKEN_BUDGET; 0: no cap
    budget_spent: bool = False  # a call was refused because the budget was spent

    @property
    def all_failed(self) -> bool:
        return self.failed > 0 and self.ok == 0

    def over_budget(self) -> bool:
        return self.budget > 0 and self.tokens.total.total >= self.budget


_TALLY: ContextVar[CallTally | None] = ContextVar("vicaran_model_calls", default=None)


@contextmanager
def tally_calls(budget: int = 0) -> Iterator[CallTally]:
    """Count the model calls (and tokens) made within (and in tasks started within) this block."""
    tally = CallTally(budget=budget)
    token = _TALLY.set(tally)
    try:
        yield tally
    finally:
        try:
            _TALLY.reset(token)
        except ValueError:
            # Closed in another context (a pipeline generator left at a yield by a stop is
            # finalized at loop shutdown): that context never saw this tally to restore.
            _TALLY.set(None)


def current_tally() -> CallTally | None:
    return _TALLY.get()


def _count(error: ModelCallError | None) -> None:
    tally = _TALLY.get()
    if tally is None:
        return
    if error is None:
        tally.ok += 1
    else:
        tally.failed += 1
        tally.last_error = error.message


def output_cap(settings: Settings, sized: int) -> int:
    """The answer's share of one call: VICARAN_MAX_OUTPUT_TOKENS, else the call's own size."""
    return settings.vicaran_max_output_tokens or sized


class _Truncated(Exception):
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


_LLMS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, BaseLlm]] = (
    weakref.WeakKeyDictionary()
)


def shared_llm(model: str) -> BaseLlm:
    """One model object per name and event loop (its API client is costly to build)."""
    per_loop = _LLMS.setdefault(asyncio.get_running_loop(), {})
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


# What each structured answer is for: the second half of the agent name a call is labelled with
# (`fact_checker__judge`: ADK agent names are identifiers, so no dot).
TASKS = {
    "SearchPlan": "plan_searches",
    "SourceDigest": "digest",
    "BriefClaims": "brief_claims",
    "ClaimDraft": "extract",
    "ClaimAssessment": "judge",
    "BiasJudgement": "judge",
    "TimelineDraft": "draft",
    "ReportDraft": "draft",
    "CitationAudit": "audit",
    "QualityReview": "review",
    "GazetteSufficiency": "gazette_sufficiency",
    "GazetteReading": "gazette_reading",
    "ReferenceGate": "reference_gate",
}
# Stages that still call the model once the token budget is spent: the report is written.
PAST_BUDGET = frozenset({"summary_writer"})
_CALLBACKS = ("before_model_callback", "after_model_callback", "on_model_error_callback")


def task_of(schema: type[BaseModel]) -> str:
    name = schema.__name__
    return TASKS.get(name) or re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(eq=False)
class ModelSite:
    """Where model calls are made from: the invocation, and the stage they are labelled with.

    A call with a site goes through ADK's model-call path under that invocation: its plugins'
    and the stage's model callbacks, a `call_llm` span, the LLM call limit. A stand-in
    `LlmAgent` per task (never part of the agent tree, never run) carries the label and the
    callbacks, because ADK reads both from the invocation's agent.
    """

    ctx: InvocationContext
    stage: str
    callbacks: dict[str, Any] = field(default_factory=dict)
    _agents: dict[tuple[str, int], LlmAgent] = field(default_factory=dict)

    @classmethod
    def of(cls, ctx: InvocationContext, agent: Any = None, *, callbacks: bool = True) -> ModelSite:
        """The site of `agent` (by default the invocation's own) within `ctx`.

        `callbacks=False` for calls a tool makes: its agent's model callbacks are about the
        agent's own conversation (the orchestrator's would answer a digest with a plan).
        """
        agent = agent if agent is not None else ctx.agent
        found = {name: getattr(agent, name, None) for name in _CALLBACKS} if callbacks else {}
        return cls(ctx, agent.name, {k: v for k, v in found.items() if v})

    def agent(self, task: str, llm: BaseLlm) -> LlmAgent:
        key = (task, id(llm))
        if key not in self._agents:
            self._agents[key] = LlmAgent(
                name=f"{self.stage}__{task}",
                model=llm,
                description=f"{self.stage}: {task.replace('_', ' ')}",
                **self.callbacks,
            )
        return self._agents[key]


async def respond(
    llm: BaseLlm, request: LlmRequest, site: ModelSite | None, task: str
) -> LlmResponse:
    """The model's final response, through ADK's model-call path when the call has a site.

    Tokens are counted for the investigation; past its budget, only the report is written.
    """
    tally = _TALLY.get()
    stage = site.stage if site is not None else "other"
    if tally is not None and stage not in PAST_BUDGET and tally.over_budget():
        tally.budget_spent = True
        raise ModelCallError(Phrase("token_budget_spent", budget=tally.budget), permanent=True)
    final: LlmResponse | None = None
    if site is None:
        responses = llm.generate_content_async(request, stream=False)
    else:
        responses = model_call(site.ctx, site.agent(task, llm), request)
    async with aclosing(responses) as stream:
        async for response in stream:
            if not response.partial:
                final = response
    if final is None:
        raise ValueError("empty model response")
    if tally is not None:
        prices = price_of(llm.model, get_settings())
        tally.tokens.record(stage, llm.model, usage_of(final.usage_metadata, prices), bool(prices))
    return final


class ModelClient:
    """Structured calls to one model, with a timeout and retries for transient failures.

    With a `site`, every call goes through ADK's model-call path (see `ModelSite`).
    """

    def __init__(
        self,
        model: str,
        settings: Settings | None = None,
        site: ModelSite | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """`clock` times the backoff between tries (tests move it)."""
        self.model = model
        self.settings = settings or get_settings()
        self.site = site
        self.clock = clock
        self._llm: BaseLlm | None = None

    def _resolve(self) -> BaseLlm:
        if self._llm is None:
            self._llm = shared_llm(self.model)
        return self._llm

    async def generate(
        self, *, instruction: str, prompt: str, schema: type[T], temperature: float = 0.2
    ) -> T:
        """Ask the model for one `schema` instance; raises ModelCallError when it cannot."""
        try:
            answer = await self._generate(instruction, prompt, schema, temperature)
        except ModelCallError as error:
            _count(error)
            raise
        _count(None)
        return answer

    async def _generate(
        self, instruction: str, prompt: str, schema: type[T], temperature: float
    ) -> T:
        if problem := credentials_problem(self.model, self.settings):
            raise ModelCallError(problem, permanent=True)
        instruction = dated(instruction, self.settings.today)
        budget = task_budget(self.settings, self.model, schema, declared_class(self.model))
        attempts = self.settings.vicaran_max_retries + 1
        last_problem = ""
        for attempt in range(attempts):
            try:
                text = await asyncio.wait_for(
                    self._answer(instruction, prompt, schema, temperature, budget),
                    timeout=self.settings.vicaran_model_timeout_seconds,
                )
                return schema.model_validate_json(_FENCE.sub("", text).strip() or "{}")
            except (ValidationError, json.JSONDecodeError) as error:
                last_problem = Phrase("model_bad_format", error=error.__class__.__name__)
            except ModelCallError:
                raise
            except Exception as error:
                last_problem, transient = describe_model_error(error, self.model)
                logger.warning("model %s failed: %s", self.model, error)
                if not transient:
                    raise ModelCallError(last_problem, permanent=True) from error
            if attempt + 1 < attempts:
                await self.clock.sleep(backoff_delay(attempt))
        raise ModelCallError(last_problem)

    async def _answer(
        self,
        instruction: str,
        prompt: str,
        schema: type[BaseModel],
        temperature: float,
        budget: OutputBudget,
    ) -> str:
        """The model's text. An answer cut off at the cap is asked again: with more room when
        thought took the room, for less when the answer itself ran long; each at most once."""
        roomier = shorter = False
        while True:
            asked = prompt + SHORTER if shorter else prompt
            try:
                return await self._call(instruction, asked, schema, temperature, budget)
            except _Truncated as cut:
                if cut.by_thought and not roomier:
                    roomier, budget = True, budget.roomier(cut.thought)
                elif not cut.by_thought and not shorter:
                    shorter = True
                else:
                    key = "model_cut_off_thinking" if cut.by_thought else "model_cut_off"
                    raise ModelCallError(Phrase(key, cap=budget.cap)) from None

    async def _call(
        self,
        instruction: str,
        prompt: str,
        schema: type[BaseModel],
        temperature: float,
        budget: OutputBudget,
    ) -> str:
        request = LlmRequest(
            model=self.model,
            contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
            config=types.GenerateContentConfig(
                system_instruction=instruction,
                temperature=temperature,
                response_mime_type="application/json",
                response_schema=schema,
                max_output_tokens=budget.cap,
                thinking_config=budget.thinking,
            ),
        )
        final = await respond(self._resolve(), request, self.site, task_of(schema))
        parts = final.content.parts if final.content and final.content.parts else []
        text = "".join(p.text for p in parts if p.text and not p.thought)
        if final.finish_reason == types.FinishReason.MAX_TOKENS:
            raise _cut_off(final.usage_metadata, text, budget)
        if final.error_code and not parts:
            raise ValueError(f"model returned {final.error_code}: {final.error_message}")
        return text


def _cut_off(
    usage: types.GenerateContentResponseUsageMetadata | None, text: str, budget: OutputBudget
) -> _Truncated:
    """Why an answer stopped at the cap: thought took more than its room (so the answer lost
    part of its share), or the answer itself ran past its share. No answer at all and no count
    of thought means thought took it all."""
    thought = (usage.thoughts_token_count or 0) if usage else 0
    if not text and not thought:
        return _Truncated(budget.cap, by_thought=True)
    return _Truncated(thought, by_thought=thought > budget.thought)
