"""The parse pool's worker processes: a task that dies, overruns or runs out of memory costs that
task; the pool replaces the worker and goes on (workers/pool.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from tests.support import hostile, wait
from vicaran_agent.documents.ocr import OcrBudget, OcrLedger, PageNotRead
from vicaran_agent.workers.pool import DOCUMENT, PAGE, WorkerFailed, WorkerPool

pytestmark = pytest.mark.timeout(180)

# What these pools' tasks need, imported once by their starter (the parsers are not: no task here
# parses, and a starter that imports them costs a second of CPU a test).
TASKS = ("tests.support.hostile",)


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool(2, 768, preload=TASKS)
    assert workers.wait_ready(120)
    yield workers
    workers.close()


def failure(future: Future[object]) -> WorkerFailed:
    with pytest.raises(WorkerFailed) as failed:
        future.result(timeout=120)
    return failed.value


def gone(pid: int) -> bool:
    """No such process, or only its zombie (dead, waiting to be reaped by init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):  # gone, or going while it was read (ProcessLookupError)
        return True
    return state in ("Z", "X")


def wait_for(check, guard: float = 60.0) -> None:
    """Until `check()` (polling an event another process makes; `guard` only stops a hang)."""
    wait.until_sync(check, "the event never came", guard)


def test_tasks_run_in_other_processes_and_their_own_errors_come_back(pool):
    pids = {pool.call(os.getpid, timeout=30) for _ in range(4)}
    assert os.getpid() not in pids and pids <= set(pool.pids())
    with pytest.raises(ValueError, match="invalid literal"):
        pool.call(int, "not a number", timeout=30)


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_workers_are_forked_by_one_starter_and_a_replacement_takes_the_servers_environment(
    pool, monkeypatch
):
    """The parsers are imported once, by the pool's starter, not once a worker: every worker,
    a replacement too, is its child; and a replacement sees the environment as it is now."""
    first = pool.pids()
    (starter,) = {parent_of(pid) for pid in first}
    assert starter != os.getpid() and parent_of(starter) == os.getpid()
    monkeypatch.setenv("VICARAN_WORKER_PROBE", "set after the pool started")
    for pid in first:
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: len(pool.pids()) == 2 and not set(pool.pids()) & set(first))
    assert {parent_of(pid) for pid in pool.pids()} == {starter}
    probe = pool.call(os.getenv, "VICARAN_WORKER_PROBE", timeout=30)
    assert probe == "set after the pool started"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_starter_killed_from_outside_takes_its_workers_and_the_pool_starts_another(
    pool, tmp_path
):
    first = pool.pids()
    (starter,) = {parent_of(pid) for pid in first}
    held = pool.submit(hostile.hold, str(tmp_path), "held", timeout=60)
    wait_for(lambda: len(hostile.holding(tmp_path)) == 1)
    os.kill(starter, signal.SIGKILL)
    failed = failure(held)  # its task, and only its task
    assert (failed.why, failed.detail) == ("crashed", "its starter process ended")
    wait_for(lambda: gone(starter) and all(gone(pid) for pid in first))
    answered = pool.call(os.getpid, timeout=60)
    assert answered not in first and parent_of(answered) not in (starter, os.getpid())


def test_a_worker_that_aborts_costs_its_task_and_is_replaced(pool):
    started = pool.stats.workers_started
    failed = failure(pool.submit(hostile.abort, timeout=30))
    assert (failed.why, failed.detail) == ("crashed", f"signal {int(signal.SIGABRT)}")
    assert pool.call(os.getpid, timeout=30) in pool.pids()  # the pool goes on
    assert pool.stats.workers_started == started + 1


def test_an_overrun_is_stopped_with_what_the_task_started(pool, tmp_path):
    failed = failure(pool.submit(hostile.start_and_hang, str(tmp_path), timeout=1))
    assert failed.why == "timeout" and failed.seconds >= 1
    child = int((tmp_path / "child.pid").read_text())
    wait_for(lambda: gone(child))  # killed with its worker's process group
    assert pool.call(os.getpid, timeout=30)


