"""Live smoke tests against real Gemini, Tavily and Jina Reader: `make test-live`.

Skipped unless GOOGLE_API_KEY (or Vertex settings) is set, in the environment or in the
project's .env; the searches need TAVILY_API_KEY too. The literal-model scenario's briefs run on
Gemini over the story served by the fakes (no search key needed) and print, per task, how many
answers validated, how many were cut off and the tokens used.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dotenv import dotenv_values

from tests.conftest import Services
from tests.fakes.tavily import DEFAULT_API_KEY as FAKE_TAVILY_KEY
from tests.support.call_log import CallLog
from tests.support.conversation import Conversation
from tests.support.literal_story import BRIEFS, investigate, serve
from vicaran_agent import state_keys as keys
from vicaran_agent.clients import safety
from vicaran_agent.clients.web_search import WebSearch
from vicaran_agent.config import forget_settings, get_settings
from vicaran_agent.llm import ModelClient
from vicaran_agent.model_outputs import SearchPlan

ROOT = Path(__file__).resolve().parent.parent
_FILE = (
    {k: v for k, v in dotenv_values(ROOT / ".env").items() if v} if (ROOT / ".env").exists() else {}
)


def _value(name: str) -> str:
    return os.environ.get(name) or _FILE.get(name, "")


GEMINI = bool(_value("GOOGLE_API_KEY") or _value("GOOGLE_CLOUD_PROJECT"))
needs_gemini = pytest.mark.skipif(
    not GEMINI, reason="live tests need GOOGLE_API_KEY (or Vertex settings)"
)
needs_search = pytest.mark.skipif(
    not (GEMINI and _value("TAVILY_API_KEY")),
    reason="live tests need GOOGLE_API_KEY (or Vertex settings) and TAVILY_API_KEY",
)
pytestmark = [pytest.mark.live, pytest.mark.timeout(900), needs_gemini]


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    for name, value in _FILE.items():
        if not os.environ.get(name):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("VICARAN_DATABASE_URL", f"sqlite:///{tmp_path / 'live.db'}")
    forget_settings()
    yield get_settings()
    forget_settings()


async def test_gemini_answers_a_structured_call(live):
    plan = await ModelClient(live.vicaran_fast_model, live).generate(
        instruction="Write web search queries for a journalist.",
        prompt="Did the EPA fine a chemical company for lead pollution in 2024?",
        schema=SearchPlan,
    )
    assert plan.queries and all(len(q) <= 400 for q in plan.queries)


@needs_search
async def test_tavily_search_returns_results(live):
    outcome = await WebSearch(live).search_many(
        ["EPA enforcement lead discharge 2024"], max_results=5
    )
    assert outcome.failures == [] and outcome.hits


@needs_search
async def test_quick_investigation_end_to_end(live):
    conversation = Conversation()
    plan = conversation.texts(
        await conversation.send(
            "Quick Search. Did the EPA fine any company for PFAS pollution in 2024?"
        )
    )[-1]
    assert "[PLAN_APPROVAL_REQUIRED]" in plan
    report = conversation.texts(await conversation.send("APPROVED"))[-1]
    assert report.rstrip().endswith("[INVESTIGATION_COMPLETE]")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] in ("completed", "partial")
    assert state[keys.SOURCE_RECORDS]


@pytest.fixture
def story_on_gemini(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, services: Services
) -> Services:
    """Gemini (the configured models) reading the literal scenario's story from the fakes."""
    for name, value in _FILE.items():
        if not os.environ.get(name):
            monkeypatch.setenv(name, value)
    serve(services)
    values = {
        "VICARAN_DATABASE_URL": f"sqlite:///{tmp_path / 'story.db'}",
        "TAVILY_API_KEY": FAKE_TAVILY_KEY,
        "TAVILY_BASE_URL": services.tavily.url,
        "JINA_READER_BASE_URL": services.jina.url,
        "JINA_API_KEY": "",
        "FACTCHECK_API_KEY": "",
        "QUERIDO_DIARIO_BASE_URL": services.querido_diario.url,
        "VICARAN_LIVE_SEARCH_FALLBACK": "false",
        "CALLBACK_API_URL": "",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)

    async def offline(host: str, port: int) -> set:  # the story is only on the fakes
        raise safety.UnreachableURLError(f"{host} is not part of the story")

    monkeypatch.setattr(safety, "_resolve", offline)
    forget_settings()
    yield services
    forget_settings()


@pytest.mark.parametrize("language", list(BRIEFS))
async def test_the_literal_scenarios_briefs_on_gemini(
    story_on_gemini: Services, language: str, capsys: pytest.CaptureFixture[str]
):
    """The literal-model scenario's briefs (tests/test_literal_scenario.py) against Gemini, the
    web being the story: per task, how many answers validated and the tokens they used."""
    log = CallLog()
    state, report = await investigate(BRIEFS[language], log)
    with capsys.disabled():
        settings = get_settings()
        print(
            f"\n{language} brief on {settings.vicaran_fast_model} / {settings.vicaran_pro_model}: "
            f"{state.get(keys.INVESTIGATION_STATUS)}\n{log.table()}"
        )
        for verdict in state.get(keys.VERDICT_RECORDS) or []:
            print(f"  {verdict['verdict']:<15} {verdict['claim_text'][:100]}")
    assert report.rstrip().endswith("[INVESTIGATION_COMPLETE]")
    assert state[keys.INVESTIGATION_STATUS] in ("completed", "partial")
