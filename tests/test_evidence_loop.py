"""The evidence engine, one claim at a time: scenarios (a)-(f) and the loop's guarantees."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from tests.fakes.factcheck import claim as review
from tests.support import scripted_model, wait
from vicaran_agent.clients.fact_check_api import FactCheckApi
from vicaran_agent.clients.page_reader import PageResult
from vicaran_agent.config import get_settings
from vicaran_agent.evidence import sufficient
from vicaran_agent.factcheck.checker import CheckSettings, ClaimChecker
from vicaran_agent.factcheck.live_search import LiveSearch
from vicaran_agent.factcheck.outlets import ENGLISH_OUTLETS
from vicaran_agent.llm import ModelClient
from vicaran_agent.prompts.fact_checker import FACT_CHECKER_INSTRUCTION
from vicaran_agent.runtime import InvestigationRuntime, investigation_runtime
from vicaran_agent.schemas import Claim, Source
from vicaran_agent.textmatch import quote_problem, sha256_text
from vicaran_agent.urls import normalize_url

CLAIM = "Acme Chemicals exceeded federal lead limits by 312% at its Riverton plant in 2024"


def hit(url: str, text: str, score: float = 0.8) -> dict[str, object]:
    return {"url": url, "title": url.split("/")[2], "content": text, "score": score}


SUPPORTING = f"Records show {CLAIM}, officials said."
# Another outlet's own reporting of the same fact: agrees, but is not a copy of SUPPORTING.
CORROBORATING = (
    f"Regulators told the council on Monday that {CLAIM}, and that the company has appealed "
    "the fine while it replaces the plant's filters."
)
REFUTING = f"It is false that {CLAIM}; the readings were wrong."
ARTICLE_A = (
    "Riverton, Jan 16 - The Environmental Protection Agency said on Wednesday that "
    f"{CLAIM}. The agency filed an enforcement action against the company the same day. Acme "
    "said it was reviewing the findings and would cooperate with regulators. Riverton, a town "
    "of 40,000 people, draws its drinking water from the river downstream of the plant."
)


@dataclass
class Harness:
    env: object
    make: Callable[..., ClaimChecker]
    runtime: InvestigationRuntime


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
            source_urls: list[str] | None = None,
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
            claim = Claim(
                key="C1", claim_text=claim_text, importance=0.9, source_urls=source_urls or []
            )
            return ClaimChecker(shared, claim)

        yield Harness(env, make, runtime)


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
    assert (item.published_at, item.published_at_source) == ("2024-06-01", "review")
    assert env.services.factcheck.searches()[0]["languageCode"] == "en"


async def test_a_review_is_as_reliable_as_its_publisher(harness):
    """Anyone can publish ClaimReview markup: an unknown site's review is not high."""
    env = harness.env
    search_returns(env, [])
    env.services.factcheck.claims = [
        review(CLAIM, "False", publisher="Truth Desk", site="truthdesk.example", language="en")
    ]
    verdict = await harness.make(cap=1).run()
    (item,) = [e for e in verdict.evidence if e.origin == "factcheck_api"]
    assert item.reliability == "neutral" and item.stance == "refutes"
    assert verdict.verdict == "unverified"  # one neutral review does not settle it


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
            hit("https://valleynews.com/b", CORROBORATING),
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
            hit("https://valleynews.com/b", CORROBORATING),
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
            hit("https://valleynews.com/b", CORROBORATING),
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
            hit("https://valleynews.com/b", CORROBORATING),
        ],
    )
    verdict_task = asyncio.create_task(_run(harness.make()))
    checker, verdict = await asyncio.wait_for(verdict_task, timeout=15)
    assert verdict.verdict == "verified"
    # a gatherer's failure is a per-item note: the claim itself was checked
    assert any("Fact Check Tools did not answer within 1 s" in n for n in checker.notes)
    assert checker.issues == []


async def _run(checker: ClaimChecker):
    return checker, await checker.run()


async def test_conflicting_high_reliability_evidence_is_stated(harness):
    search_returns(
        harness.env,
        [hit("https://apnews.com/a", SUPPORTING), hit("https://www.reuters.com/b", REFUTING)],
    )
    verdict = await harness.make().run()
    assert "high-reliability sources conflict" in verdict.explanation


def own_source(harness: Harness, url: str = "https://apnews.com/article/x") -> Source:
    """Article A, read by the source finder, with its text in the investigation's store."""
    return Source(
        url=url,
        title="AP",
        domain="apnews.com",
        publisher="apnews.com",
        credibility_score=5,
        content_summary=SUPPORTING,
        key_claims=[CLAIM],
        content_sha256=harness.runtime.texts.put(ARTICLE_A),
    )


