"""HTTP clients that are cheap to create: one TLS context (the CA bundle) for the process.

Building an `httpx.AsyncClient` loads the CA bundle each time (~100 ms of CPU that blocks the
event loop); sharing one `ssl.SSLContext` makes a client cost a few milliseconds.
"""

from __future__ import annotations

import ssl
from functools import lru_cache
from typing import Any

import certifi
import httpx


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


def async_client(**options: Any) -> httpx.AsyncClient:
    """`httpx.AsyncClient(**options)` with the shared TLS context."""
    options.setdefault("verify", tls_context())
    return httpx.AsyncClient(**options)
