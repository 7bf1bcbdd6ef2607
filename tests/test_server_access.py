"""One access rule for `vicaran serve`: the Host check and the dashboard token on every route.

The whole server (ADK's dev UI and API, the callback API, the read API and the dashboard) is
built by `build_server` and driven over ASGI (httpx for HTTP, Starlette's test client for
websockets) and, for the access log, through a real uvicorn.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, WebSocket
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.support import wait
from vicaran_agent.config import forget_settings
from vicaran_agent.server.access import COOKIE_NAME, RedactTokens, cookie_value, redact
from vicaran_agent.server.app import build_server

TOKEN = "s3cret-serve-token"
SECRET = "callback-secret-0123"
BASE = "http://127.0.0.1:8000"
WS = "ws://127.0.0.1:8000"  # the test client's websockets ignore its base_url
UNAUTHORIZED = {"success": False, "error": "Unauthorized"}
BEARER = {"Authorization": f"Bearer {TOKEN}"}
EXEMPT = {("/healthz", "GET"), ("/healthz", "HEAD")}


@pytest.fixture(autouse=True)
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh store, the callback secret, no token and no host list unless a test sets them."""
    for name in ("VICARAN_DASHBOARD_TOKEN", "VICARAN_ALLOWED_HOSTS", "CALLBACK_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VICARAN_DATABASE_URL", f"sqlite:///{tmp_path / 'vicaran.db'}")
    monkeypatch.setenv("AGENT_SECRET", SECRET)
    forget_settings()
    yield
    forget_settings()


def configure(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    forget_settings()


@pytest.fixture(scope="module")
def adk_app() -> FastAPI:
    """The whole server with ADK's app, built once (settings are read per request)."""
    return build_server()


@pytest.fixture
def small_app() -> FastAPI:
    """The server without ADK's app, plus a websocket that echoes (to see one let through)."""
    app = build_server(with_adk=False)

    @app.websocket("/ws-echo")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text(f"query={websocket.url.query}")
        await websocket.close()

    return app


async def http(app: FastAPI, base: str = BASE) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=base) as client:
        yield client


