"""What people read: the report's Markdown, its exports, the journalist's language and plurals.

Whole runs with the scripted model: the Sources list renders as a list, exports carry no protocol
marker, a Portuguese run writes no English sentence, confidence is a percent, claim keys stay
internal, and the last message links the investigation's dashboard page.
"""

from __future__ import annotations

import copy
import pickle
import re
from html import escape

import pytest
from markdown_it import MarkdownIt

from tests.support.conversation import Conversation
from tests.support.corpus import MACEIO
from tests.support.records import as_json, view
from vicaran_agent import export
from vicaran_agent import state_keys as keys
from vicaran_agent.clients.web_search import KEY_MISSING
from vicaran_agent.config import get_settings
from vicaran_agent.formatting import markdown_text, source_entry
from vicaran_agent.i18n import ENGLISH, PORTUGUESE, Phrase, message
from vicaran_agent.llm_models import ModelCallError, describe_model_error
from vicaran_agent.markdown_html import render_markdown
from vicaran_agent.sanitize import MARKERS, strip_markers
from vicaran_agent.server.app import build_server
from vicaran_agent.storage import get_repository

BRIEF = (
    "Investigate whether Acme Chemicals polluted Riverton's drinking water and what the EPA "
    "found. https://rivertondaily.com/news/acme-health-complaints"
)
BRIEF_PT = (
    "Investigue se a Prefeitura de Maceió assinou o contrato da merenda escolar sem licitação."
)
QUICK_PT = "Busca rápida. " + BRIEF_PT
COMPLETE = "[INVESTIGATION_COMPLETE]"


async def investigate(brief: str) -> tuple[list[str], dict, dict]:
    """(every chat message of the plan and the run, the session state, the saved record)."""
    conversation = Conversation()
    texts = conversation.texts(await conversation.send(brief))
    texts += conversation.texts(await conversation.send("APPROVED"))
    state = await conversation.state()
    record = as_json(
        get_repository(get_settings().database_url).get_investigation(state[keys.INVESTIGATION_ID])
    )
    return texts, state, record or {}


def section(html: str, heading: str) -> str:
    """The HTML between `<h2>heading</h2>` and the next `<h2>` (or the end)."""
    start = html.index(f"<h2>{heading}</h2>") + len(f"<h2>{heading}</h2>")
    end = html.find("<h2>", start)
    return html[start : end if end >= 0 else len(html)]


# --- the Sources list ---------------------------------------------------------------------------


async def test_sources_render_as_a_list_with_title_publisher_link_and_snapshot(env):
    env.set(VICARAN_PUBLIC_URL="https://vicaran.example.org/")
    texts, state, record = await investigate(BRIEF)
    report = texts[-1]
    body, listed = report.split("## Sources")
    cited = sorted({int(n) for n in re.findall(r"\[(\d+)\]", body)})
    assert len(cited) >= 3
    sources = state[keys.SOURCE_RECORDS]
    iid = state[keys.INVESTIGATION_ID]
    for html in (
        MarkdownIt("commonmark").render(report),  # how a chat UI renders Markdown
        render_markdown(report, allowed_links=export.saved_links(view(record))),  # the dashboard
    ):
        items = re.findall(r"<li>(.*?)</li>", section(html, "Sources"), re.S)
        assert len(items) == len(cited), items
        for item, number in zip(items, cited, strict=True):
            source = sources[number - 1]
            assert item.startswith(f"[{number}]") or f">[{number}]<" in item
            assert source["title"].replace("'", "&#x27;") in item.replace("&#39;", "&#x27;")
            assert source["domain"] in item
            assert f'href="{source["display_url"]}"' in item
            snapshot = (
                f"https://vicaran.example.org/api/investigations/{iid}/snapshots/"
                f"{source['content_sha256']}"
            )
            assert f'href="{snapshot}"' in item, item
    # the cited numbers are listed in order, one per line
    lines = [line for line in listed.splitlines() if line.startswith("- ")]
    assert [int(re.match(r"- \[(\d+)\]", line).group(1)) for line in lines[: len(cited)]] == cited


def test_a_page_title_in_the_sources_list_is_shown_as_written_never_as_markup():
    title = "Mayor *denies* [2] <b>claims</b> `x` # _all_ | of it \\"
    assert MarkdownIt("commonmark").renderInline(markdown_text(title)) == escape(title, False)
    html = render_markdown(markdown_text(title))  # the dashboard's renderer
    assert "<em>" not in html and "<code>" not in html and "&lt;b&gt;claims" in html


