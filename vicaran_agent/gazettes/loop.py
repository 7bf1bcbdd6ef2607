"""The adaptive gazette search for one claim (seed 002): search, score, judge, refine, read.

Per round: the round's search strings go to Querido Diário in one call (the claim's territory
and period on every request), the gazettes found are scored in code, and code decides whether
they are enough (a high score that names the claim's key entity); only when it cannot is the
model asked, once, which also proposes refined strings. Insufficient rounds widen in code too
(ANDs dropped, dates widened), up to `vicaran_gazette_rounds`. Then the best gazettes are read
in full, their passages closest to the claim selected with BM25 and read map-reduce into
evidence. A round is at most one model round; the deep read is one more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..clients.gazette_data import City, CityResolution, Gazette, GazetteSearch
from ..config import Settings
from ..formatting import data_block, one_line
from ..i18n import is_portuguese, localized, message
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import GazetteSufficiency
from ..prompts.gazette_search import (
    GAZETTE_READING_INSTRUCTION,
    GAZETTE_SUFFICIENCY_INSTRUCTION,
    rendered,
)
from ..sanitize import clean
from .outcome import GazetteClient, GazetteOutcome, SearchDone
from .read import (
    GazetteText,
    gazette_label,
    gazette_title,
    read_passages,
    select_passages,
)
from .score import gazette_key, rank
from .strategies import (
    Strategy,
    build_strategies,
    drop_and,
    procedures,
    refined,
)
from .terms import ClaimLike, ClaimTerms, Period, claim_period, claim_terms

logger = logging.getLogger(__name__)

SUFFICIENT_SCORE = 0.75  # with the key entity named, code calls the excerpts enough
WIDEN_DAYS = 90  # each refinement widens the period by this much on each side
JUDGED_GAZETTES = 8  # shown to the sufficiency judge
EXCERPT_CHARS = 500
LOG_LINE_CHARS = 400


@dataclass
class _Progress:
    """Where one claim's search stands between rounds."""

    window: Period | None
    planned: list[Strategy]
    found: dict[str, Gazette] = field(default_factory=dict)
    tried: set[tuple[str, str | None, str | None]] = field(default_factory=set)


