"""Two dates for one happening: flagged in the timeline (each linked to the other) and listed in
the report's Notes; events that only share a date's year, or tell different things, are not."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.store import fresh_repository
from vicaran_agent.schemas import InvestigationConfig, TimelineEvent
from vicaran_agent.server import views
from vicaran_agent.storage import Repository
from vicaran_agent.sub_agents.timeline_builder import flag_disputed

SIGNED = "Acme Chemicals signed the river cleanup contract with the Riverton city council"


def event(day: str, text: str) -> TimelineEvent:
    return TimelineEvent(event_date=day, event_text=text)


def test_one_happening_under_two_dates_is_flagged_both_ways() -> None:
    events = [
        event("2024-03-01", f"{SIGNED}."),
        event("2024-04-01", f"On 1 April 2024 {SIGNED}."),
        event("2024", "Acme Chemicals announced record profits."),  # another happening
        event("2024-03", f"{SIGNED} in March."),  # the same month: no contradiction
    ]
    pairs = flag_disputed(events)
    assert [(a.event_date, b.event_date) for a, b in pairs] == [
        ("2024-03-01", "2024-04-01"),
        ("2024-04-01", "2024-03"),
    ]
    assert events[0].disputed_dates == ["2024-04-01"]
    assert events[1].disputed_dates == ["2024-03-01", "2024-03"]
    assert events[2].disputed_dates == []


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


def test_the_flag_is_saved_and_the_dashboard_links_the_two_events(repo: Repository) -> None:
    config = InvestigationConfig.for_mode(
        "detailed", investigation_id=str(uuid.uuid4()), title="t", brief="b", language="en"
    )
    repo.start_investigation(config)
    events = [event("2024-03-01", f"{SIGNED}."), event("2024-04-01", f"{SIGNED} again.")]
    flag_disputed(events)
    repo.save_timeline(config.investigation_id, events)
    saved = repo.get_investigation(config.investigation_id)
    assert saved is not None
    first, second = saved.timeline
    assert (first.disputed_dates, second.disputed_dates) == (["2024-04-01"], ["2024-03-01"])
    page = views.detail_body(saved)
    assert f'<a href="#event-{second.id}">2024-04-01</a>' in page
    assert f'<a href="#event-{first.id}">2024-03-01</a>' in page
    assert page.count('class="event disputed"') == 2
