"""`vicaran investigate`: the same root agent, in the terminal, with exit codes."""

from __future__ import annotations

import re
import threading

import pytest

from tests.fakes.newsroom import FakeNewsroom
from tests.fakes.server import RecordedRequest, Response
from tests.support import scripted_model
from tests.support.clock import FakeClock
from tests.support.corpus import RIVERTON
from tests.support.records import as_json
from tests.support.wait import in_thread
from vicaran_agent import cli
from vicaran_agent.cli import investigation as cli_investigation
from vicaran_agent.cli import output as cli_output
from vicaran_agent.config import get_settings
from vicaran_agent.storage import get_repository
from vicaran_agent.terminal import display_text

ID = "0b7e4a4e-6f1c-4b5e-9a55-3d8f5c0e2a11"


async def run_cli(*argv: str) -> int:
    # main() owns its event loop; the test's loop runs it in a worker thread.
    return await in_thread(cli.main, list(argv))


async def test_investigate_with_yes_writes_the_report_and_exits_by_status(env, tmp_path, capsys):
    out = tmp_path / "report.md"
    code = await run_cli(
        "investigate", "Did Acme Chemicals pollute Riverton's drinking water?",
        "--url", RIVERTON[2].url, "--mode", "quick", "--id", ID, "--yes", "--out", str(out),
    )  # fmt: skip
    printed = capsys.readouterr().out
    record = as_json(get_repository(get_settings().database_url).get_investigation(ID))
    assert record["mode"] == "quick"
    assert record["status"] == "completed" and code == 0
    assert "Investigation Plan" in printed and "[PLAN_APPROVAL_REQUIRED]" not in printed
    assert "**Analyzing source 1/" in printed  # not a terminal: the Markdown as written
    report = out.read_text()
    assert "[INVESTIGATION_COMPLETE]" not in report  # markers are for programs, not files
    assert report.strip() == display_text(record["summary"])
    assert printed.rstrip().endswith(get_settings().investigation_url(ID))


async def test_the_model_use_shown_is_every_call_the_plan_included(env, capsys):
    """`vicaran investigate`: the tokens saved (and shown) are the sum of every response's
    usage, the plan and the digest of the journalist's page included."""
    code = await run_cli(
        "investigate", "Did Acme Chemicals pollute Riverton's drinking water?",
        "--url", RIVERTON[2].url, "--mode", "quick", "--id", ID, "--yes",
    )  # fmt: skip
    assert code == 0
    tokens = as_json(get_repository(get_settings().database_url).get_investigation(ID))["tokens"]
    billed = [c["billed"] for c in scripted_model.CALLS if "billed" in c]
    assert tokens["input"] == sum(b["input"] for b in billed)
    assert tokens["output"] == sum(b["output"] for b in billed)
    assert tokens["per_stage"]["investigation_orchestrator"]["input"] > 0
    assert f"{tokens['input']:,} tokens in" in capsys.readouterr().out


async def test_verbose_shows_the_detail_of_why_a_page_could_not_be_read(env, capsys):
    env.services.jina.fail(RIVERTON[0].url, 422)
    code = await run_cli("investigate", "Did Acme pollute Riverton's water?", "--yes", "--verbose")
    printed = capsys.readouterr()
    assert code == 0
    assert "could not be read:** " in printed.out  # the journalist's words in the progress
    (detail,) = [line for line in printed.err.splitlines() if RIVERTON[0].url in line]
    assert "no content available (422)" in detail and "could not resolve host" in detail


async def test_partial_investigation_exits_2(env, capsys):
    env.set(VICARAN_PRO_MODEL="scripted/error-ClaimAssessment")  # no claim can be checked
    code = await run_cli("investigate", "Did Acme pollute Riverton's water?", "--yes")
    assert code == 2
    assert "could not be checked" in capsys.readouterr().out


async def test_nothing_found_exits_1_as_failed(env, capsys):
    env.services.tavily.overrides = lambda query, body: []
    code = await run_cli("investigate", "Did Acme pollute Riverton's water?", "--yes")
    assert code == 1
    printed = capsys.readouterr().out
    assert "No sources could be found or read" in printed and "This investigation failed" in printed
    assert "[NO_SOURCES_FOUND]" not in printed