@pytest.fixture
async def adk(adk_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async for client in http(adk_app):
        yield client


@pytest.fixture
async def small(small_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async for client in http(small_app):
        yield client


def concrete(path: str) -> str:
    """A route's path with every parameter filled in."""
    return re.sub(r"\{[^}]+\}", "x", path)


def every_route(app: FastAPI) -> list[tuple[str, str]]:
    """(path, method) of every HTTP route on the app's top level, mounts included."""
    found: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Route):
            found += [(concrete(route.path), m) for m in sorted(route.methods or ())]
        elif isinstance(route, Mount):
            found += [(route.path + "/", "GET"), (route.path + "/index.html", "GET")]
    return found


def assert_refused(response: httpx.Response, where: Any) -> None:
    assert response.status_code == 401, (where, response.status_code, response.text[:200])
    assert response.headers["www-authenticate"] == "Bearer", where
    if response.request.method == "HEAD":
        assert not response.content, where
    elif response.headers["content-type"].startswith("application/json"):
        assert response.json() == UNAUTHORIZED, where
    else:
        assert response.headers["content-type"].startswith("text/html"), where
        assert "Access token needed" in response.text, where


# --- the token on every route --------------------------------------------------------------


async def test_every_adk_route_needs_the_token(
    adk: httpx.AsyncClient, adk_app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    routes = every_route(adk_app)
    paths = {path for path, _ in routes}
    # ADK's routes are there: sessions with their state, runs, apps, the dev UI, the builder.
    for expected in (
        "/apps/x/users/x/sessions/x",
        "/run",
        "/run_sse",
        "/list-apps",
        "/dev-ui/",
        "/dev/apps/x/builder/save",
        "/health",
        "/openapi.json",
        "/docs",
    ):
        assert expected in paths, expected
    checked = 0
    for path, method in routes:
        if (path, method) in EXEMPT:
            continue
        body = {} if method in ("POST", "PUT", "PATCH") else None
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            response = await adk.request(method, path, json=body, headers=headers)
            assert_refused(response, (method, path, headers))
        checked += 1
    assert checked > 60
    # The dashboard, the read API and its static files are behind it too.
    for path in (
        "/investigations",
        f"/investigations/{uuid.uuid4()}",
        "/api/investigations",
        f"/api/investigations/{uuid.uuid4()}/export?format=md",
        "/dashboard-static/dashboard.js",
    ):
        assert_refused(await adk.get(path), path)
    # Only POST is exempt on the callback path.
    assert_refused(await adk.get("/api/agent-callback"), "GET /api/agent-callback")
    # Pages get the page, APIs JSON.
    assert "Access token needed" in (await adk.get("/dev-ui/")).text
    assert (await adk.get("/list-apps")).json() == UNAUTHORIZED


async def test_with_the_token_adk_answers(
    adk: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    listed = await adk.get("/list-apps", headers=BEARER)
    assert listed.status_code == 200 and listed.json() == ["vicaran_agent"]
    cookie = {"Cookie": f"{COOKIE_NAME}={cookie_value(TOKEN)}"}
    assert (await adk.get("/list-apps", headers=cookie)).status_code == 200
    assert (await adk.get("/api/investigations", headers=cookie)).json() == []
    assert (await adk.get("/healthz")).json() == {"status": "ok"}


async def test_without_a_token_setting_everything_is_open(adk: httpx.AsyncClient) -> None:
    assert (await adk.get("/list-apps")).status_code == 200
    assert (await adk.get("/api/investigations")).status_code == 200
    assert (await adk.get("/investigations")).status_code == 200


async def test_healthz_needs_nothing_and_says_nothing(
    adk: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    for method in ("GET", "HEAD"):
        response = await adk.request(method, "/healthz")
        assert response.status_code == 200, method
    response = await adk.get("/healthz")
    assert response.json() == {"status": "ok"}
    assert TOKEN not in response.text and SECRET not in response.text
    assert "set-cookie" not in response.headers


async def test_callback_takes_its_secret_not_the_token(
    small: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    body = {"type": "INVESTIGATION_STARTED", "investigation_id": str(uuid.uuid4())}
    body["data"] = {"mode": "quick", "title": "t"}
    ok = await small.post("/api/agent-callback", json=body, headers={"X-Agent-Secret": SECRET})
    assert ok.status_code == 200 and ok.json() == {"success": True}
    wrong = await small.post("/api/agent-callback", json=body, headers={"X-Agent-Secret": "no"})
    assert wrong.status_code == 401 and wrong.json() == UNAUTHORIZED
    # The token is no substitute for the secret.
    assert (await small.post("/api/agent-callback", json=body, headers=BEARER)).status_code == 401


# --- ?token= -------------------------------------------------------------------------------


async def test_query_token_becomes_a_cookie_and_leaves_the_address(
    adk: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    assert_refused(await adk.get("/dev-ui/?token=wrong"), "wrong query token")
    for path in ("/dev-ui/", "/list-apps", "/investigations", "/api/investigations"):
        response = await adk.get(f"{path}?a=1&token={TOKEN}&b=%20x")
        assert response.status_code == 303, path
        assert response.headers["location"] == f"{path}?a=1&b=%20x", path
        assert TOKEN not in response.headers["location"]
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE_NAME}={cookie_value(TOKEN)};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert TOKEN not in cookie
    # The client now holds the cookie: everything answers without the token.
    assert adk.cookies.get(COOKIE_NAME) == cookie_value(TOKEN)
    assert (await adk.get("/list-apps")).json() == ["vicaran_agent"]
    assert (await adk.get("/api/investigations")).status_code == 200
    adk.cookies.clear()
    # Never an open redirect: the location is a path on this server.
    response = await adk.get(httpx.URL(f"{BASE}//evil.example/x?token={TOKEN}"))
    assert response.status_code == 303 and response.headers["location"] == "/evil.example/x"
    # Other methods cannot be redirected: let through (cookie set), the token taken out.
    run = await adk.post(f"/run?token={TOKEN}", json={})
    assert run.status_code == 422  # ADK's own validation: the request reached /run
    assert run.headers["set-cookie"].startswith(f"{COOKIE_NAME}=")
    # A new token invalidates the old cookie; a forged one is refused.
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN="another-token")
    assert_refused(await adk.get("/list-apps"), "old cookie")
    adk.cookies.set(COOKIE_NAME, "forged")
    assert_refused(await adk.get("/investigations"), "forged cookie")


# --- websockets ----------------------------------------------------------------------------


def test_websockets_need_the_token(
    adk_app: FastAPI, small_app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    assert any(isinstance(r, WebSocketRoute) and r.path == "/run_live" for r in adk_app.routes), (
        "ADK serves /run_live"
    )
    live = f"{WS}/run_live?app_name=vicaran_agent&user_id=u&session_id=s&modalities=TEXT"
    with TestClient(adk_app, base_url=BASE) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                client.websocket_connect(live, headers=headers),
            ):
                pass
            assert (refused.value.code, refused.value.reason) == (1008, "Unauthorized")
    with TestClient(small_app, base_url=BASE) as client:
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"{WS}/ws-echo"),
        ):
            pass
        assert refused.value.code == 1008
        with client.websocket_connect(f"{WS}/ws-echo", headers=BEARER) as ws:
            assert ws.receive_text() == "query="
        with client.websocket_connect(f"{WS}/ws-echo?token={TOKEN}&x=1") as ws:
            assert ws.receive_text() == "query=x=1"  # the token does not reach the route
        cookie = {"Cookie": f"{COOKIE_NAME}={cookie_value(TOKEN)}"}
        with client.websocket_connect(f"{WS}/ws-echo", headers=cookie) as ws:
            assert ws.receive_text() == "query="


# --- the Host header -----------------------------------------------------------------------

BAD_HOSTS = (
    "evil.example",
    "evil.example:8000",
    "127.0.0.1.evil.example",
    "localhost.evil.example:8000",
    "[::2]:8000",
)
GOOD_HOSTS = ("127.0.0.1:8000", "127.0.0.1", "localhost:8000", "LOCALHOST.", "[::1]:8000")


@pytest.mark.parametrize("host", BAD_HOSTS)
async def test_other_hosts_are_refused_before_any_route(
    adk: httpx.AsyncClient, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for token in ("", TOKEN):
        configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=token)
        for method, path, headers in (
            ("GET", "/healthz", {}),
            ("POST", "/api/agent-callback", {"X-Agent-Secret": SECRET}),
            ("GET", "/list-apps", BEARER),
            ("GET", "/apps/vicaran_agent/users/u/sessions", BEARER),
            ("GET", "/dev-ui/", BEARER),
            ("GET", "/api/investigations", BEARER),
            ("GET", "/investigations", BEARER),
        ):
            response = await adk.request(method, path, headers={**headers, "Host": host})
            assert response.status_code == 421, (host, path, response.status_code)
            assert response.headers["content-type"].startswith("text/plain")
            assert response.text.count("\n") == 1 and "VICARAN_ALLOWED_HOSTS" in response.text


@pytest.mark.parametrize("host", GOOD_HOSTS)
async def test_loopback_hosts_are_answered(adk: httpx.AsyncClient, host: str) -> None:
    assert (await adk.get("/healthz", headers={"Host": host})).status_code == 200
    assert (await adk.get("/list-apps", headers={"Host": host})).status_code == 200


async def test_the_bound_host_and_the_configured_list(monkeypatch: pytest.MonkeyPatch) -> None:
    app = build_server(with_adk=False, host="10.1.2.3")
    async for client in http(app):
        for host, status in (("10.1.2.3:8000", 200), ("127.0.0.1", 200), ("10.1.2.4", 421)):
            response = await client.get("/healthz", headers={"Host": host})
            assert response.status_code == status, host
        configure(monkeypatch, VICARAN_ALLOWED_HOSTS="news.example, Desk.Example")
        for host, status in (
            ("news.example", 200),
            ("desk.example:443", 200),
            ("127.0.0.1", 421),
            ("10.1.2.3", 421),
        ):
            response = await client.get("/healthz", headers={"Host": host})
            assert response.status_code == status, host
        configure(monkeypatch, VICARAN_ALLOWED_HOSTS="*")
        assert (await client.get("/healthz", headers={"Host": "any.example"})).status_code == 200


def test_websocket_from_another_host_is_refused(small_app: FastAPI) -> None:
    with TestClient(small_app, base_url=BASE) as client:
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect("ws://evil.example:8000/ws-echo"),
        ):
            pass
        assert (refused.value.code, refused.value.reason) == (1008, "Host not allowed")
        with client.websocket_connect(f"{WS}/ws-echo") as ws:
            assert ws.receive_text() == "query="


# --- the access log ------------------------------------------------------------------------


def test_redact_replaces_every_token_value() -> None:
    line = '127.0.0.1:5 - "GET /dev-ui/?a=1&token=abc%20d&TOKEN=e;token=f HTTP/1.1" 303'
    assert redact(line) == (
        '127.0.0.1:5 - "GET /dev-ui/?a=1&token=[redacted]&TOKEN=[redacted];token=[redacted] '
        'HTTP/1.1" 303'
    )
    assert redact("/x?access_token=keep&tokens=keep") == "/x?access_token=keep&tokens=keep"


def test_query_token_never_reaches_the_access_log(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, VICARAN_DASHBOARD_TOKEN=TOKEN)
    app = build_server(with_adk=False)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # uvicorn configures logging here, after the app was built, as `vicaran serve` does.
    server = uvicorn.Server(uvicorn.Config(app, log_level="info", access_log=True))
    access = logging.getLogger("uvicorn.access")
    assert any(isinstance(f, RedactTokens) for f in access.filters)
    access.addHandler(caplog.handler)  # uvicorn's access logger does not propagate
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait.until_sync(lambda: server.started or not thread.is_alive(), "uvicorn to start")
        assert server.started, "uvicorn did not start"
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base) as client:
            response = client.get(f"/investigations?x=1&token={TOKEN}")
            assert response.status_code == 303
            assert response.headers["location"] == "/investigations?x=1"
            assert client.get("/api/investigations").status_code == 200  # the cookie works
        wait.until_sync(
            lambda: len([r for r in caplog.records if r.name == "uvicorn.access"]) >= 2,
            "no access log lines",
        )
    finally:
        access.removeHandler(caplog.handler)
        server.should_exit = True
        thread.join(10)
    lines = [r.getMessage() for r in caplog.records if r.name == "uvicorn.access"]
    assert any("/investigations?x=1&token=[redacted]" in line for line in lines), lines
    assert all(TOKEN not in line for line in lines), lines
    assert TOKEN not in caplog.text
