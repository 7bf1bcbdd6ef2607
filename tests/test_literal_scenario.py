"""The literal-model scenario (issue 26): whole runs with a model that follows every prompt at
its word (tests/support/literal_model.py), over a story where an agency's own notice, a wire
report of it, the company's dispute, residents' claims and the city's count meet
(tests/support/literal_story.py).

What it pins: the agency's own record decides what the agency found; the underlying fact still
needs someone else's evidence; the company that disputes a claim is evidence, not its source;
the brief's own assertion is checked; hedging and status sentences survive the audit; a
Portuguese run keeps the English evidence's quotes in English.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import literal_model
from tests.support.call_log import CallLog
from tests.support.literal_story import (
    BRIEF,
    BRIEF_PT,
    CITY_COUNT,
    COMPANY_REPLY,
    EPA_NOTICE,
    WIRE_REPORT,
    serve,
)
from tests.support.literal_story import investigate as run
from vicaran_agent import state_keys as keys
from vicaran_agent.textmatch import quote_problem
from vicaran_agent.urls import normalize_url

assert literal_model.LiteralModel  # registers `literal/...`

EPA = normalize_url(EPA_NOTICE.url)
WIRE = normalize_url(WIRE_REPORT.url)
COMPANY = normalize_url(COMPANY_REPLY.url)
CITY = normalize_url(CITY_COUNT.url)


@pytest.fixture
def story(env):
    """Vicaran with the literal model, its searches and reads answered from the story."""
    serve(env.services)
    env.set(VICARAN_FAST_MODEL="literal/default", VICARAN_PRO_MODEL="literal/default")
    return env


async def investigate(brief: str, *plugins: Any) -> tuple[dict[str, Any], str]:
    state, report = await run(brief, *plugins)
    assert report.rstrip().endswith("[INVESTIGATION_COMPLETE]")
    return state, report


def verdicts_with(state: dict[str, Any], url: str) -> list[tuple[dict, dict]]:
    """(verdict, its evidence item) for every verdict whose evidence holds `url`."""
    return [
        (v, e)
        for v in state[keys.VERDICT_RECORDS]
        for e in v["evidence"]
        if normalize_url(e["url"]) == url
    ]


def claim_of(state: dict[str, Any], verdict: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in state[keys.CLAIM_RECORDS] if c["key"] == verdict["claim_key"])


async def test_the_agencys_own_notice_decides_what_the_agency_found(story):
    state, _ = await investigate(BRIEF)

    assert state[keys.INVESTIGATION_STATUS] == "completed"
    decided = [
        (v, e)
        for v, e in verdicts_with(state, EPA)
        if v["verdict"] == "verified" and e["stance"] == "supports" and e["independent"]
    ]
    assert len(decided) == 1
    verdict, item = decided[0]
    claim = claim_of(state, verdict)
    assert claim["kind"] == "attribution"
    assert "EPA" in claim["attributed_to"]
    # The notice is one of the pages the claim came from, and still counts: it is the EPA's own.
    assert EPA in claim["source_urls"] and WIRE in claim["source_urls"]
    assert item["primary_record"] and item["reliability"] == "high"
    assert quote_problem(item["quote"], EPA_NOTICE.body) is None
    # The wire report of the notice is still not independent of the claim it made.
    wire = next(e for e in verdict["evidence"] if normalize_url(e["url"]) == WIRE)
    assert not wire["independent"] and wire["stance"] == "context"


async def test_the_underlying_fact_still_needs_independent_evidence(story):
    state, _ = await investigate(BRIEF)

    facts = [
        (v, e)
        for v, e in verdicts_with(state, EPA)
        if claim_of(state, v)["kind"] == "fact" and "EPA" in claim_of(state, v)["attributed_to"]
    ]
    assert len(facts) == 1
    verdict, notice = facts[0]
    assert verdict["verdict"] == "unverified"
    assert not notice["independent"] and notice["stance"] == "context"
    # The company's dispute is evidence of its own (independent), not a source of the claim.
    company = next(e for e in verdict["evidence"] if normalize_url(e["url"]) == COMPANY)
    assert company["independent"] and company["stance"] == "refutes"


async def test_a_source_that_disputes_a_claim_is_not_one_of_its_sources(story):
    state, _ = await investigate(BRIEF)

    assert state[keys.CLAIM_RECORDS]
    assert all(COMPANY not in c["source_urls"] for c in state[keys.CLAIM_RECORDS])


async def test_the_briefs_embedded_assertion_is_checked(story):
    state, _ = await investigate(BRIEF)

    brief = [c for c in state[keys.CLAIM_RECORDS] if c["origin"] == "brief"]
    assert [c["claim_text"] for c in brief] == [
        "Complaints about tap water in Millbrook rose 40% in 2024"
    ]
    assert brief[0]["attributed_to"] == "activists" and brief[0]["kind"] == "fact"
    verdict = next(v for v in state[keys.VERDICT_RECORDS] if v["claim_key"] == brief[0]["key"])
    assert verdict["verdict"] == "verified"
    city = next(e for e in verdict["evidence"] if normalize_url(e["url"]) == CITY)
    assert city["stance"] == "supports" and city["independent"]


async def test_status_sentences_survive_the_audit(story):
    state, report = await investigate(BRIEF)

    unverified = [v for v in state[keys.VERDICT_RECORDS] if v["verdict"] == "unverified"]
    assert unverified  # the writer hedges these: "not established", "no independent source"
    assert report.count("This was not established: no independent source confirmed it") == len(
        unverified
    )
    assert "was not established [" in report  # the executive summary's hedge
    quality = state[keys.REPORT_QUALITY]
    assert quality["removed"] == 0 and quality["rewrites"] == 0
    assert quality["statuses"] >= 2 * len(unverified)  # each checked against the records
    assert "Removed from the report" not in report


async def test_a_portuguese_run_keeps_the_english_evidence_quotes_in_english(story):
    state, report = await investigate(BRIEF_PT)

    assert state[keys.INVESTIGATION_STATUS] == "completed"
    decided = [
        (v, e)
        for v, e in verdicts_with(state, EPA)
        if v["verdict"] == "verified" and e["stance"] == "supports"
    ]
    assert len(decided) == 1
    _, item = decided[0]
    assert quote_problem(item["quote"], EPA_NOTICE.body) is None
    assert "312%" in item["quote"] and "exceeded" in item["quote"]
    assert not any("counted as context" in e["stance_note"] for _, e in verdicts_with(state, EPA))
    assert "Isso não foi estabelecido" in report and "Removida do relatório" not in report


async def test_the_call_log_prints_every_task_with_its_answers_and_tokens(story):
    """What `make test-live` prints for each brief on Gemini, here with the literal model (one
    answer cut off at its output cap, to show how a cut-off is counted)."""
    story.set(VICARAN_FAST_MODEL="literal/truncates-BiasJudgement")
    log = CallLog()
    await investigate(BRIEF, log)

    table = log.table()
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[1:] if line[0] != " "}
    assert table.splitlines()[0].split() == [
        "task", "calls", "valid", "cut", "fail", "input", "output", "thought",
    ]  # fmt: skip
    tasks = ("SourceDigest", "BriefClaims", "ClaimDraft", "ClaimAssessment", "ReportDraft")
    for task in (*tasks, "CitationAudit", "QualityReview", "investigation_orchestrator"):
        calls, valid, cut, failed, tokens_in, tokens_out, thought = map(int, rows[task])
        assert calls >= 1 and valid == calls and cut == failed == thought == 0, task
        assert tokens_in > 0 and tokens_out > 0, task
    calls, valid, cut, *_ = map(int, rows["BiasJudgement"])
    assert (calls, valid, cut) == (2, 1, 1)
    lines = table.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("BiasJudgement"))
    assert lines[row + 1] == "    ! cut off at the output cap"
