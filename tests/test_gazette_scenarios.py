"""Seed 002's five golden scenarios, offline: the fact checker's gazette gatherer against the
loopback Querido Diário fake. They assert retrieval and procedure, not the model's judgement:
the right gazettes are read, their decisive acts reach the judge, scenario 2 stops after one
round, and scenario 5 tries everything and says plainly that no gazette was found."""

from __future__ import annotations

import contextlib

import pytest

from tests.support import scripted_model, wait
from tests.support.gazettes import SCENARIOS, Scenario, gazette_checker, scenario_claim
from vicaran_agent.clients.querido_diario import QueridoDiario
from vicaran_agent.config import get_settings
from vicaran_agent.factcheck.checker import ClaimChecker
from vicaran_agent.llm import ModelClient
from vicaran_agent.prompts.gazette_search import GAZETTE_JUDGE_RULES
from vicaran_agent.runtime import investigation_runtime

FOUND = ["porto_alegre_flood", "rio_medicamentos", "bh_guarda_municipal", "curitiba_enfermeiros"]


async def check(env, scenario: Scenario, cap: int = 3, asked: bool = False) -> ClaimChecker:
    # the fake serves the gazettes' texts on loopback (the real ones are on a public host)
    env.set(VICARAN_PAGES_PER_CLAIM="0", VICARAN_FETCH_ALLOW_PRIVATE="true")
    env.services.tavily.overrides = lambda query, body: []  # the gazettes alone
    scripted_model.reset_calls()
    settings = get_settings()
    model = ModelClient("scripted/default", settings)
    async with investigation_runtime(f"gazettes-{scenario.key}", settings) as runtime:
        client = QueridoDiario(settings)
        claim = scenario_claim(scenario)
        checker = gazette_checker(
            claim,
            settings=settings,
            runtime=runtime,
            model=model,
            client=client,
            cap=cap,
            asked=asked,
        )
        checker.verdict = await checker.run()  # type: ignore[attr-defined]
        await client.aclose()
    return checker


@pytest.mark.parametrize("key", FOUND)
async def test_the_decisive_gazette_is_read_and_its_act_reaches_the_judge(env, key):
    scenario = SCENARIOS[key]
    checker = await check(env, scenario)
    outcome = checker.gazette_outcome
    assert outcome is not None and outcome.found
    read = [g.gazette.txt_url or "" for g in outcome.read]
    assert len(read) <= 3
    assert any(u.endswith(scenario.decisive[0].path) for u in read), read
    prompts = "\n".join(c["prompt"] for c in scripted_model.calls_for("ClaimAssessment"))
    for mark in scenario.decisive[0].marks:
        assert mark.lower() in prompts.lower(), mark
    # every gazette read is a source the evidence can cite: official, high reliability
    assert {s.origin for s in checker.found_sources} == {"gazette"}
    assert all(s.territory_id == scenario.territory_id for s in checker.found_sources)
    gazette_items = [e for e in checker.verdict.evidence if e.origin == "gazette"]  # type: ignore[attr-defined]
    assert gazette_items and all(e.reliability == "high" for e in gazette_items)
    assert any("Querido Diário" in line or "diário" in line.lower() for line in checker.reasoning)


async def test_abundant_evidence_stops_the_search_after_the_first_round(env):
    checker = await check(env, SCENARIOS["rio_medicamentos"])
    assert checker.gazette_outcome is not None and checker.gazette_outcome.rounds == 1


async def test_no_gazette_tries_every_strategy_for_three_rounds_and_says_so(env):
    checker = await check(env, SCENARIOS["sao_paulo_alien_invasion"])
    outcome = checker.gazette_outcome
    assert outcome is not None and not outcome.found
    assert outcome.rounds == 3
    assert {s.strategy for s in outcome.searches} >= {"exact", "broad", "contextual"}
    verdict = checker.verdict  # type: ignore[attr-defined]
    assert verdict.verdict == "unverified"
    assert "Nenhum diário oficial encontrado" in verdict.explanation
    assert checker.found_sources == []


async def test_every_gazette_request_carries_the_city_period_and_size(env):
    scenario = SCENARIOS["curitiba_enfermeiros"]
    await check(env, scenario)
    searches = [r for r in env.services.querido_diario.requests if r.path == "/gazettes"]
    assert searches
    for request in searches:
        assert request.query.get("territory_ids") == [scenario.territory_id]
        assert request.query.get("size") and request.query.get("excerpt_size") == ["500"]
        assert request.query.get("number_of_excerpts") == ["3"]


async def test_a_place_that_is_no_brazilian_municipality_is_not_searched(env):
    riverton = SCENARIOS["porto_alegre_flood"]
    scenario = type(riverton)(**{**riverton.__dict__, "city": "Riverton", "state": ""})
    checker = await check(env, scenario)
    assert checker.gazette_outcome is None
    assert not [r for r in env.services.querido_diario.requests if r.path == "/gazettes"]
    # a story outside Brazil whose brief did not ask for gazettes says nothing about them
    assert not [line for line in checker.reasoning if "Querido Diário" in line]
    assert "Nenhum diário oficial encontrado" not in checker.verdict.explanation  # type: ignore[attr-defined]


