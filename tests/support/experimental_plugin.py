"""A model plugin whose model uses one of ADK's experimental features when it is first built.

ADK warns "[EXPERIMENTAL] ..." the first time such a feature is used in a process - at run
time, as with Gemini's context cache - which is what Vicaran's commands keep off the terminal.
"""

from __future__ import annotations

from typing import Any

from google.adk.apps import ResumabilityConfig
from google.adk.models import LLMRegistry

from tests.support.scripted_model import ScriptedModel


class ExperimentalScriptedModel(ScriptedModel):
    """The scripted model, built the way a model using an experimental feature is."""

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        ResumabilityConfig(is_resumable=False)


LLMRegistry.register(ExperimentalScriptedModel)  # registered last: it serves `scripted/...`
