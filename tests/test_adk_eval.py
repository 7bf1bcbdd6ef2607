"""`adk eval vicaran_agent tests/eval/vicaran.evalset.json`, offline.

The scripted model plays the model and the loopback fakes play Tavily, Jina and Fact Check, so the
evalset's plan, approval and quick investigation run without a network or a key. The passing run
is `adk eval` as a process (the entry point, ADK importing the agent folder, the custom metric);
the failing one runs the same command in this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.api_server import ROOT
from tests.support.inprocess import CommandRun, call, fresh_agent_module

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

EVAL_DIR = ROOT / "tests" / "eval"
EVALSET = EVAL_DIR / "vicaran.evalset.json"
APPROVAL_CASE = "approval_runs_a_quick_investigation"


def adk_eval(env, evalset: Path, config: Path) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        **env.variables,
        "VICARAN_MODEL_PLUGINS": "tests.support.scripted_model",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [
            sys.executable, "-m", "google.adk.cli", "eval", "vicaran_agent", str(evalset),
            "--config_file_path", str(config), "--print_detailed_results",
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=150,
    )  # fmt: skip


def adk_eval_here(evalset: Path, config: Path) -> CommandRun:
    """`adk eval` as above, run by ADK's command in this process; the agent module it is given
    is the package this process imported (ADK's own import of the folder, under the name
    `agent`, would load a second copy of every Vicaran module here: the process test covers
    it)."""
    from google.adk.cli import cli_eval
    from google.adk.cli.cli_tools_click import main as adk

    import vicaran_agent

    def run() -> int:
        try:
            adk.main(
                [
                    "eval", str(ROOT / "vicaran_agent"), str(evalset),
                    "--config_file_path", str(config), "--print_detailed_results",
                ],
                prog_name="adk",
                standalone_mode=False,
            )  # fmt: skip
        except SystemExit as stop:
            return int(stop.code or 0)
        return 0

    module = cli_eval._get_agent_module
    cli_eval._get_agent_module = lambda _path: vicaran_agent  # type: ignore[assignment]
    try:
        with fresh_agent_module():
            done, code = call(run)
    finally:
        cli_eval._get_agent_module = module  # type: ignore[assignment]
    return CommandRun(code if code is not None else done.code, done.output)


def test_the_evalset_passes_with_the_scripted_model(env):
    result = adk_eval(env, EVALSET, EVAL_DIR / "test_config.json")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Tests passed: 2" in output and "Tests failed: 0" in output


def test_the_evalset_fails_when_an_expected_response_changes(env, tmp_path: Path):
    # The quick investigation's report is expected to stop at the plan: the eval must say no.
    evalset = json.loads(EVALSET.read_text())
    case = next(c for c in evalset["eval_cases"] if c["eval_id"] == APPROVAL_CASE)
    case["conversation"][-1]["final_response"]["parts"][0]["text"] = "[PLAN_APPROVAL_REQUIRED]"
    changed = tmp_path / "changed.evalset.json"
    changed.write_text(json.dumps(evalset))
    result = adk_eval_here(Path(f"{changed}:{APPROVAL_CASE}"), EVAL_DIR / "test_config.json")
    output = result.output
    assert result.code == 1, output
    assert "Tests passed: 0" in output and "Tests failed: 1" in output
    assert "Metric: final_marker_match, Status: FAILED" in output
    assert "Metric: tool_trajectory_avg_score, Status: PASSED" in output


def _keys() -> dict[str, str]:
    from dotenv import dotenv_values

    dotenv = ROOT / ".env"
    found = {k: v for k, v in dotenv_values(dotenv).items() if v} if dotenv.exists() else {}
    return {**found, **{k: v for k, v in os.environ.items() if v}}


@pytest.mark.live
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    not (
        (_keys().get("GOOGLE_API_KEY") or _keys().get("GOOGLE_CLOUD_PROJECT"))
        and _keys().get("TAVILY_API_KEY")
    ),
    reason="the live eval needs GOOGLE_API_KEY (or Vertex settings) and TAVILY_API_KEY",
)
def test_the_evalset_passes_with_the_real_model(tmp_path: Path):
    environment = {
        **_keys(),
        "VICARAN_DATABASE_URL": f"sqlite:///{tmp_path / 'vicaran.db'}",
        "PYTHONPATH": str(ROOT),
    }
    environment.pop("VICARAN_MODEL_PLUGINS", None)
    result = subprocess.run(
        [sys.executable, "-m", "google.adk.cli", "eval", "vicaran_agent", str(EVALSET)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=850,
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
