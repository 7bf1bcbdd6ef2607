"""timeline_builder: dated events; skipped in code (no model call) in quick mode."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from datetime import date

from google.adk.events import Event

from .. import state_keys as keys
from ..formatting import claims_block, one_line, sources_block
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
        records = {keys.TIMELINE_RECORDS: [e.model_dump(mode="json") for e in events]}
        if not events:
            yield stage.finish(stage.msg("timeline_empty"), records)
            return
        lines = [stage.msg("timeline_header"), "|------|-------|"]
        for event in events:
            text = one_line(event.event_text, 200).replace("|", "\\|")
            lines.append(f"| {event.event_date} | {text} |")
        yield stage.finish("\n".join(lines), records)
