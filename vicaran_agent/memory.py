"""Claim memory: has this store checked the same claim before?

A claim is the same as an earlier one when it states the same numbers and names the same
parties and its words mostly agree (accents, case and small words aside, in any language): a
claim about "R$ 4,2 milhões" in 2024 is not one about R$ 4,2 milhões in 2023. The store offers
candidates that contain every number and name (`storage/memory.py`); this module decides.
All of it is linear in the texts: token sets, no backtracking patterns.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from .textmatch import fold

SAME_WORDS = 0.5  # share of content words two claims must have in common (Jaccard)
_SMALL = (  # folded, as tokens are
    "the a an of in on at to for by and or is was were are be been that this with as from its it "
    "de da do das dos o os e em no na nos nas um uma por para com que se ao foi sao pela pelo"
)
_SMALL_WORDS = frozenset(_SMALL.split())


class EarlierCheck(BaseModel):
    """An earlier investigation's check of the same claim, as it stands (editor's first)."""

    investigation_id: str
    fact_check_id: str = ""
    title: str = ""
    claim: str
    verdict: str  # the verdict that stands: the editor's when one changed it
    review_status: str = "unreviewed"
    reviewer: str = ""
    checked_at: str  # YYYY-MM-DD


def _tokens(text: str) -> list[str]:
    """Words and numbers of `text`, folded; a number keeps its digits only ("4,2" -> "42")."""
    words, current = [], []
    for char in fold(text) + " ":
        if char.isalnum() or (char in ".,'" and current and current[-1].isdigit()):
            current.append(char)
        elif current:
            words.append("".join(current).strip(".,'"))
            current = []
    return [w for w in words if w]


def numbers(text: str) -> frozenset[str]:
    """The numbers a claim states, as digits ("R$ 4,2 milhões" and "4.2 million" -> "42")."""
    return frozenset(
        "".join(c for c in token if c.isdigit()) for token in _tokens(text) if token[:1].isdigit()
    )


def content_words(text: str) -> frozenset[str]:
    return frozenset(
        t for t in _tokens(text) if not t[:1].isdigit() and len(t) > 2 and t not in _SMALL_WORDS
    )


def names(entities: Iterable[str]) -> list[str]:
    """The parties a claim names, folded (each must appear in the other claim's text)."""
    return [" ".join(_tokens(e)) for e in entities if _tokens(e)]


def is_same_claim(text: str, entities: Iterable[str], other: str) -> bool:
    """Whether `other` states what `text` does: the same numbers, every named party, and at
    least `SAME_WORDS` of their content words in common."""
    if numbers(text) != numbers(other):
        return False
    folded = " " + " ".join(_tokens(other)) + " "
    if not all(f" {name} " in folded for name in names(entities)):
        return False
    mine, theirs = content_words(text), content_words(other)
    if not mine or not theirs:
        return False
    return len(mine & theirs) / len(mine | theirs) >= SAME_WORDS


def searchable(text: str, entities: Iterable[str]) -> bool:
    """A claim worth looking up: it states a number or names a party (else nothing could tell
    a same claim from a similar one)."""
    return bool(numbers(text) or names(entities))
