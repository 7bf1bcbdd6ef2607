"""Claim memory in the store: earlier investigations' checks of the same claim, and where a new
claim records them (`claims.earlier_checks`). What counts as the same claim: `memory.py`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Row
from sqlalchemy.orm import Session

from vicaran_agent.memory import EarlierCheck, is_same_claim, names, searchable
from vicaran_agent.read_model import EvidenceView, ReviewView
from vicaran_agent.storage.base import RecordsDatabase
from vicaran_agent.storage.reads import reviews_of
from vicaran_agent.storage.rows import ClaimRow, FactCheckRow, InvestigationRow, SnapshotRow
from vicaran_agent.storage.snapshots import unpack
from vicaran_agent.storage.tables import iso
from vicaran_agent.storage.viewing import evidence_view

MAX_CANDIDATES = 200  # rows the store offers per claim before the closer check
MAX_REMEMBERED = 3  # earlier checks kept per claim, newest first
MAX_TERMS = 4  # numbers, and parties, the store narrows candidates by

ClaimToFind = tuple[str, str, Sequence[str]]  # (key, text, the parties it names)


class Memory(RecordsDatabase):
    """Which earlier checks of this store are of the same claims."""

    def earlier_checks(
        self, investigation_id: str, claims: Sequence[ClaimToFind], since: str
    ) -> dict[str, list[EarlierCheck]]:
        """{claim key: the same claim's checks by other investigations on or after `since`
        (YYYY-MM-DD), newest first}; each rated by the verdict that stands (an editor's change
        outranks the machine's verdict)."""

        def op(session: Session) -> dict[str, list[EarlierCheck]]:
            standing: dict[str, dict[str, ReviewView]] = {}
            found: dict[str, list[EarlierCheck]] = {}
            for key, text, entities in claims:
                if not searchable(text, entities):
                    continue
                matches = [
                    _earlier(row, standing, session)
                    for row in _candidates(session, investigation_id, text, entities, since)
                    if is_same_claim(text, entities, row.claim_text)
                ]
                matches.sort(key=lambda check: check.checked_at, reverse=True)
                if matches:
                    found[key] = matches[:MAX_REMEMBERED]
            return found

        return self._read(op)

    def prior_evidence(self, check: EarlierCheck) -> list[tuple[EvidenceView, str | None]]:
        """The earlier check's independent evidence from the web (never a document of the
        journalist who made it), each with the text then read (None when it was not kept)."""

        def op(session: Session) -> list[tuple[EvidenceView, str | None]]:
            row = session.get(FactCheckRow, check.fact_check_id)
            if row is None:
                return []
            kept = []
            for item in row.evidence:
                view = evidence_view(item)
                if not view.independent or view.origin == "document" or view.document_id:
                    continue
                snapshot = (
                    session.get(SnapshotRow, view.content_sha256) if view.content_sha256 else None
                )
                kept.append((view, unpack(snapshot) if snapshot is not None else None))
            return kept

        return self._read(op)

    def remember(self, investigation_id: str, earlier: dict[str, list[EarlierCheck]]) -> None:
        """Record on each claim (by key) the earlier checks of it."""

        def op(session: Session) -> None:
            for row in session.scalars(
                select(ClaimRow).where(
                    ClaimRow.investigation_id == investigation_id, ClaimRow.key.in_(earlier)
                )
            ):
                row.earlier_checks = [c.model_dump(mode="json") for c in earlier[row.key]]

        self._write(op)


def _candidates(
    session: Session, investigation_id: str, text: str, entities: Sequence[str], since: str
) -> list[Row[Any]]:
    """Checked claims of other investigations that could be the same: narrowed in the store to
    those that contain every number of the claim as written and the longest word of each party
    it names (the closer check, in `memory.py`, decides)."""
    statement = (
        select(
            ClaimRow.claim_text,
            ClaimRow.investigation_id,
            InvestigationRow.title,
            InvestigationRow.completed_at,
            FactCheckRow.id.label("fact_check_id"),
            FactCheckRow.verdict,
            FactCheckRow.as_of,
        )
        .join(FactCheckRow, FactCheckRow.claim_id == ClaimRow.id)
        .join(InvestigationRow, InvestigationRow.id == ClaimRow.investigation_id)
        .where(ClaimRow.investigation_id != investigation_id)
    )
    for digits in sorted(set(_digit_runs(text)), key=len, reverse=True)[:MAX_TERMS]:
        statement = statement.where(ClaimRow.claim_text.contains(digits, autoescape=True))
    for name in names(entities)[:MAX_TERMS]:
        word = max(name.split(), key=len)
        if word.isascii():  # (a folded word with accents would not match the text as written)
            statement = statement.where(ClaimRow.claim_text.icontains(word, autoescape=True))
    rows = session.execute(statement.limit(MAX_CANDIDATES)).all()
    return [row for row in rows if _checked_on(row) >= since]


def _digit_runs(text: str) -> list[str]:
    runs, current = [], []
    for char in text + " ":
        if char.isdigit():
            current.append(char)
        elif current:
            runs.append("".join(current))
            current = []
    return runs


def _checked_on(row: Row[Any]) -> str:
    return (row.as_of or iso(row.completed_at) or "")[:10]


def _earlier(
    row: Row[Any], standing: dict[str, dict[str, ReviewView]], session: Session
) -> EarlierCheck:
    """The earlier check `row` is, rated by the verdict that stands (an editor's change first)."""
    if row.investigation_id not in standing:
        standing[row.investigation_id] = reviews_of(session, row.investigation_id)
    review = standing[row.investigation_id].get(row.fact_check_id)
    changed = review is not None and review.status == "changed" and review.verdict_after
    return EarlierCheck(
        investigation_id=row.investigation_id,
        fact_check_id=row.fact_check_id,
        title=row.title or "",
        claim=row.claim_text,
        verdict=review.verdict_after if changed and review else row.verdict,
        review_status=review.status if review is not None else "unreviewed",
        reviewer=review.reviewer if review is not None else "",
        checked_at=_checked_on(row),
    )
