"""The records store: one small synchronous repository over SQLAlchemy 2.

Every save method is one transaction (a batch) and is safe to call from several threads
(callers run it through `asyncio.to_thread`). SQLite is the default; PostgreSQL works too.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import zlib
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar, get_args

from sqlalchemy import Engine, func, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from vicaran_agent.config import get_settings
from vicaran_agent.schemas import (
    BiasAssessment,
    Claim,
    InvestigationConfig,
    Source,
    TimelineEvent,
    Verdict,
)
from vicaran_agent.storage import migrate, outbox
from vicaran_agent.storage.engines import create_engine_for
from vicaran_agent.storage.tables import (
    BiasRow,
    ClaimRow,
    EvidenceRow,
    FactCheckRow,
    IdempotencyRow,
    InvestigationRow,
    InvestigationSnapshotRow,
    OutboxRow,
    SnapshotRow,
    SourceRow,
    TimelineEventRow,
    new_id,
    utcnow,
)
from vicaran_agent.textmatch import sha256_text

logger = logging.getLogger(__name__)

FinalStatus = Literal["completed", "partial", "failed"]
FINISHED = ("completed", "partial", "failed", "interrupted")
T = TypeVar("T")

# `callback_idempotency.status_code` of a claimed key whose reply is not stored yet.
IDEMPOTENCY_PENDING = 0
_WRITE_ATTEMPTS = 3  # an IntegrityError from a concurrent insert is retried as an update
_SOURCE_FIELDS = (
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
_PER_SOURCE_FIELDS = ("source_id", "url", "bias_score", "stance", "indicators")


class UnknownInvestigationError(KeyError):
    """A save named an investigation that was never started."""


class InvestigationFinishedError(Exception):
    """A finished investigation is never reopened."""

    def __init__(self, investigation_id: str, status: str) -> None:
        super().__init__(investigation_id)
        self.investigation_id = investigation_id
        self.status = status


class InvestigationTakenError(Exception):
    """The investigation id belongs to another conversation."""

    def __init__(self, investigation_id: str, status: str) -> None:
        super().__init__(investigation_id)
        self.investigation_id = investigation_id
        self.status = status


class Repository:
    """Saves and reads investigation records; one instance per database URL."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._sqlite = make_url(database_url).get_backend_name() == "sqlite"
        self._lock: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        self._engine, memory = create_engine_for(database_url)
        if memory:  # one shared connection: every call is serialized by a lock
            self._lock = threading.RLock()
        self._writer: Engine = self._engine
        if self._sqlite:
            self._writer = self._engine.execution_options(vicaran_write=True)
            migrate.upgrade(self._writer)  # SQLite: always at the schema this code needs
        else:
            try:  # PostgreSQL: only `vicaran db upgrade` migrates
                migrate.require_current(self._engine)
            except BaseException:
                self._engine.dispose()
                raise

    # --- transactions ----------------------------------------------------------------------

    def _write(self, operation: Callable[[Session], T]) -> T:
        """Run `operation` in one write transaction (retried if a concurrent insert won)."""
        attempt = 0
        while True:
            try:
                with self._lock, Session(self._writer) as session, session.begin():
                    return operation(session)
            except IntegrityError:
                attempt += 1
                if attempt >= _WRITE_ATTEMPTS:
                    raise
                logger.info("retrying a store write after a concurrent insert")

    def _read(self, operation: Callable[[Session], T]) -> T:
        """Run `operation` in one read transaction (a consistent snapshot)."""
        with self._lock, Session(self._engine) as session, session.begin():
            return operation(session)

    def write(self, operation: Callable[[Session], T]) -> T:
        """`_write` for other stores that keep their tables in this database (documents)."""
        return self._write(operation)

    def read(self, operation: Callable[[Session], T]) -> T:
        """`_read` for other stores that keep their tables in this database (documents)."""
        return self._read(operation)

    @property
    def dialect(self) -> str:
        """The database's SQLAlchemy dialect name ("sqlite", "postgresql", ...)."""
        return self._engine.dialect.name

    @staticmethod
    def _require(session: Session, investigation_id: str) -> InvestigationRow:
        row = session.get(InvestigationRow, investigation_id)
        if row is None:
            raise UnknownInvestigationError(investigation_id)
        row.updated_at = utcnow()
        return row

    # --- writes ----------------------------------------------------------------------------

    def _enqueue_rows(
        self, session: Session, investigation_id: str, kind: str, rows: list[Any]
    ) -> None:
        """Queue the saved rows for the callback API, in this same transaction."""
        if not outbox.queueing():
            return
        session.flush()
        for row in rows:
            local_id, data = outbox.payload(kind, row)
            outbox.enqueue(session, investigation_id, kind, local_id, data)

    @staticmethod
    def _enqueue_interrupted(session: Session, row: InvestigationRow) -> None:
        """An interrupted run is delivered to the callback API as INVESTIGATION_PARTIAL."""
        if outbox.queueing():
            outbox.enqueue_interrupted(session, row)

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
            elif not reopen and (status := _effective_status(row, now)) in FINISHED:
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

    def owner(self, investigation_id: str) -> tuple[str | None, str] | None:
        """(owning session id, status) of a saved investigation, or None when it is unknown."""

        def op(session: Session) -> tuple[str | None, str] | None:
            row = session.get(InvestigationRow, investigation_id)
            return None if row is None else (row.session_id, _effective_status(row, utcnow()))

        return self._read(op)

    def heartbeat(self, investigation_ids: Iterable[str]) -> None:
        """A sign of life from the process running these investigations."""
        wanted = list(investigation_ids)
        if not wanted:
            return

        def op(session: Session) -> None:
            now = utcnow()
            for row in session.scalars(
                select(InvestigationRow).where(
                    InvestigationRow.id.in_(wanted), InvestigationRow.status == "in_progress"
                )
            ):
                row.heartbeat_at = now

        self._write(op)

    def mark_interrupted(self, investigation_ids: Iterable[str], reason: str) -> list[str]:
        """Runs that stopped mid-way become `interrupted` (only those still in progress); when
        saves queue for the callback API, each is queued as INVESTIGATION_PARTIAL, once."""
        wanted = list(investigation_ids)
        if not wanted:
            return []

        def op(session: Session) -> list[str]:
            rows = list(
                session.scalars(
                    select(InvestigationRow).where(
                        InvestigationRow.id.in_(wanted), InvestigationRow.status == "in_progress"
                    )
                )
            )
            now = utcnow()
            for row in rows:
                row.status, row.error, row.updated_at = "interrupted", reason, now
                self._enqueue_interrupted(session, row)
            return [row.id for row in rows]

        return self._write(op)

    def sweep_stale(self, stale_seconds: float | None = None) -> list[str]:
        """Runs whose process died (no heartbeat for `stale_seconds`) become `interrupted`
        (and, when saves queue for the callback API, INVESTIGATION_PARTIAL records)."""

        def op(session: Session) -> list[str]:
            now = utcnow()
            rows = [
                row
                for row in session.scalars(
                    select(InvestigationRow).where(InvestigationRow.status == "in_progress")
                )
                if _stale(row, now, stale_seconds)
            ]
            for row in rows:
                row.status, row.updated_at = "interrupted", now
                row.error = STOPPED
                self._enqueue_interrupted(session, row)
            return [row.id for row in rows]

        return self._write(op)

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
            _keep_snapshots(
                session,
                investigation_id,
                texts or {},
                [s.content_sha256 for s in sources],
                foreign=foreign,
            )
            rows = {row.url: row for row in _all(session, SourceRow, investigation_id)}
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
                for field in _SOURCE_FIELDS:
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
            rows = {row.key: row for row in _all(session, ClaimRow, investigation_id)}
            sources = _SourceIndex(_all(session, SourceRow, investigation_id))
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
            _keep_snapshots(session, investigation_id, texts or {}, shas, foreign=foreign)
            claims = {row.id: row for row in _all(session, ClaimRow, investigation_id)}
            claims_by_key = {row.key: row for row in claims.values()}
            rows = {row.claim_id: row for row in _all(session, FactCheckRow, investigation_id)}
            sources = _SourceIndex(_all(session, SourceRow, investigation_id))
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
            sources = _SourceIndex(_all(session, SourceRow, investigation_id))
            per_source = []
            for item in bias.per_source:
                entry = item.model_dump(include=set(_PER_SOURCE_FIELDS))
                if entry["source_id"] not in sources.by_id:
                    found = sources.by_url.get(item.url)
                    entry["source_id"] = found.id if found else None
                per_source.append({field: entry[field] for field in _PER_SOURCE_FIELDS})
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
            sources = _SourceIndex(_all(session, SourceRow, investigation_id))
            existing = _all(session, TimelineEventRow, investigation_id)
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
            sources = _SourceIndex(_all(session, SourceRow, investigation_id))
            position = len(_all(session, TimelineEventRow, investigation_id))
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

    # --- idempotent callback replies (the server side of the callback API) -----------------

    def get_idempotent(self, key: str) -> tuple[str, int, dict[str, Any]] | None:
        """(request hash, status code, response) stored for `key`, or None (also while pending)."""

        def op(session: Session) -> tuple[str, int, dict[str, Any]] | None:
            row = session.get(IdempotencyRow, key)
            if row is None or row.status_code == IDEMPOTENCY_PENDING:
                return None
            return row.request_hash, row.status_code, dict(row.response)

        return self._read(op)

    def claim_idempotent(
        self, key: str, request_hash: str, stale_seconds: float
    ) -> tuple[str, int, dict[str, Any]] | None:
        """Claim `key` for this request: None when claimed, else what holds it.

        The key is the primary key, so of concurrent claims on any replica exactly one INSERT
        commits; the others get its (hash, status, reply), status `IDEMPOTENCY_PENDING` while
        the winner writes. A pending claim older than `stale_seconds` (its process died) is
        deleted and claimed again.
        """
        while True:
            try:
                with self._lock, Session(self._writer) as session, session.begin():
                    session.add(
                        IdempotencyRow(
                            key=key,
                            request_hash=request_hash,
                            status_code=IDEMPOTENCY_PENDING,
                            response={},
                        )
                    )
                return None
            except IntegrityError:
                pass

            def holder(session: Session) -> tuple[str, int, dict[str, Any]] | None:
                row = session.get(IdempotencyRow, key)
                if row is None:
                    return None  # released meanwhile: claim again
                stale = utcnow() - timedelta(seconds=stale_seconds)
                if row.status_code == IDEMPOTENCY_PENDING and _aware(row.created_at) < stale:
                    session.delete(row)
                    logger.warning("took over the stale Idempotency-Key claim %r", key)
                    return None
                return row.request_hash, row.status_code, dict(row.response)

            found = self._write(holder)
            if found is not None:
                return found

    def put_idempotent(
        self, key: str, request_hash: str, status_code: int, response: dict[str, Any]
    ) -> None:
        """Store the reply for `key` (completing this request's claim)."""

        def op(session: Session) -> None:
            row = session.get(IdempotencyRow, key)
            if row is None:
                session.add(
                    IdempotencyRow(
                        key=key,
                        request_hash=request_hash,
                        status_code=status_code,
                        response=response,
                    )
                )
            elif row.status_code == IDEMPOTENCY_PENDING:
                row.status_code, row.response = status_code, response

        self._write(op)

    def release_idempotent(self, key: str) -> None:
        """Drop a pending claim (its request failed), so a retry can proceed."""

        def op(session: Session) -> None:
            row = session.get(IdempotencyRow, key)
            if row is not None and row.status_code == IDEMPOTENCY_PENDING:
                session.delete(row)

        self._write(op)

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

    # --- snapshots: the texts Vicaran read ------------------------------------------------

    def save_snapshots(self, texts: dict[str, str]) -> None:
        """Store texts by SHA-256 (read before an investigation is saved, e.g. the user's URLs)."""
        if texts:
            self._write(lambda session: _keep_snapshots(session, None, texts, []))

    def get_snapshot(self, investigation_id: str, sha256: str) -> str | None:
        """A snapshot one of the investigation's records rests on, or None."""

        def op(session: Session) -> str | None:
            linked = session.get(InvestigationSnapshotRow, (investigation_id, sha256))
            row = session.get(SnapshotRow, sha256) if linked else None
            return _unpack(row) if row else None

        return self._read(op)

    def get_snapshots(self, investigation_id: str) -> dict[str, str]:
        """Every snapshot the investigation's records rest on, {sha256: text}."""

        def op(session: Session) -> dict[str, str]:
            rows = session.scalars(
                select(SnapshotRow)
                .join(
                    InvestigationSnapshotRow,
                    InvestigationSnapshotRow.sha256 == SnapshotRow.sha256,
                )
                .where(InvestigationSnapshotRow.investigation_id == investigation_id)
                .order_by(SnapshotRow.sha256)
            )
            return {row.sha256: _unpack(row) for row in rows}

        return self._read(op)

    def get_snapshot_text(self, sha256: str) -> str | None:
        """Any stored snapshot by its name (for the pipeline; readers use `get_snapshot`)."""

        def op(session: Session) -> str | None:
            row = session.get(SnapshotRow, sha256)
            return _unpack(row) if row else None

        return self._read(op)

    # --- the callback outbox (read and updated by the deliverer) ----------------------------

    def outbox_claim(
        self,
        owner: str,
        now: datetime | None,
        lease_seconds: float,
        *,
        exclude: Collection[int] = (),
        limit: int = 32,
        at: datetime | None = None,
    ) -> list[outbox.Delivery]:
        """Claim for `owner` (a lease from `at`, default now) per investigation its leading
        pending deliveries, when due."""
        lease = timedelta(seconds=lease_seconds)
        return self._write(
            lambda session: outbox.claim(
                session, owner, now, lease, exclude=exclude, limit=limit, at=at
            )
        )

    def outbox_remote_ids(self, local_ids: set[str]) -> dict[str, str]:
        return self._read(lambda session: outbox.remote_ids(session, local_ids))

    def outbox_update(self, delivery_id: int, owner: str | None = None, **fields: Any) -> None:
        """Record the outcome of one delivery attempt (status, response, remote id, ...).

        `owner`'s claim on the row ends (another deliverer's newer claim is left alone).
        """

        def op(session: Session) -> None:
            row = session.get(OutboxRow, delivery_id)
            if row is not None:
                for name, value in fields.items():
                    setattr(row, name, value)
                if owner is not None and row.claimed_by == owner:
                    row.claimed_by = row.claimed_until = None

        self._write(op)

    def outbox_release(self, owner: str, delivery_ids: Collection[int]) -> None:
        """End `owner`'s claims on these rows (it stopped before sending them)."""

        def op(session: Session) -> None:
            rows = session.scalars(
                select(OutboxRow).where(
                    OutboxRow.id.in_(list(delivery_ids)), OutboxRow.claimed_by == owner
                )
            )
            for row in rows:
                row.claimed_by = row.claimed_until = None

        self._write(op)

    def outbox_summary(self) -> dict[str, Any]:
        """Counts by status, and every delivery that failed for good with its response."""

        def op(session: Session) -> dict[str, Any]:
            grouped = select(OutboxRow.status, func.count()).group_by(OutboxRow.status)
            counts = {status: n for status, n in session.execute(grouped)}
            failed = session.scalars(
                select(OutboxRow).where(OutboxRow.status == "failed").order_by(OutboxRow.id)
            )
            waiting = session.scalars(
                select(OutboxRow)
                .where(OutboxRow.status == "pending", OutboxRow.attempts > 0)
                .order_by(OutboxRow.id)
            )
            return {
                "counts": {k: counts.get(k, 0) for k in ("pending", "delivered", "failed")},
                "failed": [_outbox_dict(r) for r in failed],
                "retrying": [_outbox_dict(r) for r in waiting],
            }

        return self._read(op)

    # --- reads -----------------------------------------------------------------------------

    def get_status(self, investigation_id: str) -> str | None:
        """The investigation's status, or None when it is unknown."""

        def op(session: Session) -> str | None:
            row = session.get(InvestigationRow, investigation_id)
            return None if row is None else _effective_status(row, utcnow())

        return self._read(op)

    def get_investigation(self, investigation_id: str) -> dict[str, Any] | None:
        """Everything about one investigation as plain JSON-able dicts, or None."""
        return self._read(lambda session: _investigation_dict(session, investigation_id))

    def list_investigations(self) -> list[dict[str, Any]]:
        """Every investigation, newest first, with record counts."""

        def count(model: Any) -> Any:
            return (
                select(func.count())
                .select_from(model)
                .where(model.investigation_id == InvestigationRow.id)
                .scalar_subquery()
            )

        statement = select(
            InvestigationRow,
            count(SourceRow),
            count(ClaimRow),
            count(FactCheckRow),
        ).order_by(InvestigationRow.created_at.desc(), InvestigationRow.id)

        def op(session: Session) -> list[dict[str, Any]]:
            now = utcnow()
            return [
                {
                    "id": row.id,
                    "title": row.title,
                    "mode": row.mode,
                    "status": _effective_status(row, now),
                    "source_count": sources,
                    "claim_count": claims,
                    "fact_check_count": fact_checks,
                    "created_at": _iso(row.created_at),
                    "updated_at": _iso(row.updated_at),
                }
                for row, sources, claims, fact_checks in session.execute(statement)
            ]

        return self._read(op)

    def close(self) -> None:
        """Release the connections (and forget this instance in the per-URL cache)."""
        with _REPOSITORIES_LOCK:
            if _REPOSITORIES.get(self.database_url) is self:
                del _REPOSITORIES[self.database_url]
        self._engine.dispose()


