"""The investigation's records: started, each stage's records saved (queued for the callback
API in the same transaction), finished."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, get_args

from sqlalchemy import select
from sqlalchemy.orm import Session

from vicaran_agent.schemas import (
    BiasAssessment,
    Claim,
    InvestigationConfig,
    Source,
    TimelineEvent,
    Verdict,
)
from vicaran_agent.storage import outbox
from vicaran_agent.storage.base import (
    FINISHED,
    FinalStatus,
    InvestigationFinishedError,
    InvestigationTakenError,
    RecordsDatabase,
    UnknownInvestigationError,
    effective_status,
)
from vicaran_agent.storage.rows import (
    BiasRow,
    ClaimRow,
    EvidenceRow,
    FactCheckRow,
    InvestigationRow,
    SourceRow,
    TimelineEventRow,
)
from vicaran_agent.storage.snapshots import keep_snapshots
from vicaran_agent.storage.tables import new_id, utcnow

logger = logging.getLogger(__name__)

SOURCE_FIELDS = (
    "title",
    "domain",
    "credibility_score",
    "content_summary",
    "key_claims",
    "published_at",
    "published_at_source",
    "is_user_provided",
    "is_reachable",
    "unreachable_reason",
    "unreachable_detail",
    "origin",
    "display_url",
    "publisher",
    "retrieved_at",
    "content_sha256",
    "relevant",
    "relevance",
    "relevance_reason",
    "document_id",
    "page",
    "territory_id",
    "gazette_date",
    "txt_url",
)
PER_SOURCE_FIELDS = ("source_id", "url", "bias_score", "stance", "indicators")


class Records(RecordsDatabase):
    """Writes of the investigation and its records."""

    @staticmethod
    def _require(session: Session, investigation_id: str) -> InvestigationRow:
        row = session.get(InvestigationRow, investigation_id)
        if row is None:
            raise UnknownInvestigationError(investigation_id)
        row.updated_at = utcnow()
        return row

    @staticmethod
    def _enqueue_rows(session: Session, investigation_id: str, kind: str, rows: list[Any]) -> None:
        """Queue the saved rows for the callback API, in this same transaction."""
        if not outbox.queueing():
            return
        session.flush()
        outbox.enqueue_all(
            session, investigation_id, kind, (outbox.payload(kind, row) for row in rows)
        )

    def start_investigation(
        self,
        config: InvestigationConfig,
        session_id: str | None = None,
        *,
        reopen: bool = True,
    ) -> None:
        """Create or restart an investigation: status `in_progress`, no reason or error.

        With `session_id`, the investigation becomes that conversation's; an id another
        conversation owns is refused (InvestigationTakenError) unless its run was interrupted,
        in which case this conversation takes it over and continues it. `reopen=False` refuses
        a finished investigation (InvestigationFinishedError), in the same transaction.
        """

        def op(session: Session) -> None:
            row = session.get(InvestigationRow, config.investigation_id)
            now = utcnow()
            if row is None:
                row = InvestigationRow(id=config.investigation_id, created_at=now)
                session.add(row)
            elif not reopen and (status := effective_status(row, now)) in FINISHED:
                raise InvestigationFinishedError(config.investigation_id, status)
            elif (
                session_id is not None
                and row.session_id not in (None, session_id)
                and row.status != "interrupted"
            ):
                raise InvestigationTakenError(config.investigation_id, row.status)
            if session_id is not None:
                row.session_id = session_id
            row.title = config.title
            row.brief = config.brief
            row.mode = config.mode
            row.language = config.language
            row.status = "in_progress"
            row.partial_reason = None
            row.error = None
            row.completed_at = None
            row.updated_at = now
            row.heartbeat_at = now
            self._enqueue_rows(session, config.investigation_id, "INVESTIGATION_STARTED", [row])

        self._write(op)

    def save_sources(
        self,
        investigation_id: str,
        sources: list[Source],
        texts: dict[str, str] | None = None,
        *,
        foreign: bool = False,
    ) -> dict[str, str]:
        """Upsert sources by url; returns {url: source_id} (stable across re-saves).

        `texts` ({sha256: text}) are stored as snapshots, and every source's snapshot is linked
        to the investigation, in the same transaction. `foreign`: records sent from outside (the
        callback API) link only the snapshots whose text they carry, never one stored for
        another investigation.
        """

        def op(session: Session) -> dict[str, str]:
            self._require(session, investigation_id)
            keep_snapshots(
                session,
                investigation_id,
                texts or {},
                [s.content_sha256 for s in sources],
                foreign=foreign,
            )
            rows = {row.url: row for row in all_rows(session, SourceRow, investigation_id)}
            position = max((row.position for row in rows.values()), default=-1) + 1
            ids: dict[str, str] = {}
            for source in sources:
                row = rows.get(source.url)
                if row is None:
                    row = SourceRow(
                        id=new_id(),
                        investigation_id=investigation_id,
                        url=source.url,
                        position=position,
                        created_at=utcnow(),
                    )
                    position += 1
                    session.add(row)
                    rows[source.url] = row
                for field in SOURCE_FIELDS:
                    setattr(row, field, getattr(source, field))
                ids[source.url] = row.id
            saved = [rows[source.url] for source in sources]
            self._enqueue_rows(session, investigation_id, "SOURCE_FOUND", saved)
            return ids

        return self._write(op)

    def save_claims(self, investigation_id: str, claims: list[Claim]) -> dict[str, str]:
        """Upsert claims by key and link their sources; returns {claim.key: claim_id}."""

        def op(session: Session) -> dict[str, str]:
            self._require(session, investigation_id)
            rows = {row.key: row for row in all_rows(session, ClaimRow, investigation_id)}
            sources = _SourceIndex(all_rows(session, SourceRow, investigation_id))
            position = max((row.position for row in rows.values()), default=-1) + 1
            ids: dict[str, str] = {}
            for claim in claims:
                row = rows.get(claim.key)
                if row is None:
                    row = ClaimRow(
                        id=new_id(),
                        investigation_id=investigation_id,
                        key=claim.key,
                        position=position,
                    )
                    position += 1
                    session.add(row)
                    rows[claim.key] = row
                row.claim_text = claim.claim_text
                row.importance = claim.importance
                row.entities = list(claim.entities)
                row.origin = claim.origin
                row.kind, row.attributed_to = claim.kind, claim.attributed_to or None
                row.city, row.state = claim.city or None, claim.state or None
                row.period_start = claim.period_start or None
                row.period_end = claim.period_end or None
                row.sources = sources.resolve(claim.source_ids, claim.source_urls, claim.key)
                ids[claim.key] = row.id
            saved = [rows[claim.key] for claim in claims]
            self._enqueue_rows(session, investigation_id, "CLAIM_EXTRACTED", saved)
            return ids

        return self._write(op)

    def save_verdicts(
        self,
        investigation_id: str,
        verdicts: list[Verdict],
        texts: dict[str, str] | None = None,
        *,
        foreign: bool = False,
    ) -> dict[str, str]:
        """Upsert one fact-check per claim; returns {verdict.claim_key: fact_check_id}.

        The claim is found by `claim_id` (or by `claim_key` when no id is given); a verdict
        whose claim is not in this investigation is skipped and logged. Evidence is replaced.
        `texts`, the evidence's snapshots and `foreign` are as in `save_sources`.
        """

        def op(session: Session) -> dict[str, str]:
            self._require(session, investigation_id)
            shas = [e.content_sha256 for v in verdicts for e in v.evidence]
            keep_snapshots(session, investigation_id, texts or {}, shas, foreign=foreign)
            claims = {row.id: row for row in all_rows(session, ClaimRow, investigation_id)}
            claims_by_key = {row.key: row for row in claims.values()}
            rows = {row.claim_id: row for row in all_rows(session, FactCheckRow, investigation_id)}
            sources = _SourceIndex(all_rows(session, SourceRow, investigation_id))
            ids: dict[str, str] = {}
            saved: list[FactCheckRow] = []
            for verdict in verdicts:
                claim = (
                    claims.get(verdict.claim_id)
                    if verdict.claim_id
                    else claims_by_key.get(verdict.claim_key)
                )
                if claim is None:
                    logger.warning(
                        "skipping verdict %s: claim %r is not in investigation %s",
                        verdict.claim_key,
                        verdict.claim_id,
                        investigation_id,
                    )
                    continue
                row = rows.get(claim.id)
                if row is None:
                    row = FactCheckRow(
                        id=new_id(), investigation_id=investigation_id, claim_id=claim.id
                    )
                    session.add(row)
                    rows[claim.id] = row
                row.verdict = verdict.verdict
                row.confidence = verdict.confidence
                row.explanation = verdict.explanation
                row.sufficient = verdict.sufficient
                row.queries = list(verdict.queries)
                row.iterations = verdict.iterations
                row.stop_reason = verdict.stop_reason
                row.as_of = verdict.as_of
                row.reasoning = list(verdict.reasoning)
                row.evidence = [
                    EvidenceRow(id=new_id(), position=i, **item.model_dump())
                    for i, item in enumerate(verdict.evidence)
                ]
                row.sources = sources.resolve(verdict.source_ids, [], verdict.claim_key)
                ids[verdict.claim_key] = row.id
                saved.append(row)
            self._enqueue_rows(session, investigation_id, "FACT_CHECKED", saved)
            return ids

        return self._write(op)

    def save_bias(self, investigation_id: str, bias: BiasAssessment) -> None:
        """Upsert the bias assessment and copy its overall score onto the investigation."""

        def op(session: Session) -> None:
            investigation = self._require(session, investigation_id)
            sources = _SourceIndex(all_rows(session, SourceRow, investigation_id))
            per_source = []
            for item in bias.per_source:
                entry = item.model_dump(include=set(PER_SOURCE_FIELDS))
                if entry["source_id"] not in sources.by_id:
                    found = sources.by_url.get(item.url)
                    entry["source_id"] = found.id if found else None
                per_source.append({field: entry[field] for field in PER_SOURCE_FIELDS})
            row = session.scalars(
                select(BiasRow).where(BiasRow.investigation_id == investigation_id)
            ).one_or_none()
            if row is None:
                row = BiasRow(id=new_id(), investigation_id=investigation_id)
                session.add(row)
            row.overall_bias_score = bias.overall_bias_score
            row.coverage = dict(bias.coverage)
            row.coverage_pct = dict(bias.coverage_pct)
            row.recommendation = bias.recommendation
            row.per_source = per_source
            row.unrated = bias.unrated
            investigation.overall_bias_score = bias.overall_bias_score
            self._enqueue_rows(session, investigation_id, "BIAS_ANALYZED", [row])

        self._write(op)

    def save_timeline(self, investigation_id: str, events: list[TimelineEvent]) -> list[str]:
        """Replace the investigation's events; returns their ids in the given order.

        An event with the same date and text as a saved one keeps its id.
        """

        def op(session: Session) -> list[str]:
            self._require(session, investigation_id)
            sources = _SourceIndex(all_rows(session, SourceRow, investigation_id))
            existing = all_rows(session, TimelineEventRow, investigation_id)
            old: dict[tuple[str, str], TimelineEventRow] = {}
            saved: list[TimelineEventRow] = []
            for row in existing:
                old.setdefault((row.event_date, row.event_text), row)
            ids: list[str] = []
            for position, event_ in enumerate(events):
                row = old.pop((event_.event_date, event_.event_text), None)
                if row is None:
                    row = TimelineEventRow(
                        id=new_id(),
                        investigation_id=investigation_id,
                        event_date=event_.event_date,
                        event_text=event_.event_text,
                    )
                    session.add(row)
                row.position = position
                row.date_precision = event_.date_precision
                row.disputed_dates = list(event_.disputed_dates) or None
                row.order_disputes = [d.model_dump() for d in event_.order_disputes] or None
                linked = sources.resolve(event_.source_ids, event_.source_urls, event_.event_date)
                row.source_ids = [source.id for source in linked]
                ids.append(row.id)
                saved.append(row)
            kept = set(ids)
            for row in existing:
                if row.id not in kept:
                    session.delete(row)
            self._enqueue_rows(session, investigation_id, "TIMELINE_EVENT", saved)
            return ids

        return self._write(op)

    def add_timeline_event(self, investigation_id: str, event: TimelineEvent) -> str:
        """Append one event (as the callback API receives them); returns its id."""

        def op(session: Session) -> str:
            self._require(session, investigation_id)
            sources = _SourceIndex(all_rows(session, SourceRow, investigation_id))
            position = len(all_rows(session, TimelineEventRow, investigation_id))
            linked = sources.resolve(event.source_ids, event.source_urls, event.event_date)
            row = TimelineEventRow(
                id=new_id(),
                investigation_id=investigation_id,
                position=position,
                event_date=event.event_date,
                date_precision=event.date_precision,
                event_text=event.event_text,
                source_ids=[source.id for source in linked],
            )
            session.add(row)
            self._enqueue_rows(session, investigation_id, "TIMELINE_EVENT", [row])
            return row.id

        return self._write(op)

    def finish_investigation(
        self,
        investigation_id: str,
        status: FinalStatus,
        *,
        summary: str | None = None,
        partial_reason: str | None = None,
        error: str | None = None,
        overall_bias_score: float | None = None,
        quality: dict[str, Any] | None = None,
        tokens: dict[str, Any] | None = None,
    ) -> None:
        """Set the final status (and completed_at); a None summary (quality, tokens) keeps the saved one."""
        if status not in get_args(FinalStatus):
            raise ValueError(f"not a final status: {status!r}")

        def op(session: Session) -> None:
            row = self._require(session, investigation_id)
            row.status = status
            if summary is not None:
                row.summary = summary
            row.partial_reason = partial_reason
            row.error = error
            if overall_bias_score is not None:
                row.overall_bias_score = overall_bias_score
            if quality is not None:
                row.quality = quality
            if tokens is not None:
                row.tokens = tokens
            row.completed_at = row.updated_at
            kind = {"completed": "INVESTIGATION_COMPLETE", "partial": "INVESTIGATION_PARTIAL"}
            self._enqueue_rows(
                session, investigation_id, kind.get(status, "INVESTIGATION_FAILED"), [row]
            )

        self._write(op)


class _SourceIndex:
    """An investigation's sources by id and by url."""

    def __init__(self, rows: Iterable[SourceRow]) -> None:
        self.by_id = {row.id: row for row in rows}
        self.by_url = {row.url: row for row in self.by_id.values()}

    def resolve(self, ids: list[str], urls: list[str], owner: str) -> list[SourceRow]:
        """Known sources named by id or url, in order, without repeats."""
        unknown = [source_id for source_id in ids if source_id not in self.by_id]
        if unknown:
            logger.warning("%s: ignoring unknown source ids %s", owner, unknown)
        found = [self.by_id[i] for i in ids if i in self.by_id]
        found += [self.by_url[url] for url in urls if url in self.by_url]
        return list(dict.fromkeys(found))


def all_rows(session: Session, model: Any, investigation_id: str) -> list[Any]:
    return list(session.scalars(select(model).where(model.investigation_id == investigation_id)))
