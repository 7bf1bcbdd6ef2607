"""Waiting for a condition that another thread, process or event loop makes true.

Used only where there is nothing to await (a subprocess, a server in another loop, a row in a
database): the check is polled, and the wait fails with `what` after `seconds`. The poll interval
is never a guess of how long the other side takes; no test asserts on the time waited.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Awaitable, Callable

POLL_SECONDS = 0.05


class NotInTime(AssertionError):
    """The condition did not come true within the bound."""


async def until(
    check: Callable[[], bool | Awaitable[bool]], what: str, seconds: float = 60.0
) -> None:
    """Return once `check()` is true (it may be a coroutine function); fail after `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                result = check()
                if inspect.isawaitable(result):
                    result = await result
                if result:
                    return
                await asyncio.sleep(POLL_SECONDS)
    except TimeoutError:
        raise NotInTime(f"not in {seconds:g} s: {what}") from None


def until_sync(check: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    """`until` for code outside an event loop."""
    deadline = time.monotonic() + seconds
    pause = threading.Event()
    while not check():
        if time.monotonic() > deadline:
            raise NotInTime(f"not in {seconds:g} s: {what}")
        pause.wait(POLL_SECONDS)