_REPOSITORIES: dict[str, Repository] = {}
_REPOSITORIES_LOCK = threading.Lock()


def get_repository(database_url: str) -> Repository:
    """The process-wide Repository for `database_url` (created on first use)."""
    with _REPOSITORIES_LOCK:
        repository = _REPOSITORIES.get(database_url)
        if repository is None:
            repository = _REPOSITORIES[database_url] = Repository(database_url)
        return repository


# --- helpers -----------------------------------------------------------------------------


STOPPED = "The process running this investigation stopped before it finished."


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _stale(row: InvestigationRow, now: datetime, stale_seconds: float | None = None) -> bool:
    """A run of this deployment (it has a conversation) that has shown no sign of life.

    Investigations another agent reports through the callback API have no conversation here:
    their liveness is not this store's to judge.
    """
    if row.session_id is None:
        return False
    limit = get_settings().stale_seconds if stale_seconds is None else stale_seconds
    seen = [_aware(t) for t in (row.heartbeat_at, row.updated_at) if t is not None]
    return not seen or (now - max(seen)).total_seconds() > limit


def _effective_status(row: InvestigationRow, now: datetime) -> str:
    """The status as readers should see it: a run nobody is running is not live."""
    if row.status == "in_progress" and _stale(row, now):
        return "interrupted"
    return row.status


