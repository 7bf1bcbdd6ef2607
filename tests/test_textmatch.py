"""Quotes found in what was read, and near-copies recognised, whatever the formatting."""

from __future__ import annotations

import pytest

from vicaran_agent.plan import plan_questions
from vicaran_agent.report_check import split_sentences
from vicaran_agent.textmatch import (
    clip_quote,
    copy_share,
    is_copy,
    quote_problem,
    sha256_text,
    shingles,
)

PAGE = (
    "RIVERTON — The Environmental Protection Agency said on Wednesday that Acme Chemicals "
    "exceeded federal lead limits by 312% at its Riverton plant.\n\nThe company said it was "
    "“reviewing the findings” and would cooperate."
)


@pytest.mark.parametrize(
    "quote",
    [
        "Acme Chemicals exceeded federal lead limits by 312% at its Riverton plant",
        "acme   chemicals EXCEEDED federal lead limits",  # case and spacing
        'The company said it was "reviewing the findings" and would cooperate.',  # straight quotes
        "The Environmental Protection Agency said … exceeded federal lead limits",  # ellipsis
        "Acme Chemicals exceeded fed\u200beral lead limits",  # a zero-width space
        "Ａｃｍｅ Chemicals exceeded federal lead limits",  # fullwidth look-alikes
    ],
)
def test_a_quote_is_found_whatever_the_formatting(quote: str) -> None:
    assert quote_problem(quote, PAGE) is None


@pytest.mark.parametrize(
    ("quote", "problem"),
    [
        (
            "Acme Chemicals exceeded federal lead limits by 400%",
            "the quote is not in the text read",
        ),
        ("exceeded federal lead limits … The Environmental Protection Agency", "not in the text"),
        ("312%", "the quote is too short to check"),
        ("", "no quote given"),
    ],
)
def test_a_quote_that_is_not_verbatim_is_refused(quote: str, problem: str) -> None:
    found = quote_problem(quote, PAGE)
    assert found is not None and problem in found


def test_a_quote_needs_the_text_it_claims_to_come_from() -> None:
    assert quote_problem("Acme Chemicals exceeded federal lead limits", "") == (
        "the text read is not available"
    )


def test_long_quotes_are_clipped_at_a_word_and_stay_verbatim() -> None:
    long = ("word " * 100).strip()
    clipped = clip_quote(long)
    assert len(clipped) <= 300 and long.startswith(clipped) and not clipped.endswith(" ")
    assert quote_problem(clipped, long) is None


def test_syndicated_copies_are_near_identical_but_shared_quotes_are_not() -> None:
    wire = " ".join(f"Sentence {i} of the wire story about the Riverton plant." for i in range(12))
    edited = "Headline changed. " + wire.replace("Sentence 11", "A trimmed ending")
    assert is_copy(shingles(wire), shingles(edited))
    other = (
        "A different newsroom wrote its own story. It quoted one line: Sentence 3 of the wire "
        "story about the Riverton plant. Then it went on with interviews, records and its own "
        "reporting from the town hall meeting, where residents asked many questions."
    )
    assert not is_copy(shingles(wire), shingles(other))
    # one shared sentence is too little text to call a page a copy
    one = "Sentence 3 of the wire story about the Riverton plant."
    assert copy_share(shingles(wire), shingles(one)) == 0.0


def test_snapshot_names_are_the_sha256_of_the_text() -> None:
    assert sha256_text("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_report_sentences_split_in_one_pass_and_keep_their_citations() -> None:
    text = (
        "The U.S. Environmental Protection Agency acted on 2025-01-15 [1]. Dr. Smith disagreed. "
        "[2] Prices rose 3.5% in 2024! Is it over? yes, for now."
    )
    assert split_sentences(text) == [
        "The U.S. Environmental Protection Agency acted on 2025-01-15 [1].",
        "Dr. Smith disagreed. [2]",
        "Prices rose 3.5% in 2024!",
        "Is it over? yes, for now.",
    ]


def test_the_plans_questions_are_the_bullets_under_what_ill_investigate() -> None:
    plan = (
        "## 📋 Plano de Investigação\n\n**Tema da Investigação:** merenda\n\n"
        "**O que vou investigar:**\n- O contrato\n- O valor\n\n**Fontes que vou reunir:**\n- x\n"
    )
    assert plan_questions(plan) == ["O contrato", "O valor"]
    assert plan_questions("no plan here") == []