async def test_a_claims_own_source_never_confirms_it(harness):
    """Circular verification: the article a claim came from is shown, never counted."""
    search_returns(harness.env, [])
    source = own_source(harness)
    verdict = await harness.make(sources=[source], source_urls=[source.url], cap=1).run()
    (item,) = verdict.evidence
    assert item.origin == "source" and item.stance == "supports"  # the model leaned on it
    assert (
        not item.independent and item.independence_note == "the page this claim was extracted from"
    )
    assert verdict.verdict == "unverified" and not verdict.sufficient


async def test_a_copy_of_the_claims_source_on_another_site_does_not_count(harness):
    """A, plus A syndicated on another domain: still nothing independent."""
    source = own_source(harness)
    search_returns(harness.env, [hit("https://www.valleymirror.com/wire/acme", ARTICLE_A)])
    verdict = await harness.make(sources=[source], source_urls=[source.url], cap=2).run()
    (copy,) = [e for e in verdict.evidence if "valleymirror" in e.url]
    assert copy.stance == "supports" and not copy.independent
    assert copy.independence_note.startswith("a near-identical copy of https://apnews.com")
    assert verdict.verdict == "unverified"


async def test_one_independent_high_reliability_page_decides_it(harness):
    """The same claim, with one independent high-reliability page on point: decided."""
    source = own_source(harness)
    search_returns(
        harness.env,
        [
            hit("https://www.valleymirror.com/wire/acme", ARTICLE_A),
            hit("https://www.epa.gov/newsreleases/acme-riverton", CORROBORATING),
        ],
    )
    decided = await harness.make(sources=[source], source_urls=[source.url], cap=2).run()
    assert decided.verdict == "verified" and decided.sufficient
    (epa,) = [e for e in decided.evidence if "epa.gov" in e.url]
    assert epa.independent and epa.reliability == "high" and epa.quote in CORROBORATING


async def test_syndicated_copies_count_as_one_publisher(harness):
    """Two neutral sites carrying the same wire text are one voice, not two."""
    search_returns(
        harness.env,
        [
            hit("https://rivertonpost.com/wire", CORROBORATING),
            hit("https://valleynews.com/wire", CORROBORATING),
        ],
    )
    verdict = await harness.make(cap=1).run()
    first, second = verdict.evidence
    assert first.independent and not second.independent
    assert second.independence_note == "a near-identical copy of [E1] (syndicated text counts once)"
    assert verdict.verdict == "unverified"


async def test_a_stance_whose_quote_is_not_in_the_text_read_is_context(harness):
    search_returns(
        harness.env,
        [
            hit("https://www.reuters.com/a", SUPPORTING),
            hit("https://valleynews.com/b", CORROBORATING),
        ],
    )
    verdict = await harness.make(model="scripted/misquotes", cap=1).run()
    assert {e.stance for e in verdict.evidence} == {"context"}
    for item in verdict.evidence:
        assert item.quote == ""
        assert "counted as context, not 'supports': the quote is not in the text read" in (
            item.stance_note
        )
    assert verdict.verdict == "unverified"
    # with real quotes, every counted stance rests on words found in its snapshot
    honest = await harness.make(cap=1).run()
    assert honest.verdict == "verified"
    for item in honest.evidence:
        if item.stance != "context":
            text = harness.runtime.texts.get(item.content_sha256)
            assert text and quote_problem(item.quote, text) is None


async def test_evidence_records_its_provenance_and_the_date_of_the_check(harness):
    harness.env.set(VICARAN_TODAY="2026-01-15")
    search_returns(
        harness.env,
        [
            {
                **hit("https://www.reuters.com/a", SUPPORTING),
                "published_date": "Mon, 12 Jan 2026 09:30:00 GMT",
            }
        ],
    )
    verdict = await harness.make(cap=1).run()
    assert verdict.as_of == "2026-01-15"
    (item,) = verdict.evidence
    assert item.query == CLAIM  # the scripted claim's search
    # the date is Tavily's: only the outlet search is a news search, and only news has dates
    assert (item.published_at, item.published_at_source) == ("2026-01-12", "search")
    assert item.retrieved_at
    searches = [r.json for r in harness.env.services.tavily.requests]
    assert {b["topic"] for b in searches if b.get("include_domains")} == {"news"}
    assert {b["topic"] for b in searches if not b.get("include_domains")} == {"general"}
    assert item.display_url == "https://www.reuters.com/a" and item.url == "https://reuters.com/a"
    assert item.content_sha256 == sha256_text(harness.runtime.texts.get(item.content_sha256))
    prompts = scripted_model.calls_for("ClaimAssessment")
    # the date and where it comes from reach the checker
    assert "published: 2026-01-12 (search service)" in prompts[0]["prompt"]
    assert "2026-01-15" in prompts[0]["instruction"]


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
        await wait.until(
            lambda: scripted_model.calls_for("ClaimAssessment"), "the first round's judgement"
        )
        return PageResult(url=late, ok=True, title="Slow story", text=f"{SUPPORTING}\n\nMore.")

    checker.shared.runtime.late.retry(late, slow_read)
    verdict = await checker.run()
    (item,) = [e for e in verdict.evidence if e.url == "https://slowsite.com/story"]
    assert item.origin == "late_source"
    prompts = [c["prompt"] for c in scripted_model.calls_for("ClaimAssessment")]
    assert any("[NEW]" in p for p in prompts)


