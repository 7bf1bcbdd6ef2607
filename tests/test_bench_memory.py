"""The claim-memory benchmark runs (small) and says what it measured; recall is checked here,
the time is the benchmark's to print."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks import memory

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmark_recalls_exactly_the_restated_claims() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.memory", "--claims", "400", "--lookups", "30"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["claims"] == 400 and figures["lookups"] == 30
    assert figures["recalled"] == figures["restated"] == 3
    assert figures["p95_ms"] >= figures["median_ms"] > 0
    (speed, recall) = memory.targets(figures)
    assert recall[1] is True and "3 recalled of 3 restated" in recall[2]
    assert speed[0].startswith("claim memory p95 <= 50 ms")