def test_running_out_of_memory_is_said_as_such_and_the_worker_is_renewed(pool):
    pids = set(pool.pids())
    failed = failure(pool.submit(hostile.allocate, 2048, timeout=30))
    assert failed.why == "memory"
    wait_for(lambda: len(set(pool.pids()) - pids) == 1)  # the worker that failed was replaced
    assert pool.call(hostile.allocate, 64, timeout=30) == 64 << 20


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc (Linux)")
def test_the_workers_together_hold_no_more_than_the_memory_limit(tmp_path):
    """Each worker stays under its own cap, but two together pass what the pool may hold:
    the one that grew most is stopped, and the other finishes. (Workers holding the parsers,
    as the server's do: what they hold idle counts.)"""
    pool = WorkerPool(2, 768)
    try:
        assert pool.wait_ready(120)
        limit = pool.growth_limit_mb
        assert limit < 2 * 350  # what two idle workers leave of 768 MB
        tasks = [pool.submit(hostile.grow, str(tmp_path), str(n), 350, timeout=60) for n in "ab"]
        wait_for(lambda: any(task.done() for task in tasks))
        (tmp_path / "release").touch()
        outcomes = []
        for task in tasks:
            try:
                outcomes.append(str(task.result(timeout=60)))
            except WorkerFailed as failed:
                outcomes.append(failed.why)
        assert sorted(outcomes) == sorted(["memory", str(350 << 20)])
        # (how far past the limit they got depends on how fast 350 MB is touched against the
        # pool's 50 ms look at their memory: both may have it all by then)
        assert limit < pool.stats.peak_growth_mb
    finally:
        pool.close()


def test_documents_leave_a_worker_free_for_pages(pool, tmp_path):
    documents = [
        pool.submit(hostile.hold, str(tmp_path), f"document-{n}", lane=DOCUMENT, timeout=60)
        for n in (1, 2)
    ]
    wait_for(lambda: len(hostile.holding(tmp_path)) == 1)
    page = pool.submit(hostile.hold, str(tmp_path), "page", lane=PAGE, timeout=60)
    wait_for(lambda: len(hostile.holding(tmp_path)) == 2)
    held = sorted(path.name for path in hostile.holding(tmp_path))
    assert held == ["holding-document-1", "holding-page"]  # the second document waits
    (tmp_path / "release").touch()
    assert page.result(timeout=60) and all(d.result(timeout=60) for d in documents)


def test_a_task_asks_its_caller_who_may_give_it_more_time(pool):
    asked: list[object] = []

    def answer(request: object) -> tuple[object, float]:
        asked.append(request)
        return "yes", 30.0  # and 30 s more

    task = pool.submit(hostile.ask_then_sleep, 2.0, timeout=1.0, ask=answer)
    assert task.result(timeout=60) == "yes"
    assert asked == ["may I?"]


def test_what_cannot_cross_to_a_worker_fails_that_task_only(pool):
    with pytest.raises(Exception, match="pickle"):
        pool.call(len, lambda: 0, timeout=30)
    assert pool.call(len, "four", timeout=30) == 4


def test_a_worker_killed_from_outside_is_replaced_and_a_queued_task_cancelled_never_runs(
    pool, tmp_path
):
    os.kill(pool.pids()[0], signal.SIGKILL)
    wait_for(
        lambda: pool.wait_ready(0) and len(pool.pids()) == 2 and pool.call(os.getpid, timeout=30)
    )
    held = [pool.submit(hostile.hold, str(tmp_path), f"held-{n}", timeout=60) for n in (1, 2)]
    wait_for(lambda: len(hostile.holding(tmp_path)) == 2)
    queued = pool.submit(hostile.hold, str(tmp_path), "never", timeout=60)
    assert queued.cancel()
    (tmp_path / "release").touch()
    assert all(task.result(timeout=60) for task in held)
    assert pool.call(os.getpid, timeout=30)
    assert not (tmp_path / "holding-never").exists()


# --- nothing left behind ------------------------------------------------------------------------


