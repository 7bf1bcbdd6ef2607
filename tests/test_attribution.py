"""Primary records and attribution (DESIGN.md, "Evidence rule"): a party's own record attests what
that party said or did, even when the claim was taken from it; a news report of it does not; the
underlying fact still needs evidence from someone other than the party quoted."""

from __future__ import annotations

import pytest

from vicaran_agent.evidence import enforce_verdict, sufficient
from vicaran_agent.factcheck.parties import is_own_record, party_names
from vicaran_agent.factcheck.pool import Candidate, EvidencePool, OwnSources
from vicaran_agent.model_outputs import (
    BriefClaim,
    BriefClaims,
    ClaimAssessment,
    ClaimDraft,
    DraftClaim,
    EvidenceJudgement,
)
from vicaran_agent.schemas import Claim, ClaimKind, Evidence, Source
from vicaran_agent.sub_agents.claim_extractor import consolidate
from vicaran_agent.urls import normalize_url

NOTICE_URL = "https://www.epa.gov/enforcement/halvorsen-notice"
NOTICE = (
    "The Environmental Protection Agency (EPA) found that Halvorsen Chemical exceeded its "
    "permitted lead discharge limits by 312% at its Millbrook plant in the fourth quarter of 2024."
)
WIRE_URL = "https://www.reuters.com/business/halvorsen-lead"
WIRE = (
    "Halvorsen Chemical exceeded its permitted lead discharge limits by 312% at its Millbrook "
    "plant, according to the Environmental Protection Agency, which issued a notice of violation."
)
EPA = "Environmental Protection Agency (EPA)"
QUOTE = "exceeded its permitted lead discharge limits by 312%"


def claim(kind: ClaimKind, party: str = EPA, text: str = "Halvorsen exceeded by 312%") -> Claim:
    return Claim(key="C1", claim_text=text, importance=0.9, kind=kind, attributed_to=party)


def source(url: str, text: str, **changes: object) -> tuple[Source, str]:
    data: dict[str, object] = {
        "url": url,
        "title": "Page",
        "domain": url.split("/")[2],
        "credibility_score": 5,
        "content_summary": text[:200],
    }
    return Source.model_validate({**data, **changes}), text


def judged(pool: EvidencePool, claimed: Claim, own: list[tuple[Source, str]]):
    """The pool's evidence after independence is marked, each item judged `supports`."""
    pool.mark_independence(OwnSources.of(own, claimed))
    stances = [
        EvidenceJudgement(number=n, stance="supports", quote=QUOTE) for n in range(1, len(pool) + 1)
    ]
    assessment = ClaimAssessment(
        stances=stances, verdict="verified", confidence=0.9, explanation="[1]"
    )
    return {normalize_url(e.url): e for e in pool.evidence(assessment)}


def at(evidence: dict, url: str):
    return evidence[normalize_url(url)]


def pool_of(*pages: tuple[Source, str], found: tuple[str, str] | None = None) -> EvidencePool:
    pool = EvidencePool()
    for page, text in pages:
        pool.add(Candidate.from_source(page, text, "Halvorsen exceeded by 312%"))
    if found is not None:
        url, text = found
        pool.add(Candidate.from_url(url, "Found", text, "web"))
    return pool


def test_the_agencys_own_notice_decides_what_the_agency_found_though_the_claim_came_from_it():
    notice, wire = source(NOTICE_URL, NOTICE), source(WIRE_URL, WIRE)
    said = claim("attribution")
    evidence = judged(pool_of(notice, wire), said, [notice, wire])

    own = at(evidence, NOTICE_URL)
    assert own.independent and own.primary_record and own.stance == "supports"
    report = at(evidence, WIRE_URL)  # a news report of the notice stays the claim's own page
    assert not report.independent and not report.primary_record
    assert report.independence_note == "the page this claim was extracted from"
    assert enforce_verdict("verified", list(evidence.values())) == ("verified", "")
    ok, why = sufficient(list(evidence.values()), "supports")
    assert ok and why == "the own record of the party quoted (epa.gov)"


