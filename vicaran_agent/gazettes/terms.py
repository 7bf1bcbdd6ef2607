"""What a claim gives the gazette search: its key terms, named entities, figures, place and period.

All of it is computed in code, character by character (claims and entities come from model output
over untrusted pages): no backtracking patterns.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Protocol

from ..documents.query import STOP_WORDS
from ..documents.synonyms import fold

MAX_TERMS = 12
MAX_PHRASES = 3
MAX_PHRASE_WORDS = 6
MAX_FIGURES = 3
MAX_WORD_CHARS = 40
_CLAIM_CHARS = 2000

# Words that say nothing a gazette search can use: the claim's frame ("the city hall did ..."),
# months and years (the period filter covers them). Compared folded.
_GENERIC_TEXT = """
    prefeitura prefeito prefeita municipal municipais municipio municipios cidade cidades governo
    gestao administracao diario diarios oficial oficiais publicado publicada publicados publicou
    registrado registrada registrou registro houve realizou realizada realizado realizados fez
    feito feita teve tem tinha firmou efetuou promoveu anunciou informou segundo conforme durante
    apos antes ano anos mes meses dia dias periodo primeiro primeira cerca total novo nova novos
    novas janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro dezembro
    city hall mayor municipality government official gazette gazettes held made signed during
    year years month months january february march april may june july august september october
    november december
"""
GENERIC = frozenset(_GENERIC_TEXT.split())
# How a place is named in entities, beside the city itself.
_PLACE_WORDS = (
    "prefeitura",
    "municipio de",
    "municipio do",
    "camara municipal",
    "governo",
    "brasil",
)
STATE_NAMES = {
    "AC": "acre", "AL": "alagoas", "AP": "amapa", "AM": "amazonas", "BA": "bahia", "CE": "ceara",
    "DF": "distrito federal", "ES": "espirito santo", "GO": "goias", "MA": "maranhao",
    "MT": "mato grosso", "MS": "mato grosso do sul", "MG": "minas gerais", "PA": "para",
    "PB": "paraiba", "PR": "parana", "PE": "pernambuco", "PI": "piaui", "RJ": "rio de janeiro",
    "RN": "rio grande do norte", "RS": "rio grande do sul", "RO": "rondonia", "RR": "roraima",
    "SC": "santa catarina", "SP": "sao paulo", "SE": "sergipe", "TO": "tocantins",
}  # fmt: skip


class ClaimLike(Protocol):
    """What the gazette search reads of a claim (schemas.Claim has it all)."""

    claim_text: str
    entities: list[str]
    city: str
    state: str
    period_start: str
    period_end: str


def words(text: str, limit: int = 400, max_chars: int = 2 * _CLAIM_CHARS) -> list[str]:
    """The runs of letters and digits in the first `max_chars` of `text` (at most `limit`)."""
    found: list[str] = []
    word: list[str] = []
    for c in text[:max_chars] + " ":
        if c.isalnum():
            if len(word) < MAX_WORD_CHARS:
                word.append(c)
            continue
        if word:
            found.append("".join(word))
            word = []
            if len(found) >= limit:
                break
    return found


def figures(text: str) -> list[str]:
    """Numbers worth searching for: "002/2024", "113.079", "R$ 1.250,00" -> "1.250,00".

    A run of digits and inner separators with at least 3 digits; a lone year is left out (the
    period covers it).
    """
    found: list[str] = []
    run: list[str] = []
    for c in text[:_CLAIM_CHARS] + " ":
        if c.isdigit() or (run and c in "./,-" and len(run) < 30):
            run.append(c)
            continue
        while run and not run[-1].isdigit():
            run.pop()
        digits = sum(ch.isdigit() for ch in run)
        token = "".join(run)
        run = []
        if digits >= 3 and not _is_year(token) and token not in found:
            found.append(token)
            if len(found) >= MAX_FIGURES:
                break
    return found


def _is_year(token: str) -> bool:
    return len(token) == 4 and token.isdigit() and 1900 <= int(token) <= 2100


def stem(term: str) -> str:
    """A prefix that matches a term's inflections ("contratos" -> "contra", "licitação" -> ...).

    Folded. Short words are kept whole.
    """
    term = fold(term)
    return term if len(term) <= 6 else term[: max(6, len(term) - 3)]


@dataclass(frozen=True)
class ClaimTerms:
    """The searchable vocabulary of one claim."""

    text: str
    phrases: list[str] = field(default_factory=list)  # multiword names, as written
    terms: list[str] = field(default_factory=list)  # single words, lower case, accents kept
    figures: list[str] = field(default_factory=list)
    place_words: frozenset[str] = frozenset()  # folded words of the claim's city and state
    key_entity: str = ""  # what the decisive excerpt must name

    @property
    def ranked_terms(self) -> list[str]:
        """The terms, most specific first (longer words are rarer), ties in claim order."""
        return sorted(self.terms, key=lambda t: -len(t))

    @property
    def words(self) -> list[str]:
        """Every word of the claim's vocabulary (for passage selection), folded, no repeats."""
        out: list[str] = []
        for item in (*self.phrases, *self.terms):
            for w in words(fold(item)):
                if w not in out:
                    out.append(w)
        return out


