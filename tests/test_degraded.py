"""Failures degrade an investigation to `partial` with a readable reason; they never crash it."""

from __future__ import annotations

import pytest

from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.corpus import RIVERTON
from tests.support.records import as_json
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.storage import get_repository

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water."
USER_URL = "https://rivertondaily.com/news/acme-health-complaints"


async def investigate(brief: str = BRIEF) -> tuple[Conversation, list[str], dict]:
    conversation = Conversation()
    await conversation.send(brief)
    events = await conversation.send("APPROVED")
    state = await conversation.state()
    return conversation, conversation.texts(events), state


def saved(state: dict) -> dict:
    return as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )


async def test_happy_path_completes(env):
    _, texts, state = await investigate(f"{BRIEF} {USER_URL}")
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    assert saved(state)["status"] == "completed"
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")


async def test_no_sources_skips_every_stage_without_model_calls(env):
    env.services.tavily.overrides = lambda query, body: []
    _, texts, state = await investigate()
    joined = "\n".join(texts)
    for marker in (
        "[NO_SOURCES_FOUND]",
        "[NO_CLAIMS_EXTRACTED]",
        "[NO_CLAIMS_TO_VERIFY]",
        "[BIAS_SKIPPED]",
        "[TIMELINE_SKIPPED]",
    ):
        assert marker in joined, marker
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    tasks = {c["task"] for c in scripted_model.CALLS}
    assert tasks.isdisjoint({"ClaimDraft", "ClaimAssessment", "BiasJudgement", "TimelineDraft"})
    assert "ReportDraft" not in tasks
    # nothing worth reporting: no usable source and no claim decided
    assert state[keys.INVESTIGATION_STATUS] == "failed"
    assert "No sources could be found" in state[keys.PARTIAL_REASON]
    assert "This investigation failed" in texts[-1]
    record = saved(state)
    assert record["status"] == "failed" and "No sources could be found" in record["error"]
    assert record["partial_reason"] is None


async def test_no_checkable_claims(env):
    env.set(VICARAN_FAST_MODEL="scripted/no-claims")
    _, texts, state = await investigate()
    joined = "\n".join(texts)
    assert "[NO_CLAIMS_EXTRACTED]" in joined and "[NO_CLAIMS_TO_VERIFY]" in joined
    assert scripted_model.calls_for("ClaimAssessment") == []
    # the journalist is told why, in a friendly sentence; finding nothing to check is a
    # finding, not a failure: the stage did all of its work
    why = "The sources only share opinions and reactions, not facts."
    assert any(t.startswith("[NO_CLAIMS_EXTRACTED]") and why in t for t in texts)
    assert why in texts[-1].split("## Notes")[1]
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]


@pytest.mark.parametrize(
    ("status", "told"),
    [
        (401, "TAVILY_API_KEY"),
        (500, "500"),
        (432, "432"),
    ],
)
async def test_search_failures_are_reported_and_the_run_continues(env, status, told):
    env.services.tavily.fail(status)
    _, texts, state = await investigate(f"{BRIEF} {USER_URL}")
    assert any("⚠️ [PROGRESS] Web search problem" in t and told in t for t in texts)
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert told in texts[-1]  # the report says why it is partial
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert saved(state)["sources"]  # the journalist's own source still carried the run


async def test_a_rate_limited_search_is_retried_and_succeeds(env):
    env.services.tavily.fail(429, times=1, retry_after=0)
    _, _, state = await investigate(f"{BRIEF} {USER_URL}")
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    assert len(state[keys.SOURCE_RECORDS]) == len(RIVERTON)


async def test_search_that_never_answers_times_out(env):
    env.services.tavily.fail("hang")
    env.set(VICARAN_SEARCH_TIMEOUT_SECONDS="0.5", VICARAN_GATHER_TIMEOUT_SECONDS="2")
    _, texts, state = await investigate(f"{BRIEF} {USER_URL}")
    assert env.services.tavily.wait_active(1)  # the run ended while the searches still hung
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert (
        "timed out" in state[keys.PARTIAL_REASON] or "did not answer" in state[keys.PARTIAL_REASON]
    )
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")


