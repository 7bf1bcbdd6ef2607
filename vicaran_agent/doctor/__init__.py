"""`vicaran doctor`: does each service the next run uses answer, and does it take our keys?

One line per service: the models (resolved through ADK's `LLMRegistry` after
VICARAN_MODEL_PLUGINS is loaded; a Gemini model is asked for with `models.get`, which spends no
tokens), Tavily (`GET /usage`), Jina Reader (`GET /`, its index), Fact Check Tools (one tiny
`claims:search`), Querido Diário (`GET /cities/{id}`), the callback API (an empty record the
receiver refuses after checking the secret), the records database and, when set, ADK's session
store. Every check runs at once, within one short timeout, and is never retried; keys are shown
masked. A check that fails is something the next run would hit: the command then exits 1.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .startup import retired_host_warning, warn_at_start

if TYPE_CHECKING:
    from .checks import Doctor
    from .command import report, run
    from .lines import Line

# The checks (and their HTTP clients) load when the doctor runs, not with every command's start.
_LAZY = {"Doctor": "checks", "report": "command", "run": "command", "Line": "lines"}

__all__ = [
    "Doctor",
    "Line",
    "report",
    "retired_host_warning",
    "run",
    "warn_at_start",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
