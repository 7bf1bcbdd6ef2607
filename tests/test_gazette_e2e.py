"""A Portuguese brief about a city's acts, end to end with the scripted model and the Querido
Diário fake: the plan says gazettes will be searched, the claim is checked in them, the gazettes
read are saved as sources and the report cites them."""

from __future__ import annotations

from tests.support import scripted_model
from tests.support.conversation import Conversation
from tests.support.gazettes import SCENARIOS
from tests.support.records import as_json
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.storage import get_repository

PA = SCENARIOS["porto_alegre_flood"]
BRIEF = (
    "Busca Rápida. A Prefeitura de Porto Alegre firmou contratos emergenciais com empresas "
    "privadas para limpeza urbana após as enchentes de maio de 2024."
)


async def test_a_claim_about_a_city_is_checked_in_its_gazettes_and_the_report_cites_them(env):
    env.set(VICARAN_FETCH_ALLOW_PRIVATE="true")  # the fake serves the texts on loopback
    env.services.tavily.overrides = lambda query, body: []
    conversation = Conversation()
    plan = conversation.texts(await conversation.send(BRIEF))[-1]
    assert "Diários oficiais (Querido Diário)" in plan
    run = await conversation.send("APPROVED")
    state = await conversation.state()
    assert state[keys.INVESTIGATION_STATUS] in ("completed", "partial"), state[keys.PARTIAL_REASON]

    (claim,) = [c for c in state[keys.CLAIM_RECORDS] if c["origin"] == "brief"]
    assert claim["city"] == "Porto Alegre"
    verdict = next(v for v in state[keys.VERDICT_RECORDS] if v["claim_key"] == claim["key"])
    acts = [e for e in verdict["evidence"] if e["origin"] == "gazette"]
    assert acts and all(e["territory_id"] == PA.territory_id for e in acts)
    assert all(e["published_at"] and e["published_at_source"] == "gazette" for e in acts)
    assert verdict["verdict"] == "verified", verdict["explanation"]
    assert any("Porto Alegre/RS (IBGE 4314902)" in line for line in verdict["reasoning"])

    # The gazettes read are saved sources; the report cites one and links where it was published.
    gazettes = [s for s in state[keys.SOURCE_RECORDS] if s["origin"] == "gazette"]
    assert gazettes and all(s["source_id"] for s in gazettes)
    assert all(s["gazette_date"] and s["txt_url"] for s in gazettes)
    assert all(
        (s["published_at"], s["published_at_source"]) == (s["gazette_date"], "gazette")
        for s in gazettes
    )
    saved = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    assert {s["url"] for s in saved["sources"]} >= {s["url"] for s in gazettes}
    (stored,) = [c for c in saved["claims"] if c["key"] == claim["key"]]
    assert (stored["city"], stored["period_start"]) == ("Porto Alegre", "2024")
    numbers = [i for i, s in enumerate(state[keys.SOURCE_RECORDS], 1) if s["origin"] == "gazette"]
    # the report is written from them: the claim's finding rests on a gazette's number
    (draft,) = scripted_model.calls_for("ReportDraft")[:1]
    finding = next(line for line in draft["prompt"].splitlines() if "verdict: verified" in line)
    assert any(f"[{n}]" in finding for n in numbers), finding
    assert "Diário Oficial de Porto Alegre" in draft["prompt"]
    # every gazette search and read was a progress line
    texts = " ".join(conversation.texts(run))
    assert "Busca exata" in texts and "Lido: Diário Oficial de Porto Alegre" in texts
