"""The fact_checker stage inside whole investigations: concurrency, records, report agreement."""

from __future__ import annotations

import re

import pytest

from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.corpus import RIVERTON
from tests.support.records import as_json
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.i18n import verdict_label
from vicaran_agent.storage import get_repository
from vicaran_agent.terminal import is_verdict_line

BRIEF = (
    "Investigate whether Acme Chemicals polluted Riverton's drinking water. "
    "https://rivertondaily.com/news/acme-health-complaints"
)


async def investigate(brief: str = BRIEF) -> tuple[list[str], dict, dict]:
    conversation = Conversation()
    await conversation.send(brief)
    events = await conversation.send("APPROVED")
    state = await conversation.state()
    saved = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    return conversation.texts(events), state, saved


async def test_claims_are_checked_concurrently_within_the_bound(env):
    env.services.tavily.latency = 0.05
    env.set(VICARAN_PRO_MODEL="scripted/latency-150", VICARAN_CLAIM_CONCURRENCY="2")
    _, state, _ = await investigate()
    assert len(state[keys.CLAIM_RECORDS]) >= 3
    assert scripted_model.peak_concurrency("ClaimAssessment") == 2

    scripted_model.reset_calls()
    env.set(VICARAN_CLAIM_CONCURRENCY="8", VICARAN_CONCURRENCY="4")
    env.services.tavily.reset_log()
    _, state, _ = await investigate()
    assert scripted_model.peak_concurrency("ClaimAssessment") > 2  # no longer held to two
    assert 1 < env.services.tavily.peak_concurrency <= 4  # searches overlap, within the bound


async def test_detailed_verdicts_carry_their_loop_and_the_report_agrees(env):
    texts, state, saved = await investigate()
    verdicts = state[keys.VERDICT_RECORDS]
    assert verdicts
    for verdict in verdicts:
        assert verdict["evidence"], verdict["claim_key"]
        assert verdict["iterations"] >= 1 and verdict["stop_reason"]
        assert verdict["queries"]
    # the report's findings carry exactly the saved verdicts, claim by claim
    report = texts[-1]
    findings = report.split("## Key Findings")[1].split("\n## ")[0]
    labels = re.findall(r"^\d+\. \S+ \*\*(.+?)\*\*:", findings, re.M)
    claims = {c["id"]: c for c in saved["claims"]}
    by_key = {claims[f["claim_id"]]["key"]: f["verdict"] for f in saved["fact_checks"]}
    expected = [verdict_label(by_key[v["claim_key"]], "en")[1] for v in verdicts]
    assert labels == expected


async def test_fact_checks_are_saved_with_evidence_linked_to_claims_and_sources(env):
    _, _, saved = await investigate()
    source_ids = {s["id"] for s in saved["sources"]}
    claim_ids = {c["id"] for c in saved["claims"]}
    assert saved["fact_checks"]
    for check in saved["fact_checks"]:
        assert check["claim_id"] in claim_ids
        assert check["verdict"] in (
            "verified",
            "partially_true",
            "misleading",
            "false",
            "unverified",
        )
        assert 0 <= check["confidence"] <= 1
        assert check["evidence"] and set(check["source_ids"]) <= source_ids
        for item in check["evidence"]:
            assert item["reliability"] in ("high", "neutral", "low")
            assert item["stance"] in ("supports", "refutes", "context")
            assert item["origin"]
    assert any(check["source_ids"] for check in saved["fact_checks"])


async def test_existing_fact_checks_become_evidence(env):
    from tests.fakes.factcheck import claim as review

    env.services.factcheck.claims = [
        review(
            "Acme Chemicals exceeded federal lead discharge limits by 312% at its Riverton plant",
            "True",
            publisher="PolitiFact",
            site="politifact.com",
            language="en",
        )
    ]
    _, state, saved = await investigate()
    reviews = [
        e
        for v in state[keys.VERDICT_RECORDS]
        for e in v["evidence"]
        if e["origin"] == "factcheck_api"
    ]
    assert reviews and all(e["reliability"] == "high" and e["rating"] == "True" for e in reviews)
    stored = [
        e for f in saved["fact_checks"] for e in f["evidence"] if e["origin"] == "factcheck_api"
    ]
    assert stored and stored[0]["rating"] == "True"


