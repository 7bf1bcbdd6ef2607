"""The served callback API (reference/callback-api.md) against a fresh SQLite store."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.support.records import as_json
from vicaran_agent.config import forget_settings
from vicaran_agent.server.callback_api import CALLBACK_PATH, callback_router
from vicaran_agent.storage.repository import Repository, get_repository

SECRET = "test-secret-0123456"

SOURCE = {
    "url": "https://www.Example.com/news/story/?utm_source=x&id=7",
    "title": "Story",
    "content_snippet": "What the page says.",
    "credibility_score": 4,
    "is_user_provided": False,
}


# --- fixtures and helpers ----------------------------------------------------------------


@pytest.fixture
def database_url(records_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh store (each backend of the matrix) and a configured secret (no .env: see conftest)."""
    for name in ("AGENT_SECRET", "DEBUG_MODE", "CALLBACK_API_URL"):
        monkeypatch.delenv(name, raising=False)
    url = records_url
    monkeypatch.setenv("VICARAN_DATABASE_URL", url)
    monkeypatch.setenv("AGENT_SECRET", SECRET)
    forget_settings()
    yield url
    forget_settings()
    get_repository(url).close()


@pytest.fixture
def repo(database_url: str) -> Repository:
    return get_repository(database_url)


@pytest.fixture
async def client(database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    app.include_router(callback_router())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://vicaran.test") as http:
        yield http


async def send(
    client: httpx.AsyncClient,
    type_: str,
    investigation_id: str,
    data: dict[str, Any],
    *,
    key: str | None = None,
    secret: str | None = SECRET,
) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Agent-Secret"] = secret
    if key is not None:
        headers["Idempotency-Key"] = key
    body = {"type": type_, "investigation_id": investigation_id, "data": data}
    return await client.post(CALLBACK_PATH, json=body, headers=headers)


async def post_raw(
    client: httpx.AsyncClient, content: bytes, *, secret: str | None = SECRET
) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Agent-Secret"] = secret
    return await client.post(CALLBACK_PATH, content=content, headers=headers)


def new_id() -> str:
    return str(uuid.uuid4())


async def started(client: httpx.AsyncClient, **data: Any) -> str:
    investigation_id = new_id()
    payload = {"mode": "detailed", "title": "Riverton bridge", "brief": "Check it", **data}
    response = await send(client, "INVESTIGATION_STARTED", investigation_id, payload)
    assert response.status_code == 200, response.text
    return investigation_id


async def add_source(client: httpx.AsyncClient, investigation_id: str, **data: Any) -> str:
    response = await send(client, "SOURCE_FOUND", investigation_id, {**SOURCE, **data})
    assert response.status_code == 200, response.text
    return str(response.json()["source_id"])


async def add_claim(client: httpx.AsyncClient, investigation_id: str, source_ids: list[str]) -> str:
    data = {"claim_text": "The bridge cost $4M.", "importance": 0.8, "source_ids": source_ids}
    response = await send(client, "CLAIM_EXTRACTED", investigation_id, data)
    assert response.status_code == 200, response.text
    return str(response.json()["claim_id"])


def fact_check_data(claim_id: str, source_ids: list[str]) -> dict[str, Any]:
    return {
        "claim_id": claim_id,
        "verdict": "partially_true",
        "confidence": 0.7,
        "explanation": "The budget says $4.2M [1].",
        "evidence": [
            {
                "url": "https://news.bbc.co.uk/a/1",
                "title": "Budget",
                "reliability": "high",
                "stance": "supports",
                "snippet": "4.2 million",
            }
        ],
        "source_ids": source_ids,
    }


def stored(repo: Repository, investigation_id: str) -> dict[str, Any]:
    found = as_json(repo.get_investigation(investigation_id))
    assert found is not None
    return found


def failure(response: httpx.Response, status: int) -> str:
    """The error message, after checking the status and the contract's error shape."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["success"] is False
    assert set(body) == {"success", "error"}
    return str(body["error"])


# --- every type, written into the store ---------------------------------------------------


async def test_investigation_started_creates_it_in_progress(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = new_id()
    response = await send(
        client,
        "INVESTIGATION_STARTED",
        investigation_id,
        {"mode": "quick", "title": "Merenda", "brief": "Verificar", "language": "pt-BR"},
    )
    assert response.status_code == 200
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert (record["status"], record["mode"], record["title"], record["brief"]) == (
        "in_progress",
        "quick",
        "Merenda",
        "Verificar",
    )
    assert record["language"] == "pt-BR"


async def test_started_defaults_title_brief_and_language(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = new_id()
    response = await send(client, "INVESTIGATION_STARTED", investigation_id, {"mode": "detailed"})
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert (record["title"], record["brief"], record["language"]) == ("", "", "en")


FINISH: dict[str, tuple[str, dict[str, Any]]] = {
    "completed": ("INVESTIGATION_COMPLETE", {"summary": "# Report"}),
    "partial": ("INVESTIGATION_PARTIAL", {"summary": "# Report", "partial_reason": "quota"}),
    "failed": ("INVESTIGATION_FAILED", {"error": "quota"}),
}


def mark_interrupted(repo: Repository, investigation_id: str) -> None:
    """As Vicaran marks a run the process stopped in (no callback type sets it)."""
    from vicaran_agent.storage.rows import InvestigationRow

    def op(session: Any) -> None:
        session.get(InvestigationRow, investigation_id).status = "interrupted"

    repo._write(op)


@pytest.mark.parametrize("status", ["completed", "partial", "failed", "interrupted"])
async def test_started_cannot_reopen_a_finished_investigation(
    client: httpx.AsyncClient, repo: Repository, status: str
) -> None:
    start = {"mode": "detailed", "title": "Riverton bridge", "brief": "Check it"}
    investigation_id = new_id()
    first = await send(client, "INVESTIGATION_STARTED", investigation_id, start, key="start-1")
    assert first.status_code == 200
    if status == "interrupted":
        mark_interrupted(repo, investigation_id)
    else:
        type_, data = FINISH[status]
        assert (await send(client, type_, investigation_id, data)).status_code == 200
    before = stored(repo, investigation_id)
    hijack = {"mode": "quick", "title": "Hijacked", "brief": "Something else"}
    for key in (None, "start-2"):
        response = await send(client, "INVESTIGATION_STARTED", investigation_id, hijack, key=key)
        message = failure(response, 409)
        assert f"already {status}" in message and "cannot reopen" in message
    after = stored(repo, investigation_id)
    assert (after["status"], after["title"], after["mode"]) == (
        status,
        "Riverton bridge",
        "detailed",
    )
    assert after == before
    # The original start, replayed with its key, still gets its original answer.
    replay = await send(client, "INVESTIGATION_STARTED", investigation_id, start, key="start-1")
    assert (replay.status_code, replay.json()) == (200, {"success": True})
    assert stored(repo, investigation_id) == before


async def test_started_again_while_running_updates_it(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    response = await send(client, "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"})
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert (record["status"], record["mode"]) == ("in_progress", "quick")


async def test_source_found_normalizes_url_and_defaults_domain(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    response = await send(client, "SOURCE_FOUND", investigation_id, SOURCE)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"success", "source_id"} and body["success"] is True
    [source] = stored(repo, investigation_id)["sources"]
    assert source["id"] == body["source_id"]
    assert source["url"] == "https://example.com/news/story?id=7"
    assert source["domain"] == "example.com"
    assert source["content_summary"] == "What the page says."
    assert (source["credibility_score"], source["is_user_provided"]) == (4, False)
    assert (source["origin"], source["title"]) == ("web", "Story")


async def test_source_found_keeps_given_fields(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    data = {
        **SOURCE,
        "domain": "example.org",
        "origin": "user_url",
        "is_user_provided": True,
        "published_at": "2024-03-05",
        "published_at_source": "metadata",
    }
    await send(client, "SOURCE_FOUND", investigation_id, data)
    [source] = stored(repo, investigation_id)["sources"]
    assert source["domain"] == "example.org"
    assert (source["origin"], source["is_user_provided"]) == ("user_url", True)
    assert (source["published_at"], source["published_at_source"]) == ("2024-03-05", "metadata")


async def test_same_source_url_twice_is_one_source(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    first = await add_source(client, investigation_id)
    again = await add_source(client, investigation_id, url="https://example.com/news/story?id=7")
    assert first == again
    assert len(stored(repo, investigation_id)["sources"]) == 1


async def test_claim_links_sources_created_through_the_api(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    first = await add_source(client, investigation_id)
    second = await add_source(client, investigation_id, url="https://other.net/b")
    response = await send(
        client,
        "CLAIM_EXTRACTED",
        investigation_id,
        {"claim_text": "The bridge cost $4M.", "importance": 0.8, "source_ids": [second, first]},
    )
    assert response.status_code == 200
    claim_id = response.json()["claim_id"]
    assert set(response.json()) == {"success", "claim_id"}
    [claim] = stored(repo, investigation_id)["claims"]
    assert claim["id"] == claim_id
    assert claim["claim_text"] == "The bridge cost $4M."
    assert claim["importance"] == 0.8
    assert set(claim["source_ids"]) == {first, second}
    assert claim["key"].startswith("X") and len(claim["key"]) == 9


async def test_a_claim_says_what_it_is_about_and_who_is_quoted(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    data = {
        "claim_text": "The EPA found that the plant exceeded its limits.",
        "source_ids": [source_id],
        "kind": "attribution",
        "attributed_to": "  Environmental Protection\nAgency (EPA) ",
    }
    assert (await send(client, "CLAIM_EXTRACTED", investigation_id, data)).status_code == 200
    claim_id = await add_claim(client, investigation_id, [source_id])  # no kind: a fact
    said, fact = stored(repo, investigation_id)["claims"]
    assert (said["kind"], said["attributed_to"]) == (
        "attribution",
        "Environmental Protection Agency (EPA)",
    )
    assert (fact["kind"], fact["attributed_to"]) == ("fact", "")
    evidence = fact_check_data(claim_id, [source_id])["evidence"]
    own = {**evidence[0], "url": "https://www.epa.gov/notice", "primary_record": True}
    data = {**fact_check_data(claim_id, [source_id]), "evidence": [own, evidence[0]]}
    assert (await send(client, "FACT_CHECKED", investigation_id, data)).status_code == 200
    [check] = stored(repo, investigation_id)["fact_checks"]
    assert [e["primary_record"] for e in check["evidence"]] == [True, False]


async def test_each_claim_gets_its_own_record(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    one = await add_claim(client, investigation_id, [source_id])
    two = await add_claim(client, investigation_id, [])
    claims = stored(repo, investigation_id)["claims"]
    assert one != two
    assert [c["id"] for c in claims] == [one, two]
    assert len({c["key"] for c in claims}) == 2
    assert claims[1]["source_ids"] == []


async def test_fact_check_links_a_claim_created_through_the_api(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    claim_id = await add_claim(client, investigation_id, [source_id])
    response = await send(
        client, "FACT_CHECKED", investigation_id, fact_check_data(claim_id, [source_id])
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"success", "fact_check_id"} and body["success"] is True
    [check] = stored(repo, investigation_id)["fact_checks"]
    assert check["id"] == body["fact_check_id"]
    assert check["claim_id"] == claim_id
    assert (check["verdict"], check["confidence"]) == ("partially_true", 0.7)
    assert check["explanation"] == "The budget says $4.2M [1]."
    assert check["source_ids"] == [source_id]
    [evidence] = check["evidence"]
    assert evidence["url"] == "https://news.bbc.co.uk/a/1"
    assert evidence["publisher"] == "bbc.co.uk"
    assert (evidence["reliability"], evidence["stance"]) == ("high", "supports")
    assert (evidence["title"], evidence["snippet"]) == ("Budget", "4.2 million")


async def test_bias_analyzed_computes_coverage_pct_and_links_sources(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    data = {
        "overall_bias_score": 6.5,
        "coverage": {"supportive": 3, "critical": 1},
        "recommendation": "Find critical voices.",
        "per_source": [
            {"source_id": source_id, "bias_score": 7, "stance": "supportive", "indicators": ["x"]}
        ],
    }
    response = await send(client, "BIAS_ANALYZED", investigation_id, data)
    assert response.status_code == 200
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    bias = record["bias"]
    assert bias["overall_bias_score"] == 6.5
    assert bias["coverage"] == {"supportive": 3, "neutral": 0, "critical": 1}
    assert bias["coverage_pct"] == {"supportive": 75.0, "neutral": 0.0, "critical": 25.0}
    assert bias["recommendation"] == "Find critical voices."
    [item] = bias["per_source"]
    assert item["source_id"] == source_id
    assert item["url"] == "https://example.com/news/story?id=7"
    assert (item["bias_score"], item["stance"], item["indicators"]) == (7.0, "supportive", ["x"])
    assert record["overall_bias_score"] == 6.5


async def test_timeline_event_with_and_without_source(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    first = await send(
        client,
        "TIMELINE_EVENT",
        investigation_id,
        {"event_date": "2023-05", "event_text": "Bid opened", "source_id": source_id},
    )
    second = await send(
        client,
        "TIMELINE_EVENT",
        investigation_id,
        {"event_date": "2024-01-15", "date_precision": "day", "event_text": "Contract signed"},
    )
    assert first.status_code == second.status_code == 200
    assert set(first.json()) == {"success", "event_id"}
    events = stored(repo, investigation_id)["timeline"]
    assert [e["id"] for e in events] == [first.json()["event_id"], second.json()["event_id"]]
    assert (events[0]["event_date"], events[0]["date_precision"]) == ("2023-05", "month")
    assert events[0]["source_ids"] == [source_id]
    assert (events[1]["date_precision"], events[1]["source_ids"]) == ("day", [])
    assert events[1]["event_text"] == "Contract signed"


@pytest.mark.parametrize(
    ("event_date", "precision"),
    [("2024", "year"), ("2024-02", "month"), ("2024-02-29", "day"), ("2024-02-29T10:00Z", "day")],
)
async def test_timeline_accepts_iso_dates_and_infers_precision(
    client: httpx.AsyncClient, repo: Repository, event_date: str, precision: str
) -> None:
    investigation_id = await started(client)
    response = await send(
        client, "TIMELINE_EVENT", investigation_id, {"event_date": event_date, "event_text": "x"}
    )
    assert response.status_code == 200, response.text
    [event] = stored(repo, investigation_id)["timeline"]
    assert (event["event_date"], event["date_precision"]) == (event_date, precision)


async def test_investigation_complete(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    response = await send(
        client,
        "INVESTIGATION_COMPLETE",
        investigation_id,
        {"summary": "Mostly verified.", "overall_bias_score": 3.5},
    )
    assert response.status_code == 200
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert (record["status"], record["summary"]) == ("completed", "Mostly verified.")
    assert record["completed_at"] is not None


async def test_investigation_partial(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    response = await send(
        client,
        "INVESTIGATION_PARTIAL",
        investigation_id,
        {"summary": "Half done.", "partial_reason": "search quota"},
    )
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert (record["status"], record["summary"]) == ("partial", "Half done.")
    assert record["partial_reason"] == "search quota"


@pytest.mark.parametrize(
    ("kind", "sent", "kept"),
    [
        # seed 001's receiver takes 0-5, and so does this one when no scale is named
        ("INVESTIGATION_PARTIAL", {"overall_bias_score": 4.75}, 9.5),
        ("INVESTIGATION_COMPLETE", {"overall_bias_score": 4.75, "bias_scale": 5}, 9.5),
        ("INVESTIGATION_PARTIAL", {"overall_bias_score": 0.05, "bias_scale": 5}, 0.1),
        # a Vicaran sending with VICARAN_CALLBACK_BIAS_SCALE=10
        ("INVESTIGATION_COMPLETE", {"overall_bias_score": 9.5, "bias_scale": 10}, 9.5),
        ("INVESTIGATION_PARTIAL", {"overall_bias_score": 10, "bias_scale": 10}, 10.0),
    ],
)
async def test_final_records_take_the_bias_score_on_either_scale(
    client: httpx.AsyncClient, repo: Repository, kind: str, sent: dict[str, Any], kept: float
) -> None:
    """Vicaran keeps 0-10; a final record's score is read on the scale it names (default 5)."""
    investigation_id = await started(client)
    data = {"summary": "s", "partial_reason": "r", **sent}
    response = await send(client, kind, investigation_id, data)
    assert response.status_code == 200, response.text
    assert stored(repo, investigation_id)["overall_bias_score"] == kept


@pytest.mark.parametrize(
    "sent",
    [
        {"overall_bias_score": 6},  # above 5 with no scale named: the seed's 0-5
        {"overall_bias_score": 5.5, "bias_scale": 5},
        {"overall_bias_score": 10.5, "bias_scale": 10},
        {"overall_bias_score": 3, "bias_scale": 7},
        {"overall_bias_score": 3, "bias_scale": "10"},
    ],
)
async def test_a_bias_score_off_its_scale_is_refused(
    client: httpx.AsyncClient, repo: Repository, sent: dict[str, Any]
) -> None:
    investigation_id = await started(client)
    data = {"summary": "s", "partial_reason": "r", **sent}
    response = await send(client, "INVESTIGATION_PARTIAL", investigation_id, data)
    assert response.status_code == 400, response.text
    assert (
        "overall_bias_score" in response.json()["error"] or "bias_scale" in response.json()["error"]
    )
    assert stored(repo, investigation_id)["status"] == "in_progress"


async def test_investigation_failed(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    response = await send(client, "INVESTIGATION_FAILED", investigation_id, {"error": "no key"})
    assert response.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert (record["status"], record["error"]) == ("failed", "no key")


async def test_extra_fields_are_ignored(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client, future_field={"anything": 1})
    response = await send(client, "SOURCE_FOUND", investigation_id, {**SOURCE, "new_in_v2": True})
    assert response.status_code == 200
    assert len(stored(repo, investigation_id)["sources"]) == 1


async def test_investigation_id_is_canonicalized(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    response = await send(client, "SOURCE_FOUND", investigation_id.upper(), SOURCE)
    assert response.status_code == 200
    assert len(stored(repo, investigation_id)["sources"]) == 1


# --- authentication ------------------------------------------------------------------------


@pytest.mark.parametrize("secret", [None, "", "wrong-secret", SECRET + "x", SECRET[:-1]])
async def test_missing_or_wrong_secret_is_401(
    client: httpx.AsyncClient, repo: Repository, secret: str | None
) -> None:
    investigation_id = new_id()
    response = await send(
        client, "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"}, secret=secret
    )
    assert response.status_code == 401
    assert response.json() == {"success": False, "error": "Unauthorized"}
    assert repo.get_status(investigation_id) is None


async def test_bearer_token_is_not_accepted(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = new_id()
    body = {"type": "INVESTIGATION_STARTED", "investigation_id": investigation_id, "data": {}}
    response = await client.post(
        CALLBACK_PATH, json=body, headers={"Authorization": f"Bearer {SECRET}"}
    )
    assert response.status_code == 401


async def test_secret_is_checked_before_the_body(client: httpx.AsyncClient) -> None:
    response = await post_raw(client, b"{not json", secret="wrong")
    assert response.json() == {"success": False, "error": "Unauthorized"}
    assert response.status_code == 401


async def test_no_configured_secret_refuses_every_callback(
    client: httpx.AsyncClient,
    repo: Repository,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv("AGENT_SECRET")
    forget_settings()
    investigation_id = new_id()
    with caplog.at_level(logging.WARNING):
        for secret in (None, "", SECRET):
            response = await send(
                client, "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"}, secret=secret
            )
            assert response.status_code == 401
            assert response.json() == {"success": False, "error": "Unauthorized"}
    assert repo.get_status(investigation_id) is None
    assert any("AGENT_SECRET must be set" in r.getMessage() for r in caplog.records)


async def test_secret_change_is_read_per_request(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SECRET", "rotated")
    forget_settings()
    old = await send(client, "INVESTIGATION_STARTED", new_id(), {"mode": "quick"})
    new = await send(client, "INVESTIGATION_STARTED", new_id(), {"mode": "quick"}, secret="rotated")
    assert (old.status_code, new.status_code) == (401, 200)


# --- 400: the envelope -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b"{not json", "malformed JSON"),
        (b"", "malformed JSON"),
        (b"\xff\xfe\x00garbage", "malformed JSON"),
        (b'{"type": "SOURCE_FOUND", "investigation_id": NaN, "data": {}}', "malformed JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"investigation_id": "x", "data": {}}', "type"),
        (b'{"type": 7, "investigation_id": "x", "data": {}}', "type"),
    ],
)
async def test_malformed_body_is_400(client: httpx.AsyncClient, content: bytes, named: str) -> None:
    assert named in failure(await post_raw(client, content), 400)


async def test_callback_type_field_is_named_in_the_error(client: httpx.AsyncClient) -> None:
    body = {"callback_type": "SOURCE_FOUND", "investigation_id": new_id(), "data": SOURCE}
    message = failure(await post_raw(client, json.dumps(body).encode()), 400)
    assert "'type'" in message and "callback_type" in message


async def test_unknown_type_is_400(client: httpx.AsyncClient) -> None:
    message = failure(await send(client, "SOURCE_LOST", new_id(), {}), 400)
    assert "unknown type 'SOURCE_LOST'" in message
    assert "SOURCE_FOUND" in message


@pytest.mark.parametrize("investigation_id", ["not-a-uuid", "", "1234", 42, None])
async def test_investigation_id_must_be_a_uuid(
    client: httpx.AsyncClient, repo: Repository, investigation_id: Any
) -> None:
    body = {"type": "INVESTIGATION_STARTED", "investigation_id": investigation_id, "data": {}}
    body["data"] = {"mode": "quick"}
    message = failure(await post_raw(client, json.dumps(body).encode()), 400)
    assert "investigation_id" in message
    assert as_json(repo.list_investigations()) == []


@pytest.mark.parametrize("data", [None, [], "x"])
async def test_data_must_be_an_object(client: httpx.AsyncClient, data: Any) -> None:
    body = {"type": "INVESTIGATION_FAILED", "investigation_id": new_id(), "data": data}
    assert "'data'" in failure(await post_raw(client, json.dumps(body).encode()), 400)


# --- 400: invalid data, per type -----------------------------------------------------------


BAD_DATA: list[tuple[str, dict[str, Any], str]] = [
    ("INVESTIGATION_STARTED", {"mode": "thorough"}, "data.mode"),
    ("INVESTIGATION_STARTED", {}, "data.mode"),
    ("INVESTIGATION_STARTED", {"mode": "quick", "language": "english please"}, "data.language"),
    ("SOURCE_FOUND", {**SOURCE, "credibility_score": 6}, "data.credibility_score"),
    ("SOURCE_FOUND", {**SOURCE, "credibility_score": 0}, "data.credibility_score"),
    ("SOURCE_FOUND", {**SOURCE, "credibility_score": 2.5}, "data.credibility_score"),
    ("SOURCE_FOUND", {k: v for k, v in SOURCE.items() if k != "url"}, "data.url"),
    ("SOURCE_FOUND", {**SOURCE, "url": "mailto:a@b.c"}, "data.url"),
    ("SOURCE_FOUND", {**SOURCE, "url": ""}, "data.url"),
    ("SOURCE_FOUND", {**SOURCE, "origin": "rumour"}, "data.origin"),
    (
        "SOURCE_FOUND",
        {k: v for k, v in SOURCE.items() if k != "is_user_provided"},
        "data.is_user_provided",
    ),
    ("CLAIM_EXTRACTED", {"claim_text": "x", "importance": 1.5, "source_ids": []}, "importance"),
    ("CLAIM_EXTRACTED", {"claim_text": "  ", "source_ids": []}, "data.claim_text"),
    ("CLAIM_EXTRACTED", {"claim_text": "x"}, "data.source_ids"),
    ("CLAIM_EXTRACTED", {"claim_text": "x", "source_ids": [], "kind": "rumour"}, "data.kind"),
    ("FACT_CHECKED", {**fact_check_data("c", []), "verdict": "true"}, "data.verdict"),
    ("FACT_CHECKED", {**fact_check_data("c", []), "confidence": -0.1}, "data.confidence"),
    ("FACT_CHECKED", {**fact_check_data("c", []), "confidence": 2}, "data.confidence"),
    (
        "FACT_CHECKED",
        {
            **fact_check_data("c", []),
            "evidence": [{"url": "https://a.com", "reliability": "great", "stance": "supports"}],
        },
        "data.evidence.0.reliability",
    ),
    (
        "FACT_CHECKED",
        {
            **fact_check_data("c", []),
            "evidence": [{"url": "https://a.com", "reliability": "high", "stance": "agrees"}],
        },
        "data.evidence.0.stance",
    ),
    ("FACT_CHECKED", {**fact_check_data("c", []), "claim_id": ""}, "data.claim_id"),
    ("BIAS_ANALYZED", {"overall_bias_score": 11, "coverage": {}}, "data.overall_bias_score"),
    ("BIAS_ANALYZED", {"overall_bias_score": -1, "coverage": {}}, "data.overall_bias_score"),
    ("BIAS_ANALYZED", {"overall_bias_score": 5}, "data.coverage"),
    ("BIAS_ANALYZED", {"overall_bias_score": 5, "coverage": {"neutral": -2}}, "data.coverage"),
    (
        "BIAS_ANALYZED",
        {
            "overall_bias_score": 5,
            "coverage": {},
            "per_source": [{"source_id": "s", "bias_score": 12}],
        },
        "data.per_source.0.bias_score",
    ),
    ("TIMELINE_EVENT", {"event_date": "yesterday", "event_text": "x"}, "data.event_date"),
    ("TIMELINE_EVENT", {"event_date": "2024-13", "event_text": "x"}, "data.event_date"),
    ("TIMELINE_EVENT", {"event_date": "2023-02-29", "event_text": "x"}, "data.event_date"),
    ("TIMELINE_EVENT", {"event_date": "05/03/2024", "event_text": "x"}, "data.event_date"),
    (
        "TIMELINE_EVENT",
        {"event_date": "2024", "date_precision": "day", "event_text": "x"},
        "date_precision",
    ),
    (
        "TIMELINE_EVENT",
        {"event_date": "2024-01-01", "date_precision": "week", "event_text": "x"},
        "data.date_precision",
    ),
    ("TIMELINE_EVENT", {"event_date": "2024"}, "data.event_text"),
    ("INVESTIGATION_COMPLETE", {}, "data.summary"),
    ("INVESTIGATION_COMPLETE", {"summary": "s", "overall_bias_score": 10.5}, "overall_bias_score"),
    ("INVESTIGATION_PARTIAL", {"summary": "s"}, "data.partial_reason"),
    (
        "INVESTIGATION_PARTIAL",
        {"summary": "s", "partial_reason": "r", "overall_bias_score": -3},
        "overall_bias_score",
    ),
    ("INVESTIGATION_FAILED", {}, "data.error"),
    ("INVESTIGATION_FAILED", {"error": 5}, "data.error"),
]


@pytest.mark.parametrize(("type_", "data", "named"), BAD_DATA)
async def test_invalid_data_is_400_naming_the_field(
    client: httpx.AsyncClient, repo: Repository, type_: str, data: dict[str, Any], named: str
) -> None:
    investigation_id = await started(client)
    before = stored(repo, investigation_id)
    message = failure(await send(client, type_, investigation_id, data), 400)
    assert message.startswith(f"invalid data for {type_}")
    assert named in message
    after = stored(repo, investigation_id)
    for part in ("sources", "claims", "fact_checks", "bias", "timeline", "status"):
        assert after[part] == before[part]


async def test_every_type_has_a_bad_data_case() -> None:
    from vicaran_agent.server.callback_data import DATA_MODELS

    assert {type_ for type_, _, _ in BAD_DATA} == set(DATA_MODELS)


async def test_claim_with_unknown_source_ids_is_400_naming_them(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    known = await add_source(client, investigation_id)
    other = await started(client)
    foreign = await add_source(client, other)  # a source of another investigation
    data = {"claim_text": "x", "source_ids": [known, "nope-1", foreign]}
    message = failure(await send(client, "CLAIM_EXTRACTED", investigation_id, data), 400)
    assert "source_ids" in message and "nope-1" in message and foreign in message
    assert known not in message
    assert stored(repo, investigation_id)["claims"] == []


async def test_fact_check_of_an_unknown_claim_is_400(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    other = await started(client)
    foreign_claim = await add_claim(client, other, [])
    for claim_id in ("missing-claim", foreign_claim):
        message = failure(
            await send(client, "FACT_CHECKED", investigation_id, fact_check_data(claim_id, [])),
            400,
        )
        assert "claim_id" in message and claim_id in message
    assert stored(repo, investigation_id)["fact_checks"] == []
    assert stored(repo, other)["fact_checks"] == []


async def test_fact_check_with_unknown_source_ids_is_400(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    claim_id = await add_claim(client, investigation_id, [])
    data = fact_check_data(claim_id, ["ghost"])
    message = failure(await send(client, "FACT_CHECKED", investigation_id, data), 400)
    assert "source_ids" in message and "ghost" in message
    assert stored(repo, investigation_id)["fact_checks"] == []


async def test_bias_per_source_needs_a_source_of_this_investigation(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    data = {
        "overall_bias_score": 5,
        "coverage": {"neutral": 1},
        "per_source": [{"source_id": "ghost", "bias_score": 5}],
    }
    message = failure(await send(client, "BIAS_ANALYZED", investigation_id, data), 400)
    assert "per_source.source_id" in message and "ghost" in message
    assert stored(repo, investigation_id)["bias"] is None


async def test_timeline_with_unknown_source_is_400(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    data = {"event_date": "2024", "event_text": "x", "source_id": "ghost"}
    message = failure(await send(client, "TIMELINE_EVENT", investigation_id, data), 400)
    assert "source_id" in message and "ghost" in message
    assert stored(repo, investigation_id)["timeline"] == []


# --- 404 -------------------------------------------------------------------------------------


VALID_WITHOUT_REFERENCES: list[tuple[str, dict[str, Any]]] = [
    ("SOURCE_FOUND", SOURCE),
    ("CLAIM_EXTRACTED", {"claim_text": "x", "source_ids": []}),
    ("FACT_CHECKED", fact_check_data("some-claim", [])),
    ("BIAS_ANALYZED", {"overall_bias_score": 1, "coverage": {"neutral": 1}}),
    ("TIMELINE_EVENT", {"event_date": "2024-01-02", "event_text": "x"}),
    ("INVESTIGATION_COMPLETE", {"summary": "s"}),
    ("INVESTIGATION_PARTIAL", {"summary": "s", "partial_reason": "r"}),
    ("INVESTIGATION_FAILED", {"error": "e"}),
]


@pytest.mark.parametrize(("type_", "data"), VALID_WITHOUT_REFERENCES)
async def test_unknown_investigation_is_404(
    client: httpx.AsyncClient, repo: Repository, type_: str, data: dict[str, Any]
) -> None:
    investigation_id = new_id()
    response = await send(client, type_, investigation_id, data)
    assert response.status_code == 404
    assert response.json() == {"success": False, "error": "investigation not found"}
    assert as_json(repo.get_investigation(investigation_id)) is None


# --- idempotency -------------------------------------------------------------------------------


async def test_replay_returns_the_same_response_without_a_new_record(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    data = {"claim_text": "Once only.", "source_ids": [source_id]}
    first = await send(client, "CLAIM_EXTRACTED", investigation_id, data, key="claim-1")
    again = await send(client, "CLAIM_EXTRACTED", investigation_id, data, key="claim-1")
    reordered = dict(reversed(list(data.items())))  # same request, other key order
    third = await send(client, "CLAIM_EXTRACTED", investigation_id, reordered, key="claim-1")
    assert first.status_code == again.status_code == third.status_code == 200
    assert first.json() == again.json() == third.json()
    assert len(stored(repo, investigation_id)["claims"]) == 1
    # Without the key, the same body is a new claim (so the replay above is what deduplicated).
    await send(client, "CLAIM_EXTRACTED", investigation_id, data, key="claim-2")
    assert len(stored(repo, investigation_id)["claims"]) == 2


async def test_replay_of_a_timeline_event_and_a_start(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = new_id()
    start = {"mode": "quick", "title": "t"}
    for _ in range(2):
        response = await send(client, "INVESTIGATION_STARTED", investigation_id, start, key="s")
        assert response.json() == {"success": True}
    event = {"event_date": "2024", "event_text": "x"}
    one = await send(client, "TIMELINE_EVENT", investigation_id, event, key="e")
    two = await send(client, "TIMELINE_EVENT", investigation_id, event, key="e")
    assert one.json() == two.json()
    assert [e["id"] for e in stored(repo, investigation_id)["timeline"]] == [one.json()["event_id"]]


async def test_replay_is_not_a_write(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    done = {"summary": "done"}
    await send(client, "INVESTIGATION_COMPLETE", investigation_id, done, key="finish")
    partial = {"summary": "done", "partial_reason": "a stage failed"}
    await send(client, "INVESTIGATION_PARTIAL", investigation_id, partial)
    replay = await send(client, "INVESTIGATION_COMPLETE", investigation_id, done, key="finish")
    assert replay.json() == {"success": True}
    assert repo.get_status(investigation_id) == "partial"  # the replay changed nothing


async def test_key_reused_with_another_body_is_409(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    data = {"claim_text": "First.", "source_ids": []}
    await send(client, "CLAIM_EXTRACTED", investigation_id, data, key="k")
    other = {"claim_text": "Second.", "source_ids": []}
    response = await send(client, "CLAIM_EXTRACTED", investigation_id, other, key="k")
    assert response.status_code == 409
    assert response.json() == {
        "success": False,
        "error": "Idempotency-Key reused with a different request",
    }
    other_type = await send(
        client,
        "TIMELINE_EVENT",
        investigation_id,
        {"event_date": "2024", "event_text": "x"},
        key="k",
    )
    elsewhere = await started(client)
    other_investigation = await send(client, "CLAIM_EXTRACTED", elsewhere, data, key="k")
    assert other_type.status_code == other_investigation.status_code == 409
    assert [c["claim_text"] for c in stored(repo, investigation_id)["claims"]] == ["First."]
    assert stored(repo, elsewhere)["claims"] == []


async def test_errors_are_not_stored_so_the_key_can_be_retried(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = new_id()
    response = await send(client, "SOURCE_FOUND", investigation_id, SOURCE, key="src")
    assert response.status_code == 404
    assert repo.get_idempotent("src") is None
    await send(client, "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"})
    retried = await send(client, "SOURCE_FOUND", investigation_id, SOURCE, key="src")
    assert retried.status_code == 200
    stored_reply = repo.get_idempotent("src")
    assert stored_reply is not None
    assert stored_reply[1:] == (200, retried.json())


async def test_idempotency_key_too_long_is_400(client: httpx.AsyncClient) -> None:
    investigation_id = new_id()
    message = failure(
        await send(
            client, "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"}, key="k" * 256
        ),
        400,
    )
    assert "Idempotency-Key" in message


async def test_racing_identical_requests_create_one_record(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vicaran_agent.server import callback_api

    investigation_id = await started(client)
    save_claims, claim_key = repo.save_claims, callback_api._claim_key
    requests: set[asyncio.Task[Any] | None] = set()
    all_in = threading.Event()

    async def counted_claim_key(*args: Any) -> Any:
        requests.add(asyncio.current_task())
        if len(requests) == 3:
            all_in.set()
        return await claim_key(*args)

    def held_save_claims(*args: Any, **kwargs: Any) -> dict[str, str]:
        # the first one writes only once the other two are in flight, asking for its key
        assert all_in.wait(30), "the other requests never came"
        return save_claims(*args, **kwargs)

    monkeypatch.setattr(callback_api, "_claim_key", counted_claim_key)
    monkeypatch.setattr(repo, "save_claims", held_save_claims)
    data = {"claim_text": "Raced.", "source_ids": []}
    responses = await asyncio.gather(
        *(send(client, "CLAIM_EXTRACTED", investigation_id, data, key="race") for _ in range(3))
    )
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert len({r.json()["claim_id"] for r in responses}) == 1
    assert len(stored(repo, investigation_id)["claims"]) == 1


async def test_a_claim_left_by_a_dead_process_is_taken_over_and_a_live_one_waited_for(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import timedelta

    from vicaran_agent.server import callback_api
    from vicaran_agent.server.callback_api import request_hash
    from vicaran_agent.storage.repository import IDEMPOTENCY_PENDING
    from vicaran_agent.storage.rows import IdempotencyRow
    from vicaran_agent.storage.tables import utcnow

    investigation_id = await started(client)
    data = {"claim_text": "Claimed before.", "source_ids": []}
    digest = request_hash("CLAIM_EXTRACTED", investigation_id, data)
    stale = callback_api.IDEMPOTENCY_STALE_SECONDS + 60
    for key, age in (("dead", stale), ("alive", 0)):
        repo.write(
            lambda session, key=key, age=age: session.add(
                IdempotencyRow(
                    key=key,
                    request_hash=digest,
                    status_code=IDEMPOTENCY_PENDING,
                    response={},
                    created_at=utcnow() - timedelta(seconds=age),
                )
            )
        )
    taken_over = await send(client, "CLAIM_EXTRACTED", investigation_id, data, key="dead")
    assert taken_over.status_code == 200
    assert repo.get_idempotent("dead") == (digest, 200, taken_over.json())
    monkeypatch.setattr(callback_api, "IDEMPOTENCY_WAIT_SECONDS", 0.2)
    busy = await send(client, "CLAIM_EXTRACTED", investigation_id, data, key="alive")
    assert busy.status_code == 503 and "still being processed" in busy.json()["error"]
    assert len(stored(repo, investigation_id)["claims"]) == 1


# --- 500 and logging ---------------------------------------------------------------------------


async def test_unexpected_error_is_500_without_details(
    client: httpx.AsyncClient,
    repo: Repository,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    investigation_id = await started(client)

    def broken(*_args: Any, **_kwargs: Any) -> dict[str, str]:
        raise RuntimeError("disk on fire at /secret/path")

    monkeypatch.setattr(repo, "save_sources", broken)
    with caplog.at_level(logging.ERROR):
        response = await send(client, "SOURCE_FOUND", investigation_id, SOURCE, key="boom")
    assert response.status_code == 500
    assert response.json() == {"success": False, "error": "internal error"}
    assert "fire" not in response.text and "Traceback" not in response.text
    assert any(r.exc_info and "disk on fire" in str(r.exc_info[1]) for r in caplog.records)
    assert repo.get_idempotent("boom") is None


async def test_debug_mode_logs_requests_but_never_the_secret(
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("DEBUG_MODE", "true")
    forget_settings()
    investigation_id = new_id()
    with caplog.at_level(logging.DEBUG, logger="vicaran_agent.server.callback_api"):
        await send(client, "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"})
        await send(client, "SOURCE_FOUND", investigation_id, SOURCE, secret="wrong-one")
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "INVESTIGATION_STARTED" in text and investigation_id in text
    assert '"success": true' in text and "401" in text
    assert SECRET not in text and "wrong-one" not in text


async def test_no_request_logging_without_debug_mode(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="vicaran_agent.server.callback_api"):
        await send(client, "INVESTIGATION_STARTED", new_id(), {"mode": "quick"})
    assert not [r for r in caplog.records if "INVESTIGATION_STARTED" in r.getMessage()]


# --- the whole contract, in order ----------------------------------------------------------------


async def test_full_investigation_through_the_api(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    claim_id = await add_claim(client, investigation_id, [source_id])
    checked = await send(
        client, "FACT_CHECKED", investigation_id, fact_check_data(claim_id, [source_id])
    )
    bias = {"overall_bias_score": 2, "coverage": {"neutral": 1}}
    await send(client, "BIAS_ANALYZED", investigation_id, bias)
    await send(
        client,
        "TIMELINE_EVENT",
        investigation_id,
        {"event_date": "2024-01-15", "event_text": "Signed", "source_id": source_id},
    )
    done = await send(client, "INVESTIGATION_COMPLETE", investigation_id, {"summary": "Done."})
    assert done.json() == {"success": True}
    record = stored(repo, investigation_id)
    assert record["status"] == "completed"
    assert record["claims"][0]["source_ids"] == [source_id]
    assert record["fact_checks"][0]["id"] == checked.json()["fact_check_id"]
    assert record["fact_checks"][0]["claim_id"] == claim_id
    assert record["timeline"][0]["source_ids"] == [source_id]
    assert record["overall_bias_score"] == 2


# --- the optional fields of the trust work ---------------------------------------------------

SHA = "a" * 64


async def test_provenance_fields_are_stored_and_returned(client, repo):
    investigation_id = await started(client)
    source_id = await add_source(
        client,
        investigation_id,
        display_url="https://www.example.com/news/story/",
        publisher="example.com",
        retrieved_at="2026-01-15T10:00:00+00:00",
        content_sha256=SHA,
        relevant=False,
        relevance_reason="About another town.",
    )
    response = await send(
        client,
        "CLAIM_EXTRACTED",
        investigation_id,
        {"claim_text": "Fares rose 40%.", "source_ids": [], "origin": "brief", "entities": ["X"]},
    )
    claim_id = response.json()["claim_id"]
    item = {
        "url": "https://www.Reuters.com/a/",
        "reliability": "high",
        "stance": "supports",
        "quote": "Fares rose 40% in March.",
        "query": "fares rose",
        "published_at": "2026-01-12",
        "published_at_source": "search",
        "content_sha256": SHA,
        "origin": "page",
        "independent": False,
    }
    data = {**fact_check_data(claim_id, [source_id]), "evidence": [item], "as_of": "2026-01-15"}
    response = await send(client, "FACT_CHECKED", investigation_id, data)
    assert response.status_code == 200, response.text
    quality = {"scores": {"structure": 80}, "overall": 80, "audited": 3, "rewrites": 1}
    use = {"input": 900, "output": 100, "cached": 0, "cost_usd": 0.001}
    tokens = {**use, "input": 1000, "per_stage": {"fact_checker": use}}
    response = await send(
        client,
        "INVESTIGATION_COMPLETE",
        investigation_id,
        {"summary": "# R", "quality": quality, "tokens": tokens},
    )
    assert response.status_code == 200, response.text

    saved = as_json(repo.get_investigation(investigation_id))
    (source,) = saved["sources"]
    assert source["display_url"] == "https://www.example.com/news/story/"
    assert (source["content_sha256"], source["relevant"]) == (SHA, False)
    assert source["relevance_reason"] == "About another town."
    (claim,) = saved["claims"]
    assert (claim["origin"], claim["entities"]) == ("brief", ["X"])
    (check,) = saved["fact_checks"]
    assert check["as_of"] == "2026-01-15"
    (evidence,) = check["evidence"]
    assert evidence["url"] == "https://reuters.com/a"  # the identity is normalized ...
    assert evidence["display_url"] == "https://www.Reuters.com/a/"  # ... the link is kept
    assert (evidence["quote"], evidence["query"], evidence["independent"]) == (
        "Fares rose 40% in March.",
        "fares rose",
        False,
    )
    assert (evidence["content_sha256"], evidence["origin"]) == (SHA, "page")
    assert (evidence["published_at"], evidence["published_at_source"]) == ("2026-01-12", "search")
    assert saved["quality"]["audited"] == 3 and saved["quality"]["rewrites"] == 1
    assert saved["tokens"]["input"] == 1000
    assert saved["tokens"]["per_stage"] == {"fact_checker": use}


async def test_malformed_provenance_fields_are_refused(client):
    investigation_id = await started(client)
    response = await send(
        client, "SOURCE_FOUND", investigation_id, {**SOURCE, "content_sha256": "not-a-hash"}
    )
    assert response.status_code == 400
    assert "data.content_sha256" in response.json()["error"]
    response = await send(
        client, "SOURCE_FOUND", investigation_id, {**SOURCE, "display_url": "javascript:alert(1)"}
    )
    assert response.status_code == 400
    assert "data.display_url" in response.json()["error"]
    # a date's source is one of the five that state dates; the day it was fetched is not one
    response = await send(
        client,
        "SOURCE_FOUND",
        investigation_id,
        {**SOURCE, "published_at": "2024-03-05", "published_at_source": "last_modified"},
    )
    assert response.status_code == 400
    assert "data.published_at_source" in response.json()["error"]


# --- the optional fields of the documents work -----------------------------------------------

DOCUMENT_SOURCE = {
    "url": "doc://0f3a9c2e",
    "title": "Contrato 002/2024",
    "domain": "contrato.pdf",
    "credibility_score": 4,
    "is_user_provided": True,
    "origin": "document",
    "document_id": "0f3a9c2e",
    "page": 1,
}
DOCUMENT_EVIDENCE = {
    "url": "doc://0f3a9c2e/p4/17",
    "title": "Contrato 002/2024",
    "publisher": "contrato.pdf",
    "reliability": "high",
    "stance": "refutes",
    "quote": "Valor total: R$ 4.200.000,00",
    "origin": "document",
    "document_id": "0f3a9c2e",
    "page": 4,
}


async def test_document_sources_evidence_and_the_reasoning_log_are_stored(client, repo):
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id, **DOCUMENT_SOURCE)
    claim_id = await add_claim(client, investigation_id, [source_id])
    reasoning = ["Followed 'Anexo II' in Contrato 002/2024, p. 9 → Anexo II"]
    data = {
        **fact_check_data(claim_id, [source_id]),
        "evidence": [DOCUMENT_EVIDENCE, fact_check_data(claim_id, [])["evidence"][0]],
        "reasoning_log": reasoning,
    }
    response = await send(client, "FACT_CHECKED", investigation_id, data)
    assert response.status_code == 200, response.text

    saved = stored(repo, investigation_id)
    (source,) = saved["sources"]
    assert source["url"] == "doc://0f3a9c2e"  # a document's identity is kept as sent
    assert (source["origin"], source["document_id"], source["page"]) == ("document", "0f3a9c2e", 1)
    (check,) = saved["fact_checks"]
    assert check["reasoning"] == reasoning
    document, web = check["evidence"]
    assert document["url"] == "doc://0f3a9c2e/p4/17"
    assert (document["origin"], document["document_id"], document["page"]) == (
        "document",
        "0f3a9c2e",
        4,
    )
    assert (web["origin"], web["document_id"], web["page"]) == ("web", None, None)


async def test_without_the_documents_fields_nothing_changes(client, repo):
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    claim_id = await add_claim(client, investigation_id, [source_id])
    data = fact_check_data(claim_id, [source_id])
    assert (await send(client, "FACT_CHECKED", investigation_id, data)).status_code == 200
    (check,) = stored(repo, investigation_id)["fact_checks"]
    assert check["reasoning"] == []
    assert (check["evidence"][0]["document_id"], check["evidence"][0]["page"]) == (None, None)


DOCUMENT_REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "page": 0}, "data.page"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "page": -3}, "data.page"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "page": "4"}, "data.page"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "page": 4.0}, "data.page"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "document_id": "d" * 65}, "data.document_id"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "origin": "web"}, "doc://"),  # a document is one
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "url": "doc://"}, "data.url"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "url": "doc://a b"}, "data.url"),
    ("SOURCE_FOUND", {**DOCUMENT_SOURCE, "origin": "documents"}, "data.origin"),
    ("FACT_CHECKED", {"evidence": [{**DOCUMENT_EVIDENCE, "page": 0}]}, "data.evidence.0.page"),
    ("FACT_CHECKED", {"evidence": [{**DOCUMENT_EVIDENCE, "page": "4"}]}, "data.evidence.0.page"),
    ("FACT_CHECKED", {"evidence": [{**DOCUMENT_EVIDENCE, "origin": "page"}]}, "doc://"),
    ("FACT_CHECKED", {"reasoning_log": "one line"}, "data.reasoning_log"),
    ("FACT_CHECKED", {"reasoning_log": [7]}, "data.reasoning_log.0"),
    ("FACT_CHECKED", {"reasoning_log": ["x" * 501]}, "data.reasoning_log.0"),
    ("FACT_CHECKED", {"reasoning_log": ["x"] * 101}, "data.reasoning_log"),
]


@pytest.mark.parametrize(("type_", "changes", "named"), DOCUMENT_REFUSALS)
async def test_malformed_documents_fields_are_refused(
    client: httpx.AsyncClient, repo: Repository, type_: str, changes: dict[str, Any], named: str
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    claim_id = await add_claim(client, investigation_id, [source_id])
    base = DOCUMENT_SOURCE if type_ == "SOURCE_FOUND" else fact_check_data(claim_id, [source_id])
    before = stored(repo, investigation_id)
    message = failure(await send(client, type_, investigation_id, {**base, **changes}), 400)
    assert message.startswith(f"invalid data for {type_}") and named in message
    assert stored(repo, investigation_id) == before


# --- the optional fields of the gazettes work ------------------------------------------------

GAZETTE_URL = "https://data.queridodiario.ok.org.br/4314902/2024-05-17/3a1f9c.pdf"
GAZETTE_SOURCE = {
    "url": GAZETTE_URL,
    "title": "Diário Oficial de Porto Alegre — 2024-05-17",
    "credibility_score": 5,
    "is_user_provided": False,
    "origin": "gazette",
    "territory_id": "4314902",
    "gazette_date": "2024-05-17",
    "txt_url": "https://data.queridodiario.ok.org.br/4314902/2024-05-17/3a1f9c.txt",
}
GAZETTE_EVIDENCE = {
    "url": GAZETTE_URL,
    "title": "Diário Oficial de Porto Alegre — 2024-05-17",
    "reliability": "high",
    "stance": "supports",
    "quote": "EXTRATO DO CONTRATO EMERGENCIAL 002/2024",
    "published_at": "2024-05-17",
    "origin": "gazette",
    "territory_id": "4314902",
}


async def test_gazette_sources_and_evidence_are_stored(client, repo):
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id, **GAZETTE_SOURCE)
    claim_id = await add_claim(client, investigation_id, [source_id])
    data = {
        **fact_check_data(claim_id, [source_id]),
        "evidence": [GAZETTE_EVIDENCE, fact_check_data(claim_id, [])["evidence"][0]],
    }
    response = await send(client, "FACT_CHECKED", investigation_id, data)
    assert response.status_code == 200, response.text

    saved = stored(repo, investigation_id)
    (source,) = saved["sources"]
    assert (source["origin"], source["territory_id"], source["gazette_date"]) == (
        "gazette",
        "4314902",
        "2024-05-17",
    )
    assert source["txt_url"] == GAZETTE_SOURCE["txt_url"]
    (check,) = saved["fact_checks"]
    gazette, web = check["evidence"]
    assert (gazette["origin"], gazette["territory_id"]) == ("gazette", "4314902")
    assert (web["origin"], web["territory_id"]) == ("web", None)


async def test_without_the_gazette_fields_nothing_changes(client, repo):
    investigation_id = await started(client)
    await add_source(client, investigation_id)
    (source,) = stored(repo, investigation_id)["sources"]
    assert (source["territory_id"], source["gazette_date"], source["txt_url"]) == (None,) * 3


GAZETTE_REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "territory_id": "12345"}, "data.territory_id"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "territory_id": "43149020"}, "data.territory_id"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "territory_id": "431490a"}, "data.territory_id"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "territory_id": "4314902 "}, "data.territory_id"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "territory_id": 4314902}, "data.territory_id"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "gazette_date": "10/05/2024"}, "data.gazette_date"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "gazette_date": "2024-02-30"}, "data.gazette_date"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "gazette_date": "2024-5-17"}, "data.gazette_date"),
    (
        "SOURCE_FOUND",
        {**GAZETTE_SOURCE, "gazette_date": "2024-05-17T00:00:00"},
        "data.gazette_date",
    ),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "txt_url": "ftp://example.org/a.txt"}, "data.txt_url"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "txt_url": "javascript:alert(1)"}, "data.txt_url"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "txt_url": "doc://0f3a9c2e"}, "data.txt_url"),
    ("SOURCE_FOUND", {**GAZETTE_SOURCE, "origin": "gazettes"}, "data.origin"),
    (
        "FACT_CHECKED",
        {"evidence": [{**GAZETTE_EVIDENCE, "territory_id": "12345"}]},
        "data.evidence.0.territory_id",
    ),
    (
        "FACT_CHECKED",
        {"evidence": [{**GAZETTE_EVIDENCE, "territory_id": 4314902}]},
        "data.evidence.0.territory_id",
    ),
]