def claim_terms(claim: ClaimLike) -> ClaimTerms:
    """The phrases, terms and figures of a claim, without its place and its frame words."""
    place = place_words(claim.city, claim.state)
    phrases: list[str] = []
    singles: list[str] = []
    for entity in claim.entities[:12]:
        named = words(entity, MAX_PHRASE_WORDS + 1)
        if not named or is_place(entity, claim.city, claim.state):
            continue
        if len(named) == 1:
            singles.append(named[0].lower())
        elif len(named) <= MAX_PHRASE_WORDS and len(phrases) < MAX_PHRASES:
            phrase = " ".join(named)
            if fold(phrase) not in (fold(p) for p in phrases):
                phrases.append(phrase)
    in_phrases = {fold(w) for p in phrases for w in words(p)}
    terms: list[str] = []
    for word in singles + [w.lower() for w in words(claim.claim_text[:_CLAIM_CHARS])]:
        folded = fold(word)
        if (
            len(folded) < 3
            or folded in STOP_WORDS
            or folded in GENERIC
            or folded in place
            or folded in in_phrases
            or any(c.isdigit() for c in folded)
            or folded in (fold(t) for t in terms)
        ):
            continue
        terms.append(word)
        if len(terms) >= MAX_TERMS:
            break
    found = figures(claim.claim_text)
    key = phrases[0] if phrases else (found[0] if found else "")
    if not key and terms:
        key = max(terms, key=len)
    return ClaimTerms(
        text=claim.claim_text[:_CLAIM_CHARS],
        phrases=phrases,
        terms=terms,
        figures=found,
        place_words=frozenset(place),
        key_entity=key,
    )


def place_words(city: str, state: str) -> set[str]:
    """The folded words of a city and its state, which a search by territory need not repeat."""
    named = set(words(fold(city)))
    if state:
        named.add(fold(state))
    if state.upper() in STATE_NAMES:
        named |= set(STATE_NAMES[state.upper()].split())
    return {w for w in named if w and w not in STOP_WORDS}


def is_place(entity: str, city: str, state: str) -> bool:
    """Whether an entity names the claim's place (the city, its city hall, its state, Brazil)."""
    folded = " ".join(words(fold(entity)))
    if not folded:
        return True
    city_folded = " ".join(words(fold(city)))
    if city_folded and city_folded in folded:
        return True
    if folded.startswith(_PLACE_WORDS):
        return True
    state_name = STATE_NAMES.get(state.upper(), "")
    return folded in {fold(state), state_name} or folded in STATE_NAMES.values()


# --- the claim's period ----------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """An inclusive range of publication dates."""

    start: date
    end: date

    @property
    def label(self) -> str:
        """ "2024", "2024-05", or "2024-05-01 – 2024-07-31"."""
        s, e = self.start, self.end
        if (s.month, s.day, e.month, e.day) == (1, 1, 12, 31):
            return str(s.year) if s.year == e.year else f"{s.year}–{e.year}"
        last = calendar.monthrange(e.year, e.month)[1]
        if s.day == 1 and e.day == last and (s.year, s.month) == (e.year, e.month):
            return f"{s.year}-{s.month:02d}"
        return f"{s.isoformat()} – {e.isoformat()}"

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end

    def days_outside(self, day: date) -> int:
        if day < self.start:
            return (self.start - day).days
        if day > self.end:
            return (day - self.end).days
        return 0

    def widened(self, days: int, today: date | None = None) -> Period:
        """`days` more on each side (never past `today`)."""
        end = self.end + timedelta(days=days)
        if today is not None:
            end = max(self.end, min(end, today))
        return Period(self.start - timedelta(days=days), end)


def parse_day(text: str, *, last: bool = False) -> date | None:
    """A YYYY-MM-DD, YYYY-MM or YYYY date: its first day (its last with `last`); None if invalid."""
    parts = (text or "").strip()[:10].split("-")
    if not all(p.isdigit() for p in parts) or not parts or len(parts[0]) != 4:
        return None
    try:
        year = int(parts[0])
        if len(parts) == 1:
            return date(year, 12, 31) if last else date(year, 1, 1)
        month = int(parts[1])
        if len(parts) == 2:
            return date(year, month, calendar.monthrange(year, month)[1] if last else 1)
        return date(year, month, int(parts[2]))
    except ValueError:
        return None


def claim_period(claim: ClaimLike) -> Period | None:
    """The claim's period: its fields, else the years its text names, else None (any date)."""
    start = parse_day(claim.period_start)
    end = parse_day(claim.period_end, last=True)
    if start and not end:
        end = parse_day(claim.period_start, last=True)
    if end and not start:
        start = parse_day(claim.period_end)
    if start and end:
        return Period(min(start, end), max(start, end))
    years = sorted({int(w) for w in words(claim.claim_text[:_CLAIM_CHARS]) if _is_year(w)})
    if years:
        return Period(date(years[0], 1, 1), date(years[-1], 12, 31))
    return None


def folded_words(texts: Iterable[str], max_chars: int = 4000) -> list[str]:
    """The folded words of several texts (the first `max_chars` of each), in order."""
    return [w for text in texts for w in words(fold(text), max_chars, max_chars)]
