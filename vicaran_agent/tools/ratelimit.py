"""Per-service request budgets: a service's rate limit holds whatever the concurrency."""

from __future__ import annotations

import asyncio
import threading
import time


class RateLimiter:
    """A token bucket: `per_minute` requests a minute, in bursts of at most a tenth of that.

    Tokens may go negative: each caller reserves its slot at once and sleeps until it comes,
    so waiting callers are served in order and the rate never exceeds the budget.
    """

    def __init__(self, per_minute: int) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, per_minute / 10.0)
        self._tokens = self.capacity
        self._stamp = time.monotonic()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take one request slot; returns how long to wait before using it."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now
            self._tokens -= 1
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    async def acquire(self) -> None:
        wait = self.reserve()
        if wait > 0:
            await asyncio.sleep(wait)


_LIMITERS: dict[tuple[str, int], RateLimiter] = {}
_REGISTRY_LOCK = threading.Lock()


def limiter(service: str, per_minute: int) -> RateLimiter:
    """The process-wide limiter of one service (shared by every investigation)."""
    with _REGISTRY_LOCK:
        key = (service, per_minute)
        if key not in _LIMITERS:
            _LIMITERS[key] = RateLimiter(per_minute)
        return _LIMITERS[key]
