"""Snapshots: the texts Vicaran read, stored once by SHA-256 (compressed) and linked to the
investigations whose records rest on them."""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from vicaran_agent.storage.base import RecordsDatabase
from vicaran_agent.storage.rows import InvestigationSnapshotRow, SnapshotRow
from vicaran_agent.textmatch import sha256_text


class Snapshots(RecordsDatabase):
    """The texts Vicaran read."""

    def save_snapshots(self, texts: dict[str, str]) -> None:
        """Store texts by SHA-256 (read before an investigation is saved, e.g. the user's URLs)."""
        if texts:
            self._write(lambda session: keep_snapshots(session, None, texts, []))

    def get_snapshot(self, investigation_id: str, sha256: str) -> str | None:
        """A snapshot one of the investigation's records rests on, or None."""

        def op(session: Session) -> str | None:
            linked = session.get(InvestigationSnapshotRow, (investigation_id, sha256))
            row = session.get(SnapshotRow, sha256) if linked else None
            return unpack(row) if row else None

        return self._read(op)

    def get_snapshots(
        self, investigation_id: str, only: Iterable[str] | None = None
    ) -> dict[str, str]:
        """Every snapshot the investigation's records rest on, {sha256: text}; with `only`,
        those of them named there."""
        wanted = None if only is None else sorted(set(only))
        if wanted == []:
            return {}

        def op(session: Session) -> dict[str, str]:
            query = (
                select(SnapshotRow)
                .join(
                    InvestigationSnapshotRow,
                    InvestigationSnapshotRow.sha256 == SnapshotRow.sha256,
                )
                .where(InvestigationSnapshotRow.investigation_id == investigation_id)
                .order_by(SnapshotRow.sha256)
            )
            if wanted is not None:
                query = query.where(SnapshotRow.sha256.in_(wanted))
            return {row.sha256: unpack(row) for row in session.scalars(query)}

        return self._read(op)

    def get_snapshot_text(self, sha256: str) -> str | None:
        """Any stored snapshot by its name (for the pipeline; readers use `get_snapshot`)."""

        def op(session: Session) -> str | None:
            row = session.get(SnapshotRow, sha256)
            return unpack(row) if row else None

        return self._read(op)


def keep_snapshots(
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


def unpack(row: SnapshotRow) -> str:
    return zlib.decompress(row.compressed).decode("utf-8")
