"""What one investigation shares across its stages while it runs: page reads, searches, retries.

The pipeline opens the runtime when it starts and closes it when it ends, so a URL is read once
per investigation, identical searches are made once, and background retries never outlive it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from . import services
from .archive import PageArchive, page_archive
from .clients.page_reader import PageReader, PageResult
from .clients.web_search import WebSearch
from .config import Settings
from .textmatch import sha256_text
from .urls import normalize_url

logger = logging.getLogger(__name__)


class TextStore:
    """The texts this investigation read, by SHA-256 (the snapshot names records carry).

    Texts live in memory while the investigation runs and are saved with the records that cite
    them; a text read before the run (the journalist's URLs, at planning) is already stored
    and is loaded from the records store on first use.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._texts: dict[str, str] = {}

    def put(self, text: str) -> str:
        sha = sha256_text(text)
        self._texts.setdefault(sha, text)
        return sha

    def get(self, sha: str | None) -> str | None:
        return self._texts.get(sha) if sha else None

    async def load(self, sha: str | None) -> str | None:
        """The text named `sha`, from memory or else from the records store."""
        if not sha:
            return None
        if sha not in self._texts:
            from .storage import get_repository

            url = self.settings.database_url
            try:
                text = await asyncio.to_thread(lambda: get_repository(url).get_snapshot_text(sha))
            except Exception:  # the store being down costs the text, not the run
                logger.warning("could not load snapshot %s", sha, exc_info=True)
                return None
            if text is not None:
                self._texts[sha] = text
        return self._texts.get(sha)

    def pick(self, shas: Iterable[str | None]) -> dict[str, str]:
        """{sha: text} for the named texts held in memory (what a save must store)."""
        return {sha: self._texts[sha] for sha in shas if sha and sha in self._texts}


class PageCache:
    """Reads each URL once; concurrent readers of the same URL share one request."""

    def __init__(self, settings: Settings, archive: PageArchive | None = None) -> None:
        self.reader = PageReader(settings, archive=archive)
        self._reads: dict[str, asyncio.Task[PageResult]] = {}

    async def read(self, url: str) -> PageResult:
        key = normalize_url(url)
        task = self._reads.get(key)
        if task is None:
            task = self._reads[key] = asyncio.ensure_future(self.reader.read(url))
        return await asyncio.shield(task)

    async def aclose(self) -> None:
        for task in self._reads.values():
            task.cancel()
        await self.reader.aclose()


class LateSources:
    """Pages whose first read timed out, retried once in the background."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[PageResult]] = {}

    def retry(self, url: str, read: Callable[[], Awaitable[PageResult]]) -> None:
        key = normalize_url(url)
        if key not in self._tasks:
            self._tasks[key] = asyncio.ensure_future(read())

    def arrived(self) -> list[PageResult]:
        """Retries that have finished with readable content."""
        done = [t for t in self._tasks.values() if t.done() and not t.cancelled()]
        return [t.result() for t in done if t.exception() is None and t.result().ok]

    def pending(self) -> bool:
        """Whether a retry is still running."""
        return any(not t.done() for t in self._tasks.values())

    async def wait_for_pending(self, seconds: float) -> None:
        """Until every retry running now has finished, or `seconds` (never cancels one: other
        claims wait for the same pages)."""
        running = [t for t in self._tasks.values() if not t.done()]
        if running:
            await asyncio.wait(running, timeout=seconds)

    async def aclose(self) -> None:
        for task in self._tasks.values():
            task.cancel()


class SavesUnderWay:
    """A stage's records being saved while the next stage works (docs/architecture.md, "What
    overlaps"): the save that needs their ids takes them from here, in stage order."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Future[Any]] = {}

    def start(self, name: str, saving: Awaitable[Any]) -> None:
        self._tasks[name] = asyncio.ensure_future(saving)

    async def finished(self, name: str) -> None:
        """Until the save started under `name` (if any) has ended; its outcome stays for `take`."""
        saving = self._tasks.get(name)
        if saving is not None:
            await asyncio.wait([saving])

    def take(self, name: str) -> asyncio.Future[Any] | None:
        """The save started under `name` (to await), or None when none is under way."""
        return self._tasks.pop(name, None)

    async def settle(self) -> None:
        """Wait for every save no stage took (a run that ended early): nothing is lost."""
        tasks, self._tasks = list(self._tasks.values()), {}
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                logger.error("a save under way failed", exc_info=outcome)


@dataclass
class InvestigationRuntime:
    settings: Settings
    pages: PageCache
    search: WebSearch
    texts: TextStore
    late: LateSources = field(default_factory=LateSources)
    saves: SavesUnderWay = field(default_factory=SavesUnderWay)

    async def aclose(self) -> None:
        await self.saves.settle()
        await self.late.aclose()
        await self.pages.aclose()
        await self.search.aclose()


def runtime_for(investigation_id: str, settings: Settings) -> InvestigationRuntime:
    """The running investigation's runtime (created on first use)."""
    runtimes = services.current().runtimes
    runtime = runtimes.get(investigation_id)
    if runtime is None:
        pages = PageCache(settings, page_archive(investigation_id, settings))
        runtime = InvestigationRuntime(settings, pages, WebSearch(settings), TextStore(settings))
        runtimes[investigation_id] = runtime
    return runtime


def open_runtime(investigation_id: str) -> InvestigationRuntime | None:
    """The runtime of an investigation that is running now, or None (never creates one)."""
    return services.current().runtimes.get(investigation_id)


@asynccontextmanager
async def investigation_runtime(
    investigation_id: str, settings: Settings
) -> AsyncIterator[InvestigationRuntime]:
    """Open the runtime for the length of one pipeline run, and close it after."""
    runtime = runtime_for(investigation_id, settings)
    try:
        yield runtime
    finally:
        services.current().runtimes.pop(investigation_id, None)
        try:
            await runtime.aclose()
        except Exception:
            logger.exception("closing the runtime of %s failed", investigation_id)
