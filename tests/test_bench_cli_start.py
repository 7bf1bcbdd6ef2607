"""The CLI start benchmark runs its commands for real and judges its figures as it says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks import cli_start

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmark_times_every_command_and_the_adk_import() -> None:
    done = subprocess.run(
        # two commands (every command's start is the next test's): the bench as make bench runs it
        [sys.executable, "-m", "benchmarks.cli_start", "--runs", "1"]
        + ["--only=--help", "--only=docs list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    figures = json.loads(done.stdout.splitlines()[-1])
    assert list(figures["commands_s"]) == ["--help", "docs list"]
    assert all(seconds > 0 for seconds in figures["commands_s"].values())
    assert figures["adk_import_s"] > 0
    printed = done.stderr.splitlines()
    assert [line.split("  ")[0].strip() for line in printed[:-1]] == ["--help", "docs list"]


def test_the_targets_name_the_slowest_command_and_the_ratio() -> None:
    figures = {"runs": 5, "adk_import_s": 2.0, "commands_s": {"docs list": 0.9, "--help": 0.1}}
    (start, ratio) = cli_start.targets(figures)
    assert start == ("CLI start <= 1 s (median of 5)", True, "slowest docs list 0.90 s")
    assert ratio == ("CLI start <= 0.5 x the ADK import", True, "0.45 x (0.90 s / 2.00 s)")
    figures["commands_s"]["export"] = 1.2
    assert [met for _, met, _ in cli_start.targets(figures)] == [False, False]


HEAVY = (
    "google.adk", "google.genai", "trafilatura", "alembic", "numpy", "httpx", "pydantic_settings",
    "sqlalchemy.orm",
)  # fmt: skip
PROBE = """
import json, sys
from vicaran_agent.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
heavy = sorted(m for m in json.loads(os.environ["HEAVY"]) if m in sys.modules)
print(json.dumps({"code": code, "heavy": heavy}))
"""


def test_commands_that_do_not_run_the_agent_load_neither_adk_nor_the_parsers(tmp_path) -> None:
    """What the CLI start target rests on, without a clock: which modules each command loads."""
    url = f"sqlite:///{tmp_path / 'vicaran.db'}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VICARAN_DATABASE_URL": url, "HEAVY": "[]"}
    env["ADK_DISABLE_LOAD_DOTENV"] = "1"
    seeded = f"import os; os.environ['VICARAN_DATABASE_URL'] = {url!r}\n"
    seeded += f"from benchmarks.cli_start import _seed; _seed({url!r})"
    subprocess.run([sys.executable, "-c", seeded], cwd=ROOT, env=env, check=True, timeout=60)
    env["HEAVY"] = json.dumps(HEAVY)
    probes = {  # all at once: each its own interpreter, as a command starts
        name: subprocess.Popen(
            [sys.executable, "-c", "import os\n" + PROBE, *argv],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, argv in cli_start.COMMANDS.items()
    }
    for name, probe in probes.items():
        out, err = probe.communicate(timeout=60)
        said = json.loads(out.splitlines()[-1])
        assert said == {"code": 0, "heavy": []}, (name, said, err[-500:])
