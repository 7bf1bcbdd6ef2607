"""Delivers the callback outbox to the newsroom's callback API, in the background.

In order per investigation (a claim never goes before its sources), retried with backoff on
429/5xx/timeouts/connection errors, never sent twice (a stable `Idempotency-Key` per record),
resumed after restarts. Replicas share the outbox: each claims rows (`FOR UPDATE SKIP LOCKED`
and a lease), so every record is sent by one of them. 4xx answers other than 429 are recorded
and not retried. The agent never waits for any of this: saving a record only queues it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx

from . import services
from .clients.http import async_client
from .clients.retry import backoff_delay, parse_retry_after
from .clock import SYSTEM_CLOCK, Clock, utc
from .config import Settings, get_settings
from .storage import Repository, get_repository
from .storage.outbox import Delivery

logger = logging.getLogger(__name__)

REMOTE_ID_FIELD = {
    "SOURCE_FOUND": "source_id",
    "CLAIM_EXTRACTED": "claim_id",
    "FACT_CHECKED": "fact_check_id",
    "TIMELINE_EVENT": "event_id",
}
IDLE_POLL_SECONDS = 5.0
SENDS_AT_ONCE = 8
CLAIMS_AT_ONCE = 32  # rows one deliverer claims per round
# Kicks within this interval share one round: fewer, larger rounds cost the agent less CPU.
ROUND_INTERVAL_SECONDS = 0.5


class _Skip(Exception):
    """A delivery that cannot be sent (a record it depends on was never delivered)."""


def _local_ids(data: dict[str, Any]) -> set[str]:
    ids = {data[k] for k in ("claim_id", "source_id") if data.get(k)}
    ids.update(data.get("source_ids") or [])
    ids.update(item["source_id"] for item in data.get("per_source") or [] if item.get("source_id"))
    return ids


def translate(delivery: Delivery, remote: dict[str, str]) -> dict[str, Any]:
    """The payload with local ids replaced by the ids the callback API returned."""
    data = json.loads(json.dumps(delivery.data))
    if "source_ids" in data:
        data["source_ids"] = [remote[i] for i in data["source_ids"] if i in remote]
    if data.get("source_id"):
        data["source_id"] = remote.get(data["source_id"])
    if "per_source" in data:
        data["per_source"] = [
            {**item, "source_id": remote[item["source_id"]]}
            for item in data["per_source"]
            if item.get("source_id") in remote
        ]
    if "claim_id" in data:
        if data["claim_id"] not in remote:
            raise _Skip("its claim was never delivered to the callback API")
        data["claim_id"] = remote[data["claim_id"]]
    return data


class Deliverer:
    """Sends due outbox rows; one instance serves every investigation of a process."""

    def __init__(
        self,
        settings: Settings | None = None,
        repository: Repository | None = None,
        *,
        backoff_base: float = 1.0,
        backoff_max: float = 300.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """`clock` times the backoff and the leases (tests move it)."""
        self.settings = settings or get_settings()
        self.repository = repository or get_repository(self.settings.database_url)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.clock = clock
        # Who claims rows (replicas share the outbox), and for how long: time for every claimed
        # row to be sent, twice over. A replica that dies mid-send leaves its rows to the others
        # once the lease runs out (the Idempotency-Key makes that rare second send harmless).
        self.owner = f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        waves = -(-CLAIMS_AT_ONCE // SENDS_AT_ONCE)
        self.lease_seconds = 2 * waves * self.settings.vicaran_callback_timeout_seconds + 30

    async def deliver_due(self, *, now_only: bool = True) -> int:
        """Send what is due, head by head, until nothing due is left; returns how many landed.

        `now_only=False` (a manual flush) also tries rows still waiting for their backoff,
        each at most once per call.
        """
        delivered = 0
        tried: set[int] = set()
        gate = asyncio.Semaphore(SENDS_AT_ONCE)  # a few at a time: cheap for the agent's loop
        async with async_client(timeout=self.settings.vicaran_callback_timeout_seconds) as http:
            while True:
                due = await self._claim(now_only, tried)
                if not due:
                    return delivered
                tried.update(d.id for d in due)
                try:
                    results = await asyncio.gather(*(self._gated(gate, http, d) for d in due))
                except BaseException:  # stopped mid-round: what it held goes to the next deliverer
                    self.repository.outbox_release(self.owner, [d.id for d in due])
                    raise
                delivered += sum(results)

    async def _claim(self, now_only: bool, tried: set[int]) -> list[Delivery]:
        """Claim due rows. Stopped meanwhile, it waits for the claim (its thread commits it
        anyway) and releases what it took, so the next deliverer need not wait for the lease."""
        now = utc(self.clock)
        claiming = asyncio.ensure_future(
            asyncio.to_thread(
                self.repository.outbox_claim,
                self.owner,
                now if now_only else None,
                self.lease_seconds,
                exclude=tried,
                limit=CLAIMS_AT_ONCE,
                at=now,
            )
        )
        try:
            return await asyncio.shield(claiming)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                taken = await claiming
                self.repository.outbox_release(self.owner, [d.id for d in taken])
            raise

    async def _gated(
        self, gate: asyncio.Semaphore, http: httpx.AsyncClient, delivery: Delivery
    ) -> bool:
        async with gate:
            return await self._send(http, delivery)

    async def _send(self, http: httpx.AsyncClient, delivery: Delivery) -> bool:
        """One attempt; records the outcome. True when the record landed."""
        attempts = delivery.attempts + 1
        try:
            remote = await asyncio.to_thread(
                self.repository.outbox_remote_ids, _local_ids(delivery.data)
            )
            data = translate(delivery, remote)
        except _Skip as skip:
            await self._update(delivery, status="failed", attempts=attempts, last_error=str(skip))
            return False
        body = {"type": delivery.type, "investigation_id": delivery.investigation_id, "data": data}
        headers = {
            "X-Agent-Secret": self.settings.agent_secret,
            "Idempotency-Key": delivery.idempotency_key,
        }
        if self.settings.debug_mode:
            logger.info("callback %s %s: %s", delivery.type, delivery.investigation_id, data)
        try:
            response = await http.post(self.settings.callback_api_url, json=body, headers=headers)
        except httpx.HTTPError as error:
            await self._retry(delivery, attempts, f"{type(error).__name__}: {error}", None, None)
            return False
        text = response.text[:2000]
        if self.settings.debug_mode:
            logger.info("callback response %s: %s", response.status_code, text)
        if response.status_code == 429 or response.status_code >= 500:
            wait = parse_retry_after(response.headers.get("retry-after"))
            await self._retry(delivery, attempts, f"HTTP {response.status_code}", response, wait)
            return False
        if not response.is_success:
            await self._update(
                delivery,
                status="failed",
                attempts=attempts,
                last_error=f"HTTP {response.status_code}: not retried",
                response_status=response.status_code,
                response_body=text,
            )
            logger.warning(
                "callback %s refused (%s): %s", delivery.type, response.status_code, text
            )
            return False
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        field = REMOTE_ID_FIELD.get(delivery.type)
        remote_id = str(answer[field]) if field and answer.get(field) is not None else None
        await self._update(
            delivery,
            status="delivered",
            attempts=attempts,
            last_error=None,
            response_status=response.status_code,
            response_body=text,
            remote_id=remote_id,
            delivered_at=utc(self.clock),
        )
        return True

    async def _retry(
        self,
        delivery: Delivery,
        attempts: int,
        error: str,
        response: httpx.Response | None,
        retry_after: float | None,
    ) -> None:
        delay = backoff_delay(
            attempts - 1, retry_after, base=self.backoff_base, cap=self.backoff_max
        )
        await self._update(
            delivery,
            attempts=attempts,
            last_error=error,
            response_status=response.status_code if response is not None else None,
            response_body=response.text[:2000] if response is not None else None,
            next_attempt_at=utc(self.clock) + timedelta(seconds=delay),
        )

    async def _update(self, delivery: Delivery, **fields: Any) -> None:
        await asyncio.to_thread(self.repository.outbox_update, delivery.id, self.owner, **fields)


# --- the background task of this process -------------------------------------------------


@dataclass
class Background:
    """One event loop's deliverer: its task, the event that wakes it and the one that stops it
    (a cancellation alone may be swallowed: Python 3.11's `wait_for` can lose one)."""

    task: asyncio.Task[None]
    wakeup: asyncio.Event
    stopped: asyncio.Event


async def _run_forever(wakeup: asyncio.Event, stopped: asyncio.Event) -> None:
    deliverer = Deliverer()
    while not stopped.is_set():
        try:
            await deliverer.deliver_due()
        except Exception:  # delivery must outlive any one bad round
            logger.exception("callback delivery round failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wakeup.wait(), timeout=IDLE_POLL_SECONDS)
        await asyncio.sleep(ROUND_INTERVAL_SECONDS)
        wakeup.clear()


def start_delivery() -> None:
    """Start the background deliverer in this event loop (no-op without a callback API)."""
    if not get_settings().callback_enabled:
        return
    loop = asyncio.get_running_loop()
    # One deliverer per event loop: a second loop in the process (a test client's, a second
    # app's) starts and stops its own, and never orphans another loop's (it holds its leases).
    deliverers = services.current().deliverers
    for closed in [other for other in deliverers if other.is_closed()]:
        del deliverers[closed]
    running = deliverers.get(loop)
    if running is not None and not running.task.done():
        return
    wakeup, stopped = asyncio.Event(), asyncio.Event()
    task = loop.create_task(_run_forever(wakeup, stopped), name="vicaran-callback-delivery")
    deliverers[loop] = Background(task, wakeup, stopped)


def kick() -> None:
    """Something was queued: deliver soon."""
    start_delivery()
    running = services.current().deliverers.get(asyncio.get_running_loop())
    if running is not None:
        running.wakeup.set()


async def stop_delivery() -> None:
    """Stop this event loop's background deliverer (what it held is released)."""
    running = services.current().deliverers.pop(asyncio.get_running_loop(), None)
    if running is not None:
        running.stopped.set()
        running.wakeup.set()
        running.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await running.task