@pytest.mark.parametrize(("type_", "changes", "named"), GAZETTE_REFUSALS)
async def test_malformed_gazette_fields_are_refused(
    client: httpx.AsyncClient, repo: Repository, type_: str, changes: dict[str, Any], named: str
) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id)
    claim_id = await add_claim(client, investigation_id, [source_id])
    base = GAZETTE_SOURCE if type_ == "SOURCE_FOUND" else fact_check_data(claim_id, [source_id])
    before = stored(repo, investigation_id)
    message = failure(await send(client, type_, investigation_id, {**base, **changes}), 400)
    assert message.startswith(f"invalid data for {type_}") and named in message
    assert stored(repo, investigation_id) == before


# --- strict validation: types, nesting, sizes --------------------------------------------------

WRONG_TYPES: list[tuple[str, dict[str, Any], str]] = [
    ("SOURCE_FOUND", {**SOURCE, "credibility_score": "5"}, "data.credibility_score"),
    ("SOURCE_FOUND", {**SOURCE, "credibility_score": 4.0}, "data.credibility_score"),
    ("SOURCE_FOUND", {**SOURCE, "is_user_provided": "yes"}, "data.is_user_provided"),
    ("SOURCE_FOUND", {**SOURCE, "is_user_provided": 1}, "data.is_user_provided"),
    ("SOURCE_FOUND", {**SOURCE, "relevant": "false"}, "data.relevant"),
    ("SOURCE_FOUND", {**SOURCE, "title": 7}, "data.title"),
    ("CLAIM_EXTRACTED", {"claim_text": "x", "importance": "0.5", "source_ids": []}, "importance"),
    ("CLAIM_EXTRACTED", {"claim_text": "x", "source_ids": [7]}, "data.source_ids.0"),
    ("FACT_CHECKED", {**fact_check_data("c", []), "confidence": "0.7"}, "data.confidence"),
    ("BIAS_ANALYZED", {"overall_bias_score": "5", "coverage": {}}, "data.overall_bias_score"),
    ("BIAS_ANALYZED", {"overall_bias_score": 5, "coverage": {"neutral": "2"}}, "data.coverage"),
    (
        "INVESTIGATION_COMPLETE",
        {"summary": "s", "quality": {"scores": {"structure": "80"}}},
        "data.quality.scores.structure",
    ),
    ("INVESTIGATION_COMPLETE", {"summary": 5}, "data.summary"),
    ("INVESTIGATION_COMPLETE", {"summary": "s", "tokens": {"input": -1}}, "data.tokens.input"),
    (
        "INVESTIGATION_COMPLETE",
        {"summary": "s", "tokens": {"per_stage": {"x": {"output": "9"}}}},
        "data.tokens.per_stage.x.output",
    ),
]


