"""ADK's session store for `vicaran serve`: `VICARAN_SESSION_DB_URL`, on SQLite and PostgreSQL."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.adk.events import Event, EventActions
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types
from sqlalchemy.engine import make_url

from tests.support.databases import BACKENDS, sessions_database
from vicaran_agent.cli import server as cli_server
from vicaran_agent.config import get_settings
from vicaran_agent.detached import append_despite_staleness
from vicaran_agent.server.app import SessionStoreError, session_service_uri

ASYNCPG = "postgresql+asyncpg"


def test_no_url_leaves_adk_its_local_store_and_a_url_is_passed_on(env):
    assert session_service_uri(get_settings()) is None
    for url in (
        "postgresql+asyncpg://u:p@db:5432/vicaran",
        "postgresql+psycopg://u:p@db/vicaran",
        "sqlite:///sessions.db",
        "memory://",
    ):
        env.set(VICARAN_SESSION_DB_URL=url)
        assert session_service_uri(get_settings()) == url


def test_a_synchronous_postgres_driver_is_refused_with_the_url_to_use(env):
    env.set(VICARAN_SESSION_DB_URL="postgresql+psycopg2://u:p@db/vicaran")
    with pytest.raises(SessionStoreError, match=r"postgresql\+asyncpg://"):
        session_service_uri(get_settings())


@pytest.mark.parametrize("missing", ["asyncpg", "greenlet"])
def test_a_missing_driver_says_to_install_the_postgres_extra(env, monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # importing it raises ImportError
    env.set(VICARAN_SESSION_DB_URL="postgresql+asyncpg://u:p@db/vicaran")
    with pytest.raises(SessionStoreError) as raised:
        session_service_uri(get_settings())
    assert missing in str(raised.value) and "uv sync --extra postgres" in str(raised.value)


def test_serve_with_an_unusable_session_url_exits_with_the_sentence(env, capsys):
    env.set(VICARAN_SESSION_DB_URL="postgresql+psycopg2://u:p@db/vicaran")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert cli_server.serve("127.0.0.1", port) == 1
    err = capsys.readouterr().err
    assert "VICARAN_SESSION_DB_URL" in err and "Traceback" not in err


@pytest.fixture(params=[*BACKENDS, ASYNCPG])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    backend = "postgresql" if request.param == ASYNCPG else request.param
    with sessions_database(backend, tmp_path) as url:
        if url.startswith("sqlite:///"):
            yield SqliteSessionService(db_path=url.removeprefix("sqlite:///"))
        elif request.param == ASYNCPG:  # the documented driver; its schema via server_settings
            parsed = make_url(url)
            schema = parsed.query["options"].removeprefix("-csearch_path=")
            yield DatabaseSessionService(
                db_url=parsed.set(drivername=ASYNCPG, query={}).render_as_string(False),
                connect_args={"server_settings": {"search_path": schema}},
            )
        else:
            yield DatabaseSessionService(db_url=url)


def _event(text: str, **state: str) -> Event:
    return Event(
        author="vicaran",
        invocation_id="run",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=state),
    )


async def test_a_run_appends_to_a_session_another_writer_touched_since_it_read_it(store):
    """ADK's stores reject a stale writer (SQLite by time, PostgreSQL by a revision marker):
    the detached run catches up and appends, it does not die."""
    created = await store.create_session(app_name="vicaran_agent", user_id="newsroom")
    keys = {"app_name": "vicaran_agent", "user_id": "newsroom", "session_id": created.id}
    run_copy = await store.get_session(**keys)
    other_copy = await store.get_session(**keys)
    await store.append_event(other_copy, _event("a newer turn", seen="yes"))

    await append_despite_staleness(store, run_copy, _event("progress", stage="gathering"))
    await append_despite_staleness(store, run_copy, _event("report", stage="done"))

    stored = await store.get_session(**keys)
    assert [e.content.parts[0].text for e in stored.events] == [
        "a newer turn",
        "progress",
        "report",
    ]
    assert stored.state["seen"] == "yes" and stored.state["stage"] == "done"
    if isinstance(store, DatabaseSessionService):
        await store.close()


async def test_an_event_stored_by_a_request_cancelled_mid_append_is_not_stored_twice(store):
    """A closed tab cancels the runner's append while the store commits it: the event is
    stored, the run's copy of the session never heard. The run takes it from the store (its
    state included) instead of inserting it again, and goes on."""
    created = await store.create_session(app_name="vicaran_agent", user_id="newsroom")
    keys = {"app_name": "vicaran_agent", "user_id": "newsroom", "session_id": created.id}
    run_copy = await store.get_session(**keys)
    handed_over = _event("Analyzing source 1", stage="analyzing")
    await store.append_event(await store.get_session(**keys), handed_over.model_copy(deep=True))

    await append_despite_staleness(store, run_copy, handed_over)
    await append_despite_staleness(store, run_copy, _event("report", stage="done"))

    stored = await store.get_session(**keys)
    assert [e.content.parts[0].text for e in stored.events] == ["Analyzing source 1", "report"]
    assert [e.id for e in run_copy.events] == [e.id for e in stored.events]
    assert stored.state["stage"] == "done"
    if isinstance(store, DatabaseSessionService):
        await store.close()
