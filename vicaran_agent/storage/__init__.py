"""The embedded records store (SQLite by default, any SQLAlchemy URL).

Its names load on first use (PEP 562), so `from vicaran_agent.storage import migrate` - or a
reader (`storage.reads.get_reader`) - does not load the repository and SQLAlchemy's ORM."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vicaran_agent.storage.migrate import SchemaOutdated
    from vicaran_agent.storage.repository import (
        FinalStatus,
        InvestigationTakenError,
        Repository,
        UnknownInvestigationError,
        get_repository,
    )

_HOMES = {
    "SchemaOutdated": "migrate",
    "FinalStatus": "repository",
    "InvestigationTakenError": "repository",
    "Repository": "repository",
    "UnknownInvestigationError": "repository",
    "get_repository": "repository",
}

__all__ = [
    "FinalStatus",
    "InvestigationTakenError",
    "Repository",
    "SchemaOutdated",
    "UnknownInvestigationError",
    "get_repository",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
