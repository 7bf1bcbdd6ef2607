"""The gazettes benchmark runs end to end (in its own process, as `make bench` runs it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks import gazettes

ROOT = Path(__file__).resolve().parent.parent


def test_the_gazettes_benchmark_runs_and_keeps_to_the_budget() -> None:
    """Against the fake as deployed (Traefik's bucket, cold first queries), eight times faster
    than `make bench`: a 7.5 s "minute" for both budgets, cold queries of 25/8 s."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.gazettes", "--latency", "0.05", "--time-scale", "8"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["found"] == len(gazettes.CLAIMS)
    assert figures["qd_requests"]["cities"] == 1  # the city list is fetched once
    assert figures["qd_cold"] == figures["qd_requests"]["gazettes"]  # every search was cold
    assert figures["qd_refused"] == 0  # Vicaran's budget kept inside Traefik's bucket
    assert all(1 <= r <= 3 for r in figures["rounds"])
    assert all(ok for _, ok, _ in gazettes.targets(figures))
    assert "Querido Diário received" in "\n".join(gazettes.lines(figures))
