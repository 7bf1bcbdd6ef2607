"""The editors' desk: each verdict approved or changed (with a reason) by a named editor, every
decision an entry of an append-only audit log, the evidence never touched (issue 24, part 1)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.store import fresh_repository
from tests.test_dashboard import VERDICTS, set_token, trust_investigation
from vicaran_agent import cli
from vicaran_agent.server.access import cookie_value
from vicaran_agent.server.app import build_server
from vicaran_agent.server.dashboard import COOKIE_NAME
from vicaran_agent.storage import Repository

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


@pytest.fixture
async def http(repo: Repository) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=build_server(with_adk=False))
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        yield client


def review_path(iid: str, number: int) -> str:
    return f"/api/investigations/{iid}/claims/{number}/review"


async def test_decisions_stand_beside_the_machine_verdicts_and_the_log_keeps_them_all(
    http: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    evidence_before = [c.evidence for c in repo.get_investigation(iid).fact_checks]
    approve = await http.post(review_path(iid, 1), json={"action": "approve", "reviewer": "Ana"})
    assert approve.status_code == 201 and approve.json()["entry"]["verdict_after"] == VERDICTS[0]
    change = {
        "action": "change",
        "verdict": "misleading",
        "note": "The signature is from 2023.",
        "reviewer": "Ana",
    }
    assert (await http.post(review_path(iid[:8], 2), json=change)).status_code == 201
    note = {"action": "note", "note": "Call the city clerk.", "reviewer": "Bruno"}
    assert (await http.post(review_path(iid, 2), json=note)).status_code == 201

    audit = (await http.get(f"/api/investigations/{iid}/audit")).json()
    assert [(e["claim"], e["action"], e["reviewer"]) for e in audit] == [
        (1, "approve", "Ana"),
        (2, "change", "Ana"),
        (2, "note", "Bruno"),
    ]
    assert (audit[1]["verdict_before"], audit[1]["verdict_after"]) == (VERDICTS[1], "misleading")
    assert (audit[2]["verdict_before"], audit[2]["verdict_after"]) == ("misleading", "misleading")

    checks = (await http.get(f"/api/investigations/{iid}")).json()["fact_checks"]
    assert checks[0]["review"]["status"] == "approved" and checks[0]["review"]["reviewer"] == "Ana"
    assert checks[1]["verdict"] == VERDICTS[1]  # the machine's verdict stays as checked
    assert checks[1]["review"] == {
        "status": "changed",
        "reviewer": "Ana",
        "at": audit[1]["at"],
        "verdict_before": VERDICTS[1],
        "verdict_after": "misleading",
        "note": "The signature is from 2023.",
    }
    assert [c["review"]["status"] for c in checks[2:]] == ["unreviewed"] * (len(checks) - 2)
    assert [c.evidence for c in repo.get_investigation(iid).fact_checks] == evidence_before


@pytest.mark.parametrize(
    ("body", "status", "said"),
    [
        ({"action": "change", "verdict": "false", "reviewer": "Ana"}, 400, "needs a note"),
        ({"action": "change", "verdict": "fake", "note": "x", "reviewer": "Ana"}, 400, "verdict"),
        ({"action": "approve", "verdict": "false", "reviewer": "Ana"}, 400, "only a change"),
        ({"action": "delete", "reviewer": "Ana"}, 400, "action must be one of"),
        ({"action": "approve", "reviewer": "  "}, 400, "reviewer"),
        ({"action": "approve", "reviewer": ["Ana"]}, 400, "strings"),
    ],
)
async def test_a_review_that_cannot_be_taken_says_why(
    http: httpx.AsyncClient, repo: Repository, body: dict, status: int, said: str
) -> None:
    iid, _ = trust_investigation(repo)
    answer = await http.post(review_path(iid, 1), json=body)
    assert answer.status_code == status and said in answer.json()["error"]
    assert (await http.get(f"/api/investigations/{iid}/audit")).json() == []


async def test_unknown_claims_and_investigations_are_404_and_nothing_edits_the_log(
    http: httpx.AsyncClient, repo: Repository
) -> None:
    iid, _ = trust_investigation(repo)
    body = {"action": "approve", "reviewer": "Ana"}
    assert (await http.post(review_path(iid, 99), json=body)).status_code == 404
    assert (await http.post(review_path(iid, 0), json=body)).status_code == 404
    assert (await http.post(review_path("no-such-id", 1), json=body)).status_code == 404
    assert (await http.get("/api/investigations/no-such-id/audit")).status_code == 404
    plain = await http.post(review_path(iid, 1), content=b"action=approve")
    assert plain.status_code == 415
    assert (await http.post(review_path(iid, 1), json=body)).status_code == 201
    for method in ("PUT", "PATCH", "DELETE"):
        for path in (review_path(iid, 1), f"/api/investigations/{iid}/audit"):
            assert (await http.request(method, path)).status_code == 405, (method, path)
    assert len((await http.get(f"/api/investigations/{iid}/audit")).json()) == 1


async def test_the_token_rule_holds_and_a_cookie_post_from_another_site_is_refused(
    http: httpx.AsyncClient, repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    iid, _ = trust_investigation(repo)
    set_token(monkeypatch, "s3cret")
    body = {"action": "approve", "reviewer": "Ana"}
    assert (await http.post(review_path(iid, 1), json=body)).status_code == 401
    cookie = {"cookie": f"{COOKIE_NAME}={cookie_value('s3cret')}"}
    elsewhere = {**cookie, "origin": "https://evil.example"}
    refused = await http.post(review_path(iid, 1), json=body, headers=elsewhere)
    assert refused.status_code == 403 and "another site" in refused.json()["error"]
    same = {**cookie, "origin": BASE}
    assert (await http.post(review_path(iid, 1), json=body, headers=same)).status_code == 201
    bearer = {"authorization": "Bearer s3cret", "origin": "https://tool.example"}
    assert (await http.post(review_path(iid, 2), json=body, headers=bearer)).status_code == 201
    assert (await http.get(f"/api/investigations/{iid}/audit")).status_code == 401


async def test_vicaran_review_lists_each_claim_and_its_review(
    http: httpx.AsyncClient, repo: Repository, capsys: pytest.CaptureFixture[str]
) -> None:
    iid, _ = trust_investigation(repo)
    change = {"action": "change", "verdict": "false", "note": "Forged.", "reviewer": "Ana"}
    assert (await http.post(review_path(iid, 3), json=change)).status_code == 201
    assert cli.main(["review", iid[:8]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Dam contract (") and lines[0].endswith(": 5 claims")
    assert lines[1].startswith(f"1. {VERDICTS[0].upper()} - Claim 1 about the dam contract.")
    assert lines[2] == "   unreviewed"
    assert lines[6].startswith("   changed by Ana on ") and lines[6].endswith(
        f"from {VERDICTS[2].upper()} to FALSE: Forged."
    )
    assert cli.main(["review", "no-such-id"]) == 1


async def test_every_export_and_page_shows_the_editors_decision_beside_the_verdict(
    http: httpx.AsyncClient, repo: Repository, capsys: pytest.CaptureFixture[str]
) -> None:
    iid, _ = trust_investigation(repo)
    change = {"action": "change", "verdict": "false", "note": "Forged.", "reviewer": "Ana"}
    assert (await http.post(review_path(iid, 1), json=change)).status_code == 201
    approve = {"action": "approve", "reviewer": "Bruno"}
    assert (await http.post(review_path(iid, 2), json=approve)).status_code == 201
    day = (await http.get(f"/api/investigations/{iid}/audit")).json()[0]["at"][:10]
    changed = f"Changed by Ana on {day} from ✅ VERIFIED to ❌ FALSE: Forged."
    markdown = (await http.get(f"/api/investigations/{iid}/export", params={"format": "md"})).text
    assert f"**Editor:** {changed}" in markdown
    assert f"**Editor:** Approved by Bruno on {day}" in markdown
    html = (await http.get(f"/api/investigations/{iid}/export", params={"format": "html"})).text
    assert f"<strong>Editor:</strong> {changed}" in html
    page = (await http.get(f"/investigations/{iid}")).text
    assert f"<strong>Editor:</strong> {changed}" in page
    claim_page = (await http.get(f"/investigations/{iid}/claims/1")).text
    assert f"<strong>Editor:</strong> {changed}" in claim_page
    # ClaimReview: rated as the editor said; --reviewed-only leaves out the unreviewed
    assert cli.main(["export", iid, "--format", "claimreview", "--reviewed-only"]) == 0
    reviews = json.loads(capsys.readouterr().out)
    assert [r["url"].rsplit("/", 1)[1] for r in reviews] == ["1", "2"]
    assert reviews[0]["reviewRating"]["alternateName"] == "False"
    assert reviews[0]["reviewRating"]["ratingValue"] == 1
    assert cli.main(["export", iid, "--format", "claimreview"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(VERDICTS)
    assert cli.main(["export", iid, "--format", "md", "--reviewed-only"]) == 2
