"""The message catalogs: every message translated, the check that says so, a third language."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from vicaran_agent import catalogs
from vicaran_agent.i18n import (
    detect_language,
    language_name,
    message,
    report_language,
    system_language,
    text_language_name,
    verdict_label,
    word,
)
from vicaran_agent.messages import ENGLISH


@pytest.fixture
def locale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the catalogs that a test may change; the code reads it instead."""
    shutil.copytree(catalogs.LOCALE, tmp_path / "locale")
    monkeypatch.setattr(catalogs, "LOCALE", tmp_path / "locale")
    catalogs._compiled.cache_clear()
    yield tmp_path / "locale"
    catalogs._compiled.cache_clear()


def test_every_message_has_its_translation():
    """What `make lint` checks: each message the code, the templates and the message tables
    use is translated in each catalog, and each translation is of a message still used."""
    assert catalogs.problems("pt_BR") == []
    used = catalogs.extracted()
    assert (None, "No sources yet.") in used
    assert (None, ("%(num)s source", "%(num)s sources")) in used
    assert ("started", ENGLISH["started"]) in used and ("verdict", "FALSE") in used
    assert catalogs.translations("pt-BR").gettext("No sources yet.") == "Ainda sem fontes."
    assert catalogs.translations("en").gettext("No sources yet.") == "No sources yet."
    assert message("sources_read", "pt-BR", count=0) == "0 fontes lidas"  # the catalog's rule


def test_the_check_names_a_message_left_untranslated_and_a_translation_no_longer_used(locale):
    po = locale / "pt_BR" / "LC_MESSAGES" / "vicaran.po"
    with po.open("rb") as file:
        kept = read_po(file, locale="pt_BR")
    kept.get(ENGLISH["empty_brief"], context="empty_brief").string = ""
    kept.add("A message no code says any more.", "Uma mensagem que ninguém diz.", context="gone")
    with po.open("wb") as file:
        write_po(file, kept)

    found = catalogs.problems("pt_BR")
    assert len(found) == 2
    assert "no translation of ('empty_brief'" in found[0]
    assert "'gone'" in found[1] and "no longer used" in found[1]
    assert catalogs.main([]) == 1


def test_a_third_language_is_one_catalog(locale, monkeypatch):
    """How docs/architecture.md says to add a language: its catalog, and nothing else. Messages
    it has not translated yet read English."""
    spanish = Catalog(locale="es", domain=catalogs.DOMAIN)
    spanish.add(ENGLISH["empty_brief"], "Dime qué quieres investigar.", context="empty_brief")
    spanish.add(
        ENGLISH["sources_read"],
        ("{count} fuente leída", "{count} fuentes leídas"),
        context="sources_read",
    )
    spanish.add("FALSE", "FALSO", context="verdict")
    spanish.add("documents", "documentos", context="word")
    (locale / "es" / "LC_MESSAGES").mkdir(parents=True)
    with (locale / "es" / "LC_MESSAGES" / "vicaran.po").open("wb") as file:
        write_po(file, spanish)
    monkeypatch.setattr(catalogs, "LANGUAGES", ("es", "pt_BR"))

    brief = "Investigar si la alcaldía de Sevilla adjudicó el contrato de limpieza sin concurso."
    language = detect_language(brief)
    assert language == report_language("es") == "es"
    assert language_name(language) == "Spanish"
    assert text_language_name("pt", language) == "portugués"  # said in the report's language
    assert message("empty_brief", language) == "Dime qué quieres investigar."
    assert message("sources_read", language, count=2) == "2 fuentes leídas"
    assert message("gate_refused", language) == message("gate_refused", "en")  # not yet translated
    assert verdict_label("false", language) == ("❌", "FALSO")
    assert word("documents", language) == "documentos"
    assert message("empty_brief", "pt-BR").startswith("Diga o que")  # the others unchanged
    assert report_language("de") == "en"
    monkeypatch.setenv("LC_ALL", "es_ES.UTF-8")
    assert system_language() == "es"


def test_updating_adds_new_messages_untranslated_drops_unused_ones_and_keeps_the_rest(locale):
    """`make messages`: what a developer runs after writing a new message."""
    po = locale / "pt_BR" / "LC_MESSAGES" / "vicaran.po"
    with po.open("rb") as file:
        before = read_po(file, locale="pt_BR")
    before.delete(ENGLISH["empty_brief"], context="empty_brief")  # as if newly written in code
    before.add("A message no code says any more.", "Uma mensagem que ninguém diz.", context="gone")
    with po.open("wb") as file:
        write_po(file, before)

    catalogs.main(["--update"])

    with po.open("rb") as file:
        after = read_po(file, locale="pt_BR")
    assert after.get(ENGLISH["empty_brief"], context="empty_brief").string == ""
    assert after.get("A message no code says any more.", context="gone") is None
    assert after.get("No sources yet.").string == "Ainda sem fontes."  # translations kept
    assert after.plural_forms == before.plural_forms  # the catalog's own rule for 0
    assert catalogs.problems("pt_BR") == [
        f"pt_BR: no translation of ('empty_brief', {ENGLISH['empty_brief']!r}) (messages/chat.py:0)"
    ]
