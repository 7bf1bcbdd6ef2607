"""The callback client: a durable outbox delivered to a real callback server on loopback."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import outbox, wait
from tests.support.callback_server import CallbackServer
from tests.support.conversation import Conversation
from tests.support.records import as_json
from vicaran_agent import delivery
from vicaran_agent import state_keys as keys
from vicaran_agent.config import forget_settings, get_settings
from vicaran_agent.delivery import Deliverer
from vicaran_agent.storage import get_repository
from vicaran_agent.storage.outbox import enqueue

pytestmark = pytest.mark.timeout(240)

BRIEF = (
    "Quick Search. Investigate whether Acme Chemicals polluted Riverton's drinking water. "
    "https://rivertondaily.com/news/acme-health-complaints"
)


@pytest.fixture(scope="module")
def newsroom_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CallbackServer]:
    """One newsroom for the module (it starts in seconds, not instantly); tests may take it
    down (`outage()`: refused, as when it is stopped) and bring it back (`recover()`)."""
    server = CallbackServer(tmp_path_factory.mktemp("newsroom"), outages=True).start()
    yield server
    server.stop()


@pytest.fixture
def newsroom(env, records_url: str, newsroom_server: CallbackServer) -> Iterator[CallbackServer]:
    """The newsroom, with the records (and their outbox) on each backend of the matrix; up
    again after the test."""
    env.database_url = records_url
    env.set(
        CALLBACK_API_URL=newsroom_server.url,
        AGENT_SECRET=newsroom_server.secret,
        VICARAN_DATABASE_URL=records_url,
    )
    yield newsroom_server
    newsroom_server.recover()


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """What both sides must agree on, independent of each side's own ids."""
    url_of = {s["id"]: s["url"] for s in record["sources"]}
    text_of = {c["id"]: c["claim_text"] for c in record["claims"]}
    return {
        "status": record["status"],
        "summary": record["summary"],
        "partial_reason": record["partial_reason"],
        "overall_bias_score": record["overall_bias_score"],
        "sources": sorted(
            (
                s["url"],
                s["display_url"],
                s["title"],
                s["credibility_score"],
                s["is_user_provided"],
                s["content_sha256"],
                s["relevant"],
            )
            for s in record["sources"]
        ),
        "claims": sorted(
            (
                c["claim_text"],
                round(c["importance"], 3),
                c["origin"],
                tuple(sorted(url_of[i] for i in c["source_ids"])),
            )
            for c in record["claims"]
        ),
        "fact_checks": sorted(
            (
                text_of[f["claim_id"]],
                f["verdict"],
                round(f["confidence"], 3),
                f["as_of"],
                tuple(
                    (e["url"], e["display_url"], e["quote"], e["independent"], e["content_sha256"])
                    for e in f["evidence"]
                ),
                tuple(sorted(url_of[i] for i in f["source_ids"])),
            )
            for f in record["fact_checks"]
        ),
        "quality": record["quality"],
        "bias": record["bias"]
        and (record["bias"]["overall_bias_score"], record["bias"]["coverage"]),
        "timeline": sorted((e["event_date"], e["event_text"]) for e in record["timeline"]),
    }


async def investigate() -> str:
    conversation = Conversation()
    await conversation.send(BRIEF)
    await conversation.send("APPROVED")
    return (await conversation.state())[keys.INVESTIGATION_ID]


async def drain() -> None:
    await outbox.drain()


def local(investigation_id: str) -> dict[str, Any]:
    return as_json(get_repository(get_settings().database_url).get_investigation(investigation_id))


async def test_records_reach_the_newsroom_with_their_links(newsroom):
    investigation_id = await investigate()
    await drain()
    remote = newsroom.investigation(investigation_id)
    assert remote is not None
    mine = local(investigation_id)
    assert comparable(remote) == comparable(mine)  # provenance and the report check included
    assert remote["status"] == "completed", remote["partial_reason"]
    assert mine["quality"] and mine["quality"]["audited"] > 0
    summary = get_repository(get_settings().database_url).outbox_summary()
    assert summary.counts.pending == summary.counts.failed == 0
    # ids propagate: the remote claim links are the remote ids of its sources
    remote_sources = {s["id"] for s in remote["sources"]}
    assert all(set(c["source_ids"]) <= remote_sources and c["source_ids"] for c in remote["claims"])


