"""`vicaran` as a journalist sees it: a terminal, a pipe, configuration mistakes, a busy port.

The first test runs `vicaran investigate` as a process in a pseudo-terminal: the entry point,
its imports, rich, ADK's warnings and the log, wired as a journalist gets them. The others run
`cli.main(argv)` in this process with its own terminal or pipe (tests/support/inprocess.py).
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from google.adk.models import registry

from tests.support.api_server import free_port
from tests.support.corpus import RIVERTON
from tests.support.inprocess import (
    call,
    fresh_agent_module,
    vicaran,
    vicaran_in_terminal,
    vicaran_serving,
)
from tests.support.terminal import TerminalRun, has_escape_codes, run_in_pty
from vicaran_agent.sanitize import MARKERS

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
BRIEF = "Did Acme Chemicals pollute Riverton's drinking water?"
ID = "7c1f9a52-3e4b-4d6a-9f08-1b2c3d4e5f60"
OTHER_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
PUBLIC = "http://127.0.0.1:8123"
URL_LINE = f"{PUBLIC}/investigations/{ID}"
EXPERIMENTAL_PLUGIN = "tests.support.experimental_plugin"
# the scripted model, a little slow so progress can be seen; a plugin that makes ADK print its
# "[EXPERIMENTAL]" warning, as Gemini's context cache does
SETTINGS = {
    "VICARAN_FAST_MODEL": "scripted/latency-20",
    "VICARAN_PRO_MODEL": "scripted/latency-20",
    "VICARAN_MODEL_PLUGINS": f"tests.support.scripted_model,{EXPERIMENTAL_PLUGIN}",
    "VICARAN_PUBLIC_URL": PUBLIC,
}

pytestmark = pytest.mark.timeout(240)


def args(*extra: str, investigation_id: str = ID) -> list[str]:
    return [
        "investigate", BRIEF, "--url", RIVERTON[2].url, "--mode", "quick", "--id", investigation_id,
        "--yes", "--wait-delivery", "0", *extra,
    ]  # fmt: skip


def investigate(*extra: str, investigation_id: str = ID) -> list[str]:
    """`vicaran investigate ...` as a command line."""
    return [
        sys.executable,
        "-m",
        "vicaran_agent.cli",
        *args(*extra, investigation_id=investigation_id),
    ]


def variables(**extra: str) -> dict[str, str]:
    """The test's environment (fakes, database) for a `vicaran` subprocess."""
    return {**os.environ, **SETTINGS, "PYTHONPATH": str(ROOT), **extra}


@pytest.fixture
def settings(env) -> Iterator[None]:
    """SETTINGS for commands run in this process; the experimental plugin's model class leaves
    ADK's registry with the test, so later tests get the plain scripted model again."""
    table = dict(registry._llm_registry_dict)
    env.set(**SETTINGS)
    yield
    registry._llm_registry_dict.clear()
    registry._llm_registry_dict.update(table)
    registry.LLMRegistry.resolve.cache_clear()
    sys.modules.pop(EXPERIMENTAL_PLUGIN, None)


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


def test_investigate_in_a_pipe_writes_plain_text_without_escape_codes_or_markers(settings):
    result = vicaran(args())
    assert result.code == 0, result.output
    assert not has_escape_codes(result.output)
    assert not no_markers(result.output)
    assert "EXPERIMENTAL" not in result.output
    assert "Investigation Summary" in result.output
    assert last_line(result.output).endswith(URL_LINE)


def test_plain_flag_in_a_terminal_writes_no_escape_codes(settings):
    run = vicaran_in_terminal(args("--plain"))
    assert run.code == 0, run.text
    assert not has_escape_codes(run.text)
    assert not no_markers(run.text)
    assert last_line(run.text).endswith(URL_LINE)


