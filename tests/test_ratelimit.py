"""Per-service request budgets hold whatever the concurrency."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.clock import FakeClock
from vicaran_agent.clients.ratelimit import RateLimiter, limiter

pytestmark = pytest.mark.real_rate_limits


async def _stamps(bucket: RateLimiter, clock: FakeClock, calls: int) -> list[float]:
    """When each of `calls` concurrent callers got through, by `clock` (moved as they sleep)."""
    started = clock.now()
    stamps: list[float] = []

    async def call() -> None:
        await bucket.acquire()
        stamps.append(clock.now() - started)

    await clock.run([asyncio.create_task(call()) for _ in range(calls)])
    return sorted(stamps)


async def test_no_rolling_window_ever_carries_more_than_the_limit():
    clock = FakeClock()
    bucket = RateLimiter(limit=10, window=0.5, clock=clock)
    stamps = await _stamps(bucket, clock, 35)
    assert stamps[:10] == [0.0] * 10  # the whole budget at once
    assert stamps[10] == pytest.approx(0.5 + 0.25)  # then the next window, plus the margin
    assert stamps[-1] == pytest.approx(3 * 0.75)  # 35 calls need 4 windows
    assert max(sum(1 for s in stamps if t <= s < t + 0.5) for t in stamps) == 10


def test_one_limiter_per_service_and_rate():
    assert limiter("tavily", 100) is limiter("tavily", 100)
    assert limiter("tavily", 100) is not limiter("jina", 100)
    assert limiter("tavily", 120, window=5).limit == 10  # rescaled to the window


def test_jina_budget_depends_on_the_key():
    from vicaran_agent.config import Settings

    assert Settings(_env_file=None).jina_rpm == 20
    assert Settings(_env_file=None, jina_api_key="k").jina_rpm == 200
    assert Settings(_env_file=None, vicaran_jina_rpm=50).jina_rpm == 50


def test_a_burst_caps_what_goes_at_once_and_the_rest_follows_at_the_rate():
    # 25 a minute, at most 5 at once: a token bucket (one token every 60/25 = 2.4 s)
    bucket = RateLimiter(limit=25, window=60, burst=5, clock=FakeClock())
    waits = [bucket.reserve() for _ in range(7)]
    assert waits[:5] == [0.0] * 5
    assert waits[5:] == pytest.approx([2.4, 4.8])


def test_the_window_still_holds_when_the_burst_is_larger():
    # a bucket of 50 alone would let 50 go at once and 75 in the first minute; the window
    # keeps any 60 s to 25 (the 26th waits for the first to leave it, plus the margin)
    bucket = RateLimiter(limit=25, window=60, burst=50, clock=FakeClock())
    waits = [bucket.reserve() for _ in range(26)]
    assert waits[:25] == [0.0] * 25
    assert waits[25] == pytest.approx(60 + 1.2)


def test_a_hold_delays_every_later_request_until_it_ends():
    clock = FakeClock()
    bucket = RateLimiter(limit=25, window=60, burst=25, clock=clock)
    assert bucket.reserve() == 0.0
    bucket.hold(20.0)
    bucket.hold(5.0)  # a shorter hold never shortens the one in force
    assert bucket.reserve() == pytest.approx(20.0)
    clock.advance(20.0)
    assert bucket.reserve() == 0.0


async def test_a_caller_already_waiting_when_a_hold_comes_waits_for_its_end():
    clock = FakeClock()
    bucket = RateLimiter(limit=1, window=0.2, clock=clock)
    await bucket.acquire()  # the window's one slot
    returned: list[float] = []

    async def waiting() -> None:
        await bucket.acquire()  # its slot is 0.45 s away (the window and the margin)
        returned.append(clock.now())

    task = asyncio.create_task(waiting())
    await clock.settled([task])  # it has reserved, and sleeps
    assert clock.slept == [pytest.approx(0.45)]
    before = clock.now()
    bucket.hold(0.8)  # a 429 said: wait 0.8 s
    await clock.run([task])
    assert returned[0] >= before + 0.8  # not at its old slot (0.45 s): after the hold


def test_one_limiter_per_service_rate_and_burst():
    assert limiter("querido_diario", 25, burst=25) is limiter("querido_diario", 25, burst=25)
    assert limiter("querido_diario", 25, burst=10) is not limiter("querido_diario", 25, burst=25)
    assert limiter("querido_diario", 25, burst=10).burst == 10
    assert limiter("tavily", 100).burst is None  # the other services: the window alone
