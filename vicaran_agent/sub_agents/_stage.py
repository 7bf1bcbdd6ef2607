"""The shape every pipeline stage shares: code drives, the model judges, progress streams."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, Generic, TypeVar

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.events import Event, EventActions
from google.genai import types
from pydantic import BaseModel

from .. import state_keys as keys
from ..config import Settings, get_settings
from ..formatting import one_line
from ..i18n import Phrase, localized, message
from ..llm import ModelClient, ModelSite
from ..llm_models import ModelCallError
from ..prompts.render import render_instruction
from ..schemas import InvestigationConfig, Source

logger = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

# Sources per model prompt: digests are ~1 kB each, so a prompt stays far below 40,000 chars.
SOURCES_PER_PROMPT = 15


def issues_key(stage: str) -> str:
    """Each stage records its own failures under its own key (parallel stages never collide).

    An issue means the stage could not do all of its work: the investigation ends `partial`.
    """
    return f"issues_{stage}"


def notes_key(stage: str) -> str:
    """Per-item problems (an unreadable page, a set-aside source): listed, not `partial`."""
    return f"notes_{stage}"


class StageAgent(BaseAgent):
    """Base for pipeline stages. Subclasses implement `run_stage` and yield events.

    A stage that raises fails soft (seed 001's error handling): the failure is an issue naming
    the stage (the investigation ends `partial`, or `failed` when nothing worth reporting is
    left), `recover` ends the stage, and the pipeline goes on to the next stages.
    """

    model: str = ""
    output_key: str = ""
    # Model callbacks, as on an LlmAgent: they run for every model call the stage makes.
    before_model_callback: Any = None
    after_model_callback: Any = None
    on_model_error_callback: Any = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        stage = Stage(self, ctx)
        try:
            async for event in self.run_stage(stage):
                yield event
        except Exception as error:  # fails soft: recorded with its stage, the run goes on
            logger.exception("the %s stage failed", self.name)
            stage.issue(
                Phrase(
                    "stage_crashed",
                    stage=Phrase(f"stage_{self.name}"),
                    name=self.name,
                    error=f"{type(error).__name__}: {error}",
                )
            )
            async for event in self.recover(stage, error):
                yield event

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        raise NotImplementedError
        yield  # pragma: no cover

    async def recover(self, stage: Stage, error: Exception) -> AsyncGenerator[Event, None]:
        """The stage's last event after it raised: what it did not do is said, none of its
        records are kept, and the next stages work from what the others found."""
        line = stage.msg(
            "stage_crashed_line",
            stage=Phrase(f"stage_{self.name}"),
            error=one_line(f"{type(error).__name__}: {error}", 300),
        )
        yield stage.finish(line)


class Stage:
    """One run of a stage: state access, model calls, events, recorded issues."""

    def __init__(self, agent: StageAgent, ctx: InvocationContext) -> None:
        self.agent = agent
        self.ctx = ctx
        self.settings: Settings = get_settings()
        self.issues: list[str] = []
        self.notes: list[str] = []
        self.model = ModelClient(agent.model, self.settings, ModelSite.of(ctx, agent))

    @property
    def state(self) -> dict[str, Any]:
        return self.ctx.session.state

    @property
    def config(self) -> InvestigationConfig:
        return InvestigationConfig.model_validate(self.state[keys.INVESTIGATION_CONFIG])

    @property
    def language(self) -> str:
        return self.config.language

    def msg(self, key: str, **values: object) -> str:
        return message(key, self.language, **values)

    def records(self, key: str, model: type[M]) -> list[M]:
        return [model.model_validate(item) for item in self.state.get(key) or []]

    def usable_sources(self) -> list[tuple[int, Source]]:
        """(citation number, source) for every source that was read, digested and on topic."""
        sources = self.records(keys.SOURCE_RECORDS, Source)
        return [(i, s) for i, s in enumerate(sources, 1) if s.usable]

    def issue(self, text: str) -> None:
        """The stage could not do all of its work (the investigation will be `partial`)."""
        text = str(localized(text, self.language))
        if text not in self.issues:
            self.issues.append(text)

    def note(self, text: str) -> None:
        """A per-item problem, listed in the report; it does not make the run `partial`."""
        text = str(localized(text, self.language))
        if text not in self.notes:
            self.notes.append(text)

    async def render(self, template: str) -> str:
        return await render_instruction(template, ReadonlyContext(self.ctx))

    async def ask(self, template: str, prompt: str, schema: type[M]) -> M:
        """One focused model call: the rendered instruction, the data prompt, a typed answer."""
        return await self.model.generate(
            instruction=await self.render(template), prompt=prompt, schema=schema
        )

    async def ask_per_batch(
        self,
        template: str,
        numbered: list[tuple[int, Source]],
        prompt: Callable[[list[tuple[int, Source]]], str],
        schema: type[M],
    ) -> tuple[list[M], list[ModelCallError]]:
        """The same question over batches of sources, concurrently.

        Keeps every prompt small whatever the number of sources, and the wall time flat.
        """
        batches = [
            numbered[i : i + SOURCES_PER_PROMPT]
            for i in range(0, len(numbered), SOURCES_PER_PROMPT)
        ]
        instruction = await self.render(template)
        results = await asyncio.gather(
            *(
                self.model.generate(instruction=instruction, prompt=prompt(batch), schema=schema)
                for batch in batches
            ),
            return_exceptions=True,
        )
        answers = [r for r in results if isinstance(r, schema)]
        errors = [r for r in results if isinstance(r, ModelCallError)]
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, ModelCallError):
                raise result
        return answers, errors

    def event(self, text: str, state_delta: dict[str, Any] | None = None) -> Event:
        return Event(
            author=self.agent.name,
            invocation_id=self.ctx.invocation_id,
            branch=self.ctx.branch,
            content=types.Content(role="model", parts=[types.Part(text=text)]),
            actions=EventActions(state_delta=state_delta or {}),
        )

    def finish(
        self, markdown: str, records: dict[str, Any] | None = None, *, shown: str | None = None
    ) -> Event:
        """The stage's last event: its markdown under `output_key`, its records, its issues.

        `shown`: the message's text when it is not the recorded markdown itself.
        """
        delta = {
            self.agent.output_key: markdown,
            issues_key(self.agent.name): list(self.issues),
            notes_key(self.agent.name): list(self.notes),
        }
        delta.update(records or {})
        return self.event(markdown if shown is None else shown, delta)


class Jobs(Generic[T]):
    """`work(item, emit)` for each item as it is started, at most `limit` running at once.

    Items may be started while earlier ones run (as they arrive); `events()` then yields
    `(text, None)` for each progress line a job emits, as it happens, and `(None, result)` as
    each job finishes, in completion order (an exception is a result), until every job started
    so far has finished. `cancel()` stops the jobs still running.
    """

    def __init__(
        self, work: Callable[[T, Callable[[str], None]], Awaitable[Any]], limit: int
    ) -> None:
        self._work = work
        self._gate = asyncio.Semaphore(limit)
        self._queue: asyncio.Queue[tuple[str | None, Any]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, item: T) -> None:
        self._tasks.append(asyncio.create_task(self._run(item)))

    async def _run(self, item: T) -> None:
        result: Any
        try:
            async with self._gate:
                result = await self._work(item, lambda text: self._queue.put_nowait((text, None)))
        except Exception as error:  # noqa: BLE001 - handed to the caller as a value
            result = error
        self._queue.put_nowait((None, result))

    async def events(self) -> AsyncIterator[tuple[str | None, Any]]:
        for _ in self._tasks:
            while True:
                text, result = await self._queue.get()
                yield text, result
                if text is None:
                    break
        await asyncio.gather(*self._tasks)

    def cancel(self) -> None:
        for task in self._tasks:
            task.cancel()


async def stream_concurrently(
    items: Iterable[T],
    work: Callable[[T, Callable[[str], None]], Awaitable[Any]],
    limit: int,
) -> AsyncIterator[tuple[str | None, Any]]:
    """`Jobs` for every item at once: run `work(item, emit)` for each, at most `limit` at once."""
    jobs = Jobs(work, limit)
    for item in items:
        jobs.start(item)
    try:
        async for event in jobs.events():
            yield event
    finally:
        jobs.cancel()
