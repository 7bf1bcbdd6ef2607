"""A loopback HTTP server base for the fakes: threaded, logged, with latency and hangs.

Each fake runs `http.server.ThreadingHTTPServer` on 127.0.0.1 (a free port) in a daemon thread,
so it serves any event loop in the test process and any subprocess the test starts.

Latency (and every other delay a fake plays) is waited by the machine's clock, or by `clock`
when one is given (`tests.support.clock.FakeClock`): then a request is held until the test
moves that clock, and the request log is stamped in its time.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import parse_qs

# Longest a "hang" lasts when nobody stops the server (longer than any client timeout in tests).
HANG_SECONDS = 60.0


@dataclass
class RecordedRequest:
    """One request as the fake saw it."""

    method: str
    path: str  # the raw request target without the query string
    raw_path: str  # the raw request target, query string included
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    json: Any  # parsed JSON body, or None
    started: float  # by the fake's clock (time.monotonic() unless one is given)
    ended: float | None = None  # when the answer was ready to go out (before its first byte)
    status: int | None = None
    bytes_sent: int = 0
    body_sent: bytes = b""  # the answer's body, when it was one piece (not streamed)

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


@dataclass
class Response:
    """What a fake answers. `body` may be an iterable of chunks (streamed, for huge pages)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | Iterable[bytes] = b""
    hang: bool = False  # wait (until stop or HANG_SECONDS), then drop the connection unanswered
    close: bool = False  # send no Content-Length and close the connection after the body

    @classmethod
    def json(cls, status: int, payload: Any, headers: dict[str, str] | None = None) -> Response:
        return cls(
            status,
            {"Content-Type": "application/json", **(headers or {})},
            json.dumps(payload).encode(),
        )

    @classmethod
    def text(
        cls,
        status: int,
        text: str,
        content_type: str = "text/plain; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> Response:
        return cls(status, {"Content-Type": content_type, **(headers or {})}, text.encode())


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops bursts of connections (the client's SYN is retried a
    # second later): real services accept many at once, and so must their fakes.
    request_queue_size = 256

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_r, self._wake_w = socket.socketpair()
        self._closing = False

    def serve_until_stopped(self) -> None:
        """`serve_forever` without its polling: `stop_serving` wakes it at once (the standard
        loop notices a shutdown only at its next poll, 50 ms per server per test)."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while not self._closing:
                for key, _ in selector.select():
                    if key.fileobj is self and not self._closing:
                        self._handle_request_noblock()

    def stop_serving(self) -> None:
        self._closing = True
        self._wake_w.send(b"x")

    def server_close(self) -> None:
        super().server_close()
        self._wake_r.close()
        self._wake_w.close()


class FakeServer:
    """Base class: subclasses implement `handle(request) -> Response`."""

    def __init__(self, *, latency: float = 0.0, clock: Any = None) -> None:
        self.latency = latency
        self.clock = clock  # a FakeClock, or None for the machine's
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when a request has been served
        self._log: list[RecordedRequest] = []
        self._active = 0  # requests being served (a streamed answer until its last byte)
        self._holding = 0  # requests in, not yet answered
        self._peak = 0
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _Server(("127.0.0.1", 0), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_until_stopped,
            name=f"{type(self).__name__}-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes every hang and latency wait
        if self.clock is not None:
            self.clock.notify()
        self._httpd.stop_serving()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd.server_close()
        self._httpd = None
        self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. http://127.0.0.1:54321."""
        return f"http://127.0.0.1:{self.port}"

    # --- the request log -------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._log)

    def count(self, path: str | None = None, method: str | None = None) -> int:
        return sum(
            1
            for r in self.requests
            if (path is None or r.path == path) and (method is None or r.method == method)
        )

    @property
    def peak_concurrency(self) -> int:
        """The most requests held at once (in, and not yet answered)."""
        with self._lock:
            return self._peak

    @property
    def holding(self) -> int:
        """Requests in, not yet answered: the concurrency a client's bound allows."""
        with self._lock:
            return self._holding

    @property
    def active(self) -> int:
        with self._lock:
            return self._active

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no request is being served (a streamed answer has stopped: sent whole, or
        its client went away); False if one still is after `timeout` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self._active == 0, timeout)

    def wait_active(self, count: int, timeout: float = 10.0) -> bool:
        """Wait until at least `count` requests are being served; False after `timeout`."""
        with self._idle:
            return self._idle.wait_for(lambda: self._active >= count, timeout)

    def reset_log(self) -> None:
        with self._lock:
            self._log.clear()
            self._peak = self._holding

    # --- helpers for subclasses ------------------------------------------------------------

    def _time(self) -> float:
        """The time by the fake's clock."""
        return time.monotonic() if self.clock is None else self.clock.now()

    def wait(self, seconds: float) -> bool:
        """Sleep `seconds` - never less, by the fake's clock; True early when stopping.

        `Event.wait` may wake a hair before its timeout, so the deadline is checked again.
        """
        if self.clock is not None:
            return self.clock.block(seconds, self._stopping)
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._stopping.wait(left):
                return True
        return self._stopping.is_set()

    def handle(self, request: RecordedRequest) -> Response:
        raise NotImplementedError

    # --- called by the handler -------------------------------------------------------------

    def _enter(self, request: RecordedRequest) -> None:
        with self._lock:
            self._log.append(request)
            self._active += 1
            self._holding += 1
            self._peak = max(self._peak, self._holding)
            self._idle.notify_all()

    def _answered(self, request: RecordedRequest) -> None:
        """The answer is ready (its first byte not yet sent): the client may already act on it,
        so the request no longer counts as held."""
        with self._lock:
            if request.ended is None:
                request.ended = self._time()
                self._holding -= 1

    def _leave(self, request: RecordedRequest) -> None:
        self._answered(request)  # a hang, or the server stopping
        with self._lock:
            self._active -= 1
            self._idle.notify_all()


def _make_handler(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "VicaranFake/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            return

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length > 0 else b""
            try:
                parsed: Any = json.loads(body) if body else None
            except ValueError:
                parsed = None
            path, _, query = self.path.partition("?")
            request = RecordedRequest(
                method=self.command,
                path=path,
                raw_path=self.path,
                query=parse_qs(query, keep_blank_values=True),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                json=parsed,
                started=fake._time(),
            )
            fake._enter(request)
            try:
                if fake.latency:
                    fake.wait(fake.latency)
                try:
                    response = fake.handle(request)
                except Exception as exc:  # noqa: BLE001 - a bug in a fake must answer, not hang
                    response = Response.text(500, f"fake error: {exc!r}\n")
                request.status = None if response.hang else response.status
                if response.hang:
                    fake.wait(HANG_SECONDS)
                    self.close_connection = True
                    return
                # stamped before the first byte goes out: a client that has the answer sees it
                fake._answered(request)
                self._send(request, response)
            finally:
                fake._leave(request)

        def _send(self, request: RecordedRequest, response: Response) -> None:
            chunks = [response.body] if isinstance(response.body, bytes) else response.body
            if isinstance(response.body, bytes):
                request.body_sent = response.body
            try:
                self.send_response(response.status)
                for name, value in response.headers.items():
                    self.send_header(name, value)
                if response.close or not isinstance(response.body, bytes):
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(len(response.body)))
                self.end_headers()
                if self.command == "HEAD":
                    return
                for chunk in chunks:
                    if fake._stopping.is_set():
                        break
                    self.wfile.write(chunk)
                    request.bytes_sent += len(chunk)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                self.close_connection = True

        do_GET = _serve
        do_POST = _serve
        do_HEAD = _serve
        do_PUT = _serve
        do_DELETE = _serve

    return Handler


class Failing(Protocol):
    remaining: int | None  # None: until cleared


F = TypeVar("F", bound=Failing)


class FailureQueue(Generic[F]):
    """Injected failures, thread-safe: the first matching one is used (and counted down)."""

    def __init__(self) -> None:
        self._items: list[F] = []
        self._lock = threading.Lock()

    def add(self, failure: F) -> None:
        with self._lock:
            self._items.append(failure)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def take(self, matches: Callable[[F], bool]) -> F | None:
        with self._lock:
            for failure in self._items:
                if not matches(failure):
                    continue
                if failure.remaining is not None:
                    failure.remaining -= 1
                    if failure.remaining <= 0:
                        self._items.remove(failure)
                return failure
        return None
