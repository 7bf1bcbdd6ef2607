"""Per-service request budgets: a service's rate limit holds whatever the concurrency."""

from __future__ import annotations

import math
import threading
from collections import deque

from .. import services
from ..clock import SYSTEM_CLOCK, Clock


class RateLimiter:
    """At most `limit` requests in any rolling `window` seconds (the way services count).

    A burst up to the limit goes at once; beyond it each caller reserves the first free slot
    and sleeps until it comes, so waiting callers are served in order. With `burst`, a token
    bucket of that many tokens, refilled at `limit` per `window`, also holds (GCRA): at most
    `burst` go at once, the rest one every `window / limit` seconds. `hold(seconds)` makes every
    request wait until then (a service's Retry-After). Time is `clock`'s.
    """

    def __init__(
        self,
        limit: int,
        window: float = 60.0,
        burst: int | None = None,
        *,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.limit = max(1, limit)
        self.window = window
        self.burst = None if burst is None else max(1, burst)
        self._clock = clock
        self._slots: deque[float] = deque()  # start times reserved, ascending
        self._due = -math.inf  # the bucket's theoretical arrival time of the next request
        self._held_until = -math.inf
        self._holds = 0  # how many holds so far: a caller that slept through one queues again
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take one request slot; returns how long to wait before using it."""
        with self._lock:
            now = self._clock.now()
            while self._slots and self._slots[0] <= now - self.window:
                self._slots.popleft()
            start = max(now, self._held_until)
            if len(self._slots) >= self.limit:
                # a margin: a request can reach the service later than it was scheduled (a
                # busy event loop, the network), and bunch up with the next window's
                margin = max(0.25, 0.02 * self.window)
                start = max(start, self._slots[-self.limit] + self.window + margin)
            if self.burst is not None:
                interval = self.window / self.limit
                earliest = self._due - (self.burst - 1) * interval
                if earliest > start + 1e-9:  # not a rounding error of the sum
                    start = earliest
                self._due = max(self._due, start) + interval
            self._slots.append(start)
            return start - now

    def hold(self, seconds: float) -> None:
        """No request before `seconds` from now (never shortens a hold in force)."""
        with self._lock:
            self._held_until = max(self._held_until, self._clock.now() + max(0.0, seconds))
            self._holds += 1

    async def acquire(self) -> None:
        while True:
            holds = self._holds
            wait = self.reserve()
            if wait <= 0:
                return
            await self._clock.sleep(wait)
            if self._holds == holds or self._clock.now() >= self._held_until:
                return
            # a hold came while this caller slept, and lasts beyond its slot: queue again


def limiter(
    service: str,
    per_minute: int,
    window: float = 60.0,
    burst: int | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
) -> RateLimiter:
    """The process-wide limiter of one service (shared by every investigation) on `clock`.

    `window` rescales the budget: `per_minute * window / 60` requests per `window` seconds;
    `burst` (requests at once, a token bucket over the window) is not rescaled.
    """
    shared = services.current()
    with shared.lock:
        key = (service, per_minute, window, burst, clock)
        if key not in shared.limiters:
            limit = max(1, round(per_minute * window / 60))
            shared.limiters[key] = RateLimiter(limit, window, burst, clock=clock)
        return shared.limiters[key]
