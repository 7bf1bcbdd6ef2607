"""One FastAPI process: ADK's app (dev UI + agent API) plus the callback API and dashboard.

The whole app sits behind `access.AccessMiddleware`: the Host check, then the dashboard token on
every route but `POST /api/agent-callback` (its own `X-Agent-Secret`) and `GET /healthz`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from ..config import Settings, get_settings
from .access import HEALTH_PATH, AccessMiddleware, redact_token_logs
from .callback_api import callback_router
from .dashboard import dashboard_router

AGENT_DIR = Path(__file__).resolve().parent.parent  # the vicaran_agent package, as ADK loads it


async def healthz() -> JSONResponse:
    """Liveness for load balancers and scripts: no token needed, nothing revealed."""
    return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})


def build_server(
    settings: Settings | None = None,
    *,
    with_adk: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> FastAPI:
    """The whole Vicaran server; `with_adk=False` leaves out ADK's app (for focused tests).

    `host` is the address the server is bound to: it is one of the Host header values answered
    unless `VICARAN_ALLOWED_HOSTS` says otherwise.
    """
    settings = settings or get_settings()
    redact_token_logs()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        from ..delivery import start_delivery, stop_delivery

        redact_token_logs()  # again, in case logging was configured after the app was built
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
    app.add_api_route(
        HEALTH_PATH, healthz, methods=["GET", "HEAD"], include_in_schema=False, name="healthz"
    )
    app.include_router(callback_router())
    app.include_router(dashboard_router())
    app.add_middleware(AccessMiddleware, bound_host=host)  # the outermost: before every route
    return app