@pytest.mark.parametrize("extracted", [True, False])
def test_the_underlying_fact_is_not_confirmed_by_the_word_it_rests_on(extracted: bool):
    notice, wire = source(NOTICE_URL, NOTICE), source(WIRE_URL, WIRE)
    fact = claim("fact")
    pool = pool_of(wire, found=(NOTICE_URL, NOTICE)) if not extracted else pool_of(notice, wire)
    evidence = judged(pool, fact, [notice, wire] if extracted else [wire])

    own = at(evidence, NOTICE_URL)
    assert own.primary_record and not own.independent
    assert own.independence_note == (
        "the own record of Environmental Protection Agency (EPA), whose word this claim rests "
        "on: what it says, not independent evidence that it is so"
    )
    assert own.stance == "supports"  # the model's stance stands, but it cannot count
    assert enforce_verdict("verified", list(evidence.values()))[0] == "unverified"


def test_a_fact_nobody_is_quoted_for_is_confirmed_by_an_official_record():
    wire = source(WIRE_URL, WIRE)
    evidence = judged(pool_of(wire, found=(NOTICE_URL, NOTICE)), claim("fact", ""), [wire])
    own = at(evidence, NOTICE_URL)
    assert own.independent and not own.primary_record
    assert enforce_verdict("verified", list(evidence.values()))[0] == "verified"


def test_another_authoritys_page_is_not_the_partys_own_record():
    other = source("https://www.fda.gov/news/halvorsen", NOTICE)
    wire = source(WIRE_URL, WIRE)
    evidence = judged(pool_of(other, wire), claim("attribution"), [other, wire])
    assert not at(evidence, other[0].url).primary_record
    assert not at(evidence, other[0].url).independent


def test_the_partys_site_that_is_not_official_is_not_a_primary_record():
    blog = source("https://epa.example.com/post", NOTICE, credibility_score=3)
    evidence = judged(pool_of(blog), claim("attribution"), [blog])
    assert not at(evidence, blog[0].url).primary_record


@pytest.mark.parametrize(
    ("party", "url", "own"),
    [
        (EPA, "https://www.epa.gov/x", True),
        ("Environmental Protection Agency", "https://www3.epa.gov/x", True),
        ("the EPA", "https://epa.gov/x", True),
        ("Department of Justice", "https://www.justice.gov/x", True),
        ("Supremo Tribunal Federal", "https://portal.stf.jus.br/x", True),
        ("Tribunal de Contas da União", "https://portal.tcu.gov.br/x", True),
        ("Ministério da Saúde", "https://www.saude.gov.br/x", True),
        ("Prefeitura de Maceió", "https://www.maceio.al.gov.br/x", True),
        ("Millbrook Clean Water Coalition", "https://www.millbrook.gov/x", False),
        ("activists", "https://www.millbrook.gov/x", False),
        (EPA, "https://www.fda.gov/x", False),
        ("Halvorsen Chemical", "https://www.halvorsenchem.com/x", False),
        ("", "https://www.epa.gov/x", False),
    ],
)
def test_an_official_page_is_matched_to_the_party_by_its_domain(party: str, url: str, own: bool):
    candidate = Candidate.from_url(url, "Page", "text", "web")
    assert is_own_record(candidate, party) is own


def test_party_names_take_acronyms_and_distinctive_words():
    assert {"epa", "environmentalprotectionagency"} <= party_names(EPA)
    assert "stf" in party_names("Supremo Tribunal Federal")
    assert "saude" in party_names("Ministério da Saúde")
    assert "millbrook" not in party_names("Millbrook Clean Water Coalition")


def gazette(city: str = "Maceió") -> Source:
    return Source(
        url="https://data.queridodiario.ok.org.br/2704302/2025-03-05/a.txt",
        title=f"Diário Oficial de {city} — 2025-03-05",
        domain="data.queridodiario.ok.org.br",
        publisher=f"Diário Oficial de {city}/AL",
        credibility_score=5,
        content_summary="EXTRATO DO CONTRATO",
        origin="gazette",
    )


@pytest.mark.parametrize(
    ("party", "city", "own"),
    [
        ("Prefeitura de Maceió", "", True),
        ("Câmara Municipal de Maceió", "", True),
        ("the mayor", "Maceió", True),  # a municipal body of the claim's city
        ("the mayor", "Recife", False),
        ("Maceió Construções Ltda", "", False),  # a company named after the city
        ("Prefeitura de Recife", "", False),
    ],
)
def test_a_gazette_is_the_municipalitys_own_record(party: str, city: str, own: bool):
    candidate = Candidate.from_source(gazette(), "EXTRATO DO CONTRATO", "contrato")
    assert is_own_record(candidate, party, city) is own