async def test_the_dashboard_renders_the_snapshot_links_of_the_report_and_no_others(env):
    texts, state, record = await investigate(BRIEF)
    html = render_markdown(texts[-1], allowed_links=export.saved_links(view(record)))
    iid = state[keys.INVESTIGATION_ID]
    base = get_settings().public_url
    links = re.findall(r'href="([^"]+/snapshots/[^"]+)"', html)
    assert links and all(link.startswith(f"{base}/api/investigations/{iid}/") for link in links)
    forged = f"{base}/api/investigations/other-id/snapshots/{'a' * 64}"
    assert "<a" not in render_markdown(forged, allowed_links=export.saved_links(view(record)))


# --- exports ------------------------------------------------------------------------------------


def marker_in(text: str) -> list[str]:
    return [m for m in MARKERS if f"[{m}]" in text]


async def test_exports_of_a_finished_run_carry_no_marker(env):
    _, _, record = await investigate(QUICK_PT)
    assert record["summary"]
    for fmt in ("md", "html", "json"):
        assert marker_in(export.render(fmt, view(record), {})) == [], fmt


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_exports_drop_every_marker_a_stored_summary_carries(fmt):
    summary = (
        "# Title\n\n[PROGRESS] Done.\n\n[TIMELINE_SKIPPED] Skipped.\n\n"
        "[ PLAN_APPROVAL_REQUIRED ]\n\n[INVESTIGATION_COMPLETE]"
    )
    stored = {"id": "x", "title": "Title", "status": "completed", "summary": summary}
    text = export.render(fmt, view(stored), {})
    assert marker_in(text) == [] and "PLAN_APPROVAL_REQUIRED" not in text
    assert "Skipped." in text


# --- the journalist's language ------------------------------------------------------------------

# Common English words that are not Portuguese words.
ENGLISH_WORDS = frozenset(
    [
        *("the", "of", "and", "was", "were", "removed", "could", "not", "from", "with"),
        *("only", "been", "has", "have", "is", "are", "this", "that", "which", "mode"),
        *("sources", "source", "claim", "claims", "disabled", "skipped", "found", "failed"),
        *("downgraded", "citation", "citations", "pointing", "saved", "written", "evidence"),
        *("neutral", "reliability", "independent", "point", "agree", "analysis"),
        # the guidance of tool and model failures
        *("error", "rejected", "refused", "answered", "again", "try", "later", "retries"),
        *("summarised", "read", "set", "get", "valid", "your", "restart", "does", "exist"),
        *("available", "reach", "limiting", "provider", "time", "answer", "without", "off"),
        *("did", "rate", "rephrase", "unexpectedly", "needs", "enabled", "citing", "any"),
    ]
)
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”')
_URL = re.compile(r"https?://\S+")


def english_words(text: str, verbatim: list[str]) -> list[str]:
    """The English words in `text` outside URLs, quotes, markers and what is quoted verbatim
    (source titles)."""
    for quoted in sorted(verbatim, key=len, reverse=True):
        text = text.replace(quoted, " ")
    text = _QUOTED.sub(" ", _URL.sub(" ", strip_markers(text)))
    return [w for w in re.findall(r"[a-zà-ÿ]+", text.lower()) if w in ENGLISH_WORDS]


@pytest.mark.parametrize(
    ("brief", "flags"),
    [
        (QUICK_PT, "bad-citations"),  # quick: the timeline is skipped; a citation is removed
        (BRIEF_PT, "bad-citations"),  # detailed: the timeline and per-source bias
        (BRIEF_PT, "error-ClaimAssessment"),  # claims that could not be checked: partial
    ],
)
async def test_a_portuguese_run_writes_no_english_sentence(env, brief, flags):
    env.set(VICARAN_PRO_MODEL=f"scripted/{flags}", FACTCHECK_API_KEY="")
    texts, state, _ = await investigate(brief)
    assert state[keys.INVESTIGATION_CONFIG]["language"] == PORTUGUESE
    verbatim = [s["title"] for s in state[keys.SOURCE_RECORDS] if s["title"]]
    found = {text[:80]: words for text in texts if (words := english_words(text, verbatim))}
    assert found == {}
    assert texts[-1].rstrip().endswith(COMPLETE)


