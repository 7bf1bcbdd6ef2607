"""The embedded records store (SQLite by default, any SQLAlchemy URL)."""

from __future__ import annotations

from vicaran_agent.storage.migrate import SchemaOutdated
from vicaran_agent.storage.repository import (
    FinalStatus,
    InvestigationTakenError,
    Repository,
    UnknownInvestigationError,
    get_repository,
)

__all__ = [
    "FinalStatus",
    "InvestigationTakenError",
    "Repository",
    "SchemaOutdated",
    "UnknownInvestigationError",
    "get_repository",
]
