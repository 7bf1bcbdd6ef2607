"""A newsroom that integrated against seed 001's own text accepts everything Vicaran sends.

The receiver is `SeedNewsroom` (tests/fakes/newsroom.py): seed 001's zod schemas, with
`INVESTIGATION_PARTIAL.overall_bias_score` at most 5, and foreign keys for the ids it gave.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.newsroom import SeedNewsroom
from tests.support import outbox as outbox_flush
from tests.support import wait
from tests.support.cli_process import start_investigation
from tests.support.conversation import Conversation
from tests.support.records import as_json
from vicaran_agent import liveness, services
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.read_model import OutboxSummary
from vicaran_agent.schemas import InvestigationConfig
from vicaran_agent.server.callback_data import CompleteData
from vicaran_agent.storage import get_repository, payloads
from vicaran_agent.storage.outbox import queue_for_callback
from vicaran_agent.storage.payloads import on_scale
from vicaran_agent.storage.rows import (
    BiasRow,
    ClaimRow,
    EvidenceRow,
    FactCheckRow,
    InvestigationRow,
    SourceRow,
    TimelineEventRow,
)

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parent.parent

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water."
USER_URL = "https://rivertondaily.com/news/acme-health-complaints"
SECRET = "seed-secret"
ID = "9b2f5e1c-3d4a-4b6c-8d7e-1f2a3b4c5d6e"


@pytest.fixture
def newsroom(env) -> Iterator[SeedNewsroom]:
    with SeedNewsroom(secret=SECRET) as server:
        env.set(CALLBACK_API_URL=server.url + "/api/agent-callback", AGENT_SECRET=SECRET)
        yield server


def post(
    newsroom: SeedNewsroom, kind: str, data: Any, investigation_id: str = ID
) -> httpx.Response:
    return httpx.post(
        newsroom.url + "/api/agent-callback",
        json={"type": kind, "investigation_id": investigation_id, "data": data},
        headers={"X-Agent-Secret": SECRET},
    )


async def drain() -> None:
    await outbox_flush.drain()


def outbox_summary() -> OutboxSummary:
    return get_repository(get_settings().database_url).outbox_summary()


async def investigate(brief: str) -> dict[str, Any]:
    conversation = Conversation()
    await conversation.send(brief)
    await conversation.send("APPROVED")
    return await conversation.state()


# --- the receiver is as strict as the seed ------------------------------------------------------


def test_the_seed_receiver_refuses_what_its_zod_schemas_refuse(newsroom):
    partial = {"summary": "s", "partial_reason": "r"}
    assert post(newsroom, "INVESTIGATION_PARTIAL", partial).status_code == 200
    assert post(newsroom, "INVESTIGATION_PARTIAL", {**partial, "overall_bias_score": 5}).is_success
    assert post(newsroom, "INVESTIGATION_PARTIAL", {**partial, "extra": [1]}).is_success  # stripped
    refused = [
        ("INVESTIGATION_PARTIAL", {**partial, "overall_bias_score": 5.01}, ID),
        ("INVESTIGATION_PARTIAL", {**partial, "overall_bias_score": None}, ID),  # optional, not null
        ("INVESTIGATION_PARTIAL", {**partial, "overall_bias_score": "3"}, ID),
        ("INVESTIGATION_PARTIAL", {"summary": "s"}, ID),
        ("INVESTIGATION_PARTIAL", partial, "not-a-uuid"),
        ("INVESTIGATION_COMPLETE", {"summary": "s", "overall_bias_score": 9.5}, ID),
        ("SOURCE_FOUND", {"url": "https://a.example", "credibility_score": 3.5,
                          "is_user_provided": False}, ID),
        ("CLAIM_EXTRACTED", {"claim_text": "x", "source_ids": ["never-given"]}, ID),
    ]  # fmt: skip
    for kind, data, investigation_id in refused:
        response = post(newsroom, kind, data, investigation_id)
        assert response.status_code == 400, (kind, data)
    assert len(newsroom.refused) == len(refused)
    assert "less than or equal to 5" in newsroom.refused[0].error


# --- what Vicaran sends ---------------------------------------------------------------------


ALL_TYPES = [
    "INVESTIGATION_STARTED",
    "SOURCE_FOUND",
    "CLAIM_EXTRACTED",
    "FACT_CHECKED",
    "BIAS_ANALYZED",
    "TIMELINE_EVENT",
    "INVESTIGATION_PARTIAL",
]


@pytest.mark.parametrize("mode", ["Quick Search", "Detailed Inquiry"])
async def test_a_partial_run_with_bias_above_five_is_accepted_whole(env, newsroom, mode):
    env.set(VICARAN_FAST_MODEL="scripted/one-sided")
    env.services.tavily.fail(500)  # the search fails: the journalist's page carries a partial run
    state = await investigate(f"{mode}. {BRIEF} {USER_URL}")
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert record["overall_bias_score"] > 5  # Vicaran's own 0-10 score
    await drain()
    assert newsroom.refused == []
    assert outbox_summary().counts.failed == 0
    expected = [t for t in ALL_TYPES if mode.startswith("Detailed") or t != "TIMELINE_EVENT"]
    assert sorted(set(newsroom.types())) == sorted(expected)
    (final,) = newsroom.records("INVESTIGATION_PARTIAL")
    assert final["overall_bias_score"] == round(record["overall_bias_score"] / 2, 2)
    assert final["bias_scale"] == 5


@pytest.mark.parametrize(("scale", "sent"), [("5", 4.75), ("10", 9.5)])
def test_the_final_records_bias_score_is_on_the_configured_scale(env, scale, sent):
    env.set(VICARAN_CALLBACK_BIAS_SCALE=scale)
    row = InvestigationRow(id=ID, summary="s", overall_bias_score=9.5, partial_reason="r")
    for kind in ("INVESTIGATION_COMPLETE", "INVESTIGATION_PARTIAL"):
        _, data = payloads.payload(kind, row)
        assert (data["overall_bias_score"], data["bias_scale"]) == (sent, int(scale))
    _, bias = payloads.payload(
        "BIAS_ANALYZED", BiasRow(overall_bias_score=9.5, coverage={}, per_source=[])
    )
    assert bias["overall_bias_score"] == 9.5 and "bias_scale" not in bias  # always 0-10


def test_a_halved_score_reads_back_as_the_same_score():
    """Vicaran's scores have one decimal: halved with two, doubled again, nothing is lost."""
    scores = [round(tenth / 10, 1) for tenth in range(101)]
    assert [
        CompleteData(summary="", overall_bias_score=on_scale(s, 5)).bias_score for s in scores
    ] == scores


