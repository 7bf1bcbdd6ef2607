"""Reading investigations back: their status, one with all its records, the list, the editors'
standing decisions, the archived pages, the callback outbox (typed views: `read_model.py`,
built by `viewing.py`).

Core only (`tables.py`, `RecordsDatabase._query`): what reads loads no ORM, so the `vicaran`
commands that only read start quickly. Each function here takes a Core connection or an ORM
session (both execute Core statements), so writers use the same reads inside their
transactions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, ScalarSelect, Table, func, select

from vicaran_agent import services
from vicaran_agent.read_model import (
    InvestigationListItem,
    InvestigationView,
    OutboxCounts,
    OutboxDelivery,
    OutboxSummary,
    ReviewView,
)
from vicaran_agent.storage import tables
from vicaran_agent.storage.base import STOPPED, RecordsDatabase, effective_status
from vicaran_agent.storage.tables import iso, utcnow
from vicaran_agent.storage.viewing import investigation_view

if TYPE_CHECKING:
    from sqlalchemy.engine import Row
    from sqlalchemy.orm import Session

    Executor = Connection | Session

SHORT_ID = 8  # hex digits: the shortest prefix that names an investigation
_ID_CHARACTERS = frozenset("0123456789abcdef-")


class AmbiguousIdError(LookupError):
    """A short id that more than one investigation's id starts with."""

    def __init__(self, given: str, matches: list[str]) -> None:
        super().__init__(given)
        self.given, self.matches = given, matches

    def __str__(self) -> str:
        return (
            f"{self.given} is the start of more than one investigation's id "
            f"({', '.join(self.matches)}): give more of it."
        )


class Reads(RecordsDatabase):
    """What readers (the API, the dashboard, exports, `vicaran outbox`) get.

    Wherever an investigation is named, its full id or any unique prefix of at least
    `SHORT_ID` hex digits (the short id in file names) will do.
    """

    def resolve_id(self, given: str) -> str | None:
        """The full id `given` names, or None when it names none (AmbiguousIdError: several)."""
        return self._query(lambda connection: _resolve(connection, given))

    def get_status(self, investigation_id: str) -> str | None:
        """The investigation's status, or None when it is unknown."""

        def op(connection: Connection) -> str | None:
            row = _investigation(connection, investigation_id)
            return None if row is None else effective_status(row, utcnow())

        return self._query(op)

    def get_investigation(self, investigation_id: str) -> InvestigationView | None:
        """Everything about one investigation (its id or a short id), or None when unknown."""

        def op(connection: Connection) -> InvestigationView | None:
            full_id = _resolve(connection, investigation_id)
            return None if full_id is None else _investigation_view(connection, full_id)

        return self._query(op)

    def list_investigations(self) -> list[InvestigationListItem]:
        """Every investigation, newest first, with record counts."""
        investigations = tables.investigations

        def count(table: Table) -> ScalarSelect[int]:
            return (
                select(func.count())
                .select_from(table)
                .where(table.c.investigation_id == investigations.c.id)
                .scalar_subquery()
            )

        statement = select(
            investigations,
            count(tables.sources).label("source_count"),
            count(tables.claims).label("claim_count"),
            count(tables.fact_checks).label("fact_check_count"),
        ).order_by(investigations.c.created_at.desc(), investigations.c.id)
        checks = tables.fact_checks.c
        by_verdict = select(checks.investigation_id, checks.verdict, func.count()).group_by(
            checks.investigation_id, checks.verdict
        )

        def op(connection: Connection) -> list[InvestigationListItem]:
            now = utcnow()
            verdicts: dict[str, dict[str, int]] = {}
            for investigation_id, verdict, n in connection.execute(by_verdict):
                verdicts.setdefault(investigation_id, {})[verdict] = n
            return [
                InvestigationListItem(
                    id=row.id,
                    title=row.title,
                    mode=row.mode,
                    status=effective_status(row, now),
                    source_count=row.source_count,
                    claim_count=row.claim_count,
                    fact_check_count=row.fact_check_count,
                    verdicts=verdicts.get(row.id, {}),
                    created_at=iso(row.created_at),
                    updated_at=iso(row.updated_at),
                )
                for row in connection.execute(statement)
            ]

        return self._query(op)

    def outbox_summary(self) -> OutboxSummary:
        """Counts by status, and every delivery that failed for good with its response."""
        outbox = tables.callback_outbox
        grouped = select(outbox.c.status, func.count()).group_by(outbox.c.status)
        failed = select(outbox).where(outbox.c.status == "failed").order_by(outbox.c.id)
        waiting = (
            select(outbox)
            .where(outbox.c.status == "pending", outbox.c.attempts > 0)
            .order_by(outbox.c.id)
        )

        def op(connection: Connection) -> OutboxSummary:
            counts = {status: n for status, n in connection.execute(grouped)}
            return OutboxSummary(
                counts=OutboxCounts(
                    **{k: counts.get(k, 0) for k in ("pending", "delivered", "failed")}
                ),
                failed=[_delivery(r) for r in connection.execute(failed)],
                retrying=[_delivery(r) for r in connection.execute(waiting)],
            )

        return self._query(op)


def get_reader(database_url: str) -> Reads:
    """What reads `database_url`: the process's repository when one is open, else a reader of
    its own (shared the same way) that loads no ORM - so `vicaran export` starts quickly."""
    shared = services.current()
    with shared.lock:
        reader = shared.repositories.get(database_url) or shared.readers.get(database_url)
        if reader is None:
            reader = shared.readers[database_url] = Reads(database_url)
        return reader