@pytest.mark.parametrize(("type_", "data", "named"), WRONG_TYPES)
async def test_wrong_json_types_are_400_not_coerced(
    client: httpx.AsyncClient, repo: Repository, type_: str, data: dict[str, Any], named: str
) -> None:
    investigation_id = await started(client)
    before = stored(repo, investigation_id)
    message = failure(await send(client, type_, investigation_id, data), 400)
    assert message.startswith(f"invalid data for {type_}") and named in message
    assert stored(repo, investigation_id) == before


async def test_the_right_json_types_still_pass(client: httpx.AsyncClient, repo: Repository) -> None:
    investigation_id = await started(client)
    source_id = await add_source(client, investigation_id, relevant=True)
    data = {"claim_text": "x", "importance": 1, "source_ids": [source_id]}  # 1 is a number
    assert (await send(client, "CLAIM_EXTRACTED", investigation_id, data)).status_code == 200
    bias = {"overall_bias_score": 5, "coverage": {"neutral": 2}}
    assert (await send(client, "BIAS_ANALYZED", investigation_id, bias)).status_code == 200


def nested(depth: int) -> str:
    """A callback body whose `data.x` holds arrays `depth` deep (JSON depth: depth + 2)."""
    arrays = "[" * depth + "]" * depth
    return (
        f'{{"type": "SOURCE_FOUND", "investigation_id": "{new_id()}", "data": {{"x": {arrays}}}}}'
    )


