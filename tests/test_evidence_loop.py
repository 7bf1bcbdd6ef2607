"""The evidence engine, one claim at a time: scenarios (a)-(f) and the loop's guarantees."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from tests.fakes.factcheck import claim as review
from tests.support import scripted_model
from vicaran_agent.config import get_settings
from vicaran_agent.evidence import sufficient
from vicaran_agent.factcheck.checker import CheckSettings, ClaimChecker
from vicaran_agent.factcheck.outlets import ENGLISH_OUTLETS
from vicaran_agent.llm import ModelClient
from vicaran_agent.prompts.fact_checker import FACT_CHECKER_INSTRUCTION
from vicaran_agent.runtime import investigation_runtime
from vicaran_agent.schemas import Claim, Source
from vicaran_agent.tools.fact_check_api import FactCheckApi
from vicaran_agent.tools.live_search import LiveSearch
from vicaran_agent.tools.page_reader import PageResult

CLAIM = "Acme Chemicals exceeded federal lead limits by 312% at its Riverton plant in 2024"


def hit(url: str, text: str, score: float = 0.8) -> dict[str, object]:
    return {"url": url, "title": url.split("/")[2], "content": text, "score": score}


SUPPORTING = f"Records show {CLAIM}, officials said."
REFUTING = f"It is false that {CLAIM}; the readings were wrong."


@dataclass
class Harness:
    env: object
    make: Callable[..., ClaimChecker]


@pytest.fixture
async def harness(env) -> AsyncIterator[Harness]:
    env.set(VICARAN_PAGES_PER_CLAIM="0")
    async with investigation_runtime("loop-test", get_settings()) as runtime:

        def make(
            *,
            cap: int = 3,
            sources: list[Source] | None = None,
            model: str = "scripted/default",
            live: bool = False,
            claim_text: str = CLAIM,
        ) -> ClaimChecker:
            settings = get_settings()
            shared = CheckSettings(
                settings=settings,
                model=ModelClient(model, settings),
                instruction=FACT_CHECKER_INSTRUCTION,
                language="en",
                cap=cap,
                sources=sources or [],
                runtime=runtime,
                factcheck=FactCheckApi(settings, backoff_base=0.01),
                outlets=list(ENGLISH_OUTLETS),
                live=LiveSearch(model, settings) if live else None,
            )
            return ClaimChecker(shared, Claim(key="C1", claim_text=claim_text, importance=0.9))

        yield Harness(env, make)


def search_returns(env, results: list[dict[str, object]]) -> None:
    env.services.tavily.overrides = lambda query, body: results


async def test_a_matching_fact_check_review_is_sufficient_after_one_round(harness):
    env = harness.env
    search_returns(env, [])
    env.services.factcheck.claims = [
        review(CLAIM, "False", publisher="PolitiFact", site="politifact.com", language="en")
    ]
    verdict = await harness.make().run()
    assert verdict.verdict == "false"  # the publisher's rating, mapped
    assert verdict.iterations == 1 and verdict.stop_reason == "sufficient evidence"
    (item,) = [e for e in verdict.evidence if e.origin == "factcheck_api"]
    assert item.reliability == "high" and item.rating == "False" and item.stance == "refutes"
    assert env.services.factcheck.searches()[0]["languageCode"] == "en"


async def test_an_unknown_rating_is_kept_as_context_not_mapped(harness):
    env = harness.env
    search_returns(env, [])
    env.services.factcheck.claims = [
        review(CLAIM, "Needs more study", site="politifact.com", language="en")
    ]
    verdict = await harness.make(cap=1).run()
    (item,) = [e for e in verdict.evidence if e.origin == "factcheck_api"]
    assert item.stance == "context" and item.rating == "Needs more study"
    assert verdict.verdict == "unverified"


async def test_b_one_neutral_source_is_not_enough(harness):
    search_returns(harness.env, [hit("https://rivertonpost.com/a", SUPPORTING)])
    verdict = await harness.make(cap=2).run()
    assert verdict.verdict == "unverified"
    assert not verdict.sufficient
    assert verdict.iterations == 2 and verdict.stop_reason == "iteration cap reached (2)"
    assert "downgraded" in verdict.explanation


async def test_b_two_agreeing_neutral_sources_from_different_domains_are(harness):
    search_returns(
        harness.env,
        [
            hit("https://rivertonpost.com/a", SUPPORTING),
            hit("https://valleynews.com/b", SUPPORTING),
        ],
    )
    verdict = await harness.make().run()
    assert verdict.verdict == "verified" and verdict.sufficient
    assert verdict.iterations == 1 and verdict.stop_reason == "sufficient evidence"


async def test_c_a_more_reliable_contradiction_defeats_neutral_agreement(harness):
    search_returns(
        harness.env,
        [
            hit("https://rivertonpost.com/a", SUPPORTING),
            hit("https://valleynews.com/b", SUPPORTING),
            hit("https://www.reuters.com/c", REFUTING),
        ],
    )
    verdict = await harness.make().run()
    assert not sufficient(verdict.evidence, "supports")[0]
    assert verdict.verdict != "verified"
    high = [e for e in verdict.evidence if e.reliability == "high"]
    assert high and verdict.evidence[0] == high[0]  # high reliability is numbered first


async def test_d_nothing_found_is_unverified_after_exactly_the_cap(harness):
    search_returns(harness.env, [])
    for cap in (2, 3):
        scripted_model.reset_calls()
        verdict = await harness.make(cap=cap).run()
        assert verdict.verdict == "unverified" and verdict.evidence == []
        assert verdict.iterations == cap
        assert verdict.stop_reason == f"iteration cap reached ({cap})"
        assert len(verdict.queries) == cap == len(set(verdict.queries))
        assert len(scripted_model.calls_for("ClaimAssessment")) == cap


async def test_e_citations_that_do_not_exist_are_removed(harness):
    search_returns(
        harness.env,
        [
            hit("https://rivertonpost.com/a", SUPPORTING),
            hit("https://valleynews.com/b", SUPPORTING),
        ],
    )
    verdict = await harness.make(model="scripted/bad-citations").run()
    assert "[99]" not in verdict.explanation and verdict.verdict == "verified"
    nothing_valid = await harness.make(model="scripted/only-bad-citations").run()
    assert "[99]" not in nothing_valid.explanation
    assert nothing_valid.verdict == "unverified"
    assert "cites no evidence" in nothing_valid.explanation


async def test_f_a_gatherer_that_times_out_does_not_stop_the_claim(harness):
    env = harness.env
    env.set(VICARAN_GATHER_TIMEOUT_SECONDS="1")
    env.services.factcheck.fail("hang")
    search_returns(
        env,
        [
            hit("https://rivertonpost.com/a", SUPPORTING),
            hit("https://valleynews.com/b", SUPPORTING),
        ],
    )
    verdict_task = asyncio.create_task(_run(harness.make()))
    checker, verdict = await asyncio.wait_for(verdict_task, timeout=15)
    assert verdict.verdict == "verified"
    assert any("Fact Check Tools did not answer within 1 s" in i for i in checker.issues)


async def _run(checker: ClaimChecker):
    return checker, await checker.run()


async def test_conflicting_high_reliability_evidence_is_stated(harness):
    search_returns(
        harness.env,
        [hit("https://apnews.com/a", SUPPORTING), hit("https://www.reuters.com/b", REFUTING)],
    )
    verdict = await harness.make().run()
    assert "high-reliability sources conflict" in verdict.explanation


async def test_the_claims_own_sources_are_evidence(harness):
    search_returns(harness.env, [])
    source = Source(
        url="https://apnews.com/article/x",
        title="AP",
        domain="apnews.com",
        credibility_score=5,
        content_summary=SUPPORTING,
    )
    verdict = await harness.make(sources=[source]).run()
    assert verdict.verdict == "verified" and verdict.evidence[0].origin == "source"


async def test_outlets_are_searched_and_pages_are_read_once(harness):
    env = harness.env
    env.set(VICARAN_PAGES_PER_CLAIM="2")
    url = "https://rivertonpost.com/a"
    from tests.fakes.jina import Page

    env.services.jina.pages[url] = Page(
        "Post",
        f"Intro paragraph about the town and its river, long enough to read.\n\n{SUPPORTING} "
        "More detail here about the readings and the agency's notice.\n\n" + "Other news. " * 30,
    )
    search_returns(env, [hit(url, "snippet only")])
    # round 1 judges the snippet; thin evidence -> round 2 reads the page
    first = await harness.make(cap=2).run()
    await harness.make(cap=2).run()
    bodies = [r.json for r in env.services.tavily.requests]
    assert any(b.get("include_domains") == list(ENGLISH_OUTLETS) for b in bodies)
    assert env.services.jina.targets().count(url) == 1  # read once per investigation
    (page,) = [e for e in first.evidence if e.url == url]
    assert page.origin == "page" and SUPPORTING[:40] in page.snippet


async def test_a_late_source_joins_the_loop_marked_new(harness):
    search_returns(harness.env, [])
    checker = harness.make(cap=3, model="scripted/latency-50")
    late = "https://slowsite.com/story"

    async def slow_read() -> PageResult:
        # arrives while the first round is being judged, i.e. after the loop started
        while not scripted_model.calls_for("ClaimAssessment"):  # noqa: ASYNC110 - no event to await
            await asyncio.sleep(0.001)
        return PageResult(url=late, ok=True, title="Slow story", text=f"{SUPPORTING}\n\nMore.")

    checker.shared.runtime.late.retry(late, slow_read)
    verdict = await checker.run()
    (item,) = [e for e in verdict.evidence if e.url == "https://slowsite.com/story"]
    assert item.origin == "late_source"
    prompts = [c["prompt"] for c in scripted_model.calls_for("ClaimAssessment")]
    assert any("[NEW]" in p for p in prompts)


async def test_live_search_fallback_adds_resolved_sources(harness):
    env = harness.env
    web = env.services.web
    article = web.add_article("/apnews-story", "AP story", [SUPPORTING])
    redirect = web.add_redirect("/grounding-api-redirect/abc", article)
    env.set(VICARAN_FETCH_ALLOW_PRIVATE="true", SCRIPTED_GROUNDING_URIS=redirect)
    search_returns(env, [])
    verdict = await harness.make(cap=1, live=True).run()
    (item,) = [e for e in verdict.evidence if e.origin == "live_search"]
    assert item.url == article.replace("http://", "http://")  # the final URL, not the redirect
    assert "grounding-api-redirect" not in item.url
    assert "live search added 1 source(s)" in verdict.stop_reason
