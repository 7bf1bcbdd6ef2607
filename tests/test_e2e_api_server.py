"""`adk api_server`, driven over HTTP and SSE like a newsroom frontend.

The full investigation on memory sessions runs `adk api_server` as a process (the entry point as
deployed), and `adk web` is started once as a process too; every other case runs ADK's same
command in a thread of this process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.support.api_server import APP, adk_web, free_port, run_sse
from tests.support.api_server import api_server as start_api_server
from tests.support.corpus import RIVERTON
from tests.support.databases import records_database, sessions_database
from tests.support.inprocess import adk_api_serving, vicaran_serving
from tests.support.records import as_json
from tests.support.wait import until_sync
from vicaran_agent.storage import Repository

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]
POSTGRESQL = "postgresql"  # records and sessions on VICARAN_TEST_POSTGRES_URL's server
PROCESS = "process"  # `adk api_server` as a process, on memory sessions
# the scripted model with a little latency, so streaming is observable
LATENCY = {"VICARAN_FAST_MODEL": "scripted/latency-30", "VICARAN_PRO_MODEL": "scripted/latency-30"}


@pytest.fixture(params=[PROCESS, POSTGRESQL])
def api_server(env, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """`adk api_server`'s base URL: on memory sessions as a process (`PROCESS`), else in this
    process on the sessions URL given; with `POSTGRESQL` records and sessions both there."""
    if request.param == PROCESS:
        with start_api_server(tmp_path, LATENCY, "memory://") as base:
            yield base
        return
    env.set(**LATENCY)
    with ExitStack() as stack:
        if request.param == POSTGRESQL:
            records = stack.enter_context(records_database("postgresql", tmp_path))
            sessions = stack.enter_context(sessions_database("postgresql", tmp_path))
            Repository(records)  # the tables, before the server writes
            env.set(VICARAN_DATABASE_URL=records)
            env.database_url = records
        else:
            sessions = request.param.replace("{tmp}", str(tmp_path))
        yield stack.enter_context(adk_api_serving(free_port(), sessions)).base


def text(event: dict) -> str:
    parts = (event.get("content") or {}).get("parts") or []
    return "".join(p.get("text") or "" for p in parts)


def test_full_investigation_over_http_and_sse(api_server, env):
    base = api_server
    apps = httpx.get(f"{base}/list-apps").json()
    assert APP in apps
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()

    brief = (
        "Quick Search. Investigate whether Acme Chemicals polluted Riverton's drinking water. "
        f"{RIVERTON[0].url} {RIVERTON[2].url}"
    )
    plan_events = run_sse(base, session["id"], brief)
    analyzed = [
        part["functionResponse"]["response"]
        for _, e in plan_events
        for part in (e.get("content") or {}).get("parts") or []
        if (part.get("functionResponse") or {}).get("name") == "analyze_source"
    ]
    assert len(analyzed) == 2 and all(s["readable"] for s in analyzed)
    # the page's own words reach the model only inside a data block
    assert all(s["page"].startswith("<<<DATA SOURCE\n") for s in analyzed)
    plan = text(plan_events[-1][1])
    assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")

    state = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()["state"]
    store = Repository(env.database_url)
    seen_while_running: list[str | None] = []

    def probe(event: dict) -> None:
        # Streamed as it happened: when the first source line arrives, the run is not over.
        if "**Analyzing source" in text(event) and not seen_while_running:
            seen_while_running.append(store.get_status(state["investigation_id"]))

    run_events = run_sse(base, session["id"], "APPROVED", probe)
    texts = [(t, text(e), e["author"]) for t, e in run_events if text(e)]
    assert texts[0][1].startswith("[INVESTIGATION_STARTED]")
    assert texts[-1][1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert texts[-1][2] == "summary_writer"
    # Progress streamed as it happened: one event per source, arriving before the report.
    source_lines = [t for t in texts if "**Analyzing source" in t[1]]
    assert len(source_lines) == len(RIVERTON)
    assert seen_while_running == ["in_progress"]  # by event order, not by wall time
    assert any("Verifying claim" in t for _, t, _ in texts)

    state = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()["state"]
    assert state["investigation_status"] == "completed", state["partial_reason"]
    record = as_json(Repository(env.database_url).get_investigation(state["investigation_id"]))
    assert record["status"] == state["investigation_status"]
    assert len(record["sources"]) == len(RIVERTON)
    assert sum(s["is_user_provided"] for s in record["sources"]) == 2
    assert record["claims"] and record["fact_checks"] and record["bias"]
    assert record["summary"].rstrip().endswith("[INVESTIGATION_COMPLETE]")

    # A second brief in the same chat: code answers, pointing to a new session - no plan loop.
    page = f"/investigations/{state['investigation_id']}"
    for message in (f"Next: did XYZ Corp bribe inspectors? {RIVERTON[1].url}", "APPROVED"):
        events = [e for _, e in run_sse(base, session["id"], message)]
        reply = text(events[-1])
        assert "new session" in reply.lower() and page in reply, reply
        assert "[PLAN_APPROVAL_REQUIRED]" not in reply
        parts = [p for e in events for p in (e.get("content") or {}).get("parts") or []]
        assert not [p for p in parts if p.get("functionCall")]  # no transfer, nothing read


@pytest.mark.parametrize(
    "api_server", ["memory://", "sqlite:///{tmp}/sessions.db", POSTGRESQL], indirect=True
)  # ADK's SQLite and database stores check for stale sessions: the detached run copes
def test_a_client_that_disconnects_mid_run_does_not_stop_it(api_server, env):
    base = api_server
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
    run_sse(base, session["id"], "Investigate whether Acme Chemicals polluted Riverton's water.")
    state = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()["state"]
    investigation_id = state["investigation_id"]
    body = {
        "appName": APP,
        "userId": "newsroom",
        "sessionId": session["id"],
        "newMessage": {"role": "user", "parts": [{"text": "APPROVED"}]},
        "streaming": False,
    }
    with httpx.stream("POST", f"{base}/run_sse", json=body, timeout=180) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and "**Analyzing source" in text(json.loads(line[6:])):
                break  # the journalist closes the tab
    store = Repository(env.database_url)
    assert store.get_status(investigation_id) == "in_progress"
    until_sync(lambda: store.get_status(investigation_id) != "in_progress", "the run to end", 120)
    assert store.get_status(investigation_id) == "completed"
    events = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()[
        "events"
    ]
    texts = [text(e) for e in events if text(e)]
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")  # reopening shows the report


@pytest.mark.parametrize("api_server", ["memory://", POSTGRESQL], indirect=True)
def test_a_client_that_leaves_on_investigation_started_changes_nothing(api_server, env):
    """The journalist approves and closes the tab as soon as the run says it started."""
    approve_and_leave_on_started(api_server, env.database_url)


def test_over_vicaran_serve_too(env, tmp_path: Path):
    """The same over `vicaran serve`, whose middleware (the body limit, the access check) sits
    between the client and ADK's `/run_sse`; sessions in ADK's SQLite store."""
    env.set(**LATENCY, VICARAN_SESSION_DB_URL=f"sqlite:///{tmp_path / 'sessions.db'}")
    with vicaran_serving("127.0.0.1", free_port()) as served:
        approve_and_leave_on_started(served.base, env.database_url)


def approve_and_leave_on_started(base: str, database_url: str) -> None:
    """Plan, approve, close the connection on [INVESTIGATION_STARTED]: the run completes, and
    reopening the session shows its report."""
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
    run_sse(base, session["id"], "Investigate whether Acme Chemicals polluted Riverton's water.")
    state = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()["state"]
    investigation_id = state["investigation_id"]
    body = {
        "appName": APP,
        "userId": "newsroom",
        "sessionId": session["id"],
        "newMessage": {"role": "user", "parts": [{"text": "APPROVED"}]},
        "streaming": False,
    }
    seen: list[str] = []
    with httpx.stream("POST", f"{base}/run_sse", json=body, timeout=180) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                seen.append(text(json.loads(line[6:])))
                if "[INVESTIGATION_STARTED]" in seen[-1]:
                    break  # the tab is closed on the very event
    assert any("[INVESTIGATION_STARTED]" in t for t in seen)
    store = Repository(database_url)
    until_sync(lambda: store.get_status(investigation_id) != "in_progress", "the run to end", 120)
    record = as_json(store.get_investigation(investigation_id))
    assert record["status"] == "completed", record.get("error") or record.get("partial_reason")
    assert record["sources"] and record["fact_checks"]
    assert record["summary"].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    events = httpx.get(f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}").json()[
        "events"
    ]
    texts = [text(e) for e in events if text(e)]
    assert sum("[INVESTIGATION_STARTED]" in t for t in texts) == 1
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")  # reopening shows the report


def test_adk_web_serves_the_dev_ui_and_plans_with_the_agent(env, tmp_path: Path):
    """`adk web vicaran_agent` (`make web`) as a process: the dev UI, the app in its list, and a
    brief answered with a plan."""
    with adk_web(tmp_path, LATENCY) as base:
        assert httpx.get(f"{base}/dev-ui/").status_code == 200
        assert APP in httpx.get(f"{base}/list-apps").json()
        session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
        brief = f"Quick Search. Did Acme Chemicals pollute Riverton's water? {RIVERTON[0].url}"
        plan = text(run_sse(base, session["id"], brief)[-1][1])
    assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
