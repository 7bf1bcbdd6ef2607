"""Focused model calls for the pipeline stages: one instruction, one prompt, one typed answer.

Models are resolved by name through ADK's `LLMRegistry`, so Gemini, LiteLLM providers and any
class a test or plugin registers all work the same way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from contextlib import aclosing, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import BaseModel, ValidationError

from .adk_compat import model_call
from .clients.retry import backoff_delay
from .clock import SYSTEM_CLOCK, Clock
from .config import Settings, get_settings
from .i18n import Phrase
from .llm_budgets import SHORTER, OutputBudget, declared_class, task_budget
from .llm_models import (
    ModelCallError,
    Truncated,
    credentials_problem,
    describe_model_error,
    shared_llm,
)
from .prompts._common import dated
from .usage import TokenLedger, price_of, usage_of

logger = logging.getLogger(__name__)


T = TypeVar("T", bound=BaseModel)


_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.MULTILINE)


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
            except Truncated as cut:
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
) -> Truncated:
    """Why an answer stopped at the cap: thought took more than its room (so the answer lost
    part of its share), or the answer itself ran past its share. No answer at all and no count
    of thought means thought took it all."""
    thought = (usage.thoughts_token_count or 0) if usage else 0
    if not text and not thought:
        return Truncated(budget.cap, by_thought=True)
    return Truncated(thought, by_thought=thought > budget.thought)
