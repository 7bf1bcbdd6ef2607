"""Gazette candidates scored in code (no model): deterministic, 0 to 1.

A gazette's score weighs what its excerpts share with the claim (names and figures count twice a
word), how close its date is to the claim's period, whether it is the claim's city, and how many
searches found it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from ..clients.gazette_data import Gazette
from ..documents.synonyms import fold
from .terms import ClaimLike, ClaimTerms, Period, claim_period, claim_terms, stem, words

WEIGHTS = {"overlap": 0.55, "date": 0.2, "territory": 0.15, "strategies": 0.1}
NEUTRAL = 0.5  # a part that cannot be judged (the claim names no period or no place)
DATE_HORIZON_DAYS = 365  # outside the period, the date part falls to 0 over a year
STRATEGIES_FOR_FULL = 3
EXCERPT_CHARS = 2000  # read of each excerpt (the API sends about 500)
MAX_EXCERPTS = 5


@dataclass(frozen=True)
class GazetteScore:
    """A gazette, its score and the parts it is made of."""

    gazette: Gazette
    score: float
    overlap: float
    date: float
    territory: float
    strategies: float
    names_key_entity: bool


def gazette_key(gazette: Gazette) -> str:
    """The identity of a gazette across searches: its text's address, else its file's."""
    return gazette.txt_url or gazette.url


class _Excerpts:
    """A gazette's excerpts, folded, as one string of words and as text."""

    def __init__(self, excerpts: Iterable[str]) -> None:
        kept = [e[:EXCERPT_CHARS] for e in list(excerpts)[:MAX_EXCERPTS]]
        self.text = fold(" ".join(kept))
        self.joined = " " + " ".join(w for e in kept for w in words(fold(e), 1000)) + " "

    def has_phrase(self, phrase: str) -> bool:
        named = words(fold(phrase), 12)
        return bool(named) and (" " + " ".join(named) + " ") in self.joined

    def has_term(self, term: str) -> bool:
        return (" " + stem(term)) in self.joined

    def has_figure(self, figure: str) -> bool:
        return fold(figure) in self.text

    def names(self, item: str, terms: ClaimTerms) -> bool:
        if item in terms.figures:
            return self.has_figure(item)
        return self.has_phrase(item) if " " in item.strip() else self.has_term(item)


def _overlap(terms: ClaimTerms, excerpts: _Excerpts) -> float:
    total = matched = 0.0
    for phrase in terms.phrases:
        total += 2
        matched += 2 * excerpts.has_phrase(phrase)
    for figure in terms.figures:
        total += 2
        matched += 2 * excerpts.has_figure(figure)
    for term in terms.terms:
        total += 1
        matched += excerpts.has_term(term)
    return matched / total if total else 0.0


def _date_part(period: Period | None, published: str) -> float:
    if period is None:
        return NEUTRAL
    try:
        day = date.fromisoformat(published[:10])
    except ValueError:
        return 0.0
    outside = period.days_outside(day)
    return max(0.0, 1.0 - outside / DATE_HORIZON_DAYS)


def _territory_part(gazette: Gazette, territory_id: str | None, city: str, state: str) -> float:
    if territory_id:
        return 1.0 if gazette.territory_id == territory_id else 0.0
    if not city.strip():
        return NEUTRAL
    same_city = words(fold(gazette.territory_name)) == words(fold(city))
    same_state = not state or not gazette.state_code or fold(state) == fold(gazette.state_code)
    return 1.0 if same_city and same_state else 0.0


def assess(
    gazette: Gazette,
    terms: ClaimTerms,
    period: Period | None,
    *,
    territory_id: str | None = None,
    city: str = "",
    state: str = "",
) -> GazetteScore:
    """One gazette's score for a claim."""
    excerpts = _Excerpts(gazette.excerpts)
    parts = {
        "overlap": _overlap(terms, excerpts),
        "date": _date_part(period, gazette.date),
        "territory": _territory_part(gazette, territory_id, city, state),
        "strategies": min(1.0, len(set(gazette.queries)) / STRATEGIES_FOR_FULL),
    }
    score = round(sum(WEIGHTS[name] * value for name, value in parts.items()), 4)
    key = terms.key_entity
    return GazetteScore(
        gazette=gazette,
        score=score,
        names_key_entity=bool(key) and excerpts.names(key, terms),
        **parts,
    )


def rank(
    gazettes: Iterable[Gazette],
    terms: ClaimTerms,
    period: Period | None,
    *,
    territory_id: str | None = None,
    city: str = "",
    state: str = "",
) -> list[GazetteScore]:
    """Every gazette scored, best first (ties by address: the order never varies)."""
    scored = [
        assess(g, terms, period, territory_id=territory_id, city=city, state=state)
        for g in gazettes
    ]
    return sorted(scored, key=lambda s: (-s.score, gazette_key(s.gazette)))


def score_gazettes(
    claim: ClaimLike, gazettes: Iterable[Gazette], *, territory_id: str | None = None
) -> list[tuple[Gazette, float]]:
    """(gazette, score) for a claim, best first: what `vicaran gazettes search` prints."""
    ranked = rank(
        gazettes,
        claim_terms(claim),
        claim_period(claim),
        territory_id=territory_id,
        city=claim.city,
        state=claim.state,
    )
    return [(s.gazette, s.score) for s in ranked]
