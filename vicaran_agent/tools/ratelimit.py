"""Per-service request budgets: a service's rate limit holds whatever the concurrency."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque


class RateLimiter:
    """At most `limit` requests in any rolling `window` seconds (the way services count).

    A burst up to the limit goes at once; beyond it each caller reserves the first free slot
    and sleeps until it comes, so waiting callers are served in order.
    """

    def __init__(self, limit: int, window: float = 60.0) -> None:
        self.limit = max(1, limit)
        self.window = window
        self._slots: deque[float] = deque()  # start times reserved, ascending
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take one request slot; returns how long to wait before using it."""
        with self._lock:
            now = time.monotonic()
            while self._slots and self._slots[0] <= now - self.window:
                self._slots.popleft()
            start = now
            if len(self._slots) >= self.limit:
                # a margin: a request can reach the service later than it was scheduled (a
                # busy event loop, the network), and bunch up with the next window's
                margin = max(0.25, 0.02 * self.window)
                start = max(now, self._slots[-self.limit] + self.window + margin)
            self._slots.append(start)
            return start - now

    async def acquire(self) -> None:
        wait = self.reserve()
        if wait > 0:
            await asyncio.sleep(wait)


_LIMITERS: dict[tuple[str, int, float], RateLimiter] = {}
_REGISTRY_LOCK = threading.Lock()


def limiter(service: str, per_minute: int, window: float = 60.0) -> RateLimiter:
    """The process-wide limiter of one service (shared by every investigation).

    `window` rescales the budget: `per_minute * window / 60` requests per `window` seconds.
    """
    with _REGISTRY_LOCK:
        key = (service, per_minute, window)
        if key not in _LIMITERS:
            _LIMITERS[key] = RateLimiter(max(1, round(per_minute * window / 60)), window)
        return _LIMITERS[key]
