"""No stuck statuses, no stolen ids: killed runs become `interrupted`, an id has one owner."""

from __future__ import annotations

import asyncio
import os
import signal
from datetime import timedelta

from tests.support import wait
from tests.support.cli_process import start_investigation
from tests.support.clock import FakeClock
from tests.support.conversation import Conversation
from tests.support.inprocess import CommandRun, vicaran
from tests.support.records import as_json
from vicaran_agent import liveness, services
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.schemas import InvestigationConfig
from vicaran_agent.storage import Repository, get_repository
from vicaran_agent.storage.rows import InvestigationRow
from vicaran_agent.storage.tables import utcnow

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water."
ID = "5d1c0a7e-2b3f-4c5d-8e9f-0a1b2c3d4e5f"


def store() -> Repository:
    return get_repository(get_settings().database_url)


def wait_for(check, seconds: float = 60.0) -> None:
    wait.until_sync(check, "the condition was not met in time", seconds)


def running(investigation_id: str) -> bool:
    found = as_json(store().get_investigation(investigation_id))
    return bool(found and found["status"] == "in_progress" and found["sources"])


class SigtermReachedTheTest(Exception):
    """The command left SIGTERM to the process's own handler (here the test's)."""


def investigate_stopped_here() -> CommandRun:
    """`vicaran investigate` in this process, with the process's own SIGTERM handler the test's
    (a stop the command does not take reaches the test as SigtermReachedTheTest)."""

    def refuse(signum: int, frame: object) -> None:
        raise SigtermReachedTheTest

    previous = signal.signal(signal.SIGTERM, refuse)
    try:
        return vicaran(["investigate", BRIEF, "--yes", "--id", ID, "--wait-delivery", "0"])
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_sigterm_marks_the_run_interrupted_before_the_process_exits(env, monkeypatch):
    """`vicaran investigate` in this process, sent SIGTERM (as a container stop sends it) while
    a model call is in flight once its sources are saved; the call then waits for the stop."""
    from tests.support.scripted_model import ScriptedModel

    generate = ScriptedModel.generate_content_async
    sent: list[int] = []

    async def stopped(self, llm_request, stream=False):
        if not sent and running(ID):  # mid-run: in progress, sources saved
            sent.append(signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.Event().wait()  # in flight until the stop cancels it
        async for response in generate(self, llm_request, stream):
            yield response

    monkeypatch.setattr(ScriptedModel, "generate_content_async", stopped)
    run = investigate_stopped_here()
    assert sent, "the run never got past its sources"
    assert run.code == 130, run.output
    assert "marked interrupted" in run.output
    record = as_json(store().get_investigation(ID))
    assert record["status"] == "interrupted"  # written by the process itself, at once
    assert "interrupted" in (record["error"] or "")


def test_sigterm_between_two_events_marks_the_run_interrupted_too(env, monkeypatch):
    """A stop while the pipeline waits at a yield (here as the claim extractor starts) leaves its
    generator to be closed at the loop's shutdown, in another context, beside its own context
    managers: the run is still `interrupted`, not `failed`."""
    from vicaran_agent.sub_agents.claim_extractor import ClaimExtractorAgent

    extract = ClaimExtractorAgent.run_stage

    async def stopped(self, stage):
        os.kill(os.getpid(), signal.SIGTERM)
        async for event in extract(self, stage):
            yield event

    monkeypatch.setattr(ClaimExtractorAgent, "run_stage", stopped)
    run = investigate_stopped_here()
    assert run.code == 130, run.output
    record = as_json(store().get_investigation(ID))
    assert record["status"] == "interrupted", record.get("error")


async def test_sigkill_leaves_a_run_that_readers_and_the_next_start_see_as_interrupted(env):
    env.set(VICARAN_HEARTBEAT_SECONDS="0.5")  # stale after 1.5 s, for the test
    process = start_investigation(BRIEF, ID)
    try:
        await asyncio.to_thread(wait_for, lambda: running(ID))
        process.kill()  # SIGKILL: nothing runs in the process any more
        process.wait(timeout=30)
    finally:
        process.kill()
    row = store().get_status(ID)
    assert row in ("in_progress", "interrupted")  # no heartbeat yet missed, or already stale
    # the heartbeat stops: readers see the run as interrupted, not live, even before a sweep
    await asyncio.to_thread(wait_for, lambda: store().get_status(ID) == "interrupted", 10)
    listed = next(i for i in as_json(store().list_investigations()) if i["id"] == ID)
    assert listed["status"] == "interrupted"
    # and the next start writes it down
    assert await liveness.sweep(force=True) == [ID]
    assert as_json(store().get_investigation(ID))["status"] == "interrupted"


class Beats:
    """A store that counts heartbeats and sweeps."""

    def __init__(self) -> None:
        self.beats: list[list[str]] = []
        self.sweeps = 0

    def heartbeat(self, ids: list[str]) -> None:
        self.beats.append(list(ids))

    def sweep_stale(self) -> list[str]:
        self.sweeps += 1
        return []


async def test_a_run_beats_every_heartbeat_interval_by_its_clock(env, monkeypatch):
    env.set(VICARAN_HEARTBEAT_SECONDS="10")
    store = Beats()
    monkeypatch.setattr(liveness, "repository", lambda: store)
    clock = FakeClock()
    async with liveness.alive(ID, clock=clock):
        assert ID in services.current().running
        await clock.sleeping(1)
        assert store.beats == []
        clock.advance(10)
        await clock.sleeping(1)  # it beat, and waits for the next
        assert store.beats == [[ID]]
        clock.advance(9.9)
        assert clock.sleepers == 1 and store.beats == [[ID]]  # not before the interval
        clock.advance(0.1)
        await clock.sleeping(1)
        assert store.beats == [[ID], [ID]]
    assert (
        ID not in services.current().running and clock.sleepers == 0
    )  # the beating stopped with it


async def test_sweeps_are_at_most_one_per_interval_unless_forced(env, monkeypatch):
    store = Beats()
    monkeypatch.setattr(liveness, "repository", lambda: store)
    clock = FakeClock()
    await liveness.sweep(clock=clock)
    await liveness.sweep(clock=clock)
    assert store.sweeps == 1
    clock.advance(liveness.SWEEP_EVERY_SECONDS - 0.1)
    await liveness.sweep(clock=clock)
    assert store.sweeps == 1
    await liveness.sweep(force=True, clock=clock)
    assert store.sweeps == 2
    clock.advance(liveness.SWEEP_EVERY_SECONDS)
    await liveness.sweep(clock=clock)
    assert store.sweeps == 3


def test_a_run_with_a_fresh_heartbeat_is_live_and_one_without_is_not(env):
    repository = store()
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=ID, title="t", brief="b", language="en"
    )
    repository.start_investigation(config, session_id="conversation-1")
    assert repository.get_status(ID) == "in_progress"
    assert repository.sweep_stale() == []

    def age(seconds: float) -> None:
        from sqlalchemy.orm import Session

        with Session(repository._engine) as session, session.begin():
            row = session.get(InvestigationRow, ID)
            row.heartbeat_at = row.updated_at = utcnow() - timedelta(seconds=seconds)

    age(31)
    assert repository.get_status(ID) == "interrupted"
    repository.heartbeat([ID])
    assert repository.get_status(ID) == "in_progress"  # a beat brings it back to life
    age(31)
    assert repository.sweep_stale() == [ID]
    assert as_json(repository.get_investigation(ID))["status"] == "interrupted"


