"""A model plugin that uses one of ADK's experimental features, as Gemini's context cache does.

ADK warns "[EXPERIMENTAL] ..." the first time such a feature is used in a process.
"""

from __future__ import annotations

from google.adk.apps import ResumabilityConfig

ResumabilityConfig(is_resumable=False)
