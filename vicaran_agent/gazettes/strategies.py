"""Querido Diário search strings built in code from a claim (seed 002, "Proposed Pipeline").

Three strategies, in the API's `simple_query_string` syntax (external-apis.md §4): `+` is AND,
`|` is OR, "double quotes" an exact phrase, `( )` groups.
- exact: the claim's names quoted and its most specific terms AND-ed;
- broad: the same vocabulary OR-ed;
- contextual: the government process behind the claim (a contract is published as an "extrato
  do contrato", an exam as an "edital" and its "homologação", an appointment as a "portaria"),
  OR-ed, AND the claim's topic.
Refined strings the model proposes are cleaned and bounded here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..documents.synonyms import fold
from ..sanitize import clean
from .terms import ClaimTerms, words

StrategyName = Literal["exact", "broad", "contextual", "refined", "widened"]
MAX_QUERY_CHARS = 300
EXACT_ITEMS = 3
BROAD_ITEMS = 6
TOPIC_ITEMS = 3
PROCEDURE_ITEMS = 4
MAX_REFINED = 3

# Claim vocabulary (folded word prefixes, Portuguese and English) -> the words gazettes publish
# that process with. The most specific processes first: the generic ones (works, contracts) only
# fill what is left.
PROCEDURES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("enchent", "inunda", "alagam", "chuva", "calamidad", "emergenc", "desastr", "flood",
         "emergency", "disaster"),
        ("contrato emergencial", "dispensa de licitação", "estado de calamidade"),
    ),
    (
        ("hospita", "medicament", "remedio", "farmac", "saude", "medicine", "drug", "pharma"),
        ("licitação", "pregão", "aquisição"),
    ),
    (
        ("merenda", "alimenta", "school meal"),
        ("licitação", "pregão", "gêneros alimentícios"),
    ),
    (
        ("nomea", "nomeou", "nomear", "empossa", "posse", "servidor", "admiti", "admiss",
         "appoint", "hire", "hiring", "hired"),
        ("nomear", "portaria", "nomeação", "posse"),
    ),
    (
        ("exonera", "demiti", "demiss", "dismiss", "fired"),
        ("exonerar", "portaria", "exoneração"),
    ),
    (
        ("concurso", "seletiv"),
        ("edital", "homologação", "convocação", "resultado final"),
    ),
    (
        ("lixo", "limpeza", "coleta", "residuo", "garbage", "waste"),
        ("limpeza urbana", "coleta de lixo"),
    ),
    (
        ("aluguel", "alugou", "locacao", "imovel", "lease", "rent"),
        ("locação", "dispensa de licitação"),
    ),
    (
        ("convenio", "repasse", "repassou", "transfer"),
        ("convênio", "termo de fomento", "termo de colaboração"),
    ),
    (
        ("decret", "decree"),
        ("decreto",),
    ),
    (
        ("obra", "paviment", "reforma", "construc", "reconstruc", "works", "construction"),
        ("concorrência", "licitação", "dispensa de licitação"),
    ),
    (
        ("contrat", "empresa", "contract", "company"),
        ("extrato do contrato", "licitação", "dispensa de licitação"),
    ),
)  # fmt: skip


@dataclass(frozen=True)
class Strategy:
    """One search string and how it was made."""

    name: StrategyName
    query: str


def _phrase_item(text: str) -> str:
    """A name as an exact phrase of its words (no operator can get in), a word as itself."""
    named = words(text, 12)
    return '"' + " ".join(named) + '"' if len(named) > 1 else (named[0] if named else "")


def _figure_item(text: str) -> str:
    kept = "".join(c for c in text if c.isdigit() or c in "./,-")
    return f'"{kept}"' if kept else ""


def _join(items: list[str], operator: str, limit: int = MAX_QUERY_CHARS) -> str:
    """`items` joined by ` operator `, as many as fit in `limit` characters."""
    kept: list[str] = []
    for item in items:
        if item and item not in kept:
            if len(f" {operator} ".join([*kept, item])) > limit:
                break
            kept.append(item)
    return f" {operator} ".join(kept)


def _group(items: list[str]) -> str:
    joined = _join(items, "|", MAX_QUERY_CHARS // 2)
    return f"({joined})" if " | " in joined else joined


def procedures(terms: ClaimTerms, entities: Sequence[str] = ()) -> list[str]:
    """The procedural words of the processes the claim's vocabulary points to, as written.

    Each process triggered gives its most telling word before any gives a second.
    """
    vocabulary = [fold(w) for w in words(terms.text)] + [
        fold(w) for e in entities[:12] for w in words(e, 12)
    ]
    joined = " " + " ".join(vocabulary) + " "
    fired = [out for triggers, out in PROCEDURES if any((" " + t) in joined for t in triggers)]
    found: list[str] = []
    for depth in range(max((len(out) for out in fired), default=0)):
        for out in fired:
            if depth < len(out) and out[depth] not in found:
                found.append(out[depth])
    return found[:PROCEDURE_ITEMS]


GENERIC_ACTS = ("decreto", "portaria", "comunicado")


def build_strategies(terms: ClaimTerms, entities: Sequence[str] = ()) -> list[Strategy]:
    """The exact, broad and contextual strings for a claim (2 or 3; fewer when it has few words)."""
    phrases = [_phrase_item(p) for p in terms.phrases]
    figures = [_figure_item(f) for f in terms.figures]
    ranked = terms.ranked_terms
    core = [*phrases[:2], *figures[:1]]
    exact_items = core + ranked[: max(0, EXACT_ITEMS - len(core))]
    vocabulary = [*phrases, *figures, *ranked]
    strategies: list[Strategy] = []

    def add(name: StrategyName, query: str) -> None:
        if query and all(s.query != query for s in strategies):
            strategies.append(Strategy(name, query))

    add("exact", _join(exact_items, "+"))
    broad = _join(vocabulary[:BROAD_ITEMS], "|")
    if any(s.query == broad for s in strategies):  # one name only: any of its words will do
        loose = [w for p in terms.phrases for w in words(p, 12)] + ranked
        broad = _join(loose[:BROAD_ITEMS], "|")
    add("broad", broad)
    # No procedure the claim's words name: the acts through which a city records anything.
    process = [_phrase_item(p) for p in procedures(terms, entities) or GENERIC_ACTS]
    if process:
        topic = (phrases + ranked)[:TOPIC_ITEMS]
        query = _group(process) + (" + " + _group(topic) if topic else "")
        add("contextual", query)
    return strategies


def drop_and(query: str) -> str:
    """A string built here with its ANDs made ORs (a widening: any of the terms will do)."""
    return query.replace(" + ", " | ")


_ALLOWED_MARKS = frozenset(' "+|-*()~./,')
_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u00ab": '"', "\u00bb": '"'})


def clean_querystring(text: str) -> str:
    """A search string the model proposed, made safe and well formed ("" when nothing is left).

    Letters, digits and the syntax's marks only; quotes and parentheses balanced (else dropped);
    at most MAX_QUERY_CHARS, cut between words.
    """
    text = clean(text or "")[: MAX_QUERY_CHARS * 4].translate(_CURLY)
    kept = "".join(c if c.isalnum() or c in _ALLOWED_MARKS else " " for c in text)
    kept = " ".join(kept.split())
    if len(kept) > MAX_QUERY_CHARS:
        cut = kept[:MAX_QUERY_CHARS]
        kept = cut[: cut.rfind(" ")] if " " in cut else cut
    if kept.count('"') % 2:
        kept = kept.replace('"', "")
    depth, balanced = 0, True
    for c in kept:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            balanced = False
            break
    if depth != 0 or not balanced:
        kept = kept.replace("(", " ").replace(")", " ")
    kept = " ".join(kept.split()).strip(" +|")
    return kept if any(c.isalnum() for c in kept) else ""


def refined(queries: list[str], tried: set[str]) -> list[str]:
    """The model's refined strings, cleaned, new and bounded."""
    seen = {fold(q) for q in tried}
    out: list[str] = []
    for raw in queries[: MAX_REFINED * 3]:
        query = clean_querystring(raw)
        if query and fold(query) not in seen:
            seen.add(fold(query))
            out.append(query)
        if len(out) >= MAX_REFINED:
            break
    return out
