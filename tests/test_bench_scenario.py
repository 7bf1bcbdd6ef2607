"""The investigation benchmark (`make bench`'s scenarios) runs and reports what it measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_quick_scenario_runs_and_reports_its_figures():
    """One scenario, as `make bench` runs each (its own process, its own fakes), at a tiny
    latency: it completes, the newsroom gets every record, and the figures are there."""
    done = subprocess.run(
        # a small story (what the bench measures at full size is its own run's business)
        [sys.executable, "-m", "benchmarks.scenario", "--mode", "quick", "--latency", "0.02"]
        + ["--sources", "6", "--claims", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["status"] == "completed" and figures["verdicts"] == figures["claims"] > 0
    assert figures["outbox"] == {
        "pending": 0,
        "delivered": figures["outbox"]["delivered"],
        "failed": 0,
    }
    assert figures["newsroom_types"]["INVESTIGATION_COMPLETE"] == 1
    # every source read is kept in the web archive (archiving is on by default)
    assert figures["pages_archived"] >= figures["sources_readable"] > 0
    assert figures["archive_bytes"] > 0
