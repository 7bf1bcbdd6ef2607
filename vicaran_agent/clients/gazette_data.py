"""Querido Diário's data as Vicaran keeps it: gazettes, cities, texts; what a request may ask
(cleaned querystrings, territory ids, dates, city names) and what an answer means (parsed,
capped). No I/O here: `querido_diario` is the client."""

from __future__ import annotations

import codecs
import difflib
import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..i18n import Phrase

EXCERPT_SIZE = 500


NUMBER_OF_EXCERPTS = 3


MAX_SIZE = 100  # per querystring; the loop asks 30


MAX_QUERY_CHARS = 500


# What is kept of an excerpt (the API's 500 characters, with its <b> highlights and some room).
EXCERPT_MAX_CHARS = 2_000


# The 27 federative units, for "Porto Alegre/RS" and for checking a state code.
_UFS = "AC AL AM AP BA CE DF ES GO MA MG MS MT PA PB PE PI PR RJ RN RO RR RS SC SE SP TO"


STATE_CODES = frozenset(_UFS.split())


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

    @property
    def key(self) -> str:
        """What gazettes are de-duplicated by: the text's URL, else the file's."""
        return self.txt_url or self.url


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
    close: tuple[City, ...] = ()  # names close to an unknown one ("Porto Alegr" -> Porto Alegre)
    failure: str | None = None  # the city list could not be fetched (the API is down ...)


@dataclass(frozen=True)
class GazetteText:
    """A gazette's text (at most the characters asked for), or why it could not be read."""

    url: str
    text: str | None
    truncated: bool = False
    failure: str | None = None


def clean_querystrings(querystrings: Sequence[str] | str) -> list[str]:
    """Single-spaced, capped, empty and repeated ones dropped (order kept)."""
    if isinstance(querystrings, str):
        querystrings = [querystrings]
    cleaned: list[str] = []
    for query in querystrings:
        query = " ".join(str(query or "").split())[:MAX_QUERY_CHARS].strip()
        if query and query not in cleaned:
            cleaned.append(query)
    return cleaned


def clean_territory_ids(territory_ids: Sequence[str] | str) -> list[str]:
    """Each id once; a comma-joined value is split (the API would take it as ONE id)."""
    if isinstance(territory_ids, str):
        territory_ids = [territory_ids]
    ids: list[str] = []
    for value in territory_ids:
        for part in str(value or "").split(","):
            if part.strip() and part.strip() not in ids:
                ids.append(part.strip())
    return ids


def iso_date(value: str | date | None, name: str) -> str | None:
    """`value` as YYYY-MM-DD (None for none); raises ValueError(Phrase) for anything else."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, date):
        return value.isoformat()[:10]
    text = str(value).strip()
    try:
        if len(text) == 10 and text[4] == "-" and text[7] == "-":
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise ValueError(Phrase("gazettes_bad_date", name=name, value=shortened(text, 40)))


def split_state(name: str) -> tuple[str, str | None]:
    """("Porto Alegre", "RS") from "Porto Alegre/RS", "Porto Alegre - RS", "Porto Alegre (RS)"
    or "Porto Alegre, RS"; (name, None) when no state code ends it."""
    text = name.strip()
    if text.endswith(")") and "(" in text:
        head, _, inner = text[:-1].rpartition("(")
        if inner.strip().upper() in STATE_CODES and head.strip():
            return head.strip(" ,-/"), inner.strip().upper()
    for separator in ("/", ",", "-"):
        head, found, tail = text.rpartition(separator)
        if found and tail.strip().upper() in STATE_CODES and head.strip(" ,-/"):
            return head.strip(" ,-/"), tail.strip().upper()
    return text, None


def city_key(name: str) -> str:
    """A name with accents, case and punctuation folded: "Santa Bárbara d'Oeste" -> "santa
    barbara d oeste"."""
    decomposed = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join("".join(c if c.isalnum() else " " for c in plain).split())


