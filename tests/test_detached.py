"""A run detached from its request: what happens when the request goes and the store fails."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from google.adk.events import Event, EventActions
from google.adk.sessions import InMemorySessionService

from vicaran_agent.detached import DetachedRun


class _BrokenStore(InMemorySessionService):
    async def append_event(self, session, event):
        raise RuntimeError("the session store is down")


async def test_a_run_whose_store_fails_after_the_client_left_is_closed_not_left_hanging():
    store = _BrokenStore()
    session = await store.create_session(app_name="vicaran_agent", user_id="newsroom")
    closed = asyncio.Event()

    async def stages():
        try:
            for stage in ("gathering", "checking", "writing"):
                yield Event(author="vicaran", actions=EventActions(state_delta={"stage": stage}))
        finally:
            closed.set()  # where the pipeline marks the investigation interrupted

    run = DetachedRun(stages(), SimpleNamespace(session=session, session_service=store))
    relay = run.events()
    await anext(relay)
    await relay.aclose()  # the journalist closes the tab

    with pytest.raises(RuntimeError, match="store is down"):
        await asyncio.wait_for(asyncio.shield(run.task), 10)
    assert closed.is_set()