class GazetteSearchLoop:
    """Searches the official gazettes for one claim; `run` never raises (it says what failed)."""

    def __init__(
        self,
        client: GazetteClient,
        model: ModelClient,
        settings: Settings,
        language: str,
        *,
        emit: Callable[[str], None] | None = None,
        require_place: bool = False,
    ) -> None:
        self.client = client
        self.model = model
        self.settings = settings
        self.language = language
        self.emit = emit
        # Search only a claim whose place is a Brazilian municipality (or one of homonyms).
        self.require_place = require_place
        self._place_known = True

    # --- the loop --------------------------------------------------------------------------

    async def run(self, claim: ClaimLike) -> GazetteOutcome:
        out = GazetteOutcome(period=claim_period(claim))
        terms = claim_terms(claim)
        out.city = await self._place(claim, out)
        if not self._place_known:
            return out  # not a municipality Querido Diário knows: nothing to search
        strategies = build_strategies(terms, claim.entities)
        search = _Progress(window=out.period, planned=list(strategies))
        limit = self.settings.vicaran_gazette_rounds
        for round_number in range(1, limit + 1):
            out.rounds = round_number
            await self._round(claim, terms, out, search)
            if self._enough_by_code(out, terms):
                out.sufficient = True
                break
            if round_number == limit:
                if out.candidates:
                    self._say(out, "gazette_round_limit", count=limit)
                break
            judged = await self._judge(claim, out, round_number)
            if judged is not None:
                reason = one_line(clean(judged.reason), 300)
                key = "gazette_sufficient_model" if judged.sufficient else "gazette_insufficient"
                self._say(out, key, reason=reason)
                if judged.sufficient:
                    out.sufficient = True
                    break
            if not self._refine(out, search, strategies, judged):
                break
        await self._read(claim, terms, out)
        self._conclude(out)
        return out

    async def _round(
        self, claim: ClaimLike, terms: ClaimTerms, out: GazetteOutcome, search: _Progress
    ) -> None:
        """One round's searches in one call; everything found so far scored again."""
        since, until = _dates(search.window)
        batch = [s for s in search.planned if (s.query, since, until) not in search.tried]
        for strategy in batch:
            search.tried.add((strategy.query, since, until))
            name = self._strategy(strategy.name)
            self._say(out, "gazette_search", strategy=name, query=strategy.query)
        result = await self._search(batch, out, since, until)
        for strategy in batch:
            total = result.totals.get(strategy.query) if result else None
            done = SearchDone(out.rounds, strategy.name, strategy.query, since, until, total)
            out.searches.append(done)
        for gazette in result.gazettes if result else []:
            _merge(search.found, gazette)
        out.candidates = rank(
            search.found.values(),
            terms,
            out.period,
            territory_id=out.city.territory_id if out.city else None,
            city=claim.city,
            state=claim.state,
        )
        self._round_line(out, out.rounds, len(batch))

    def _refine(
        self,
        out: GazetteOutcome,
        search: _Progress,
        strategies: list[Strategy],
        judged: GazetteSufficiency | None,
    ) -> bool:
        """The next round's searches: the model's refined strings, the exact one without its
        ANDs, over dates widened; False when there is nothing new to try."""
        tried = {query for query, _, _ in search.tried}
        fresh = refined(judged.refined_queries if judged else [], tried)
        search.planned = [Strategy("refined", q) for q in fresh]
        exact = next((s for s in strategies if s.name == "exact"), None)
        if exact is not None and " + " in exact.query and drop_and(exact.query) not in fresh:
            search.planned.append(Strategy("widened", drop_and(exact.query)))
        if search.window is not None:
            search.window = search.window.widened(WIDEN_DAYS, self.settings.today)
        since, until = _dates(search.window)
        if all((s.query, since, until) in search.tried for s in search.planned):
            self._say(out, "gazette_no_new_searches")
            return False
        if search.window is not None:
            self._say(out, "gazette_widened", period=search.window.label)
        return True

    # --- the place ---------------------------------------------------------------------------

    async def _place(self, claim: ClaimLike, out: GazetteOutcome) -> City | None:
        period = out.period.label if out.period else message("gazette_any_date", self.language)
        if not claim.city.strip():
            self._say(out, "gazette_no_place", period=period)
            return None
        try:
            resolution = await self.client.resolve_city(claim.city, claim.state or None)
        except Exception as error:  # noqa: BLE001 - the search goes on without the city filter
            logger.warning("resolving %s failed: %s", claim.city, error)
            resolution = CityResolution(None, note=f"{claim.city}: {type(error).__name__}")
        city = resolution.city
        # A name Querido Diário does not know is no Brazilian municipality: not searched, unless
        # the brief asked for gazettes and it may be a misspelling (close names) or the city
        # list could not be fetched; then every city's gazettes are searched.
        unknown = city is None and not resolution.candidates
        if unknown and (
            self.require_place or (not resolution.close and resolution.failure is None)
        ):
            self._place_known = False
            if not self.require_place:  # the brief asked for gazettes: say why there are none
                self._say(out, "gazette_place_unknown", city=claim.city)
            return None  # (a story elsewhere: nothing about gazettes to say)
        if city is None:
            note = resolution.note or claim.city
            self._say(out, "gazette_place_unresolved", note=note, period=period)
            return None
        self._say(
            out, "gazette_place", city=_city_name(city), territory=city.territory_id, period=period
        )
        return city

    # --- searching and judging -------------------------------------------------------------

    async def _search(
        self, batch: list[Strategy], out: GazetteOutcome, since: str | None, until: str | None
    ) -> GazetteSearch | None:
        if not batch:
            return None
        try:
            result = await self.client.search(
                [s.query for s in batch],
                territory_ids=[out.city.territory_id] if out.city else [],
                published_since=since,
                published_until=until,
                size=30,
            )
        except Exception as error:  # noqa: BLE001 - a failed search is a line, not a crash
            detail = f"{type(error).__name__}: {error}"
            out.failures.append(detail)
            self._say(out, "gazette_search_failed", error=one_line(detail, 200))
            return None
        for failure in result.failures:
            out.failures.append(str(failure))
            self._say(out, "gazette_search_failed", error=failure)
        return result

    def _enough_by_code(self, out: GazetteOutcome, terms: ClaimTerms) -> bool:
        best = out.candidates[:3]
        if not best or best[0].score < SUFFICIENT_SCORE:
            return False
        named = next((c for c in best if c.names_key_entity), None)
        if named is None:
            return False
        self._say(
            out,
            "gazette_sufficient_code",
            entity=one_line(terms.key_entity, 80),
            score=f"{best[0].score:.2f}",
        )
        return True

    async def _judge(
        self, claim: ClaimLike, out: GazetteOutcome, round_number: int
    ) -> GazetteSufficiency | None:
        out.model_calls += 1
        out.model_rounds += 1
        try:
            return await self.model.generate(
                instruction=rendered(GAZETTE_SUFFICIENCY_INSTRUCTION, self.language),
                prompt=self._judge_prompt(claim, out, round_number),
                schema=GazetteSufficiency,
                temperature=0.0,
            )
        except ModelCallError as error:
            self._say(out, "gazette_judge_failed", error=error)
            return None

    def _judge_prompt(self, claim: ClaimLike, out: GazetteOutcome, round_number: int) -> str:
        place = _city_name(out.city) if out.city else (claim.city or "not stated")
        lines = [
            f"CLAIM: {one_line(claim.claim_text, 600)}",
            "ENTITIES: " + "; ".join(one_line(e, 120) for e in claim.entities[:12]),
            f"PLACE: {place}" + (f" (IBGE {out.city.territory_id})" if out.city else ""),
            f"PERIOD: {out.period.label if out.period else 'not stated'}",
            f"ROUND: {round_number} of {self.settings.vicaran_gazette_rounds}",
            "SEARCHES TRIED:",
        ]
        for done in out.searches:
            total = "?" if done.total is None else str(done.total)
            dates = f"{done.since or '…'} to {done.until or '…'}"
            lines.append(f"- {done.query} ({dates}): {total} gazettes")
        entries = []
        for number, scored in enumerate(out.candidates[:JUDGED_GAZETTES], 1):
            gazette = scored.gazette
            excerpts = "\n".join(
                f"- {one_line(e, EXCERPT_CHARS)}" for e in gazette.excerpts[:3] if e.strip()
            )
            entries.append(
                f"[G{number}] {gazette_label(gazette)}, score {scored.score:.2f}\n"
                f"{excerpts or '(no excerpt)'}"
            )
        lines.append(data_block("GAZETTES", "\n\n".join(entries) or "(no gazette found)"))
        return "\n".join(lines)

    # --- the deep read -----------------------------------------------------------------------

    async def _read(self, claim: ClaimLike, terms: ClaimTerms, out: GazetteOutcome) -> None:
        wanted = self.settings.vicaran_gazettes_read
        chosen = [c for c in out.candidates if c.overlap > 0][:wanted]
        if not chosen:
            return
        cap = self.settings.vicaran_gazette_read_chars
        texts = await asyncio.gather(*(self._fetch(c.gazette, cap, out) for c in chosen))
        read = [
            GazetteText(c.gazette, text[:cap], c.score, *_found_by(c.gazette, out.searches))
            for c, text in zip(chosen, texts, strict=True)
            if text
        ]
        if not read:
            return
        extra = procedures(terms, claim.entities)
        selected = await asyncio.to_thread(select_passages, read, terms, extra)
        for item in read:
            self._say(
                out,
                "gazette_read",
                title=gazette_title(item.gazette),
                score=f"{item.score:.2f}",
                chars=_thousands(len(item.text), self.language),
                count=item.selected,
            )
        out.read = read
        if not selected:
            return
        reading = await read_passages(
            self.model,
            rendered(GAZETTE_READING_INSTRUCTION, self.language),
            claim.claim_text,
            claim.entities,
            out.period,
            selected,
        )
        out.model_calls += reading.batches
        out.model_rounds += 1  # the batches are read at once
        for error in dict.fromkeys(reading.errors):
            self._say(out, "gazette_reading_failed", error=error)
        if reading.dropped:
            self._say(out, "gazette_quotes_dropped", count=reading.dropped)
        out.evidence = reading.evidence

    async def _fetch(self, gazette: Gazette, cap: int, out: GazetteOutcome) -> str | None:
        title = gazette_title(gazette)
        if not gazette.txt_url:
            reason = message("gazette_no_text", self.language)
            self._say(out, "gazette_read_failed", title=title, reason=reason)
            out.unreadable.append(gazette)
            return None
        try:
            text = await self.client.read_text(gazette.txt_url, max_chars=cap)
        except Exception as error:  # noqa: BLE001 - one unreadable gazette never sinks the claim
            logger.warning("reading %s failed: %s", gazette.txt_url, error)
            text = None
        if not text or not text.strip():
            reason = message("gazette_text_unavailable", self.language)
            self._say(out, "gazette_read_failed", title=title, reason=reason)
            out.unreadable.append(gazette)
            return None
        return text

    # --- the log -----------------------------------------------------------------------------

    def _conclude(self, out: GazetteOutcome) -> None:
        out.found = bool(out.evidence)
        if out.found:
            gazettes = {gazette_key(e.gazette): e.gazette for e in out.evidence}
            labels = "; ".join(gazette_label(g) for g in gazettes.values())
            self._say(out, "gazette_found", count=len(out.evidence), gazettes=labels)
            return
        values = dict(
            rounds=message("gazette_rounds", self.language, count=out.rounds),
            searches=message("gazette_searches", self.language, count=len(out.searches)),
            city=_city_name(out.city) if out.city else message("gazette_every_city", self.language),
            period=out.period.label if out.period else message("gazette_any_date", self.language),
        )
        if not out.read and out.unreadable:  # found, but not one could be read: not "none"
            labels = "; ".join(dict.fromkeys(gazette_label(g) for g in out.unreadable))
            count = len(out.unreadable)
            self._say(out, "gazette_found_unreadable", count=count, gazettes=labels, **values)
        elif not out.read:  # nothing came close enough to be read: no gazette was found
            self._say(out, "gazette_none", **values)
        else:
            read = message("gazette_count", self.language, count=len(out.read))
            self._say(out, "gazette_none_relevant", gazettes=read, **values)

    def _round_line(self, out: GazetteOutcome, round_number: int, searches: int) -> None:
        counted = message("gazette_searches", self.language, count=searches)
        if not out.candidates:
            self._say(out, "gazette_round_empty", round=round_number, searches=counted)
            return
        best = out.candidates[0]
        self._say(
            out,
            "gazette_round",
            round=round_number,
            searches=counted,
            count=len(out.candidates),
            score=f"{best.score:.2f}",
            best=gazette_label(best.gazette),
        )

    def _strategy(self, name: str) -> str:
        return message(f"gazette_strategy_{name}", self.language)

    def _say(self, out: GazetteOutcome, key: str, **values: object) -> None:
        values = {k: localized(v, self.language) for k, v in values.items()}
        line = one_line(message(key, self.language, **values), LOG_LINE_CHARS)
        out.log.append(line)
        if self.emit is not None:
            self.emit(line)