async def test_without_yes_and_no_terminal_nothing_starts(env, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code = await run_cli("investigate", "Did Acme pollute Riverton's water?")
    assert code == 1
    assert "--yes" in capsys.readouterr().out
    assert env.services.tavily.count("/search") == 0


@pytest.mark.parametrize(("stage", "exit_code"), [("source_finder", 1), ("claim_extractor", 2)])
async def test_a_stage_that_raises_exits_by_what_was_left(
    env, capsys, monkeypatch, stage, exit_code
):
    """Stages fail soft: no sources left is failed (1); no claims, partial (2)."""
    from vicaran_agent.sub_agents import claim_extractor, source_finder

    agent = {
        "source_finder": source_finder.SourceFinderAgent,
        "claim_extractor": claim_extractor.ClaimExtractorAgent,
    }[stage]

    async def explode(self, stage):
        raise RuntimeError("boom")
        yield  # pragma: no cover

    monkeypatch.setattr(agent, "run_stage", explode)
    code = await run_cli("investigate", "Did Acme pollute Riverton's water?", "--yes")
    assert code == exit_code
    assert "boom" in capsys.readouterr().out


async def test_the_questions_of_a_vague_brief_are_asked_at_the_prompt(env, capsys, monkeypatch):
    answers = iter(["Mayor John Smith of Riverton, 2023 to 2024", "APPROVED"])
    prompts = []

    def answer(prompt: str = "") -> str:
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", answer)
    code = await run_cli("investigate", "Look into what Mayor Smith did.", "--id", ID)
    assert code == 0
    assert prompts[0].startswith("Your answers") and prompts[1].startswith("Approve this plan?")
    record = as_json(get_repository(get_settings().database_url).get_investigation(ID))
    assert "Mayor John Smith of Riverton, 2023 to 2024" in record["brief"]


async def test_the_questions_need_a_terminal_or_yes(env, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code = await run_cli("investigate", "Look into what Mayor Smith did.")
    assert code == 1
    assert "--yes" in capsys.readouterr().out
    assert env.services.tavily.count("/search") == 0


def test_empty_brief_is_refused(capsys):
    assert cli.main(["investigate", "  "]) == 1
    assert "Give a brief" in capsys.readouterr().err


class RecoveringNewsroom(FakeNewsroom):
    """A callback API that answers 503 to its first `refusals` requests, then recovers."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = refusals

    def handle(self, request: RecordedRequest) -> Response:
        with self._refusal_lock:
            if self.refusals > 0:
                self.refusals -= 1
                return Response.json(503, {"success": False, "error": "down for maintenance"})
        return super().handle(request)

    _refusal_lock = threading.Lock()


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The clock the command waits by (for the callback API): each wait returns at once."""
    clock = FakeClock(autojump=True)
    monkeypatch.setattr(cli_investigation, "CLOCK", clock)
    return clock


async def test_investigate_waits_for_a_callback_api_that_recovers(env, capsys, clock):
    with RecoveringNewsroom(refusals=12) as newsroom:
        env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET="s3cret-cli")
        code = await run_cli(
            "investigate", "Did Acme pollute Riverton's water?", "--yes", "--wait-delivery", "60"
        )
        printed = capsys.readouterr().out
        assert code == 0
        assert "Waiting up to 60 s for the callback API" in printed
        assert "Every record reached the callback API." in printed
        counts = get_repository(get_settings().database_url).outbox_summary().counts
        assert counts.pending == 0 and counts.failed == 0
        assert "INVESTIGATION_COMPLETE" in newsroom.types()
    assert clock.slept and all(0 < wait <= 1 for wait in clock.slept)  # a pass a second


async def test_investigate_says_what_is_left_when_the_callback_api_stays_down(env, capsys, clock):
    with RecoveringNewsroom(refusals=10_000) as newsroom:
        env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET="s3cret-cli")
        code = await run_cli(
            "investigate", "Did Acme pollute Riverton's water?", "--yes", "--wait-delivery", "1"
        )
        printed = capsys.readouterr().out
        assert code == 0  # the investigation itself completed; its records wait, not lost
        assert re.search(
            r"(1 record still waits|\d+ records still wait) for the callback API: "
            r"`vicaran outbox flush`",
            printed,
        )
        assert get_repository(get_settings().database_url).outbox_summary().counts.pending
    assert sum(clock.slept) == 1  # it waited the second it was given, by its clock


async def test_a_portuguese_investigation_is_told_in_portuguese(env, capsys):
    brief = "Investigue se a prefeitura de Maceió desviou a verba da merenda escolar."
    code = await run_cli("investigate", brief, "--yes", "--id", ID)
    printed = capsys.readouterr().out
    assert code == 0
    lines = printed.rstrip().splitlines()
    assert lines[-1] == get_settings().investigation_url(ID)
    assert lines[-2].startswith("Abra no painel")
    assert lines[-4].startswith("Concluída · fontes lidas ")
    assert re.match(
        r"Uso do modelo: [\d.]+ tokens de entrada · [\d.]+ de saída · ≈ US\$ \d+,\d{4}", lines[-3]
    )
    assert "Open it in the dashboard" not in printed and "sources read" not in printed


def test_a_model_error_that_stops_the_command_is_said_in_the_briefs_language():
    from google.genai import errors as genai_errors

    from vicaran_agent.i18n import Phrase
    from vicaran_agent.llm_models import ModelCallError

    failed = ModelCallError(Phrase("model_provider_error", code=503))
    assert cli_output.one_sentence(failed, "en") == "The model provider had an error (503)."
    assert "503" in cli_output.one_sentence(failed, "pt-BR")
    assert "The model provider" not in cli_output.one_sentence(failed, "pt-BR")
    raw = genai_errors.ServerError(503, {"error": {"status": "UNAVAILABLE", "message": "x"}})
    assert "The model provider" not in cli_output.one_sentence(raw, "pt-BR")
