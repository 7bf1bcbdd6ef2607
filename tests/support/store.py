"""A fresh records store and the dashboard router in front of it, for the server-side tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from vicaran_agent.config import forget_settings
from vicaran_agent.server.dashboard import dashboard_router
from vicaran_agent.storage import Repository, get_repository
from vicaran_agent.textmatch import sha256_text


@contextmanager
def fresh_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *unset: str
) -> Iterator[Repository]:
    """A new SQLite store under `tmp_path`, open (no token) unless a test sets one.

    `unset`: more settings the test must not inherit from the environment.
    """
    url = f"sqlite:///{tmp_path / 'vicaran.db'}"
    monkeypatch.setenv("VICARAN_DATABASE_URL", url)
    for name in ("VICARAN_DASHBOARD_TOKEN", *unset):
        monkeypatch.delenv(name, raising=False)
    forget_settings()
    repository = get_repository(url)
    try:
        yield repository
    finally:
        repository.close()
        forget_settings()


@asynccontextmanager
async def dashboard_client() -> AsyncIterator[httpx.AsyncClient]:
    """The dashboard router alone, called in-process."""
    app = FastAPI()
    app.include_router(dashboard_router())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


def panel(page: str, key: str) -> str:
    """One panel of a dashboard page."""
    start = page.index(f'<section class="panel" id="{key}"')
    return page[start : page.index("</section>", start)]


def snapshot_href(investigation_id: str, text: str) -> str:
    """The dashboard's link to the stored snapshot of `text`."""
    return f'href="/api/investigations/{investigation_id}/snapshots/{sha256_text(text)}"'
