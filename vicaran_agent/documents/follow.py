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
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..config import Settings, get_settings
from ..formatting import data_block, one_line
from ..i18n import message
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import ReferenceGate
from ..prompts.reference_gate import REFERENCE_GATE_INSTRUCTION
from ..safe_markdown import code
from ..schemas import DateSource
from ..tools.urls import normalize_url
from .model import DocumentInfo, PassageHit
from .names import fold
from .references import Reference, detect_references, references_from_model
from .registry import DocumentRegistry, Resolution

logger = logging.getLogger(__name__)

Limit = Literal["depth", "visited", "budget", "convergence"]
LIMITS: tuple[Limit, ...] = ("depth", "visited", "budget", "convergence")
Scope = Literal["document", "section", "same", "search", "url"]
ReadUrl = Callable[[str], Awaitable[Any]]  # the guarded page reader (PageReader.read)

PASSAGES_PER_REFERENCE = 3
MAX_CANDIDATES = 20  # references put to the gate per depth level
CONTEXT_CHARS = 120  # words around a reference shown to the gate, each side
CHARS_PER_TOKEN = 4
_FIELD_KEYS = {
    "title": "ref_field_title",
    "file name": "ref_field_file",
    "synonym": "ref_field_synonym",
}


class DocumentSearch(Protocol):
    """What following needs of the document store (calls are synchronous: SQLite)."""

    def search(
        self,
        query: str,
        collections: Sequence[str],
        *,
        document_ids: Sequence[str] | None = None,
        limit: int = 8,
    ) -> list[PassageHit]: ...

    def best_passages(
        self, document_id: str, query: str = "", limit: int = 3
    ) -> list[PassageHit]: ...

    def documents(self, collection: str | None = None) -> list[DocumentInfo]: ...


@dataclass(frozen=True)
class FollowedPassage:
    """A passage reached by following `reference` (found in `origin`) at `depth`."""

    hit: PassageHit
    reference: Reference
    depth: int
    origin: str
    resolution: Resolution | None = None


@dataclass(frozen=True)
class FollowedPage:
    """A web page read because a document cited its address."""

    url: str
    title: str
    text: str
    published_at: str | None
    published_at_source: DateSource | None
    reference: Reference
    depth: int
    origin: str


@dataclass
class FollowResult:
    """What following the references of one claim read, and the log of how it got there."""

    passages: list[FollowedPassage] = field(default_factory=list)
    pages: list[FollowedPage] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    stopped: list[Limit] = field(default_factory=list)  # the limits that stopped something
    rejected: list[tuple[Reference, str]] = field(default_factory=list)  # the gate said no, why
    listed: list[tuple[str, str]] = field(default_factory=list)  # (address, where): not opened
    tokens: int = 0
    gate_calls: int = 0
    gate_failed: bool = False


@dataclass(frozen=True)
class _Source:
    """Something read, whose text may cite more."""

    text: str
    origin: str  # "relatorio.pdf p. 3", an address, or the fact-checker's reading
    document: DocumentInfo | None = None
    document_id: str = ""
    via: tuple[str, str] | None = None  # the reference that led here (it is cited here too)


@dataclass(frozen=True)
class _Candidate:
    reference: Reference
    source: _Source
    depth: int
    scope: Scope
    visit: tuple[str, ...]
    document_id: str = ""
    resolution: Resolution | None = None

    @property
    def exact(self) -> bool:
        return self.resolution is not None and self.resolution.how == "exact"


