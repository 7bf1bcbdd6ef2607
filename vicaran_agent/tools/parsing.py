"""A small thread pool of its own for parsing untrusted pages, off the event loop.

HTML extraction, Markdown stripping and JSON decoding of fetched pages are CPU work: on the
event loop they would stall every other task, and in asyncio's default executor (where
`asyncio.to_thread` runs, and with it every database save) a burst of large pages would make
the saves queue behind them. So they run here: `VICARAN_PARSE_WORKERS` threads (default 2),
named `vicaran-parse-N`, shared by the whole process. Jobs beyond that wait in this pool's
queue, never in the default one; a job whose caller stopped waiting (a timeout) is dropped if
it has not started.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..config import get_settings

T = TypeVar("T")
THREAD_PREFIX = "vicaran-parse"

_lock = threading.Lock()
_pools: dict[int, ThreadPoolExecutor] = {}


def parse_pool(workers: int | None = None) -> ThreadPoolExecutor:
    """The process's parse pool with `workers` threads (the setting when None)."""
    size = max(1, workers or get_settings().vicaran_parse_workers)
    with _lock:
        pool = _pools.get(size)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix=THREAD_PREFIX)
            _pools[size] = pool
        return pool


async def run_parser(fn: Callable[..., T], /, *args: Any, workers: int | None = None) -> T:
    """`fn(*args)` in the parse pool; its result or its exception."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(parse_pool(workers), functools.partial(fn, *args))
