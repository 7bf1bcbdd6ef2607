"""The brief's language (any language, from py3langid) and the report's (English or Portuguese).

A Spanish brief has Fact Check Tools asked in Spanish and Spanish outlets searched, while its plan
and report are written in English with a note saying so; text nobody can tell the language of
(a link, numbers, lorem ipsum) sends no `languageCode` at all rather than a wrong one.
"""

from __future__ import annotations

import pytest

from tests.support.conversation import Conversation
from vicaran_agent import state_keys as keys
from vicaran_agent.config import Settings
from vicaran_agent.documents.parse import parse_bytes
from vicaran_agent.factcheck.outlets import (
    ENGLISH_OUTLETS,
    FRENCH_OUTLETS,
    GERMAN_OUTLETS,
    PORTUGUESE_OUTLETS,
    SPANISH_OUTLETS,
    outlets_for,
)
from vicaran_agent.i18n import (
    ENGLISH,
    PORTUGUESE,
    detect_language,
    report_language,
    text_language,
    text_language_name,
)

SPANISH = (
    "Investiga si el alcalde de Sevilla adjudicó contratos de limpieza a empresas de su "
    "familia en 2024."
)
FRENCH = (
    "Vérifier si le maire de Lyon a attribué des marchés publics à des entreprises de ses "
    "proches en 2024."
)
GERMAN = "Prüfe, ob der Bürgermeister von München Aufträge an Firmen seiner Familie vergeben hat."
# The same story in three languages (the fakes' corpus is about Acme and Riverton).
ACME_ES = "Investiga si Acme Chemicals contaminó el agua potable de Riverton en 2024 y qué encontró la EPA."
ACME_FR = (
    "Vérifier si Acme Chemicals a pollué l'eau potable de Riverton en 2024 et ce que l'EPA a "
    "constaté."
)
ACME_DE = (
    "Prüfe, ob Acme Chemicals das Trinkwasser von Riverton im Jahr 2024 verschmutzt hat und was "
    "die EPA festgestellt hat."
)
ARABIC = "تحقق من تصريح الوزير حول نسبة البطالة في عام 2024 وهل انخفضت فعلا"
ENGLISH_BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
PORTUGUESE_BRIEF = "Investigue se a Prefeitura de Maceió pagou a merenda escolar sem licitação."
LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua."
)


# --- telling the language ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (SPANISH, "es"),
        (FRENCH, "fr"),
        (GERMAN, "de"),
        (ARABIC, "ar"),
        ("Verificare se il sindaco di Napoli ha assegnato appalti ai suoi parenti", "it"),
        (ENGLISH_BRIEF, "en"),
        (PORTUGUESE_BRIEF, "pt"),
        ("Verificar a denúncia sobre a merenda escolar em São Paulo", "pt"),
        ("Fraude electoral en Venezuela", "es"),  # short, and told (the model gives 0.61)
        # the words of a link are no one's language: an English brief with a Portuguese slug
        (
            "Check this story: https://g1.globo.com/politica/noticia/2024/05/01/"
            "prefeitura-de-maceio-contrata-empresa-sem-licitacao-para-merenda-escolar.ghtml",
            "en",
        ),
    ],
)
def test_the_language_of_a_brief_is_told_by_its_words(text: str, code: str) -> None:
    assert text_language(text) == code


@pytest.mark.parametrize(
    "text",
    [
        "",
        "https://g1.globo.com/politica/noticia/2024/05/01/contrato-da-prefeitura.ghtml",
        "https://www.example.com/news/2024/05/story www.example.org/a",
        "2024 30% 1.000.000 R$ 5,00",
        LOREM,
        "Lorem ipsum dolor sit amet",
        "ok",
        # English words around names of elsewhere: the model's best guesses are Italian and
        # Spanish, and it doubts them (0.2, 0.53): better no language than a wrong one.
        "Bolsonaro vaccine claims",
        "Petrobras fuel prices 2023",
    ],
)
def test_text_whose_language_cannot_be_told_has_none(text: str) -> None:
    assert text_language(text) == ""
    assert detect_language(text) == ENGLISH  # the report falls back to English


def test_the_report_is_portuguese_for_portuguese_and_english_for_every_other_language() -> None:
    assert detect_language(PORTUGUESE_BRIEF) == report_language("pt") == PORTUGUESE
    for text in (ENGLISH_BRIEF, SPANISH, FRENCH, GERMAN, ARABIC):
        assert detect_language(text) == ENGLISH, text


