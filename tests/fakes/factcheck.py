"""A loopback fake of Google Fact Check Tools `claims:search`, per external-apis.md §3.

    with FakeFactCheckTools([claim("The mayor resigned", "False")]) as fake:
        httpx.get(f"{fake.url}/v1alpha1/claims:search", params={"query": "mayor", "key": "test-key"})

Only `GET /v1alpha1/claims:search` exists (the colon is literal; `%3A` is accepted too); every
other route answers 404. The API key comes from the `key` query parameter or the
`X-Goog-Api-Key` header: missing → 403 PERMISSION_DENIED, wrong → 400 INVALID_ARGUMENT with an
`API_KEY_INVALID` ErrorInfo, in Google's standard error envelope.

Matching rule: the query's significant words are its words of 4+ letters (all its words when it
has none); a claim matches when at least half of them (rounded up) appear as words of the
claim's `text`. Words are compared case- and accent-insensitively. `languageCode` keeps only
reviews whose `languageCode` has the same language part ("pt-BR" matches "pt");
`reviewPublisherSiteFilter` keeps only reviews whose publisher site is that domain or a
subdomain of it; `maxAgeDays` keeps claims whose newer of claim date and review date is recent
enough. A claim left without reviews is dropped. No match answers `{}`.

Failures are injected with `fail(kind, times=N, query=substring)`: a status (429
RESOURCE_EXHAUSTED, 500 INTERNAL, 503 UNAVAILABLE, any other code), "service_disabled" (403
with a SERVICE_DISABLED ErrorInfo) or "hang". They apply after the key check.

Errors carry the details Google sends with them, in its order (tests/fixtures/contracts/
factcheck/error-*.http): a bad key an ErrorInfo and a LocalizedMessage, a disabled API an ErrorInfo
(activation URL, consumer, project, service and its title), a LocalizedMessage and a Help link, a
quota refusal an ErrorInfo with the quota's metric and limit and a Help link. A client that reads
only the first detail, or expects one, finds out here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import unquote

from tests.fakes.server import FailureQueue, FakeServer, RecordedRequest, Response

Claim = dict[str, Any]

DEFAULT_API_KEY = "test-key"
ROUTE = "/v1alpha1/claims:search"
SERVICE = "factchecktools.googleapis.com"
DEFAULT_PAGE_SIZE = 10
PROJECT_NUMBER = "123456789012"

_JSON = "application/json; charset=UTF-8"
_PARAMS = {"query", "languageCode", "reviewPublisherSiteFilter", "maxAgeDays", "pageSize"}
_PARAMS |= {"pageToken", "offset", "key"}
_STANDARD = {"fields", "prettyPrint", "alt", "quotaUser", "$.xgafv", "callback", "access_token"}
_INT_PARAMS = {"maxAgeDays": "max_age_days", "pageSize": "page_size", "offset": "offset"}

_STATUSES = {
    400: ("INVALID_ARGUMENT", "Request contains an invalid argument."),
    401: ("UNAUTHENTICATED", "Request had invalid authentication credentials."),
    403: ("PERMISSION_DENIED", "The caller does not have permission"),
    404: ("NOT_FOUND", "Requested entity was not found."),
    429: (
        "RESOURCE_EXHAUSTED",
        "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' "
        f"of service '{SERVICE}' for consumer 'project_number:{PROJECT_NUMBER}'.",
    ),
    500: ("INTERNAL", "Internal error encountered."),
    503: ("UNAVAILABLE", "The service is currently unavailable."),
}

_NOT_FOUND_HTML = (
    "<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>Error 404 (Not Found)!!1</title>"
    "<p><b>404.</b> <ins>That’s an error.</ins><p>The requested URL <code>{path}</code> was "
    "not found on this server. <ins>That’s all we know.</ins>\n"
)


def claim(
    text: str,
    rating: str,
    *,
    publisher: str = "Aos Fatos",
    site: str = "aosfatos.org",
    url: str | None = None,
    title: str | None = None,
    language: str = "pt",
    claimant: str | None = None,
    claim_date: str | None = None,
    review_date: str | None = "2024-06-01T12:00:00Z",
) -> Claim:
    """One claim with one review, in the response shape (None fields are left out)."""
    slug = re.sub(r"[^a-z0-9]+", "-", _fold(text)).strip("-")[:60] or "claim"
    review: dict[str, Any] = {
        "publisher": {"name": publisher, "site": site},
        "url": url or f"https://www.{site}/checagem/{slug}",
        "title": title,
        "reviewDate": review_date,
        "textualRating": rating,
        "languageCode": language,
    }
    shaped: Claim = {
        "text": text,
        "claimant": claimant,
        "claimDate": claim_date,
        "claimReview": [{k: v for k, v in review.items() if v is not None}],
    }
    return {k: v for k, v in shaped.items() if v is not None}


@dataclass
class _Failure:
    kind: int | str  # an HTTP status, "service_disabled" or "hang"
    remaining: int | None  # None: until cleared
    query: str | None  # only requests whose query contains this (case-insensitive)
    message: str | None
    retry_after: str | None


class FakeFactCheckTools(FakeServer):
    """Fake Fact Check Tools: checks the API key, answers `claims:search` from a claim corpus."""

    def __init__(
        self,
        claims: list[Claim] | None = None,
        *,
        api_key: str = DEFAULT_API_KEY,
        now: datetime | None = None,
        latency: float = 0.0,
        clock: Any = None,
    ) -> None:
        super().__init__(latency=latency, clock=clock)
        self.claims: list[Claim] = list(claims or [])
        self.api_key = api_key
        self.now = now  # "today" for maxAgeDays (None: the real clock)
        self._failures: FailureQueue[_Failure] = FailureQueue()

    # --- failure injection -----------------------------------------------------------------

    def fail(
        self,
        kind: int | str,
        *,
        times: int | None = None,
        query: str | None = None,
        message: str | None = None,
        retry_after: int | str | None = None,
    ) -> None:
        """Make requests fail: a status (429/500/503/…), "service_disabled" or "hang".

        `times`: only the next N matching requests; `query`: only requests whose query
        contains this text; `retry_after`: a Retry-After header for the error (Google usually
        sends none). Rules are checked in the order they were added.
        """
        if kind not in ("hang", "service_disabled") and not isinstance(kind, int):
            raise ValueError(f"unknown failure kind {kind!r}")
        after = None if retry_after is None else str(retry_after)
        self._failures.add(_Failure(kind, times, query, message, after))

    def clear_failures(self) -> None:
        self._failures.clear()

    def _take_failure(self, query: str) -> _Failure | None:
        return self._failures.take(lambda f: not f.query or f.query.lower() in query.lower())

    # --- what tests look at ----------------------------------------------------------------

    def searches(self) -> list[dict[str, str]]:
        """The query parameters of every `claims:search` request (first value of each)."""
        return [
            {name: values[0] for name, values in r.query.items()}
            for r in self.requests
            if unquote(r.path) == ROUTE
        ]

    # --- the API ---------------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Response:
        if unquote(request.path) != ROUTE or request.method not in ("GET", "HEAD"):
            return Response.text(
                404, _NOT_FOUND_HTML.format(path=request.path), "text/html; charset=UTF-8"
            )
        params = {name: values[-1] for name, values in request.query.items()}
        key = params.get("key") or request.header("x-goog-api-key") or ""
        if not key:
            return error(403, "The request is missing a valid API key.")
        if key != self.api_key:
            message = "API key not valid. Please pass a valid API key."
            details = [_error_info("API_KEY_INVALID"), _localized(message)]
            return error(400, message, details=details)
        if request.body:
            return error(400, "Invalid JSON payload received. GET requests take no body.")
        for name in params:
            if name not in _PARAMS and name not in _STANDARD:
                return error(
                    400,
                    f'Invalid JSON payload received. Unknown name "{name}": Cannot bind query '
                    f"parameter. Field '{name}' could not be found in request message.",
                    details=[_bad_request(name, f'Unknown name "{name}"')],
                )
        numbers: dict[str, int] = {}
        for name, field_name in _INT_PARAMS.items():
            if params.get(name, "") == "":
                continue
            try:
                numbers[name] = int(params[name])
            except ValueError:
                text = params[name]
                return error(
                    400,
                    f"Invalid value at '{field_name}' (TYPE_INT32), \"{text}\"",
                    details=[
                        _bad_request(field_name, f"Invalid value at '{field_name}' \"{text}\"")
                    ],
                )
        query = params.get("query", "")
        if not query.strip() and not params.get("reviewPublisherSiteFilter", "").strip():
            return error(400, "Request contains an invalid argument.")
        failure = self._take_failure(query)
        if failure is not None:
            return self._failure_response(failure)
        return self._search(params, numbers)

    def _failure_response(self, failure: _Failure) -> Response:
        if failure.kind == "hang":
            return Response(hang=True)
        headers = {"Retry-After": failure.retry_after} if failure.retry_after else {}
        if failure.kind == "service_disabled":
            message = failure.message or (
                f"Fact Check Tools API has not been used in project {PROJECT_NUMBER} before or "
                "it is disabled. Enable it by visiting https://console.developers.google.com/"
                f"apis/api/{SERVICE}/overview?project={PROJECT_NUMBER} then retry. If you "
                "enabled this API recently, wait a few minutes for the action to propagate to "
                "our systems and retry."
            )
            activation = (
                f"https://console.developers.google.com/apis/api/{SERVICE}/overview"
                f"?project={PROJECT_NUMBER}"
            )
            info = _error_info(
                "SERVICE_DISABLED",
                activationUrl=activation,
                consumer=f"projects/{PROJECT_NUMBER}",
                containerInfo=PROJECT_NUMBER,
                serviceTitle="Fact Check Tools API",
            )
            details = [
                info,
                _localized(message),
                _help("Google developers console API activation", activation),
            ]
            return error(403, message, details=details, headers=headers)
        status = int(failure.kind)
        details = None
        if status == 429:
            quota = _error_info(
                "RATE_LIMIT_EXCEEDED",
                consumer=f"projects/{PROJECT_NUMBER}",
                quota_limit="ReadRequestsPerMinutePerProject",
                quota_limit_value="60",
                quota_location="global",
                quota_metric=f"{SERVICE}/read_requests",
            )
            help_ = _help(
                "Request a higher quota limit.",
                "https://cloud.google.com/docs/quotas/help/request_increase",
            )
            details = [quota, help_]
        return error(status, failure.message, details=details, headers=headers)

    def _search(self, params: dict[str, str], numbers: dict[str, int]) -> Response:
        page_size = numbers.get("pageSize", 0)
        if page_size < 0 or numbers.get("offset", 0) < 0 or numbers.get("maxAgeDays", 0) < 0:
            return error(400, "Request contains an invalid argument.")
        page_size = page_size or DEFAULT_PAGE_SIZE
        signature = _signature(params)
        token = params.get("pageToken", "")
        if token:
            offset = _read_token(token, signature)
            if offset is None:
                return error(400, "Request contains an invalid argument.")
        else:
            offset = numbers.get("offset", 0)
        matches = self._matches(params, numbers.get("maxAgeDays"))
        page = matches[offset : offset + page_size]
        payload: dict[str, Any] = {}
        if page:
            payload["claims"] = page
            if offset + page_size < len(matches):
                payload["nextPageToken"] = _make_token(offset + page_size, signature)
        pretty = params.get("prettyPrint", "true").lower() not in ("false", "0")
        text = json.dumps(payload, indent=2 if pretty else None, ensure_ascii=False)
        return Response(200, {"Content-Type": _JSON}, text.encode())

    def _matches(self, params: dict[str, str], max_age_days: int | None) -> list[Claim]:
        words = _words(params.get("query", ""))
        wanted = {w for w in words if len(w) >= 4} or set(words)
        needed = math.ceil(len(wanted) / 2)
        language = _language(params.get("languageCode", ""))
        site = params.get("reviewPublisherSiteFilter", "").strip().lower().removeprefix("www.")
        oldest = None
        if max_age_days is not None:
            oldest = (self.now or datetime.now(UTC)) - timedelta(days=max_age_days)
        found: list[Claim] = []
        for item in self.claims:
            if wanted and len(wanted & set(_words(str(item.get("text") or "")))) < needed:
                continue
            reviews = [
                review
                for review in item.get("claimReview") or []
                if (not language or _language(str(review.get("languageCode") or "")) == language)
                and (not site or _site_matches(review, site))
            ]
            if not reviews:
                continue
            if oldest is not None and not _recent(item, reviews, oldest):
                continue
            found.append({**item, "claimReview": reviews})
        return found


def error(
    status: int,
    message: str | None = None,
    *,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """Google's standard JSON error envelope."""
    name, default = _STATUSES.get(status, ("UNKNOWN", "Unknown error."))
    body: dict[str, Any] = {"code": status, "message": message or default, "status": name}
    if details:
        body["details"] = details
    text = json.dumps({"error": body}, indent=2)
    return Response(status, {"Content-Type": _JSON, **(headers or {})}, text.encode())


