"""Every model call goes through ADK's model-call path: plugins, callbacks, spans, tokens."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins import BasePlugin
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.fakes.jina import Page
from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.records import as_json
from tests.test_flow import BRIEF
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.storage import get_repository

STAGES = ("source_finder", "claim_extractor", "fact_checker", "bias_analyzer", "summary_writer")
ROOT = "investigation_orchestrator"


class CountingPlugin(BasePlugin):
    """Counts the model calls it sees, by agent name, and the errors."""

    def __init__(self) -> None:
        super().__init__(name="counting")
        self.before: list[str] = []
        self.after: list[tuple[str, Any]] = []
        self.errors: list[str] = []

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        self.before.append(callback_context.agent_name)
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        self.after.append((callback_context.agent_name, llm_response.usage_metadata))
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        self.errors.append(callback_context.agent_name)
        return None


@pytest.fixture
def spans() -> InMemorySpanExporter:
    """ADK's spans, kept in memory, wherever ADK's tracer sends them now (a server run in this
    process earlier may have set, and put back, the global provider ADK's tracer resolved to)."""
    from google.adk.telemetry import tracing

    processor = SimpleSpanProcessor(exporter := InMemorySpanExporter())
    tracer = tracing.tracer
    if isinstance(tracer, trace.ProxyTracer):
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            trace._TRACER_PROVIDER_SET_ONCE._done = False  # (put back unset by such a server)
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
        tracer._real_tracer = None  # resolved again, to the provider in place now
        provider.add_span_processor(processor)
    else:  # an SDK tracer: its provider's processors
        tracer._active_span_processor.add_span_processor(processor)
    return exporter


def stage_of(agent_name: str) -> str:
    return agent_name.split("__", 1)[0]


async def quick_run(plugin: BasePlugin) -> tuple[Conversation, list]:
    conversation = Conversation(plugins=[plugin])
    await conversation.send("Quick Search. " + BRIEF)
    events = await conversation.send("APPROVED")
    assert conversation.texts(events)[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    return conversation, events


async def test_a_plugin_sees_every_model_call_with_its_stage_name(env):
    plugin = CountingPlugin()
    await quick_run(plugin)

    # Every call the model received went through the plugin, before and after (the
    # orchestrator's own callback answers some turns by itself: the plugin sees those too).
    stage_calls = [n for n in plugin.before if n != ROOT]
    model_calls = [c for c in scripted_model.CALLS if c["task"] != "orchestrator"]
    assert len(stage_calls) == len(model_calls) > 15
    assert plugin.before.count(ROOT) >= len(scripted_model.calls_for("orchestrator")) > 0
    assert len(plugin.after) == len(scripted_model.CALLS)
    seen = {stage_of(name) for name in plugin.before}
    assert seen == {ROOT, *STAGES}
    # A stage's calls are labelled with the stage and what the call is for.
    assert "fact_checker__judge" in plugin.before
    assert "source_finder__digest" in plugin.before
    assert "summary_writer__draft" in plugin.before
    assert f"{ROOT}__digest" in plugin.before  # analyze_source, before the plan
    # Every answer carried its token usage.
    assert all(usage is not None and usage.prompt_token_count for _, usage in plugin.after)


async def test_model_errors_reach_the_plugin_under_the_stage_name(env):
    env.set(VICARAN_PRO_MODEL="scripted/error-ClaimAssessment")
    plugin = CountingPlugin()
    await quick_run(plugin)
    assert plugin.errors
    assert set(plugin.errors) == {"fact_checker__judge"}


async def test_a_stage_callback_runs_for_its_calls_and_can_answer_for_the_model(env, monkeypatch):
    """A stage's own before_model_callback runs (as an LlmAgent's would) and may short-circuit."""
    from vicaran_agent.sub_agents import pipeline

    asked: list[str] = []

    def before(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        asked.append(callback_context.agent_name)

    original = pipeline.build_pipeline

    def with_callback(settings):  # type: ignore[no-untyped-def]
        tree = original(settings)
        analysis = next(a for a in tree.sub_agents if a.name == "parallel_analysis")
        bias = next(a for a in analysis.sub_agents if a.name == "bias_analyzer")
        bias.before_model_callback = before
        return tree

    monkeypatch.setattr(pipeline, "build_pipeline", with_callback)
    import vicaran_agent.agent as agent_module

    monkeypatch.setattr(agent_module, "build_pipeline", with_callback, raising=False)
    await quick_run(CountingPlugin())
    assert asked and set(asked) == {"bias_analyzer__judge"}


async def test_every_model_call_has_a_span_with_token_usage(env, spans):
    spans.clear()
    await quick_run(CountingPlugin())
    calls = [s for s in spans.get_finished_spans() if s.name.startswith("generate_content")]
    assert len(calls) == len(scripted_model.CALLS)
    for span in calls:
        attributes = dict(span.attributes or {})
        assert attributes.get("gen_ai.usage.input_tokens"), span.name
        assert attributes.get("gen_ai.usage.output_tokens"), span.name
    names = {dict(s.attributes or {}).get("gen_ai.agent.name") for s in calls}
    assert {"fact_checker__judge", "summary_writer__draft"} <= names
    # The stage calls sit in the APPROVED turn's trace, under their stage's agent span.
    by_id = {s.context.span_id: s for s in spans.get_finished_spans()}
    for span in calls:
        agent = str(dict(span.attributes or {}).get("gen_ai.agent.name"))
        parent = by_id[span.parent.span_id] if span.parent else None
        assert parent is not None, agent
        stage = stage_of(agent)
        if stage != ROOT:
            assert parent.name == f"invoke_agent {stage}", (agent, parent.name)


async def test_tokens_are_saved_per_stage_and_shown(env):
    conversation, _ = await quick_run(CountingPlugin())
    state = await conversation.state()
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert record is not None
    tokens = record["tokens"]
    pipeline_calls = [c for c in scripted_model.CALLS if c["task"] != "orchestrator"]
    assert tokens["input"] > 0 and tokens["output"] > 0
    assert set(tokens["per_stage"]) >= {"source_finder", "fact_checker", "summary_writer"}
    assert sum(s["input"] for s in tokens["per_stage"].values()) == tokens["input"]
    assert len(pipeline_calls) > 10
    report = state[keys.INVESTIGATION_SUMMARY]
    assert f"{tokens['input']:,} tokens in" in report


async def test_the_model_use_is_every_call_from_the_first_message_the_plan_included(env):
    """The plan, the digest of the journalist's page and every stage: the tokens shown are the
    sum of what each response reported; the planning turn is its own stage."""
    env.services.jina.pages[PAGE_URL] = Page("Dam contract", "The council signed it. " * 40)
    conversation = Conversation()
    await conversation.send(f"Quick Search. {BRIEF} See {PAGE_URL}")
    planning = [c for c in scripted_model.CALLS if "billed" in c]
    assert {c["task"] for c in planning} >= {"orchestrator", "SourceDigest"}
    events = await conversation.send("APPROVED")
    assert conversation.texts(events)[-1].rstrip().endswith("[INVESTIGATION_COMPLETE]")
    tokens = (await conversation.state())[keys.TOKEN_USAGE]
    billed = [c["billed"] for c in scripted_model.CALLS if "billed" in c]
    assert tokens["input"] == sum(b["input"] for b in billed)
    assert tokens["output"] == sum(b["output"] for b in billed)
    plan = tokens["per_stage"]["investigation_orchestrator"]
    assert plan["input"] == sum(c["billed"]["input"] for c in planning)


PAGE_URL = "https://news.example.com/dam-contract"


def gathering_calls() -> int:
    return sum(1 for c in scripted_model.CALLS if c["task"] not in REPORT_TASKS | {"orchestrator"})


REPORT_TASKS = {"ReportDraft", "CitationAudit", "QualityReview"}


async def test_a_spent_token_budget_stops_gathering_and_the_report_is_still_written(env):
    conversation, _ = await quick_run(CountingPlugin())
    state = await conversation.state()
    unbounded = state[keys.TOKEN_USAGE]
    calls = gathering_calls()
    gathered = sum(
        s["input"] + s["output"]
        for name, s in unbounded["per_stage"].items()
        if name != "summary_writer"
    )

    scripted_model.reset_calls()
    env.set(VICARAN_TOKEN_BUDGET=str(gathered // 2))
    conversation, _ = await quick_run(CountingPlugin())
    state = await conversation.state()
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert record is not None
    assert record["status"] == "partial"
    assert (record["partial_reason"] or "").startswith("The token budget of this investigation")
    # Gathering stopped: fewer calls than the unbounded run, and the report was still written.
    assert gathering_calls() < calls
    assert scripted_model.calls_for("ReportDraft")
    assert record["summary"] and "token budget" in record["summary"]
    assert record["tokens"]["per_stage"]["summary_writer"]["input"] > 0


async def test_the_dashboard_and_read_api_show_the_model_use(env):
    import httpx

    from vicaran_agent.server.app import build_server

    conversation, _ = await quick_run(CountingPlugin())
    investigation_id = (await conversation.state())[keys.INVESTIGATION_ID]
    transport = httpx.ASGITransport(app=build_server(with_adk=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        read = (await http.get(f"/api/investigations/{investigation_id}")).json()
        page = (await http.get(f"/investigations/{investigation_id}")).text
    tokens = read["tokens"]
    assert set(tokens) >= {"input", "output", "cached", "cost_usd", "per_stage"}
    assert set(tokens["per_stage"]["fact_checker"]) == {"input", "output", "cached", "cost_usd"}
    assert "Model use" in page
    assert f"{tokens['input']:,} tokens in" in page
    assert '<th scope="row">fact checker</th>' in page


async def test_adks_model_call_limit_counts_stage_calls_and_is_explained(env):
    """Stage calls count against the invocation's max_llm_calls, like any ADK model call."""
    env.set(ADK_MAX_LLM_CALLS="12")
    conversation = Conversation()
    await conversation.send("Quick Search. " + BRIEF)
    scripted_model.reset_calls()
    await conversation.send("APPROVED")
    state = await conversation.state()
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert record is not None
    assert record["status"] in ("partial", "failed")
    said = (record["partial_reason"] or "") + (record["error"] or "") + (record["summary"] or "")
    assert "max_llm_calls" in said
    assert 0 < len(scripted_model.CALLS) <= 12  # the APPROVED turn's calls, stages included


@pytest.mark.parametrize("length", [2_000, 200_000])
async def test_a_long_page_reaches_the_digest_cut_to_the_cap_and_says_so(env, length):
    """A page of any size costs a bounded prompt: its start, up to VICARAN_DIGEST_PAGE_CHARS,
    with a line saying how much was given; the snapshot kept for quotes is the whole page."""
    from vicaran_agent.clients.page_reader import PageResult
    from vicaran_agent.llm import ModelClient
    from vicaran_agent.runtime import TextStore
    from vicaran_agent.textmatch import sha256_text
    from vicaran_agent.tools.analyze_source import SourceAnalyzer

    env.set(VICARAN_DIGEST_PAGE_CHARS="30000")
    sentence = "The council met on 2024-05-02 and approved the water budget for Riverton. "
    text = (sentence * (length // len(sentence) + 1))[: length - 4] + " END"
    url = "https://example.com/long"

    class Pages:
        async def read(self, _: str) -> PageResult:
            return PageResult(url, True, "Council minutes", text)

    settings = get_settings()
    texts = TextStore(settings)
    analyzer = SourceAnalyzer(
        ModelClient("scripted/default", settings),
        "instruction",
        settings,
        Pages(),
        texts,  # type: ignore[arg-type]
    )
    source = (await analyzer.analyze(url)).source
    (call,) = scripted_model.calls_for("SourceDigest")
    cut = length > 30_000
    assert len(call["prompt"]) < 30_000 + 1_000 if cut else text in call["prompt"]
    assert ("END" in call["prompt"]) is not cut
    assert ("first 30,000 of its 200,000 characters" in call["prompt"]) is cut
    assert source.content_sha256 == sha256_text(text) and texts.pick([source.content_sha256])


async def test_a_transient_model_failure_is_retried_after_a_backoff_by_the_clock(env):
    from pydantic import BaseModel

    from tests.support.clock import FakeClock
    from vicaran_agent.llm import ModelClient
    from vicaran_agent.llm_models import ModelCallError

    class Answer(BaseModel):
        text: str = ""

    env.set(VICARAN_MAX_RETRIES="2")
    clock = FakeClock(autojump=True)
    client = ModelClient("scripted/error-Answer", get_settings(), clock=clock)
    with pytest.raises(ModelCallError):
        await client.generate(instruction="i", prompt="p", schema=Answer)
    assert len(scripted_model.calls_for("Answer")) == 3  # the first try and 2 retries
    first, second = clock.slept  # a backoff before each retry, growing
    assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0