# Failures of every service a run uses. The upstream services' own words (the `message=` of a
# fake) are technical details Vicaran quotes as they are: here they hold no English word.
FAILURES = {
    "no keys": {"TAVILY_API_KEY": "", "FACTCHECK_API_KEY": "", "PRO": "error-ClaimAssessment"},
    "services fail": {
        "tavily": (400, "official records"),  # one query of three is rejected
        "factcheck": 403,
        "FAST": "error-SourceDigest",  # pages read but not summarised
        "PRO": "error-BiasJudgement+error-TimelineDraft",
    },
    "keys rejected": {"tavily": (401, None), "PRO": "bad-key", "LIVE": "true"},
    "live search": {
        "TAVILY_API_KEY": "",
        "LIVE": "true",
        "factcheck": 400,
        "PRO": "error-ReportDraft",
    },
}


@pytest.mark.parametrize("failures", FAILURES.values(), ids=FAILURES.keys())
async def test_a_portuguese_run_with_failing_services_writes_no_english_sentence(env, failures):
    """What failed and what to do is said in Portuguese; quoted details may stay as they are.

    Exempt: source titles, and why a page could not be read (the reader's technical reason,
    quoted after a Portuguese frame).
    """
    env.set(
        VICARAN_FAST_MODEL=f"scripted/{failures.get('FAST', 'default')}",
        VICARAN_PRO_MODEL=f"scripted/{failures['PRO']}",
        VICARAN_LIVE_SEARCH_FALLBACK=failures.get("LIVE", "false"),
        **{k: v for k, v in failures.items() if k.endswith("_KEY")},
    )
    if "tavily" in failures:
        status, query = failures["tavily"]
        env.services.tavily.fail(status, query=query, message="QUERY_INVALID")
    if "factcheck" in failures:
        env.services.factcheck.fail(failures["factcheck"], message="POLICY_DENIED")
    env.services.jina.fail(MACEIO[1].url, "captcha")
    texts, state, _ = await investigate(f"{BRIEF_PT} {MACEIO[0].url} {MACEIO[1].url}")
    assert state[keys.INVESTIGATION_CONFIG]["language"] == PORTUGUESE
    sources = state[keys.SOURCE_RECORDS]
    verbatim = [s["title"] for s in sources if s["title"]]
    verbatim += [s["unreachable_reason"] for s in sources if s["unreachable_reason"]]
    found = {text[:80]: words for text in texts if (words := english_words(text, verbatim))}
    assert found == {}
    assert texts[-1].rstrip().endswith(COMPLETE)


@pytest.mark.parametrize(
    "model", ["scripted/bad-key", "gemini-3.5-flash"], ids=["key rejected", "no key"]
)
async def test_a_portuguese_brief_hears_about_a_model_problem_in_portuguese(env, model):
    env.set(VICARAN_FAST_MODEL=model)
    conversation = Conversation()
    (reply,) = conversation.texts(await conversation.send(BRIEF_PT))
    assert "GOOGLE_API_KEY" in reply
    assert english_words(reply, []) == []


async def test_a_portuguese_report_notes_removed_citations_and_downgrades_in_portuguese(env):
    env.set(VICARAN_PRO_MODEL="scripted/bad-citations")
    texts, state, _ = await investigate(QUICK_PT)
    report = texts[-1]
    assert "1 citação que não apontava para nenhuma fonte salva foi removida" in report
    assert "[TIMELINE_SKIPPED] Modo Busca Rápida" in "\n".join(texts)
    downgraded = [v for v in state[keys.VERDICT_RECORDS] if "rebaixado" in v["explanation"]]
    assert downgraded
    for verdict in downgraded:
        assert "rebaixado de VERIFICADO" in verdict["explanation"]
        assert "verified" not in verdict["explanation"]


# --- plurals ------------------------------------------------------------------------------------

