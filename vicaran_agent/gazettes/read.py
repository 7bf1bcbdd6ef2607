"""The deep read: the best gazettes' passages selected with BM25, read map-reduce into evidence.

Passage selection is SQLite FTS5's BM25 in an in-memory database (tokenizer unicode61 without
diacritics, as the documents index: "licitacao" finds "licitação"), with prefix terms so plural
and inflected forms match. The map is one structured model call per batch of about 4,000
characters, all batches at once; the reduce is code: every quote checked against the gazette's
text (a quote not found there is dropped), duplicates merged.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..clients.gazette_data import Gazette
from ..documents.model import PageText, Passage
from ..documents.passages import split_passages
from ..documents.synonyms import fold
from ..formatting import data_block, one_line
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import GazetteAct, GazetteReading
from ..sanitize import clean
from ..schemas import Source
from ..schemas import gazette_title as schemas_gazette_title
from ..textmatch import normalize, quote_problem, sha256_text
from ..tools.analyze_source import now_iso
from ..urls import host_of
from .score import gazette_key
from .terms import ClaimTerms, Period, parse_day, stem, words

MAX_PASSAGES = 12  # selected over all the gazettes read
BATCH_CHARS = 4000
MAX_BATCHES = 4
QUOTE_CHARS = 600
MAX_ACTS_PER_BATCH = 12
_FTS_WINDOW = 400
GAZETTE_CREDIBILITY = 5  # official records


@dataclass
class GazetteText:
    """A gazette read in full (up to the cap), with its score and the passages selected."""

    gazette: Gazette
    text: str
    score: float
    query: str = ""  # the search string that found it
    strategy: str = ""
    selected: int = 0
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        self.sha256 = sha256_text(self.text)


@dataclass(frozen=True)
class SelectedPassage:
    number: int  # [P#] in the reading prompt
    source: GazetteText
    passage: Passage


@dataclass(frozen=True)
class GazetteEvidence:
    """One act a gazette records that bears on the claim: an evidence candidate.

    `text` is the passage the quote was found in (what a judge's quote is checked against);
    `url` is the gazette's saved Source.
    """

    gazette: Gazette
    quote: str
    text: str
    offset: int  # where `text` starts in the gazette's text
    act_type: str = ""
    act_date: str = ""  # the act's own date (YYYY-MM-DD), not the publication date
    parties: tuple[str, ...] = ()
    amounts: tuple[str, ...] = ()
    relation: str = ""  # the reader's sentence: the act claimed or a related one
    query: str = ""
    strategy: str = ""
    score: float = 0.0
    content_sha256: str = ""  # of the gazette text read

    @property
    def url(self) -> str:
        return self.gazette.txt_url or self.gazette.url

    @property
    def display_url(self) -> str:
        return self.gazette.url or self.gazette.txt_url or ""

    @property
    def title(self) -> str:
        return gazette_title(self.gazette)

    @property
    def snippet(self) -> str:
        """What the judge reads: the act, its date against the publication date, the quote."""
        facts = [f"Act: {self.act_type or 'not stated'}"]
        facts.append(f"act date: {self.act_date or 'not stated'}")
        facts.append(f"published in the gazette of {self.gazette.date}")
        if self.parties:
            facts.append("parties: " + ", ".join(self.parties))
        if self.amounts:
            facts.append("amounts: " + ", ".join(self.amounts))
        return "; ".join(facts) + ".\n" + self.quote


@dataclass
class Reading:
    """What reading the selected passages produced."""

    evidence: list[GazetteEvidence] = field(default_factory=list)
    passages: int = 0
    batches: int = 0
    dropped: int = 0  # quotes not found in the gazette's text
    errors: list[str] = field(default_factory=list)


# --- titles and sources ------------------------------------------------------------------


def gazette_title(gazette: Gazette) -> str:
    """ "Diário Oficial de <city> — <date>[, edição N][ (extra)]" (schemas.gazette_title)."""
    title = schemas_gazette_title(gazette.territory_name, gazette.date)
    if gazette.edition:
        title += f", edição {gazette.edition}"
    if gazette.is_extra_edition:
        title += " (extra)"
    return title


def gazette_label(gazette: Gazette) -> str:
    """ "Porto Alegre/RS, 2024-05-17, edição 7777" (for prompts and the reasoning log)."""
    place = gazette.territory_name + (f"/{gazette.state_code}" if gazette.state_code else "")
    edition = f", edição {gazette.edition}" if gazette.edition else ""
    return f"{place}, {gazette.date}{edition}"


def gazette_source(
    gazette: Gazette,
    text: str,
    evidence: Sequence[GazetteEvidence] = (),
    *,
    retrieved_at: str | None = None,
) -> Source:
    """The Source a gazette read is saved as (origin "gazette"): what its evidence cites."""
    display = gazette.url or gazette.txt_url or ""
    state = f"/{gazette.state_code}" if gazette.state_code else ""
    if evidence:
        summary = "; ".join(
            f"{e.act_type or 'ato'}: {one_line(e.quote, 160)}" for e in evidence[:3]
        )
    else:
        summary = one_line(text, 300)
    return Source(
        origin="gazette",
        url=gazette.txt_url or gazette.url,
        display_url=display,
        title=gazette_title(gazette),
        domain=host_of(display) or host_of(gazette.txt_url or ""),
        publisher=f"Diário Oficial de {gazette.territory_name}{state}",
        credibility_score=GAZETTE_CREDIBILITY,
        content_summary=clean(summary),
        key_claims=[],
        published_at=gazette.date or None,
        published_at_source="gazette",
        retrieved_at=retrieved_at or now_iso(),
        content_sha256=sha256_text(text),
        is_user_provided=False,
        territory_id=gazette.territory_id or None,
        gazette_date=gazette.date or None,
        txt_url=gazette.txt_url,
    )


# --- passage selection (BM25) ----------------------------------------------------------------


def fts_expression(terms: ClaimTerms, extra: Sequence[str] = ()) -> str:
    """An FTS5 MATCH expression: the claim's names as phrases, its words as prefixes, OR-ed.

    Every item is a quoted string of letters and digits: nothing in a claim is an operator.
    """
    items: list[str] = []
    for phrase in (*terms.phrases, *terms.figures):
        named = words(fold(phrase), 12)
        if named:
            items.append('"' + " ".join(named) + '"')
    vocabulary = [*terms.words, *(w for e in extra for w in words(fold(e), 6))]
    for word in vocabulary:
        if len(word) >= 3 and not word.isdigit():
            items.append(f'"{stem(word)}" *')
    return " OR ".join(dict.fromkeys(items))


def _bm25(passages: list[list[Passage]], expression: str) -> list[int]:
    """Row ids ((gazette, passage) flattened) by BM25, best first."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute(
            "CREATE VIRTUAL TABLE p USING fts5(text, tokenize='unicode61 remove_diacritics 2')"
        )
        rows = [(i, p.text) for i, p in enumerate(x for each in passages for x in each)]
        db.executemany("INSERT INTO p(rowid, text) VALUES (?, ?)", rows)
        found = db.execute(
            "SELECT rowid FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?",
            (expression, _FTS_WINDOW),
        ).fetchall()
        return [row[0] for row in found]
    except sqlite3.Error:
        return []
    finally:
        db.close()