async def test_unreadable_pages_are_reported_and_left_out(env):
    env.services.jina.fail(RIVERTON[0].url, "captcha")
    env.services.jina.fail(RIVERTON[1].url, 451)
    env.services.jina.fail(RIVERTON[4].url, "hang")
    _, texts, state = await investigate()
    assert env.services.jina.wait_active(1)  # the run ended while that page still hung
    unreadable = [s for s in state[keys.SOURCE_RECORDS] if not s["is_reachable"]]
    assert len(unreadable) == 3
    assert all(s["unreachable_reason"] for s in unreadable)
    assert sum(t.startswith("⚠️ **Source") and "could not be read" in t for t in texts) == 3
    # the counts agree: as many found as analysed, and what was usable among them
    (found,) = [t for t in texts if "[PROGRESS] Found " in t]
    (done,) = [t for t in texts if "Source analysis complete" in t]
    count = found.split("Found ", 1)[1].split(" ", 1)[0]
    usable = len(state[keys.SOURCE_RECORDS]) - 3
    assert f"complete: {usable} sources of the {count} found" in done, (found, done)
    assert int(count) == len(state[keys.SOURCE_RECORDS])
    # a reason in plain words, never a service's technical answer (kept in the details)
    assert all("Jina Reader" not in s["unreachable_reason"] for s in unreadable)
    assert all(s["unreachable_detail"] for s in unreadable)
    # unreadable pages are per-item problems: listed in the report, the run is complete
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    notes = texts[-1].split("## Notes")[1]
    assert all(f"{s['display_url']} could not be read" in notes for s in unreadable)
    # what could not be read is never cited
    sources_list = texts[-1].split("## Sources")[1].split("## Notes")[0]
    assert all(s["display_url"] not in sources_list for s in unreadable)
    numbers = [i for i, s in enumerate(state[keys.SOURCE_RECORDS], 1) if not s["is_reachable"]]
    assert all(f"[{n}]" not in texts[-1] for n in numbers)


async def test_rate_limited_reader_is_retried(env):
    env.services.jina.fail(None, 429, times=2, retry_after=0)
    _, _, state = await investigate()
    assert all(s["is_reachable"] for s in state[keys.SOURCE_RECORDS])


async def test_blocked_reader_falls_back_to_a_direct_fetch(env):
    """Jina refuses loopback targets (451); Vicaran then reads the page itself."""
    web = env.services.web
    article = RIVERTON[0]
    url = web.add_article("/acme", article.title, [article.body], published="2025-01-16")
    env.services.tavily.overrides = lambda query, body: [
        {"url": url, "title": article.title, "content": article.snippet, "score": 0.9}
    ]
    env.set(VICARAN_FETCH_ALLOW_PRIVATE="true")
    _, _, state = await investigate()
    (source,) = state[keys.SOURCE_RECORDS]
    assert source["is_reachable"] and source["title"] == article.title
    assert env.services.jina.count() >= 1 and web.count("/acme") >= 1


async def test_direct_fetch_refuses_private_addresses_by_default(env):
    web = env.services.web
    url = web.add_article("/acme", "Acme", [RIVERTON[0].body])
    env.services.tavily.overrides = lambda query, body: [
        {"url": url, "title": "Acme", "content": "x", "score": 0.9}
    ]
    _, texts, state = await investigate()
    (source,) = state[keys.SOURCE_RECORDS]
    assert not source["is_reachable"]
    assert web.count("/acme") == 0
    assert "[NO_SOURCES_FOUND]" in "\n".join(texts)


async def test_model_provider_errors_degrade_the_stage(env):
    env.set(VICARAN_PRO_MODEL="scripted/error-ClaimAssessment+error-ReportDraft")
    _, texts, state = await investigate()
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert {v["verdict"] for v in state[keys.VERDICT_RECORDS]} == {"unverified"}
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert "could not be checked" in state[keys.PARTIAL_REASON]
    assert "assembled without the model" in state[keys.PARTIAL_REASON]


def explode_in(env, agent: type, after: int = 0) -> None:
    """A test double: the stage raises, after yielding `after` of its own events."""
    original = agent.run_stage

    async def explode(self, stage):
        events = original(self, stage)
        for _ in range(after):
            yield await anext(events)
        await events.aclose()
        raise RuntimeError("disk on fire")

    env.monkeypatch.setattr(agent, "run_stage", explode)


REPORT = "# Investigation Summary:"


async def test_a_stage_that_raises_is_recorded_and_the_run_goes_on(env):
    """Seed 001: mark partial and continue; the report is written from what the others found."""
    from vicaran_agent.sub_agents.claim_extractor import ClaimExtractorAgent

    explode_in(env, ClaimExtractorAgent, after=1)  # it had started: its progress line went out
    _, texts, state = await investigate()
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    reason = state[keys.PARTIAL_REASON]
    assert "claim extraction" in reason and "claim_extractor" in reason and "disk on fire" in reason
    report = texts[-1]
    assert report.startswith(REPORT) and report.rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert "## Sources" in report  # what the source finder found is reported
    joined = "\n".join(texts)
    assert "[NO_CLAIMS_TO_VERIFY]" in joined  # the next stages ran on what there was
    assert state[keys.BIAS_RECORD] is not None
    record = saved(state)
    assert record["status"] == "partial" and record["partial_reason"] == reason
    assert record["summary"].startswith(REPORT) and record["sources"]


