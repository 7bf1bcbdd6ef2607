"""Reading investigations back: their status, one with all its records, the list (typed views:
`read_model.py`, built by `viewing.py`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, contains_eager, selectinload

from vicaran_agent.read_model import InvestigationListItem, InvestigationView
from vicaran_agent.storage.archives import captured
from vicaran_agent.storage.base import (
    STOPPED,
    RecordsDatabase,
    all_rows,
    effective_status,
)
from vicaran_agent.storage.reviews import reviews_of
from vicaran_agent.storage.rows import (
    BiasRow,
    ClaimRow,
    FactCheckRow,
    InvestigationRow,
    SourceRow,
    TimelineEventRow,
)
from vicaran_agent.storage.tables import iso, utcnow
from vicaran_agent.storage.viewing import investigation_view

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
    """What readers (the API, the dashboard, exports) get.

    Wherever an investigation is named, its full id or any unique prefix of at least
    `SHORT_ID` hex digits (the short id in file names) will do.
    """

    def resolve_id(self, given: str) -> str | None:
        """The full id `given` names, or None when it names none (AmbiguousIdError: several)."""
        return self._read(lambda session: _resolve(session, given))

    def get_status(self, investigation_id: str) -> str | None:
        """The investigation's status, or None when it is unknown."""

        def op(session: Session) -> str | None:
            row = session.get(InvestigationRow, investigation_id)
            return None if row is None else effective_status(row, utcnow())

        return self._read(op)

    def get_investigation(self, investigation_id: str) -> InvestigationView | None:
        """Everything about one investigation (its id or a short id), or None when unknown."""

        def op(session: Session) -> InvestigationView | None:
            full_id = _resolve(session, investigation_id)
            return None if full_id is None else _investigation_view(session, full_id)

        return self._read(op)

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
            verdicts: dict[str, dict[str, int]] = {}
            for investigation_id, verdict, n in session.execute(
                select(FactCheckRow.investigation_id, FactCheckRow.verdict, func.count()).group_by(
                    FactCheckRow.investigation_id, FactCheckRow.verdict
                )
            ):
                verdicts.setdefault(investigation_id, {})[verdict] = n
            return [
                InvestigationListItem(
                    id=row.id,
                    title=row.title,
                    mode=row.mode,
                    status=effective_status(row, now),
                    source_count=sources,
                    claim_count=claims,
                    fact_check_count=fact_checks,
                    verdicts=verdicts.get(row.id, {}),
                    created_at=iso(row.created_at),
                    updated_at=iso(row.updated_at),
                )
                for row, sources, claims, fact_checks in session.execute(statement)
            ]

        return self._read(op)


def _resolve(session: Session, given: str) -> str | None:
    if session.get(InvestigationRow, given) is not None:
        return given
    prefix = given.strip().lower()
    digits = sum(c != "-" for c in prefix)
    if digits < SHORT_ID or not set(prefix) <= _ID_CHARACTERS:
        return None
    matches = list(
        session.scalars(
            select(InvestigationRow.id)
            .where(InvestigationRow.id.startswith(prefix, autoescape=True))
            .order_by(InvestigationRow.id)
            .limit(5)
        )
    )
    if len(matches) > 1:
        raise AmbiguousIdError(given, matches)
    return matches[0] if matches else None


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
        reviews=reviews_of(session, investigation_id),
        archives=captured(session, investigation_id),
    )
