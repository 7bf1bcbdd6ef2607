"""Editorial review: an editor approves or changes each verdict, or notes something on it, and
every decision is an entry of an append-only audit log (`reviews`). A review never touches the
evidence records: the machine's verdict stays as it was checked, the editor's stands beside it.
"""

from __future__ import annotations

from typing import get_args

from sqlalchemy import select
from sqlalchemy.orm import Session

from vicaran_agent.read_model import AuditEntry
from vicaran_agent.schemas import VerdictLabel
from vicaran_agent.storage.base import RecordsDatabase, UnknownInvestigationError
from vicaran_agent.storage.reads import reviews_of
from vicaran_agent.storage.rows import ClaimRow, FactCheckRow, InvestigationRow, ReviewRow
from vicaran_agent.storage.tables import iso, utcnow

ACTIONS = ("approve", "change", "note")
VERDICTS = get_args(VerdictLabel)
REVIEWER_MAX_CHARS = 200
NOTE_MAX_CHARS = 4_000


class ReviewRefused(ValueError):
    """A review that cannot be taken as sent (400); `str()` says what to send instead."""


class UnknownClaimError(LookupError):
    """No checked claim at that place in the report (404)."""


class Reviews(RecordsDatabase):
    """The editors' decisions on an investigation's checked claims."""

    def add_review(
        self,
        investigation_id: str,
        number: int,
        *,
        action: str,
        reviewer: str,
        verdict: str | None = None,
        note: str = "",
    ) -> AuditEntry:
        """Record one decision on the report's `number`-th checked claim (1-based); the entry.

        `change` needs one of the five verdict labels and a note saying why; the verdict before
        is the one standing (the editor's last change, else the machine's).
        """
        reviewer, note = " ".join(reviewer.split()), note.strip()
        if action not in ACTIONS:
            raise ReviewRefused(f"action must be one of {', '.join(ACTIONS)}")
        if not reviewer or len(reviewer) > REVIEWER_MAX_CHARS:
            raise ReviewRefused(f"reviewer: who decides, 1 to {REVIEWER_MAX_CHARS} characters")
        if len(note) > NOTE_MAX_CHARS:
            raise ReviewRefused(f"note: at most {NOTE_MAX_CHARS} characters")
        if action == "change":
            if verdict not in VERDICTS:
                raise ReviewRefused(f"verdict must be one of {', '.join(VERDICTS)}")
            if not note:
                raise ReviewRefused("a change needs a note saying why")
        elif verdict is not None:
            raise ReviewRefused("only a change takes a verdict")

        def op(session: Session) -> AuditEntry:
            checks = _checks(session, investigation_id)
            if not 1 <= number <= len(checks):
                raise UnknownClaimError(number)
            check, claim_text = checks[number - 1]
            standing = reviews_of(session, investigation_id).get(check.id)
            before = (standing.verdict_after if standing else None) or check.verdict
            entry = ReviewRow(
                investigation_id=investigation_id,
                fact_check_id=check.id,
                claim_id=check.claim_id,
                at=utcnow(),
                reviewer=reviewer,
                action=action,
                verdict_before=before,
                verdict_after=verdict if action == "change" and verdict else before,
                note=note,
            )
            session.add(entry)
            session.flush()
            return _entry(entry, number, claim_text)

        return self._write(op)

    def audit(self, investigation_id: str) -> list[AuditEntry] | None:
        """Every decision on the investigation, oldest first; None when it is unknown."""

        def op(session: Session) -> list[AuditEntry] | None:
            try:
                checks = _checks(session, investigation_id)
            except UnknownInvestigationError:
                return None
            place = {check.id: (n, text) for n, (check, text) in enumerate(checks, 1)}
            rows = session.scalars(
                select(ReviewRow)
                .where(ReviewRow.investigation_id == investigation_id)
                .order_by(ReviewRow.id)
            )
            return [_entry(row, *place.get(row.fact_check_id, (0, ""))) for row in rows]

        return self._read(op)


def _checks(session: Session, investigation_id: str) -> list[tuple[FactCheckRow, str]]:
    """The checks in the report's order (its claims' order), each with its claim's text."""
    rows = list(
        session.execute(
            select(FactCheckRow, ClaimRow.claim_text)
            .join(ClaimRow, ClaimRow.id == FactCheckRow.claim_id)
            .where(FactCheckRow.investigation_id == investigation_id)
            .order_by(ClaimRow.position)
        )
    )
    if not rows and session.get(InvestigationRow, investigation_id) is None:
        raise UnknownInvestigationError(investigation_id)
    return [(check, text) for check, text in rows]


def _entry(row: ReviewRow, number: int, claim_text: str) -> AuditEntry:
    return AuditEntry(
        at=iso(row.at),
        reviewer=row.reviewer,
        action=row.action,
        claim=number,
        claim_text=claim_text,
        verdict_before=row.verdict_before,
        verdict_after=row.verdict_after,
        note=row.note,
    )
