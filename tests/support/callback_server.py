"""A second Vicaran deployment in a subprocess: the newsroom's callback API, on its own store."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.api_server import free_port
from vicaran_agent.storage import Repository

ROOT = Path(__file__).resolve().parents[2]
SECRET = "newsroom-secret"
_SERVE = (
    "import sys, uvicorn\n"
    "from vicaran_agent.server.app import build_server\n"
    "uvicorn.run(build_server(with_adk=False), host='127.0.0.1', port=int(sys.argv[1]),"
    " log_level='warning')\n"
)


class CallbackServer:
    """Start, stop (an outage) and start again on the same port; read what it stored."""

    def __init__(self, folder: Path, secret: str = SECRET) -> None:
        self.port = free_port()
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
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _SERVE, str(self.port)],
                cwd=ROOT,
                env=variables,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"callback server exited:\n{self.log.read_text()}")
            try:
                if httpx.post(self.url, json={}, timeout=2).status_code == 401:
                    return self
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("callback server did not start in 60 s")
            time.sleep(0.2)

    def stop(self) -> None:
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
            return repository.get_investigation(investigation_id)
        finally:
            repository.close()
