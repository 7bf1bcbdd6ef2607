"""Following the references in what was read for a claim (seed 004, "The Rabbithole Magic").

Code finds the references, resolves them to documents, enforces the limits and reads; the model
only says, once per depth level for every candidate at once, which are worth following.
Limits: the depth, a visited set (a document, target or address is followed once), a token
budget per claim (tokens ~ characters / 4 of what following read), and convergence (the same
document coming back `convergence` times stops the following).

A web address written in a document is read only when the operator allows it
(`VICARAN_FOLLOW_DOCUMENT_URLS`): reading it would tell its host that the document is being
read, with whatever its query string carries. Otherwise it is listed (`FollowResult.listed`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..config import Settings, get_settings
from ..formatting import one_line
from ..i18n import message
from ..llm import ModelClient
from ..safe_markdown import code
from ..urls import normalize_url
from .follow_gate import ask_gate, how_label
from .follow_records import (
    CHARS_PER_TOKEN,
    LIMITS,
    MAX_CANDIDATES,
    PASSAGES_PER_REFERENCE,
    Candidate,
    DocumentSearch,
    FollowedPage,
    FollowedPassage,
    FollowResult,
    ReadUrl,
    Run,
    Source,
    Unread,
    tokens_of,
)
from .model import PassageHit
from .names import fold
from .references import Reference, detect_references, references_from_model
from .registry import DocumentRegistry, Resolution

logger = logging.getLogger(__name__)


class ReferenceFollower:
    """Follows the references in the passages read for a claim, within limits.

    One follower serves every claim of a run (its registry is built once); each `follow` call
    has its own visited set, budget and convergence count.
    """

    def __init__(
        self,
        store: DocumentSearch,
        collections: Sequence[str],
        model: ModelClient | None,
        *,
        language: str = "en",
        read_url: ReadUrl | None = None,
        depth: int | None = None,
        token_budget: int | None = None,
        convergence: int | None = None,
        passages_per_reference: int = PASSAGES_PER_REFERENCE,
        registry: DocumentRegistry | None = None,
        on_line: Callable[[str], None] | None = None,
        settings: Settings | None = None,
        follow_urls: bool | None = None,
    ) -> None:
        settings = settings or get_settings()
        self.store = store
        self.collections = list(collections)
        self.model = model
        self.language = language
        self.read_url = read_url
        self.depth = settings.vicaran_reference_depth if depth is None else depth
        self.token_budget = (
            settings.vicaran_reference_token_budget if token_budget is None else token_budget
        )
        self.convergence = (
            settings.vicaran_reference_convergence if convergence is None else convergence
        )
        self.passages_per_reference = passages_per_reference
        self.follow_urls = (
            settings.vicaran_follow_document_urls if follow_urls is None else follow_urls
        )
        self.on_line = on_line
        self._registry = registry
        self._registry_lock = asyncio.Lock()

    async def registry(self) -> DocumentRegistry:
        """The documents of the collections, read once."""
        async with self._registry_lock:
            if self._registry is None:
                documents = await asyncio.to_thread(
                    lambda: [d for c in self.collections for d in self.store.documents(c)]
                )
                self._registry = DocumentRegistry(documents)
            return self._registry

    async def follow(
        self,
        claim: str,
        passages: Sequence[PassageHit],
        model_references: Sequence[str] = (),
        *,
        seen_urls: Iterable[str] = (),
        seen_documents: Iterable[str] = (),
    ) -> FollowResult:
        """Follow what `passages` (and the model's listed references) cite, for `claim`.

        `seen_urls` and `seen_documents`: already read for the claim (an earlier round).
        """
        run = Run(claim)
        try:
            registry = await self.registry()
        except (
            Exception
        ):  # the store failing leaves documents unresolved, never the claim unchecked
            logger.warning("listing the documents to resolve references failed", exc_info=True)
            registry = DocumentRegistry([])
        for url in seen_urls:
            run.visited.add(("url", normalize_url(url)))
        for document_id in seen_documents:
            run.visited.add(("doc", document_id))
        sources: list[Source] = []
        for hit in passages:
            run.seen_passages.add(hit.passage_id)
            if ("doc", hit.document_id) not in run.visited:
                run.visited.add(("doc", hit.document_id))
                run.arrivals[hit.document_id] += 1
            sources.append(self._source(hit, registry))
        found = self._scan(sources)
        reading = Source("", message("ref_origin_model", self.language))
        found += [(r, reading) for r in references_from_model(list(model_references))]
        depth = 1
        while found and not run.halted:
            if depth > self.depth:
                for candidate in self._candidates(found, depth, registry, run, probing=True):
                    run.stop("depth", candidate.reference)
                break
            candidates = self._candidates(found, depth, registry, run)
            if not candidates or run.halted:
                self._halt(candidates, run)
                break
            chosen = await ask_gate(self.model, self.language, candidates, depth, run, self._say)
            pages = await self._read_pages([c for c in chosen if c.scope == "url"], run)
            new_sources: list[Source] = []
            for candidate in chosen:
                new_sources += await self._follow_one(candidate, run, registry, pages)
            found = self._scan(new_sources)
            depth += 1
        self._log_limits(run)
        return run.result

    # --- finding and sorting references --------------------------------------------------

    @staticmethod
    def _source(
        hit: PassageHit, registry: DocumentRegistry, via: Reference | None = None
    ) -> Source:
        origin = f"{hit.file_name} p. {hit.page}"
        key = via.key if via else None
        return Source(hit.text, origin, registry.get(hit.document_id), hit.document_id, key)

    @staticmethod
    def _scan(sources: Sequence[Source]) -> list[tuple[Reference, Source]]:
        return [(r, s) for s in sources for r in detect_references(s.text)]

    def _candidates(
        self,
        found: list[tuple[Reference, Source]],
        depth: int,
        registry: DocumentRegistry,
        run: Run,
        *,
        probing: bool = False,
    ) -> list[Candidate]:
        """The references of one level worth asking about: new, not self-mentions, not read.

        `probing`: only to say what the depth limit stopped (nothing counted or recorded).
        """
        candidates: list[Candidate] = []
        keys: set[tuple[str, str]] = set()
        for reference, source in found:
            if reference.key in keys or reference.key == source.via:
                continue
            keys.add(reference.key)
            if reference.kind == "url" and not self.follow_urls:
                if not probing:
                    self._list_url(reference, source, run)
                continue
            candidate = self._candidate(reference, source, depth, registry)
            if candidate is None:
                continue
            if candidate.visit in run.visited:
                if not probing:
                    self._arrive(candidate, run)
                    run.stop("visited", reference)
                continue
            if reference.key in run.considered:
                continue  # the gate said no at a shallower level
            if run.halted and not probing:
                run.stop("convergence", reference)
                continue
            candidates.append(candidate)
        if len(candidates) > MAX_CANDIDATES and not probing:
            self._say(
                run,
                message(
                    "ref_limit_candidates",
                    self.language,
                    found=len(candidates),
                    depth=depth,
                    limit=MAX_CANDIDATES,
                ),
            )
            candidates = candidates[:MAX_CANDIDATES]
        return candidates

    def _candidate(
        self, reference: Reference, source: Source, depth: int, registry: DocumentRegistry
    ) -> Candidate | None:
        """How `reference` would be followed; None for a self-mention or an unreadable URL."""
        if reference.kind == "url":
            if self.read_url is None:
                return None
            return Candidate(
                reference, source, depth, "url", ("url", normalize_url(reference.target))
            )
        name = reference.within or reference.target
        if source.document is not None and registry.names_itself(name, source.document):
            return None  # a contract citing its own number
        if reference.kind == "legal_section" and not reference.within and source.document_id:
            # "conforme Cláusula 5ª": a section of the document it is written in
            visit = ("section", source.document_id, fold(reference.target))
            return Candidate(reference, source, depth, "same", visit, source.document_id)
        resolution = registry.resolve(name, source.document)
        if resolution is None or resolution.document.document_id == source.document_id:
            return Candidate(reference, source, depth, "search", ("target", *reference.key))
        document_id = resolution.document.document_id
        if reference.kind == "legal_section":
            visit = ("section", document_id, fold(reference.target))
            return Candidate(reference, source, depth, "section", visit, document_id, resolution)
        return Candidate(
            reference, source, depth, "document", ("doc", document_id), document_id, resolution
        )

    def _list_url(self, reference: Reference, source: Source, run: Run) -> None:
        """An address the operator does not let Vicaran open: said once, with where it is."""
        key = normalize_url(reference.target)
        if key in run.listed:
            return
        run.listed.add(key)
        run.result.listed.append((reference.target, source.origin))
        url = code(one_line(reference.target, 200))
        self._say(run, message("ref_url_listed", self.language, origin=source.origin, url=url))

    def _arrive(self, candidate: Candidate, run: Run) -> None:
        """A reference led to a document again: count it; `convergence` times stops following."""
        if candidate.resolution is None:
            return
        self._arrive_at(candidate.resolution.document.document_id, run, candidate.resolution)

    def _arrive_at(self, document_id: str, run: Run, resolution: Resolution | None = None) -> None:
        run.arrivals[document_id] += 1
        if run.arrivals[document_id] >= self.convergence and not run.converged_on:
            document = resolution.document if resolution else None
            run.converged_on = document.file_name if document else document_id

    @staticmethod
    def _halt(candidates: Sequence[Candidate], run: Run) -> None:
        for candidate in candidates:
            run.stop("convergence" if run.converged_on else "budget", candidate.reference)

    # --- following -----------------------------------------------------------------------

    async def _read_pages(self, candidates: list[Candidate], run: Run) -> dict[str, Any]:
        """The pages the chosen addresses point to, read concurrently (each address once)."""
        reader = self.read_url
        if reader is None or not candidates:
            return {}
        fresh = (c.reference.target for c in candidates if c.visit not in run.visited)
        urls = list(dict.fromkeys(fresh))

        async def read(url: str) -> Any:
            try:
                return await reader(url)
            except Exception as error:  # a failed read is a value, never a crash
                logger.warning("reading %s for a reference failed", url, exc_info=True)
                return Unread(url, f"{type(error).__name__}: {error}")

        return dict(zip(urls, await asyncio.gather(*(read(u) for u in urls)), strict=True))

    async def _follow_one(
        self,
        candidate: Candidate,
        run: Run,
        registry: DocumentRegistry,
        pages: dict[str, Any],
    ) -> list[Source]:
        """Follow one chosen reference; what it led to, to scan for more."""
        reference = candidate.reference
        if run.halted:
            run.stop("convergence" if run.converged_on else "budget", reference)
            return []
        if candidate.visit in run.visited:  # another reference of this level led there first
            self._arrive(candidate, run)
            run.stop("convergence" if run.converged_on else "visited", reference)
            return []
        if run.result.tokens >= self.token_budget:
            run.budget_spent = True
            run.stop("budget", reference)
            return []
        self._arrive(candidate, run)
        if run.converged_on:
            run.stop("convergence", reference)
            return []
        run.visited.add(candidate.visit)
        try:
            if candidate.scope == "url":
                return self._take_page(candidate, run, pages.get(reference.target))
            hits = await self._passages(candidate, run.claim)
        except Exception as error:  # one failed reference never stops the claim
            logger.warning("following %s failed", reference.label, exc_info=True)
            self._say(
                run,
                message("ref_failed", self.language, text=reference.label, error=error),
            )
            return []
        return self._take_passages(candidate, run, registry, hits)

    async def _passages(self, candidate: Candidate, claim: str) -> list[PassageHit]:
        reference, limit = candidate.reference, self.passages_per_reference
        store = self.store
        if candidate.scope == "document":
            return await asyncio.to_thread(store.best_passages, candidate.document_id, claim, limit)
        if candidate.scope in ("section", "same"):
            return await asyncio.to_thread(
                store.best_passages, candidate.document_id, reference.target, limit
            )
        query = one_line(f"{reference.label} {claim}", 400)
        return await asyncio.to_thread(lambda: store.search(query, self.collections, limit=limit))

    def _take_passages(
        self,
        candidate: Candidate,
        run: Run,
        registry: DocumentRegistry,
        hits: list[PassageHit],
    ) -> list[Source]:
        new = [h for h in hits if h.passage_id not in run.seen_passages]
        taken: list[PassageHit] = []
        for hit in new:
            if taken and run.result.tokens >= self.token_budget:
                run.budget_spent = True
                run.stop("budget", candidate.reference)
                break
            taken.append(hit)
            run.seen_passages.add(hit.passage_id)
            run.result.tokens += tokens_of(hit.text)
            run.result.passages.append(
                FollowedPassage(
                    hit,
                    candidate.reference,
                    candidate.depth,
                    candidate.source.origin,
                    candidate.resolution,
                )
            )
        if candidate.scope == "search":
            for document_id in dict.fromkeys(h.document_id for h in hits):
                if document_id != candidate.source.document_id:
                    self._arrive_at(document_id, run)
        self._say(run, self._followed_line(candidate, len(taken)))
        return [self._source(hit, registry, candidate.reference) for hit in taken]

    def _take_page(self, candidate: Candidate, run: Run, page: Any) -> list[Source]:
        reference, origin, depth = candidate.reference, candidate.source.origin, candidate.depth
        if page is None or not getattr(page, "ok", False):
            reason = getattr(page, "error", None) or "?"
            self._say(
                run,
                message(
                    "ref_page_failed",
                    self.language,
                    origin=origin,
                    url=reference.target,
                    reason=one_line(str(reason), 200),
                    depth=depth,
                ),
            )
            return []
        room = max(0, self.token_budget - run.result.tokens) * CHARS_PER_TOKEN
        text = str(page.text)[:room]
        run.result.tokens += tokens_of(text)
        title = str(getattr(page, "title", "") or reference.target)
        run.result.pages.append(
            FollowedPage(
                url=str(page.url or reference.target),
                title=title,
                text=text,
                published_at=getattr(page, "published_at", None),
                published_at_source=getattr(page, "published_at_source", None),
                reference=reference,
                depth=depth,
                origin=origin,
            )
        )
        self._say(
            run,
            message(
                "ref_page",
                self.language,
                origin=origin,
                url=reference.target,
                title=one_line(title, 120),
                depth=depth,
            ),
        )
        return [Source(text, reference.target, via=reference.key)]

    # --- the log ---------------------------------------------------------------------------

    def _followed_line(self, candidate: Candidate, count: int) -> str:
        language, reference = self.language, candidate.reference
        passages = message("ref_passages", language, count=count)
        values = {
            "origin": candidate.source.origin,
            "text": one_line(reference.text, 120),
            "passages": passages,
            "depth": candidate.depth,
        }
        if candidate.scope == "search":
            return message("ref_searched", language, **values)
        if candidate.scope == "same":
            target = candidate.source.origin.rsplit(" p. ", 1)[0]
            how = message("ref_same_document", language)
        else:
            resolution = candidate.resolution
            assert resolution is not None
            target, how = resolution.document.file_name, how_label(resolution, language)
        return message("ref_followed", language, target=target, how=how, **values)

    def _say(self, run: Run, line: str) -> None:
        run.result.log.append(line)
        if self.on_line is not None:
            self.on_line(line)

    def _log_limits(self, run: Run) -> None:
        for limit in LIMITS:
            stopped = list(dict.fromkeys(run.stops.get(limit, [])))
            if not stopped:
                continue
            run.result.stopped.append(limit)
            examples = ", ".join(f"“{one_line(s, 60)}”" for s in stopped[:3])
            examples += ", …" if len(stopped) > 3 else ""
            values: dict[str, object] = {"count": len(stopped), "examples": examples}
            if limit == "depth":
                values["limit"] = self.depth
            elif limit == "budget":
                values["limit"] = self.token_budget
            elif limit == "convergence":
                values.update(document=run.converged_on, times=self.convergence)
            self._say(run, message(f"ref_limit_{limit}", self.language, **values))
