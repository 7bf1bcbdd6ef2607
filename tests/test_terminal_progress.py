"""What the terminal shows from the pipeline's events: stage, counters, text without markers."""

from __future__ import annotations

from google.adk.events import Event, EventActions
from google.genai import types

from tests.support.terminal import render
from vicaran_agent import state_keys as keys
from vicaran_agent.terminal import RunProgress, display_text, hard_breaks, leading_ratio


def event(author: str, text: str = "", **delta: object) -> Event:
    return Event(
        author=author,
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=delta),
    )


def test_the_ratio_is_the_one_before_the_first_colon():
    assert leading_ratio("📄 **Analyzing source 3/15:** 9/11 memorial") == (3, 15)
    assert leading_ratio("⚠️ **Source 2/3 could not be read:** https://x.test/1/2") == (2, 3)
    assert leading_ratio('🔍 [PROGRESS] Verificando alegação 4/5: "1/2 do orçamento"') == (4, 5)
    assert leading_ratio('🔍 [PROGRESS] Searching for sources on: "1/2 of the budget"') is None
    assert leading_ratio("📰 24/7 coverage") is None  # 24 of 7 is not progress
    assert leading_ratio("a/b 0/3 1/ /2 ") is None
    assert leading_ratio("1" * 50_000 + "/" + "2" * 50_000 + "x/" * 10_000) is None


def test_progress_follows_the_stages_and_their_records():
    progress = RunProgress()
    steps = [
        event("investigation_orchestrator", "[INVESTIGATION_STARTED]"),
        event("source_finder", '🔍 [PROGRESS] Searching for sources on: "1/2 of the budget"'),
        event("source_finder", "📄 **Analyzing source 1/3:** 9/11 memorial"),
        event("source_finder", "⚠️ **Source 2/3 could not be read:** https://x.test/a"),
    ]
    for step in steps:
        progress.observe(step)
    assert (progress.step, progress.sources_read, progress.sources_total) == ("sources", 2, 3)
    assert progress.claims_total is None
    progress.observe(event("source_finder", "done", **{keys.SOURCE_RECORDS: [{}, {}, {}]}))
    progress.observe(event("claim_extractor", "claims", **{keys.CLAIM_RECORDS: [{}, {}]}))
    assert (progress.step, progress.sources_read, progress.claims_total) == ("claims", 3, 2)
    progress.observe(event("fact_checker", '🔍 [PROGRESS] Verifying claim 1/2: "x"'))
    progress.observe(event("fact_checker", '🔍 [PROGRESS] Verifying claim 2/2: "1/2 of it: y"'))
    # verdict lines name their claim, in the order the checks finish
    progress.observe(
        event("fact_checker", '✅ **VERIFIED** — claim 2/2 ("1/2 of it: y"): sources agree.')
    )
    assert progress.checked == {2} and progress.claims_checked == 1
    progress.observe(event("bias_analyzer", "⚖️ [PROGRESS] Analyzing source coverage balance..."))
    progress.observe(
        event("fact_checker", '❌ **FALSO** — alegação 1/2 ("x"): as fontes desmentem.')
    )
    progress.observe(event("fact_checker", '❌ **FALSO** — alegação 1/2 ("x"): de novo.'))  # once
    assert (progress.step, progress.claims_checked) == ("checks", 2)
    line = progress.line("en")
    assert line.startswith("Checking claims · sources read 3/3 · claims checked 2/2 · ")
    progress.observe(event("fact_checker", "**Fact-Checking Complete**", verdict_records=[{}]))
    assert progress.claims_checked == 1  # the records saved say what was checked
    assert progress.line("pt-BR", "partial").startswith(
        "Incompleta · fontes lidas 3/3 · alegações checadas 1/2 · "
    )


def test_display_text_drops_markers_and_the_gaps_they_leave():
    text = "🔍 [PROGRESS] Searching\n\n\n\nReport.\n\n[INVESTIGATION_COMPLETE]\n"
    assert display_text(text) == "🔍 Searching\n\nReport."
    assert display_text("   - Confidence: [ PROGRESS ] 85%") == "   - Confidence: 85%"


def test_hard_breaks_keep_lines_apart_except_in_code():
    assert hard_breaks("a\nb\n\nc") == "a  \nb\n\nc"
    assert hard_breaks("```\nx\ny\n```\nz") == "```\nx\ny\n```\nz"


def test_the_screen_renderer_applies_erases_cursor_moves_and_hyperlinks():
    raw = "one\r\ntwo\x1b[1A\r\x1b[2K\x1b[32mONE\x1b[0m\x1b[1B\r\n\x1b]8;id=1;http://x\x1b\\link\x1b]8;;\x1b\\"
    assert render(raw) == "ONE\ntwo\nlink\n"


def test_the_final_line_says_the_runs_model_use():
    progress = RunProgress()
    tokens = {"input": 12345, "output": 2345, "cached": 1000, "cost_usd": 0.01234, "per_stage": {}}
    progress.observe(event("summary_writer", "report", **{keys.TOKEN_USAGE: tokens}))
    assert RunProgress().model_use("en") == ""  # nothing to say before the report
    line = progress.model_use("en")
    assert line == "Model use: 12,345 tokens in · 2,345 out (1,000 cached) · ≈ US$ 0.0123"
    assert progress.model_use("pt-BR") == (
        "Uso do modelo: 12.345 tokens de entrada · 2.345 de saída (1.000 em cache) · ≈ US$ 0,0123"
    )


def test_the_rich_screen_draws_markdown_a_passing_status_line_and_a_clickable_link():
    import io

    from rich.console import Console

    from vicaran_agent.terminal import RichScreen

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system="truecolor")
    screen = RichScreen("en", console=console)
    with screen.working():
        screen.event(event("investigation_orchestrator", "[INVESTIGATION_STARTED]"))
        screen.event(event("source_finder", "📄 **Analyzing source 1/3:** budget memo"))
        screen.event(event("source_finder", "done", **{keys.SOURCE_RECORDS: [{}, {}, {}]}))
        drawn_while_working = render(out.getvalue())
    screen.say("The report.\n\n[INVESTIGATION_COMPLETE]")
    screen.link("**Dashboard:**", "http://127.0.0.1:8000/investigations/7a7d75a8")
    screen.finish("completed")
    raw = out.getvalue()
    shown = render(raw)
    assert "Analyzing source 1/3: budget memo" in shown  # Markdown drawn, not its asterisks
    assert "**" not in shown and "[INVESTIGATION" not in shown
    assert "sources read 3/3" in drawn_while_working  # the live status line while working
    status_lines = [line for line in shown.splitlines() if "sources read" in line]
    assert len(status_lines) == 1 and status_lines[0].startswith("Completed · sources read 3/3")
    assert shown.splitlines().index(status_lines[0]) > shown.splitlines().index("The report.")
    assert "\x1b]8;" in raw and "http://127.0.0.1:8000/investigations/7a7d75a8" in shown
