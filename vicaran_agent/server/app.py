"""One FastAPI process: ADK's app (dev UI + agent API) plus the callback API and dashboard.

The whole app sits behind `access.AccessMiddleware`: the Host check, then the dashboard token on
every route but `POST /api/agent-callback` (its own `X-Agent-Secret`) and `GET /healthz`. Behind
it, `limits.BodyLimitMiddleware` answers 413 to a body over VICARAN_MAX_REQUEST_BYTES before it
is read (the callback endpoint has its own limit).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..config import Settings, get_settings
from ..services import Services, current, serving
from ..workers.parsing import parse_pool
from .access import HEALTH_PATH, AccessMiddleware, redact_token_logs
from .callback_api import callback_router
from .dashboard import dashboard_router
from .limits import BodyLimitMiddleware
from .reviews import reviews_router

logger = logging.getLogger(__name__)
AGENT_DIR = Path(__file__).resolve().parent.parent  # the vicaran_agent package, as ADK loads it


async def healthz() -> JSONResponse:
    """Liveness for load balancers and scripts: no token needed, nothing revealed."""
    return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})


class ServicesMiddleware:
    """Every request, the lifespan and the tasks they start run with the server's container."""

    def __init__(self, app: ASGIApp, *, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with serving(self.services):
            await self.app(scope, receive, send)


class SessionStoreError(RuntimeError):
    """`VICARAN_SESSION_DB_URL` cannot be used; the message says how to fix it."""


# The asyncio drivers ADK's DatabaseSessionService can use, by SQLAlchemy driver name.
_ASYNC_DRIVERS = {"asyncpg": "asyncpg", "psycopg": "psycopg", "psycopg_async": "psycopg"}


def session_service_uri(settings: Settings) -> str | None:
    """ADK's `session_service_uri` from `VICARAN_SESSION_DB_URL` (None: ADK's local store).

    A PostgreSQL URL needs the `postgres` extra (an asyncio driver and greenlet, which
    SQLAlchemy's asyncio layer runs on): without it, one sentence says so instead of a traceback
    from deep inside ADK.
    """
    uri = settings.vicaran_session_db_url.strip()
    if not uri:
        return None
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(uri)
    except ArgumentError:
        if "://" in uri:
            return uri  # not SQLAlchemy's (memory://, agentengine://): ADK's registry decides
        raise SessionStoreError(
            "VICARAN_SESSION_DB_URL is not a database URL: use e.g. "
            "postgresql+asyncpg://user:password@host:5432/vicaran"
        ) from None
    if url.get_backend_name() != "postgresql":
        return uri
    driver = url.get_driver_name()
    module = _ASYNC_DRIVERS.get(driver)
    if module is None:
        raise SessionStoreError(
            f"VICARAN_SESSION_DB_URL names the {driver} driver, which ADK cannot use "
            "asynchronously: use postgresql+asyncpg://... (or postgresql+psycopg://...)."
        )
    import importlib

    for needed in (module, "greenlet"):
        try:
            importlib.import_module(needed)
        except ImportError:
            raise SessionStoreError(
                f"VICARAN_SESSION_DB_URL is PostgreSQL but {needed} is not installed: "
                "run `uv sync --extra postgres`."
            ) from None
    return uri


def build_server(
    settings: Settings | None = None,
    *,
    with_adk: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
    services: Services | None = None,
) -> FastAPI:
    """The whole Vicaran server; `with_adk=False` leaves out ADK's app (for focused tests).

    `host` is the address the server is bound to: it is one of the Host header values answered
    unless `VICARAN_ALLOWED_HOSTS` says otherwise. `services`: the container it runs with (its
    settings, records stores, budgets...); without one, each request runs with the container
    current at the time (the process's).
    """
    (services or current()).dashboard_served = True  # the runs' links may say "here"
    if settings is None:
        with serving(services or current()):
            settings = get_settings()
    redact_token_logs()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        from ..delivery import start_delivery, stop_delivery

        redact_token_logs()  # again, in case logging was configured after the app was built
        parse_pool(settings)  # the parsers start with the server, not at the first file
        if with_adk:  # else ADK imports it on the event loop at the first message, for seconds
            try:
                importlib.import_module(f"{AGENT_DIR.name}.agent")
            except Exception:  # ADK tries again at the first message, and says why there
                logger.warning("the agent could not be loaded at start-up", exc_info=True)
        start_delivery()  # resumes whatever the outbox still holds from earlier runs
        try:
            yield
        finally:
            await stop_delivery()  # (the parsers end with the process: their pipes close)

    if with_adk:
        from google.adk.cli.fast_api import get_fast_api_app

        app = get_fast_api_app(
            agents_dir=str(AGENT_DIR),
            session_service_uri=session_service_uri(settings),
            web=True,
            host=host,
            port=port,
            lifespan=lifespan,
        )
    else:
        app = FastAPI(lifespan=lifespan)
    app.add_api_route(
        HEALTH_PATH, healthz, methods=["GET", "HEAD"], include_in_schema=False, name="healthz"
    )
    app.include_router(callback_router())
    app.include_router(dashboard_router())
    app.include_router(reviews_router())
    app.add_middleware(BodyLimitMiddleware)  # no body past VICARAN_MAX_REQUEST_BYTES is read
    app.add_middleware(AccessMiddleware, bound_host=host)  # before every route
    if services is not None:
        app.add_middleware(ServicesMiddleware, services=services)  # the outermost
    app.state.services = services
    return app
