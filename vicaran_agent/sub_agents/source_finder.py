"""source_finder: plans searches, searches concurrently, reads and digests every page."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable

from google.adk.events import Event

from .. import state_keys as keys
from ..callbacks.persistence import repository
from ..clients.web_search import KEY_MISSING, SearchHit, clean_queries
from ..credibility import credibility_label, stars
from ..documents.collection import Reader
from ..documents.intake import DocumentsInPlay
from ..documents.sources import DocumentReader, ListedDocument, list_documents
from ..formatting import data_block, one_line
from ..i18n import message
from ..llm_models import ModelCallError
from ..model_outputs import SearchPlan
from ..prompts.source_finder import SOURCE_DIGEST_INSTRUCTION, SOURCE_FINDER_INSTRUCTION
from ..runtime import runtime_for
from ..sanitize import clean
from ..schemas import Source
from ..tools.analyze_source import SourceAnalyzer
from ..urls import normalize_url
from ._stage import Jobs, Stage, StageAgent

logger = logging.getLogger(__name__)

MAX_QUERIES = 5
MAX_RESULTS_PER_QUERY = 20  # Tavily's maximum


class SourceFinderAgent(StageAgent):
    """Finds, reads and rates the sources of an investigation."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        config = stage.config
        user_sources = stage.records(keys.USER_SOURCES, Source)

        # A continued run (an interrupted investigation started again) keeps what it read;
        # looking that up runs alongside planning and searching, not after them.
        saved_sources = asyncio.create_task(self._saved_sources(stage))
        # The journalist's documents are always read, like their URLs: never cut by the limit.
        listed = asyncio.create_task(self._documents(stage))
        queries = await self._plan_queries(stage)
        for query in queries:
            yield stage.event(stage.msg("searching", query=one_line(query, 200)))

        runtime = runtime_for(config.investigation_id, stage.settings)
        analyzer = SourceAnalyzer(
            stage.model,
            await stage.render(SOURCE_DIGEST_INSTRUCTION),
            stage.settings,
            pages=runtime.pages,
            texts=runtime.texts,
            language=stage.language,
            reads=asyncio.Semaphore(stage.settings.vicaran_concurrency),
        )
        reader = DocumentReader(
            stage.model, analyzer.instruction, runtime.texts, config.brief, stage.language
        )

        async def read(
            item: SearchHit | ListedDocument, _emit: Callable[[str], None]
        ) -> tuple[SearchHit | ListedDocument, Source]:
            if isinstance(item, ListedDocument):
                analysis = await reader.read(item)
                if analysis.problem:
                    stage.note(analysis.problem)
                return item, analysis.source
            hit = item
            if (kept := (await saved_sources).get(normalize_url(hit.url))) is not None:
                return hit, kept
            analysis = await analyzer.analyze(
                hit.url, title_hint=hit.title, snippet=hit.snippet, published_hint=hit.published_at
            )
            if analysis.problem:
                stage.note(analysis.problem)
            if analysis.timed_out:  # one more try in the background, for the fact checker
                runtime.late.retry(hit.url, lambda: runtime.pages.reader.read(hit.url))
            return hit, analysis.source

        # Reads are held to VICARAN_CONCURRENCY (the analyzer's `reads`), digests to their own
        # bound: a page read while others are digested is digested at once.
        jobs: Jobs[SearchHit | ListedDocument] = Jobs(
            read, stage.settings.vicaran_digest_concurrency
        )
        try:
            known = {s.url for s in user_sources}
            room = max(0, config.source_limit - len(user_sources))
            picker = RoundRobin(clean_queries(queries), room, known)
            failures: list[str] = []
            # Each search's surest hits are read as it answers, while the others are out.
            async for query, result in runtime.search.search_each(
                queries, max_results=min(MAX_RESULTS_PER_QUERY, config.source_limit)
            ):
                if isinstance(result, str):
                    if result not in failures:
                        failures.append(result)
                    continue
                for hit in picker.add(query, result):
                    jobs.start(hit)
            hits = picker.chosen()
            for hit in hits:
                if not picker.started(hit):
                    jobs.start(hit)
            documents = await listed
            for document in documents:  # documents cost no time of their own either
                jobs.start(document)
            for failure in failures:
                # One failed query is a per-item problem; a search that found nothing at all is
                # not, unless the search is off by choice (no key) and the documents remain.
                per_item = picker.found or (failure == KEY_MISSING and documents)
                (stage.note if per_item else stage.issue)(failure)
                yield stage.event(stage.msg("search_failed", reason=failure))

            total = len(user_sources) + len(documents) + len(hits)
            yield stage.event(stage.msg("found", count=total))
            if documents:
                yield stage.event(stage.msg("reading_documents", count=len(documents)))

            # The journalist's sources were read when the plan was made; they lead the list.
            done = 0
            for source in user_sources:
                done += 1
                yield stage.event(self._progress_line(stage, done, total, source))
            if any(not s.is_reachable for s in user_sources):
                unreadable = [s.link for s in user_sources if not s.is_reachable]
                stage.note(
                    stage.msg(
                        "user_sources_unreadable", count=len(unreadable), urls=", ".join(unreadable)
                    )
                )
            found: dict[str, Source] = {}
            async for _text, result in jobs.events():
                if isinstance(result, Exception):
                    stage.note(stage.msg("source_crashed", error=result))
                    continue
                item, source = result
                found[_key(item)] = source
                done += 1
                yield stage.event(self._progress_line(stage, done, total, source, item))
        finally:
            jobs.cancel()
            await analyzer.aclose()
        items: list[SearchHit | ListedDocument] = [*documents, *hits]

        # The journalist's documents after their URLs, then the searches' hits in the order they
        # were chosen (not completion order), so numbering is stable across runs.
        sources = user_sources + [found[_key(i)] for i in items if _key(i) in found]
        set_aside = [s for s in sources if s.is_reachable and not s.relevant]
        for source in set_aside:
            stage.note(set_aside_note(source, stage.language))
        readable = [s for s in sources if s.usable]
        records = {keys.SOURCE_RECORDS: [s.model_dump(mode="json") for s in sources]}
        if not readable:
            reason = "; ".join(stage.issues + stage.notes) or stage.msg("search_empty")
            stage.issue(stage.msg("no_sources_issue"))
            yield stage.finish(stage.msg("no_sources", reason=one_line(reason, 400)), records)
            return
        high = sum(s.credibility_score >= 4 for s in readable)
        low = sum(s.credibility_score <= 2 for s in readable)
        summary = stage.msg(
            "sources_done",
            usable=stage.msg("n_sources", count=len(readable)),
            total=len(sources),  # as many as "found" said: the journalist's, documents, search
            high=stage.msg("n_high", count=high),
            medium=stage.msg("n_medium", count=len(readable) - high - low),
            low=stage.msg("n_low", count=low),
        )
        if set_aside:
            summary += "\n" + stage.msg("sources_set_aside", count=len(set_aside))
        yield stage.finish(summary, records)

    @staticmethod
    async def _documents(stage: Stage) -> list[ListedDocument]:
        """The documents of the investigation's collections (none named: the store is not asked)."""
        collections = stage.config.collections
        if not collections:
            return []
        documents = DocumentsInPlay.from_state(stage.state.get(keys.INVESTIGATION_DOCUMENTS))
        own = {a.collection for a in documents.attachments}
        reader = Reader(stage.ctx.session.user_id, stage.config.investigation_id)
        try:
            return await list_documents(collections, own, reader)
        except Exception as error:  # the web sources still carry the run
            logger.warning("could not list the documents of %s", collections, exc_info=True)
            stage.issue(
                stage.msg("documents_unavailable", error=f"{type(error).__name__}: {error}")
            )
            return []

    @staticmethod
    async def _saved_sources(stage: Stage) -> dict[str, Source]:
        """Sources an earlier, interrupted run of this investigation read and saved."""
        investigation_id = stage.config.investigation_id
        try:
            record = await asyncio.to_thread(repository().get_investigation, investigation_id)
        except Exception:  # nothing to reuse; the sources are read again
            logger.warning(
                "could not load the saved sources of %s", investigation_id, exc_info=True
            )
            return {}
        kept = {}
        for item in record.sources if record else []:
            source = Source.model_validate({**item.model_dump(), "source_id": None})
            if source.usable and source.content_sha256 and not source.is_user_provided:
                kept[source.url] = source
        return kept

    async def _plan_queries(self, stage: Stage) -> list[str]:
        config = stage.config
        fallback = [one_line(config.title or config.brief, 400)]
        try:
            plan = await stage.ask(
                SOURCE_FINDER_INSTRUCTION,
                data_block("BRIEF", config.brief),
                SearchPlan,
            )
        except ModelCallError as error:
            stage.issue(stage.msg("search_plan_failed", error=error))
            return fallback
        queries: list[str] = []
        for query in plan.queries:
            query = one_line(clean(query), 400)  # a query is not a place for links or markers
            if query and query.lower() not in {q.lower() for q in queries}:
                queries.append(query)
        return queries[:MAX_QUERIES] or fallback

    @staticmethod
    def _progress_line(stage: Stage, i: int, n: int, source: Source, item: object = None) -> str:
        if isinstance(item, ListedDocument):
            return _document_line(stage, i, n, source, item)
        if not source.is_reachable:
            # the reason in plain words; its technical detail for `--verbose` and the dashboard
            logger.warning("could not read %s: %s", source.link, source.unreachable_detail)
            return stage.msg(
                "source_unreadable", i=i, n=n, url=source.link, reason=source.unreachable_reason
            )
        if not source.relevant:
            return stage.msg(
                "source_off_topic",
                i=i,
                n=n,
                title=one_line(source.title, 120),
                domain=source.domain,
                reason=one_line(source.relevance_reason or "", 200),
            )
        finding = source.key_claims[0] if source.key_claims else source.content_summary
        return stage.msg(
            "analyzing_source",
            i=i,
            n=n,
            title=one_line(source.title, 120),
            stars=stars(source.credibility_score),
            label=credibility_label(source.credibility_score, stage.language),
            domain=source.domain,
            finding=one_line(finding, 160),
        )


