"""What the judge is told (issue 26): one definition and one example per label, consistent with
the published ratings Vicaran maps; quotes copied in the evidence's language, whatever the
journalist's."""

from __future__ import annotations

import re

import pytest

from tests.support.literal_model import LiteralModel
from vicaran_agent.clients.fact_check_ratings import map_rating
from vicaran_agent.factcheck.pool import Candidate, EvidencePool, OwnSources
from vicaran_agent.model_outputs import ClaimAssessment
from vicaran_agent.prompts.fact_checker import FACT_CHECKER_INSTRUCTION
from vicaran_agent.prompts.gazette_search import GAZETTE_READING_INSTRUCTION, rendered
from vicaran_agent.schemas import Claim, Source
from vicaran_agent.textmatch import quote_problem

LABELS = ("verified", "partially_true", "misleading", "false", "unverified")


def definitions() -> dict[str, str]:
    """Each label's line in the judge's instruction ("- `label` (Ratings): ... E.g. ...")."""
    lines = re.findall(r"^   - `(\w+)`(.*(?:\n     .*)*)", FACT_CHECKER_INSTRUCTION, re.M)
    found: dict[str, str] = {}
    for label, text in lines:
        assert label not in found, f"{label} is defined twice"
        found[label] = " ".join(text.split())
    return found


def test_every_label_has_one_definition_and_one_example():
    found = definitions()
    assert sorted(found) == sorted(LABELS)
    for label, text in found.items():
        assert text.count("E.g.") == 1, label


@pytest.mark.parametrize("label", LABELS)
def test_the_ratings_named_beside_a_label_map_to_it(label: str):
    named = re.match(r"\s*\(([^)]*)\)", definitions()[label])
    ratings = [r.strip() for r in named.group(1).split(",")] if named else []
    assert ratings or label == "unverified"
    for rating in ratings:
        assert map_rating(rating) == label, rating


def test_a_wrong_detail_and_a_false_impression_are_told_apart():
    found = definitions()
    assert "the point is right, a detail is wrong" in found["partially_true"]
    assert "the point is wrong" in found["misleading"]
    assert "details are accurate" in found["misleading"]


def portuguese(instruction: str) -> str:
    return instruction.replace("{investigation_language}", "Brazilian Portuguese").replace(
        "{investigation_config}", "{'language': 'pt-BR'}"
    )


@pytest.mark.parametrize(
    "instruction",
    [portuguese(FACT_CHECKER_INSTRUCTION), rendered(GAZETTE_READING_INSTRUCTION, "pt-BR")],
)
def test_where_quotes_are_asked_they_stay_in_the_evidence_language(instruction: str):
    assert "Write every sentence for the journalist in Brazilian Portuguese" in instruction
    assert "never translated" in instruction


TEXT = (
    "The Environmental Protection Agency (EPA) found that Halvorsen Chemical exceeded its "
    "permitted lead discharge limits by 312% at its Millbrook plant in the fourth quarter of 2024."
)


def test_a_literal_judge_told_to_write_in_portuguese_keeps_the_english_quote():
    page = Source(
        url="https://www.epa.gov/notice", title="Notice", domain="epa.gov", credibility_score=5
    )
    claim = Claim(
        key="C1",
        claim_text="A EPA concluiu que a Halvorsen Chemical excedeu seus limites em 312% em 2024",
        importance=0.9,
        kind="attribution",
        attributed_to="Environmental Protection Agency (EPA)",
    )
    pool = EvidencePool()
    pool.add(Candidate.from_source(page, TEXT, claim.claim_text))
    pool.mark_independence(OwnSources.of([(page, TEXT)], claim))
    answer = LiteralModel(model="literal/x")._ClaimAssessment(
        portuguese(FACT_CHECKER_INSTRUCTION), pool.prompt(claim, [])
    )
    (item,) = pool.evidence(ClaimAssessment.model_validate(answer))
    assert item.stance == "supports" and not item.stance_note
    assert quote_problem(item.quote, TEXT) is None


def test_a_literal_judge_does_not_take_a_report_of_the_partys_word_for_the_fact():
    report = (
        "Halvorsen Chemical exceeded its permitted lead discharge limits by 312% in 2024, "
        "according to the Environmental Protection Agency (EPA)."
    )
    page = Source(
        url="https://apnews.com/halvorsen", title="AP", domain="apnews.com", credibility_score=5
    )
    fact = Claim(
        key="C1",
        claim_text="Halvorsen Chemical exceeded its lead discharge limits by 312% in 2024",
        importance=0.9,
        attributed_to="Environmental Protection Agency (EPA)",
    )
    pool = EvidencePool()
    pool.add(Candidate.from_source(page, report, fact.claim_text))
    pool.mark_independence(OwnSources.of([], fact))
    answer = LiteralModel(model="literal/x")._ClaimAssessment(
        FACT_CHECKER_INSTRUCTION, pool.prompt(fact, [])
    )
    (item,) = pool.evidence(ClaimAssessment.model_validate(answer))
    assert item.independent and item.stance == "context"
    assert answer["verdict"] == "unverified"
