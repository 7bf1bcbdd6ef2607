"""Live smoke tests against real Gemini, Tavily and Jina Reader: `make test-live`.

Skipped unless GOOGLE_API_KEY (or Vertex settings) and TAVILY_API_KEY are set, in the
environment or in the project's .env.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dotenv import dotenv_values

from tests.support.conversation import Conversation
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.llm import ModelClient
from vicaran_agent.schemas import SearchPlan
from vicaran_agent.tools.web_search import WebSearch

ROOT = Path(__file__).resolve().parent.parent
_FILE = (
    {k: v for k, v in dotenv_values(ROOT / ".env").items() if v} if (ROOT / ".env").exists() else {}
)


def _value(name: str) -> str:
    return os.environ.get(name) or _FILE.get(name, "")


pytestmark = [
    pytest.mark.live,
    pytest.mark.timeout(900),
    pytest.mark.skipif(
        not (
            (_value("GOOGLE_API_KEY") or _value("GOOGLE_CLOUD_PROJECT"))
            and _value("TAVILY_API_KEY")
        ),
        reason="live tests need GOOGLE_API_KEY (or Vertex settings) and TAVILY_API_KEY",
    ),
]


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    for name, value in _FILE.items():
        if not os.environ.get(name):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("VICARAN_DATABASE_URL", f"sqlite:///{tmp_path / 'live.db'}")
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


async def test_gemini_answers_a_structured_call(live):
    plan = await ModelClient(live.vicaran_fast_model, live).generate(
        instruction="Write web search queries for a journalist.",
        prompt="Did the EPA fine a chemical company for lead pollution in 2024?",
        schema=SearchPlan,
    )
    assert plan.queries and all(len(q) <= 400 for q in plan.queries)


async def test_tavily_search_returns_results(live):
    outcome = await WebSearch(live).search_many(
        ["EPA enforcement lead discharge 2024"], max_results=5
    )
    assert outcome.failures == [] and outcome.hits


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
