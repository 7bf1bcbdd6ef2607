"""`vicaran investigate` in a process of its own, for the tests that stop or kill it mid-run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def start_investigation(brief: str, investigation_id: str) -> subprocess.Popen[str]:
    """`vicaran investigate BRIEF --yes` with the scripted model at 0.4 s a call (slow enough to
    be stopped mid-run) and a heartbeat every 0.5 s; its output on the process's stdout."""
    variables = {
        **os.environ,
        "VICARAN_FAST_MODEL": "scripted/latency-400",
        "VICARAN_PRO_MODEL": "scripted/latency-400",
        "VICARAN_MODEL_PLUGINS": "tests.support.scripted_model",
        "VICARAN_HEARTBEAT_SECONDS": "0.5",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "vicaran_agent.cli", "investigate", brief]
    return subprocess.Popen(
        [*command, "--yes", "--id", investigation_id, "--wait-delivery", "0"],
        cwd=ROOT,
        env=variables,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
