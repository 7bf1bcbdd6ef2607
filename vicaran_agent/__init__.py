"""Vicaran: an investigation assistant for journalists, built on Google's ADK."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["agent"]


def __getattr__(name: str) -> Any:
    """ADK finds `vicaran_agent.agent`; importing the package alone builds no agent.

    The `vicaran` commands that need no model (outbox, export) never build one, so a model
    setting they do not use cannot stop them.
    """
    if name in ("agent", "app", "root_agent"):
        agent = importlib.import_module(f"{__name__}.agent")
        return agent if name == "agent" else getattr(agent, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