def test_language_names_are_said_in_the_report_language() -> None:
    assert text_language_name("es") == "Spanish"
    assert text_language_name("es", PORTUGUESE) == "espanhol"
    assert text_language_name("de") == "German"


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        (SPANISH + " " + ACME_ES, "es"),
        (GERMAN + " " + ACME_DE, "de"),
        (PORTUGUESE_BRIEF + " A merenda foi paga duas vezes.", "pt-BR"),
        (ENGLISH_BRIEF, "en"),
        (LOREM, "en"),  # cannot be told: recorded as before
    ],
)
def test_a_document_records_the_language_it_is_written_in(text: str, tag: str) -> None:
    parsed = parse_bytes(
        f"# Nota\n\n{text}\n".encode(), "nota.md", settings=Settings(_env_file=None)
    )
    assert parsed.language == tag


def test_outlets_follow_the_text_language_and_the_setting_wins() -> None:
    settings = Settings(_env_file=None)
    assert outlets_for("es", settings) == list(SPANISH_OUTLETS)
    assert outlets_for("fr", settings) == list(FRENCH_OUTLETS)
    assert outlets_for("de", settings) == list(GERMAN_OUTLETS)
    assert outlets_for("pt", settings) == outlets_for(PORTUGUESE, settings)
    assert outlets_for("pt", settings) == list(PORTUGUESE_OUTLETS)
    for code in ("en", "", "ar"):  # no list of their own: the international English one
        assert outlets_for(code, settings) == list(ENGLISH_OUTLETS)
    mine = Settings(_env_file=None, vicaran_check_outlets="elpais.com, maldita.es")
    assert outlets_for("fr", mine) == ["elpais.com", "maldita.es"]


# --- whole investigations ------------------------------------------------------------------


async def run(brief: str) -> tuple[Conversation, str, str]:
    """A quick investigation of `brief`: the conversation, its plan and its report."""
    conversation = Conversation()
    plan = conversation.texts(await conversation.send("Quick Search. " + brief))[-1]
    report = conversation.texts(await conversation.send("APPROVED"))[-1]
    return conversation, plan, report


@pytest.mark.parametrize(
    ("brief", "code", "name", "outlets"),
    [
        (ACME_ES, "es", "Spanish", SPANISH_OUTLETS),
        (ACME_FR, "fr", "French", FRENCH_OUTLETS),
        (ACME_DE, "de", "German", GERMAN_OUTLETS),
    ],
)
async def test_a_brief_in_another_language_is_checked_in_it_and_reported_in_english(
    env, brief: str, code: str, name: str, outlets: tuple[str, ...]
) -> None:
    conversation, plan, report = await run(brief)

    searches = env.services.factcheck.searches()
    assert searches, "Fact Check Tools was never asked"
    assert {s.get("languageCode") for s in searches} == {code}
    bodies = [r.json for r in env.services.tavily.requests if r.json]
    assert any(b.get("include_domains") == list(outlets) for b in bodies)

    state = await conversation.state()
    config = state[keys.INVESTIGATION_CONFIG]
    assert (config["language"], config["text_language"]) == (ENGLISH, code)
    assert state[keys.INVESTIGATION_LANGUAGE] == "English"
    note = f"Your brief is in {name}"
    assert note in plan and "Investigation Plan" in plan
    assert f"the brief is in {name}" in report and "[INVESTIGATION_COMPLETE]" in report
    assert report.index(f"the brief is in {name}") < report.index("[INVESTIGATION_COMPLETE]")


async def test_english_and_portuguese_briefs_are_asked_and_reported_as_before(env) -> None:
    _, plan, report = await run(ENGLISH_BRIEF)
    assert {s.get("languageCode") for s in env.services.factcheck.searches()} == {"en"}
    assert "🌐" not in plan and "🌐" not in report  # no language note

    env.services.factcheck.reset_log()
    conversation, plan, report = await run(PORTUGUESE_BRIEF)
    assert {s.get("languageCode") for s in env.services.factcheck.searches()} == {"pt"}
    assert "Plano de Investigação" in plan and "🌐" not in plan and "🌐" not in report
    config = (await conversation.state())[keys.INVESTIGATION_CONFIG]
    assert (config["language"], config["text_language"]) == (PORTUGUESE, "pt")


async def test_a_brief_of_links_only_asks_fact_check_tools_in_every_language(env) -> None:
    conversation = Conversation()
    await conversation.send("Quick Search. https://rivertondaily.com/news/acme-health-complaints")
    state = await conversation.state()
    if state.get(keys.CLARIFY) == "asking":
        await conversation.send("skip")
    await conversation.send("APPROVED")

    searches = env.services.factcheck.searches()
    assert searches and all("languageCode" not in s for s in searches)
    config = (await conversation.state())[keys.INVESTIGATION_CONFIG]
    assert (config["language"], config["text_language"]) == (ENGLISH, "")