@pytest.mark.parametrize("depth", [31, 100, 100_000])
async def test_deeply_nested_json_is_400(
    client: httpx.AsyncClient, repo: Repository, depth: int
) -> None:
    message = failure(await post_raw(client, nested(depth).encode()), 400)
    assert "nested deeper than 32" in message
    assert as_json(repo.list_investigations()) == []


async def test_nesting_inside_strings_does_not_count(client: httpx.AsyncClient) -> None:
    investigation_id = await started(client)
    title = '[{\\"' * 50  # brackets, braces, quotes and backslashes inside a string
    body = {"type": "SOURCE_FOUND", "investigation_id": investigation_id}
    body["data"] = {**SOURCE, "title": title}
    response = await post_raw(client, json.dumps(body).encode())
    assert response.status_code == 200, response.text
    # 32 levels deep is parsed (and then refused as a source without a url).
    message = failure(await post_raw(client, nested(30).encode()), 400)
    assert message.startswith("invalid data for SOURCE_FOUND") and "data.url" in message


def test_json_depth_check() -> None:
    from vicaran_agent.server.callback_api import json_too_deep

    assert not json_too_deep("[" * 32 + "]" * 32)
    assert json_too_deep("[" * 33 + "]" * 33)
    assert json_too_deep('{"a": ' * 33 + "1" + "}" * 33)
    assert not json_too_deep('"' + "[" * 100 + '"')
    assert not json_too_deep('"\\"' + '"\\"' + "[" * 32)  # an escaped quote stays inside
    assert json_too_deep('"\\\\"' + "[" * 33)  # an escaped backslash ends nothing


