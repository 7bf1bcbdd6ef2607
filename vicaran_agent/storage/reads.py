"""Reading investigations back: their status, one with all its records, the list (typed views:
`read_model.py`, built by `viewing.py`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, contains_eager, selectinload

from vicaran_agent.read_model import InvestigationListItem, InvestigationView
from vicaran_agent.storage.base import (
    STOPPED,
    RecordsDatabase,
    all_rows,
    effective_status,
)
from vicaran_agent.storage.tables import (
    BiasRow,
    ClaimRow,
    FactCheckRow,
    InvestigationRow,
    SourceRow,
    TimelineEventRow,
    iso,
    utcnow,
)
from vicaran_agent.storage.viewing import investigation_view


class Reads(RecordsDatabase):
    """What readers (the API, the dashboard, exports) get."""

    def get_status(self, investigation_id: str) -> str | None:
        """The investigation's status, or None when it is unknown."""

        def op(session: Session) -> str | None:
            row = session.get(InvestigationRow, investigation_id)
            return None if row is None else effective_status(row, utcnow())

        return self._read(op)

    def get_investigation(self, investigation_id: str) -> InvestigationView | None:
        """Everything about one investigation, or None when it is unknown."""
        return self._read(lambda session: _investigation_view(session, investigation_id))

    def list_investigations(self) -> list[InvestigationListItem]:
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

        def op(session: Session) -> list[InvestigationListItem]:
            now = utcnow()
            return [
                InvestigationListItem(
                    id=row.id,
                    title=row.title,
                    mode=row.mode,
                    status=effective_status(row, now),
                    source_count=sources,
                    claim_count=claims,
                    fact_check_count=fact_checks,
                    created_at=iso(row.created_at),
                    updated_at=iso(row.updated_at),
                )
                for row, sources, claims, fact_checks in session.execute(statement)
            ]

        return self._read(op)


def _investigation_view(session: Session, investigation_id: str) -> InvestigationView | None:
    row = session.get(InvestigationRow, investigation_id)
    if row is None:
        return None
    status = effective_status(row, utcnow())
    claims = session.scalars(
        select(ClaimRow)
        .where(ClaimRow.investigation_id == investigation_id)
        .options(selectinload(ClaimRow.sources))
        .order_by(ClaimRow.position)
    )
    fact_checks = session.scalars(
        select(FactCheckRow)
        .join(FactCheckRow.claim)
        .where(FactCheckRow.investigation_id == investigation_id)
        .options(
            selectinload(FactCheckRow.evidence),
            selectinload(FactCheckRow.sources),
            contains_eager(FactCheckRow.claim),
        )
        .order_by(ClaimRow.position)
    )
    bias = session.scalars(
        select(BiasRow).where(BiasRow.investigation_id == investigation_id)
    ).one_or_none()
    return investigation_view(
        row,
        status=status,
        error=row.error or (STOPPED if status != row.status else None),
        sources=sorted(all_rows(session, SourceRow, investigation_id), key=lambda r: r.position),
        claims=list(claims),
        fact_checks=list(fact_checks),
        bias=bias,
        events=sorted(
            all_rows(session, TimelineEventRow, investigation_id),
            key=lambda r: (r.event_date, r.position),
        ),
    )
