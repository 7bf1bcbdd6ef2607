"""One benchmark investigation, in its own process; prints one JSON object on stdout.

    uv run python -m benchmarks.scenario --mode quick --sources 15 --claims 5 --latency 0.5

The real root agent runs through ADK's Runner with the scripted model (`latency-<ms>` in its
name: L for the fast model, 1.5·L for the pro model) against loopback fakes that inject latency:
Tavily 0.3 s, Jina Reader 0.5 s, Fact Check Tools 0.2 s, the newsroom callback API 0.05 s.
`--serial` sets every concurrency bound to 1; `--rate-limited` makes Tavily refuse more than
RATE_LIMIT requests in any one-second window (429 + Retry-After) and answer the very first
search 429 too, with Vicaran's Tavily budget set to the same limit and window. `--rewrite`
makes the report's first draft contradict a recorded verdict, so the report is rewritten once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import resource
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Never read a developer's .env (set before anything imports ADK or Vicaran).
os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"

from benchmarks.corpus import BRIEF, Story, generate
from tests.fakes.factcheck import FakeFactCheckTools
from tests.fakes.jina import FakeJinaReader
from tests.fakes.newsroom import FakeNewsroom
from tests.fakes.server import FakeServer, RecordedRequest, Response
from tests.fakes.tavily import FakeTavily

LATENCY = {"tavily": 0.3, "jina": 0.5, "factcheck": 0.2, "newsroom": 0.05}
STORIES = ("acme", "batches")
BATCH_LATENCY = 0.4  # x L: every fake's answer time in the batches story
BATCH_EXTRA_PAGES = 30  # pages the brief's searches return beyond the source limit
MODE_SOURCES = {"quick": 15, "detailed": 30}
RATE_LIMIT = 4  # requests per second the rate-limited Tavily accepts
DRAIN_SECONDS = 90.0
JINA_KEY = "jina-bench"
_PREFIXES = ("VICARAN_", "TAVILY_", "JINA_", "GOOGLE_", "CALLBACK_", "AGENT_", "FACTCHECK_")


class RateLimitedTavily(FakeTavily):
    """FakeTavily that answers 429 + Retry-After past `max_requests` per sliding window."""

    def __init__(self, *args: Any, max_requests: int, per_seconds: float = 1.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.max_requests = max_requests
        self.per_seconds = per_seconds
        self._admitted: list[float] = []
        self._window_lock = threading.Lock()

    def handle(self, request: RecordedRequest) -> Response:
        with self._window_lock:
            since = request.started - self.per_seconds
            self._admitted = [t for t in self._admitted if t > since]
            if len(self._admitted) >= self.max_requests:
                wait = self._admitted[0] + self.per_seconds - request.started
                retry_after = str(max(1, math.ceil(wait)))
                error = {"detail": {"error": "Your request has been blocked: too many requests."}}
                return Response.json(429, error, {"Retry-After": retry_after})
            self._admitted.append(request.started)
        return super().handle(request)


class BatchedTavily(FakeTavily):
    """FakeTavily whose brief searches answer one `step` after another (the story's batches)."""

    def __init__(self, story: Story, *args: Any, step: float, **kw: Any) -> None:
        super().__init__(*args, overrides=story.search, **kw)
        self.story, self.step = story, step

    def handle(self, request: RecordedRequest) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        batch = self.story.batch_of(str(body.get("query") or ""))
        if batch:
            self.wait(batch * self.step)
        return super().handle(request)


def _configure(
    args: argparse.Namespace,
    services: dict[str, FakeServer],
    database_url: str,
) -> None:
    """The environment tests/conftest.py builds, with the benchmark's latencies and bounds."""
    for name in list(os.environ):
        if name.startswith(_PREFIXES):
            del os.environ[name]
    latency_ms = round(args.latency * 1000)
    pro = 1.0 if args.story == "batches" else 1.5  # the pro model's latency, in L
    values = {
        "ADK_DISABLE_LOAD_DOTENV": "1",
        "VICARAN_FAST_MODEL": f"scripted/latency-{latency_ms}",
        "VICARAN_PRO_MODEL": f"scripted/latency-{round(pro * latency_ms)}"
        + ("+contradicts-verdict" if args.rewrite else ""),
        "TAVILY_API_KEY": "tvly-test",
        "TAVILY_BASE_URL": services["tavily"].url,
        "JINA_API_KEY": JINA_KEY,
        "JINA_READER_BASE_URL": services["jina"].url,
        "FACTCHECK_API_KEY": "test-key",
        "FACTCHECK_BASE_URL": services["factcheck"].url,
        "CALLBACK_API_URL": services["newsroom"].url + "/api/agent-callback",
        "AGENT_SECRET": "bench-secret",
        "VICARAN_DATABASE_URL": database_url,
        "VICARAN_LIVE_SEARCH_FALLBACK": "false",
        "VICARAN_TAVILY_RPM": "1000",
        "VICARAN_JINA_RPM": "200",
        "VICARAN_FACTCHECK_RPM": "1000",
        "VICARAN_CONCURRENCY": "64",
        "VICARAN_DIGEST_CONCURRENCY": "64",
        "VICARAN_CLAIM_CONCURRENCY": "32",
    }
    if args.story == "batches":  # Vicaran's own bounds and budgets, as a newsroom runs it
        for name in ("VICARAN_TAVILY_RPM", "VICARAN_JINA_RPM", "VICARAN_FACTCHECK_RPM"):
            del values[name]
        for name in (
            "VICARAN_CONCURRENCY",
            "VICARAN_DIGEST_CONCURRENCY",
            "VICARAN_CLAIM_CONCURRENCY",
        ):
            del values[name]
    if args.sources != MODE_SOURCES[args.mode]:
        values["VICARAN_SOURCE_LIMIT"] = str(args.sources)
    if args.rate_limited:
        # Vicaran's budget: the fake's limit, counted over the same 1-second window.
        values["VICARAN_TAVILY_RPM"] = str(RATE_LIMIT * 60)
        values["VICARAN_RATE_WINDOW_SECONDS"] = "1"
        # the window applies to every service: keep the others' budgets out of the way
        values["VICARAN_JINA_RPM"] = values["VICARAN_FACTCHECK_RPM"] = "60000"
    if args.no_archive:
        values["VICARAN_ARCHIVE_PAGES"] = "false"
    if args.serial:
        from vicaran_agent.config import Settings

        for field in Settings.model_fields:
            if field.endswith("concurrency"):
                values[field.upper()] = "1"
    os.environ.update(values)


async def _investigate(args: argparse.Namespace, newsroom: FakeNewsroom) -> dict[str, Any]:
    from tests.support import scripted_model
    from tests.support.conversation import Conversation
    from vicaran_agent import delivery
    from vicaran_agent import state_keys as keys
    from vicaran_agent.config import forget_settings, get_settings
    from vicaran_agent.storage import get_repository

    forget_settings()
    scripted_model.reset_calls()
    conversation = Conversation()
    brief = ("Quick Search. " if args.mode == "quick" else "") + BRIEF
    if args.document_pages:
        brief += f"\nCollection: {BENCH_COLLECTION}"
    started = time.monotonic()
    await conversation.send(brief)
    plan_done = time.monotonic()
    assert conversation.session_id is not None
    authors: dict[str, list[float]] = {}
    last_event = approved = time.monotonic()
    async for event in conversation.runner.run_async(
        user_id="journalist",
        session_id=conversation.session_id,
        new_message=_user("APPROVED"),
    ):
        last_event = time.monotonic()
        window = authors.setdefault(event.author, [last_event - approved, 0.0])
        window[1] = last_event - approved
    state = await conversation.state()

    repository = get_repository(get_settings().database_url)
    drain_started = time.monotonic()
    outbox = repository.outbox_summary().counts
    while outbox.pending and time.monotonic() - drain_started < DRAIN_SECONDS:
        delivery.kick()
        await asyncio.sleep(0.1)
        outbox = repository.outbox_summary().counts
    drained = time.monotonic() - drain_started
    await delivery.stop_delivery()

    verdicts = state.get(keys.VERDICT_RECORDS) or []
    sources = state.get(keys.SOURCE_RECORDS) or []
    quality = state.get(keys.REPORT_QUALITY) or {}
    decided = [v for v in verdicts if v["verdict"] != "unverified"]
    return {
        "report_rewrites": quality.get("rewrites"),
        "report_audited": quality.get("audited"),
        # every decided verdict rests on an independent item with a quote (DESIGN, Evidence rule)
        "decided_with_independent_quote": sum(
            any(e["independent"] and e["quote"] and e["stance"] != "context" for e in v["evidence"])
            for v in decided
        ),
        "decided": len(decided),
        "plan_wall_s": round(plan_done - started, 3),
        "wall_s": round(last_event - approved, 3),
        "approved_at": approved,
        "status": state.get(keys.INVESTIGATION_STATUS),
        "partial_reason": str(state.get(keys.PARTIAL_REASON) or "")[:400],
        "issues": {k: v for k, v in state.items() if k.startswith("issues_") and v},
        "sources": len(sources),
        "sources_readable": sum(bool(s.get("is_reachable")) for s in sources),
        "claims": len(state.get(keys.CLAIM_RECORDS) or []),
        "verdicts": len(verdicts),
        "verdict_labels": dict(Counter(v["verdict"] for v in verdicts)),
        "iterations": dict(sorted(Counter(v["iterations"] for v in verdicts).items())),
        "sufficient": sum(bool(v.get("sufficient")) for v in verdicts),
        "timeline_events": len(state.get(keys.TIMELINE_RECORDS) or []),
        "stage_windows": {a: [round(x, 2) for x in w] for a, w in authors.items()},
        "outbox": outbox.model_dump(),
        "outbox_drain_s": round(drained, 2),
        "newsroom_types": dict(Counter(newsroom.types())),
        "document_sources": sum(s.get("origin") == "document" for s in sources),
        "document_evidence": sum(
            e.get("origin") == "document" for v in verdicts for e in v["evidence"]
        ),
        **_archived(repository, state.get(keys.INVESTIGATION_ID) or ""),
    }


def _archived(repository: Any, investigation_id: str) -> dict[str, int]:
    """How many pages the run archived, and the bytes kept for them."""
    ids = repository.capture_ids(investigation_id)
    kept = repository.get_captures(investigation_id, ids.values())
    return {"pages_archived": len(kept), "archive_bytes": sum(map(len, kept.values()))}


STORE_CALLS: list[tuple[str, float, float]] = []  # (Repository method, start, end)
_STORE_METHODS = (
    "start_investigation", "save_sources", "save_claims", "save_verdicts", "save_bias",
    "save_timeline", "finish_investigation",
)  # fmt: skip


def _time_store() -> None:
    """Record how long each save of the records store takes (this process only)."""
    from vicaran_agent.storage.repository import Repository

    def timed(name: str, method: Any) -> Any:
        def wrapper(self: Any, *args: Any, **kw: Any) -> Any:
            start = time.monotonic()
            try:
                return method(self, *args, **kw)
            finally:
                STORE_CALLS.append((name, start, time.monotonic()))

        return wrapper

    for name in _STORE_METHODS:
        setattr(Repository, name, timed(name, getattr(Repository, name)))


HTTP_CLIENTS: list[tuple[float, float]] = []  # (start, end) of each httpx.AsyncClient()


def _time_http_clients() -> None:
    """Count httpx.AsyncClient constructions and their cost (each builds an SSL context)."""
    import httpx

    original = httpx.AsyncClient.__init__

    def init(self: Any, *args: Any, **kw: Any) -> None:
        start = time.monotonic()
        original(self, *args, **kw)
        HTTP_CLIENTS.append((start, time.monotonic()))

    httpx.AsyncClient.__init__ = init  # type: ignore[method-assign]


def _store_figures(approved: float) -> dict[str, list[float]]:
    """Each save during the run: [start, seconds], relative to the approval."""
    return {
        name: [round(start - approved, 2), round(end - start, 3)]
        for name, start, end in STORE_CALLS
        if start >= approved
    }


def _user(text: str) -> Any:
    from google.genai import types

    return types.Content(role="user", parts=[types.Part(text=text)])


def _model_figures(latency: float, approved: float) -> dict[str, Any]:
    from tests.support import scripted_model

    calls = list(scripted_model.CALLS)
    spans = []
    for call in calls:
        found = re.search(r"latency-(\d+)", call["model"])
        seconds = int(found.group(1)) / 1000 if found else 0.0
        spans.append((call["time"] - approved, call["time"] - approved + seconds, call["task"]))
    run = [s for s in spans if s[0] >= 0]
    windows: dict[str, list[float]] = {}
    for start, end, task in run:
        window = windows.setdefault(task, [0, start, end])
        window[0] += 1
        window[1], window[2] = min(window[1], start), max(window[2], end)
    largest = max(calls, key=lambda c: c["chars"]) if calls else {"chars": 0, "task": ""}
    by_task: dict[str, dict[str, int]] = {}
    for call in calls:  # the system instruction and the prompt, apart
        chars = by_task.setdefault(call["task"], {"calls": 0, "system": 0, "prompt": 0})
        chars["calls"] += 1
        chars["system"] += len(call["instruction"])
        chars["prompt"] += len(call["prompt"])
    return {
        "model_calls": len(calls),
        "model_calls_plan": len(calls) - len(run),
        "model_calls_by_task": dict(Counter(c["task"] for c in calls)),
        "prompt_chars_total": sum(c["chars"] for c in calls),
        "prompt_chars_by_task": dict(sorted(by_task.items())),
        "prompt_chars_max": largest["chars"],
        "prompt_chars_max_task": largest["task"],
        "peak_model_concurrency": {
            t: scripted_model.peak_concurrency(t) for t in sorted({c["task"] for c in calls})
        },
        # the most model calls that stood one after another (none overlapping the next)
        "sequential_model_calls": _chain(run),
        "model_windows": {
            t: [n, round(a, 2), round(b, 2)] for t, (n, a, b) in sorted(windows.items())
        },
        "model_spans": [[task, round(a, 3), round(b, 3)] for a, b, task in sorted(run)],
    }


def _chain(spans: Iterable[tuple[float, float, str]]) -> int:
    count, free_at = 0, -math.inf
    for start, end, _task in sorted(spans, key=lambda s: s[1]):
        if start >= free_at - 1e-3:
            count, free_at = count + 1, end
    return count


def _http_figures(services: dict[str, FakeServer], approved: float) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "http_calls": {n: s.count() for n, s in services.items()},
        "http_peak_concurrency": {n: s.peak_concurrency for n, s in services.items()},
        "http_windows": {},
        "http_spans": [],
    }
    for name, service in services.items():
        run = [r for r in service.requests if r.started >= approved]
        figures["http_spans"] += [
            [name, round(r.started - approved, 3), round((r.ended or r.started) - approved, 3)]
            for r in run
        ]
        if run:
            ends = [r.ended or r.started for r in run]
            first, last = min(r.started for r in run) - approved, max(ends) - approved
            figures["http_windows"][name] = [len(run), round(first, 2), round(last, 2)]
    reads = Counter(_target(r) for r in services["jina"].requests)
    figures["pages_read_twice"] = sum(n > 1 for n in reads.values())
    searches = Counter(
        json.dumps(r.json, sort_keys=True) for r in services["tavily"].requests if r.status == 200
    )
    figures["identical_searches_repeated"] = sum(n - 1 for n in searches.values())
    return figures