def test_a_model_error_is_one_sentence_and_verbose_shows_its_details(env, settings):
    env.set(VICARAN_PRO_MODEL="scripted/error-ClaimAssessment")  # a 503 from the provider
    quiet = vicaran(args())
    assert quiet.code == 2, quiet.output
    assert "The model provider had an error (503)." in quiet.output
    assert "{'error'" not in quiet.output and "UNAVAILABLE" not in quiet.output
    assert "--verbose" in quiet.output  # where the details are
    assert last_line(quiet.output).endswith(URL_LINE)
    verbose = vicaran(args("--verbose", investigation_id=OTHER_ID))
    assert verbose.code == 2
    assert "503 UNAVAILABLE" in verbose.output and "{'error'" in verbose.output


def test_a_bad_model_plugin_is_one_sentence_and_commands_without_a_model_still_work(env, settings):
    env.set(VICARAN_MODEL_PLUGINS="tests.support.scripted_model,newsroom_models_typo")
    run = vicaran(args())
    assert run.code == 1
    assert len(run.lines) == 1, run.output
    assert "VICARAN_MODEL_PLUGINS" in run.lines[0] and "newsroom_models_typo" in run.lines[0]
    assert "Traceback" not in run.output
    verbose = vicaran(args("--verbose"))
    assert (
        "Traceback" in verbose.output and "No module named 'newsroom_models_typo'" in verbose.output
    )
    status = vicaran(["outbox", "status"])
    assert status.code == 0, status.output
    assert status.output.startswith("Outbox: 0 pending")
    export = vicaran(["export", ID, "--format", "md"])
    assert export.code == 1
    assert export.output.strip() == f"No investigation with id {ID} is saved here."


def test_a_busy_port_is_one_sentence_with_the_port_hint_and_no_url(env):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = vicaran(["serve", "--host", "127.0.0.1", "--port", str(port)])
    assert result.code != 0
    assert result.output.strip() == (
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
    from vicaran_agent import agent
    from vicaran_agent.llm_models import ConfigHintModel

    bad = {"VICARAN_MODEL_PLUGINS": "newsroom_models_typo", "VICARAN_FAST_MODEL": "newsroom/m-1"}
    env.set(**bad)
    imported, _ = call(agent.importable_app)  # what `import vicaran_agent.agent` runs
    assert imported.code == 0 and not imported.output, imported.output

    model = agent.build_root_agent().model  # what the orchestrator answers with: the fix to make
    assert isinstance(model, ConfigHintModel)
    assert "VICARAN_MODEL_PLUGINS" in model.hint and "newsroom_models_typo" in model.hint


def test_serve_listens_on_the_socket_it_checked_even_with_a_bad_model_plugin(env):
    env.set(VICARAN_MODEL_PLUGINS="newsroom_models_typo")
    port = free_port()
    with vicaran_serving("127.0.0.1", port) as served:
        first = served.said().splitlines()[0]
        assert first.startswith(f"Vicaran: dev UI http://127.0.0.1:{port}/dev-ui/"), first
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
    assert served.code == 0
    assert "EXPERIMENTAL" not in served.said()  # ADK's notices are not for `make run` users


def test_an_invalid_setting_is_one_sentence_for_every_command_and_in_the_agent(env, settings):
    env.set(VICARAN_TODAY="26/11/2026")
    for argv in (["outbox", "status"], args(), ["serve", "--port", "0"]):
        done = vicaran(argv)
        assert done.code == 2, done
        assert len(done.lines) == 1 and "Traceback" not in done.output, done.output
        assert "VICARAN_TODAY" in done.lines[0] and "YYYY-MM-DD" in done.lines[0]

    # ADK imports the agent module itself (adk web / api_server): it loads, and answers the fix
    def load_and_ask() -> str:
        from google.adk.runners import InMemoryRunner
        from google.genai import types

        from vicaran_agent import agent

        async def ask() -> str:
            runner = InMemoryRunner(app=agent.app)
            session = await runner.session_service.create_session(
                app_name=agent.app.name, user_id="u"
            )
            message = types.Content(role="user", parts=[types.Part(text="Investigate Acme.")])
            said = []
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                said += [part.text or "" for part in (event.content.parts if event.content else [])]
            return "".join(said)

        return asyncio.run(ask())

    with fresh_agent_module():
        done, answer = call(load_and_ask)
    assert done.code == 0, done.output
    assert answer and "VICARAN_TODAY" in answer and "YYYY-MM-DD" in answer
