"""What the records database returns, as the read API's JSON: for tests that read it as JSON."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from vicaran_agent.read_model import InvestigationView
from vicaran_agent.storage.reads import Reads


def as_json(found: BaseModel | list[BaseModel] | None) -> Any:
    """A view (or a list of them) as `GET /api/investigations…` serves it; None stays None."""
    if found is None:
        return None
    if isinstance(found, list):
        return [item.model_dump(mode="json") for item in found]
    return found.model_dump(mode="json")


def view(record: dict[str, Any]) -> InvestigationView:
    """The read API's JSON of an investigation (perhaps changed by a test) as the typed view
    the dashboard and the exports read."""
    return InvestigationView.model_validate(record)


def stored(repository: Reads, investigation_id: str) -> InvestigationView:
    """The investigation as saved (it must be)."""
    found = repository.get_investigation(investigation_id)
    assert found is not None, f"investigation {investigation_id} is not saved"
    return found
