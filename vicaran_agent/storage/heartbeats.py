"""Liveness in the store: who owns a run, its heartbeats, and runs that stopped mid-way."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from vicaran_agent.storage import outbox
from vicaran_agent.storage.base import STOPPED, RecordsDatabase, effective_status, is_stale
from vicaran_agent.storage.rows import InvestigationRow
from vicaran_agent.storage.tables import utcnow


class Heartbeats(RecordsDatabase):
    """Owners, heartbeats and interrupted runs."""

    def owner(self, investigation_id: str) -> tuple[str | None, str] | None:
        """(owning session id, status) of a saved investigation, or None when it is unknown."""

        def op(session: Session) -> tuple[str | None, str] | None:
            row = session.get(InvestigationRow, investigation_id)
            return None if row is None else (row.session_id, effective_status(row, utcnow()))

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
                _enqueue_interrupted(session, row)
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
                if is_stale(row, now, stale_seconds)
            ]
            for row in rows:
                row.status, row.updated_at = "interrupted", now
                row.error = STOPPED
                _enqueue_interrupted(session, row)
            return [row.id for row in rows]

        return self._write(op)


def _enqueue_interrupted(session: Session, row: InvestigationRow) -> None:
    """An interrupted run is delivered to the callback API as INVESTIGATION_PARTIAL."""
    if outbox.queueing():
        outbox.enqueue_interrupted(session, row)