PLURALS = [
    ("found", {}, "Found 1 relevant source.", "Found 2 relevant sources."),
    ("extracting", {}, "from 1 source...", "from 2 sources..."),
    ("claims_done", {}, "Extracted 1 verifiable claim:", "Extracted 2 verifiable claims."),
    ("sources_set_aside", {}, "1 source set aside", "2 sources set aside"),
    ("coverage", {}, "(1 rated source)", "(2 rated sources)"),
    ("coverage_line", {"stance": "Neutral", "pct": 50}, ": 1 source (", ": 2 sources ("),
    ("coverage_unrated", {}, "1 source (", "2 sources ("),
    ("report_checking", {}, "1 cited sentence against", "2 cited sentences against"),
    ("report_rewriting", {}, "fix 1 problem...", "fix 2 problems..."),
    ("citations_removed", {}, "1 citation pointing to no saved source was", "2 citations"),
    ("bias_unrated", {}, "1 source could not be rated", "2 sources could not be rated"),
    ("sources_read", {}, "1 source read", "2 sources read"),
]
PLURALS_PT = [
    ("found", {}, "Encontrei 1 fonte relevante.", "Encontrei 2 fontes relevantes."),
    ("extracting", {}, "de 1 fonte...", "de 2 fontes..."),
    ("claims_done", {}, "Extraí 1 alegação verificável", "Extraí 2 alegações verificáveis"),
    ("sources_set_aside", {}, "1 fonte fora do tema deixada", "2 fontes fora do tema deixadas"),
    ("coverage", {}, "(1 fonte avaliada)", "(2 fontes avaliadas)"),
    ("coverage_line", {"stance": "Neutra", "pct": 50}, ": 1 fonte (", ": 2 fontes ("),
    ("coverage_unrated", {}, "Não avaliada: 1 fonte (", "Não avaliadas: 2 fontes ("),
    ("report_checking", {}, "1 frase com citação", "2 frases com citação"),
    ("report_rewriting", {}, "corrigir 1 problema...", "corrigir 2 problemas..."),
    ("citations_removed", {}, "1 citação que não apontava", "2 citações que não apontavam"),
    ("bias_unrated", {}, "1 fonte não pôde ser avaliada", "2 fontes não puderam ser avaliadas"),
    ("sources_read", {}, "1 fonte lida", "2 fontes lidas"),
]


@pytest.mark.parametrize(
    ("language", "key", "values", "one", "two"),
    [(ENGLISH, *case) for case in PLURALS] + [(PORTUGUESE, *case) for case in PLURALS_PT],
)
def test_counted_messages_agree_with_their_count(language, key, values, one, two):
    assert one in message(key, language, count=1, **values)
    assert two in message(key, language, count=2, **values)
    for count in (1, 2):
        assert "(s)" not in message(key, language, count=count, **values)


async def test_no_message_of_a_run_says_a_count_in_the_wrong_number(env):
    env.set(VICARAN_PRO_MODEL="scripted/bad-citations")
    for brief in (BRIEF, BRIEF_PT):
        texts, _, _ = await investigate(brief)
        text = "\n".join(t for t in texts if "[PLAN_APPROVAL_REQUIRED]" not in t)  # the run's
        assert "(s)" not in text
        assert (
            re.findall(r"\b1 (?:\w+ )?(?:sources|fontes|claims|alegações|citations)\b", text) == []
        )


# --- confidence and claim keys ------------------------------------------------------------------

_CONFIDENCE = re.compile(r"(?:Confidence|Confiança)\**:?\**:? *(\S+)")


@pytest.mark.parametrize("brief", [BRIEF, BRIEF_PT])
async def test_confidence_is_shown_as_a_percent_only(env, brief):
    texts, state, _ = await investigate(brief)
    shown = [value for text in texts for value in _CONFIDENCE.findall(text)]
    assert len(shown) >= 2 * len(state[keys.VERDICT_RECORDS])  # as checked, and in the summary
    assert all(re.fullmatch(r"\d{1,3}%", value) for value in shown), shown


_KEY = re.compile(r"\bC\d+\b")


@pytest.mark.parametrize("brief", [BRIEF, BRIEF_PT])
async def test_claim_keys_are_never_shown_to_people(env, brief):
    env.set(VICARAN_PRO_MODEL="scripted/error-ClaimAssessment")
    texts, state, record = await investigate(brief)
    assert state[keys.INVESTIGATION_STATUS] == "partial"
    assert [t for t in texts if _KEY.search(_URL.sub(" ", t))] == []
    assert not _KEY.search(state[keys.PARTIAL_REASON])
    markdown = export.render("md", view(record))
    assert not _KEY.search(_URL.sub(" ", markdown))
    page = re.sub(r"<[^>]+>", " ", export.render("html", view(record)))
    assert not _KEY.search(page)