# --- interrupted runs --------------------------------------------------------------------------


def wait_for(check: Callable[[], bool], seconds: float = 60.0) -> None:
    wait.until_sync(check, "the condition was not met in time", seconds)


def status(investigation_id: str) -> str | None:
    return get_repository(get_settings().database_url).get_status(investigation_id)


def has_sources(investigation_id: str) -> bool:
    found = as_json(get_repository(get_settings().database_url).get_investigation(investigation_id))
    return bool(found and found["status"] == "in_progress" and found["sources"])


async def test_a_killed_run_reaches_the_newsroom_once_as_partial_and_a_rerun_completes(
    env, newsroom
):
    env.set(VICARAN_HEARTBEAT_SECONDS="0.5")  # stale after 1.5 s, for the test
    process = start_investigation(f"Quick Search. {BRIEF}", ID)
    try:
        await asyncio.to_thread(wait_for, lambda: has_sources(ID))
        process.kill()  # SIGKILL: the process writes nothing more
        process.wait(timeout=30)
    finally:
        process.kill()
    await asyncio.to_thread(wait_for, lambda: status(ID) == "interrupted", 10)
    assert await liveness.sweep(force=True) == [ID]  # the next start finds and marks it
    await drain()
    assert await liveness.sweep(force=True) == []  # a second start has nothing to mark
    await drain()
    assert newsroom.refused == []
    (partial,) = newsroom.records("INVESTIGATION_PARTIAL", ID)
    assert partial["partial_reason"].startswith("Interrupted")
    assert partial["summary"].strip()  # no report yet: a one-line summary of what was saved
    assert newsroom.records("INVESTIGATION_COMPLETE", ID) == []
    assert get_repository(get_settings().database_url).get_status(ID) == "interrupted"

    # the journalist runs it again: the re-run's own final record follows
    conversation = Conversation()
    await conversation.send(f"Investigation ID: {ID}\nQuick Search. {BRIEF}")
    await conversation.send("APPROVED")
    assert (await conversation.state())[keys.INVESTIGATION_STATUS] == "completed"
    await drain()
    assert newsroom.refused == []
    assert len(newsroom.records("INVESTIGATION_PARTIAL", ID)) == 1
    (complete,) = newsroom.records("INVESTIGATION_COMPLETE", ID)
    assert complete["summary"].startswith("# ")


async def test_a_stopped_run_is_delivered_as_partial_with_what_it_found(env, newsroom):
    """SIGTERM (`interrupt_running`) and a cancelled pipeline mark the run themselves."""
    repository = get_repository(get_settings().database_url)
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=ID, title="Acme", brief=BRIEF, language="pt-BR"
    )
    with queue_for_callback():
        repository.start_investigation(config, session_id="a-conversation")
    services.current().running.add(ID)
    try:
        assert liveness.interrupt_running() == [ID]
        assert liveness.interrupt_running() == []  # marked once
    finally:
        services.current().running.discard(ID)
    await drain()
    assert newsroom.refused == []
    assert newsroom.types() == ["INVESTIGATION_STARTED", "INVESTIGATION_PARTIAL"]
    (partial,) = newsroom.records("INVESTIGATION_PARTIAL")
    assert partial["partial_reason"].startswith("Interrompida")  # the investigation's language
    assert "fontes 0, alegações 0, checagens 0" in partial["summary"]


