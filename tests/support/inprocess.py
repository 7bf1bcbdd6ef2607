"""Vicaran's commands and servers run inside the test's process, as a fresh process runs them.

A subprocess pays Python's and ADK's imports (seconds, tens of seconds on a busy machine) for
what `cli.main(argv)` does in milliseconds here. What a fresh process has and pytest changes is
put back for the command's duration: its own standard streams (a pipe, a file or a terminal),
Python's default warning filters with warnings printed to stderr, a root logger without pytest's
handlers (so Python's last-resort handler prints what nobody handles), ADK's "warned once"
memory empty, and the environment restored after (`vicaran serve` writes VICARAN_PUBLIC_URL).
One subprocess test per entry point still proves the wiring (see each test module).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import logging
import os
import pty
import struct
import sys
import tempfile
import termios
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from tests.support.terminal import TerminalRun
from vicaran_agent import cli
from vicaran_agent.config import get_settings

# What `python -W` leaves when given nothing: warnings.filters of a fresh interpreter.
_FRESH_FILTERS = [
    ("default", None, DeprecationWarning, "__main__", 0),
    ("ignore", None, DeprecationWarning, None, 0),
    ("ignore", None, PendingDeprecationWarning, None, 0),
    ("ignore", None, ImportWarning, None, 0),
    ("ignore", None, ResourceWarning, None, 0),
]
_SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")
T = TypeVar("T")


@dataclass
class CommandRun:
    """A command run with its output to a pipe: exit code, and stdout and stderr as one text
    (`2>&1`, in the order written)."""

    code: int
    output: str

    @property
    def lines(self) -> list[str]:
        return [line for line in self.output.splitlines() if line.strip()]


def _print_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: IO[str] | None = None,
    line: str | None = None,
) -> None:
    """Python's own `showwarning`, to whatever sys.stderr is when the warning comes."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    with contextlib.suppress(OSError, ValueError):
        (file or sys.stderr).write(text)


_TELEMETRY = (  # (module, provider global, its set-once guard): what a new process has unset
    ("opentelemetry.trace", "_TRACER_PROVIDER", "_TRACER_PROVIDER_SET_ONCE"),
    ("opentelemetry.metrics._internal", "_METER_PROVIDER", "_METER_PROVIDER_SET_ONCE"),
    ("opentelemetry._logs._internal", "_LOGGER_PROVIDER", "_LOGGER_PROVIDER_SET_ONCE"),
)


@contextlib.contextmanager
def fresh_telemetry() -> Iterator[None]:
    """OpenTelemetry's global providers unset within the block, as in a new process (ADK's
    server sets them once; a second server in one process would be warned "Overriding of
    current LoggerProvider is not allowed"); put back after."""
    import importlib

    from opentelemetry.util._once import Once

    saved = []
    for name, provider, once in _TELEMETRY:
        module = importlib.import_module(name)
        saved.append((module, provider, getattr(module, provider), once, getattr(module, once)))
        setattr(module, provider, None)
        setattr(module, once, Once())
    try:
        yield
    finally:
        for module, provider, value, once, guard in saved:
            setattr(module, provider, value)
            setattr(module, once, guard)


