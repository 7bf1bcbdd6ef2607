"""The callback outbox as the deliverer reads and updates it (`outbox` holds its rules)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from vicaran_agent.storage import outbox
from vicaran_agent.storage.base import RecordsDatabase
from vicaran_agent.storage.rows import OutboxRow


class Deliveries(RecordsDatabase):
    """Claims, outcomes and a summary of the outbox's deliveries."""

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
