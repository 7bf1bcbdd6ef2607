"""Claim memory: a claim this store checked before is recalled beside the new check, rated by
the verdict that stands (an editor's change first), within VICARAN_MEMORY_MAX_AGE_DAYS."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.conversation import Conversation
from tests.support.records import as_json
from tests.support.store import fresh_repository
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.memory import is_same_claim
from vicaran_agent.schemas import Claim, InvestigationConfig, Verdict
from vicaran_agent.storage import Repository, get_repository

CLAIM = (
    "Acme Chemicals exceeded federal lead discharge limits by 312% at its Riverton plant in 2024."
)
SAME = "In 2024 Acme Chemicals exceeded the federal lead discharge limits by 312% at the Riverton plant."


def test_the_same_claim_states_the_same_numbers_and_parties_in_mostly_the_same_words():
    parties = ["Acme Chemicals"]
    assert is_same_claim(CLAIM, parties, SAME)
    assert not is_same_claim(CLAIM, parties, SAME.replace("312%", "213%"))  # another figure
    assert not is_same_claim(CLAIM, parties, SAME.replace("2024", "2023"))  # another year
    assert not is_same_claim(CLAIM, ["Acme Chemicals", "Beta Corp"], SAME)  # a party missing
    assert not is_same_claim(CLAIM, parties, "Acme Chemicals paid 312% more for 2024 ads.")
    pt = "A Prefeitura de São Paulo gastou R$ 4,2 milhões com merenda em 2024."
    assert is_same_claim(pt, ["Prefeitura de Sao Paulo"], pt.replace("gastou", "pagou"))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


def checked(repo: Repository, text: str, verdict: str, as_of: str) -> str:
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=str(uuid.uuid4()), title="Acme lead", brief=text, language="en"
    )
    repo.start_investigation(config)
    iid = config.investigation_id
    ids = repo.save_claims(
        iid, [Claim(key="C1", claim_text=text, importance=0.9, entities=["Acme Chemicals"])]
    )
    repo.save_verdicts(
        iid,
        [
            Verdict(
                claim_key="C1",
                claim_text=text,
                claim_id=ids["C1"],
                verdict=verdict,
                confidence=0.8,
                explanation="x",
                as_of=as_of,
            )
        ],
    )
    return iid


def test_the_store_recalls_the_same_claim_with_the_verdict_that_stands(repo: Repository):
    first = checked(repo, CLAIM, "verified", "2026-10-02")
    repo.add_review(
        first, 1, action="change", reviewer="Ana", verdict="misleading", note="Q3, not Q4."
    )
    checked(repo, CLAIM.replace("312%", "99%"), "false", "2026-10-03")  # another claim
    old = checked(repo, CLAIM, "false", "2025-01-01")  # the same, but too old
    new = checked(repo, SAME, "unverified", "2026-11-27")
    found = repo.earlier_checks(new, [("C1", SAME, ["Acme Chemicals"])], "2026-06-01")
    (earlier,) = found["C1"]
    assert (earlier.investigation_id, earlier.verdict, earlier.review_status) == (
        first,
        "misleading",
        "changed",
    )
    assert (earlier.reviewer, earlier.checked_at) == ("Ana", "2026-10-02")
    assert old not in {c.investigation_id for c in found["C1"]}
    repo.remember(new, found)
    (claim,) = as_json(repo.get_investigation(new))["claims"]
    assert claim["earlier_checks"][0]["investigation_id"] == first


async def test_a_second_investigation_of_the_same_story_says_what_was_checked_before(env):
    brief = "Quick Search. Did Acme Chemicals pollute Riverton's water in 2024?"
    first = Conversation()
    await first.send(brief)
    await first.send("APPROVED")
    second = Conversation()
    await second.send(brief)
    run = await second.send("APPROVED")
    texts = second.texts(run)
    recalled = [t for t in texts if t.startswith("🧠 Claim ")]
    assert recalled and "was checked before: on " in recalled[0]
    state = await second.state()
    report = state[keys.INVESTIGATION_SUMMARY]
    assert "was checked before: on" in report.split("## Notes")[1]
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    first_id = (await first.state())[keys.INVESTIGATION_ID]
    assert any(
        c["earlier_checks"] and c["earlier_checks"][0]["investigation_id"] == first_id
        for c in record["claims"]
    )
    offered = [
        v
        for v in state[keys.VERDICT_RECORDS]
        if any("offered again" in line for line in v.get("reasoning") or [])
    ]
    assert offered  # the earlier check's evidence went to the judge again
    from vicaran_agent.server import views

    page = views.detail_body(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert "Checked before:" in page and f'href="/investigations/{first_id}"' in page
    env.set(VICARAN_MEMORY_MAX_AGE_DAYS="0")  # memory off: a third run recalls nothing
    third = Conversation()
    await third.send(brief)
    assert not [t for t in third.texts(await third.send("APPROVED")) if t.startswith("🧠 ")]


def test_a_journalists_document_is_never_offered_to_anothers_check(repo: Repository):
    from vicaran_agent.schemas import Evidence

    first = checked(repo, CLAIM, "verified", "2026-10-02")
    claim_id = repo.get_investigation(first).claims[0].id
    web = Evidence(
        url="https://epa.example/acme", title="EPA notice", reliability="high",
        stance="supports", snippet="Acme exceeded the limit by 312%.", quote="by 312%",
    )  # fmt: skip
    private = Evidence(
        url="doc://d1/p1/1", title="Memo", reliability="high", stance="supports",
        snippet="Acme exceeded.", origin="document", document_id="d1", page=1,
    )  # fmt: skip
    dependent = web.model_copy(update={"url": "https://copy.example/a", "independent": False})
    verdict = Verdict(
        claim_key="C1", claim_text=CLAIM, claim_id=claim_id, verdict="verified",
        confidence=0.9, explanation="x", as_of="2026-10-02", evidence=[web, private, dependent],
    )  # fmt: skip
    repo.save_verdicts(first, [verdict])
    new = checked(repo, SAME, "unverified", "2026-11-27")
    (earlier,) = repo.earlier_checks(new, [("C1", SAME, ["Acme Chemicals"])], "2026-06-01")["C1"]
    offered = repo.prior_evidence(earlier)
    assert [view.url for view, _ in offered] == ["https://epa.example/acme"]
    from vicaran_agent.factcheck.pool import Candidate

    view, _ = offered[0]
    again = Candidate.from_earlier(
        view, "Acme exceeded the limit by 312%.", "f" * 64, "the earlier check of 2026-10-02"
    )
    # rated as any item is today (the outlet table), found by the earlier check, its text kept
    assert (again.query, again.reliability, again.sha) == (
        "the earlier check of 2026-10-02",
        "neutral",
        "f" * 64,
    )
    assert again.text == "Acme exceeded the limit by 312%."  # its quote is checked against it


async def test_earlier_checks_are_recorded_on_claims_whose_save_is_still_under_way(env):
    """The claims are saved while they are checked; the earlier checks the fact checker finds
    are recorded on them once they are saved (held here until the lookup has answered)."""
    import threading

    from tests.support import wait
    from vicaran_agent.storage.memory import Memory
    from vicaran_agent.storage.records import Records

    brief = "Quick Search. Did Acme Chemicals pollute Riverton's water in 2024?"
    first = Conversation()
    await first.send(brief)
    await first.send("APPROVED")
    recalled = threading.Event()
    lookup, save = Memory.earlier_checks, Records.save_claims

    def earlier_checks(self, *args, **kwargs):
        found = lookup(self, *args, **kwargs)
        if found:
            recalled.set()
        return found

    def save_claims(self, *args, **kwargs):
        with contextlib.suppress(wait.NotInTime):
            wait.until_sync(recalled.is_set, "the earlier checks looked up", 5.0)
        return save(self, *args, **kwargs)

    env.monkeypatch.setattr(Memory, "earlier_checks", earlier_checks)
    env.monkeypatch.setattr(Records, "save_claims", save_claims)
    second = Conversation()
    await second.send(brief)
    await second.send("APPROVED")
    assert recalled.is_set()
    state = await second.state()
    record = get_repository(get_settings().database_url).get_investigation(
        state[keys.INVESTIGATION_ID]
    )
    assert record is not None and any(c.earlier_checks for c in record.claims)