def settles_in_round_one(env) -> None:
    """A recognised fact-checker's review of the claim: sufficient after the first round."""
    search_returns(env, [])
    env.services.factcheck.claims = [
        review(CLAIM, "False", publisher="PolitiFact", site="politifact.com", language="en")
    ]


LATE = "https://slowsite.com/story"


def arrives_after_round_one(checker: ClaimChecker, monkeypatch) -> None:
    """A late page whose retry finishes only once round 1 has been judged."""
    judged = asyncio.Event()
    original = ClaimChecker._judge

    async def judge(self):
        result = await original(self)
        judged.set()
        return result

    monkeypatch.setattr(ClaimChecker, "_judge", judge)

    async def slow_read() -> PageResult:
        await judged.wait()
        return PageResult(url=LATE, ok=True, title="Slow story", text=f"{SUPPORTING}\n\nMore.")

    checker.shared.runtime.late.retry(LATE, slow_read)


async def test_a_late_source_arriving_after_the_claim_settled_re_enters_the_loop(
    harness, monkeypatch
):
    """Seed 000: done with sources still arriving, the checker waits for them and judges again."""
    settles_in_round_one(harness.env)
    checker = harness.make(cap=3)
    arrives_after_round_one(checker, monkeypatch)
    late = LATE
    verdict = await checker.run()
    (item,) = [e for e in verdict.evidence if e.url == late]
    assert item.origin == "late_source"
    prompts = [c["prompt"] for c in scripted_model.calls_for("ClaimAssessment")]
    assert len(prompts) == 2 and "[NEW]" not in prompts[0] and "[NEW]" in prompts[1]
    assert verdict.iterations == 2 and "late source" in verdict.stop_reason


async def test_a_late_source_that_never_arrives_does_not_hold_the_claim(harness):
    harness.env.set(VICARAN_PAGE_TIMEOUT_SECONDS="0.2")  # how long a settled claim waits
    settles_in_round_one(harness.env)
    never = asyncio.Event()

    async def hung_read() -> PageResult:
        await never.wait()
        raise AssertionError("unreachable")

    checker = harness.make(cap=3)
    checker.shared.runtime.late.retry("https://slowsite.com/never", hung_read)
    verdict = await checker.run()
    assert verdict.iterations == 1 and verdict.stop_reason == "sufficient evidence"
    assert len(scripted_model.calls_for("ClaimAssessment")) == 1


async def test_a_claim_at_its_round_cap_does_not_wait_for_late_sources(harness, monkeypatch):
    settles_in_round_one(harness.env)
    checker = harness.make(cap=1)
    arrives_after_round_one(checker, monkeypatch)
    verdict = await checker.run()
    assert verdict.iterations == 1 and verdict.stop_reason == "sufficient evidence"
    assert len(scripted_model.calls_for("ClaimAssessment")) == 1
    assert not [e for e in verdict.evidence if e.url == LATE]


async def test_live_search_fallback_adds_resolved_sources(harness):
    env = harness.env
    web = env.services.web
    article = web.add_article("/apnews-story", "AP story", [SUPPORTING])
    redirect = web.add_redirect("/grounding-api-redirect/abc", article)
    env.set(VICARAN_FETCH_ALLOW_PRIVATE="true", SCRIPTED_GROUNDING_URIS=redirect)
    search_returns(env, [])
    verdict = await harness.make(cap=1, live=True).run()
    (item,) = [e for e in verdict.evidence if e.origin == "live_search"]
    assert item.display_url == article  # the final URL, not the redirect ...
    assert item.url == normalize_url(article)  # ... and its normalized identity
    assert "grounding-api-redirect" not in item.url
    assert verdict.stop_reason.endswith("; live search added 1 source")


async def test_a_live_search_source_that_refuses_vicaran_is_kept_as_unread_evidence(harness):
    """Cited by Google, refused to Vicaran's reader (403): evidence with no snapshot, said so."""
    env = harness.env
    walled = env.services.web.add_html(
        "/walled-story", "<html><body>Access denied</body></html>", status=403
    )
    env.set(VICARAN_FETCH_ALLOW_PRIVATE="true", SCRIPTED_GROUNDING_URIS=walled)
    search_returns(env, [])
    checker = harness.make(cap=1, live=True)
    verdict = await checker.run()
    (item,) = [e for e in verdict.evidence if e.origin == "live_search"]
    assert item.display_url == walled
    assert item.content_sha256 is None and item.retrieved_at is None  # nothing was read
    assert item.stance == "context"  # no text of its own: no stance can rest on it
    (note,) = [n for n in checker.notes if walled in n]
    assert "not read" in note and "HTTP 403" in note
