"""A loopback fake of the Tavily API (POST /search, /extract; GET /usage), per external-apis.md §1.

    with FakeTavily(results=[{"url": "https://a.org/x", "title": "A", "content": "..."}]) as fake:
        client = AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)

Failures are injected at runtime with `fail(...)`, optionally for the next N requests only.
By default the fake's domain filter leaks like the real one (it ignores `exclude_domains` and
treats `include_domains` as a preference); pass `honour_domain_filters=True` for a strict filter.

Dates as the real API gives them: `published_date` only with `topic="news"` (tavily-python's
README until 0.7.x: "only available if you are using news"; a captured news answer, external-
apis.md §1), as an RFC 1123 date ("Fri, 28 Nov 2025 06:34:57 GMT"; a corpus's ISO day is sent
in that form). A news search keeps only items published within `days` of `today` (3 when the
request does not say: help.tavily.com, "How can I filter the results by date?", 2025-08); an
item without a date is not news and never comes back from one. A general search has no dates.

`GET /usage` (docs.tavily.com/documentation/api-reference/endpoint/usage) answers the key's and
the account's credits: `{"key": {"usage", "limit"}, "account": {"current_plan", "plan_usage",
"plan_limit", "paygo_usage", "paygo_limit"}}`; every search and extract spends credits (a basic
search 1, an advanced one 2, 1 per 5 extracted URLs), and a key whose `key_limit` is spent gets
432 on them, as the real API answers.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.server import FailureQueue, FakeServer, RecordedRequest, Response

Result = dict[str, Any]
Overrides = dict[str, list[Result]] | Callable[[str, dict[str, Any]], list[Result] | None]

DEFAULT_API_KEY = "tvly-test"

_ERROR_MESSAGES = {
    400: "Invalid request: check the query and parameters.",
    401: "Unauthorized: missing or invalid API key.",
    403: "Forbidden: this request is not allowed for your plan.",
    429: "Your request has been blocked due to excessive requests. Please reduce rate.",
    432: "This request exceeds your plan's set usage limit. Please upgrade your plan.",
    433: "This request exceeds the pay-as-you-go limit. Increase your limit in the dashboard.",
}

_TOPICS = {"general", "news", "finance"}
NEWS_DEFAULT_DAYS = 3  # the window of a news search that names no `days`
_DEPTHS = {"basic", "advanced", "fast", "ultra-fast"}


@dataclass
class _Failure:
    kind: int | str  # an HTTP status, or "hang"
    remaining: int | None  # None: until cleared
    query: str | None  # only requests whose query contains this (case-insensitive)
    message: str | None
    retry_after: str


class FakeTavily(FakeServer):
    """Fake Tavily: checks `Authorization: Bearer <api_key>`, answers from a result corpus."""

    def __init__(
        self,
        results: list[Result] | None = None,
        *,
        overrides: Overrides | None = None,
        api_key: str = DEFAULT_API_KEY,
        honour_domain_filters: bool = False,
        extract_pages: dict[str, str] | None = None,
        key_limit: int | None = None,
        plan: str = "Researcher",
        plan_limit: int = 1000,
        latency: float = 0.0,
        clock: Any = None,
        today: date | None = None,
    ) -> None:
        super().__init__(latency=latency, clock=clock)
        self.today = today  # None: the real date, as the service uses
        self.key_limit = key_limit  # credits this key may spend a month (None: no limit)
        self.plan = plan
        self.plan_limit = plan_limit
        self.credits_used = 0
        self.results: list[Result] = list(results or [])
        self.overrides = overrides
        self.api_key = api_key
        self.honour_domain_filters = honour_domain_filters
        self.extract_pages: dict[str, str] = dict(extract_pages or {})
        self._failures: FailureQueue[_Failure] = FailureQueue()

    # --- failure injection -----------------------------------------------------------------

    def fail(
        self,
        kind: int | str,
        *,
        times: int | None = None,
        query: str | None = None,
        message: str | None = None,
        retry_after: int | str = 1,
    ) -> None:
        """Make requests fail: a status (400/401/403/429/432/433/500/502/…) or "hang".

        `times`: only the next N matching requests; `query`: only requests whose query
        contains this text. Rules are checked in the order they were added.
        """
        if kind != "hang" and not isinstance(kind, int):
            raise ValueError(f"unknown failure kind {kind!r}")
        self._failures.add(_Failure(kind, times, query, message, str(retry_after)))

    def clear_failures(self) -> None:
        self._failures.clear()

    def _take_failure(self, query: str) -> _Failure | None:
        return self._failures.take(lambda f: not f.query or f.query.lower() in query.lower())

    # --- the API -------------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Response:
        route = (request.method, request.path)
        if route not in (("POST", "/search"), ("POST", "/extract"), ("GET", "/usage")):
            return Response.json(404, {"detail": "Not Found"})
        auth = request.header("authorization") or ""
        if auth != f"Bearer {self.api_key}":
            return _error(401, None)
        if request.path == "/usage":
            return self._usage()
        if self.key_limit is not None and self.credits_used >= self.key_limit:
            return _error(432, None)
        body = request.json if isinstance(request.json, dict) else None
        if body is None:
            return _error(400, "Invalid JSON body.")
        query = str(body.get("query") or "")
        failure = self._take_failure(query)
        if failure is not None:
            if failure.kind == "hang":
                return Response(hang=True)
            return _error(int(failure.kind), failure.message, failure.retry_after)
        if request.path == "/extract":
            return self._extract(body)
        return self._search(body)

    def _search(self, body: dict[str, Any]) -> Response:
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            return _error(400, "Query is missing.")
        topic = body.get("topic", "general")
        if topic not in _TOPICS:
            return _error(400, f"Invalid topic. Must be one of {sorted(_TOPICS)}.")
        if body.get("search_depth", "basic") not in _DEPTHS:
            return _error(400, "Invalid search depth.")
        max_results = body.get("max_results", 5)
        if not isinstance(max_results, int) or not 0 <= max_results <= 20:
            return _error(400, "max_results must be between 0 and 20.")
        days = body.get("days", NEWS_DEFAULT_DAYS)
        if not isinstance(days, int) or days < 0:
            return _error(400, "days must be a positive integer.")
        results = self._results_for(query, body)
        news = topic == "news"
        if news:
            today = self.today or datetime.now(UTC).date()
            results = [r for r in results if _within(_published(r), today, days)]
        results = self._filter_domains(
            results, body.get("include_domains") or [], body.get("exclude_domains") or []
        )
        raw = bool(body.get("include_raw_content"))
        payload = {
            "query": query,
            "follow_up_questions": None,
            "answer": "A short answer." if body.get("include_answer") else None,
            "images": [],
            "results": [_shape(r, i, raw, news) for i, r in enumerate(results[:max_results])],
            "response_time": 0.01,
            "request_id": str(uuid.uuid4()),
        }
        credits = 2 if body.get("search_depth") == "advanced" else 1
        self._spend(credits)
        if body.get("include_usage"):
            payload["usage"] = {"credits": credits}
        return Response.json(200, payload)

    def _spend(self, credits: int) -> None:
        with self._lock:
            self.credits_used += credits

    def _usage(self) -> Response:
        with self._lock:
            used = self.credits_used
        return Response.json(
            200,
            {
                "key": {"usage": used, "limit": self.key_limit},
                "account": {
                    "current_plan": self.plan,
                    "plan_usage": used,
                    "plan_limit": self.plan_limit,
                    "paygo_usage": 0,
                    "paygo_limit": None,
                },
            },
        )

    def _results_for(self, query: str, body: dict[str, Any]) -> list[Result]:
        if callable(self.overrides):
            chosen = self.overrides(query, body)
            if chosen is not None:
                return list(chosen)
        elif self.overrides:
            for key, chosen in self.overrides.items():
                if key.lower() in query.lower():
                    return list(chosen)
        return list(self.results)

    def _filter_domains(
        self, results: list[Result], include: list[str], exclude: list[str]
    ) -> list[Result]:
        if self.honour_domain_filters:
            if include:
                results = [r for r in results if _in_domains(r["url"], include)]
            return [r for r in results if not _in_domains(r["url"], exclude)]
        # Leaky, like the real API: exclusions ignored, inclusions only preferred.
        if include:
            preferred = [r for r in results if _in_domains(r["url"], include)]
            return preferred + [r for r in results if not _in_domains(r["url"], include)]
        return results

    def _extract(self, body: dict[str, Any]) -> Response:
        urls = body.get("urls")
        if isinstance(urls, str):
            urls = [urls]
        if not isinstance(urls, list) or not urls:
            return _error(400, "urls is missing.")
        if len(urls) > 20:
            return _error(400, "Max 20 URLs are allowed.")
        results, failed = [], []
        for url in urls:
            if url in self.extract_pages:
                results.append({"url": url, "raw_content": self.extract_pages[url], "images": []})
            else:
                failed.append({"url": url, "error": "Failed to fetch url"})
        self._spend(-(-len(results) // 5))  # 1 credit per 5 successful extractions
        return Response.json(
            200,
            {
                "results": results,
                "failed_results": failed,
                "response_time": 0.01,
                "request_id": str(uuid.uuid4()),
            },
        )


def _error(status: int, message: str | None, retry_after: str = "1") -> Response:
    if status in _ERROR_MESSAGES or 400 <= status < 500:
        headers = {"retry-after": retry_after} if status == 429 else {}
        text = message or _ERROR_MESSAGES.get(status, "Request failed.")
        return Response.json(status, {"detail": {"error": text}}, headers)
    # 5xx: a plain body, as a proxy or crashed worker would send.
    return Response.text(status, message or "Internal Server Error", "text/plain")


def _published(result: Result) -> datetime | None:
    """A corpus item's publication time: an RFC 1123 date or an ISO day/time (UTC if naive)."""
    value = str(result.get("published_date") or "").strip()
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        when = datetime.fromisoformat(value)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _within(published: datetime | None, today: date, days: int) -> bool:
    return published is not None and (today - published.date()).days <= days


def _shape(result: Result, index: int, raw: bool, news: bool) -> Result:
    shaped: Result = {
        "url": result["url"],
        "title": result.get("title", ""),
        "score": float(result.get("score", round(0.9 - 0.05 * index, 4))),
    }
    published = _published(result) if news else None
    if published is not None:
        shaped["published_date"] = format_datetime(published.astimezone(UTC), usegmt=True)
    shaped["content"] = result.get("content", "")
    shaped["raw_content"] = result.get("raw_content", result.get("content", "")) if raw else None
    return shaped


def _in_domains(url: str, domains: list[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    for domain in domains:
        domain = domain.lower().strip().removeprefix("www.")
        if host == domain or host.endswith("." + domain) or host == "www." + domain:
            return True
    return False
