"""HTTP clients that are cheap to create: one TLS context (the CA bundle) for the process.

Building an `httpx.AsyncClient` loads the CA bundle each time (~100 ms of CPU that blocks the
event loop); sharing one `ssl.SSLContext` makes a client cost a few milliseconds.
"""

from __future__ import annotations

import asyncio
import ssl
from functools import lru_cache
from typing import Any

import certifi
import httpx


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


class LoopBound:
    """At most `size` at once; usable from any event loop (one semaphore per loop)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def slot(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.size), loop
        return self._semaphore


def async_client(**options: Any) -> httpx.AsyncClient:
    """`httpx.AsyncClient(**options)` with the shared TLS context."""
    options.setdefault("verify", tls_context())
    return httpx.AsyncClient(**options)