def _target(request: RecordedRequest) -> str:
    return request.raw_path.lstrip("/")


def _rate_figures(tavily: FakeTavily) -> dict[str, Any]:
    """429s sent, the waits before their retries, and the busiest one-second windows."""
    requests = sorted(tavily.requests, key=lambda r: r.started)
    refused = [r for r in requests if r.status == 429]
    waits, unretried = [], 0
    for r in refused:
        retry = next((x for x in requests if x.started > r.started and x.json == r.json), None)
        if retry is None:
            unretried += 1
        else:
            waits.append(round(retry.started - (r.ended or r.started), 3))
    return {
        "rate_limit_per_s": RATE_LIMIT,
        "tavily_429s": len(refused),
        "retry_waits_s": waits,
        "unretried_429s": unretried,
        "peak_rate_sent_per_s": _busiest([r.started for r in requests]),
        "peak_rate_admitted_per_s": _busiest([r.started for r in requests if r.status != 429]),
    }


def _busiest(times: list[float], window: float = 1.0) -> int:
    best, low = 0, 0
    for high, t in enumerate(times):
        while t - times[low] >= window:
            low += 1
        best = max(best, high - low + 1)
    return best


async def _offline_resolve(host: str, port: int) -> set[Any]:
    from vicaran_agent.clients import safety

    raise safety.UnreachableURLError(f"could not resolve host {host}: the benchmark is offline")


