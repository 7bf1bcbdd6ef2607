"""Waiting for a condition that another thread, process or event loop makes true.

Used only where there is nothing to await (a subprocess, a server in another loop, a row in a
database): the check is polled, and the wait fails with `what` after `seconds`. The poll interval
is never a guess of how long the other side takes; no test asserts on the time waited.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

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


async def in_thread(function: Callable[..., T], *args: object, seconds: float = 90.0) -> T:
    """`function(*args)` in a thread of its own, awaited for at most `seconds`.

    Unlike `asyncio.to_thread`, a call that never returns fails the test with the thread's
    stack instead of hanging the event loop's teardown (which waits for its executor's threads
    without a bound on Python 3.11) and with it the rest of the suite.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result = function(*args)
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting test
            loop.call_soon_threadsafe(settle, None, error)
        else:
            loop.call_soon_threadsafe(settle, result, None)

    thread = threading.Thread(target=run, name=f"in-thread-{function.__name__}", daemon=True)
    thread.start()
    try:
        return await asyncio.wait_for(asyncio.shield(done), seconds)
    except TimeoutError:
        frame = sys._current_frames().get(thread.ident or 0)
        stack = "".join(traceback.format_stack(frame)) if frame else "(ended)"
        raise NotInTime(
            f"{function.__name__}{args!r} still running after {seconds:g} s:\n{stack}"
            f"{_waiting_tasks(loop)}"
        ) from None


def _waiting_tasks(ours: asyncio.AbstractEventLoop) -> str:
    """Where the tasks of every other running event loop wait (what a hung command awaits)."""
    lines = []
    for thing in gc.get_objects():
        if (
            isinstance(thing, asyncio.AbstractEventLoop)
            and thing is not ours
            and thing.is_running()
        ):
            for task in list(asyncio.all_tasks(thing)):
                where = [
                    f"{f.f_code.co_filename}:{f.f_lineno} {f.f_code.co_name}"
                    for f in task.get_stack()
                ]
                lines.append(f"task {task.get_name()}: " + " <- ".join(reversed(where)))
    return "\n".join(["", "tasks of other running loops:", *lines]) if lines else ""
