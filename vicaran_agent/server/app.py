"""One FastAPI process: ADK's app (dev UI + agent API) plus the callback API and dashboard."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from ..config import Settings, get_settings
from .callback_api import callback_router
from .dashboard import dashboard_router

AGENT_DIR = Path(__file__).resolve().parent.parent  # the vicaran_agent package, as ADK loads it


def build_server(
    settings: Settings | None = None,
    *,
    with_adk: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> FastAPI:
    """The whole Vicaran server; `with_adk=False` leaves out ADK's app (for focused tests)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        from ..delivery import start_delivery, stop_delivery

        start_delivery()  # resumes whatever the outbox still holds from earlier runs
        try:
            yield
        finally:
            await stop_delivery()

    if with_adk:
        from google.adk.cli.fast_api import get_fast_api_app

        app = get_fast_api_app(
            agents_dir=str(AGENT_DIR), web=True, host=host, port=port, lifespan=lifespan
        )
    else:
        app = FastAPI(lifespan=lifespan)
    app.include_router(callback_router())
    app.include_router(dashboard_router())
    return app
