"""Vicaran's commands and servers run inside the test's process, as a fresh process runs them.

A subprocess pays Python's and ADK's imports (seconds, tens of seconds on a busy machine) for
what `cli.main(argv)` does in milliseconds here. What a fresh process has and pytest changes is
set for the command's duration (`fresh_process`): its own standard streams (a pipe, a file or a
terminal), Python's default warning filters with warnings printed to stderr, a root logger
without pytest's handlers (so Python's last-resort handler prints what nobody handles) and ADK's
"warned once" memory empty. What the command changes for itself is put back after it
(`restored_state`): the environment, sys.path, uvicorn's loggers, OpenTelemetry's providers.
Servers (`vicaran serve`, `adk api_server`) run in a thread with the agent module imported
afresh. One subprocess test per entry point still proves the wiring (see each test module).
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
from vicaran_agent.config import forget_settings

ROOT = Path(__file__).resolve().parents[2]

# What `python -W` leaves when given nothing: warnings.filters of a fresh interpreter.
_FRESH_FILTERS = [
    ("default", None, DeprecationWarning, "__main__", 0),
    ("ignore", None, DeprecationWarning, None, 0),
    ("ignore", None, PendingDeprecationWarning, None, 0),
    ("ignore", None, ImportWarning, None, 0),
    ("ignore", None, ResourceWarning, None, 0),
]
_SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "google_adk")
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


@contextlib.contextmanager
def restored_state() -> Iterator[None]:
    """What a command changes in the process for itself is put back after the block: the
    environment (`vicaran serve` writes VICARAN_PUBLIC_URL), sys.path (ADK adds the agents'
    folder), uvicorn's loggers (it configures them) and the settings read from them. Safe in a
    fixture: nothing here is pytest's."""
    environ, path, telemetry = dict(os.environ), list(sys.path), _telemetry_providers()
    _telemetry_providers([(None, False)] * len(telemetry))  # unset, as in a new process
    loggers = {name: logging.getLogger(name) for name in _SERVER_LOGGERS}
    saved = {
        name: (list(logger.handlers), logger.level, logger.propagate, logger.disabled)
        for name, logger in loggers.items()
    }
    forget_settings()
    try:
        yield
    finally:
        for name, (handlers, level, propagate, disabled) in saved.items():
            logger = loggers[name]
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate, logger.disabled = propagate, disabled
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        _telemetry_providers(telemetry)
        forget_settings()


def _telemetry_providers(saved: list[tuple[Any, ...]] | None = None) -> list[tuple[Any, ...]]:
    """OpenTelemetry's process-wide providers (an ADK server sets them; a second one in the
    process would be refused, with a warning no process ever prints): as they are, or put
    back to `saved`."""
    from opentelemetry import trace
    from opentelemetry._logs import _internal as logs
    from opentelemetry.metrics import _internal as metrics

    slots = [
        (trace, "_TRACER_PROVIDER", "_TRACER_PROVIDER_SET_ONCE"),
        (logs, "_LOGGER_PROVIDER", "_LOGGER_PROVIDER_SET_ONCE"),
        (metrics, "_METER_PROVIDER", "_METER_PROVIDER_SET_ONCE"),
    ]
    if saved is not None:
        for (module, provider, once), (value, done) in zip(slots, saved, strict=True):
            setattr(module, provider, value)
            getattr(module, once)._done = done
    return [(getattr(m, provider), getattr(m, once)._done) for m, provider, once in slots]