# --- the dashboard link -------------------------------------------------------------------------


def dashboard_line(texts: list[str]) -> str:
    lines = [line for line in texts[-1].strip().splitlines() if line.strip()]
    assert lines[-1] == COMPLETE
    return lines[-2]


@pytest.mark.parametrize(("brief", "label"), [(BRIEF, "Dashboard"), (BRIEF_PT, "Painel")])
async def test_the_last_message_links_the_investigations_dashboard_page(env, brief, label):
    texts, state, _ = await investigate(brief)
    url = get_settings().investigation_url(state[keys.INVESTIGATION_ID])
    line = dashboard_line(texts)  # no Vicaran server here (as under `adk run`): how to open one
    assert line.startswith(f"{label}: <{url}> (") and "`make run`" in line, line
    assert f'<a href="{url}">{url}</a>' in MarkdownIt("commonmark").render(texts[-1])


async def test_beside_a_vicaran_server_or_a_public_address_the_link_is_plain(env):
    env.set(VICARAN_PUBLIC_URL="https://desk.example.org")  # the newsroom serves it there
    texts, state, _ = await investigate(BRIEF)
    url = f"https://desk.example.org/investigations/{state[keys.INVESTIGATION_ID]}"
    assert dashboard_line(texts) == f"Dashboard: <{url}>"
    env.set(VICARAN_PUBLIC_URL="")
    build_server(with_adk=False)  # as `vicaran serve` does: this process serves the dashboard
    texts, state, _ = await investigate(BRIEF_PT)
    url = get_settings().investigation_url(state[keys.INVESTIGATION_ID])
    assert dashboard_line(texts) == f"Painel: <{url}>"


async def test_a_failed_run_links_the_dashboard_page_too(env):
    env.services.tavily.fail(500)
    env.services.jina.fail(None, 500)
    texts, state, record = await investigate(BRIEF)
    assert state[keys.INVESTIGATION_STATUS] == "failed"
    url = get_settings().investigation_url(state[keys.INVESTIGATION_ID])
    assert dashboard_line(texts).startswith(f"Dashboard: <{url}> (")
    assert url not in export.render("md", view(record))  # the exported report is the report alone


async def test_a_stage_that_raised_still_ends_with_the_dashboard_link_and_the_marker(env):
    from vicaran_agent.sub_agents.claim_extractor import ClaimExtractorAgent

    async def explode(self, stage):
        raise RuntimeError("disk on fire")
        yield  # pragma: no cover

    env.monkeypatch.setattr(ClaimExtractorAgent, "run_stage", explode)
    texts, state, _ = await investigate(BRIEF_PT)
    assert "disk on fire" in texts[-1]
    url = get_settings().investigation_url(state[keys.INVESTIGATION_ID])
    assert dashboard_line(texts).startswith(f"Painel: <{url}> (abra-o com `make run`")


def test_a_tool_problem_reads_english_to_the_model_and_the_journalists_language_to_people():
    problem = KEY_MISSING
    assert problem.startswith("Web search is off: set TAVILY_API_KEY")  # the model's words
    said = message("search_failed", PORTUGUESE, reason=problem)
    assert "A busca na web está desligada: defina TAVILY_API_KEY" in said
    error = ModelCallError(describe_model_error(TimeoutError(), "m")[0])
    assert str(error) == "The model did not answer in time."
    assert message("claim_unchecked", PORTUGUESE, claim="x", error=error).endswith(
        "O modelo não respondeu a tempo."
    )
    for copied in (copy.deepcopy(problem), pickle.loads(pickle.dumps(problem))):
        assert isinstance(copied, Phrase) and copied.said_in(PORTUGUESE) == problem.said_in(
            PORTUGUESE
        )


def test_the_model_reads_each_date_with_who_states_it():
    from vicaran_agent.schemas import Source

    dated = Source(
        url="https://a.example/x",
        domain="a.example",
        credibility_score=3,
        published_at="2025-01-16",
        published_at_source="metadata",
    )
    assert "published 2025-01-16 (page metadata)" in source_entry(1, dated)
    undated = dated.model_copy(update={"published_at": None, "published_at_source": None})
    assert "published" not in source_entry(1, undated)
