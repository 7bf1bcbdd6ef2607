"""Published fact-checks from Google Fact Check Tools (`claims:search`), per external-apis.md §3.

`FactCheckApi.search` never raises: failures come back as one-line reasons that say what to do,
and with no FACTCHECK_API_KEY nothing is sent and `skipped` says why. `map_rating` turns a
publisher's free-text rating ("Falso", "Pants on Fire!", "This is false.") into a Vicaran
verdict label, or None when it does not know it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..clock import SYSTEM_CLOCK, Clock
from ..config import Settings
from ..formatting import one_line
from ..i18n import Phrase
from ..sanitize import clean
from ..urls import host_of, normalize_url
from .content import published_date
from .fact_check_ratings import map_rating
from .http import AnswerTooLarge, LoopBound, capped_client
from .ratelimit import limiter
from .retry import PermanentError, TransientError, backoff_delay, parse_retry_after, retried

logger = logging.getLogger(__name__)


SEARCH_PATH = "/v1alpha1/claims:search"


BACKOFF_BASE_SECONDS = 0.5


BACKOFF_MAX_SECONDS = 8.0


MAX_QUERY_CHARS = 500


# An answer is read up to this, then refused: a page of claims with their reviews is a few KB
# each, tens of KB in all.
ANSWER_MAX_BYTES = 2_000_000


USER_AGENT = "Vicaran/0.1 (investigation assistant for journalists)"


KEY_SETTINGS_URL = "https://console.cloud.google.com/apis/credentials"


ENABLE_API_URL = "https://console.cloud.google.com/apis/library/factchecktools.googleapis.com"


# Every field of a review is untrusted text (anyone can publish ClaimReview markup): stripped of
# markers and links like a page's text, then cut to these lengths.
CLAIM_CHARS = 1_000


CLAIMANT_CHARS = 200


PUBLISHER_CHARS = 120


TITLE_CHARS = 300


RATING_CHARS = 60  # a rating is a few words


URL_CHARS = 2_048


_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")


_NOT_IN_URL = frozenset('<>"`\\')  # markup's delimiters: no page's address has them raw


KEY_MISSING = Phrase("factcheck_key_missing")


KEY_INVALID = Phrase("factcheck_key_invalid", url=KEY_SETTINGS_URL)


@dataclass(frozen=True)
class Review:
    """One published fact-check of a claim; dates are YYYY-MM-DD or None."""

    claim_text: str  # the claim as reviewed
    claimant: str | None
    claim_date: str | None
    publisher: str  # publisher name (or site)
    site: str  # publisher site, e.g. "aosfatos.org"
    url: str  # the fact-check article
    title: str
    review_date: str | None
    rating: str  # textualRating as published
    verdict: str | None  # map_rating(rating), None when unknown
    language: str | None
    query: str = ""  # the search that found it


@dataclass
class FactCheckOutcome:
    """Reviews found (deduplicated by URL), failures (one line each) and why nothing was asked."""

    reviews: list[Review] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    skipped: str | None = None


class FactCheckApi:
    """Google Fact Check Tools search for Vicaran. Safe to share across calls and tasks."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_base: float = BACKOFF_BASE_SECONDS,
        backoff_max: float = BACKOFF_MAX_SECONDS,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """`clock` times the backoff and the request budget (tests move it)."""
        self.settings = settings
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.clock = clock
        self._bound = LoopBound(settings.vicaran_concurrency)
        self._cache: dict[tuple[Any, ...], list[Review]] = {}

    async def search(
        self,
        queries: list[str],
        *,
        language: str = "en",
        page_size: int = 10,
        max_age_days: int | None = None,
    ) -> FactCheckOutcome:
        """Search every query concurrently (one page each); never raises.

        `language` is a BCP-47 tag of which only the language part is sent ("pt-BR" → "pt");
        an empty one searches every language. `max_age_days` None (or 0) means any age.
        """
        if not self.settings.factcheck_api_key.strip():
            return FactCheckOutcome(skipped=KEY_MISSING)
        outcome = FactCheckOutcome()
        cleaned = _clean_queries(queries)
        if not cleaned:
            return outcome
        params: dict[str, str] = {"pageSize": str(max(1, int(page_size)))}
        if code := language_part(language):
            params["languageCode"] = code
        if max_age_days:
            params["maxAgeDays"] = str(max(1, int(max_age_days)))
        results = await self._cached(cleaned, params)
        seen: set[str] = set()
        for result in results:
            if isinstance(result, str):
                if result not in outcome.failures:
                    outcome.failures.append(result)
                continue
            for review in result:
                key = normalize_url(review.url)
                if key not in seen:
                    seen.add(key)
                    outcome.reviews.append(review)
        return outcome

    async def _cached(self, queries: list[str], params: dict[str, str]) -> list[list[Review] | str]:
        """Each query's reviews; an identical query is asked once per instance (failures retry)."""
        keys = [(query.lower(), tuple(sorted(params.items()))) for query in queries]
        results: dict[tuple[Any, ...], list[Review] | str] = {
            k: self._cache[k] for k in keys if k in self._cache
        }
        missing = [(q, k) for q, k in zip(queries, keys, strict=True) if k not in results]
        if missing:
            async with self._http_client() as http:
                fresh = await asyncio.gather(
                    *(self._search_one(http, q, params) for q, _ in missing)
                )
            for (_, key), result in zip(missing, fresh, strict=True):
                results[key] = result
                if not isinstance(result, str):
                    self._cache[key] = result
        return [results[k] for k in keys]

    # --- one query -------------------------------------------------------------------------

    async def _search_one(
        self, http: httpx.AsyncClient, query: str, params: dict[str, str]
    ) -> list[Review] | str:
        """The reviews for one query, or a failure message."""

        async def call() -> list[Review]:
            async with self._bound.slot():
                body = await self._attempt(http, query, params)
            return _reviews(body, query)

        return await retried(
            call,
            retries=self.settings.vicaran_max_retries,
            backoff=self._backoff,
            service="Fact Check Tools",
            unexpected="factcheck_unexpected",
            clock=self.clock,
        )

    async def _attempt(
        self, http: httpx.AsyncClient, query: str, params: dict[str, str]
    ) -> dict[str, Any]:
        timeout = self.settings.vicaran_search_timeout_seconds
        await limiter(
            "factcheck",
            self.settings.vicaran_factcheck_rpm,
            self.settings.vicaran_rate_window_seconds,
            clock=self.clock,
        ).acquire()
        request_params = {"query": query, **params}
        # The key goes in a header, not the query string, so request logs never show it.
        key = {"X-Goog-Api-Key": self.settings.factcheck_api_key.strip()}
        try:
            async with asyncio.timeout(timeout):
                response = await http.get(
                    SEARCH_PATH, params=request_params, headers=key, timeout=timeout
                )
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise TransientError(
                Phrase("search_timed_out", service="Fact Check Tools", seconds=f"{timeout:g}"),
                Phrase("advice_timeout"),
            ) from exc
        except httpx.TransportError as exc:
            url = self.settings.factcheck_base_url
            raise TransientError.unreachable(
                "Fact Check Tools", url, "FACTCHECK_BASE_URL", exc
            ) from exc
        except AnswerTooLarge as exc:
            raise PermanentError(
                Phrase(
                    "answer_too_large",
                    service="Fact Check Tools",
                    limit=f"{exc.limit:,}",
                    setting="FACTCHECK_BASE_URL",
                    url=self.settings.factcheck_base_url,
                )
            ) from exc
        if response.status_code != 200:
            raise self._error(response, query)
        try:
            body = response.json()
        except (ValueError, UnicodeDecodeError) as exc:
            raise PermanentError(
                Phrase("factcheck_not_json", url=self.settings.factcheck_base_url)
            ) from exc
        if not isinstance(body, dict):
            raise PermanentError(Phrase("not_json", service="Fact Check Tools"))
        return body

    def _error(self, response: httpx.Response, query: str) -> Exception:
        """The exception for a non-200 answer (Google's error envelope, or anything else)."""
        status = response.status_code
        name, message, reasons, metadata = _envelope(response)
        if status == 429:
            return TransientError(
                Phrase("factcheck_rate_limited"),
                Phrase("advice_factcheck_quota"),
                parse_retry_after(response.headers.get("retry-after"), self.clock),
            )
        if status >= 500:
            return TransientError(
                Phrase("server_error", service="Fact Check Tools", status=status),
                Phrase("advice_try_later"),
                parse_retry_after(response.headers.get("retry-after"), self.clock),
            )
        if "SERVICE_DISABLED" in reasons:
            where = metadata.get("activationUrl") or ENABLE_API_URL
            return PermanentError(Phrase("factcheck_disabled", status=status, url=where))
        if "API_KEY_INVALID" in reasons or "api key not valid" in message.lower():
            return PermanentError(KEY_INVALID)
        key_reason = next((r for r in reasons if r.startswith("API_KEY_")), None)
        if key_reason:
            return PermanentError(
                Phrase(
                    "factcheck_key_restricted",
                    status=status,
                    reason=key_reason,
                    url=KEY_SETTINGS_URL,
                )
            )
        if "missing a valid api key" in message.lower():
            return PermanentError(Phrase("factcheck_no_key_sent", status=status))
        detail = f"{status} {name}: {_short(message)}" if name or message else str(status)
        if status == 400:
            return PermanentError(
                Phrase("factcheck_bad_query", query=_short(query, 60), detail=detail)
            )
        if status in (401, 403):
            return PermanentError(Phrase("factcheck_refused", detail=detail, url=ENABLE_API_URL))
        url = self.settings.factcheck_base_url
        return PermanentError.answered_http("Fact Check Tools", status, "FACTCHECK_BASE_URL", url)

    # --- helpers ---------------------------------------------------------------------------

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        return backoff_delay(attempt, retry_after, base=self.backoff_base, cap=self.backoff_max)

    def _http_client(self) -> httpx.AsyncClient:
        """Every answer read up to ANSWER_MAX_BYTES (decoded), then refused."""
        return capped_client(
            ANSWER_MAX_BYTES,
            base_url=self.settings.factcheck_base_url.rstrip("/"),
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            limits=httpx.Limits(max_connections=max(1, self.settings.vicaran_concurrency)),
        )