def _all(session: Session, model: Any, investigation_id: str) -> list[Any]:
    return list(session.scalars(select(model).where(model.investigation_id == investigation_id)))


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


def _keep_snapshots(
    session: Session,
    investigation_id: str | None,
    texts: dict[str, str],
    shas: Iterable[str | None],
    *,
    foreign: bool = False,
) -> None:
    """Insert the texts not stored yet; link every named snapshot that exists to the investigation.

    `foreign` (records from outside): a name alone links nothing; only a carried text that
    hashes to its name is stored and linked. Knowing a hash never opens another
    investigation's text.
    """
    if foreign:
        texts = {sha: text for sha, text in texts.items() if sha256_text(text) == sha}
        shas = ()
    wanted = set(texts) | {sha for sha in shas if sha}
    if not wanted:
        return
    have = set(session.scalars(select(SnapshotRow.sha256).where(SnapshotRow.sha256.in_(wanted))))
    for sha, text in texts.items():
        if sha not in have:
            session.add(
                SnapshotRow(
                    sha256=sha, size=len(text), compressed=zlib.compress(text.encode("utf-8"))
                )
            )
            have.add(sha)
    if investigation_id is None:
        return
    linked = set(
        session.scalars(
            select(InvestigationSnapshotRow.sha256).where(
                InvestigationSnapshotRow.investigation_id == investigation_id,
                InvestigationSnapshotRow.sha256.in_(wanted),
            )
        )
    )
    session.flush()
    for sha in sorted((wanted & have) - linked):
        session.add(InvestigationSnapshotRow(investigation_id=investigation_id, sha256=sha))


