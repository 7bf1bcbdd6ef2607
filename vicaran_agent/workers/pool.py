"""Untrusted parsing in worker processes: a parser that runs away costs its task, never the server.

A `WorkerPool` keeps `size` worker processes (forks of one starter, each capped:
`workers/process.py`), each running one task at a time. A task that overruns its time is
stopped (SIGKILL to the group, never waited for), a worker that dies (SIGABRT from PDFium out of
memory, a segfault, MemoryError) costs only its task, and either way the worker is replaced, in
the background. On Linux the pool also watches its workers' anonymous resident memory: when
together they hold more than `memory_mb` (what they held idle, plus at least half of it for the
tasks), the busy one that grew most is stopped, so the parsers together hold about that much,
however many files are read at once.

Why a pool of its own rather than `concurrent.futures.ProcessPoolExecutor`: that executor
breaks as a whole when one worker dies (BrokenProcessPool, failing every task in flight), and a
task that hangs cannot be stopped. Here each worker is watched on its own and replaced alone.

Tasks of the "document" lane (a whole file, OCR included, perhaps minutes) may hold all workers but one, which
stays free for "page" tasks (a web page: milliseconds), so that a conversation's pages never wait
behind another's documents.

One thread per pool does all the waiting (`multiprocessing.connection.wait` on every worker's
pipe at once; a worker's pipe closes when it dies); callers get a `concurrent.futures.Future` (`asyncio.wrap_future` for
coroutines). A task may talk to its caller while it runs (`ask`): a worker asks, the pool thread
answers with the caller's function (the OCR budget of a document is granted page by page so).

The workers are a resource boundary, not a sandbox: they run as the same user.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from typing import Any, Literal

from .process import MEMORY_EXIT, RETAIN_MB, Starter, Why, WorkerFailed, anonymous_kb, how_it_ended

logger = logging.getLogger(__name__)

__all__ = ["DOCUMENT", "PAGE", "RETAIN_MB", "Stats", "Why", "WorkerFailed", "WorkerPool"]

PAGE, DOCUMENT = "page", "document"
Lane = Literal["page", "document"]

# What a worker imports before it says it is ready (the parsers and what they need).
PRELOAD = (
    "vicaran_agent.workers.process",
    "vicaran_agent.clients.page_reader",
    "vicaran_agent.clients.page_text",
    "vicaran_agent.documents.parse",
    "docx",
    "PIL.Image",
)
MEMORY_POLL_SECONDS = 0.05  # how often busy workers' memory is read (at ~600 MB/s: 30 MB apart)
_START_RETRY_SECONDS = 5.0


@dataclass
class Stats:
    """What the pool did: tasks, failures, replaced workers and what IPC cost."""

    tasks: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    workers_started: int = 0
    bytes_sent: int = 0  # pickled tasks, to the workers
    bytes_received: int = 0  # pickled results, from the workers
    overhead_seconds: float = 0.0  # dispatch to result, less the time the task itself ran
    peak_growth_mb: float = 0.0  # the most the workers together grew past their start


Ask = Callable[[Any], tuple[Any, float]]


@dataclass
class _Task:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    lane: Lane
    timeout: float
    ask: Ask | None
    future: Future[Any]
    deadline: float = 0.0
    dispatched: float = 0.0
    started: bool = False  # the worker said it has the task (then its death is the task's)
    tries: int = 0


@dataclass
class _Worker:
    zygote: Starter
    token: int  # what the zygote calls its fork request
    conn: Connection
    reported_pid: int | None = None  # from its "ready"
    returncode: int | None = None  # once it has ended and its zygote said how
    ready: bool = False
    task: _Task | None = None
    baseline_kb: int = 0
    retiring: bool = False
    stopped_for: Why | None = None

    @property
    def pid(self) -> int | None:
        return self.reported_pid or self.zygote.forked.get(self.token)


class WorkerPool:
    """`size` worker processes, each capped at `memory_mb` of address space (see the module)."""

    def __init__(
        self,
        size: int,
        memory_mb: int,
        *,
        name: str = "vicaran-parse",
        preload: Sequence[str] = PRELOAD,
    ) -> None:
        """`preload`: the modules the workers import before they are ready (the parsers, and
        what their tasks need; a task may name others, imported by the worker that runs it)."""
        self.size = max(1, size)
        self.memory_mb = memory_mb
        self.name = name
        self.preload = tuple(preload)
        self.stats = Stats()
        self._queues: dict[Lane, deque[_Task]] = {PAGE: deque(), DOCUMENT: deque()}
        self._workers: list[_Worker] = []
        self._zygote: Starter | None = None
        self._lock = threading.Lock()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._closed = False
        self._all_ready = threading.Event()
        self._start_failed_at = 0.0
        self._start_error = ""
        self._thread = threading.Thread(target=self._run, name=f"{name}-pool", daemon=True)
        self._thread.start()

    # --- the callers' side -------------------------------------------------------------------

    def submit(
        self,
        fn: Callable[..., Any],
        /,
        *args: Any,
        lane: Lane = PAGE,
        timeout: float,
        ask: Ask | None = None,
        **kwargs: Any,
    ) -> Future[Any]:
        """Run `fn(*args, **kwargs)` in a worker (with `ask=` a function that asks `ask`, when
        given); the future holds its result, its exception, or WorkerFailed. `timeout` counts
        from when a worker takes the task, and grows by what `ask` answers grant."""
        future: Future[Any] = Future()
        task = _Task(fn, args, kwargs, lane, timeout, ask, future)
        with self._lock:
            if self._closed:
                raise RuntimeError("the parse pool is closed")
            self._queues[lane].append(task)
        self._wake()
        return future

    def call(self, fn: Callable[..., Any], /, *args: Any, **options: Any) -> Any:
        """`submit` and wait for the result."""
        return self.submit(fn, *args, **options).result()

    @property
    def growth_limit_mb(self) -> float:
        """How much the workers together may grow past what they held idle: what `memory_mb`
        leaves beside that, and at least half of it."""
        idle_mb = sum(w.baseline_kb for w in self._workers if w.ready) / 1024
        return max(self.memory_mb / 2, self.memory_mb - idle_mb)

    @property
    def document_slots(self) -> int:
        """Document tasks at once: every worker but one, which pages keep."""
        return max(1, self.size - 1)

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every worker has started once (what a server or a benchmark does first)."""
        return self._all_ready.wait(timeout)

    def pids(self) -> list[int]:
        """The workers' process ids (for tests and measurements)."""
        return [pid for w in list(self._workers) if (pid := w.pid) is not None]

    def close(self) -> None:
        """Stop every worker; queued tasks fail as unavailable."""
        with self._lock:
            self._closed = True
        self._wake()
        self._thread.join(timeout=10)

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            self._wake_write.send(b"x")

    # --- the pool thread ---------------------------------------------------------------------

    def _run(self) -> None:
        next_poll = 0.0
        while True:
            with self._lock:
                closed = self._closed
            if closed:
                self._shut_down()
                return
            self._fill()
            self._dispatch()
            busy = [w for w in self._workers if w.task is not None]
            now = time.monotonic()
            timeout = min((w.task.deadline for w in busy if w.task), default=now + 60) - now
            if busy and sys.platform.startswith("linux"):
                timeout = min(timeout, max(0.0, next_poll - now))
            if self._start_error and not self._workers:
                timeout = min(timeout, _START_RETRY_SECONDS)
            zygote = self._zygote if self._zygote and self._zygote.alive else None
            waitables: list[Any] = [self._wake_read, *(w.conn for w in self._workers)]
            if zygote is not None:
                waitables.append(zygote)
            try:
                ready = wait(waitables, max(0.0, timeout))
            except OSError:  # a pipe closed between listing and waiting: look again
                ready = []
            if zygote is not None and zygote in ready:
                zygote.read()
            if self._wake_read in ready:
                with contextlib.suppress(BlockingIOError, OSError):
                    self._wake_read.recv(4096)
            for worker in list(self._workers):
                if worker.conn in ready:
                    self._receive(worker)
            self._overdue()
            if busy and time.monotonic() >= next_poll:
                self._watch_memory()
                next_poll = time.monotonic() + MEMORY_POLL_SECONDS

    def _fill(self) -> None:
        """Start workers until there are `size` (after a failed start, retry a while later)."""
        if self._start_error and time.monotonic() - self._start_failed_at < _START_RETRY_SECONDS:
            self._fail_queued_if_no_worker()
            return
        while len(self._workers) < self.size:
            zygote = self._zygote
            if zygote is None or not zygote.alive:
                if zygote is not None:
                    zygote.close()
                try:
                    zygote = self._zygote = Starter(self.preload)
                except OSError as error:  # no interpreter to start (a sandbox, a broken install)
                    logger.exception("could not start a parser process")
                    self._zygote = None
                    self._start_failed(f"{type(error).__name__}: {error}")
                    return
            ours, theirs = socket.socketpair()
            try:
                token = zygote.fork(theirs.fileno(), self.memory_mb)
            except OSError:  # the zygote is gone: the next round starts another
                zygote.alive = False
                ours.close()
                self._start_failed("the parsers' starter process exited")
                return
            finally:
                theirs.close()
            self._workers.append(_Worker(zygote, token, Connection(ours.detach())))
            self.stats.workers_started += 1

    def _start_failed(self, why: str) -> None:
        self._start_error = why
        self._start_failed_at = time.monotonic()
        self._fail_queued_if_no_worker()

    def _fail_queued_if_no_worker(self) -> None:
        if self._workers:
            return
        failed = WorkerFailed("unavailable", detail=self._start_error)
        with self._lock:
            tasks = [*self._queues[PAGE], *self._queues[DOCUMENT]]
            for queue in self._queues.values():
                queue.clear()
        for task in tasks:
            _settle(task.future, error=failed)

    def _dispatch(self) -> None:
        for worker in list(self._workers):  # (a worker found dead while sending is removed)
            if not worker.ready or worker.task is not None or worker.retiring:
                continue
            task = self._next_task()
            if task is None:
                return
            self._send(worker, task)

    def _next_task(self) -> _Task | None:
        documents = sum(1 for w in self._workers if w.task and w.task.lane == DOCUMENT)
        with self._lock:
            lanes = [PAGE] + ([DOCUMENT] if documents < self.document_slots else [])
            for lane in lanes:
                queue = self._queues[lane]
                while queue:
                    task = queue.popleft()
                    if task.future.set_running_or_notify_cancel():
                        return task
        return None

    def _send(self, worker: _Worker, task: _Task) -> None:
        try:
            payload = bytes(
                ForkingPickler.dumps(("run", task.fn, task.args, task.kwargs, task.ask is not None))
            )
        except Exception as error:  # noqa: BLE001 - an argument that cannot cross to a process
            _settle(task.future, error=error)
            return
        task.dispatched = time.monotonic()
        task.deadline = task.dispatched + task.timeout
        worker.task = task
        try:
            worker.conn.send_bytes(payload)
        except OSError:  # the worker died while idle: the task waits for the next one
            worker.task = None
            with self._lock:
                self._queues[task.lane].appendleft(_requeued(task))
            self._ended(worker)
            return
        self.stats.bytes_sent += len(payload)

    def _receive(self, worker: _Worker) -> None:
        try:
            payload = worker.conn.recv_bytes()
            message = pickle.loads(payload)
        except (EOFError, OSError, pickle.UnpicklingError, MemoryError):
            self._ended(worker)  # it died (perhaps mid-message): its exit status says how
            return
        except Exception:  # an exception class that cannot be rebuilt here
            logger.exception("a parser's answer could not be read")
            self._finish(worker, error=WorkerFailed("crashed", detail="unreadable answer"))
            return
        kind = message[0]
        if kind == "started" and worker.task is not None:
            worker.task.started = True
        elif kind == "ready":
            worker.ready, worker.baseline_kb, worker.reported_pid = True, message[1], message[2]
            self._start_error = ""
            if sum(w.ready for w in self._workers) >= self.size:
                self._all_ready.set()
        elif kind == "ask" and worker.task is not None and worker.task.ask is not None:
            try:
                answer, more_time = worker.task.ask(message[1])
            except Exception as error:  # noqa: BLE001 - the caller's function failing fails the task
                answer, more_time = error, 0.0
            worker.task.deadline += more_time
            with contextlib.suppress(OSError):
                worker.conn.send_bytes(bytes(ForkingPickler.dumps(("answer", answer))))
        elif kind in ("done", "raised"):
            _, value, ran, retiring = message
            self.stats.bytes_received += len(payload)
            task = worker.task
            if task is not None:
                self.stats.overhead_seconds += max(0.0, time.monotonic() - task.dispatched - ran)
            worker.retiring = retiring
            if kind == "done":
                self._finish(worker, value=value)
            else:
                self._finish(worker, error=value)

    def _finish(
        self, worker: _Worker, *, value: Any = None, error: BaseException | None = None
    ) -> None:
        task, worker.task = worker.task, None
        if task is None:
            return
        self.stats.tasks += 1
        if isinstance(error, WorkerFailed):
            self.stats.failures[error.why] = self.stats.failures.get(error.why, 0) + 1
        _settle(task.future, value=value, error=error)

    def _ended(self, worker: _Worker) -> None:
        """A worker is gone (or going): its task fails with why, and it is replaced."""
        with contextlib.suppress(ValueError):
            self._workers.remove(worker)
        worker.returncode = worker.zygote.stop(worker.token, worker.reported_pid)
        code = worker.returncode
        if not worker.ready and worker.stopped_for is None:  # died starting: wait before more
            self._start_error = f"a parser process exited as it started (exit {code})"
            self._start_failed_at = time.monotonic()
        task = worker.task
        if task is not None and not task.started and task.tries < 2 and not worker.stopped_for:
            # it died before it had the task (killed from outside, say): the next one takes it
            worker.task = None
            with self._lock:
                self._queues[task.lane].appendleft(_requeued(task))
        if worker.task is not None:
            seconds = time.monotonic() - worker.task.dispatched
            if worker.stopped_for is not None:
                why: Why = worker.stopped_for
            elif code == MEMORY_EXIT:
                why = "memory"
            else:
                why = "crashed"
            self._finish(worker, error=WorkerFailed(why, seconds, how_it_ended(code)))
        with contextlib.suppress(Exception):
            worker.conn.close()

    def _overdue(self) -> None:
        now = time.monotonic()
        for worker in list(self._workers):
            if worker.task is not None and now >= worker.task.deadline:
                worker.stopped_for = "timeout"
                self._ended(worker)

    def _watch_memory(self) -> None:
        """Stop the busy worker that grew most when the workers together hold too much."""
        growth = {}
        for worker in self._workers:
            kb = anonymous_kb(worker.pid)
            if kb is not None and worker.ready:
                growth[id(worker)] = (max(0, kb - worker.baseline_kb), worker)
        total_mb = sum(kb for kb, _ in growth.values()) / 1024
        self.stats.peak_growth_mb = max(self.stats.peak_growth_mb, round(total_mb, 1))
        if total_mb <= self.growth_limit_mb:
            return
        busy = [(kb, w) for kb, w in growth.values() if w.task is not None]
        if busy:
            _, largest = max(busy, key=lambda pair: pair[0])
            largest.stopped_for = "memory"
            self._ended(largest)

    def _shut_down(self) -> None:
        for worker in list(self._workers):
            worker.stopped_for = "unavailable"
            self._ended(worker)
        failed = WorkerFailed("unavailable", detail="the parse pool was closed")
        with self._lock:
            tasks = [*self._queues[PAGE], *self._queues[DOCUMENT]]
            for queue in self._queues.values():
                queue.clear()
        for task in tasks:
            _settle(task.future, error=failed)
        if self._zygote is not None:
            self._zygote.close()
        self._wake_read.close()
        self._wake_write.close()


def _requeued(task: _Task) -> _Task:
    """`task` again, with a future that can be set running a second time."""
    fresh = _Task(task.fn, task.args, task.kwargs, task.lane, task.timeout, task.ask, Future())
    fresh.tries = task.tries + 1
    fresh.future.add_done_callback(lambda done: _copy(done, task.future))
    return fresh


def _copy(source: Future[Any], target: Future[Any]) -> None:
    if source.cancelled():
        target.cancel()
    elif source.exception() is not None:
        _settle(target, error=source.exception())
    else:
        _settle(target, value=source.result())


def _settle(future: Future[Any], *, value: Any = None, error: BaseException | None = None) -> None:
    if future.done():
        return
    with contextlib.suppress(Exception):  # InvalidStateError: settled meanwhile
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