def open_files() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def starters() -> set[int]:
    """This process's children that run the starter's module (pools' starters), not yet gone."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if parent_of(int(entry.name)) != os.getpid():
                continue
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if b"vicaran_agent.workers.process" in command and not gone(int(entry.name)):
            found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc (Linux)")
def test_a_pool_closes_the_pipes_of_the_workers_it_replaces_and_stops(tmp_path):
    before, others = open_files(), starters()  # (the session's parse pool has one)
    pool = WorkerPool(2, 768, preload=TASKS)
    try:
        assert pool.wait_ready(120)
        started = pool.pids()
        os.kill(started[0], signal.SIGKILL)  # replaced in the background
        failure(pool.submit(hostile.abort, timeout=30))  # and one replaced for its task
        wait_for(lambda: len(set(pool.pids()) - set(started)) == 2 and pool.wait_ready(0))
        assert pool.call(os.getpid, timeout=30)
        # a pipe a worker, the pool's wake-up pair and its line to the workers' starter
        assert len(open_files() - before) == pool.size + 3
        every = {*started, *pool.pids()}
        assert len(starters()) == len(others) + 1  # the workers' starter, this pool's own
        assert pool.stats.workers_started == 4
    finally:
        pool.close()
    assert open_files() == before  # each worker's pipe and the pool's own, closed
    assert all(gone(pid) for pid in every)
    assert starters() == others  # the starter too


_SERVER = """
import sys
from pathlib import Path
from tests.support import hostile
from vicaran_agent.workers.pool import WorkerPool

pool = WorkerPool(2, 512, preload=("tests.support.hostile",))
pool.wait_ready(120)
pool.submit(hostile.hang, sys.argv[1], timeout=600)
print(" ".join(map(str, pool.pids())), flush=True)
sys.stdin.read()  # until the test kills this process
"""


def test_workers_end_with_their_server_even_mid_task(tmp_path):
    """A server killed outright (SIGKILL: no clean-up of its own) leaves no parser behind,
    not even one stuck in a task."""
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(hostile.ROOT)},
    )
    workers: list[int] = []
    try:
        assert server.stdout is not None
        workers = [int(pid) for pid in server.stdout.readline().split()]
        assert len(workers) == 2
        wait_for(lambda: (tmp_path / "hanging").exists())
        server.kill()
        server.wait()
        wait_for(lambda: all(gone(pid) for pid in workers), guard=30)
    finally:
        for pid in workers:  # what a failed run left behind
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        server.kill()
        server.wait()
        if server.stdin is not None:
            server.stdin.close()
        if server.stdout is not None:
            server.stdout.close()


# --- OCR budgets --------------------------------------------------------------------------------


def test_a_documents_ocr_budget_grants_pages_and_gives_back_unused_seconds():
    budget = OcrBudget(pages=3, seconds=100, page_timeout=60)
    assert budget.allow(1) == 60
    budget.spent(1, 60, 10)  # 50 s given back
    assert budget.allow(2) == 60
    budget.spent(2, 60, 60)
    assert budget.allow(3) == 30  # 100 - 10 - 60
    budget.spent(3, 30, 5)
    with pytest.raises(PageNotRead) as refused:
        budget.allow(4)
    assert "VICARAN_OCR_DOCUMENT_PAGES" in refused.value.reason
    assert (budget.pages_read, budget.seconds_used) == (3, 75)


def test_files_read_at_the_same_time_share_the_investigations_ocr_budget():
    ledger = OcrLedger(pages=3, seconds=90)
    first, second = (OcrBudget(pages=10, seconds=300, ledger=ledger) for _ in range(2))
    assert first.allow(1) == 60
    assert second.allow(1) == 30  # what the first has not given back is taken
    with pytest.raises(PageNotRead) as refused:
        second.allow(2)
    assert "VICARAN_OCR_INVESTIGATION_SECONDS" in refused.value.reason
    first.spent(1, 60, 20)  # 40 s back, for any file
    assert second.allow(2) == 40
    with pytest.raises(PageNotRead) as refused:
        first.allow(2)
    assert "VICARAN_OCR_INVESTIGATION_PAGES" in refused.value.reason
    # turn after turn: what the earlier files spent is taken off from the start
    later = OcrLedger(pages=3, seconds=90)
    assert OcrBudget(pages=10, seconds=300, ledger=later).allow(1) == 60
