"""Issue 27: work that does not need another's result overlaps it (by peak concurrency and the
order of events, never by wall time)."""

from __future__ import annotations

from tests.support import scripted_model
from tests.support.conversation import Conversation
from vicaran_agent import state_keys as keys

BRIEF = "Quick Search. Investigate whether Acme Chemicals polluted Riverton's drinking water."


async def investigate() -> dict:
    conversation = Conversation()
    await conversation.send(BRIEF)
    await conversation.send("APPROVED")
    return await conversation.state()


async def test_pages_read_while_digests_run_join_them(env):
    """VICARAN_CONCURRENCY bounds the page reads; a page read while others are being digested
    is digested at once, not after a whole wave of digests (the second wave issue 27 saw)."""
    env.set(VICARAN_CONCURRENCY="2", VICARAN_FAST_MODEL="scripted/latency-600")
    env.services.jina.latency = 0.05
    state = await investigate()
    readable = [s for s in state[keys.SOURCE_RECORDS] if s["is_reachable"]]
    assert len(readable) >= 4
    assert env.services.jina.peak_concurrency <= 2  # the reading bound holds
    # pages read after the first two join the digests already running: more digests at once
    # than reads (held to two, they would be two)
    assert scripted_model.peak_concurrency("SourceDigest") > 2


def _overlap(a_start: float, a_end: float, b_start: float, b_end: float) -> bool:
    return a_start < b_end and b_start < a_end


async def test_a_claims_lookup_web_and_outlet_searches_overlap(env):
    """Round 1 of a claim asks the fact-check databases, the web and the outlets at once:
    none waits for another's answer."""
    for service in (env.services.tavily, env.services.factcheck):
        service.latency = 0.1
    state = await investigate()
    checked = state[keys.VERDICT_RECORDS]
    assert checked
    lookups = [r for r in env.services.factcheck.requests if r.path.endswith(":search")]
    searches = [r for r in env.services.tavily.requests if isinstance(r.json, dict)]
    overlapped = 0
    for lookup in lookups:
        query = lookup.query["query"][0]
        same = [s for s in searches if s.json.get("query") == query]
        web = [s for s in same if s.json.get("topic") != "news"]
        news = [s for s in same if s.json.get("topic") == "news"]
        if not (web and news):
            continue
        spans = [(r.started, r.ended) for r in (lookup, web[0], news[0])]
        assert all(end is not None for _, end in spans)
        assert all(_overlap(*spans[i], *spans[j]) for i in range(3) for j in range(i + 1, 3)), query
        overlapped += 1
    assert overlapped >= len(checked)  # every claim's first round, at least


async def test_bias_and_timeline_run_beside_the_fact_checker(env):
    """Bias and the timeline need the claims, not the verdicts: their model calls overlap the
    judging (each waits, before answering, for a judge call to start: shown by event order
    however loaded the machine; run one after the other, they would overlap nothing)."""
    waits = "+BiasJudgement-waits-for-ClaimAssessment+TimelineDraft-waits-for-ClaimAssessment"
    env.set(VICARAN_FAST_MODEL="scripted/latency-50" + waits)
    conversation = Conversation()
    await conversation.send(BRIEF.replace("Quick Search. ", ""))  # detailed: a timeline too
    await conversation.send("APPROVED")
    judged = scripted_model.calls_for("ClaimAssessment")
    assert judged
    for task in ("BiasJudgement", "TimelineDraft"):
        beside = scripted_model.calls_for(task)
        assert beside, task
        assert any(scripted_model.overlapped(b, j) for b in beside for j in judged), task