def language_part(language: str | None) -> str:
    """The language subtag of a BCP-47 tag, lower-case: "pt-BR" → "pt", "" → ""."""
    return (language or "").strip().replace("_", "-").split("-")[0].lower()


def _clean_queries(queries: list[str]) -> list[str]:
    cleaned: list[str] = []
    seen: set[str] = set()
    for query in queries:
        query = " ".join(str(query or "").split())[:MAX_QUERY_CHARS].rstrip()
        if query and query.casefold() not in seen:
            seen.add(query.casefold())
            cleaned.append(query)
    return cleaned


def _envelope(response: httpx.Response) -> tuple[str, str, list[str], dict[str, str]]:
    """status name, message, ErrorInfo reasons and metadata from Google's error envelope."""
    try:
        payload = json.loads(response.content or b"null")
    except (ValueError, UnicodeDecodeError):
        return "", "", [], {}
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return "", "", [], {}
    reasons: list[str] = []
    metadata: dict[str, str] = {}
    for detail in error.get("details") or []:
        if isinstance(detail, dict) and isinstance(detail.get("reason"), str):
            reasons.append(detail["reason"])
            if isinstance(detail.get("metadata"), dict):
                metadata.update({str(k): str(v) for k, v in detail["metadata"].items()})
    return str(error.get("status") or ""), str(error.get("message") or ""), reasons, metadata


