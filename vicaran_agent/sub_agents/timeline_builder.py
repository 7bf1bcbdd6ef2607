"""timeline_builder: dated events; skipped in code (no model call) in quick mode."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from datetime import date
from itertools import combinations

from google.adk.events import Event

from .. import state_keys as keys
from ..formatting import claims_block, one_line, sources_block
from ..memory import content_words
from ..model_outputs import DraftEvent, TimelineDraft
from ..prompts.timeline_builder import TIMELINE_BUILDER_INSTRUCTION
from ..sanitize import clean
from ..schemas import Claim, DatePrecision, OrderDispute, Source, TimelineEvent
from ._stage import Stage, StageAgent

_ISO = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$")


def parse_event_date(value: str) -> tuple[str, DatePrecision] | None:
    """A valid ISO 8601 calendar date at day, month or year precision, or None."""
    match = _ISO.match(value.strip()[:10] if "T" in value else value.strip())
    if not match:
        return None
    year, month, day = match.groups()
    try:
        date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        return None
    if day:
        return f"{year}-{month}-{day}", "day"
    if month:
        return f"{year}-{month}", "month"
    return year, "year"


def _kept_form(item: DraftEvent) -> tuple[str, DatePrecision, str] | None:
    """(ISO date, its precision, text) of a drafted event as it is kept; None for one that is
    not (no valid date, or no text)."""
    parsed = parse_event_date(item.date)
    text = " ".join(clean(item.text).split())
    return (parsed[0], parsed[1], text) if parsed and text else None


def build_events(draft: TimelineDraft, numbered: list[tuple[int, Source]]) -> list[TimelineEvent]:
    """Valid, deduplicated events in chronological order."""
    by_number = dict(numbered)
    seen: set[tuple[str, str]] = set()
    events = []
    for item in draft.events:
        if (kept := _kept_form(item)) is None:
            continue
        day, precision, text = kept
        if (key := (day, text.lower())) in seen:
            continue
        seen.add(key)
        urls = [by_number[n].url for n in dict.fromkeys(item.source_numbers) if n in by_number]
        events.append(
            TimelineEvent(
                event_date=day, date_precision=precision, event_text=text, source_urls=urls
            )
        )
    return sorted(events, key=lambda e: e.event_date)


SAME_HAPPENING = 0.6  # share of content words two events' texts must have in common (Jaccard)


def flag_disputed(events: list[TimelineEvent]) -> list[tuple[TimelineEvent, TimelineEvent]]:
    """Pairs of events telling the same happening (most of their words, numbers and dates
    aside) under dates that contradict each other; each gets the other's date in
    `disputed_dates`. A date at a coarser precision ("2024", "2024-03") does not contradict a
    finer one within it."""
    words = [content_words(event.event_text) for event in events]
    pairs = []
    for i, j in combinations(range(len(events)), 2):
        first, second = events[i], events[j]
        if first.event_date.startswith(second.event_date) or second.event_date.startswith(
            first.event_date
        ):
            continue
        shared, either = words[i] & words[j], words[i] | words[j]
        if either and len(shared) / len(either) >= SAME_HAPPENING:
            first.disputed_dates.append(second.event_date)
            second.disputed_dates.append(first.event_date)
            pairs.append((first, second))
    return pairs


def flag_stated_orders(
    drafts: list[TimelineDraft], events: list[TimelineEvent], claims: dict[str, str]
) -> list[tuple[str, TimelineEvent, TimelineEvent]]:
    """(claim, earlier, later) for each claim whose stated order of two events their dates
    contradict: the event it puts first is dated after the other. Each event gets an
    `order_disputes` entry naming the claim and the other event. The model only says which
    events a claim orders (`stated_orders`); the dates are compared here. Dates that overlap
    ("2024" and "2024-03-01") contradict no order."""
    kept = {(e.event_date, e.event_text.lower()): e for e in events}
    found: list[tuple[str, TimelineEvent, TimelineEvent]] = []
    for draft in drafts:
        for order in draft.stated_orders:
            claim = claims.get(order.claim_key.strip().upper())
            earlier, later = (_drafted(draft, n, kept) for n in (order.earlier, order.later))
            if claim is None or earlier is None or later is None or earlier is later:
                continue
            first, second = earlier.event_date, later.event_date
            if first.startswith(second) or second.startswith(first) or first < second:
                continue
            if any(d.other_text == later.event_text for d in earlier.order_disputes):
                continue  # said by another batch too
            earlier.order_disputes.append(
                OrderDispute(
                    claim=claim, stated="before", other_date=second, other_text=later.event_text
                )
            )
            later.order_disputes.append(
                OrderDispute(
                    claim=claim, stated="after", other_date=first, other_text=earlier.event_text
                )
            )
            found.append((claim, earlier, later))
    return found


def _drafted(
    draft: TimelineDraft, number: int, kept: dict[tuple[str, str], TimelineEvent]
) -> TimelineEvent | None:
    """The kept event the draft's `number`-th event became, if it was kept."""
    if not 1 <= number <= len(draft.events):
        return None
    form = _kept_form(draft.events[number - 1])
    return kept.get((form[0], form[2].lower())) if form else None


class TimelineBuilderAgent(StageAgent):
    """Builds the story's chronology (detailed mode only)."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        if stage.config.skip_timeline:
            yield stage.finish(stage.msg("timeline_quick"), {keys.TIMELINE_RECORDS: []})
            return
        numbered = stage.usable_sources()
        if not numbered:
            yield stage.finish(stage.msg("timeline_empty"), {keys.TIMELINE_RECORDS: []})
            return
        yield stage.event(stage.msg("timeline_progress"))
        claimed = stage.records(keys.CLAIM_RECORDS, Claim)
        claims = claims_block(claimed)
        drafts, errors = await stage.ask_per_batch(
            TIMELINE_BUILDER_INSTRUCTION,
            numbered,
            lambda batch: sources_block(batch) + "\n\n" + claims,
            TimelineDraft,
        )
        for error in errors:
            stage.issue(stage.msg("timeline_failed_some", error=error))
        if not drafts:
            reason = errors[0] if errors else ""
            yield stage.finish(
                stage.msg("timeline_failed", reason=reason), {keys.TIMELINE_RECORDS: []}
            )
            return
        draft = TimelineDraft(events=[e for d in drafts for e in d.events])
        events = build_events(draft, numbered)
        for first, second in flag_disputed(events):  # in the report's Notes, and flagged
            text = one_line(first.event_text, 160)
            stage.note(
                stage.msg(
                    "timeline_disputed", first=first.event_date, second=second.event_date, text=text
                )
            )
        texts = {claim.key.strip().upper(): claim.claim_text for claim in claimed}
        for claim, earlier, later in flag_stated_orders(drafts, events, texts):
            stage.note(
                stage.msg(
                    "timeline_order",
                    claim=one_line(claim, 160),
                    earlier=one_line(earlier.event_text, 120),
                    later=one_line(later.event_text, 120),
                    earlier_date=earlier.event_date,
                    later_date=later.event_date,
                )
            )
        records = {keys.TIMELINE_RECORDS: [e.model_dump(mode="json") for e in events]}
        if not events:
            yield stage.finish(stage.msg("timeline_empty"), records)
            return
        lines = [stage.msg("timeline_header"), "|------|-------|"]
        for event in events:
            text = one_line(event.event_text, 200).replace("|", "\\|")
            lines.append(f"| {event.event_date} | {text} |")
        yield stage.finish("\n".join(lines), records)
