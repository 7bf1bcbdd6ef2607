"""The citation audit checks what was cited (issue 26): the model judges whether the facts a
sentence attributes to its sources are in their passages; what a sentence says of a claim's
status ("was not established", "no independent source confirmed it") is checked by code against
the recorded verdicts and evidence, and survives when the records agree."""

from __future__ import annotations

from typing import Any

import pytest

from vicaran_agent.model_outputs import (
    CitationAudit,
    ReportDraft,
    ReportFinding,
    SentenceCheck,
    StatusStatement,
)
from vicaran_agent.report_check import status_problem
from vicaran_agent.schemas import Evidence, Source, Verdict
from vicaran_agent.sub_agents.report_review import ReportReviewer, Review

URL1, URL2 = "https://epa.gov/notice", "https://reuters.com/wire"


def item(url: str, stance: str, *, independent: bool = True) -> Evidence:
    return Evidence(
        url=url,
        publisher=url.split("/")[2],
        reliability="high",
        stance=stance,
        quote="by 312%" if stance != "context" else "",
        independent=independent,
    )


VERIFIED = Verdict(
    claim_key="C1",
    claim_text="The EPA found that Halvorsen exceeded its limits by 312%",
    verdict="verified",
    confidence=0.9,
    explanation="[1]",
    evidence=[item(URL1, "supports"), item(URL2, "context", independent=False)],
)
UNVERIFIED = Verdict(
    claim_key="C2",
    claim_text="Halvorsen exceeded its limits by 312%",
    verdict="unverified",
    confidence=0.3,
    explanation="Only the EPA says so.",
    evidence=[item(URL1, "supports", independent=False), item(URL2, "context", independent=False)],
)


@pytest.mark.parametrize(
    ("status", "verdict", "agrees"),
    [
        ("unverified", UNVERIFIED, True),
        ("unverified", VERIFIED, False),
        ("verified", VERIFIED, True),
        ("false", VERIFIED, False),
        ("not_confirmed", UNVERIFIED, True),  # nothing independent supports it
        ("not_confirmed", VERIFIED, False),  # the EPA's own record confirms what it found
        ("not_refuted", VERIFIED, True),
    ],
)
def test_a_status_is_checked_against_the_record(status: str, verdict: Verdict, agrees: bool):
    assert (status_problem(status, verdict) == "") is agrees


class Auditor:
    """Answers every audit call with what `answer(prompt)` returns; keeps the prompts."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    async def generate(self, *, instruction: str, prompt: str, schema: type) -> Any:
        self.prompts.append(prompt)
        if schema is CitationAudit:
            return CitationAudit(sentences=self.answer(prompt))
        raise AssertionError("the quality review is not asked here")


def reviewer(auditor: Auditor) -> ReportReviewer:
    sources = [
        (1, Source(url=URL1, title="Notice", domain="epa.gov", credibility_score=5)),
        (2, Source(url=URL2, title="Wire", domain="reuters.com", credibility_score=5)),
    ]
    for _, source in sources:
        source.source_id = source.url
    return ReportReviewer(
        auditor,  # type: ignore[arg-type]
        "audit",
        "quality",
        numbered=sources,
        citable=dict(sources),
        verdicts=[VERIFIED, UNVERIFIED],
        questions=[],
        texts=None,
    )


async def audited(checker: ReportReviewer, draft: ReportDraft) -> Review:
    """The audit alone (the quality review runs beside it in a real check)."""
    review = Review(code=[], sentences=checker.cited(draft))
    await checker._audit(review)
    return review


DRAFT = ReportDraft(
    title="Halvorsen",
    executive_summary="That Halvorsen exceeded its limits by 312% was not established [1].",
    findings=[
        ReportFinding(claim_key="C1", verdict="verified", text="The EPA found it [1]."),
        ReportFinding(
            claim_key="C2",
            verdict="unverified",
            text="The sources report it [1][2]. This was not established: no independent "
            "source confirmed it [1][2].",
        ),
    ],
)


def statuses(*pairs: tuple[str, str]) -> list[StatusStatement]:
    return [StatusStatement(claim_key=key, status=status) for key, status in pairs]  # type: ignore[arg-type]


async def test_status_sentences_that_agree_with_the_records_survive():
    def answer(prompt: str) -> list[SentenceCheck]:
        return [
            SentenceCheck(number=1, supported=True, statuses=statuses(("C2", "unverified"))),
            SentenceCheck(number=2, supported=True),
            SentenceCheck(number=3, supported=True),
            SentenceCheck(
                number=4,
                supported=True,
                statuses=statuses(("", "unverified"), ("", "not_confirmed")),
            ),
        ]

    auditor = Auditor(answer)
    review = await audited(reviewer(auditor), DRAFT)
    assert review.unsupported == [] and review.statuses == 3
    (prompt,) = auditor.prompts
    assert "[A1] That Halvorsen" in prompt  # the summary's sentence: which claim is for the model
    assert "[A4] (finding C2) This was not established" in prompt
    claims = prompt.split("<<<DATA CLAIMS\n")[1].split("\nDATA>>>")[0]
    assert claims.splitlines() == [f"- C1: {VERIFIED.claim_text}", f"- C2: {UNVERIFIED.claim_text}"]


async def test_a_status_the_records_contradict_is_unsupported_and_says_why():
    def answer(prompt: str) -> list[SentenceCheck]:
        return [
            SentenceCheck(number=1, supported=True, statuses=statuses(("C1", "unverified"))),
            SentenceCheck(number=2, supported=True, statuses=statuses(("", "not_confirmed"))),
            SentenceCheck(number=3, supported=True, statuses=statuses(("C9", "false"))),
            SentenceCheck(number=4, supported=True),
        ]

    review = await audited(reviewer(Auditor(answer)), DRAFT)
    assert [(s.part, s.index) for s in review.unsupported] == [("summary", 0), ("finding:C1", 0)]
    problems = review.problems(threshold=0)
    assert "says C1 is unverified, but its recorded verdict is verified" in problems[0]
    assert "says no independent source confirmed C1, but the records show one" in problems[1]
    assert review.statuses == 2  # C9 is no claim: nothing to check it against


async def test_a_claims_block_is_left_out_when_every_sentence_is_a_findings():
    draft = DRAFT.model_copy(update={"executive_summary": "No citation here."})
    auditor = Auditor(lambda prompt: [])
    await audited(reviewer(auditor), draft)
    assert "<<<DATA CLAIMS" not in auditor.prompts[0]