async def test_without_a_fact_check_key_the_databases_are_skipped_with_a_note(env):
    env.set(FACTCHECK_API_KEY="")
    texts, state, _ = await investigate()
    assert any("Fact-check databases skipped" in t and "FACTCHECK_API_KEY" in t for t in texts)
    assert env.services.factcheck.count() == 0
    assert "FACTCHECK_API_KEY" not in (state[keys.PARTIAL_REASON] or "")


async def test_urls_in_the_brief_are_read_with_a_count_limit_and_time_limits(env):
    env.set(VICARAN_MAX_USER_URLS="2", VICARAN_USER_SOURCE_TIMEOUT_SECONDS="1")
    env.services.jina.fail(RIVERTON[1].url, "hang")
    conversation = Conversation()
    events = await conversation.send(
        f"Did Acme pollute Riverton? See {RIVERTON[1].url} and {RIVERTON[2].url}, "
        f"also {RIVERTON[0].url}."
    )
    assert env.services.jina.wait_active(1)  # the plan came while that page still hung
    calls = [c for e in events for c in e.get_function_calls() if c.name == "analyze_source"]
    assert [c.args["url"] for c in calls] == [RIVERTON[1].url, RIVERTON[2].url]
    plan = conversation.texts(events)[-1]
    assert "could not be read" in plan and "longer than 1 s" in plan
    state = await conversation.state()
    readable = [s for s in state[keys.USER_SOURCES] if s["is_reachable"]]
    assert [s["title"] for s in readable] == [RIVERTON[2].title]


async def test_a_page_that_timed_out_is_retried_and_reaches_the_fact_checker(env):
    slow = RIVERTON[0].url  # the Reuters report: first read hangs, the retry succeeds
    env.set(VICARAN_PAGE_TIMEOUT_SECONDS="0.5", VICARAN_MAX_RETRIES="0")
    env.services.jina.fail(slow, "hang", times=1)
    _, state, _ = await investigate()
    (record,) = [s for s in state[keys.SOURCE_RECORDS] if "reuters.com" in s["url"]]
    assert not record["is_reachable"] and "timed out" in record["unreachable_detail"]
    late = [
        e
        for v in state[keys.VERDICT_RECORDS]
        for e in v["evidence"]
        if e["origin"] == "late_source"
    ]
    assert late and all("reuters.com" in e["url"] for e in late)
    assert env.services.jina.targets().count(slow) == 2  # the first read and one retry


VERDICT_HEAD = re.compile(r'^(\S+) \*\*([^*]+)\*\* — (claim|alegação) (\d+)/(\d+) \("(.+)"\): \S')


@pytest.mark.parametrize(
    ("brief", "word"),
    [
        ("Quick Search. " + BRIEF, "claim"),
        (
            "Busca rápida. Investigue se a Acme Chemicals poluiu a água de Riverton. "
            "https://rivertondaily.com/news/acme-health-complaints",
            "alegação",
        ),
    ],
)
async def test_every_verdict_line_names_its_claim_numbered_as_the_chat_numbers_them(
    env, brief, word
):
    """Claims are checked concurrently and finish in any order: each line says which it is."""
    env.set(VICARAN_PRO_MODEL="scripted/latency-50")
    texts, state, _ = await investigate(brief)
    claims = [c["claim_text"] for c in state[keys.CLAIM_RECORDS]]
    assert len(claims) == 5
    verifying = {}
    for text in texts:
        if found := re.match(r'^🔍 \[PROGRESS\] \S+ \S+ (\d+)/5: "(.+)"$', text):
            verifying[int(found[1])] = found[2]
    heads = [t.split("\n", 1)[0] for t in texts if is_verdict_line(t)]
    assert len(heads) == 5, heads
    numbers = []
    for head in heads:
        found = VERDICT_HEAD.match(head)
        assert found, head
        number, short = int(found[4]), found[6]
        assert (found[3], found[5]) == (word, "5")
        assert claims[number - 1].startswith(short.removesuffix("…"))  # that claim's own text
        assert verifying[number].startswith(short.removesuffix("…")[:60])
        numbers.append(number)
    assert sorted(numbers) == [1, 2, 3, 4, 5]  # each claim once, no repeat