@dataclass
class _Run:
    """One claim's following: what was read and what stopped it."""

    claim: str
    result: FollowResult = field(default_factory=FollowResult)
    visited: set[tuple[str, ...]] = field(default_factory=set)
    seen_passages: set[int] = field(default_factory=set)
    considered: set[tuple[str, str]] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)  # addresses said once
    arrivals: Counter[str] = field(default_factory=Counter)
    stops: dict[Limit, list[str]] = field(default_factory=dict)
    converged_on: str = ""
    budget_spent: bool = False

    @property
    def halted(self) -> bool:
        return bool(self.converged_on) or self.budget_spent

    def stop(self, limit: Limit, reference: Reference) -> None:
        self.stops.setdefault(limit, []).append(reference.label)


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
        run = _Run(claim)
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
        sources: list[_Source] = []
        for hit in passages:
            run.seen_passages.add(hit.passage_id)
            if ("doc", hit.document_id) not in run.visited:
                run.visited.add(("doc", hit.document_id))
                run.arrivals[hit.document_id] += 1
            sources.append(self._source(hit, registry))
        found = self._scan(sources)
        reading = _Source("", message("ref_origin_model", self.language))
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
            chosen = await self._gate(candidates, depth, run)
            pages = await self._read_pages([c for c in chosen if c.scope == "url"], run)
            new_sources: list[_Source] = []
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
    ) -> _Source:
        origin = f"{hit.file_name} p. {hit.page}"
        key = via.key if via else None
        return _Source(hit.text, origin, registry.get(hit.document_id), hit.document_id, key)

    @staticmethod
    def _scan(sources: Sequence[_Source]) -> list[tuple[Reference, _Source]]:
        return [(r, s) for s in sources for r in detect_references(s.text)]

    def _candidates(
        self,
        found: list[tuple[Reference, _Source]],
        depth: int,
        registry: DocumentRegistry,
        run: _Run,
        *,
        probing: bool = False,
    ) -> list[_Candidate]:
        """The references of one level worth asking about: new, not self-mentions, not read.

        `probing`: only to say what the depth limit stopped (nothing counted or recorded).
        """
        candidates: list[_Candidate] = []
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
        self, reference: Reference, source: _Source, depth: int, registry: DocumentRegistry
    ) -> _Candidate | None:
        """How `reference` would be followed; None for a self-mention or an unreadable URL."""
        if reference.kind == "url":
            if self.read_url is None:
                return None
            return _Candidate(
                reference, source, depth, "url", ("url", normalize_url(reference.target))
            )
        name = reference.within or reference.target
        if source.document is not None and registry.names_itself(name, source.document):
            return None  # a contract citing its own number
        if reference.kind == "legal_section" and not reference.within and source.document_id:
            # "conforme Cláusula 5ª": a section of the document it is written in
            visit = ("section", source.document_id, fold(reference.target))
            return _Candidate(reference, source, depth, "same", visit, source.document_id)
        resolution = registry.resolve(name, source.document)
        if resolution is None or resolution.document.document_id == source.document_id:
            return _Candidate(reference, source, depth, "search", ("target", *reference.key))
        document_id = resolution.document.document_id
        if reference.kind == "legal_section":
            visit = ("section", document_id, fold(reference.target))
            return _Candidate(reference, source, depth, "section", visit, document_id, resolution)
        return _Candidate(
            reference, source, depth, "document", ("doc", document_id), document_id, resolution
        )

    def _list_url(self, reference: Reference, source: _Source, run: _Run) -> None:
        """An address the operator does not let Vicaran open: said once, with where it is."""
        key = normalize_url(reference.target)
        if key in run.listed:
            return
        run.listed.add(key)
        run.result.listed.append((reference.target, source.origin))
        url = code(one_line(reference.target, 200))
        self._say(run, message("ref_url_listed", self.language, origin=source.origin, url=url))

    def _arrive(self, candidate: _Candidate, run: _Run) -> None:
        """A reference led to a document again: count it; `convergence` times stops following."""
        if candidate.resolution is None:
            return
        self._arrive_at(candidate.resolution.document.document_id, run, candidate.resolution)

    def _arrive_at(self, document_id: str, run: _Run, resolution: Resolution | None = None) -> None:
        run.arrivals[document_id] += 1
        if run.arrivals[document_id] >= self.convergence and not run.converged_on:
            document = resolution.document if resolution else None
            run.converged_on = document.file_name if document else document_id

    @staticmethod
    def _halt(candidates: Sequence[_Candidate], run: _Run) -> None:
        for candidate in candidates:
            run.stop("convergence" if run.converged_on else "budget", candidate.reference)

    # --- the gate ------------------------------------------------------------------------

    async def _gate(self, candidates: list[_Candidate], depth: int, run: _Run) -> list[_Candidate]:
        """The candidates the model says are worth following (one call for the whole level)."""
        run.considered.update(c.reference.key for c in candidates)
        if self.model is None:
            return [c for c in candidates if c.exact]
        run.result.gate_calls += 1
        try:
            answer = await self.model.generate(
                instruction=REFERENCE_GATE_INSTRUCTION,
                prompt=gate_prompt(run.claim, candidates, depth),
                schema=ReferenceGate,
                temperature=0.0,
            )
        except ModelCallError as error:
            if not run.result.gate_failed:
                run.result.gate_failed = True
                self._say(run, message("ref_gate_failed", self.language, error=error))
            return [c for c in candidates if c.exact]
        decisions = {d.number: d for d in answer.references}
        chosen: list[_Candidate] = []
        for number, candidate in enumerate(candidates, 1):
            decision = decisions.get(number)
            if decision is not None and decision.follow:
                chosen.append(candidate)
            else:
                reason = one_line(decision.reason, 200) if decision else ""
                run.result.rejected.append((candidate.reference, reason))
        return chosen

    # --- following -----------------------------------------------------------------------

    async def _read_pages(self, candidates: list[_Candidate], run: _Run) -> dict[str, Any]:
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
                return _Unread(url, f"{type(error).__name__}: {error}")

        return dict(zip(urls, await asyncio.gather(*(read(u) for u in urls)), strict=True))

    async def _follow_one(
        self,
        candidate: _Candidate,
        run: _Run,
        registry: DocumentRegistry,
        pages: dict[str, Any],
    ) -> list[_Source]:
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

    async def _passages(self, candidate: _Candidate, claim: str) -> list[PassageHit]:
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
        candidate: _Candidate,
        run: _Run,
        registry: DocumentRegistry,
        hits: list[PassageHit],
    ) -> list[_Source]:
        new = [h for h in hits if h.passage_id not in run.seen_passages]
        taken: list[PassageHit] = []
        for hit in new:
            if taken and run.result.tokens >= self.token_budget:
                run.budget_spent = True
                run.stop("budget", candidate.reference)
                break
            taken.append(hit)
            run.seen_passages.add(hit.passage_id)
            run.result.tokens += _tokens(hit.text)
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

    def _take_page(self, candidate: _Candidate, run: _Run, page: Any) -> list[_Source]:
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
        run.result.tokens += _tokens(text)
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
        return [_Source(text, reference.target, via=reference.key)]

    # --- the log ---------------------------------------------------------------------------

    def _followed_line(self, candidate: _Candidate, count: int) -> str:
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

    def _say(self, run: _Run, line: str) -> None:
        run.result.log.append(line)
        if self.on_line is not None:
            self.on_line(line)

    def _log_limits(self, run: _Run) -> None:
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


