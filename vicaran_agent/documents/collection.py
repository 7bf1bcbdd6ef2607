"""Collections: who may use one (`Reader`), what the operator sees of one, and their names."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .model import DocumentError, DocumentReliability

if TYPE_CHECKING:
    from ..storage.rows import CollectionRow


class CollectionRecord(Protocol):
    """A stored collection as read (a Core row) or written (an ORM object)."""

    owner: str | None
    investigation_id: str | None


MAX_COLLECTION_CHARS = 255


@dataclass(frozen=True)
class Reader:
    """A conversation naming collections: its ADK user, and the investigation it plans or runs.

    It may use the operator's collections (`vicaran docs add`: shared) and the attachment
    collections its user owns; one made before owners were kept only from its own investigation.
    The operator's commands read every collection (no Reader).
    """

    user_id: str
    investigation_id: str = ""

    def may_use(self, row: CollectionRecord) -> bool:
        if row.investigation_id is None:
            return row.owner is None or row.owner == self.user_id
        if row.owner is not None:
            return row.owner == self.user_id
        # Made before owners were kept: only from its investigation, named by its whole id.
        return _is_uuid(self.investigation_id) and row.investigation_id == self.investigation_id


@dataclass(frozen=True)
class CollectionInfo:
    """A collection as the operator sees it: whose it is and how many documents it holds."""

    name: str
    reliability: DocumentReliability
    owner: str | None  # the ADK user whose chat attachments it holds; None: unknown or shared
    investigation_id: str | None  # None: the operator's, shared
    documents: int

    @property
    def shared(self) -> bool:
        return self.investigation_id is None and self.owner is None


class CollectionRefused(DocumentError):
    """A conversation's attachments cannot go into a collection that is not its user's."""


def _is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def takes_attachments(row: CollectionRow, owner: Reader) -> bool:
    """Whether a chat's attachments may go into `row`: an attachment collection of its user
    (one made before owners were kept: of its investigation, which then owns it)."""
    if row.investigation_id is None or not owner.may_use(row):
        return False
    if row.owner is None:
        row.owner = owner.user_id
    return True


def collection_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise ValueError("a collection needs a name")
    if len(name) > MAX_COLLECTION_CHARS:
        raise ValueError(f"a collection name has at most {MAX_COLLECTION_CHARS} characters")
    return name
