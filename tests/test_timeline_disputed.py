"""Two dates for one happening: flagged in the timeline (each linked to the other) and listed in
the report's Notes; events that only share a date's year, or tell different things, are not."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.store import fresh_repository
from vicaran_agent.model_outputs import DraftEvent, StatedOrder, TimelineDraft
from vicaran_agent.schemas import InvestigationConfig, TimelineEvent
from vicaran_agent.server import views
from vicaran_agent.storage import Repository
from vicaran_agent.sub_agents.timeline_builder import (
    build_events,
    flag_disputed,
    flag_stated_orders,
)

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


TENDER = "The Riverton council opened the tender for the river cleanup"


def test_a_claims_order_contradicted_by_the_dates_is_flagged_on_both_events() -> None:
    draft = TimelineDraft(
        events=[
            DraftEvent(date="2024-05-02", text=f"{SIGNED}.", source_numbers=[1]),
            DraftEvent(date="2024-03-01", text=f"{TENDER}.", source_numbers=[2]),
            DraftEvent(
                date="2024", text="Acme Chemicals reported record profits.", source_numbers=[1]
            ),
            DraftEvent(
                date="2024-06-10", text="The council approved the cleanup plan.", source_numbers=[2]
            ),
        ],
        stated_orders=[
            StatedOrder(claim_key="C1", earlier=1, later=2),  # signed before the tender: no
            StatedOrder(claim_key="c2", earlier=2, later=4),  # tender before approval: yes
            StatedOrder(claim_key="C2", earlier=1, later=3),  # May 2024 is within "2024"
            StatedOrder(claim_key="C9", earlier=4, later=2),  # no such claim
            StatedOrder(claim_key="C1", earlier=4, later=7),  # no such event
        ],
    )
    events = build_events(draft, [])
    claims = {"C1": "Acme signed before the tender opened.", "C2": "The tender came first."}
    found = flag_stated_orders([draft], events, claims)
    by_date = {e.event_date: e for e in events}
    assert [(claim, a.event_date, b.event_date) for claim, a, b in found] == [
        ("Acme signed before the tender opened.", "2024-05-02", "2024-03-01")
    ]
    signed, tender = by_date["2024-05-02"], by_date["2024-03-01"]
    assert [(d.stated, d.other_date) for d in signed.order_disputes] == [("before", "2024-03-01")]
    assert [(d.stated, d.other_date) for d in tender.order_disputes] == [("after", "2024-05-02")]
    assert signed.order_disputes[0].other_text == tender.event_text
    assert by_date["2024"].order_disputes == by_date["2024-06-10"].order_disputes == []


def test_the_order_flag_is_saved_and_the_dashboard_links_the_two_events(repo: Repository) -> None:
    config = InvestigationConfig.for_mode(
        "detailed", investigation_id=str(uuid.uuid4()), title="t", brief="b", language="en"
    )
    repo.start_investigation(config)
    draft = TimelineDraft(
        events=[
            DraftEvent(date="2024-05-02", text=f"{SIGNED}."),
            DraftEvent(date="2024-03-01", text=f"{TENDER}."),
        ],
        stated_orders=[StatedOrder(claim_key="C1", earlier=1, later=2)],
    )
    events = build_events(draft, [])
    flag_stated_orders([draft], events, {"C1": "Acme signed first."})
    repo.save_timeline(config.investigation_id, events)
    saved = repo.get_investigation(config.investigation_id)
    assert saved is not None
    tender, signed = saved.timeline  # in date order
    assert (
        signed.order_disputes[0].stated == "before" and tender.order_disputes[0].stated == "after"
    )
    page = views.detail_body(saved)
    assert "“Acme signed first.” puts this before an event the sources date earlier:" in page
    assert f'<a href="#event-{tender.id}">2024-03-01</a>' in page
    assert f'<a href="#event-{signed.id}">2024-05-02</a>' in page
    assert page.count('class="event disputed"') == 2


async def test_the_report_notes_list_a_claims_order_the_dates_contradict(env) -> None:
    from tests.support.conversation import Conversation
    from vicaran_agent import state_keys as keys

    env.set(VICARAN_FAST_MODEL="scripted/default+stated-order")
    conversation = Conversation()
    await conversation.send(
        "Detailed investigation. Investigate whether Acme Chemicals polluted Riverton's water."
    )
    events = await conversation.send("APPROVED")
    state = await conversation.state()
    flagged = [e for e in state[keys.TIMELINE_RECORDS] if e["order_disputes"]]
    assert len(flagged) == 2
    report = conversation.texts(events)[-1]
    assert "The dates contradict a claim's order of events" in report
    assert flagged[0]["order_disputes"][0]["claim"] in report
