"""Whole investigations through ADK's Runner, quick and detailed, with the scripted model."""

from __future__ import annotations

import re

from tests.support import scripted_model
from tests.support.conversation import Conversation, text_of
from tests.support.corpus import RIVERTON
from tests.support.records import as_json
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.storage import get_repository
from vicaran_agent.urls import normalize_url

BRIEF = (
    "Investigate whether Acme Chemicals polluted Riverton's drinking water and what the EPA "
    "found. https://rivertondaily.com/news/acme-health-complaints"
)
STAGES = ["source_finder", "claim_extractor", "fact_checker", "bias_analyzer", "timeline_builder"]


def first_index(texts: list[str], needle: str) -> int:
    return next(i for i, t in enumerate(texts) if needle in t)


def authors_in_order(events) -> list[str]:
    seen: list[str] = []
    for event in events:
        if text_of(event) and event.author not in seen:
            seen.append(event.author)
    return seen


async def run_investigation(brief: str) -> tuple[Conversation, list, list]:
    conversation = Conversation()
    plan_events = await conversation.send(brief)
    run_events = await conversation.send("APPROVED")
    return conversation, plan_events, run_events


async def test_quick_investigation_runs_end_to_end(env):
    conversation, plan_events, run_events = await run_investigation("Quick Search. " + BRIEF)

    plan = conversation.texts(plan_events)[-1]
    assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    assert "Health complaints rise in Riverton" in plan  # the user URL was analyzed first
    assert "Quick Search" in plan

    texts = conversation.texts(run_events)
    assert texts[0].startswith("[INVESTIGATION_STARTED]")
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    order = [
        first_index(texts, "[INVESTIGATION_STARTED]"),
        first_index(texts, "🔍 [PROGRESS] Searching for sources on:"),
        first_index(texts, "📄 **Analyzing source 1/"),
        first_index(texts, "📋 [PROGRESS] Extracting claims"),
        first_index(texts, "🔍 [PROGRESS] Verifying claim 1/"),
        len(texts) - 1,
    ]
    assert order == sorted(order)
    assert QUICK_SKIP in texts

    authors = authors_in_order(run_events)
    assert authors[0] == "investigation_pipeline"  # the detached run says it started
    assert authors.index("source_finder") < authors.index("claim_extractor")
    assert authors.index("claim_extractor") < min(authors.index(s) for s in STAGES[2:])
    assert authors[-1] == "summary_writer"

    # timeline_builder made no model call at all in quick mode
    assert scripted_model.calls_for("TimelineDraft") == []

    state = await conversation.state()
    for key in keys.STAGE_OUTPUT_KEYS:
        assert state[key], key
    config = state[keys.INVESTIGATION_CONFIG]
    assert (config["mode"], config["source_limit"], config["claim_limit"]) == ("quick", 15, 5)
    assert len(state[keys.CLAIM_RECORDS]) <= 5
    assert state[keys.BIAS_RECORD]["per_source"] == []  # overall only in quick mode

    saved = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert saved is not None
    assert saved["mode"] == "quick"
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    assert saved["status"] == "completed" and saved["partial_reason"] is None
    assert saved["summary"].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    source_ids = {s["id"] for s in saved["sources"]}
    assert len(source_ids) == len(state[keys.SOURCE_RECORDS])
    assert any(s["is_user_provided"] for s in saved["sources"])
    assert saved["claims"] and all(set(c["source_ids"]) <= source_ids for c in saved["claims"])
    assert all(c["source_ids"] for c in saved["claims"])
    claim_ids = {c["id"] for c in saved["claims"]}
    assert {f["claim_id"] for f in saved["fact_checks"]} == claim_ids
    assert saved["bias"] is not None and saved["timeline"] == []

    # Every date says who states it. A page that states none has none, although Jina Reader
    # gave it a Published Time (its server's Last-Modified: the day it was read).
    dated = {s["url"]: (s["published_at"], s["published_at_source"]) for s in saved["sources"]}
    by_page = {normalize_url(a.url): a for a in RIVERTON}
    assert set(by_page) <= set(dated)
    for url, article in by_page.items():
        assert dated[url] == (
            (article.published, "metadata") if article.published else (None, None)
        )
    evidence = [e for f in saved["fact_checks"] for e in f["evidence"]]
    assert evidence and all(e["published_at_source"] for e in evidence if e["published_at"])
    assert all(
        e["published_at"] is None
        for e in evidence
        if e["url"] in {u for u, a in by_page.items() if not a.published}
    )