async def test_a_rerun_after_an_interruption_that_ends_partial_delivers_its_own_partial(
    env, newsroom
):
    repository = get_repository(get_settings().database_url)
    conversation = Conversation()
    await conversation.send(f"Investigation ID: {ID}\nQuick Search. {BRIEF} {USER_URL}")
    with queue_for_callback():  # as if the process had stopped before the approval's run
        repository.start_investigation(
            InvestigationConfig.for_mode(
                "quick", investigation_id=ID, title="t", brief=BRIEF, language="en"
            ),
            session_id=conversation.session_id,
        )
        assert repository.mark_interrupted([ID], "stopped") == [ID]
    env.services.tavily.fail(500)
    await conversation.send("APPROVED")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    await drain()
    assert newsroom.refused == []
    interrupted, final = newsroom.records("INVESTIGATION_PARTIAL", ID)
    assert interrupted["partial_reason"].startswith("Interrupted")
    assert final["partial_reason"] == state[keys.PARTIAL_REASON]
    assert final["summary"].startswith("# ")


# --- docs/callback-api.md says exactly what is sent --------------------------------------------

DOCS = ROOT / "docs" / "callback-api.md"


def documented() -> dict[str, tuple[set[str], set[str]]]:
    """{row label: (fields always sent, fields sent with a value)} from "What Vicaran sends"."""
    text = DOCS.read_text()
    section = text.split("### What Vicaran sends", 1)[1].split("\n**", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0] or set(cells[0]) <= set("-") or cells[0] == "type":
            continue
        always, optional = ({n for n in cell.split("`")[1::2]} for cell in cells[1:])
        rows[cells[0].replace("`", "")] = (always, optional)
    return rows


def filled(model: Any, *, full: bool, **fixed: Any) -> Any:
    """A row of `model` with every column set: nullable ones to None, texts empty, unless
    `full`."""
    samples = {str: "x" if full else "", int: 1, float: 1.0, bool: True}
    row = model(**fixed)
    for column in model.__table__.columns:
        if column.key in fixed:
            continue
        kind = column.type.python_type
        value = samples.get(kind, ["x"] if kind in (list, dict, object) else None)  # JSON
        setattr(row, column.key, value if full or not column.nullable else None)
    return row


def sent(full: bool) -> dict[str, dict[str, Any]]:
    """What Vicaran sends for each type, from rows with every value (or only required ones)."""
    source = filled(SourceRow, full=full, id="s1", url="https://example.org/a")
    claim = filled(ClaimRow, full=full, id="c1", sources=[source], earlier_checks=[])
    evidence = filled(EvidenceRow, full=full, id="e1")
    check = filled(FactCheckRow, full=full, id="f1", evidence=[evidence], sources=[source])
    investigation = filled(
        InvestigationRow,
        full=full,
        id=ID,
        overall_bias_score=7.3 if full else None,
        quality={"overall": 90} if full else None,
        tokens={"input": 1} if full else None,
    )
    per_source = [{"source_id": "s1", "bias_score": 2.0, "stance": "neutral", "indicators": []}]
    bias = filled(
        BiasRow,
        full=full,
        id="b1",
        coverage={"neutral": 1},
        coverage_pct={"neutral": 100.0},
        per_source=per_source,
    )
    dispute = {"claim": "x", "stated": "before", "other_date": "2024", "other_text": "x"}
    event = filled(
        TimelineEventRow, full=full, id="t1", source_ids=["s1"], order_disputes=[dispute]
    )
    records = {
        "INVESTIGATION_STARTED": investigation,
        "SOURCE_FOUND": source,
        "CLAIM_EXTRACTED": claim,
        "FACT_CHECKED": check,
        "BIAS_ANALYZED": bias,
        "TIMELINE_EVENT": event,
        "INVESTIGATION_COMPLETE": investigation,
        "INVESTIGATION_PARTIAL": investigation,
        "INVESTIGATION_FAILED": investigation,
    }
    data = {kind: payloads.payload(kind, row)[1] for kind, row in records.items()}
    data["an evidence item"] = data["FACT_CHECKED"]["evidence"][0]
    data["a per_source item"] = data["BIAS_ANALYZED"]["per_source"][0]
    return data


def test_the_docs_list_exactly_the_fields_vicaran_sends(env):
    rows = documented()
    assert set(rows) == set(sent(full=True)), "a type missing from the table, or one too many"
    for kind, (always, optional) in rows.items():
        assert set(sent(full=False)[kind]) == always, kind
        assert set(sent(full=True)[kind]) == always | optional, kind
    assert sent(full=True)["INVESTIGATION_PARTIAL"]["overall_bias_score"] == 3.65  # 7.3 halved
    assert "7.3 is sent as 3.65" in DOCS.read_text()
