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
from ..model_outputs import TimelineDraft
from ..prompts.timeline_builder import TIMELINE_BUILDER_INSTRUCTION
from ..sanitize import clean
from ..schemas import Claim, DatePrecision, Source, TimelineEvent
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


def build_events(draft: TimelineDraft, numbered: list[tuple[int, Source]]) -> list[TimelineEvent]:
    """Valid, deduplicated events in chronological order."""
    by_number = dict(numbered)
    seen: set[tuple[str, str]] = set()
    events = []
    for item in draft.events:
        parsed = parse_event_date(item.date)
        text = " ".join(clean(item.text).split())
        if not parsed or not text:
            continue
        key = (parsed[0], text.lower())
        if key in seen:
            continue
        seen.add(key)
        urls = [by_number[n].url for n in dict.fromkeys(item.source_numbers) if n in by_number]
        events.append(
            TimelineEvent(
                event_date=parsed[0], date_precision=parsed[1], event_text=text, source_urls=urls
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
        claims = claims_block(stage.records(keys.CLAIM_RECORDS, Claim))
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
        records = {keys.TIMELINE_RECORDS: [e.model_dump(mode="json") for e in events]}
        if not events:
            yield stage.finish(stage.msg("timeline_empty"), records)
            return
        lines = [stage.msg("timeline_header"), "|------|-------|"]
        for event in events:
            text = one_line(event.event_text, 200).replace("|", "\\|")
            lines.append(f"| {event.event_date} | {text} |")
        yield stage.finish("\n".join(lines), records)