async def test_a_place_querido_diario_does_not_know_is_not_searched_even_when_asked(env):
    """A brief asking for gazettes searches claims that name no city in every city's gazettes;
    a claim naming a city Querido Diário does not know (nothing close either) is not one of
    them: no search, one line saying why."""
    riverton = SCENARIOS["porto_alegre_flood"]
    scenario = type(riverton)(**{**riverton.__dict__, "city": "Riverton", "state": ""})
    checker = await check(env, scenario, asked=True)
    assert checker.gazette_outcome is None
    assert not [r for r in env.services.querido_diario.requests if r.path == "/gazettes"]
    assert not scripted_model.calls_for("GazetteSufficiency")
    said = [line for line in checker.reasoning if "Riverton" in line]
    assert len(said) == 1 and "Querido Diário" in said[0]
    assert "Nenhum diário oficial encontrado" not in checker.verdict.explanation  # type: ignore[attr-defined]


@pytest.mark.parametrize("city", ["Porto Alegre", ""])
async def test_the_judge_gets_the_gazette_rules_only_with_gazette_items(env, city):
    """1,400 characters of rules on acts and their dates: for a claim whose evidence holds
    acts from gazettes, not for every claim."""
    flood = SCENARIOS["porto_alegre_flood"]
    await check(env, type(flood)(**{**flood.__dict__, "city": city}))
    judged = scripted_model.calls_for("ClaimAssessment")
    assert judged
    for call in judged:
        gazette_items = "official gazette (municipal record)" in call["prompt"]
        assert (GAZETTE_JUDGE_RULES in call["instruction"]) is gazette_items
        assert gazette_items is bool(city)


async def test_a_claim_naming_no_city_is_searched_only_when_the_brief_asks_for_gazettes(env):
    flood = SCENARIOS["porto_alegre_flood"]
    nowhere = type(flood)(**{**flood.__dict__, "city": "", "state": ""})
    for asked in (False, True):
        env.services.querido_diario.reset_log()
        checker = await check(env, nowhere, asked=asked)
        searched = [r for r in env.services.querido_diario.requests if r.path == "/gazettes"]
        assert bool(searched) is asked
        assert (checker.gazette_outcome is not None) is asked


async def test_a_gazette_search_that_breaks_leaves_the_claim_checked_with_a_note(env, monkeypatch):
    from vicaran_agent.gazettes.loop import GazetteSearchLoop

    async def broken(self, claim):
        raise RuntimeError("index unavailable")

    monkeypatch.setattr(GazetteSearchLoop, "run", broken)
    checker = await check(env, SCENARIOS["curitiba_enfermeiros"])
    assert checker.verdict.verdict == "unverified"  # type: ignore[attr-defined]
    assert any("index unavailable" in note for note in checker.notes)


async def test_a_cold_first_query_longer_than_a_web_gatherer_still_finds_the_act(env):
    """The production API takes 20-36 s on a term's first query while a web gatherer gets 30 s:
    the gazettes have their own budget (VICARAN_GAZETTE_TIMEOUT_SECONDS). Scaled down: 0.25 s
    gatherers, a 1.2 s cold query, 8 s for the gazettes."""
    env.services.querido_diario.cold_seconds = 1.2
    env.set(
        VICARAN_GATHER_TIMEOUT_SECONDS="0.25",
        VICARAN_GAZETTE_TIMEOUT_SECONDS="8",
        VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS="3",
    )
    checker = await check(env, SCENARIOS["porto_alegre_flood"])

    assert checker.gazette_outcome is not None and checker.gazette_outcome.found
    assert env.services.querido_diario.cold  # its searches were cold ones
    assert not any("diários oficiais" in note for note in checker.notes)


async def test_the_gazette_gatherer_is_still_bounded_by_its_own_budget(env):
    env.services.querido_diario.fail("hang", path="/gazettes")
    env.set(VICARAN_GAZETTE_TIMEOUT_SECONDS="0.5", VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS="0.4")
    checker = await check(env, SCENARIOS["curitiba_enfermeiros"])

    assert checker.verdict.verdict == "unverified"  # type: ignore[attr-defined]
    assert "diários oficiais não respondeu em 0.5 s" in checker.notes


async def test_a_claims_gazettes_are_searched_beside_its_web_searches(env):
    """Issue 27: the gazette gatherer goes out with the fact-check lookup and the web searches,
    not before or after them. Each side is held until the other has begun (1.5 s at most,
    within the search timeout): run one after the other, their requests would not overlap."""
    tavily, diario = env.services.tavily, env.services.querido_diario

    def held_until(fake, begun, what: str, only=lambda request: True) -> None:
        answer = fake.handle

        def handle(request):
            if only(request):
                with contextlib.suppress(wait.NotInTime):
                    wait.until_sync(lambda: bool(begun.requests), what, 1.5)
            return answer(request)

        fake.handle = handle

    held_until(tavily, diario, "a Querido Diário request")
    held_until(diario, tavily, "a web search", only=lambda r: r.path == "/gazettes")
    checker = await check(env, SCENARIOS["porto_alegre_flood"])
    assert checker.gazette_outcome is not None and checker.gazette_outcome.found
    web, gazettes = list(tavily.requests), list(diario.requests)
    assert web and gazettes
    assert min(r.started for r in gazettes) < max(r.ended for r in web)
    assert min(r.started for r in web) < max(r.ended for r in gazettes)