def _error_info(reason: str, **metadata: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": "googleapis.com",
        "metadata": {"service": SERVICE, **metadata},
    }


def _localized(message: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
        "locale": "en-US",
        "message": message,
    }


def _help(description: str, url: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.Help",
        "links": [{"description": description, "url": url}],
    }


def _bad_request(field_name: str, description: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": field_name, "description": description}],
    }


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", _fold(text))


def _language(code: str) -> str:
    return code.strip().replace("_", "-").split("-")[0].lower()


def _site_matches(review: dict[str, Any], site: str) -> bool:
    publisher = review.get("publisher") or {}
    host = str(publisher.get("site") or "").lower().removeprefix("www.")
    return host == site or host.endswith("." + site)


def _recent(item: Claim, reviews: list[dict[str, Any]], oldest: datetime) -> bool:
    dates = [_parse(item.get("claimDate"))] + [_parse(r.get("reviewDate")) for r in reviews]
    known = [d for d in dates if d is not None]
    return bool(known) and max(known) >= oldest


def _parse(value: Any) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _signature(params: dict[str, str]) -> str:
    same = {k: v for k, v in params.items() if k in _PARAMS - {"pageToken", "offset", "key"}}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()[:8]


def _make_token(offset: int, signature: str) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{signature}".encode()).decode().rstrip("=")


def _read_token(token: str, signature: str) -> int | None:
    """The offset a page token stands for, or None when it is foreign or stale."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        offset, _, signed = raw.partition(":")
        return int(offset) if signed == signature and int(offset) >= 0 else None
    except ValueError:
        return None
