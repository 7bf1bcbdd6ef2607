"""Watching a server from beside it: is it answering (from a process of its own), and how much
memory do it and its children hold (Linux /proc, from a thread)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

INTERVAL_SECONDS = 0.05


_POLLER = """
import json, select, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import httpx

class Bare(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass

control = ThreadingHTTPServer(("127.0.0.1", 0), Bare)
threading.Thread(target=control.serve_forever, daemon=True).start()
bare = f"http://127.0.0.1:{control.server_address[1]}/"
url, limit, interval = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
answers, control_answers, problems = [], [], []
with httpx.Client(timeout=limit) as client:
    while True:
        began = time.monotonic()
        try:
            status = client.get(url).status_code
        except httpx.HTTPError as error:
            problems.append(f"{type(error).__name__}: {error}")
        else:
            answers.append(time.monotonic() - began)
            if status != 200:
                problems.append(f"HTTP {status}")
        began = time.monotonic()
        client.get(bare)
        control_answers.append(time.monotonic() - began)
        if select.select([sys.stdin], [], [], interval)[0]:
            break
control.shutdown()
print(json.dumps({"answers": answers, "control": control_answers, "problems": problems}))
"""


@dataclass
class HealthPoller:
    """GET `url` again and again from a process of its own (so that nothing in the test's
    process can slow it), each answer given `limit` seconds, until stopped: how long every
    answer took, and what went wrong. Beside each, the same process asks a bare HTTP server of
    its own: how fast the machine answers anything at that moment (a loaded machine slows both;
    a server whose loop is held slows only its own)."""

    url: str
    limit: float = 30.0
    answers: list[float] = field(default_factory=list)
    control: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __enter__(self) -> HealthPoller:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _POLLER, self.url, str(self.limit), str(INTERVAL_SECONDS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        output, _ = self._process.communicate("stop\n", timeout=30)
        found = json.loads(output.strip().splitlines()[-1])
        self.answers, self.problems = found["answers"], found["problems"]
        self.control = found["control"]

    @property
    def slowest(self) -> float:
        return max(self.answers, default=0.0)

    def answered_within(self, seconds: float) -> bool:
        """Every request answered 200, the slowest within `seconds` beyond what the machine
        itself took at its slowest (twice the bare server's slowest answer)."""
        bare = max(self.control, default=0.0)
        return not self.problems and bool(self.answers) and self.slowest < seconds + 2 * bare

    def __str__(self) -> str:
        bare = max(self.control, default=0.0)
        return (
            f"{len(self.answers)} answers, slowest {self.slowest:.3f} s (a bare server's slowest"
            f" {bare:.3f} s), problems: {self.problems}"
        )


def tree(pid: int) -> list[int]:
    """`pid` and every process under it."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        pending += children.get(current, [])
    return found


def _kb(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


@dataclass
class TreeMemory:
    """The peak, over time, of what a process and its children hold together: the sum of
    their resident sets (shared pages counted in each) and of their proportional sets (shared
    pages divided among them: what they cost the machine); and the server's own peak."""

    pid: int
    peak_rss_mib: float = 0.0
    peak_pss_mib: float = 0.0
    peak_processes: int = 0
    server_hwm_mib: float = 0.0

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-memory", daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = tree(self.pid)
            rss = sum(_kb(Path(f"/proc/{p}/status"), "VmRSS:") for p in pids)
            pss = sum(_kb(Path(f"/proc/{p}/smaps_rollup"), "Pss:") for p in pids)
            self.peak_rss_mib = max(self.peak_rss_mib, rss / 1024)
            self.peak_pss_mib = max(self.peak_pss_mib, pss / 1024)
            self.peak_processes = max(self.peak_processes, len(pids))
            hwm = _kb(Path(f"/proc/{self.pid}/status"), "VmHWM:") / 1024
            self.server_hwm_mib = max(self.server_hwm_mib, hwm)
            self._stop.wait(INTERVAL_SECONDS)
