"""A second Vicaran deployment in a subprocess: the newsroom's callback API, on its own store."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.support.api_server import free_port
from tests.support.records import as_json
from vicaran_agent.storage import Repository

ROOT = Path(__file__).resolve().parents[2]
SECRET = "newsroom-secret"
# Serves on port argv[1]; writes a line to descriptor argv[2] once it answers there.
_SERVE = """
import os, sys, uvicorn
from vicaran_agent.server.app import build_server

class Server(uvicorn.Server):
    async def startup(self, sockets=None):
        await super().startup(sockets=sockets)
        os.write(int(sys.argv[2]), b"ready\\n")
        os.close(int(sys.argv[2]))

config = uvicorn.Config(
    build_server(with_adk=False), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning"
)
Server(config).run()
"""


class _Front:
    """The address clients use, passing each connection through to the server's own port. Down,
    it is a stopped server to them: connections are refused and open ones are cut."""

    def __init__(self, port: int, backend: int) -> None:
        self.port, self.backend = port, backend
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()

    def up(self) -> None:
        if self._listener is not None:
            return
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(256)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            connections, self._open = self._open, set()
        for sock in [s for s in (listener,) if s is not None] + list(connections):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked on it
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # down
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.backend))
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:  # went down meanwhile
                    client.close()
                    server.close()
                    return
                self._open |= {client, server}
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)  # the other side said all it had to say


class CallbackServer:
    """Start, stop and start again on the same port; read what it stored. With `outages`, it is
    reached through a front that can go down (`outage()`) and come back (`recover()`) in an
    instant, the process running on behind it."""

    def __init__(self, folder: Path, secret: str = SECRET, *, outages: bool = False) -> None:
        self.port = free_port()
        self._front = _Front(self.port, free_port()) if outages else None
        self.database_url = f"sqlite:///{folder / 'newsroom.db'}"
        self.secret = secret
        self.log = folder / "callback-server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/agent-callback"

    def start(self) -> CallbackServer:
        variables = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("VICARAN_", "CALLBACK_", "AGENT_", "TAVILY_", "JINA_"))
        }
        variables |= {
            "VICARAN_DATABASE_URL": self.database_url,
            "AGENT_SECRET": self.secret,
            "ADK_DISABLE_LOAD_DOTENV": "1",
            "PYTHONPATH": str(ROOT),
        }
        port = self._front.backend if self._front else self.port
        ready, signal = os.pipe()
        try:
            with self.log.open("ab") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-c", _SERVE, str(port), str(signal)],
                    cwd=ROOT,
                    env=variables,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    pass_fds=(signal,),
                )
            os.close(signal)
            if os.read(ready, 16) != b"ready\n":  # b"": it exited first
                self.process.wait()
                raise RuntimeError(f"callback server exited:\n{self.log.read_text()}")
        finally:
            os.close(ready)
            with contextlib.suppress(OSError):
                os.close(signal)
        if self._front is not None:
            self._front.up()
        return self

    def outage(self) -> None:
        """Down, as the stopped server is to its clients; the process and its store stay."""
        assert self._front is not None, "CallbackServer(..., outages=True)"
        self._front.down()

    def recover(self) -> None:
        assert self._front is not None, "CallbackServer(..., outages=True)"
        self._front.up()

    def stop(self) -> None:
        if self._front is not None:
            self._front.down()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self.process = None

    def investigation(self, investigation_id: str) -> dict[str, Any] | None:
        repository = Repository(self.database_url)
        try:
            return as_json(repository.get_investigation(investigation_id))
        finally:
            repository.close()
