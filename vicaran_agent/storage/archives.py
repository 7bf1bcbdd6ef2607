"""The web archive: the WARC records of each page Vicaran read, by investigation and page."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from vicaran_agent.storage.base import RecordsDatabase
from vicaran_agent.storage.reads import captured
from vicaran_agent.storage.rows import PageCaptureRow
from vicaran_agent.urls import normalize_url


class Archives(RecordsDatabase):
    """Pages as they were read, kept for the investigation that read them."""

    def save_capture(self, investigation_id: str, url: str, via: str, records: bytes) -> int:
        """Keep one read of `url` (its gzipped WARC records); its id."""

        def op(session: Session) -> int:
            row = PageCaptureRow(
                investigation_id=investigation_id,
                url_key=normalize_url(url),
                via=via,
                records=records,
            )
            session.add(row)
            session.flush()
            return row.id

        return self._write(op)

    def capture_ids(self, investigation_id: str) -> dict[str, int]:
        """{normalized page address: id of its latest capture} for one investigation."""

        return self._read(lambda session: captured(session, investigation_id))

    def get_captures(self, investigation_id: str, ids: Iterable[int]) -> dict[int, bytes]:
        """{id: gzipped WARC records} of those of `ids` that are the investigation's."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}

        def op(session: Session) -> dict[int, bytes]:
            rows = session.execute(
                select(PageCaptureRow.id, PageCaptureRow.records).where(
                    PageCaptureRow.investigation_id == investigation_id,
                    PageCaptureRow.id.in_(wanted),
                )
            )
            return {capture_id: records for capture_id, records in rows}

        return self._read(op)
