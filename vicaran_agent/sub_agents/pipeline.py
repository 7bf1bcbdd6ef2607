"""investigation_pipeline: the stages in order, fact_checker/bias/timeline concurrently."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import ParallelAgent, SequentialAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions
from google.genai import types

from .. import delivery
from .. import state_keys as keys
from ..callbacks.persistence import (
    finish_investigation,
    repository,
    save_bias,
    save_claims,
    save_sources,
    save_timeline,
    save_verdicts,
)
from ..config import Settings, get_settings
from ..conversation.gate import guard_pipeline_start
from ..conversation.protocol import PIPELINE_NAME
from ..dashboard_links import dashboard_line
from ..detached import DetachedRun
from ..i18n import message
from ..liveness import alive
from ..llm import CallTally, tally_calls
from ..runtime import investigation_runtime
from ..storage.outbox import queue_for_callback
from ..usage import planning_use
from .bias_analyzer import BiasAnalyzerAgent
from .claim_extractor import ClaimExtractorAgent
from .fact_checker import FactCheckerAgent
from .source_finder import SourceFinderAgent
from .summary_writer import COMPLETE, SummaryWriterAgent
from .timeline_builder import TimelineBuilderAgent

logger = logging.getLogger(__name__)


class InvestigationPipeline(SequentialAgent):
    """Runs the stages. A stage that raises fails soft (StageAgent: recorded with its stage, the
    next stages run, the report says so); an error outside the stages ends the investigation
    as `failed`, never stuck."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        # The run belongs to the server: a client that disconnects does not stop it.
        async for event in DetachedRun(self._stages(ctx), ctx).events():
            yield event

    async def _stages(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        config = ctx.session.state.get(keys.INVESTIGATION_CONFIG) or {}
        investigation_id = config.get("investigation_id", "")
        # Said from inside the detached run: a client that leaves on it changes nothing.
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            branch=ctx.branch,
            content=types.Content(
                role="model",
                parts=[types.Part(text=message("started", config.get("language", "en")))],
            ),
        )
        tally: CallTally | None = None
        try:
            with tally_calls(get_settings().vicaran_token_budget) as tally:
                tally.tokens.merge(planning_use(ctx.session.state))  # the plan's use counts too
                async with (
                    alive(investigation_id),
                    investigation_runtime(investigation_id, get_settings()),
                ):
                    async for event in super()._run_async_impl(ctx):
                        yield event
        except asyncio.CancelledError:
            await asyncio.shield(self._mark_interrupted(investigation_id))
            raise
        except GeneratorExit:
            await self._mark_interrupted(investigation_id)
            raise
        except Exception as error:
            if _closing(error):
                # A stop while the run waited at a yield leaves it to be closed at the loop's
                # shutdown, where its context managers are being closed too: interrupted.
                await self._mark_interrupted(investigation_id)
                return
            logger.exception("investigation pipeline failed")
            detail = f"{type(error).__name__}: {error}"
            await self._mark_failed(ctx, detail, tally.tokens.as_dict() if tally else None)
            language = (ctx.session.state.get(keys.INVESTIGATION_CONFIG) or {}).get(
                "language", "en"
            )
            # The run's last message: the dashboard link, then the marker that ends every run.
            text = "\n\n".join(
                [
                    message("failed", language, error=detail),
                    dashboard_line(get_settings(), investigation_id, language),
                    COMPLETE,
                ]
            )
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
                content=types.Content(role="model", parts=[types.Part(text=text)]),
                actions=EventActions(state_delta={keys.INVESTIGATION_STATUS: "failed"}),
            )

    @staticmethod
    async def _mark_interrupted(investigation_id: str) -> None:
        """The run was cancelled (the process is stopping): `interrupted`, not `failed`."""
        if not investigation_id:
            return
        reason = "The run was interrupted before it finished; start it again to continue."
        try:
            with queue_for_callback(get_settings().callback_enabled):
                await asyncio.to_thread(repository().mark_interrupted, [investigation_id], reason)
        except Exception:
            logger.exception("could not record the interruption of %s", investigation_id)

    @staticmethod
    async def _mark_failed(
        ctx: InvocationContext, detail: str, tokens: dict[str, Any] | None
    ) -> None:
        config = ctx.session.state.get(keys.INVESTIGATION_CONFIG) or {}
        investigation_id = config.get("investigation_id")
        if not investigation_id:
            return
        try:
            with queue_for_callback(get_settings().callback_enabled):
                await asyncio.to_thread(
                    lambda: repository().finish_investigation(
                        investigation_id, "failed", error=detail, tokens=tokens
                    )
                )
            delivery.kick()
        except Exception:
            logger.exception("could not record the failure of %s", investigation_id)


def _closing(error: BaseException) -> bool:
    """Whether `error` was raised while the run's generator was being closed (GeneratorExit)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, GeneratorExit):
            return True
        seen.add(id(cause))
        cause = cause.__context__
    return False


def build_pipeline(settings: Settings) -> InvestigationPipeline:
    """A fresh pipeline tree (agents cannot have two parents, so every app builds its own)."""
    fast, pro = settings.vicaran_fast_model, settings.vicaran_pro_model
    return InvestigationPipeline(
        name=PIPELINE_NAME,
        description="Runs an approved investigation: sources, claims, checks, bias, timeline, report.",
        before_agent_callback=guard_pipeline_start,
        sub_agents=[
            SourceFinderAgent(
                name="source_finder",
                description="Finds, reads and rates sources.",
                model=fast,
                output_key=keys.DISCOVERED_SOURCES,
                after_agent_callback=save_sources,
            ),
            ClaimExtractorAgent(
                name="claim_extractor",
                description="Extracts and ranks checkable claims.",
                model=fast,
                output_key=keys.EXTRACTED_CLAIMS,
                after_agent_callback=save_claims,
            ),
            ParallelAgent(
                name="parallel_analysis",
                description="Fact-checking, bias analysis and timeline, concurrently.",
                sub_agents=[
                    FactCheckerAgent(
                        name="fact_checker",
                        description="Checks claims against evidence.",
                        model=pro,
                        output_key=keys.FACT_CHECK_RESULTS,
                        after_agent_callback=save_verdicts,
                    ),
                    BiasAnalyzerAgent(
                        name="bias_analyzer",
                        description="Assesses coverage balance.",
                        model=fast,
                        output_key=keys.BIAS_ANALYSIS,
                        after_agent_callback=save_bias,
                    ),
                    TimelineBuilderAgent(
                        name="timeline_builder",
                        description="Builds the chronology.",
                        model=fast,
                        output_key=keys.TIMELINE_EVENTS,
                        after_agent_callback=save_timeline,
                    ),
                ],
            ),
            SummaryWriterAgent(
                name="summary_writer",
                description="Writes the cited report.",
                model=pro,
                output_key=keys.INVESTIGATION_SUMMARY,
                after_agent_callback=finish_investigation,
            ),
        ],
    )