QUICK_SKIP = "[TIMELINE_SKIPPED] Quick Search mode - timeline construction disabled."


async def test_detailed_investigation_builds_timeline_and_per_source_bias(env):
    conversation, _, run_events = await run_investigation(BRIEF)
    texts = conversation.texts(run_events)
    assert QUICK_SKIP not in texts
    assert (await conversation.state())[keys.INVESTIGATION_STATUS] == "completed"
    assert any("📅 [PROGRESS] Constructing timeline" in t for t in texts)
    assert texts[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")

    state = await conversation.state()
    assert state[keys.INVESTIGATION_CONFIG]["claim_limit"] is None
    assert len(scripted_model.calls_for("TimelineDraft")) == 1
    events = state[keys.TIMELINE_RECORDS]
    assert events and [e["event_date"] for e in events] == sorted(e["event_date"] for e in events)
    assert state[keys.BIAS_RECORD]["per_source"]

    saved = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert len(saved["timeline"]) == len(events)
    source_ids = {s["id"] for s in saved["sources"]}
    assert all(set(e["source_ids"]) <= source_ids and e["source_ids"] for e in saved["timeline"])
    assert {p["source_id"] for p in saved["bias"]["per_source"]} <= source_ids


async def test_report_citations_resolve_to_saved_sources(env):
    env.set(VICARAN_PRO_MODEL="scripted/bad-citations")
    conversation, _, run_events = await run_investigation(BRIEF)
    report = conversation.texts(run_events)[-1]
    assert "[42]" not in report and "[99]" not in report
    state = await conversation.state()
    # reports link the address as found (display_url), not the normalized identity
    saved_urls = {s["display_url"]: s for s in state[keys.SOURCE_RECORDS] if s["source_id"]}
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", report.split("## Sources")[0])}
    assert numbers
    listed = re.findall(r"^- \[(\d+)\] .* — <(\S+)>", report.split("## Sources")[1], re.M)
    assert {int(n) for n, _ in listed} == numbers
    assert all(url in saved_urls for _, url in listed)
    assert any(url.startswith("https://www.") for _, url in listed)  # not rewritten
    # the invented citation was dropped and said so in the report; one such item is not `partial`
    notes = report.split("## Notes")[1]
    assert "1 citation pointing to no saved source was removed" in notes
    assert state[keys.INVESTIGATION_STATUS] == "completed", state[keys.PARTIAL_REASON]
    for verdict in state[keys.VERDICT_RECORDS]:
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", verdict["explanation"])}
        assert cited <= set(range(1, len(verdict["evidence"]) + 1))


async def test_portuguese_brief_gets_portuguese_plan_progress_and_report(env):
    conversation, plan_events, run_events = await run_investigation(
        "Busca rápida. Investigue se a Prefeitura de Maceió assinou o contrato da merenda "
        "escolar sem licitação."
    )
    plan = conversation.texts(plan_events)[-1]
    assert "Plano de Investigação" in plan and "Busca Rápida" in plan
    assert plan.rstrip().endswith("[PLAN_APPROVAL_REQUIRED]")
    texts = conversation.texts(run_events)
    assert texts[0].startswith("[INVESTIGATION_STARTED]\n\nIniciando a investigação")
    assert any(t.startswith('🔍 [PROGRESS] Buscando fontes sobre: "') for t in texts)
    assert any("**Analisando fonte 1/" in t for t in texts)
    assert any("🔍 [PROGRESS] Verificando alegação 1/" in t for t in texts)
    report = texts[-1]
    assert "Resumo da Investigação" in report and "## Fontes" in report
    assert report.rstrip().endswith("[INVESTIGATION_COMPLETE]")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_LANGUAGE] == "Brazilian Portuguese"
    assert state[keys.INVESTIGATION_CONFIG]["language"] == "pt-BR"
    assert state[keys.FACT_CHECK_RESULTS].startswith("**Checagem concluída**")
    assert "Pontuação geral" in state[keys.BIAS_ANALYSIS]
    assert "Fontes:" in state[keys.EXTRACTED_CLAIMS]


