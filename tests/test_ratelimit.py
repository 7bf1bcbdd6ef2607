"""Per-service request budgets hold whatever the concurrency."""

from __future__ import annotations

import asyncio
import time

import pytest

from vicaran_agent.tools.ratelimit import RateLimiter, limiter

pytestmark = pytest.mark.real_rate_limits


async def _stamps(bucket: RateLimiter, calls: int) -> list[float]:
    started = time.monotonic()
    stamps: list[float] = []

    async def call() -> None:
        await bucket.acquire()
        stamps.append(time.monotonic() - started)

    await asyncio.gather(*(call() for _ in range(calls)))
    return sorted(stamps)


async def test_no_rolling_window_ever_carries_more_than_the_limit():
    bucket = RateLimiter(limit=10, window=0.5)
    stamps = await _stamps(bucket, 35)
    assert stamps[9] < 0.2  # the whole budget at once
    assert stamps[10] >= 0.5  # then the next window (plus a margin)
    assert stamps[-1] >= 1.5  # 35 calls need 4 windows
    # tolerance for timer resolution: a window is [t, t + 0.5 s)
    assert max(sum(1 for s in stamps if t <= s < t + 0.49) for t in stamps) <= 10


def test_one_limiter_per_service_and_rate():
    assert limiter("tavily", 100) is limiter("tavily", 100)
    assert limiter("tavily", 100) is not limiter("jina", 100)
    assert limiter("tavily", 120, window=5).limit == 10  # rescaled to the window


def test_jina_budget_depends_on_the_key():
    from vicaran_agent.config import Settings

    assert Settings(_env_file=None).jina_rpm == 20
    assert Settings(_env_file=None, jina_api_key="k").jina_rpm == 200
    assert Settings(_env_file=None, vicaran_jina_rpm=50).jina_rpm == 50
