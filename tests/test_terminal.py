"""`vicaran` as a journalist sees it: a terminal, a pipe, configuration mistakes, a busy port."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.corpus import RIVERTON
from tests.support.terminal import TerminalRun, has_escape_codes, run_in_pty
from vicaran_agent.sanitize import MARKERS

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
BRIEF = "Did Acme Chemicals pollute Riverton's drinking water?"
ID = "7c1f9a52-3e4b-4d6a-9f08-1b2c3d4e5f60"
OTHER_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
PUBLIC = "http://127.0.0.1:8123"
URL_LINE = f"{PUBLIC}/investigations/{ID}"

pytestmark = pytest.mark.timeout(240)


def vicaran(*args: str) -> list[str]:
    return [sys.executable, "-m", "vicaran_agent.cli", *args]


def investigate(*extra: str, investigation_id: str = ID) -> list[str]:
    return vicaran(
        "investigate", BRIEF, "--url", RIVERTON[2].url, "--mode", "quick", "--id", investigation_id,
        "--yes", "--wait-delivery", "0", *extra,
    )  # fmt: skip


def variables(**extra: str) -> dict[str, str]:
    """The test's environment (fakes, database) for a `vicaran` subprocess."""
    return {
        **os.environ,
        # the scripted model, a little slow so progress can be seen; a plugin that makes ADK
        # print its "[EXPERIMENTAL]" warning, as Gemini's context cache does
        "VICARAN_FAST_MODEL": "scripted/latency-20",
        "VICARAN_PRO_MODEL": "scripted/latency-20",
        "VICARAN_MODEL_PLUGINS": "tests.support.scripted_model,tests.support.experimental_plugin",
        "VICARAN_PUBLIC_URL": PUBLIC,
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def piped(argv: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    """`argv` with stdout and stderr to a pipe (not a terminal), as in a script or CI."""
    return subprocess.run(
        argv,
        cwd=ROOT,
        env=variables(**extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=180,
    )


def no_markers(text: str) -> list[str]:
    return [m for m in MARKERS if f"[{m}]" in text]


def last_line(text: str) -> str:
    return text.rstrip().splitlines()[-1]


def save_capture(run: TerminalRun, name: str) -> None:
    """The capture as test artifacts: the screen as text, and the raw bytes (escapes shown)."""
    ARTIFACTS.mkdir(exist_ok=True)
    visible = run.text.replace("\x1b", "\\x1b").replace("\r", "\\r")
    (ARTIFACTS / f"{name}.raw").write_bytes(run.raw)
    (ARTIFACTS / f"{name}.txt").write_text(
        f"$ vicaran investigate ... (exit {run.code})\n\n== screen ==\n\n{run.screen}\n"
        f"== raw bytes ({len(run.raw)}; ESC shown as \\x1b, CR as \\r) ==\n\n{visible}\n",
        encoding="utf-8",
    )


def test_investigate_in_a_terminal_shows_live_progress_the_report_and_the_dashboard_link(env):
    run = run_in_pty(investigate(), env=variables(), cwd=ROOT)
    save_capture(run, "terminal-investigate")
    screen = run.screen
    assert run.code == 0, screen
    assert has_escape_codes(run.text)  # drawn with rich
    # live progress: the counters were redrawn as the run went on, and the last frame stays
    drawn = set(re.findall(r"sources read (\d+)/(\d+)", screen + run.text))
    assert len(drawn) > 2, drawn
    status = next(line for line in screen.splitlines() if line.startswith("Completed · "))
    assert re.search(r"sources read (\d+)/\1 · claims checked (\d+)/\2 · \d+:\d\d", status)
    assert re.search(r"^Model use: [\d,]+ tokens in · [\d,]+ out · ≈ US\$ ", screen, re.M)
    # the report as Markdown: headings and bold are rendered, not shown as syntax
    assert "Investigation Summary" in screen
    assert not [line for line in screen.splitlines() if line.startswith(("# ", "## "))]
    assert "**" not in screen
    assert not no_markers(screen)
    assert "EXPERIMENTAL" not in screen and "Skipping missing token usage" not in screen
    assert last_line(screen).endswith(URL_LINE)


def test_investigate_in_a_pipe_writes_plain_text_without_escape_codes_or_markers(env):
    result = piped(investigate())
    assert result.returncode == 0, result.stdout
    assert not has_escape_codes(result.stdout)
    assert not no_markers(result.stdout)
    assert "EXPERIMENTAL" not in result.stdout
    assert "Investigation Summary" in result.stdout
    assert last_line(result.stdout).endswith(URL_LINE)


def test_plain_flag_in_a_terminal_writes_no_escape_codes(env):
    run = run_in_pty(investigate("--plain"), env=variables(), cwd=ROOT)
    assert run.code == 0, run.text
    assert not has_escape_codes(run.text)
    assert not no_markers(run.text)
    assert last_line(run.text).endswith(URL_LINE)


def test_a_model_error_is_one_sentence_and_verbose_shows_its_details(env):
    failing = {"VICARAN_PRO_MODEL": "scripted/error-ClaimAssessment"}  # a 503 from the provider
    quiet = piped(investigate(), **failing)
    assert quiet.returncode == 2, quiet.stdout
    assert "The model provider had an error (503)." in quiet.stdout
    assert "{'error'" not in quiet.stdout and "UNAVAILABLE" not in quiet.stdout
    assert "--verbose" in quiet.stdout  # where the details are
    assert last_line(quiet.stdout).endswith(URL_LINE)
    verbose = piped(investigate("--verbose", investigation_id=OTHER_ID), **failing)
    assert verbose.returncode == 2
    assert "503 UNAVAILABLE" in verbose.stdout and "{'error'" in verbose.stdout


def test_a_bad_model_plugin_is_one_sentence_and_commands_without_a_model_still_work(env):
    bad = {"VICARAN_MODEL_PLUGINS": "tests.support.scripted_model,newsroom_models_typo"}
    run = piped(investigate(), **bad)
    assert run.returncode == 1
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout
    assert "VICARAN_MODEL_PLUGINS" in lines[0] and "newsroom_models_typo" in lines[0]
    assert "Traceback" not in run.stdout
    verbose = piped(investigate("--verbose"), **bad)
    assert (
        "Traceback" in verbose.stdout and "No module named 'newsroom_models_typo'" in verbose.stdout
    )
    status = piped(vicaran("outbox", "status"), **bad)
    assert status.returncode == 0, status.stdout
    assert status.stdout.startswith("Outbox: 0 pending")
    export = piped(vicaran("export", ID, "--format", "md"), **bad)
    assert export.returncode == 1
    assert export.stdout.strip() == f"No investigation with id {ID} is saved here."


def test_a_busy_port_is_one_sentence_with_the_port_hint_and_no_url(env):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = piped(vicaran("serve", "--host", "127.0.0.1", "--port", str(port)))
    assert result.returncode != 0
    assert result.stdout.strip() == (
        f"Port {port} is already in use: stop what is using it or run `make run PORT={port + 10}`."
    )


def test_make_web_says_where_the_dashboard_is_before_starting_adk_web():
    result = subprocess.run(
        ["make", "-n", "web", "HOST=127.0.0.1", "PORT=8000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = result.stdout.splitlines()
    hint = next(i for i, line in enumerate(lines) if "/investigations" in line)
    start = next(i for i, line in enumerate(lines) if "adk web --host" in line)
    assert hint < start
    assert "make run" in lines[hint] and "http://127.0.0.1:8000/investigations" in lines[hint]


def test_a_bad_model_plugin_does_not_break_importing_the_agent(env):
    bad = {"VICARAN_MODEL_PLUGINS": "newsroom_models_typo", "VICARAN_FAST_MODEL": "newsroom/m-1"}
    imported = piped([sys.executable, "-c", "import vicaran_agent.agent"], **bad)
    assert imported.returncode == 0 and not imported.stdout, imported.stdout

    from vicaran_agent.agent import build_root_agent
    from vicaran_agent.llm import ConfigHintModel

    env.set(**bad)
    model = build_root_agent().model  # what the orchestrator answers with: the fix to make
    assert isinstance(model, ConfigHintModel)
    assert "VICARAN_MODEL_PLUGINS" in model.hint and "newsroom_models_typo" in model.hint


def test_serve_listens_on_the_socket_it_checked_even_with_a_bad_model_plugin(env):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        vicaran("serve", "--host", "127.0.0.1", "--port", str(port)),
        cwd=ROOT,
        env=variables(VICARAN_MODEL_PLUGINS="newsroom_models_typo"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = process.stdout.readline() if process.stdout else ""
        assert first.startswith(f"Vicaran: dev UI http://127.0.0.1:{port}/dev-ui/"), first
        deadline = time.monotonic() + 60
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert response.status_code == 200
    finally:
        process.terminate()
        rest = process.communicate(timeout=30)[0]
    assert "EXPERIMENTAL" not in first + rest  # ADK's notices are not for `make run` users


def test_an_invalid_setting_is_one_sentence_for_every_command_and_in_the_agent(env):
    bad = {"VICARAN_TODAY": "26/11/2026"}
    for argv in (vicaran("outbox", "status"), investigate(), vicaran("serve", "--port", "0")):
        done = piped(argv, **bad)
        assert done.returncode == 2, done
        lines = [line for line in done.stdout.splitlines() if line.strip()]  # stderr joined in
        assert len(lines) == 1 and "Traceback" not in done.stdout, done.stdout
        assert "VICARAN_TODAY" in lines[0] and "YYYY-MM-DD" in lines[0]
    # ADK imports the agent module itself (adk web / api_server): it loads, and answers the fix
    probe = (
        "import asyncio\n"
        "from google.adk.runners import InMemoryRunner\n"
        "from google.genai import types\n"
        "from vicaran_agent import agent\n"
        "async def main():\n"
        "    runner = InMemoryRunner(app=agent.app)\n"
        "    s = await runner.session_service.create_session(app_name=agent.app.name, user_id='u')\n"
        "    msg = types.Content(role='user', parts=[types.Part(text='Investigate Acme.')])\n"
        "    async for e in runner.run_async(user_id='u', session_id=s.id, new_message=msg):\n"
        "        print(''.join(p.text or '' for p in (e.content.parts if e.content else [])))\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=variables(**bad), capture_output=True, text=True,
        timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "VICARAN_TODAY" in done.stdout and "YYYY-MM-DD" in done.stdout