def close_cities(key: str, cities: Sequence[City], limit: int = 5) -> tuple[City, ...]:
    """Cities whose name contains `key` as whole words, then names spelt nearly alike."""
    if not key:
        return ()
    by_key: dict[str, list[City]] = {}
    for city in cities:
        by_key.setdefault(city_key(city.name), []).append(city)
    padded = f" {key} "
    found = [k for k in by_key if padded in f" {k} "]
    found += [
        k
        for k in difflib.get_close_matches(key, list(by_key), n=limit, cutoff=0.75)
        if k not in found
    ]
    return tuple(city for k in found for city in by_key[k])[:limit]


def gazettes_of(body: dict[str, Any], asked: int = MAX_SIZE) -> tuple[int, list[Gazette]]:
    """(total_gazettes, the usable gazettes) of one /gazettes answer; omitted fields allowed.

    No more gazettes are kept than were `asked` for, nor more excerpts than asked, each cut at
    EXCERPT_MAX_CHARS: an answer bigger than the question is not taken at its word."""
    items = body.get("gazettes") if isinstance(body.get("gazettes"), list) else []
    gazettes: list[Gazette] = []
    for item in items or []:
        if len(gazettes) >= asked:
            break
        if not isinstance(item, dict):
            continue
        territory_id, day = _string(item.get("territory_id")), _string(item.get("date"))[:10]
        url, txt_url = _string(item.get("url")), _string(item.get("txt_url")) or None
        if not territory_id or not day or not (url or txt_url):
            continue
        excerpts = item.get("excerpts") if isinstance(item.get("excerpts"), list) else []
        edition = item.get("edition")
        extra = item.get("is_extra_edition")
        gazettes.append(
            Gazette(
                territory_id=territory_id,
                territory_name=_string(item.get("territory_name")),
                state_code=_string(item.get("state_code")),
                date=day,
                url=url,
                txt_url=txt_url,
                excerpts=tuple(
                    e.strip()[:EXCERPT_MAX_CHARS]
                    for e in (excerpts or [])[:NUMBER_OF_EXCERPTS]
                    if isinstance(e, str) and e.strip()
                ),
                edition=str(edition) if edition not in (None, "") else None,
                is_extra_edition=extra if isinstance(extra, bool) else None,
            )
        )
    total = body.get("total_gazettes")
    return (total if isinstance(total, int) and total >= 0 else len(gazettes)), gazettes


def cities_of(body: dict[str, Any]) -> tuple[City, ...]:
    items = body.get("cities") if isinstance(body.get("cities"), list) else []
    cities = []
    for item in items or []:
        if not isinstance(item, dict):
            continue
        territory_id, name = _string(item.get("territory_id")), _string(item.get("territory_name"))
        if territory_id and name:
            level = item.get("level")
            cities.append(
                City(
                    territory_id=territory_id,
                    name=name,
                    state_code=_string(item.get("state_code")).upper(),
                    level="" if level is None else str(level),
                )
            )
    return tuple(cities)


def validation_detail(body: bytes) -> str:
    """FastAPI's 422 body as one line: "published_since: Input should be a valid date …"."""
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return ""
    detail = payload.get("detail") if isinstance(payload, dict) else None
    if isinstance(detail, str):
        return shortened(detail)
    lines = []
    for item in detail if isinstance(detail, list) else []:
        if not isinstance(item, dict):
            continue
        where = [str(p) for p in item.get("loc") or [] if p != "query"]
        msg = shortened(_string(item.get("msg")), 160)
        lines.append(f"{'.'.join(where)}: {msg}" if where else msg)
    return "; ".join(lines[:3])


def text_of(url: str, body: bytes, cut: bool, max_chars: int) -> GazetteText:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(body, final=not cut)
    sample = text[:4000]
    if sample and (sample.count("\x00") + sample.count("\ufffd")) / len(sample) > 0.05:
        return GazetteText(url, None, failure=unreadable_phrase(url, Phrase("gazette_text_binary")))
    truncated = cut or len(text) > max_chars
    return GazetteText(url, text[:max_chars], truncated=truncated)


def resolved_phrase(city: City) -> Phrase:
    return Phrase(
        "city_resolved", name=city.name, state=city.state_code, territory_id=city.territory_id
    )


def unreadable_phrase(url: str, reason: str) -> Phrase:
    return Phrase("gazette_unreadable", url=shortened(url, 160), reason=reason)


def _string(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def shortened(text: str, limit: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