@dataclass(frozen=True)
class _Unread:
    """A page read that raised: as the page reader reports a failure."""

    url: str
    error: str
    ok: bool = False


def _tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def how_label(resolution: Resolution, language: str) -> str:
    """How a reference was matched to its document, for people ("exact title match")."""
    field_name = message(_FIELD_KEYS[resolution.matched], language)
    if resolution.how == "exact":
        return message("ref_how_exact", language, field=field_name)
    if resolution.how == "fuzzy":
        pct = round(resolution.score * 100)
        return message("ref_how_fuzzy", language, field=field_name, pct=pct)
    return message("ref_how_substring", language, field=field_name)


def _context(candidate: _Candidate) -> str:
    text, offset = candidate.source.text, candidate.reference.offset
    if offset < 0 or not text:
        return ""
    start, end = max(0, offset - CONTEXT_CHARS), offset + len(candidate.reference.text)
    return one_line(text[start : end + CONTEXT_CHARS], 2 * CONTEXT_CHARS + 80)


def gate_prompt(claim: str, candidates: Sequence[_Candidate], depth: int) -> str:
    """The gate's prompt: the claim, then every candidate of the level, numbered."""
    entries = []
    for number, candidate in enumerate(candidates, 1):
        reference = candidate.reference
        lines = [
            f"[R{number}] {reference.label} ({reference.kind.replace('_', ' ')})",
            f"Written: {one_line(reference.text, 200)}",
            f"Found in: {candidate.source.origin}",
        ]
        if context := _context(candidate):
            lines.append(f"Around it: {context}")
        if candidate.resolution is not None:
            document = candidate.resolution.document
            how = how_label(candidate.resolution, "en")
            lines.append(
                f'Matches: {document.file_name}, "{one_line(document.title, 160)}" ({how})'
            )
        elif candidate.scope == "same":
            lines.append("Matches: a part of the document it is written in")
        entries.append("\n".join(lines) + "\n")
    where = (
        "cited by the passages read for the claim"
        if depth == 1
        else f"cited by what following references led to ({depth - 1} step(s) away)"
    )
    return (
        f"CLAIM: {one_line(claim, 1000)}\n"
        f"DEPTH: {depth} ({where})\n\n"
        f"{data_block('REFERENCES', chr(10).join(entries))}"
    )
