"""The parse pool: untrusted parsing off the event loop and out of the server's process.

HTML extraction, Markdown stripping and JSON decoding of fetched pages, and every reader of the
journalist's documents (PDFium, python-docx, Pillow, Tesseract), run in `VICARAN_PARSE_WORKERS`
worker processes (`workers.WorkerPool`), each with an address space of `VICARAN_PARSE_MEMORY_MB`
and a time limit per task: a page gets as long as its read (`VICARAN_PAGE_TIMEOUT_SECONDS`), a
document `VICARAN_PARSE_TIMEOUT_SECONDS` beyond the OCR time its budget grants. A parser that
runs away costs its page or file, never the server, and the event loop and the database saves
(asyncio's default executor) never wait behind parsing. One pool per process (per setting), made
on first use; `vicaran serve` starts it with the server so the first file pays no start-up, and
its workers are stopped as the process exits.
"""

from __future__ import annotations

import asyncio
import atexit
from collections.abc import Callable
from typing import Any, TypeVar

from .. import services
from ..config import Settings, get_settings
from .pool import DOCUMENT, PAGE, WorkerFailed, WorkerPool

__all__ = ["DOCUMENT", "PAGE", "WorkerFailed", "close_pools", "parse_pool", "run_parser"]

T = TypeVar("T")


def parse_pool(settings: Settings | None = None) -> WorkerPool:
    """The process's parse pool for these settings (started on first use)."""
    settings = settings or get_settings()
    key = (settings.vicaran_parse_workers, settings.vicaran_parse_memory_mb)
    shared = services.current()
    with shared.lock:
        pool = shared.parse_pools.get(key)
        if pool is None:
            pool = shared.parse_pools[key] = WorkerPool(*key)
        return pool


def close_pools() -> None:
    """Stop every parse pool's workers (a server shutting down; tests)."""
    shared = services.current()
    with shared.lock:
        pools = list(shared.parse_pools.values())
        shared.parse_pools.clear()
    for pool in pools:
        pool.close()


atexit.register(close_pools)  # a process that ends (a server, `vicaran docs add`) stops its workers


async def run_parser(
    fn: Callable[..., T], /, *args: Any, settings: Settings | None = None, seconds: float
) -> T:
    """`fn(*args)` (a module-level function: it is sent to a worker by name) in the parse pool,
    as a page task of at most `seconds`; its result, its exception, or WorkerFailed."""
    future = parse_pool(settings).submit(fn, *args, lane=PAGE, timeout=seconds)
    result: T = await asyncio.wrap_future(future)
    return result
