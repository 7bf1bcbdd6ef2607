"""Querido Diário (Brazilian municipal gazettes): search, city lookup and full texts.

INTERFACE STUB - implemented by the gazettes client work (issue 12).
Contract: ../shared/reference/external-apis.md §4. ~60 requests/min; no authentication.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..config import Settings


@dataclass(frozen=True)
class Gazette:
    """One gazette the API returned (fields it omits are None or empty)."""

    territory_id: str
    territory_name: str
    state_code: str
    date: str  # YYYY-MM-DD (publication date)
    url: str
    txt_url: str | None = None
    excerpts: tuple[str, ...] = ()
    edition: str | None = None
    is_extra_edition: bool | None = None
    queries: tuple[str, ...] = ()  # the querystrings that found it


@dataclass
class GazetteSearch:
    """Gazettes of several querystrings, merged and de-duplicated by txt_url (else url)."""

    gazettes: list[Gazette] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)  # querystring -> total_gazettes
    failures: list[str] = field(default_factory=list)  # what could not be searched, said plainly


@dataclass(frozen=True)
class City:
    territory_id: str  # 7-digit IBGE code
    name: str
    state_code: str
    level: str = ""


@dataclass(frozen=True)
class CityResolution:
    """A place name resolved to a territory (or not), with what was decided and why."""

    city: City | None
    candidates: tuple[City, ...] = ()  # homonyms when the state did not settle it
    note: str = ""  # e.g. "3 cities are named Bom Jesus; searched without a city filter"


class QueridoDiario:
    """A small client: retries, timeouts and the request budget of the rest of Vicaran."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def search(
        self,
        querystrings: Sequence[str],
        *,
        territory_ids: Sequence[str] = (),
        published_since: str | None = None,
        published_until: str | None = None,
        size: int = 30,
    ) -> GazetteSearch:
        raise NotImplementedError

    async def resolve_city(self, name: str, state_code: str | None = None) -> CityResolution:
        raise NotImplementedError

    async def read_text(self, txt_url: str, max_chars: int = 80_000) -> str | None:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None