async def test_a_down_server_holds_records_until_it_returns_then_delivers_once(newsroom):
    newsroom.outage()
    investigation_id = await investigate()
    await drain()  # every head attempt fails: the server is down
    summary = get_repository(get_settings().database_url).outbox_summary()
    assert summary.counts.delivered == 0 and summary.counts.pending > 0
    assert summary.retrying and "ConnectError" in summary.retrying[0].last_error
    assert newsroom.investigation(investigation_id) is None

    newsroom.recover()
    for _ in range(len(local(investigation_id)["sources"]) + 20):
        await drain()
        if get_repository(get_settings().database_url).outbox_summary().counts.pending == 0:
            break
    remote = newsroom.investigation(investigation_id)
    assert comparable(remote) == comparable(local(investigation_id))
    await drain()  # delivering again sends nothing new: exactly once
    assert comparable(newsroom.investigation(investigation_id)) == comparable(remote)


async def test_a_restart_between_failure_and_recovery_loses_nothing(newsroom, env):
    newsroom.outage()
    investigation_id = await investigate()
    await drain()
    # the process "restarts": every in-memory object is gone, only the database file remains
    await delivery.stop_delivery()
    get_repository(get_settings().database_url).close()
    forget_settings()
    newsroom.recover()
    restarted = Deliverer(backoff_base=0.01)
    assert restarted.repository is not None
    for _ in range(30):
        await restarted.deliver_due(now_only=False)
        if restarted.repository.outbox_summary().counts.pending == 0:
            break
    assert comparable(newsroom.investigation(investigation_id)) == comparable(
        local(investigation_id)
    )


async def test_a_refused_record_is_recorded_and_not_retried(newsroom):
    investigation_id = await investigate()
    await drain()
    repository = get_repository(get_settings().database_url)
    bad = {"claim_text": "An impossible claim", "importance": 7, "source_ids": []}
    repository._write(
        lambda session: enqueue(session, investigation_id, "CLAIM_EXTRACTED", "bad-1", bad)
    )
    await drain()
    await drain()
    summary = repository.outbox_summary()
    (failed,) = summary.failed
    assert failed.response_status == 400 and failed.attempts == 1
    assert "importance" in failed.response_body
    claims = [c["claim_text"] for c in newsroom.investigation(investigation_id)["claims"]]
    assert "An impossible claim" not in claims


async def test_a_mid_run_outage_leaves_identical_records_and_no_duplicates(newsroom, env):
    import asyncio

    from vicaran_agent.sub_agents.claim_extractor import ClaimExtractorAgent

    original = ClaimExtractorAgent.run_stage
    outage: dict[str, int] = {}

    async def with_outage(self, stage):
        # sources were saved (and delivered in the background); now the newsroom goes down
        await wait.until(lambda: delivered() >= 2, "two records delivered before the outage")
        outage["delivered_before"] = delivered()
        await asyncio.to_thread(newsroom.outage)
        async for event in original(self, stage):
            yield event

    def delivered() -> int:
        return get_repository(get_settings().database_url).outbox_summary().counts.delivered

    env.monkeypatch.setattr(ClaimExtractorAgent, "run_stage", with_outage)
    investigation_id = await investigate()
    assert outage["delivered_before"] >= 2  # part of the run landed before the outage
    newsroom.recover()
    for _ in range(40):
        await drain()
        if get_repository(get_settings().database_url).outbox_summary().counts.pending == 0:
            break
    remote, mine = newsroom.investigation(investigation_id), local(investigation_id)
    assert comparable(remote) == comparable(mine)
    for kind in ("sources", "claims", "fact_checks", "timeline"):
        assert len(remote[kind]) == len(mine[kind]), kind


def test_outbox_status_and_flush_commands(newsroom, capsys):
    from vicaran_agent.cli import main
    from vicaran_agent.schemas import InvestigationConfig
    from vicaran_agent.storage.outbox import queue_for_callback

    repository = get_repository(get_settings().database_url)

    config = InvestigationConfig.for_mode(
        "quick",
        investigation_id="6f1c2b9e-1d2a-4c7e-9a55-3d8f5c0e2a11",
        title="t",
        brief="b",
        language="en",
    )
    newsroom.outage()
    with queue_for_callback():
        repository.start_investigation(config)
    assert main(["outbox", "status"]) == 1
    assert "1 pending" in capsys.readouterr().out
    newsroom.recover()
    assert main(["outbox", "flush"]) == 0
    out = capsys.readouterr().out
    assert "Delivered 1 record(s)." in out and "0 pending, 1 delivered, 0 failed" in out
    assert newsroom.investigation(config.investigation_id)["status"] == "in_progress"


