"""Issue 27: work that does not need another's result overlaps it (by peak concurrency and the
order of events, never by wall time)."""

from __future__ import annotations

import contextlib
import threading
from urllib.parse import unquote

from tests.fakes.jina import Page
from tests.support import scripted_model, wait
from tests.support.conversation import Conversation
from vicaran_agent import state_keys as keys
from vicaran_agent.clients.web_search import SearchHit
from vicaran_agent.sub_agents.source_finder import RoundRobin
from vicaran_agent.urls import normalize_url

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


async def test_a_searchs_pages_are_read_while_the_other_searches_are_out(env):
    """The source finder reads the pages a search is sure to contribute as soon as it answers:
    the plan's other searches are held until a page read has started (at most 1.5 s, within
    the search timeout), so the reads wait for none of them."""
    tavily, jina = env.services.tavily, env.services.jina
    answer = tavily.handle
    lock, first = threading.Lock(), []

    def handle(request):
        with lock:
            held = bool(first)
            first.append(request)
        if held:  # every search but the first answers once a page is being read
            with contextlib.suppress(wait.NotInTime):
                wait.until_sync(lambda: bool(jina.requests), "a page read", 1.5)
        return answer(request)

    tavily.handle = handle
    state = await investigate()
    assert state[keys.SOURCE_RECORDS]
    # the plan's searches ask for a source limit's worth of results; a claim's for fewer
    brief = [r for r in tavily.requests if r.json["max_results"] == 15]
    assert len(brief) == 3
    first_read = min(r.started for r in jina.requests)
    assert first_read < max(r.ended for r in brief)  # a read began before the last answer


def _hits(*urls: str) -> list[SearchHit]:
    return [
        SearchHit(url=u, title=u, snippet="", score=0.5, published_at=None, query="q") for u in urls
    ]


def test_each_search_gets_its_share_and_its_sure_hits_are_always_chosen():
    picker = RoundRobin(["a", "b", "c"], room=7, known={normalize_url("https://mine.org/x")})
    # c answers first: its first two (7 // 3) are sure, whatever a and b return
    sure_c = picker.add("c", _hits("https://c.org/1", "https://c.org/2", "https://c.org/3"))
    assert [h.url for h in sure_c] == ["https://c.org/1", "https://c.org/2"]
    # a repeats one of c's and the journalist's own page (neither taken twice)
    sure_a = picker.add(
        "a",
        _hits("https://www.c.org/1", "https://mine.org/x", "https://a.org/1", "https://a.org/2"),
    )
    assert [h.url for h in sure_a] == ["https://a.org/1"]
    picker.add("b", _hits("https://b.org/1"))
    chosen = [h.url for h in picker.chosen()]
    # the plan's order, rank by rank; c's first page as it was read (its own address)
    assert chosen == [
        "https://c.org/1", "https://b.org/1", "https://a.org/1",
        "https://c.org/2", "https://a.org/2", "https://c.org/3",
    ]  # fmt: skip
    assert all(picker.started(h) for h in sure_a + sure_c)
    assert {h.url for h in sure_a + sure_c} <= set(chosen)


def test_the_room_cuts_the_choice():
    picker = RoundRobin(["a", "b"], room=3, known=set())
    picker.add("a", _hits(*(f"https://a.org/{n}" for n in range(5))))
    picker.add("b", _hits(*(f"https://b.org/{n}" for n in range(5))))
    assert [h.url for h in picker.chosen()] == [
        "https://a.org/0",
        "https://b.org/0",
        "https://a.org/1",
    ]


LEAD = "https://www.riverwatch.example.org/water-intake-report"


async def test_a_rounds_new_pages_are_read_while_the_next_round_searches(env):
    """A claim's second round reads the pages its first round's searches turned up beside its
    new searches: each refined search is held until that page's read has begun (at most 1.5 s,
    within the search timeout), so a read that waited for the searches would begin after them."""
    tavily, jina = env.services.tavily, env.services.jina
    jina.pages[LEAD] = Page("Water intake report", "The intake sits downstream of the plant.")
    lead = {"url": LEAD, "title": "Water intake report", "content": "Downstream.", "score": 0.8}

    def results(query, body):
        if body.get("max_results") != 5 or query.endswith("official records"):
            return None  # the brief's searches and the refined ones: the corpus
        return [lead, *tavily.results]  # within the five a claim asks for

    answer = tavily.handle

    def reads_of_lead():
        return [r for r in list(jina.requests) if LEAD in unquote(r.raw_path)]

    def refined(request) -> bool:  # a claim's second-round search (the brief's ask for 15)
        body = request.json or {}
        return body.get("max_results") == 5 and str(body.get("query")).endswith("official records")

    def handle(request):
        if refined(request):
            with contextlib.suppress(wait.NotInTime):
                wait.until_sync(lambda: bool(reads_of_lead()), "the lead's read", 1.5)
        return answer(request)

    tavily.overrides, tavily.handle = results, handle
    state = await investigate()
    assert any(v["iterations"] == 2 for v in state[keys.VERDICT_RECORDS])
    (read, *_) = reads_of_lead()
    second = [r for r in tavily.requests if refined(r)]
    assert second
    assert read.started < min(r.ended for r in second)  # begun before a refined search answered


async def test_a_stages_records_are_saved_while_the_next_stage_works(env, monkeypatch):
    """The sources are saved while the claims are extracted, the claims while they are checked
    (neither stage needs the other's ids; the next save takes them): each save is held until
    the next stage's model call has started (5 s at most, then it goes on: run one after the
    other, that call never starts while the save is held), and every record still links."""
    from vicaran_agent.storage.records import Records

    seen: dict[str, bool] = {}

    def held(name: str, task: str) -> None:
        original = getattr(Records, name)

        def save(self, *args, **kwargs):
            if name not in seen:  # (no call of `task` is made before this stage's save)

                def started() -> bool:
                    return bool(scripted_model.calls_for(task))

                with contextlib.suppress(wait.NotInTime):
                    wait.until_sync(started, task, 5.0)
                seen[name] = started()
            return original(self, *args, **kwargs)

        monkeypatch.setattr(Records, name, save)

    held("save_sources", "ClaimDraft")
    held("save_claims", "ClaimAssessment")
    state = await investigate()
    assert seen == {"save_sources": True, "save_claims": True}
    sources, claims = state[keys.SOURCE_RECORDS], state[keys.CLAIM_RECORDS]
    verdicts = state[keys.VERDICT_RECORDS]
    assert sources and claims and verdicts
    assert all(s["source_id"] for s in sources)
    assert state[keys.SOURCE_ID_MAP] == {s["url"]: s["source_id"] for s in sources}
    assert all(c["claim_id"] == state[keys.CLAIM_ID_MAP][c["key"]] for c in claims)
    assert any(c["source_ids"] for c in claims)
    assert all(v["claim_id"] and v["fact_check_id"] for v in verdicts)