def _reviews(body: dict[str, Any], query: str = "") -> list[Review]:
    """Every usable review in one `claims:search` answer (a missing `claims` is []).

    Each field is untrusted text: markers and links are removed as from a page, and it is cut
    to its length. A review whose address is not a plain http(s) URL is left out.
    """
    reviews: list[Review] = []
    for claim in body.get("claims") or []:
        if not isinstance(claim, dict):
            continue
        claim_text = _untrusted(claim.get("text"), CLAIM_CHARS)
        for review in claim.get("claimReview") or []:
            if not isinstance(review, dict):
                continue
            url = _review_url(review.get("url"))
            if not url:
                continue
            publisher = review.get("publisher")
            publisher = publisher if isinstance(publisher, dict) else {}
            site = _site(publisher.get("site")) or host_of(url)
            said = _untrusted(review.get("textualRating"))
            reviews.append(
                Review(
                    claim_text=claim_text,
                    claimant=_untrusted(claim.get("claimant"), CLAIMANT_CHARS) or None,
                    claim_date=_date(claim.get("claimDate")),
                    publisher=_untrusted(publisher.get("name"), PUBLISHER_CHARS) or site,
                    site=site,
                    url=url,
                    title=_untrusted(review.get("title"), TITLE_CHARS),
                    review_date=_date(review.get("reviewDate")),
                    rating=one_line(said, RATING_CHARS),
                    verdict=map_rating(said),  # read whole: "Falso: o vídeo é de 2019 …"
                    language=_text(review.get("languageCode"))[:16] or None,
                    query=query,
                )
            )
    return reviews


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _untrusted(value: Any, limit: int | None = None) -> str:
    """A review's text as a page's: no markers, invisible characters or links; one line."""
    text = _text(clean(value)) if isinstance(value, str) else ""
    return one_line(text, limit) if limit else text


def _review_url(value: Any) -> str:
    """The review's address when it is a plain http(s) URL (no spaces or markup), else ""."""
    url = value.strip() if isinstance(value, str) else ""
    if (
        not url.lower().startswith(("http://", "https://"))
        or len(url) > URL_CHARS
        or not host_of(url)
        or any(c.isspace() or not c.isprintable() or c in _NOT_IN_URL for c in url)
    ):
        return ""
    return url


def _site(value: Any) -> str:
    """The publisher's site when it is a host name ("aosfatos.org"), else ""."""
    site = _text(value).lower().removeprefix("www.")
    return site if 0 < len(site) <= 253 and set(site) <= _HOST_CHARS else ""


def _date(value: Any) -> str | None:
    return published_date(value) if isinstance(value, str) else None


_SPACE = re.compile(r"\s+")


def _short(text: str, limit: int = 120) -> str:
    text = _SPACE.sub(" ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
