"""What following references keeps: what it read, its candidates, one claim's run and its limits."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..schemas import DateSource
from .model import DocumentInfo, PassageHit
from .references import Reference
from .registry import Resolution

Limit = Literal["depth", "visited", "budget", "convergence"]

LIMITS: tuple[Limit, ...] = ("depth", "visited", "budget", "convergence")

Scope = Literal["document", "section", "same", "search", "url"]

ReadUrl = Callable[[str], Awaitable[Any]]  # the guarded page reader (PageReader.read)

PASSAGES_PER_REFERENCE = 3

MAX_CANDIDATES = 20  # references put to the gate per depth level

CHARS_PER_TOKEN = 4


class DocumentSearch(Protocol):
    """What following needs of the document store (calls are synchronous: SQLite)."""

    def search(
        self,
        query: str,
        collections: Sequence[str],
        *,
        document_ids: Sequence[str] | None = None,
        limit: int = 8,
    ) -> list[PassageHit]: ...

    def best_passages(
        self, document_id: str, query: str = "", limit: int = 3
    ) -> list[PassageHit]: ...

    def documents(self, collection: str | None = None) -> list[DocumentInfo]: ...


@dataclass(frozen=True)
class FollowedPassage:
    """A passage reached by following `reference` (found in `origin`) at `depth`."""

    hit: PassageHit
    reference: Reference
    depth: int
    origin: str
    resolution: Resolution | None = None


@dataclass(frozen=True)
class FollowedPage:
    """A web page read because a document cited its address."""

    url: str
    title: str
    text: str
    published_at: str | None
    published_at_source: DateSource | None
    reference: Reference
    depth: int
    origin: str


@dataclass
class FollowResult:
    """What following the references of one claim read, and the log of how it got there."""

    passages: list[FollowedPassage] = field(default_factory=list)
    pages: list[FollowedPage] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    stopped: list[Limit] = field(default_factory=list)  # the limits that stopped something
    rejected: list[tuple[Reference, str]] = field(default_factory=list)  # the gate said no, why
    listed: list[tuple[str, str]] = field(default_factory=list)  # (address, where): not opened
    tokens: int = 0
    gate_calls: int = 0
    gate_failed: bool = False


@dataclass(frozen=True)
class Source:
    """Something read, whose text may cite more."""

    text: str
    origin: str  # "relatorio.pdf p. 3", an address, or the fact-checker's reading
    document: DocumentInfo | None = None
    document_id: str = ""
    via: tuple[str, str] | None = None  # the reference that led here (it is cited here too)


@dataclass(frozen=True)
class Candidate:
    reference: Reference
    source: Source
    depth: int
    scope: Scope
    visit: tuple[str, ...]
    document_id: str = ""
    resolution: Resolution | None = None

    @property
    def exact(self) -> bool:
        return self.resolution is not None and self.resolution.how == "exact"


@dataclass
class Run:
    """One claim's following: what was read and what stopped it."""

    claim: str
    result: FollowResult = field(default_factory=FollowResult)
    visited: set[tuple[str, ...]] = field(default_factory=set)
    seen_passages: set[int] = field(default_factory=set)
    considered: set[tuple[str, str]] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)  # addresses said once
    arrivals: Counter[str] = field(default_factory=Counter)
    stops: dict[Limit, list[str]] = field(default_factory=dict)
    converged_on: str = ""
    budget_spent: bool = False

    @property
    def halted(self) -> bool:
        return bool(self.converged_on) or self.budget_spent

    def stop(self, limit: Limit, reference: Reference) -> None:
        self.stops.setdefault(limit, []).append(reference.label)


@dataclass(frozen=True)
class Unread:
    """A page read that raised: as the page reader reports a failure."""

    url: str
    error: str
    ok: bool = False


def tokens_of(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)
