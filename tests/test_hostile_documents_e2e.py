"""Acceptance over a real `vicaran serve`: hostile files attached to `/run_sse` cost their own
file, never the server. A poller in a process of its own asks `/healthz` throughout (every answer
within 5 s beyond what the machine itself took: a liveness bound a loaded machine keeps, not a
measure of speed; `benchmarks/hostile.py` holds the 1 s target on a quiet one), and the memory of the server
and its parser processes is watched. The server runs with a cap on its address space, so that a
parser running away inside it (as before the parse pool) stops there, not on the machine."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import hostile
from tests.support.api_server import APP, run_sse, vicaran_serve_process
from tests.support.watch import HealthPoller, TreeMemory
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.documents import intake
from vicaran_agent.documents.store import get_document_store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SERVER_MEMORY_MB = 4096
TREE_PEAK_MIB = 1536  # the hostile set attached: the server and its parsers, together
# The 2,000 scanned pages: a short OCR budget, so that the test is not minutes long (the bench
# attaches the set with the default budget).
OCR_SECONDS = 5
BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
MEMO = (
    "# EPA inspection memo\n\nOn 2024-03-12 EPA inspectors found lead at 41 parts per billion "
    "in Riverton's drinking water, nearly three times the federal action level.\n"
)
PDF, DOCX, MARKDOWN = (
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "text/markdown",
)


@pytest.fixture
def served(env, tmp_path: Path) -> Iterator[tuple[str, int]]:
    """`vicaran serve` with the test's settings: its base URL and process id."""
    variables = {"VICARAN_OCR_INVESTIGATION_SECONDS": str(OCR_SECONDS)}
    with vicaran_serve_process(tmp_path, variables, SERVER_MEMORY_MB) as (base, process):
        yield base, process.pid
        assert process.poll() is None, "the server died"


def attached(name: str, mime: str, data: bytes) -> dict:
    """An attachment as the dev UI sends it."""
    return {
        "inlineData": {
            "displayName": name,
            "mimeType": mime,
            "data": base64.b64encode(data).decode(),
        }
    }


def plan_of(base: str, files: list[dict]) -> tuple[str, dict]:
    """The plan for BRIEF with `files` attached, and the session's state."""
    session = httpx.post(f"{base}/apps/{APP}/users/newsroom/sessions", json={}).json()
    events = [event for _, event in run_sse(base, session["id"], BRIEF, files=files)]
    plan = "".join(p.get("text") or "" for p in events[-1]["content"]["parts"])
    url = f"{base}/apps/{APP}/users/newsroom/sessions/{session['id']}"
    return plan, httpx.get(url).json()["state"]


def not_used(plan: str) -> list[str]:
    assert "**Not used in this investigation:**" in plan, plan
    return plan.split("**Not used in this investigation:**")[1].splitlines()


def test_two_self_drawing_pdfs_and_a_memo_attached_the_pdfs_are_unreadable_the_memo_indexed(
    served,
):
    base, _ = served
    files = [
        attached("drawing.pdf", PDF, hostile.self_drawing_pdf()),
        attached("nested.pdf", PDF, hostile.nested_forms_pdf()),
        attached("epa-memo.md", MARKDOWN, MEMO.encode()),
    ]
    with HealthPoller(f"{base}/healthz") as health:
        plan, state = plan_of(base, files)
    assert "(epa-memo.md) - 1 page" in plan.split("**Your documents:**")[1]
    lines = not_used(plan)
    assert all(any(name in x for x in lines) for name in ("drawing.pdf", "nested.pdf"))
    line = next(x for x in lines if "drawing.pdf" in x)
    assert "could not be read" in line and "VICARAN_PARSE_MEMORY_MB" in line, line
    assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    own = intake.investigation_collection(state[keys.INVESTIGATION_ID])
    store = get_document_store(get_settings().database_url)
    assert [d.file_name for d in store.documents(own)] == ["epa-memo.md"]
    (hit,) = store.search("lead parts per billion Riverton", [own], limit=1)
    assert hit.file_name == "epa-memo.md" and "41 parts per billion" in hit.text
    assert health.answered_within(5.0), str(health)


def test_the_hostile_set_attached_at_once_keeps_the_server_and_its_parsers_within_bounds(
    served, tmp_path
):
    base, pid = served
    files = [
        attached("drawing.pdf", PDF, hostile.self_drawing_pdf()),
        attached("nested.pdf", PDF, hostile.nested_forms_pdf()),
        attached("tiny.docx", DOCX, hostile.tiny_paragraphs_docx()),
        attached("one-stream.pdf", PDF, hostile.one_stream_pdf()),
        attached("noise.pdf", PDF, hostile.noise_pdf()),
        attached("epa-memo.md", MARKDOWN, MEMO.encode()),
    ]
    with TreeMemory(pid) as memory, HealthPoller(f"{base}/healthz") as health:
        plan, state = plan_of(base, files)
    figures = {
        "peak_tree_rss_mib": round(memory.peak_rss_mib),
        "peak_tree_pss_mib": round(memory.peak_pss_mib),
        "server_peak_rss_mib": round(memory.server_hwm_mib),
        "processes": memory.peak_processes,
        "slowest_healthz_s": round(health.slowest, 3),
        "healthz_answers": len(health.answers),
    }
    print(f"hostile set attached: {json.dumps(figures)}")
    artifacts = Path(__file__).resolve().parent.parent / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "hostile-set-memory.json").write_text(json.dumps(figures, indent=2))

    records = {a["file_name"]: a for a in state[keys.INVESTIGATION_DOCUMENTS]["attachments"]}
    statuses = {name: record["status"] for name, record in records.items()}
    assert statuses == {
        "drawing.pdf": "unreadable",
        "nested.pdf": "unreadable",
        "tiny.docx": "unreadable",
        "one-stream.pdf": "added",  # cut at the character budget, with a note per page
        "noise.pdf": "added",  # its OCR within the investigation's budget
        "epa-memo.md": "added",
    }
    assert records["noise.pdf"]["ocr_seconds"] <= OCR_SECONDS + 1
    assert "(epa-memo.md) - 1 page" in plan
    assert health.answered_within(5.0), str(health)
    assert memory.peak_pss_mib <= TREE_PEAK_MIB, figures