@contextlib.contextmanager
def fresh_process(stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> Iterator[None]:
    """Within the block, this process looks to a command as a new one started with these
    streams would; everything is put back after."""
    from google.adk.utils import feature_decorator

    environ, streams = dict(os.environ), (sys.stdin, sys.stdout, sys.stderr)
    loggers = {
        name: (list(logger.handlers), logger.level, logger.propagate, logger.disabled)
        for name, logger in ((n, logging.getLogger(n or None)) for n in ("", *_SERVER_LOGGERS))
    }
    warned = set(feature_decorator._WARNED_MESSAGES)
    feature_decorator._WARNED_MESSAGES.clear()
    root = logging.getLogger()
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, text, category, module, lineno in reversed(_FRESH_FILTERS):
            warnings.filterwarnings(action, text or "", category, module or "", lineno)
        warnings.showwarning = _print_warning
        for handler in list(root.handlers):
            root.removeHandler(handler)
        root.setLevel(logging.WARNING)
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        get_settings.cache_clear()
        try:
            yield
        finally:
            sys.stdin, sys.stdout, sys.stderr = streams
            for name, (handlers, level, propagate, disabled) in loggers.items():
                logger = logging.getLogger(name or None)
                logger.handlers[:] = handlers
                logger.setLevel(level)
                logger.propagate, logger.disabled = propagate, disabled
            feature_decorator._WARNED_MESSAGES.clear()
            feature_decorator._WARNED_MESSAGES.update(warned)
            os.environ.clear()
            os.environ.update(environ)
            get_settings.cache_clear()


def _not_in_a_loop() -> None:
    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop()
        raise AssertionError("cli.main runs its own event loop: call this from a sync test")


def vicaran(argv: Sequence[str]) -> CommandRun:
    """`vicaran ARGV` with stdin from /dev/null and stdout and stderr to one file."""
    _not_in_a_loop()
    with (
        open(os.devnull, encoding="utf-8") as stdin,
        tempfile.TemporaryFile("w+", encoding="utf-8") as output,
    ):
        with fresh_process(stdin, output, output):
            code = _main(argv)
        output.seek(0)
        return CommandRun(code, output.read())


def call(function: Callable[[], T]) -> tuple[CommandRun, T | None]:
    """`function()` as the only work of a fresh process whose output goes to a pipe: exit code
    0 and what it returned, or 1 with Python's traceback in the output and None."""
    _not_in_a_loop()
    with (
        open(os.devnull, encoding="utf-8") as stdin,
        tempfile.TemporaryFile("w+", encoding="utf-8") as output,
    ):
        with fresh_process(stdin, output, output):
            try:
                returned, code = function(), 0
            except Exception:  # noqa: BLE001 - as an uncaught exception ends a process
                traceback.print_exc()
                returned, code = None, 1
        output.seek(0)
        return CommandRun(code, output.read()), returned


def _main(argv: Sequence[str]) -> int:
    """cli.main as `python -m vicaran_agent.cli` runs it: `sys.exit(main())`."""
    try:
        return cli.main(list(argv))
    except SystemExit as stop:  # argparse's usage errors
        return stop.code if isinstance(stop.code, int) else 1


def vicaran_in_terminal(argv: Sequence[str], *, columns: int = 100, rows: int = 40) -> TerminalRun:
    """`vicaran ARGV` with stdin, stdout and stderr on a new pseudo-terminal of this size: its
    exit code and every byte it wrote there (as `run_in_pty` gives a subprocess's)."""
    _not_in_a_loop()
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: every writer closed the terminal
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read, name="pty-reader", daemon=True)
    reader.start()
    stdin = io.TextIOWrapper(io.FileIO(os.dup(terminal), "r"), encoding="utf-8")
    stdout = io.TextIOWrapper(
        io.FileIO(os.dup(terminal), "w"), encoding="utf-8", line_buffering=True
    )
    os.close(terminal)
    terminal_env = {"TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)}
    try:
        with fresh_process(stdin, stdout, stdout):
            os.environ.update(terminal_env)
            code = _main(argv)
            stdout.flush()
    finally:
        stdout.close()
        stdin.close()
        reader.join(timeout=30)
        os.close(controller)
    return TerminalRun(code, b"".join(chunks))


@contextlib.contextmanager
def fresh_agent_module() -> Iterator[None]:
    """Within the block, `vicaran_agent.agent` is imported afresh when something imports it (ADK
    as it loads the agent, a server's start-up), with the settings of that moment, as in a new
    process; the module this process had is back after."""
    import vicaran_agent

    name = "vicaran_agent.agent"
    module, attribute = sys.modules.pop(name, None), vars(vicaran_agent).pop("agent", None)
    try:
        yield
    finally:
        sys.modules.pop(name, None)
        vars(vicaran_agent).pop("agent", None)
        if module is not None:
            sys.modules[name] = module
        if attribute is not None:
            vars(vicaran_agent)["agent"] = attribute


@dataclass
class Serving:
    """A server command running in a thread of this process."""

    base: str
    output: IO[str]  # stdout and stderr, as `2>&1` to a file
    code: int | None = None  # once it has stopped
    _final: str | None = None

    def said(self) -> str:
        """Everything written so far (or in all, once it has stopped)."""
        if self._final is not None:
            return self._final
        self.output.flush()
        return Path(self.output.name).read_text(encoding="utf-8")


@contextlib.contextmanager
def vicaran_serving(host: str, port: int) -> Iterator[Serving]:
    """`vicaran serve --host HOST --port PORT` in a thread, until the block ends: uvicorn
    answers there, on the socket `cli.serve` bound, with the app it built.

    Stopped as uvicorn stops on a signal (its shutdown and the app's lifespan end run), without
    the signal: the handler that marks this process's runs interrupted is the subprocess
    tests' (test_liveness).
    """
    import uvicorn

    _not_in_a_loop()
    servers: list[uvicorn.Server] = []
    ready = threading.Event()
    startup = uvicorn.Server.startup

    async def recorded(self: uvicorn.Server, sockets: Any = None) -> None:
        await startup(self, sockets=sockets)
        if self.started:
            servers.append(self)
        ready.set()

    with (
        open(os.devnull, encoding="utf-8") as stdin,
        tempfile.NamedTemporaryFile("w+", encoding="utf-8") as output,
        fresh_process(stdin, output, output),
        fresh_telemetry(),
        fresh_agent_module(),
    ):
        serving = Serving(f"http://{host}:{port}", output)

        def run() -> None:
            try:
                serving.code = _main(["serve", "--host", host, "--port", str(port)])
            finally:
                ready.set()

        uvicorn.Server.startup = recorded  # type: ignore[method-assign]
        thread = threading.Thread(target=run, name="vicaran-serve", daemon=True)
        try:
            thread.start()
            ready.wait()
            if not servers:
                thread.join()
                raise AssertionError(f"vicaran serve stopped ({serving.code}): {serving.said()}")
            yield serving
        finally:
            for server in servers:
                server.should_exit = True
            thread.join(60)
            if thread.is_alive():  # a request still streaming: stop without waiting for it
                for server in servers:
                    server.force_exit = True
                thread.join(30)
            uvicorn.Server.startup = startup  # type: ignore[method-assign]
            serving._final = serving.said()
