"""Idempotent callback replies (the server side of the callback API): a key is claimed by one
request on any replica, then holds its reply."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, NamedTuple

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from vicaran_agent.storage.base import RecordsDatabase, aware
from vicaran_agent.storage.rows import IdempotencyRow
from vicaran_agent.storage.tables import utcnow

# `callback_idempotency.status_code` of a claimed key whose reply is not stored yet.
IDEMPOTENCY_PENDING = 0

logger = logging.getLogger(__name__)


class StoredReply(NamedTuple):
    """What an Idempotency-Key holds: the hash of the request that claimed it, and its reply
    (the JSON body the callback API answered, and its status code)."""

    request_hash: str
    status_code: int
    response: dict[str, Any]


class Idempotency(RecordsDatabase):
    """Claims and replies by Idempotency-Key."""

    def get_idempotent(self, key: str) -> StoredReply | None:
        """(request hash, status code, response) stored for `key`, or None (also while pending)."""

        def op(session: Session) -> StoredReply | None:
            row = session.get(IdempotencyRow, key)
            if row is None or row.status_code == IDEMPOTENCY_PENDING:
                return None
            return StoredReply(row.request_hash, row.status_code, dict(row.response))

        return self._read(op)

    def claim_idempotent(
        self, key: str, request_hash: str, stale_seconds: float
    ) -> StoredReply | None:
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

            def holder(session: Session) -> StoredReply | None:
                row = session.get(IdempotencyRow, key)
                if row is None:
                    return None  # released meanwhile: claim again
                stale = utcnow() - timedelta(seconds=stale_seconds)
                if row.status_code == IDEMPOTENCY_PENDING and aware(row.created_at) < stale:
                    session.delete(row)
                    logger.warning("took over the stale Idempotency-Key claim %r", key)
                    return None
                return StoredReply(row.request_hash, row.status_code, dict(row.response))

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