def _dates(period: Period | None) -> tuple[str | None, str | None]:
    if period is None:
        return None, None
    return period.start.isoformat(), period.end.isoformat()


def _merge(found: dict[str, Gazette], gazette: Gazette) -> None:
    """Add a gazette, or add to the searches and excerpts of the one already found."""
    key = gazette_key(gazette)
    known = found.get(key)
    if known is None:
        found[key] = gazette
        return
    found[key] = replace(
        known,
        queries=tuple(dict.fromkeys((*known.queries, *gazette.queries))),
        excerpts=tuple(dict.fromkeys((*known.excerpts, *gazette.excerpts)))[:6],
    )


def _found_by(gazette: Gazette, searches: list[SearchDone]) -> tuple[str, str]:
    """(the first search string that found the gazette, its strategy)."""
    for query in gazette.queries:
        done = next((s for s in searches if s.query == query), None)
        if done is not None:
            return query, done.strategy
    return (gazette.queries[0], "") if gazette.queries else ("", "")


def _thousands(number: int, language: str) -> str:
    """12,345 in English, 12.345 in Portuguese."""
    text = f"{number:,}"
    return text.replace(",", ".") if is_portuguese(language) else text


def _city_name(city: City) -> str:
    return city.name + (f"/{city.state_code}" if city.state_code else "")
