"""A clock the test moves: what Vicaran's code waits for happens when the test says, not later.

    clock = FakeClock()
    limiter = RateLimiter(1, window=60, clock=clock)
    task = asyncio.create_task(limiter.acquire())   # ... it sleeps by `clock`
    await clock.sleeping(1)                         # once it does,
    clock.advance(61)                               # its time has come: it returns

`autojump=True`: every sleep returns at once and moves the clock to its end (for one sleeper
at a time, e.g. a client's backoff between tries). `slept` lists what was asked, in order.
Threads (the fakes' latency) wait by the same clock with `block`.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any

# Longest a thread blocks on a clock nobody moves (a safety net: the test has failed by then).
BLOCK_LIMIT_SECONDS = 120.0


@dataclass
class _Waiter:
    deadline: float
    wake: Any  # a callable, called once when the deadline has passed
    task: asyncio.Task[Any] | None = None  # the task sleeping (None: a thread)
    woken: bool = field(default=False)


class FakeClock:
    """Monotonic and wall time that only `advance` (or an autojumping sleep) moves."""

    def __init__(self, now: float = 1000.0, *, wall: float = 1_780_000_000.0, autojump=False):
        self._now = now
        self._wall_offset = wall - now
        self.autojump = autojump
        self.slept: list[float] = []
        self._changed = threading.Condition()
        self._waiters: list[_Waiter] = []
        self._watchers: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    # --- the Clock protocol ----------------------------------------------------------------

    def now(self) -> float:
        with self._changed:
            return self._now

    def wall(self) -> float:
        with self._changed:
            return self._now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        with self._changed:
            self.slept.append(seconds)
            deadline = self._now + max(0.0, seconds)
            if self.autojump or deadline <= self._now:
                self._now = max(self._now, deadline)
                self._changed.notify_all()
                waiter = None
            else:
                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] = loop.create_future()
                waiter = _Waiter(
                    deadline,
                    lambda: loop.call_soon_threadsafe(_resolve, future),
                    asyncio.current_task(),
                )
                self._waiters.append(waiter)
                self._changed.notify_all()
                for watcher_loop, event in self._watchers:
                    watcher_loop.call_soon_threadsafe(event.set)
        if waiter is None:
            await asyncio.sleep(0)
            return
        try:
            await future
        finally:
            self._forget(waiter)

    # --- for threads (the fakes) -----------------------------------------------------------

    def block(self, seconds: float, stop: threading.Event | None = None) -> bool:
        """Block this thread until the clock has moved `seconds`; True early when `stop` is set
        (the caller's `notify()` wakes it to look)."""
        with self._changed:
            waiter = _Waiter(self._now + max(0.0, seconds), lambda: None)
            if waiter.deadline <= self._now:
                return bool(stop and stop.is_set())
            self._waiters.append(waiter)
            self._changed.notify_all()
            try:
                self._changed.wait_for(
                    lambda: waiter.woken or bool(stop and stop.is_set()), BLOCK_LIMIT_SECONDS
                )
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                self._changed.notify_all()
            return bool(stop and stop.is_set())

    def notify(self) -> None:
        """Wake blocked threads so they look at their stop events."""
        with self._changed:
            self._changed.notify_all()

    # --- for the test ----------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Move the clock; every sleeper whose time has come wakes."""
        with self._changed:
            self._now += max(0.0, seconds)
            due = [w for w in self._waiters if w.deadline <= self._now and not w.woken]
            for waiter in due:
                waiter.woken = True
                self._waiters.remove(waiter)
                waiter.wake()
            self._changed.notify_all()

    @property
    def sleepers(self) -> int:
        with self._changed:
            return len(self._waiters)

    def next_deadline(self) -> float | None:
        with self._changed:
            return min((w.deadline for w in self._waiters), default=None)

    async def sleeping(self, count: int = 1, seconds: float = 30.0) -> None:
        """Return once at least `count` sleepers (tasks or threads) wait on this clock."""
        reached = await asyncio.to_thread(self._wait_for_sleepers, count, seconds)
        if not reached:
            raise AssertionError(f"{self.sleepers} sleeper(s) on the clock, {count} expected")

    async def settled(self, tasks: list[asyncio.Task[Any]], seconds: float = 30.0) -> None:
        """Return once every task in `tasks` has ended or sleeps on this clock (same loop)."""
        changed = asyncio.Event()
        watcher = (asyncio.get_running_loop(), changed)
        with self._changed:
            self._watchers.append(watcher)
        try:
            async with asyncio.timeout(seconds):
                while True:
                    changed.clear()
                    with self._changed:
                        asleep = {w.task for w in self._waiters if w.task is not None}
                    running = [t for t in tasks if not t.done() and t not in asleep]
                    if not running:
                        return
                    signal = asyncio.ensure_future(changed.wait())
                    try:
                        await asyncio.wait([*running, signal], return_when="FIRST_COMPLETED")
                    finally:
                        signal.cancel()
        finally:
            with self._changed:
                self._watchers.remove(watcher)

    async def run(self, tasks: list[asyncio.Task[Any]], seconds: float = 30.0) -> None:
        """Move the clock from deadline to deadline until every task has ended."""
        while True:
            await self.settled(tasks, seconds)
            if all(t.done() for t in tasks):
                return
            deadline = self.next_deadline()
            if deadline is None:  # asleep, but not on this clock: a bug in the test
                raise AssertionError("tasks wait, but on nothing this clock can end")
            self.advance(deadline - self.now())

    def _wait_for_sleepers(self, count: int, seconds: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: len(self._waiters) >= count, seconds)

    def _forget(self, waiter: _Waiter) -> None:
        with self._changed:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
                self._changed.notify_all()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
