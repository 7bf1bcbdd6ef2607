"""What the gazette search asks of Querido Diário (`GazetteClient`), and what it found for one
claim (`GazetteOutcome`, with each search sent: `SearchDone`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..clients.gazette_data import City, CityResolution, Gazette, GazetteSearch
from ..schemas import Source
from .read import GazetteEvidence, GazetteText, gazette_source
from .score import GazetteScore, gazette_key
from .strategies import StrategyName
from .terms import Period


class GazetteClient(Protocol):
    """What the loop needs of Querido Diário (clients/querido_diario.QueridoDiario)."""

    async def search(
        self,
        querystrings: Sequence[str],
        *,
        territory_ids: Sequence[str] = (),
        published_since: str | None = None,
        published_until: str | None = None,
        size: int = 30,
    ) -> GazetteSearch: ...

    async def resolve_city(self, name: str, state_code: str | None = None) -> CityResolution: ...

    async def read_text(self, txt_url: str, max_chars: int = 80_000) -> str | None: ...


@dataclass(frozen=True)
class SearchDone:
    """One search string sent, in which round, over which dates, and what it matched."""

    round: int
    strategy: StrategyName
    query: str
    since: str | None
    until: str | None
    total: int | None = None


@dataclass
class GazetteOutcome:
    """What the gazette search found for one claim."""

    found: bool = False  # an act in a gazette bears on the claim
    evidence: list[GazetteEvidence] = field(default_factory=list)
    read: list[GazetteText] = field(default_factory=list)  # gazettes read in full
    unreadable: list[Gazette] = field(default_factory=list)  # found, but no text could be had
    candidates: list[GazetteScore] = field(default_factory=list)  # every gazette found, best first
    log: list[str] = field(default_factory=list)  # the reasoning log, one line per step
    rounds: int = 0
    searches: list[SearchDone] = field(default_factory=list)
    city: City | None = None
    period: Period | None = None
    sufficient: bool = False
    model_calls: int = 0
    model_rounds: int = 0  # rounds of model calls (a reading's concurrent batches are one)
    failures: list[str] = field(default_factory=list)

    @property
    def queries(self) -> list[str]:
        """Every search string tried, once each, in order."""
        return list(dict.fromkeys(s.query for s in self.searches))

    def sources(self, retrieved_at: str | None = None) -> list[Source]:
        """Each gazette read, as the Source its evidence cites (origin "gazette")."""
        return [
            gazette_source(
                read.gazette,
                read.text,
                [e for e in self.evidence if gazette_key(e.gazette) == gazette_key(read.gazette)],
                retrieved_at=retrieved_at,
            )
            for read in self.read
        ]
