"""Time as a dependency: code that waits or reads the time takes a `Clock`.

Production passes nothing and gets `SYSTEM_CLOCK`; tests pass a clock they move, so a backoff,
a rate limit, a heartbeat or a lease is checked without waiting for it.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds (only differences mean anything)."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (for HTTP dates and stored times)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` by this clock."""
        ...


class SystemClock:
    """The machine's clocks and asyncio's sleep."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


SYSTEM_CLOCK: Clock = SystemClock()


def utc(clock: Clock) -> datetime:
    """The clock's wall time as an aware UTC datetime."""
    return datetime.fromtimestamp(clock.wall(), UTC)
