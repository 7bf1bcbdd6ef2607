"""Every model call of a run, by task: did its answer validate, was it cut off, what it cost.

An ADK plugin (`Conversation(plugins=[log])`): it sees every call through ADK's model-call path,
so it works the same with the scripted model, the literal model and Gemini (`make test-live`
prints `log.table()` for the literal scenario's briefs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins import BasePlugin
from google.genai import types
from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.MULTILINE)


@dataclass
class TaskCalls:
    calls: int = 0
    valid: int = 0  # answers that parse as the task's schema (free text: any answer)
    cut_off: int = 0  # finish reason MAX_TOKENS
    failed: int = 0  # the call raised
    input: int = 0
    output: int = 0
    thought: int = 0
    problems: list[str] = field(default_factory=list)


class CallLog(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="call_log")
        self._schemas: dict[str, type[BaseModel] | None] = {}
        self.tasks: dict[str, TaskCalls] = {}

    def _task(self, agent: str) -> tuple[str, type[BaseModel] | None]:
        schema = self._schemas.get(agent)
        name = schema.__name__ if schema is not None else agent
        return name, schema

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        schema = llm_request.config.response_schema if llm_request.config else None
        model = schema if isinstance(schema, type) and issubclass(schema, BaseModel) else None
        self._schemas[callback_context.agent_name] = model
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        if llm_response.partial:
            return None
        name, schema = self._task(callback_context.agent_name)
        task = self.tasks.setdefault(name, TaskCalls())
        task.calls += 1
        usage = llm_response.usage_metadata
        if usage is not None:
            task.input += usage.prompt_token_count or 0
            task.output += usage.candidates_token_count or 0
            task.thought += usage.thoughts_token_count or 0
        if llm_response.finish_reason == types.FinishReason.MAX_TOKENS:
            task.cut_off += 1
            task.problems.append("cut off at the output cap")
            return None
        parts = llm_response.content.parts if llm_response.content else None
        text = "".join(p.text for p in parts or [] if p.text and not p.thought)
        if schema is None:
            task.valid += bool(text or any(p.function_call for p in parts or []))
            return None
        try:
            schema.model_validate_json(_FENCE.sub("", text).strip() or "{}")
        except ValidationError as error:
            task.problems.append(f"{error.error_count()} validation errors")
        else:
            task.valid += 1
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        name, _ = self._task(callback_context.agent_name)
        task = self.tasks.setdefault(name, TaskCalls())
        task.calls += 1
        task.failed += 1
        task.problems.append(f"{type(error).__name__}: {str(error)[:120]}")
        return None

    def table(self) -> str:
        """One line per task: calls, answers that validated, cut off, failed, tokens."""
        head = f"{'task':<34} {'calls':>5} {'valid':>5} {'cut':>4} {'fail':>4} "
        head += f"{'input':>8} {'output':>7} {'thought':>7}"
        lines = [head]
        for name, t in sorted(self.tasks.items()):
            lines.append(
                f"{name:<34} {t.calls:>5} {t.valid:>5} {t.cut_off:>4} {t.failed:>4} "
                f"{t.input:>8} {t.output:>7} {t.thought:>7}"
            )
            lines += [f"    ! {p}" for p in dict.fromkeys(t.problems)]
        return "\n".join(lines)