def run(args: argparse.Namespace) -> dict[str, Any]:
    batches = args.story == "batches"
    story = generate(args.sources + BATCH_EXTRA_PAGES * batches, args.claims)
    latency = {s: BATCH_LATENCY * args.latency for s in LATENCY} if batches else LATENCY
    tavily: FakeTavily
    if batches:
        step = BATCH_LATENCY * args.latency
        tavily = BatchedTavily(story, latency=latency["tavily"], step=step)
    elif args.rate_limited:
        tavily = RateLimitedTavily(
            overrides=story.search, latency=latency["tavily"], max_requests=RATE_LIMIT
        )
    else:
        tavily = FakeTavily(overrides=story.search, latency=latency["tavily"])
    services: dict[str, FakeServer] = {
        "tavily": tavily,
        "jina": FakeJinaReader(story.pages(), api_key=JINA_KEY, latency=latency["jina"]),
        "factcheck": FakeFactCheckTools(latency=latency["factcheck"]),
        "newsroom": FakeNewsroom(latency=latency["newsroom"]),
    }
    for service in services.values():
        service.start()
    if args.rate_limited:
        services["tavily"].fail(429, times=1, retry_after=1)  # type: ignore[attr-defined]
    try:
        with (
            tempfile.TemporaryDirectory(prefix="vicaran-bench-") as folder,
            _records(args.postgres, Path(folder)) as database_url,
        ):
            _configure(args, services, database_url)
            import tests.support.scripted_model  # noqa: F401 - registers scripted/...
            from vicaran_agent.clients import safety

            safety._resolve = _offline_resolve  # type: ignore[assignment]
            if args.document_pages:
                _add_documents(Path(folder) / "documents", args.document_pages)
            _time_store()
            _time_http_clients()
            newsroom = services["newsroom"]
            assert isinstance(newsroom, FakeNewsroom)
            result = asyncio.run(_investigate(args, newsroom))
    finally:
        for service in services.values():
            service.stop()
    approved = result.pop("approved_at")
    result.update(_model_figures(args.latency, approved))
    result["store_writes"] = _store_figures(approved)
    clients = [(a, b) for a, b in HTTP_CLIENTS if a >= approved]
    result["httpx_clients_created"] = len(clients)
    result["httpx_client_init_s"] = round(sum(b - a for a, b in clients), 3)
    result.update(_http_figures(services, approved))
    if args.rate_limited:
        tavily = services["tavily"]
        assert isinstance(tavily, FakeTavily)
        result.update(_rate_figures(tavily))
    result["wall_per_L"] = round(result["wall_s"] / args.latency, 2)
    result["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return {
        "mode": args.mode,
        "story": args.story,
        "requested_sources": args.sources,
        "requested_claims": args.claims,
        "latency": args.latency,
        "serial": args.serial,
        "rate_limited": args.rate_limited,
        "rewrite": args.rewrite,
        **result,
    }


