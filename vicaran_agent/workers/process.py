"""The starter ("zygote") and the worker processes of `workers/pool.py`'s pool: what runs
outside the server.

A worker's address space is capped (RLIMIT_AS, the pool's `memory_mb`), it writes no core file,
it runs at a lower priority than the server (nice 10: parsing never starves the event loop of
CPU), it leads its own process group, so that stopping it stops what it started (Tesseract), and
it ends with the pool (on Linux the kernel kills it when the pool's thread or the server ends,
however).

Workers are forks of a starter process, never of the server, which has threads and an event
loop: the pool starts one fresh interpreter (`python -m vicaran_agent.workers.process`, its
"zygote"), which imports the parsers once, single-threaded, and forks a worker whenever the pool
asks; each worker caps itself, leads its own process group and takes the server's environment,
import path and working directory as they are when it is forked. A fork costs milliseconds
where a fresh interpreter's imports cost a second of CPU, so a pool of three starts for the
price of one and a worker that is replaced (after a memory bomb, say) is back at once.
(multiprocessing's `forkserver` would do the same, but every one of its workers runs the
parent's `__main__` script again.) The workers are started with the pool, before any task, so
the first file pays no import, and a worker that is replaced is replaced in the background.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import itertools
import logging
import os
import pickle
import resource
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any, Literal

logger = logging.getLogger(__name__)

Why = Literal["timeout", "memory", "crashed", "unavailable"]

RETAIN_MB = 256  # a worker holding this much more than when it started is replaced after its task
MEMORY_EXIT = 86  # a worker's exit status when Python itself ran out of memory
_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class WorkerFailed(Exception):
    """A task its worker could not finish: `why` is timeout, memory, crashed or unavailable."""

    def __init__(self, why: Why, seconds: float = 0.0, detail: str = "") -> None:
        super().__init__(f"{why}: {detail}" if detail else why)
        self.why: Why = why
        self.seconds = seconds
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (WorkerFailed, (self.why, self.seconds, self.detail))


def anonymous_kb(pid: int | None) -> int | None:
    """The process's anonymous resident memory (what it allocated, the starter's heap it was
    forked with included), without the file pages it maps in as it runs (shared libraries):
    a forked worker faults those in as it goes, which is no growth of its own."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            fields = statm.read().split()
        return (int(fields[1]) - int(fields[2])) * _PAGE_BYTES // 1024
    except (OSError, ValueError, IndexError):
        return None


# --- the pool's side of the starter ---