async def test_source_limit_is_respected_and_no_prompt_carries_raw_pages(env):
    from tests.support.corpus import Article, pages, search_results

    many = [
        Article(
            f"https://news{i}.example.com/riverton-acme-{i}",
            f"Riverton report {i}",
            f"Report {i}: Acme Chemicals exceeded federal lead limits in Riverton in 2024, "
            f"officials said on 2025-01-{i % 28 + 1:02d}. " + "Background paragraph. " * 200,
        )
        for i in range(40)
    ]

    def results(query: str, body: dict) -> list:
        # each query finds a different slice, as real searches do
        start = 10 if "official records" in query else 20 if "response" in query else 0
        return search_results(many[start:])

    env.services.tavily.overrides = results
    env.services.jina.pages.update(pages(many))
    conversation, _, _ = await run_investigation("Quick Search. " + BRIEF)
    state = await conversation.state()
    assert len(state[keys.SOURCE_RECORDS]) == 15  # quick mode, the user's source included
    assert state[keys.SOURCE_RECORDS][0]["is_user_provided"]
    largest = max(c["chars"] for c in scripted_model.CALLS)
    assert largest < 40_000
    assert all(c["chars"] < 12_000 for c in scripted_model.calls_for("SourceDigest"))


async def test_unreadable_user_url_is_shown_in_the_plan(env):
    url = "https://blocked.example.org/story"
    env.services.jina.fail(url, 451)
    conversation = Conversation()
    plan = conversation.texts(await conversation.send(f"{BRIEF} {url}"))[-1]
    assert f"⚠️ {url}: could not be read (the site could not be found" in plan
    assert "451" not in plan  # Reader's answer is a detail of the record, not the plan's words
    (source,) = [s for s in (await conversation.state())[keys.USER_SOURCES] if s["url"] == url]
    assert "451" in source["unreachable_detail"]


async def test_prompts_stay_bounded_with_sixty_sources(env):
    """Sources are digested one by one and the stages over all sources ask in batches."""
    from tests.support.corpus import Article, pages, search_results

    many = [
        Article(
            f"https://news{i}.example.com/riverton-acme-{i}",
            f"Riverton report {i}",
            f"Report {i}: Acme Chemicals exceeded federal lead limits in Riverton in 2024, "
            f"officials said on 2025-01-{i % 28 + 1:02d}. " + "Background paragraph. " * 100,
        )
        for i in range(80)
    ]

    def results(query: str, body: dict) -> list:
        start = 20 if "official records" in query else 40 if "response" in query else 0
        return search_results(many[start:])

    env.services.tavily.overrides = results
    env.services.jina.pages.update(pages(many))
    env.set(VICARAN_SOURCE_LIMIT="60")
    conversation, _, _ = await run_investigation(BRIEF)
    state = await conversation.state()
    assert len(state[keys.SOURCE_RECORDS]) == 60
    assert len(scripted_model.calls_for("ClaimDraft")) == 4  # 60 sources, 15 a prompt
    assert len(scripted_model.calls_for("BiasJudgement")) == 4
    assert max(c["chars"] for c in scripted_model.CALLS) < 40_000