@contextmanager
def _records(postgres: str, folder: Path) -> Iterator[str]:
    """The records database: a SQLite file, or a fresh, migrated schema on `postgres`."""
    if not postgres:
        yield f"sqlite:///{folder / 'bench.db'}"
        return
    from tests.support.databases import postgres_schema
    from vicaran_agent.storage.migrate import upgrade

    with postgres_schema(postgres, "bench") as (_, url):
        upgrade(url)
        yield url


BENCH_COLLECTION = "bench"
DOCUMENTS = 10  # the collection's pages are split over this many PDFs


def _add_documents(folder: Path, pages: int) -> None:
    """A collection of generated text PDFs, indexed before the run (not timed)."""
    from tests.support.documents import many_pages_pdf
    from vicaran_agent.config import get_settings
    from vicaran_agent.documents.parse import parse_file
    from vicaran_agent.documents.store import get_document_store

    folder.mkdir(parents=True)
    store = get_document_store(get_settings().database_url)
    for n in range(DOCUMENTS):
        count = pages // DOCUMENTS + (n < pages % DOCUMENTS)
        path = many_pages_pdf(folder / f"report-{n + 1:02d}.pdf", count, seed=n)
        store.add(parse_file(path), BENCH_COLLECTION)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("quick", "detailed"), default="quick")
    parser.add_argument("--story", choices=STORIES, default="acme", help="see above")
    parser.add_argument("--sources", type=int)
    parser.add_argument("--claims", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.5, help="model latency L in seconds")
    parser.add_argument("--serial", action="store_true", help="every concurrency bound set to 1")
    parser.add_argument("--rate-limited", action="store_true")
    parser.add_argument("--rewrite", action="store_true", help="the report is rewritten once")
    parser.add_argument(
        "--document-pages", type=int, default=0, help="attach a collection of this many pages"
    )
    parser.add_argument(
        "--postgres",
        metavar="URL",
        default="",
        help="keep the records on this PostgreSQL server (a fresh schema, dropped after)",
    )
    parser.add_argument(
        "--no-archive", action="store_true", help="keep no web archive (VICARAN_ARCHIVE_PAGES)"
    )
    args = parser.parse_args(argv)
    if args.sources is None:
        args.sources = MODE_SOURCES[args.mode]
    return args


def main(argv: list[str] | None = None) -> None:
    result = run(parse(argv))
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