@pytest.mark.parametrize(
    ("agent", "stage"),
    [("BiasAnalyzerAgent", "bias analysis"), ("FactCheckerAgent", "fact-checking")],
)
async def test_one_of_the_parallel_stages_raising_leaves_the_others_their_work(env, agent, stage):
    from vicaran_agent.sub_agents import bias_analyzer, fact_checker

    explode_in(env, getattr(bias_analyzer, agent, None) or getattr(fact_checker, agent))
    _, texts, state = await investigate()
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert stage in state[keys.PARTIAL_REASON]
    assert texts[-1].startswith(REPORT)
    if agent == "BiasAnalyzerAgent":  # the claims were still checked
        assert state[keys.VERDICT_RECORDS] and not state.get(keys.BIAS_RECORD)
    else:  # the coverage was still assessed
        assert state[keys.BIAS_RECORD] and not state.get(keys.VERDICT_RECORDS)
    assert saved(state)["status"] == "partial"


async def test_the_report_writer_raising_still_ends_with_a_report_and_the_marker(env):
    from vicaran_agent.sub_agents.summary_writer import SummaryWriterAgent

    explode_in(env, SummaryWriterAgent, after=1)
    _, texts, state = await investigate()
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert "report" in state[keys.PARTIAL_REASON] and "summary_writer" in state[keys.PARTIAL_REASON]
    report = texts[-1]
    assert report.startswith(REPORT) and report.rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert "## Key Findings" in report and "## Sources" in report  # assembled from the records
    record = saved(state)
    assert record["status"] == "partial" and record["summary"].startswith(REPORT)


async def test_a_stage_raising_that_leaves_nothing_worth_reporting_is_failed(env):
    from vicaran_agent.sub_agents.source_finder import SourceFinderAgent

    explode_in(env, SourceFinderAgent)
    _, texts, state = await investigate()
    assert state[keys.INVESTIGATION_STATUS] == "failed"
    assert "source search" in state[keys.PARTIAL_REASON]
    assert "This investigation failed" in texts[-1]
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert saved(state)["status"] == "failed"


@pytest.mark.parametrize(
    ("save", "what", "stage"),
    [("save_sources", "sources", "source_finder"), ("save_claims", "claims", "claim_extractor")],
)
async def test_store_outage_degrades_to_partial(env, save, what, stage):
    """A save that fails while the next stage works (both of these) is told all the same."""
    from vicaran_agent.storage import Repository

    def broken(self, *args, **kwargs):
        raise ConnectionError("database unavailable")

    env.monkeypatch.setattr(Repository, save, broken)
    _, texts, state = await investigate()
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert f"Could not save the {what}" in state[keys.PARTIAL_REASON]
    assert any(f"Could not save the {what}" in said for said in state[f"issues_{stage}"])
    assert saved(state)["status"] == "partial"


async def test_every_model_call_failing_is_failed_not_partial(env):
    stages = "SearchPlan SourceDigest BriefClaims ClaimDraft BiasJudgement TimelineDraft"
    checks = "CitationAudit QualityReview"
    env.set(
        VICARAN_FAST_MODEL="scripted/"
        + "+".join(f"error-{s}" for s in f"{stages} {checks}".split()),
        VICARAN_PRO_MODEL="scripted/error-ClaimAssessment+error-ReportDraft",
    )
    _, texts, state = await investigate(f"{BRIEF} {USER_URL}")
    assert state[keys.INVESTIGATION_STATUS] == "failed"
    assert "Every model call failed" in state[keys.PARTIAL_REASON]
    report = texts[-1]
    assert "This investigation failed" in report
    assert report.rstrip().endswith("[INVESTIGATION_COMPLETE]")  # the frontend re-enables chat
    record = saved(state)
    assert record["status"] == "failed" and "Every model call failed" in record["error"]


async def test_every_external_service_failing_is_failed_with_the_final_marker(env):
    env.services.tavily.fail(500)
    env.services.jina.fail(None, 500)
    env.services.factcheck.fail(500)
    _, texts, state = await investigate(f"{BRIEF} {USER_URL}")
    assert state[keys.INVESTIGATION_STATUS] == "failed"
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert saved(state)["status"] == "failed"


async def test_an_error_outside_the_stages_ends_the_run_as_failed_with_the_final_marker(
    env, monkeypatch
):
    # Not a stage failing soft: the run's own set-up breaks (here, opening its runtime).
    from contextlib import asynccontextmanager

    from vicaran_agent.sub_agents import pipeline

    @asynccontextmanager
    async def broken_runtime(investigation_id, settings):
        raise OSError("no space left on device")
        yield

    monkeypatch.setattr(pipeline, "investigation_runtime", broken_runtime)
    _, texts, state = await investigate(f"{BRIEF} {USER_URL}")
    assert state[keys.INVESTIGATION_STATUS] == "failed"
    report = texts[-1]
    assert "OSError: no space left on device" in report
    assert f"/investigations/{state[keys.INVESTIGATION_ID]}" in report  # the dashboard link
    assert report.rstrip().endswith("[INVESTIGATION_COMPLETE]")  # the frontend re-enables chat
    record = saved(state)
    assert record["status"] == "failed"
    assert record["error"] == "OSError: no space left on device"
    assert not any(c["task"] == "SearchPlan" for c in scripted_model.CALLS)  # no stage ran