class RoundRobin:
    """Which search hits fill the source limit: each search's first, then each one's second...,
    a page the first time it comes up (the journalist's own URLs are not taken again).

    Tavily's scores rank one search's results, not one search's against another's: each search
    of the plan gets its share of the limit. And a hit among its search's first
    `room // searches` is chosen whatever the other searches return, so it can be read as soon
    as its own search answers (`add`), while the others are still out.
    """

    def __init__(self, queries: list[str], room: int, known: set[str]) -> None:
        self.queries, self.room, self.known = queries, room, known
        self.share = room // len(queries) if queries else 0
        self._hits: dict[str, list[SearchHit]] = {}
        self._started: dict[str, SearchHit] = {}

    def add(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """One search's answer; the hits it makes sure of that were not sure before."""
        self._hits[query] = [h for h in hits if normalize_url(h.url) not in self.known]
        sure = []
        for hit in self._hits[query][: self.share]:
            if not self.started(hit):
                self._started[normalize_url(hit.url)] = hit
                sure.append(hit)
        return sure

    def started(self, hit: SearchHit) -> bool:
        return normalize_url(hit.url) in self._started

    @property
    def found(self) -> bool:
        return any(self._hits.values())

    def chosen(self) -> list[SearchHit]:
        """Every answer in: the hits that fill the room, in the plan's order, rank by rank."""
        lists = [self._hits.get(q, []) for q in self.queries]
        chosen: dict[str, SearchHit] = {}
        for rank in range(max(map(len, lists), default=0)):
            for hits in lists:
                if len(chosen) >= self.room:
                    return list(chosen.values())
                if rank < len(hits):
                    key = normalize_url(hits[rank].url)
                    chosen.setdefault(key, self._started.get(key, hits[rank]))
        return list(chosen.values())


def _key(item: SearchHit | ListedDocument) -> str:
    return item.info.url if isinstance(item, ListedDocument) else item.url


def _document_line(stage: Stage, i: int, n: int, source: Source, item: ListedDocument) -> str:
    """`📄 Reading document i/n: title (N pages)`, with its rating and first finding."""
    title = one_line(source.title, 120)
    if not source.is_reachable:
        return stage.msg(
            "document_unreadable", i=i, n=n, title=title, reason=source.unreachable_reason
        )
    finding = source.key_claims[0] if source.key_claims else source.content_summary
    return stage.msg(
        "analyzing_document",
        i=i,
        n=n,
        title=title,
        pages=stage.msg("n_pages", count=item.info.page_count),
        stars=stars(source.credibility_score),
        label=credibility_label(source.credibility_score, stage.language),
        collection=source.domain,
        finding=one_line(finding, 160),
    )


def set_aside_note(source: Source, language: str) -> str:
    """The report's line for a source read but set aside as off-topic."""
    why = f": {one_line(source.relevance_reason, 200)}" if source.relevance_reason else ""
    relevance = (
        message("relevance", language, pct=round(source.relevance * 100))
        if source.relevance is not None
        else ""
    )
    return message(
        "set_aside_note",
        language,
        relevance=relevance,
        title=one_line(source.title, 100),
        link=source.link,
        why=why,
    )