def select_passages(
    texts: list[GazetteText],
    terms: ClaimTerms,
    extra: Sequence[str] = (),
    limit: int = MAX_PASSAGES,
) -> list[SelectedPassage]:
    """The passages closest to the claim: each gazette's best one, then the best of all.

    Numbered in reading order (by gazette, then by place in its text).
    """
    passages = [split_passages([PageText(1, t.text)]) for t in texts]
    owner = [(g, p) for g, each in enumerate(passages) for p in each]
    expression = fts_expression(terms, extra)
    ranked = _bm25(passages, expression) if expression and owner else []
    chosen: list[int] = []
    for g in range(len(texts)):  # each gazette read contributes its best passage
        best = next((r for r in ranked if owner[r][0] == g), None)
        if best is not None and len(chosen) < limit:
            chosen.append(best)
    for row in ranked:
        if len(chosen) >= limit:
            break
        if row not in chosen:
            chosen.append(row)
    chosen.sort(key=lambda r: (owner[r][0], owner[r][1].start))
    selected = []
    for number, row in enumerate(chosen, 1):
        g, passage = owner[row]
        texts[g].selected += 1
        selected.append(SelectedPassage(number, texts[g], passage))
    return selected


def batches(
    selected: list[SelectedPassage], limit: int = BATCH_CHARS
) -> list[list[SelectedPassage]]:
    """Consecutive passages in groups of about `limit` characters (at most MAX_BATCHES)."""
    groups: list[list[SelectedPassage]] = []
    size = 0
    for item in selected:
        length = len(item.passage.text)
        if not groups or size + length > limit:
            if len(groups) >= MAX_BATCHES:
                break
            groups.append([])
            size = 0
        groups[-1].append(item)
        size += length
    return groups


