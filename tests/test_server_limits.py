"""A request body `vicaran serve` will not read: past VICARAN_MAX_REQUEST_BYTES, 413 first.

Driven over ASGI by hand (so the test sees every `receive` the server makes) and through a real
`vicaran serve` over a socket (so the 413 is seen to come before the body is sent).
"""

from __future__ import annotations

import json
import math
import select
import socket
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from tests.support.api_server import APP, free_port
from tests.support.inprocess import vicaran_serving
from vicaran_agent.config import Settings, forget_settings
from vicaran_agent.server.app import build_server

LIMIT = 1_000_000
CHUNK = 64 * 1024


@pytest.fixture(autouse=True)
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("VICARAN_DASHBOARD_TOKEN", "VICARAN_ALLOWED_HOSTS", "VICARAN_DOCUMENT_MAX_BYTES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VICARAN_DATABASE_URL", f"sqlite:///{tmp_path / 'vicaran.db'}")
    monkeypatch.setenv("VICARAN_MAX_REQUEST_BYTES", str(LIMIT))
    monkeypatch.setenv("AGENT_SECRET", "callback-secret-0123")
    forget_settings()
    yield
    forget_settings()


@pytest.fixture(scope="module")
def adk_app() -> FastAPI:
    """The whole server with ADK's app, built once (settings are read per request)."""
    return build_server()


