"""A loopback fake of the Querido Diário API, per external-apis.md §4, serving gazette texts too.

    with FakeQueridoDiario() as fake:          # the golden-scenario corpus (tests/support/gazettes.py)
        httpx.get(f"{fake.url}/gazettes", params=[("querystring", "contrato emergencial"),
                                                  ("territory_ids", "4314902")])

Routes (GET): `/gazettes`, `/cities`, `/cities/{territory_id}`, and every gazette's text at its
`txt_url` (`/{territory_id}/{date}/{checksum}.txt`, the real path shape; the PDF `url` answers a few
bytes of application/pdf). A trailing slash answers 307 to the path without it; any other route 404
`{"detail":"Not Found"}`; another method 405.

`/gazettes` speaks the real contract: `querystring` (the `simple_query_string` subset of
tests/fakes/simple_query.py), `territory_ids` repeated (a comma-joined value is ONE id and so matches
nothing), `published_since`/`published_until` and `scraped_since`/`scraped_until` inclusive,
`size`, `offset`, `excerpt_size`, `number_of_excerpts`, `pre_tags`/`post_tags`, `sort_by`
(`relevance` | `descending_date` | `ascending_date`). Values are validated by pydantic as FastAPI
does, so a bad date, int or sort answers the same 422 body (`{"detail":[{type, loc, msg, input,
ctx}]}`). No filter at all answers `{"total_gazettes":0,"gazettes":[]}`; unknown parameters are
ignored; fields whose value is None are left out. Without a querystring (or sorted by date) the
index order holds: territory ascending, date descending.

Failures are injected with `fail(kind, times=N, path=prefix, query=substring)`: a status (500,
503 ... answered with a FastAPI-style `{"detail": ...}` body; 429 in Traefik's shape, the only
one that answers it: `Retry-After: 3`) or "hang".

As deployed (okfn-brasil/querido-diario-deployment): every API request (not the gazette files,
which the real service serves from another host) first meets Traefik's `api-rate-limit`, 25 a
minute with a burst of 50 per client, ON by default (`rate_limit=`: a tests/fakes/traefik.py
`TraefikRateLimit`, with an injectable clock, or None for none): a request the bucket cannot
serve at once is held up to 0.5 s, or answered 429 with `Retry-After` and `X-Retry-In`. And the
search engine is slow on a term's first query (20-36 s on the real service, repeats ~0.3 s):
`cold_seconds` delays a search whose `querystring` has not been answered before (`cold` lists
those answered cold).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import math
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import unquote

from pydantic import TypeAdapter, ValidationError

from tests.fakes import simple_query as sq
from tests.fakes.server import FailureQueue, FakeServer, RecordedRequest, Response
from tests.fakes.traefik import TOO_MANY_REQUESTS, Decision, TraefikRateLimit

# What Traefik answers a request that meets an empty bucket of 25 a minute (a token in 2.4 s).
EMPTY_BUCKET = Decision(60 / 25, refused=True)
DEFAULT_SIZE = 10
DEFAULT_EXCERPT_SIZE = 500
DEFAULT_EXCERPTS = 1


class SortBy(enum.StrEnum):
    relevance = "relevance"
    descending_date = "descending_date"
    ascending_date = "ascending_date"


# FastAPI validates query values in the order the route declares them (api/api.py).
_VALIDATED: tuple[tuple[str, Any], ...] = (
    ("published_since", date),
    ("published_until", date),
    ("scraped_since", datetime),
    ("scraped_until", datetime),
    ("excerpt_size", int),
    ("number_of_excerpts", int),
    ("size", int),
    ("offset", int),
    ("sort_by", SortBy),
)
_ADAPTERS = {name: TypeAdapter(kind) for name, kind in _VALIDATED}


@dataclass(frozen=True)
class FakeCity:
    territory_id: str
    name: str
    state_code: str
    level: str = "3"
    publication_urls: tuple[str, ...] = ()
    availability_date: str = ""

    def record(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "territory_id": self.territory_id,
            "territory_name": self.name,
            "state_code": self.state_code,
            "publication_urls": list(self.publication_urls) or None,
            "level": self.level,
            "availability_date": self.availability_date,
        }
        return {k: v for k, v in record.items() if v is not None}


@dataclass(frozen=True)
class FakeGazette:
    """One edition. `checksum` names its files; one is made up from the rest when empty."""

    territory_id: str
    date: str  # YYYY-MM-DD
    text: str
    checksum: str = ""
    edition: str | None = None
    is_extra_edition: bool | None = None
    scraped_at: str | None = None  # naive ISO datetime; default: the evening of `date`
    has_txt: bool = True  # False: no txt_url (a gazette whose text was not extracted)

    @property
    def file_id(self) -> str:
        if self.checksum:
            return self.checksum
        seed = f"{self.territory_id}/{self.date}/{self.edition}/{self.text[:200]}"
        return hashlib.sha1(seed.encode()).hexdigest()

    @property
    def path(self) -> str:
        """Where its text is, below the files host: `{territory_id}/{date}/{checksum}.txt`."""
        return f"{self.territory_id}/{self.date}/{self.file_id}.txt"

    @property
    def scraped(self) -> str:
        return self.scraped_at or f"{self.date}T21:02:39"


@dataclass
class _Failure:
    kind: int | str
    remaining: int | None
    path: str | None
    query: str | None


class FakeQueridoDiario(FakeServer):
    """Fake Querido Diário: /gazettes, /cities and the gazette texts, from a corpus."""

    def __init__(
        self,
        gazettes: list[FakeGazette] | None = None,
        cities: list[FakeCity] | None = None,
        *,
        latency: float = 0.0,
        clock: Any = None,
        rate_limit: TraefikRateLimit | str | None = "production",
        cold_seconds: float = 0.0,
    ) -> None:
        """`rate_limit`: Traefik's bucket in front of the API ("production": 25 a minute, burst
        50), None for no limit; `cold_seconds`: the delay of a querystring's first search."""
        super().__init__(latency=latency, clock=clock)
        self.rate_limit = TraefikRateLimit() if rate_limit == "production" else rate_limit
        self.cold_seconds = cold_seconds
        self.cold: list[str] = []  # querystrings answered cold, in order
        self._warm: set[str] = set()
        if gazettes is None and cities is None:
            from tests.support.gazettes import CITIES, GAZETTES

            gazettes, cities = GAZETTES, CITIES
        self.cities: list[FakeCity] = list(cities or [])
        self._cities = {city.territory_id: city for city in self.cities}
        self.gazettes: list[FakeGazette] = sorted(
            gazettes or [], key=lambda g: (g.territory_id, _descending(g.date))
        )
        self._documents = [_analyzed(g.text) for g in self.gazettes]
        self._by_path = {g.path: g for g in self.gazettes}
        self._idf_lock = threading.Lock()
        self._idf: dict[sq.Leaf, float] = {}
        self._failures: FailureQueue[_Failure] = FailureQueue()

    # --- what tests use --------------------------------------------------------------------

    def txt_url(self, gazette_or_path: FakeGazette | str) -> str:
        path = gazette_or_path if isinstance(gazette_or_path, str) else gazette_or_path.path
        return f"{self.url}/{path}"

    def fail(
        self,
        kind: int | str,
        *,
        times: int | None = None,
        path: str | None = None,
        query: str | None = None,
    ) -> None:
        """Make requests fail with a status (429, 503 ...) or "hang"; `path`: only requests whose
        path starts with it; `query`: only searches whose querystring contains it."""
        if kind != "hang" and not isinstance(kind, int):
            raise ValueError(f"unknown failure kind {kind!r}")
        self._failures.add(_Failure(kind, times, path, query))

    def clear_failures(self) -> None:
        self._failures.clear()

    def searches(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/gazettes"]

    # --- routing ---------------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Response:
        path = unquote(request.path)
        if self.rate_limit is not None and not self._is_file(path):
            decision = self.rate_limit.decide()
            if decision.refused:
                return Response(429, decision.headers(), TOO_MANY_REQUESTS)
            if decision.delay and self.wait(decision.delay):
                return Response(hang=True)  # stopping
        if request.method not in ("GET", "HEAD"):
            return Response.json(405, {"detail": "Method Not Allowed"})
        if len(path) > 1 and path.endswith("/"):
            query = request.raw_path.partition("?")[2]
            location = f"{self.url}{path.rstrip('/')}" + (f"?{query}" if query else "")
            return Response(307, {"location": location, "content-length": "0"})
        querystring = " ".join(request.query.get("querystring", []))
        failure = self._failures.take(
            lambda f: (
                (not f.path or path.startswith(f.path))
                and (not f.query or f.query.lower() in querystring.lower())
            )
        )
        if failure is not None:
            if failure.kind == "hang":
                return Response(hang=True)
            if failure.kind == 429:  # only Traefik answers 429, in its own shape
                return Response(429, EMPTY_BUCKET.headers(), TOO_MANY_REQUESTS)
            return Response.json(int(failure.kind), {"detail": "Service Unavailable"})
        if path == "/gazettes":
            return self._gazettes(request.query)
        if path == "/cities":
            return self._city_list(request.query)
        if path.startswith("/cities/") and path.count("/") == 2:
            city = self._cities.get(path.removeprefix("/cities/"))
            if city is None:
                return Response.json(404, {"detail": "City not found."})
            return Response.json(200, {"city": city.record()})
        gazette = self._by_path.get(path.lstrip("/"))
        if gazette is not None and gazette.has_txt:
            return Response.text(200, gazette.text)
        pdf = self._by_path.get(path.lstrip("/").removesuffix(".pdf") + ".txt")
        if pdf is not None and path.endswith(".pdf"):
            return Response(200, {"Content-Type": "application/pdf"}, b"%PDF-1.4\n%fake\n")
        return Response.json(404, {"detail": "Not Found"})

    def _is_file(self, path: str) -> bool:
        """A gazette's text or PDF: the real service serves those from its files host."""
        stem = path.lstrip("/").removesuffix(".pdf").removesuffix(".txt")
        return f"{stem}.txt" in self._by_path

    # --- /cities ---------------------------------------------------------------------------

    def _city_list(self, query: dict[str, list[str]]) -> Response:
        name = query.get("city_name", [""])[-1].lower()
        levels = {level for level in query.get("levels", []) if level}
        found = [
            city.record()
            for city in self.cities
            if name in city.name.lower() and (not levels or city.level in levels)
        ]
        return Response.json(200, {"cities": found})

    # --- /gazettes -------------------------------------------------------------------------

    def _gazettes(self, query: dict[str, list[str]]) -> Response:
        values: dict[str, Any] = {}
        errors: list[dict[str, Any]] = []
        for name, _ in _VALIDATED:
            if name not in query:
                continue
            raw = query[name][-1]
            try:
                values[name] = _ADAPTERS[name].validate_python(raw)
            except ValidationError as error:
                for item in error.errors(include_url=False):
                    errors.append({**item, "loc": ["query", name, *item["loc"]]})
        if errors:
            return Response.json(422, {"detail": errors})
        querystring = " ".join(query.get("querystring", [""]))
        if querystring.strip() and self.cold_seconds and querystring not in self._warm:
            if self.wait(self.cold_seconds):
                return Response(hang=True)  # stopping
            with self._lock:
                self._warm.add(querystring)
                self.cold.append(querystring)
        territories = set(query.get("territory_ids", []))
        dates = [values.get(n) for n in ("published_since", "published_until")]
        scraped = [values.get(n) for n in ("scraped_since", "scraped_until")]
        if not querystring.strip() and not territories and not any(dates + scraped):
            return Response.json(200, {"total_gazettes": 0, "gazettes": []})
        clause = sq.parse(querystring) if querystring.strip() else None
        if querystring.strip() and clause is None:
            return Response.json(200, {"total_gazettes": 0, "gazettes": []})
        leaves = sq.positive_leaves(clause) if clause is not None else []
        found: list[tuple[float, int]] = []
        for index, gazette in enumerate(self.gazettes):
            if territories and gazette.territory_id not in territories:
                continue
            if not _within(date.fromisoformat(gazette.date), *dates):
                continue
            if not _within(datetime.fromisoformat(gazette.scraped), *scraped):
                continue
            document = self._documents[index]
            if clause is not None and not sq.matches(clause, document):
                continue
            relevance = sq.score(leaves, document, self._idf_of(leaves)) if leaves else 0.0
            found.append((relevance, index))
        sort_by = values.get("sort_by", SortBy.relevance)
        if sort_by is SortBy.relevance and clause is not None:
            found.sort(key=lambda hit: (-hit[0], _descending(self.gazettes[hit[1]].date)))
        elif sort_by is SortBy.descending_date:
            found.sort(key=lambda hit: _descending(self.gazettes[hit[1]].date))
        elif sort_by is SortBy.ascending_date:
            found.sort(key=lambda hit: self.gazettes[hit[1]].date)
        offset = max(0, values.get("offset", 0))
        size = max(0, values.get("size", DEFAULT_SIZE))
        excerpt_size = values.get("excerpt_size", DEFAULT_EXCERPT_SIZE)
        number = values.get("number_of_excerpts", DEFAULT_EXCERPTS)
        tags = (query.get("pre_tags", [""])[0], query.get("post_tags", [""])[0])
        page = [
            self._record(index, leaves, excerpt_size, number, tags)
            for _, index in found[offset : offset + size]
        ]
        return Response.json(200, {"total_gazettes": len(found), "gazettes": page})

    def _record(
        self, index: int, leaves: list[sq.Leaf], size: int, number: int, tags: tuple[str, str]
    ) -> dict[str, Any]:
        gazette = self.gazettes[index]
        city = self._cities.get(gazette.territory_id)
        stem = f"{self.url}/{gazette.path.removesuffix('.txt')}"
        record: dict[str, Any] = {
            "territory_id": gazette.territory_id,
            "date": gazette.date,
            "scraped_at": gazette.scraped,
            "url": f"{stem}.pdf",
            "territory_name": city.name if city else None,
            "state_code": city.state_code if city else None,
            "excerpts": sq.excerpts(leaves, self._documents[index], size, number, tags),
            "edition": gazette.edition,
            "is_extra_edition": gazette.is_extra_edition,
            "txt_url": f"{stem}.txt" if gazette.has_txt else None,
        }
        return {k: v for k, v in record.items() if v is not None}

    def _idf_of(self, leaves: list[sq.Leaf]) -> dict[sq.Leaf, float]:
        """Inverse document frequency over the whole corpus (as one shard would count)."""
        with self._idf_lock:
            for leaf in leaves:
                if leaf not in self._idf:
                    df = sum(1 for d in self._documents if sq.occurrences(leaf, d))
                    self._idf[leaf] = math.log(1 + (len(self._documents) - df + 0.5) / (df + 0.5))
            return dict(self._idf)


@functools.lru_cache(maxsize=1024)
def _analyzed(text: str) -> sq.Document:
    """A text's words, indexed once per process (documents are never changed after)."""
    return sq.analyze(text)


def _descending(day: str) -> str:
    """A key that sorts YYYY-MM-DD dates newest first."""
    return "".join(chr(ord("9") - ord(c) + ord("0")) if c.isdigit() else c for c in day)


def _within(value: Any, since: Any, until: Any) -> bool:
    """`since <= value <= until`, either bound absent (datetimes compared naive, as UTC)."""
    since, until = (
        b.astimezone(UTC).replace(tzinfo=None) if isinstance(b, datetime) and b.tzinfo else b
        for b in (since, until)
    )
    return (since is None or value >= since) and (until is None or value <= until)