@contextlib.contextmanager
def fresh_process(stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> Iterator[None]:
    """Within the block, this process looks to a command as a new one started with these
    streams would; everything is put back after. Only within one phase of a test (its body):
    pytest sets the streams, the warning filters and the log handlers again at each phase."""
    from google.adk.utils import feature_decorator

    streams = (sys.stdin, sys.stdout, sys.stderr)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    warned = set(feature_decorator._WARNED_MESSAGES)
    feature_decorator._WARNED_MESSAGES.clear()
    with restored_state(), warnings.catch_warnings():
        warnings.resetwarnings()
        for action, text, category, module, lineno in reversed(_FRESH_FILTERS):
            warnings.filterwarnings(action, text or "", category, module or "", lineno)
        warnings.showwarning = _print_warning
        root.handlers[:] = []
        root.setLevel(logging.WARNING)
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            yield
        finally:
            sys.stdin, sys.stdout, sys.stderr = streams
            root.handlers[:] = handlers
            root.setLevel(level)
            feature_decorator._WARNED_MESSAGES.clear()
            feature_decorator._WARNED_MESSAGES.update(warned)


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
    output: IO[str] | None  # stdout and stderr, as `2>&1` to a file (when asked for)
    code: int | None = None  # once it has stopped
    _final: str | None = None

    def said(self) -> str:
        """Everything written so far (or in all, once it has stopped)."""
        if self._final is not None:
            return self._final
        assert self.output is not None, "started without its own output"
        self.output.flush()
        return Path(self.output.name).read_text(encoding="utf-8")


def vicaran_serving(
    host: str, port: int, *, output: bool = True
) -> contextlib.AbstractContextManager[Serving]:
    """`vicaran serve --host HOST --port PORT` in a thread, until the block ends: uvicorn
    answers there, on the socket `cli.server.serve` bound, with the app it built. With `output`, as a
    fresh process with its output to a file (`Serving.said()`): only in a test's body, never
    in a fixture (see `fresh_process`)."""
    argv = ["serve", "--host", host, "--port", str(port)]
    return _serving(lambda: _main(argv), f"http://{host}:{port}", "vicaran serve", output)


def adk_api_serving(
    port: int, sessions: str = "memory://", artifacts: str = "memory://"
) -> contextlib.AbstractContextManager[Serving]:
    """`adk api_server --host 127.0.0.1 --port PORT --session_service_uri SESSIONS
    --artifact_service_uri ARTIFACTS vicaran_agent`: ADK's own command, in a thread; its
    output goes where pytest puts it (so it may be a fixture)."""
    from google.adk.cli.cli_tools_click import main as adk

    argv = [
        "api_server", "--host", "127.0.0.1", "--port", str(port),
        "--session_service_uri", sessions, "--artifact_service_uri", artifacts,
        str(ROOT / "vicaran_agent"),
    ]  # fmt: skip

    def command() -> int:
        try:
            adk.main(argv, prog_name="adk", standalone_mode=False)
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else 1
        return 0

    return _serving(command, f"http://127.0.0.1:{port}", "adk api_server", output=False)


@contextlib.contextmanager
def _serving(command: Callable[[], int], base: str, name: str, output: bool) -> Iterator[Serving]:
    """`command()` in a thread, until the block ends (it serves with uvicorn).

    Stopped as uvicorn stops on a signal (its shutdown and the app's lifespan end run), without
    the signal: what a signal does to the process is the subprocess tests' (test_liveness).
    Servers may be nested; stdout and stderr are process-wide, so while a later one runs,
    everything goes to its output.
    """
    import uvicorn

    _not_in_a_loop()
    servers: list[uvicorn.Server] = []
    ready = threading.Event()
    startup = uvicorn.Server.startup
    thread: threading.Thread | None = None

    async def recorded(self: uvicorn.Server, sockets: Any = None) -> None:
        await startup(self, sockets=sockets)
        if threading.current_thread() is thread:
            if self.started:
                servers.append(self)
            ready.set()

    with contextlib.ExitStack() as stack:
        said: IO[str] | None = None
        if output:
            stdin = stack.enter_context(open(os.devnull, encoding="utf-8"))
            said = stack.enter_context(tempfile.NamedTemporaryFile("w+", encoding="utf-8"))
            stack.enter_context(fresh_process(stdin, said, said))
        else:
            stack.enter_context(restored_state())
        stack.enter_context(fresh_agent_module())
        serving = Serving(base, said)

        def run() -> None:
            try:
                serving.code = command()
            finally:
                ready.set()

        uvicorn.Server.startup = recorded  # type: ignore[method-assign]
        thread = threading.Thread(target=run, name=name, daemon=True)
        try:
            thread.start()
            ready.wait()
            if not servers:
                thread.join()
                told = serving.said() if serving.output else "(its output is the test's)"
                raise AssertionError(f"{name} stopped ({serving.code}): {told}")
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
            if said is not None:
                serving._final = serving.said()