class Exchange:
    """One request driven by hand: the body as `chunks`, and what the server did with them."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._next: bytes | None = next(self._chunks, None)
        self.received = 0  # body bytes the server asked for
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.body = b""
        self.complete = False

    async def receive(self) -> dict[str, Any]:
        if self._next is None:
            return {"type": "http.disconnect"}
        chunk, self._next = self._next, next(self._chunks, None)
        self.received += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": self._next is not None}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert self.status is None, "a second response"
            self.status = message["status"]
            self.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            assert not self.complete, "body after the end of the response"
            self.body += message.get("body", b"")
            self.complete = not message.get("more_body", False)

    def json(self) -> Any:
        return json.loads(self.body)


async def post(
    app: FastAPI, path: str, chunks: Iterable[bytes], *, length: int | None = None
) -> Exchange:
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    else:
        headers.append((b"transfer-encoding", b"chunked"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    exchange = Exchange(chunks)
    await app(scope, exchange.receive, exchange.send)
    return exchange


def endless(chunk: bytes = b"A" * CHUNK) -> Iterator[bytes]:
    """A body far past the limit (8 times it: a server that reads it whole fails the test,
    without the test eating the machine's memory)."""
    for _ in range(8 * LIMIT // len(chunk)):
        yield chunk


def run_body(text: str = "Investigate Acme.") -> bytes:
    return json.dumps(
        {
            "appName": APP,
            "userId": "newsroom",
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": text}]},
        }
    ).encode()


def assert_refused(exchange: Exchange) -> None:
    assert exchange.status == 413 and exchange.complete
    assert exchange.headers["content-type"] == "application/json"
    body = exchange.json()
    assert body["success"] is False
    sentence = body["error"]
    assert "VICARAN_MAX_REQUEST_BYTES" in sentence and f"{LIMIT:,}" in sentence
    assert sentence.count(". ") == 0 and sentence.endswith(".")


PATHS = ["/run_sse", "/run", f"/apps/{APP}/users/newsroom/sessions"]


@pytest.mark.parametrize("path", PATHS)
async def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(
    adk_app: FastAPI, path: str
) -> None:
    exchange = await post(adk_app, path, endless(), length=80_000_000)
    assert_refused(exchange)
    assert exchange.received == 0  # not one byte of it was read


@pytest.mark.parametrize("path", PATHS)
async def test_a_chunked_body_is_counted_while_it_streams_and_cut_at_the_limit(
    adk_app: FastAPI, path: str
) -> None:
    exchange = await post(adk_app, path, endless())
    assert_refused(exchange)
    assert LIMIT < exchange.received <= LIMIT + CHUNK  # read up to the limit, not past it


async def test_a_body_within_the_limit_reaches_adk(adk_app: FastAPI) -> None:
    session = f"s-{uuid.uuid4().hex[:8]}"
    body = json.dumps({"sessionId": session, "state": {"note": "x" * (LIMIT // 2)}}).encode()
    for length in (len(body), None):  # declared, then chunked
        pieces = [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)]
        exchange = await post(
            adk_app, f"/apps/{APP}/users/newsroom/sessions", pieces, length=length
        )
        assert exchange.status in (200, 409), exchange.body[:300]  # created; then it exists
        assert exchange.received == len(body)
    # exactly the limit is still accepted
    exact = b" " * (LIMIT - len(run_body())) + run_body()
    exchange = await post(adk_app, "/run", [exact], length=len(exact))
    assert exchange.status != 413


async def test_the_callback_endpoint_keeps_its_own_limit(
    adk_app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VICARAN_MAX_REQUEST_BYTES", "1000")
    forget_settings()
    body = json.dumps({"type": "INVESTIGATION_STARTED", "data": {"brief": "b" * 5000}}).encode()
    exchange = await post(adk_app, "/api/agent-callback", [body], length=len(body))
    assert exchange.status == 401  # its own rule (the secret) answered, not this limit
    message = run_body("Investigate Acme. " * 100)  # 1,800 bytes of text
    refused = await post(adk_app, "/run_sse", [message], length=len(message))
    assert refused.status == 413


def test_the_default_is_the_largest_attachment_as_base64_plus_a_megabyte(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VICARAN_MAX_REQUEST_BYTES")
    document = Settings().vicaran_document_max_bytes
    assert Settings().max_request_bytes == 4 * math.ceil(document / 3) + 1_000_000
    assert Settings().max_request_bytes == 67_666_668  # with VICARAN_DOCUMENT_MAX_BYTES's default
    monkeypatch.setenv("VICARAN_DOCUMENT_MAX_BYTES", "3000000")
    assert Settings().max_request_bytes == 5_000_000
    monkeypatch.setenv("VICARAN_MAX_REQUEST_BYTES", "2500")
    assert Settings().max_request_bytes == 2500


# --- through a real `vicaran serve` ------------------------------------------------------------


def _answer_to_headers(base: str, path: str, headers: list[str]) -> tuple[int, bytes]:
    """Send only a request's head; the status and body the server answers with."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        head = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", *headers, "", ""]
        sock.sendall("\r\n".join(head).encode())
        answer = b""
        while b"\r\n\r\n" not in answer or not _complete(answer):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def _stream_until_answered(base: str, path: str, limit: int) -> tuple[int, bytes, int]:
    """POST a chunked body that never ends until the server answers: (status, body, bytes
    of body sent)."""
    host, port = base.removeprefix("http://").split(":")
    sent = 0
    answer = b""
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        head = [
            f"POST {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Content-Type: application/json",
            "Transfer-Encoding: chunked",
            "",
            "",
        ]
        sock.sendall("\r\n".join(head).encode())
        frame = f"{CHUNK:x}\r\n".encode() + b"A" * CHUNK + b"\r\n"
        while sent < 4 * limit:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += CHUNK
        while not _complete(answer):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2], sent


@pytest.mark.e2e
@pytest.mark.timeout(180)
def test_vicaran_serve_answers_413_before_the_body_is_sent(env) -> None:
    """A 60 MB PDF as base64 (80 MB): refused on its headers alone; streamed without a length,
    refused once the limit is passed (the default limit, from VICARAN_DOCUMENT_MAX_BYTES)."""
    with vicaran_serving("127.0.0.1", free_port(), output=False) as served:
        base = served.base
        for path in ("/run_sse", "/run"):
            status, body = _answer_to_headers(
                base, path, ["Content-Type: application/json", "Content-Length: 80000000"]
            )
            assert status == 413, path
            sentence = json.loads(body)["error"]
            assert "67,666,668" in sentence and "VICARAN_MAX_REQUEST_BYTES" in sentence
        status, body, sent = _stream_until_answered(base, "/run_sse", 67_666_668)
        assert status == 413 and "VICARAN_MAX_REQUEST_BYTES" in json.loads(body)["error"]
        # it stopped reading at the limit: what was sent past it sits in socket buffers
        assert 67_666_668 < sent < 67_666_668 + 16_000_000
