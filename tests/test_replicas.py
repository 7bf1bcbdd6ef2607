"""Two `vicaran serve` replicas on one PostgreSQL: a plan written on one is approved on the other.

Records (`VICARAN_DATABASE_URL`) and ADK sessions (`VICARAN_SESSION_DB_URL`) both live on the
server; replica A runs in the test's process, replica B is a process of its own (so nothing in
A's memory can reach B), both with the loopback fakes and the scripted model.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.support.api_server import APP, free_port, run_sse, vicaran_serve
from tests.support.corpus import RIVERTON
from tests.support.databases import records_database, sessions_database
from tests.support.inprocess import vicaran_serving
from vicaran_agent.storage import Repository

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def text(event: dict) -> str:
    parts = (event.get("content") or {}).get("parts") or []
    return "".join(p.get("text") or "" for p in parts)


def test_a_plan_written_on_one_replica_is_approved_on_the_other(env, tmp_path: Path):
    with ExitStack() as stack:
        records = stack.enter_context(records_database("postgresql", tmp_path))
        sessions = stack.enter_context(sessions_database("postgresql", tmp_path))
        Repository(records)  # the tables exist before two processes start on them
        variables = {
            "VICARAN_DATABASE_URL": records,
            "VICARAN_SESSION_DB_URL": sessions,
            # two machines share no `.adk` folder: nothing local may carry the session across
            "ADK_DISABLE_LOCAL_STORAGE": "1",
        }
        b = stack.enter_context(vicaran_serve(tmp_path, variables, name="replica-b"))
        env.set(**variables)
        a = stack.enter_context(vicaran_serving("127.0.0.1", free_port(), output=False)).base

        session = httpx.post(f"{a}/apps/{APP}/users/newsroom/sessions", json={}).json()
        brief = (
            "Quick Search. Investigate whether Acme Chemicals polluted Riverton's drinking water. "
            f"{RIVERTON[0].url}"
        )
        plan = text(run_sse(a, session["id"], brief)[-1][1])
        assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")

        url = f"/apps/{APP}/users/newsroom/sessions/{session['id']}"
        seen_by_b = httpx.get(f"{b}{url}")
        assert seen_by_b.status_code == 200, seen_by_b.text  # B knows the session A wrote
        investigation_id = seen_by_b.json()["state"]["investigation_id"]

        texts = [text(e) for _, e in run_sse(b, session["id"], "APPROVED") if text(e)]
        assert texts[0].startswith("[INVESTIGATION_STARTED]")
        assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")

        state = httpx.get(f"{a}{url}").json()["state"]  # A sees what B's run wrote
        assert state["investigation_status"] == "completed", state.get("partial_reason")
        assert Repository(records).get_status(investigation_id) == "completed"
        for base in (a, b):
            record = httpx.get(f"{base}/api/investigations/{investigation_id}")
            assert record.status_code == 200, record.text
            assert record.json()["status"] == "completed"
            assert record.json()["summary"].rstrip().endswith("[INVESTIGATION_COMPLETE]")