class Starter:
    """The pool's side of its zygote: fork requests out, (token, pid) and exit statuses in."""

    def __init__(self, preload: Sequence[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        arguments = [str(theirs.fileno()), str(os.getpid()), *preload]
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", __name__, *arguments],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=environment(),
                start_new_session=True,  # Ctrl-C in the server's terminal is the server's
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        self.control = ours
        self.alive = True
        self.forked: dict[int, int] = {}  # token -> pid
        self.exits: dict[int, int] = {}  # pid -> exit status (negative: the signal)
        self._tokens = itertools.count(1)

    def fileno(self) -> int:
        return self.control.fileno()

    def fork(self, fd: int, memory_mb: int) -> int:
        """Ask for a worker serving the socket `fd` (sent along); its token. OSError: gone."""
        token = next(self._tokens)
        request = ("fork", token, memory_mb, environment(), import_path(), os.getcwd())
        socket.send_fds(self.control, [pickle.dumps(request)], [fd])
        return token

    def read(self, timeout: float = 0.0) -> None:
        """Take in what the zygote said, waiting at most `timeout` for the first message."""
        while self.alive:
            ready, _, _ = select.select([self.control], [], [], timeout)
            if not ready:
                return
            timeout = 0.0
            try:
                message = self.control.recv(4096)
            except OSError:
                message = b""
            if not message:
                self.alive = False
                return
            kind, key, value = pickle.loads(message)
            if kind == "forked":
                self.forked[key] = value
            elif kind == "exit":
                self.exits[key] = value

    def wait_until(self, done: Callable[[], bool], seconds: float = 5.0) -> bool:
        deadline = time.monotonic() + seconds
        while not done() and self.alive:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.read(left)
        return done()

    def stop(self, token: int, pid: int | None = None) -> int | None:
        """SIGKILL a worker's process group (the worker and what it started); its exit status
        once this starter has reaped it (None: never forked, or the starter died first)."""
        if not self.wait_until(lambda: (pid or self.forked.get(token)) is not None):
            return None
        pid = pid or self.forked[token]
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, signal.SIGKILL)  # if it was no group leader (it always is: setsid)
        self.wait_until(lambda: pid in self.exits)
        self.forked.pop(token, None)
        return self.exits.pop(pid, None)

    def close(self) -> None:
        """Close the control socket (the zygote stops its workers and exits) and reap it."""
        self.alive = False
        with contextlib.suppress(OSError):
            self.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def import_path() -> list[str]:
    return [entry for entry in sys.path if entry]


def environment() -> dict[str, str]:
    """The server's environment, with its import path (a worker imports what a task names)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(import_path())}


def how_it_ended(code: int | None) -> str:
    if code is None:
        return "its starter process ended"
    return f"signal {-code}" if code < 0 else f"exit {code}"


# --- the starter and the workers ---


class _Asker:
    """What a task calls to ask its caller something while it runs (see `WorkerPool.submit`)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def __call__(self, request: Any) -> Any:
        self._conn.send_bytes(bytes(ForkingPickler.dumps(("ask", request))))
        _, answer = pickle.loads(self._conn.recv_bytes())
        if isinstance(answer, BaseException):
            raise answer
        return answer


def _end_with_the_pool(parent: int) -> None:
    """On Linux, have the kernel kill this process when the thread that started it ends (the
    zygote's parent: the pool's thread, or the whole server, however it ends; a worker's: the
    zygote), even mid-task; elsewhere an idle worker ends when its pipe closes."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent was gone before that took hold
        os._exit(0)


def main(argv: list[str]) -> None:
    """The zygote: `python -m vicaran_agent.workers.process FD PARENT [MODULE...]` (FD: its end of
    the pool's control socket; the modules to preload). It imports them once, then forks a worker
    for each request and reports each worker's pid and, once it has reaped it, its exit status.
    When the pool goes (the socket closes), it stops its workers and exits."""
    fd, parent, preload = int(argv[1]), int(argv[2]), argv[3:]
    _end_with_the_pool(parent)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # an abort writes no core file
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    with contextlib.suppress(OSError):
        os.nice(10)  # the server (and every other conversation) first
    control = socket.socket(fileno=fd)
    for module in preload:
        importlib.import_module(module)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: set[int] = set()
    zygote = os.getpid()
    while True:
        readable, _, _ = select.select([control, wake_read], [], [])
        if wake_read in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_read, 4096)
        _reap(control, children)
        if control not in readable:
            continue
        try:
            request, fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
        except OSError:
            request, fds = b"", []
        if not request:
            break
        _, token, memory_mb, environ, path, cwd = pickle.loads(request)
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(wake_read)
            os.close(wake_write)
            control.close()
            _worker(zygote, fds[0], memory_mb, environ, path, cwd)
        for received in fds:
            os.close(received)
        children.add(pid)
        with contextlib.suppress(OSError):
            control.send(pickle.dumps(("forked", token, pid)))
    for pid in children:  # the pool is gone: so are its workers
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def _reap(control: socket.socket, children: set[int]) -> None:
    """Reap the workers that ended, telling the pool each one's exit status."""
    for pid in list(children):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done:
            children.discard(pid)
            with contextlib.suppress(OSError):
                control.send(pickle.dumps(("exit", pid, os.waitstatus_to_exitcode(status))))


def _worker(
    zygote: int, fd: int, memory_mb: int, environ: dict[str, str], path: list[str], cwd: str
) -> None:
    """A forked worker: caps itself, takes the server's environment, serves until told to stop."""
    code = 0
    try:
        os.setsid()  # its own process group: stopping it stops Tesseract
        _end_with_the_pool(zygote)
        limit = memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        with contextlib.suppress(ValueError, OSError):  # a system that will not cap (then: the
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))  # pool watches, on Linux)
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        with contextlib.suppress(OSError):
            os.chdir(cwd)
        with contextlib.suppress(EOFError, OSError):  # the server went away: so does the worker
            serve(Connection(fd))
    except BaseException:  # whatever it was, this process ends here
        code = 1
        with contextlib.suppress(Exception):
            logger.exception("a parser process failed")
    finally:
        os._exit(code)


_STARTED = bytes(ForkingPickler.dumps(("started",)))


def serve(conn: Connection) -> None:
    """Say it is ready, then run tasks one at a time until told to stop (or until the pipe
    closes: the server is gone)."""
    baseline = anonymous_kb(os.getpid()) or 0
    conn.send_bytes(bytes(ForkingPickler.dumps(("ready", baseline, os.getpid()))))
    while True:
        try:
            message = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if message[0] != "run":
            return
        _, fn, args, kwargs, asks = message
        conn.send_bytes(_STARTED)
        if asks:
            kwargs = {**kwargs, "ask": _Asker(conn)}
        started = time.perf_counter()
        retiring = False
        try:
            reply: tuple[Any, ...] = ("done", fn(*args, **kwargs))
        except MemoryError:
            reply, retiring = ("raised", WorkerFailed("memory")), True
        except BaseException as error:  # noqa: BLE001 - the task's own exception, for its caller
            reply = ("raised", error)
        del fn, args, kwargs
        ran = time.perf_counter() - started
        grown = (anonymous_kb(os.getpid()) or 0) - baseline
        retiring = retiring or grown > RETAIN_MB * 1024
        try:
            payload = _dumps((*reply, ran, retiring))
        except MemoryError:
            os._exit(MEMORY_EXIT)
        try:
            conn.send_bytes(payload)
        except (OSError, ValueError):
            return
        if retiring:
            return


def _dumps(reply: tuple[Any, ...]) -> bytes:
    try:
        return bytes(ForkingPickler.dumps(reply))
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - an exception or a result that cannot be pickled
        kind, value, ran, retiring = reply
        if kind == "raised":
            value = RuntimeError(f"{type(value).__name__}: {value}")
        else:
            value = RuntimeError(f"the result could not be sent ({type(error).__name__})")
        return bytes(ForkingPickler.dumps(("raised", value, ran, retiring)))


if __name__ == "__main__":
    # run as the module's proper name, so that what is pickled names vicaran_agent.workers.process
    importlib.import_module("vicaran_agent.workers.process").main(sys.argv)