def _unpack(row: SnapshotRow) -> str:
    return zlib.decompress(row.compressed).decode("utf-8")


def _outbox_dict(row: OutboxRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "investigation_id": row.investigation_id,
        "type": row.type,
        "attempts": row.attempts,
        "last_error": row.last_error,
        "response_status": row.response_status,
        "response_body": row.response_body,
        "next_attempt_at": _iso(row.next_attempt_at),
    }


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite keeps no offset; the store only writes UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def _evidence_dict(item: EvidenceRow) -> dict[str, Any]:
    return {
        "url": item.url,
        "display_url": item.display_url or item.url,
        "title": item.title,
        "publisher": item.publisher,
        "reliability": item.reliability,
        "stance": item.stance,
        "snippet": item.snippet,
        "quote": item.quote or "",
        "query": item.query or "",
        "origin": item.origin or "web",
        "rating": item.rating,
        "retrieved_at": item.retrieved_at,
        "published_at": item.published_at,
        "published_at_source": item.published_at_source,
        "content_sha256": item.content_sha256,
        "independent": item.independent is not False,
        "independence_note": item.independence_note or "",
        "primary_record": bool(item.primary_record),
        "stance_note": item.stance_note or "",
        "document_id": item.document_id,
        "page": item.page,
        "territory_id": item.territory_id,
    }