def test_callback_investigations_are_not_judged_by_this_stores_heartbeat(env):
    """Another agent reports those; their liveness is not ours to decide."""
    repository = store()
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=ID, title="t", brief="b", language="en"
    )
    repository.start_investigation(config)  # as the callback API does: no conversation
    from sqlalchemy.orm import Session

    with Session(repository._engine) as session, session.begin():
        row = session.get(InvestigationRow, ID)
        row.heartbeat_at = row.updated_at = utcnow() - timedelta(hours=1)
    assert repository.get_status(ID) == "in_progress"
    assert repository.sweep_stale() == []


# --- ownership -------------------------------------------------------------------------------


async def test_an_id_another_conversation_owns_is_refused(env):
    first = Conversation()
    await first.send(f"Investigation ID: {ID}\n{BRIEF}")
    await first.send("APPROVED")
    assert (await first.state())[keys.INVESTIGATION_STATUS] == "completed"

    second = Conversation()
    reply = second.texts(await second.send(f"Investigation ID: {ID}\nHijacked: {BRIEF}"))[-1]
    assert f"Investigation ID {ID} already belongs to another conversation" in reply
    assert "[PLAN_APPROVAL_REQUIRED]" not in reply
    record = as_json(store().get_investigation(ID))
    assert record["status"] == "completed" and "Hijacked" not in record["brief"]


async def test_two_conversations_planning_one_id_do_not_merge(env):
    first, second = Conversation(), Conversation()
    await first.send(f"Investigation ID: {ID}\n{BRIEF}")
    await second.send(f"Investigation ID: {ID}\nAnother brief: {BRIEF}")
    await first.send("APPROVED")
    refused = second.texts(await second.send("APPROVED"))[-1]
    assert "already belongs to another conversation" in refused
    state = await second.state()
    assert state[keys.INVESTIGATION_STATUS] == "planning" and not state[keys.PLAN_APPROVED]
    assert (
        as_json(store().get_investigation(ID))["brief"]
        == (await first.state())[keys.INVESTIGATION_CONFIG]["brief"]
    )


async def test_an_interrupted_run_can_be_continued_from_a_new_conversation(env):
    repository = store()
    config = InvestigationConfig.for_mode(
        "detailed", investigation_id=ID, title="t", brief=BRIEF, language="en"
    )
    repository.start_investigation(config, session_id="a-dead-conversation")
    repository.mark_interrupted([ID], "stopped")
    conversation = Conversation()
    await conversation.send(f"Investigation ID: {ID}\n{BRIEF}")
    await conversation.send("APPROVED")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "completed"
    record = as_json(repository.get_investigation(ID))
    assert record["status"] == "completed"
    urls = [s["url"] for s in record["sources"]]
    assert len(urls) == len(set(urls))  # nothing saved twice