async def test_what_an_earlier_process_left_is_delivered_when_a_journalist_next_writes(newsroom):
    import asyncio

    from vicaran_agent.schemas import InvestigationConfig
    from vicaran_agent.storage.outbox import queue_for_callback

    config = InvestigationConfig.for_mode(
        "detailed",
        investigation_id="0d8e7c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6",
        title="Left over",
        brief="b",
        language="en",
    )
    with queue_for_callback():  # an earlier process queued it and stopped
        get_repository(get_settings().database_url).start_investigation(config)
    await delivery.stop_delivery()
    await Conversation().send("Investigate whether Acme polluted Riverton's water.")
    await wait.until(
        lambda: asyncio.to_thread(newsroom.investigation, config.investigation_id),
        "the left-over record reached the newsroom",
    )
    assert newsroom.investigation(config.investigation_id)["title"] == "Left over"
    await delivery.stop_delivery()


def _deliverers_here() -> list[asyncio.Task[Any]]:
    return [
        t
        for t in asyncio.all_tasks()
        if t.get_name() == "vicaran-callback-delivery" and not t.done()
    ]


async def test_another_event_loop_leaves_this_loops_deliverer_stoppable(newsroom):
    """A server started in its own loop (a TestClient, a second app) starts and stops a
    deliverer of its own; this loop's is still the one `stop_delivery` stops here, so no
    orphan keeps rows leased while a flush runs (the flush then skipped them)."""
    delivery.start_delivery()
    assert len(_deliverers_here()) == 1

    async def another_server() -> None:
        delivery.start_delivery()
        assert len(_deliverers_here()) == 1  # its own, in its own loop
        await delivery.stop_delivery()
        assert _deliverers_here() == []

    await asyncio.to_thread(asyncio.run, another_server())
    assert len(_deliverers_here()) == 1  # this loop's still runs ...
    await delivery.stop_delivery()  # (it waits for the cancelled task to end)
    assert _deliverers_here() == []  # ... and is the one stopped here


async def test_stopping_the_deliverer_ends_it_even_when_a_cancellation_is_swallowed(
    env, monkeypatch
):
    """Python 3.11's `asyncio.wait_for` can swallow a cancellation that lands as its inner wait
    ends (CI once hung `vicaran investigate` at exit so). Stopping must not rest on one cancel."""
    from vicaran_agent import delivery
    from vicaran_agent.services import current

    env.set(CALLBACK_API_URL="http://127.0.0.1:9/api/agent-callback", AGENT_SECRET="s3cret")
    rounds = 0

    async def round_that_swallows_a_cancel(self, now_only=True):  # type: ignore[no-untyped-def]
        nonlocal rounds
        rounds += 1
        if rounds == 1:
            with contextlib.suppress(asyncio.CancelledError):  # as 3.11's wait_for can
                await asyncio.sleep(3600)
        return 0

    monkeypatch.setattr(delivery.Deliverer, "deliver_due", round_that_swallows_a_cancel)
    monkeypatch.setattr(delivery, "ROUND_INTERVAL_SECONDS", 0.0)
    delivery.start_delivery()
    task = current().deliverers[asyncio.get_running_loop()].task
    await wait.until(lambda: rounds == 1, "the first round to start")
    stopping = asyncio.ensure_future(delivery.stop_delivery())
    await wait.until(lambda: task.done(), "the deliverer to end after a swallowed cancel", 30)
    await stopping


def test_a_batch_of_records_is_queued_with_one_lookup_and_once(records_url: str) -> None:
    """Saving N sources queues N deliveries, asking the outbox once which are already queued
    (not once per record, each with its own flush: that sat on every stage's save); saved
    again, none is queued twice."""
    from sqlalchemy import event, select

    from vicaran_agent.schemas import InvestigationConfig, Source
    from vicaran_agent.storage.outbox import queue_for_callback
    from vicaran_agent.storage.rows import OutboxRow

    repository = get_repository(records_url)
    config = InvestigationConfig.for_mode(
        "quick",
        investigation_id="0" * 8 + "-0000-4000-8000-" + "0" * 12,
        title="t",
        brief="b",
        language="en",
    )
    sources = [
        Source(
            url=f"https://example.org/{n}", title=f"{n}", domain="example.org", credibility_score=3
        )
        for n in range(6)
    ]
    lookups: list[str] = []

    def seen(_conn, _cursor, statement: str, *_args) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "outbox" in statement:
            lookups.append(statement)

    engine = repository._engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        with queue_for_callback(True):
            repository.start_investigation(config)
            lookups.clear()
            repository.save_sources(config.investigation_id, sources)
            assert len(lookups) == 1
            repository.save_sources(config.investigation_id, sources)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    queued = repository.read(
        lambda session: list(
            session.scalars(select(OutboxRow.local_id).where(OutboxRow.type == "SOURCE_FOUND"))
        )
    )
    ids = repository.save_sources(config.investigation_id, sources).values()
    assert sorted(queued) == sorted(ids)  # each source once, whatever the saves