def _standing(executor: Executor, investigation_id: str) -> dict[str, Row[Any]]:
    """Each reviewed check's latest decision (approve or change; a note decides nothing)."""
    reviews = tables.reviews.c
    latest: dict[str, Row[Any]] = {}
    for row in executor.execute(
        select(tables.reviews)
        .where(reviews.investigation_id == investigation_id, reviews.action != "note")
        .order_by(reviews.id)
    ):
        latest[row.fact_check_id] = row
    return latest


def reviews_of(executor: Executor, investigation_id: str) -> dict[str, ReviewView]:
    """{fact-check id: its review as it stands} (unreviewed checks are left out)."""
    return {
        fact_check_id: ReviewView(
            status="changed" if row.action == "change" else "approved",
            reviewer=row.reviewer,
            at=iso(row.at),
            verdict_before=row.verdict_before,
            verdict_after=row.verdict_after,
            note=row.note,
        )
        for fact_check_id, row in _standing(executor, investigation_id).items()
    }


def captured(executor: Executor, investigation_id: str) -> dict[str, int]:
    """{normalized page address: id of its latest capture} for one investigation."""
    captures = tables.page_captures.c
    rows = executor.execute(
        select(captures.url_key, captures.id)
        .where(captures.investigation_id == investigation_id)
        .order_by(captures.id)
    )
    return {key: capture_id for key, capture_id in rows}


def _delivery(row: Row[Any]) -> OutboxDelivery:
    return OutboxDelivery(
        id=row.id,
        investigation_id=row.investigation_id,
        type=row.type,
        attempts=row.attempts,
        last_error=row.last_error,
        response_status=row.response_status,
        response_body=row.response_body,
        next_attempt_at=iso(row.next_attempt_at),
    )


def _investigation(connection: Connection, investigation_id: str) -> Row[Any] | None:
    investigations = tables.investigations
    return connection.execute(
        select(investigations).where(investigations.c.id == investigation_id)
    ).one_or_none()


def _resolve(connection: Connection, given: str) -> str | None:
    if _investigation(connection, given) is not None:
        return given
    prefix = given.strip().lower()
    digits = sum(c != "-" for c in prefix)
    if digits < SHORT_ID or not set(prefix) <= _ID_CHARACTERS:
        return None
    ids = tables.investigations.c.id
    matches = list(
        connection.scalars(
            select(ids).where(ids.startswith(prefix, autoescape=True)).order_by(ids).limit(5)
        )
    )
    if len(matches) > 1:
        raise AmbiguousIdError(given, matches)
    return matches[0] if matches else None


def _rows_of(connection: Connection, table: Table, investigation_id: str) -> list[Row[Any]]:
    return list(
        connection.execute(select(table).where(table.c.investigation_id == investigation_id))
    )


def _linked_sources(
    connection: Connection, link: Table, key: str, investigation_id: str
) -> dict[str, list[Row[Any]]]:
    """{claim or check id: the saved sources it cites (their id and url), in their order}."""
    sources = tables.sources.c
    return _grouped(
        connection.execute(
            select(link.c[key].label("owner"), sources.id, sources.url)
            .join(tables.sources, sources.id == link.c.source_id)
            .where(sources.investigation_id == investigation_id)
            .order_by(sources.position)
        ),
        "owner",
    )


def _evidence(connection: Connection, investigation_id: str) -> dict[str, list[Row[Any]]]:
    """{check id: its evidence, in the checker's order}."""
    evidence, checks = tables.evidence.c, tables.fact_checks.c
    return _grouped(
        connection.execute(
            select(tables.evidence)
            .join(tables.fact_checks, checks.id == evidence.fact_check_id)
            .where(checks.investigation_id == investigation_id)
            .order_by(evidence.position)
        ),
        "fact_check_id",
    )


def _grouped(rows: Iterable[Row[Any]], key: str) -> dict[str, list[Row[Any]]]:
    """The rows by their column `key`, each group in the rows' order."""
    grouped: dict[str, list[Row[Any]]] = defaultdict(list)
    for row in rows:
        grouped[getattr(row, key)].append(row)
    return grouped


def _investigation_view(connection: Connection, investigation_id: str) -> InvestigationView | None:
    row = _investigation(connection, investigation_id)
    if row is None:
        return None
    status = effective_status(row, utcnow())
    claims = tables.claims.c
    checks = connection.execute(
        select(
            tables.fact_checks,
            claims.key.label("claim_key"),
            claims.claim_text.label("claim_text"),
        )
        .join(tables.claims, claims.id == tables.fact_checks.c.claim_id)
        .where(tables.fact_checks.c.investigation_id == investigation_id)
        .order_by(claims.position)
    ).all()
    return investigation_view(
        row,
        status=status,
        error=row.error or (STOPPED if status != row.status else None),
        sources=sorted(
            _rows_of(connection, tables.sources, investigation_id), key=lambda r: r.position
        ),
        claims=connection.execute(
            select(tables.claims)
            .where(claims.investigation_id == investigation_id)
            .order_by(claims.position)
        ).all(),
        claim_sources=_linked_sources(
            connection, tables.claim_sources, "claim_id", investigation_id
        ),
        fact_checks=checks,
        evidence=_evidence(connection, investigation_id),
        check_sources=_linked_sources(
            connection, tables.fact_check_sources, "fact_check_id", investigation_id
        ),
        bias=connection.execute(
            select(tables.bias_assessments).where(
                tables.bias_assessments.c.investigation_id == investigation_id
            )
        ).one_or_none(),
        events=sorted(
            _rows_of(connection, tables.timeline_events, investigation_id),
            key=lambda r: (r.event_date, r.position),
        ),
        reviews=reviews_of(connection, investigation_id),
        archives=captured(connection, investigation_id),
    )
