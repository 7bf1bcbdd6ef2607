"""Leases and backoff run on the deliverer's clock; a test's flush drains the outbox (rows
another deliverer holds are waited for, not skipped)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.newsroom import FakeNewsroom
from tests.support.clock import FakeClock
from tests.support.outbox import drain, leased
from vicaran_agent import delivery
from vicaran_agent.clock import utc
from vicaran_agent.config import get_settings
from vicaran_agent.delivery import Deliverer
from vicaran_agent.storage import Repository, get_repository
from vicaran_agent.storage.outbox import enqueue
from vicaran_agent.storage.tables import utcnow

SOURCE = {"url": "https://example.com/1", "credibility_score": 3, "is_user_provided": False}


def queue_a_source_and_its_claim(repository: Repository) -> str:
    investigation_id = str(uuid.uuid4())

    def op(session: Any) -> None:
        enqueue(session, investigation_id, "SOURCE_FOUND", "s1", SOURCE)
        claim = {"claim_text": "The mayor resigned.", "importance": 0.9, "source_ids": ["s1"]}
        enqueue(session, investigation_id, "CLAIM_EXTRACTED", "c1", claim)

    repository.write(op)
    return investigation_id


class FirstPass(Deliverer):
    """A deliverer that says when its first flush has returned."""

    def __init__(self, repository: Repository) -> None:
        super().__init__(repository=repository, backoff_base=0.01)
        self.passes = 0
        self.first_returned = asyncio.Event()

    async def deliver_due(self, *, now_only: bool = True) -> int:
        landed = await super().deliver_due(now_only=now_only)
        self.passes += 1
        self.first_returned.set()
        return landed


@pytest.fixture
def repository(tmp_path: Path) -> Iterator[Repository]:
    """A records store of the test's own, closed after it."""
    store = Repository(f"sqlite:///{tmp_path / 'records.db'}")
    yield store
    store.close()


async def test_a_flush_waits_for_the_rows_another_deliverer_is_sending(env, repository):
    queue_a_source_and_its_claim(repository)
    # another deliverer (a background one, another replica) holds the source: sending it
    (source,) = repository.outbox_claim("another", None, 600)
    with FakeNewsroom() as newsroom:
        env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET="s")
        flush = FirstPass(repository)
        flushing = asyncio.create_task(drain(flush))
        await flush.first_returned.wait()  # its first pass found the head held
        assert newsroom.types() == []
        # the other's send lands; the flush, still draining, sends what came after it
        repository.outbox_update(
            source.id,
            "another",
            status="delivered",
            remote_id="remote-s1",
            delivered_at=utcnow(),
        )
        assert await flushing == 1
        (sent,) = newsroom.requests
    assert sent.json["type"] == "CLAIM_EXTRACTED"
    assert sent.json["data"]["source_ids"] == ["remote-s1"]  # linked to the other's send
    assert flush.passes >= 2
    assert repository.outbox_summary().counts.model_dump() == {
        "pending": 0,
        "delivered": 2,
        "failed": 0,
    }


async def test_a_flush_leaves_what_a_down_server_refuses_pending(env, repository):
    queue_a_source_and_its_claim(repository)
    env.set(CALLBACK_API_URL="http://127.0.0.1:9/api/agent-callback", AGENT_SECRET="s")
    assert await drain(Deliverer(repository=repository, backoff_base=0.01)) == 0
    summary = repository.outbox_summary()
    assert summary.counts.model_dump() == {"pending": 2, "delivered": 0, "failed": 0}
    assert "ConnectError" in summary.retrying[0].last_error
    assert leased(repository) == []


async def test_a_flush_first_stops_this_loops_background_deliverer(env):
    repository = get_repository(get_settings().database_url)
    queue_a_source_and_its_claim(repository)
    clock = FakeClock()
    with FakeNewsroom(latency=1.0, clock=clock) as newsroom:
        env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET="s")
        delivery.start_delivery()  # as a record saved late kicks it
        await clock.sleeping(1)  # its send of the source hangs on
        newsroom.latency = 0
        try:
            assert await drain(seconds=5) == 2  # not held up by it: it was stopped
        finally:
            clock.advance(1.0)
    assert newsroom.types()[-2:] == ["SOURCE_FOUND", "CLAIM_EXTRACTED"]
    assert repository.outbox_summary().counts.model_dump() == {
        "pending": 0,
        "delivered": 2,
        "failed": 0,
    }


async def test_a_dead_deliverers_lease_runs_out_by_the_clock(env, repository):
    queue_a_source_and_its_claim(repository)
    clock = FakeClock(wall=utcnow().timestamp() + 3600)  # its own time, not the machine's
    with FakeNewsroom() as newsroom:
        env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET="s")
        dead = Deliverer(repository=repository, clock=clock)
        (held,) = repository.outbox_claim(dead.owner, None, dead.lease_seconds, at=utc(clock))
        # ... and its process dies before sending: the rows wait for its lease
        live = Deliverer(repository=repository, clock=clock)
        clock.advance(dead.lease_seconds - 1)
        assert await live.deliver_due() == 0 and newsroom.types() == []
        clock.advance(1)
        assert await live.deliver_due() == 2
    assert newsroom.types() == ["SOURCE_FOUND", "CLAIM_EXTRACTED"]
    assert held.type == "SOURCE_FOUND"


async def test_a_failed_send_is_due_again_after_its_backoff_by_the_clock(env, repository):
    queue_a_source_and_its_claim(repository)
    clock = FakeClock(wall=utcnow().timestamp() + 3600)  # its own time, not the machine's
    env.set(CALLBACK_API_URL="http://127.0.0.1:9/api/agent-callback", AGENT_SECRET="s")
    deliverer = Deliverer(repository=repository, backoff_base=4.0, clock=clock)
    assert await deliverer.deliver_due() == 0  # the server is down: one attempt
    assert repository.outbox_summary().retrying[0].attempts == 1
    clock.advance(1.9)  # the backoff of a first retry: 2 to 4 s (jittered)
    assert await deliverer.deliver_due() == 0
    assert repository.outbox_summary().retrying[0].attempts == 1  # not due yet
    clock.advance(2.1)
    assert await deliverer.deliver_due() == 0
    assert repository.outbox_summary().retrying[0].attempts == 2  # due, tried again