def _investigation_dict(session: Session, investigation_id: str) -> dict[str, Any] | None:
    row = session.get(InvestigationRow, investigation_id)
    if row is None:
        return None
    status = _effective_status(row, utcnow())
    sources = sorted(_all(session, SourceRow, investigation_id), key=lambda r: r.position)
    url_of = {source.id: source.url for source in sources}
    claims = list(
        session.scalars(
            select(ClaimRow)
            .where(ClaimRow.investigation_id == investigation_id)
            .options(selectinload(ClaimRow.sources))
            .order_by(ClaimRow.position)
        )
    )
    fact_checks = list(
        session.scalars(
            select(FactCheckRow)
            .join(FactCheckRow.claim)
            .where(FactCheckRow.investigation_id == investigation_id)
            .options(selectinload(FactCheckRow.evidence), selectinload(FactCheckRow.sources))
            .order_by(ClaimRow.position)
        )
    )
    bias = session.scalars(
        select(BiasRow).where(BiasRow.investigation_id == investigation_id)
    ).one_or_none()
    events = sorted(
        _all(session, TimelineEventRow, investigation_id),
        key=lambda r: (r.event_date, r.position),
    )
    return {
        "id": row.id,
        "title": row.title,
        "brief": row.brief,
        "mode": row.mode,
        "language": row.language,
        "status": status,
        "partial_reason": row.partial_reason,
        "error": row.error or (STOPPED if status != row.status else None),
        "summary": row.summary,
        "overall_bias_score": row.overall_bias_score,
        "quality": dict(row.quality) if row.quality else None,
        "tokens": dict(row.tokens) if row.tokens else None,
        "created_at": _iso(row.created_at),
        "updated_at": _iso(row.updated_at),
        "completed_at": _iso(row.completed_at),
        "sources": [
            {
                "id": source.id,
                "source_id": source.id,
                "url": source.url,
                **{field: getattr(source, field) for field in _SOURCE_FIELDS},
                "display_url": source.display_url or source.url,
                "publisher": source.publisher or source.domain,
                "relevant": source.relevant is not False,
                "key_claims": list(source.key_claims or []),
                "created_at": _iso(source.created_at),
            }
            for source in sources
        ],
        "claims": [
            {
                "id": claim.id,
                "claim_id": claim.id,
                "key": claim.key,
                "claim_text": claim.claim_text,
                "importance": claim.importance,
                "entities": list(claim.entities or []),
                "origin": claim.origin or "source",
                "kind": claim.kind or "fact",
                "attributed_to": claim.attributed_to or "",
                "city": claim.city,
                "state": claim.state,
                "period_start": claim.period_start,
                "period_end": claim.period_end,
                "source_ids": [source.id for source in claim.sources],
                "source_urls": [source.url for source in claim.sources],
            }
            for claim in claims
        ],
        "fact_checks": [
            {
                "id": check.id,
                "fact_check_id": check.id,
                "claim_id": check.claim_id,
                "claim_key": check.claim.key,
                "claim_text": check.claim.claim_text,
                "verdict": check.verdict,
                "confidence": check.confidence,
                "explanation": check.explanation,
                "sufficient": check.sufficient,
                "queries": list(check.queries or []),
                "iterations": check.iterations,
                "stop_reason": check.stop_reason,
                "as_of": check.as_of,
                "evidence": [_evidence_dict(item) for item in check.evidence],
                "source_ids": [source.id for source in check.sources],
                "reasoning": list(check.reasoning or []),
            }
            for check in fact_checks
        ],
        "bias": None
        if bias is None
        else {
            "overall_bias_score": bias.overall_bias_score,
            "coverage": dict(bias.coverage or {}),
            "coverage_pct": dict(bias.coverage_pct or {}),
            "recommendation": bias.recommendation,
            "per_source": list(bias.per_source or []),
            "unrated": bias.unrated or 0,
        },
        "timeline": [
            {
                "id": item.id,
                "event_id": item.id,
                "event_date": item.event_date,
                "date_precision": item.date_precision,
                "event_text": item.event_text,
                "source_ids": list(item.source_ids or []),
                "source_urls": [url_of[i] for i in item.source_ids or [] if i in url_of],
            }
            for item in events
        ],
    }
