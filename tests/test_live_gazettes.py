"""Live: seed 002's five golden scenarios against the real Querido Diário API and a real Gemini.

Skipped unless GOOGLE_API_KEY (or Vertex settings) is set; Querido Diário needs no key. The
seed's bar: at least 3 of scenarios 1-4 classified right, and scenario 5 unverifiable. Prints the
classification of each.
"""

from __future__ import annotations

import pytest

from tests.support.gazettes import SCENARIOS, gazette_checker, scenario_claim
from tests.test_live import _value, live  # noqa: F401 - the fixture
from vicaran_agent.clients.querido_diario import QueridoDiario
from vicaran_agent.llm import ModelClient
from vicaran_agent.runtime import investigation_runtime

pytestmark = [
    pytest.mark.live,
    pytest.mark.real_rate_limits,  # the real API counts: 25 a minute, burst 50
    pytest.mark.timeout(1800),
    pytest.mark.skipif(
        not (_value("GOOGLE_API_KEY") or _value("GOOGLE_CLOUD_PROJECT")),
        reason="live gazette tests need GOOGLE_API_KEY (or Vertex settings)",
    ),
]


async def test_the_five_golden_scenarios_against_the_real_api(live, monkeypatch):  # noqa: F811
    monkeypatch.delenv("QUERIDO_DIARIO_BASE_URL", raising=False)
    model = ModelClient(live.vicaran_pro_model, live)
    results: dict[str, str] = {}
    async with investigation_runtime("live-gazettes", live) as runtime:
        client = QueridoDiario(live)
        for scenario in SCENARIOS.values():
            claim = scenario_claim(scenario)
            checker = gazette_checker(
                claim, settings=live, runtime=runtime, model=model, client=client
            )
            verdict = await checker.run()
            results[scenario.key] = verdict.verdict
            print(
                f"{scenario.number}. {scenario.key}: {verdict.verdict} (seed: {scenario.classification})"
            )
        await client.aclose()
    right = [
        k for k, v in results.items() if v in SCENARIOS[k].verdicts and SCENARIOS[k].number < 5
    ]
    assert len(right) >= 3, results
    assert results["sao_paulo_alien_invasion"] == "unverified", results