async def test_body_over_the_limit_is_413_and_nothing_is_stored(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = new_id()
    start = {"mode": "quick", "title": "T" * 10_000_000}
    response = await send(client, "INVESTIGATION_STARTED", investigation_id, start)
    message = failure(response, 413)
    assert "at most 1000000 bytes" in message and "VICARAN_CALLBACK_MAX_BODY_BYTES" in message
    assert as_json(repo.list_investigations()) == []


async def test_body_limit_holds_without_content_length(
    client: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VICARAN_CALLBACK_MAX_BODY_BYTES", "2000")
    forget_settings()
    sent: list[int] = []
    investigation_id = new_id()
    body = json.dumps(
        {
            "type": "INVESTIGATION_STARTED",
            "investigation_id": investigation_id,
            "data": {"mode": "quick", "title": "T" * 900},
        }
    ).encode()

    async def chunks(repeat: int) -> AsyncIterator[bytes]:
        for _ in range(repeat):
            sent.append(1)
            yield body[: len(body) // 2]
            yield body[len(body) // 2 :]

    headers = {"X-Agent-Secret": SECRET, "Content-Type": "application/json"}
    response = await client.post(CALLBACK_PATH, content=chunks(1000), headers=headers)
    assert "content-length" not in response.request.headers
    assert "at most 2000 bytes" in failure(response, 413)
    assert len(sent) < 1000  # the rest was never read
    assert as_json(repo.list_investigations()) == []
    ok = await client.post(CALLBACK_PATH, content=chunks(1), headers=headers)
    assert ok.status_code == 200, ok.text
    assert stored(repo, investigation_id)["title"] == "T" * 900


async def test_declared_length_over_the_limit_is_refused_unread(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VICARAN_CALLBACK_MAX_BODY_BYTES", "100")
    forget_settings()
    headers = {"X-Agent-Secret": SECRET, "Content-Length": "101"}
    response = await client.post(CALLBACK_PATH, content=b"x" * 101, headers=headers)
    assert "at most 100 bytes" in failure(response, 413)
    # The secret is still checked first.
    assert failure(await post_raw(client, b"x" * 101, secret="wrong"), 401) == "Unauthorized"


TOO_LONG: list[tuple[str, dict[str, Any], str]] = [
    ("INVESTIGATION_STARTED", {"mode": "quick", "title": "t" * 1_001}, "data.title"),
    ("INVESTIGATION_STARTED", {"mode": "quick", "brief": "b" * 20_001}, "data.brief"),
    ("SOURCE_FOUND", {**SOURCE, "title": "t" * 1_001}, "data.title"),
    ("SOURCE_FOUND", {**SOURCE, "content_snippet": "s" * 5_001}, "data.content_snippet"),
    ("SOURCE_FOUND", {**SOURCE, "relevance_reason": "r" * 2_001}, "data.relevance_reason"),
    ("CLAIM_EXTRACTED", {"claim_text": "c" * 2_001, "source_ids": []}, "data.claim_text"),
    (
        "CLAIM_EXTRACTED",
        {"claim_text": "c", "source_ids": [], "entities": ["e" * 201]},
        "data.entities.0",
    ),
    (
        "CLAIM_EXTRACTED",
        {"claim_text": "c", "source_ids": [], "entities": ["e"] * 101},
        "data.entities",
    ),
    ("CLAIM_EXTRACTED", {"claim_text": "c", "source_ids": ["s"] * 501}, "data.source_ids"),
    (
        "FACT_CHECKED",
        {**fact_check_data("c", []), "explanation": "e" * 10_001},
        "data.explanation",
    ),
    (
        "FACT_CHECKED",
        {
            **fact_check_data("c", []),
            "evidence": [{"url": "https://a.com", "reliability": "high", "stance": "context"}]
            * 101,
        },
        "data.evidence",
    ),
    (
        "BIAS_ANALYZED",
        {"overall_bias_score": 5, "coverage": {}, "recommendation": "r" * 10_001},
        "data.recommendation",
    ),
    ("TIMELINE_EVENT", {"event_date": "2024", "event_text": "e" * 2_001}, "data.event_text"),
    ("INVESTIGATION_COMPLETE", {"summary": "s" * 200_001}, "data.summary"),
    ("INVESTIGATION_PARTIAL", {"summary": "s", "partial_reason": "r" * 2_001}, "partial_reason"),
    ("INVESTIGATION_FAILED", {"error": "e" * 2_001}, "data.error"),
]


@pytest.mark.parametrize(("type_", "data", "named"), TOO_LONG)
async def test_texts_over_their_limit_are_400(
    client: httpx.AsyncClient, repo: Repository, type_: str, data: dict[str, Any], named: str
) -> None:
    investigation_id = await started(client)
    before = stored(repo, investigation_id)
    message = failure(await send(client, type_, investigation_id, data), 400)
    assert message.startswith(f"invalid data for {type_}") and named in message
    assert stored(repo, investigation_id) == before


async def test_texts_at_their_limit_are_accepted(
    client: httpx.AsyncClient, repo: Repository
) -> None:
    investigation_id = new_id()
    start = {"mode": "quick", "title": "t" * 1_000, "brief": "b" * 20_000}
    assert (await send(client, "INVESTIGATION_STARTED", investigation_id, start)).status_code == 200
    await add_source(client, investigation_id, title="t" * 1_000, content_snippet="s" * 5_000)
    done = {"summary": "s" * 200_000}
    assert (await send(client, "INVESTIGATION_COMPLETE", investigation_id, done)).status_code == 200
    record = stored(repo, investigation_id)
    assert len(record["title"]) == 1_000 and len(record["summary"]) == 200_000


# --- snapshots belong to what saved them (issue 20, point 7) ---------------------------------


async def test_a_callback_cannot_open_another_investigations_snapshot(client, repo):
    """B's records naming the SHA-256 of A's private passage do not make it B's to read."""
    import hashlib

    from vicaran_agent.schemas import InvestigationConfig
    from vicaran_agent.schemas import Source as SourceRecord
    from vicaran_agent.server.dashboard import dashboard_router

    private = "Memo, p. 3: the mayor's brother owns the contractor (do not publish)."
    sha = hashlib.sha256(private.encode()).hexdigest()
    victim = new_id()
    repo.start_investigation(
        InvestigationConfig.for_mode(
            "quick", investigation_id=victim, title="Memo", brief="Memo", language="en"
        )
    )
    passage = SourceRecord(
        url="doc://d1/p3/7",
        title="Memo",
        domain="documents",
        credibility_score=3,
        origin="document",
        content_sha256=sha,
    )
    repo.save_sources(victim, [passage], texts={sha: private})
    attacker = await started(client)
    source_id = await add_source(client, attacker, content_sha256=sha)
    claim_id = await add_claim(client, attacker, [source_id])
    data = fact_check_data(claim_id, [source_id])
    data["evidence"][0]["content_sha256"] = sha
    response = await send(client, "FACT_CHECKED", attacker, data)
    assert response.status_code == 200, response.text

    reader = FastAPI()
    reader.include_router(dashboard_router())
    transport = httpx.ASGITransport(app=reader)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        stolen = await http.get(f"/api/investigations/{attacker}/snapshots/{sha}")
        own = await http.get(f"/api/investigations/{victim}/snapshots/{sha}")
    assert stolen.status_code == 404
    assert repo.get_snapshots(attacker) == {} and repo.get_snapshot(attacker, sha) is None
    assert own.status_code == 200 and own.text == private  # A still reads its own
    # the records themselves are kept as sent: only the link to the text is refused
    (source,) = stored(repo, attacker)["sources"]
    assert source["content_sha256"] == sha


# --- the newsroom fake answers as this API does ----------------------------------------------


async def test_the_newsroom_fake_refuses_what_the_callback_api_refuses(
    client: httpx.AsyncClient,
) -> None:
    """The delivery tests post to FakeNewsroom: it checks the secret first and the record
    after, with the bodies of the API it stands for (Vicaran's own, docs/callback-api.md)."""
    from tests.fakes.newsroom import FakeNewsroom

    investigation_id = await started(client)
    record = {"type": "SOURCE_FOUND", "investigation_id": investigation_id, "data": SOURCE}
    cases = {
        "no secret": ({}, record),
        "a wrong secret": ({"X-Agent-Secret": "other"}, {}),
        "no type": ({"X-Agent-Secret": SECRET}, {"investigation_id": investigation_id}),
        "an unknown type": ({"X-Agent-Secret": SECRET}, {**record, "type": "GOSSIP"}),
        "a record": ({"X-Agent-Secret": SECRET}, record),
    }
    with FakeNewsroom(secret=SECRET) as fake:
        async with httpx.AsyncClient() as http:
            for case, (headers, body) in cases.items():
                real = await client.post(CALLBACK_PATH, json=body, headers=headers)
                faked = await http.post(fake.url + CALLBACK_PATH, json=body, headers=headers)
                assert faked.status_code == real.status_code, case
                assert faked.json()["success"] == real.json()["success"], case
                if real.status_code == 401:
                    assert faked.json() == real.json(), case
                if real.status_code == 200:
                    assert set(faked.json()) == set(real.json()), case
