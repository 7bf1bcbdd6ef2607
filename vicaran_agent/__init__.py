"""Vicaran: an investigation assistant for journalists, built on Google's ADK.

`vicaran_agent.agent` (where ADK finds the root agent) is imported on first use rather than
with the package, so that the parser worker processes, which import only the parsers, never
load ADK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import agent

__all__ = ["agent"]


def __getattr__(name: str) -> Any:
    if name == "agent":
        return importlib.import_module(f"{__name__}.agent")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
