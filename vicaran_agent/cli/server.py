"""`vicaran serve`: the dev UI, ADK's API and the dashboard on one port (a busy port said plainly)."""

from __future__ import annotations

import errno
import os
import socket
import sys
from typing import TYPE_CHECKING

from ..i18n import message, system_language

if TYPE_CHECKING:
    from ..config import Settings
from .store import schema_problem


class PortError(OSError):
    """The server cannot listen where it was asked to; `str()` is the sentence to show."""


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (as uvicorn binds it), or PortError saying what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortError(
                f"Port {port} is already in use: stop what is using it or run "
                f"`make run PORT={port + 10}`."
            ) from error
        if error.errno == errno.EACCES:
            raise PortError(
                f"Port {port} needs administrator rights: run `make run PORT=8000` "
                "(or any port above 1023)."
            ) from error
        raise PortError(
            f"Cannot listen on {host}:{port} ({error.strerror or error}): run "
            "`make run HOST=127.0.0.1`, or give an address of this machine."
        ) from error
    return sock


def serve_notices(settings: Settings, host: str, port: int) -> list[str]:
    """What the operator should know about the links a server bound to host:port gives."""
    from ..config import RETIRED_PUBLIC_URL as RETIRED
    from ..config import missing_keys_line

    language = system_language()
    public = settings.serving_at(host, port)
    notices = [line] if (line := missing_keys_line(settings, language)) else []
    if settings.vicaran_public_url and not settings.public_url_set and public != RETIRED:
        notices.append(message("serve_retired_public_url", language, retired=RETIRED, url=public))
    if not settings.public_url_set and host.strip().strip("[]") in ("0.0.0.0", "::"):
        notices.append(message("serve_every_interface", language, url=public))
    return notices


def serve(host: str, port: int) -> int:
    problem = schema_problem()  # an outdated PostgreSQL schema: refuse before binding
    if problem:
        print(problem, file=sys.stderr)
        return 1
    try:
        sock = listen(host, port)  # before anything is loaded or printed: a busy port, at once
    except PortError as error:
        print(error, file=sys.stderr)
        return 1
    import uvicorn

    from .. import liveness
    from ..config import forget_settings, get_settings, server_url
    from ..server.app import SessionStoreError, build_server

    with sock:
        settings = get_settings()
        for notice in serve_notices(settings, host, port):
            print(notice, file=sys.stderr, flush=True)
        # Every link this process gives (reports, the dashboard, exports) names where it is
        # reached: the agent ADK loads here reads it from the settings, as everything else.
        public = settings.serving_at(host, port)
        os.environ["VICARAN_PUBLIC_URL"] = public
        forget_settings()
        try:
            app = build_server(host=host, port=port)
        except SessionStoreError as error:
            print(error, file=sys.stderr)
            return 1
        bound = server_url(host, port)
        elsewhere = f" - links name {public}" if public != bound else ""
        print(
            f"Vicaran: dev UI {bound}/dev-ui/ - dashboard {bound}/investigations{elsewhere}",
            flush=True,
        )

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: object) -> None:
                # Before anything stops: this process's runs become `interrupted`, not stuck.
                liveness.interrupt_running()
                super().handle_exit(sig, frame)  # type: ignore[arg-type]

        Server(uvicorn.Config(app, host=host, port=port)).run(sockets=[sock])
    return 0


def demo(host: str, port: int) -> int:
    """`vicaran demo`: the dashboard and the exports of the bundled sample investigation."""
    try:
        sock = listen(host, port)
    except PortError as error:
        print(error, file=sys.stderr)
        return 1
    import tempfile

    import uvicorn

    from ..config import Settings, server_url
    from ..demo import sample_server

    bound = server_url(host, port)
    with sock, tempfile.TemporaryDirectory(prefix="vicaran-demo-") as folder:
        settings = Settings(  # none of the newsroom's settings: no keys, no token, no callback
            _env_file=None,  # type: ignore[call-arg]
            vicaran_database_url=f"sqlite:///{folder}/demo.db",
            vicaran_public_url=bound,
            vicaran_dashboard_token="",
            callback_api_url="",
            agent_secret="",
            vicaran_allowed_hosts="",
        )
        app, shown, page = sample_server(settings, host=host, port=port)
        print(f"Vicaran sample data (read-only, no keys needed): {bound}{page}", flush=True)
        uvicorn.Server(uvicorn.Config(app, host=host, port=port)).run(sockets=[sock])
        shown.close()
    return 0
