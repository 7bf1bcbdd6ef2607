"""Every non-public google-adk symbol Vicaran uses, and only here (google-adk 2.13).

Each is pinned by a contract test (`tests/test_adk_compat.py`) that fails, naming the symbol, on
an ADK upgrade that moves or changes it; ruff's banned-api rule (`pyproject.toml`) keeps the
rest of the package from importing them directly.

- `model_call`: ADK's own model-call path (`flows.llm_flows.core._model_call.call_llm_async`
  through a `SingleFlow`) for a request Vicaran built itself, so that plugins, model callbacks,
  the `call_llm` span and the LLM call limit apply to calls made outside an agent's turn (digests,
  judge calls, drafts). Path to something public: when an ADK `Workflow` node can be an
  `LlmAgent`'s sub-agent, the pipeline's stages become nodes and these calls become theirs.
- `is_gemini_model`, `extract_model_name`: ADK's reading of model names (`utils.model_name_utils`).
- `LlmCallsLimitExceededError`: what the call limit raises (not exported by `google.adk.agents`).
- `get_artifact_uri`: the `artifact://` URI of a saved artifact (`artifacts.artifact_util`).
- `LlmCapabilities`: what a model class says it can do (`models._capabilities`); the tests'
  scripted model declares it can take an output schema and tools together, as Gemini can.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator

from google.adk.agents import InvocationContext, LlmAgent
from google.adk.agents.invocation_context import LlmCallsLimitExceededError
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.artifacts.artifact_util import get_artifact_uri
from google.adk.events import Event
from google.adk.flows.llm_flows.core._model_call import call_llm_async
from google.adk.flows.llm_flows.single_flow import SingleFlow
from google.adk.models._capabilities import LlmCapabilities
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.utils.model_name_utils import extract_model_name, is_gemini_model

__all__ = [
    "LlmCallsLimitExceededError",
    "LlmCapabilities",
    "extract_model_name",
    "get_artifact_uri",
    "is_gemini_model",
    "model_call",
]


def model_call(
    ctx: InvocationContext, agent: LlmAgent, request: LlmRequest
) -> AsyncGenerator[LlmResponse, None]:
    """The responses to `request` through ADK's model-call path, as if `agent` (a stand-in that
    carries the label and the model callbacks; never run) made it within `ctx`'s invocation,
    without streaming."""
    run_config = (ctx.run_config or RunConfig()).model_copy(
        update={"streaming_mode": StreamingMode.NONE}
    )
    ctx = ctx.model_copy(update={"agent": agent, "run_config": run_config})
    event = Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch)
    return call_llm_async(_flow(), ctx, request, event)


@functools.cache
def _flow() -> SingleFlow:
    return SingleFlow()  # stateless, and 1.5 ms to build: one for the process
