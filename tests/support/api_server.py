"""`adk api_server` in a subprocess for a test: started, waited for, stopped."""

from __future__ import annotations

import functools
import itertools
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.wait import until_sync

ROOT = Path(__file__).resolve().parent.parent.parent
APP = "vicaran_agent"


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


_NEXT_PORT = itertools.count()
_PORT_BLOCK = 500


def free_port() -> int:
    """A free port for a server the test starts in another process. A port from `bind(0)`
    stays free only until the next `bind(0)`, and every fake binds one: while the server
    starts (seconds), another worker's fake could take it. So the port comes from below the
    kernel's ephemeral range, where no `bind(0)` lands, in a block of its own per xdist worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    first = 20_000 + _PORT_BLOCK * (int(worker) if worker.isdigit() else 0) % 10_000
    if first + _PORT_BLOCK > _ephemeral_low():  # an unusual kernel: the old way
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    for _ in range(_PORT_BLOCK):
        port = first + next(_NEXT_PORT) % _PORT_BLOCK
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}-{first + _PORT_BLOCK - 1}")


@contextmanager
def api_server(
    tmp_path: Path, variables: dict[str, str], sessions: str = "memory://"
) -> Iterator[str]:
    """The server's base URL, with the test environment plus `variables` (and the scripted
    model loadable); its output goes to `tmp_path/api_server.log`."""
    port = free_port()
    command = [
        sys.executable, "-m", "google.adk.cli", "api_server",
        "--host", "127.0.0.1", "--port", str(port),
        "--session_service_uri", sessions,
        "--artifact_service_uri", "memory://",
        APP,
    ]  # fmt: skip
    with _server(command, port, tmp_path / "api_server.log", variables) as base:
        yield base


@contextmanager
def adk_web(tmp_path: Path, variables: dict[str, str]) -> Iterator[str]:
    """`adk web` (the dev UI and ADK's API) on a free port, memory sessions: its base URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "google.adk.cli", "web", "--no-reload",
        "--host", "127.0.0.1", "--port", str(port),
        "--session_service_uri", "memory://", "--artifact_service_uri", "memory://",
        APP,
    ]  # fmt: skip
    with _server(command, port, tmp_path / "adk_web.log", variables) as base:
        yield base


@contextmanager
def vicaran_serve(tmp_path: Path, variables: dict[str, str], name: str = "serve") -> Iterator[str]:
    """`vicaran serve` (ADK's app, the callback API and the dashboard) on a free port: its
    base URL; sessions where `VICARAN_SESSION_DB_URL` says; output in `tmp_path/<name>.log`."""
    port = free_port()
    command = [
        sys.executable, "-m", "vicaran_agent.cli",
        "serve", "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with _server(command, port, tmp_path / f"{name}.log", variables) as base:
        yield base


@contextmanager
def vicaran_serve_process(
    tmp_path: Path, variables: dict[str, str], memory_mb: int, name: str = "serve"
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`vicaran serve` as `vicaran_serve` starts it, with at most `memory_mb` of address space
    (and no core file): its base URL and its process, to watch."""
    port = free_port()
    command = [
        sys.executable, "-m", "vicaran_agent.cli",
        "serve", "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    log_path = tmp_path / f"{name}.log"
    with _server_process(command, port, log_path, variables, memory_mb) as served:
        yield served


@contextmanager
def _server(
    command: list[str], port: int, log_path: Path, variables: dict[str, str]
) -> Iterator[str]:
    """Start `command`, wait until it answers `/list-apps`, stop it afterwards."""
    with _server_process(command, port, log_path, variables) as (base, _):
        yield base


def _capped(memory_mb: int) -> None:
    size = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@functools.cache
def _probe_client() -> httpx.Client:
    """One client for every readiness probe: building one costs a TLS context (tens of ms of
    CPU), which a probe every 50 ms for seconds would pay again each time."""
    return httpx.Client(timeout=2)


def answers(url: str) -> bool:
    """Whether a server answers GET `url` with 200 (no HTTP request while its port is closed)."""
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 2).close()
        return _probe_client().get(url).status_code == 200
    except (OSError, httpx.TransportError):
        return False


@contextmanager
def _server_process(
    command: list[str],
    port: int,
    log_path: Path,
    variables: dict[str, str],
    memory_mb: int | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    environment = {
        **os.environ,
        "VICARAN_MODEL_PLUGINS": "tests.support.scripted_model",
        "PYTHONPATH": str(ROOT),
        **variables,
    }
    log = log_path.open("w")
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=None if memory_mb is None else lambda: _capped(memory_mb),
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def answering() -> bool:
            if process.poll() is not None:
                pytest.fail(f"{log_path.stem} exited: {log_path.read_text()}")
            return answers(f"{base}/list-apps")

        until_sync(answering, f"{log_path.stem} to start", 90)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def run_sse(
    base: str,
    session_id: str,
    text: str,
    on_event: Callable[[dict], None] | None = None,
    files: Sequence[dict] = (),
) -> list[tuple[float, dict]]:
    """Send one message; return (arrival time, event) for every SSE event.

    `on_event` runs as each event arrives, while the server is still working. `files` are
    `inlineData` parts, sent after the text as the dev UI sends attachments.
    """
    body = {
        "appName": APP,
        "userId": "newsroom",
        "sessionId": session_id,
        "newMessage": {"role": "user", "parts": [{"text": text}, *files]},
        "streaming": False,
    }
    events = []
    with httpx.stream("POST", f"{base}/run_sse", json=body, timeout=180) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append((time.monotonic(), json.loads(line[6:])))
                if on_event is not None:
                    on_event(events[-1][1])
    return events
