"""Retry-After parsing and backoff, shared by the search, reader and model clients."""

from __future__ import annotations

from email.utils import formatdate

from tests.support.clock import FakeClock
from vicaran_agent.clients.retry import backoff_delay, parse_retry_after


def test_parse_retry_after_seconds_and_dates():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None and parse_retry_after("soon") is None
    clock = FakeClock(wall=1_780_000_000.0)  # an HTTP date counts from the clock's wall time
    assert parse_retry_after(formatdate(clock.wall() + 10, usegmt=True), clock) == 10.0
    assert parse_retry_after(formatdate(clock.wall() - 100, usegmt=True), clock) == 0.0


def test_backoff_grows_is_jittered_capped_and_honours_retry_after():
    for attempt in range(6):
        delay = backoff_delay(attempt, base=0.5, cap=8.0)
        full = min(8.0, 0.5 * 2**attempt)
        assert full / 2 <= delay <= full
    assert backoff_delay(0, retry_after=5.0, base=0.5, cap=8.0) == 5.0
    assert backoff_delay(0, retry_after=60.0, base=0.5, cap=8.0) == 8.0