# --- the map: one model call per batch ---------------------------------------------------------


def reading_prompt(
    claim_text: str, entities: Sequence[str], period: Period | None, batch: list[SelectedPassage]
) -> str:
    body = "\n\n".join(
        f"[P{item.number}] Diário Oficial, {gazette_label(item.source.gazette)}\n"
        f"{item.passage.text}"
        for item in batch
    )
    lines = [
        f"CLAIM: {one_line(claim_text, 600)}",
        "ENTITIES: " + "; ".join(one_line(e, 120) for e in entities[:12]),
        f"PERIOD: {period.label if period else 'not stated'}",
        data_block("PASSAGES", body),
    ]
    return "\n".join(lines)


async def read_passages(
    model: ModelClient,
    instruction: str,
    claim_text: str,
    entities: Sequence[str],
    period: Period | None,
    selected: list[SelectedPassage],
) -> Reading:
    """Every batch read at once; quotes checked against the gazettes, duplicates merged."""
    groups = batches(selected)
    reading = Reading(passages=sum(len(g) for g in groups), batches=len(groups))

    async def read(batch: list[SelectedPassage]) -> GazetteReading | None:
        try:
            return await model.generate(
                instruction=instruction,
                prompt=reading_prompt(claim_text, entities, period, batch),
                schema=GazetteReading,
                temperature=0.0,
            )
        except ModelCallError as error:
            reading.errors.append(error.message)
            return None

    answers = await asyncio.gather(*(read(batch) for batch in groups))
    seen: set[tuple[str, str]] = set()
    for batch, answer in zip(groups, answers, strict=True):
        if answer is None:
            continue
        for act in answer.acts[:MAX_ACTS_PER_BATCH]:
            item = _evidence(act, batch)
            if item is None:
                reading.dropped += 1
                continue
            key = (gazette_key(item.gazette), normalize(item.quote))
            if key not in seen:
                seen.add(key)
                reading.evidence.append(item)
    return reading


def _clip(text: str, limit: int) -> str:
    """At most `limit` characters, cut between words (a cut quote is still verbatim)."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[: cut.rfind(" ")] if cut.rfind(" ") > limit // 2 else cut


def _evidence(act: GazetteAct, batch: list[SelectedPassage]) -> GazetteEvidence | None:
    """The act as evidence when its quote is in a passage it was read from (else None)."""
    quote = _clip(clean(act.quote), QUOTE_CHARS).strip(" \"'")
    claimed = [i for i in batch if i.number == act.passage]
    where = next((i for i in claimed + batch if quote_problem(quote, i.passage.text) is None), None)
    if where is None:
        return None
    source = where.source
    day = parse_day(act.act_date) if len(act.act_date.strip()) == 10 else None
    return GazetteEvidence(
        gazette=source.gazette,
        quote=quote,
        text=where.passage.text,
        offset=where.passage.start,
        act_type=one_line(clean(act.act_type), 120),
        act_date=day.isoformat() if day else "",
        parties=tuple(one_line(clean(p), 160) for p in act.parties[:8] if p.strip()),
        amounts=tuple(one_line(clean(a), 60) for a in act.amounts[:8] if a.strip()),
        relation=one_line(clean(act.relation), 300),
        query=source.query,
        strategy=source.strategy,
        score=source.score,
        content_sha256=source.sha256,
    )