@pytest.mark.parametrize(
    ("collection", "title", "own"),
    [
        ("high", "EPA notice of violation", True),
        ("high", "Environmental Protection Agency - notice", True),
        ("high", "Reuters clipping", False),
        ("neutral", "EPA notice of violation", False),
    ],
)
def test_a_document_the_journalist_marked_high_is_its_named_authors_record(
    collection: str, title: str, own: bool
):
    document = Source(
        url="doc://d1",
        title=title,
        domain="documents",
        publisher="notice.pdf",
        credibility_score=4 if collection == "high" else 3,
        content_summary="...",
        origin="document",
        document_id="d1",
    )
    candidate = Candidate.from_source(document, NOTICE, "claim")
    assert is_own_record(candidate, EPA) is own


def test_the_judge_is_told_what_the_claim_is_about_and_which_items_are_own_records():
    notice, wire = source(NOTICE_URL, NOTICE), source(WIRE_URL, WIRE)
    pool = pool_of(notice, wire)
    said = claim("attribution")
    pool.mark_independence(OwnSources.of([notice, wire], said))
    prompt = pool.prompt(said, [])
    assert f"ATTRIBUTION: the claim is that {EPA} said, found, decided or did this" in prompt
    assert f"OWN RECORD of {EPA}" in prompt.split("[E1]")[1].split("\n")[0]
    assert "NOT INDEPENDENT" in prompt.split("[E2]")[1].split("\n")[0]

    fact = claim("fact")
    pool.mark_independence(OwnSources.of([wire], fact))
    prompt = pool.prompt(fact, [])
    assert f"RESTS ON: {EPA}'s word: judge whether the fact is so" in prompt
    assert "ATTRIBUTION" not in prompt
    nobody = claim("fact", "")
    pool.mark_independence(OwnSources.of([wire], nobody))
    assert "RESTS ON" not in pool.prompt(nobody, []) and "OWN RECORD" not in pool.prompt(nobody, [])


def test_the_rule_names_the_own_record_when_one_is_among_the_reasons():
    def item(publisher: str, primary: bool) -> Evidence:
        return Evidence(
            url=f"https://{publisher}/x",
            publisher=publisher,
            reliability="high",
            stance="supports",
            quote=QUOTE,
            primary_record=primary,
        )

    ok, why = sufficient([item("apnews.com", False), item("epa.gov", True)], "supports")
    assert ok and why == "the own record of the party quoted (epa.gov)"
    ok, why = sufficient([item("apnews.com", False)], "supports", "pt-BR")
    assert ok and why == "evidência de alta confiabilidade (apnews.com)"


def test_extraction_keeps_what_a_claim_is_about_and_who_it_quotes():
    notice, wire = source(NOTICE_URL, NOTICE)[0], source(WIRE_URL, WIRE)[0]
    fact = "Complaints rose 40% in 2024"
    brief = BriefClaims(claims=[BriefClaim(claim_text=fact, importance=0.9)])
    draft = ClaimDraft(
        claims=[
            DraftClaim(
                claim_text="The EPA found that Halvorsen exceeded its limits",
                kind="attribution",
                attributed_to=f"  {EPA}\n",
                importance=0.9,
                source_numbers=[1, 2],
            ),
            DraftClaim(
                claim_text="Halvorsen exceeded its limits",
                kind="attribution",  # an attribution with nobody named is a fact
                importance=0.8,
                source_numbers=[2],
            ),
            DraftClaim(
                claim_text=fact, attributed_to="activists", importance=0.5, source_numbers=[2]
            ),
        ]
    )
    claims = {c.claim_text: c for c in consolidate(draft, [(1, notice), (2, wire)], None, brief)}
    said = claims["The EPA found that Halvorsen exceeded its limits"]
    assert (said.kind, said.attributed_to) == ("attribution", EPA)
    assert (claims["Halvorsen exceeded its limits"].kind, claims[fact].origin) == ("fact", "brief")
    assert claims[fact].attributed_to == "activists"  # the brief named nobody; a source did
