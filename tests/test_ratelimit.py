"""Per-service request budgets hold whatever the concurrency."""

from __future__ import annotations

import asyncio
import time

import pytest

from vicaran_agent.tools.ratelimit import RateLimiter, limiter

pytestmark = pytest.mark.real_rate_limits


async def test_a_burst_beyond_the_budget_is_spread_over_time():
    bucket = RateLimiter(per_minute=600)  # 10 a second, bursts of 60
    started = time.monotonic()
    stamps: list[float] = []

    async def call() -> None:
        await bucket.acquire()
        stamps.append(time.monotonic() - started)

    await asyncio.gather(*(call() for _ in range(80)))
    stamps.sort()
    assert stamps[59] < 0.2  # the burst allowance goes at once
    assert stamps[-1] >= 1.8  # the 20 beyond it wait ~0.1 s each
    # no one-second window ever carries more than the burst plus a second's rate
    assert max(sum(1 for s in stamps if w <= s < w + 1) for w in stamps) <= 60 + 10


def test_one_limiter_per_service_and_rate():
    assert limiter("tavily", 100) is limiter("tavily", 100)
    assert limiter("tavily", 100) is not limiter("jina", 100)


def test_jina_budget_depends_on_the_key():
    from vicaran_agent.config import Settings

    assert Settings(_env_file=None).jina_rpm == 20
    assert Settings(_env_file=None, jina_api_key="k").jina_rpm == 200
    assert Settings(_env_file=None, vicaran_jina_rpm=50).jina_rpm == 50
