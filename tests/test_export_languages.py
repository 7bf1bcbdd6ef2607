"""A Portuguese investigation's exports are Portuguese: no message of the exports in English."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest

from tests.support.records import stored
from tests.support.store import fresh_repository
from tests.test_dashboard import trust_investigation
from vicaran_agent import catalogs, export
from vicaran_agent.storage import Repository

EXPORT_SOURCES = ("export/", "templates/export/", "schemas.py")
PLACEHOLDER = re.compile(r"\{[a-z_]+\}|%\([a-z_]+\)s")
# What issue 23 saw in a Portuguese export, and the appendix's headings and labels.
SEEN_IN_ENGLISH = (
    "## Evidence",
    "In each explanation",
    "Claim (from the brief)",
    "Stance:",
    "Reliability:",
    "Not independent",
    "All sources read",
    "How this verdict was reached",
    "Found by:",
    "Published 2024",
    "Retrieved 2024",
    "Set aside: off-topic",
    "Texts Vicaran read",
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


def english_phrases() -> set[str]:
    """The fixed words of every message the exports use whose Portuguese differs (two words or
    more, so a name such as "Link" that both languages share is not one)."""
    portuguese = catalogs.translations("pt-BR")
    phrases = set()
    for (context, msgid), where in catalogs.extracted().items():
        if context is not None or not any(w.startswith(EXPORT_SOURCES) for w in where):
            continue
        english = msgid if isinstance(msgid, str) else msgid[1]
        if portuguese.gettext(english) == english and isinstance(msgid, str):
            continue
        for piece in PLACEHOLDER.split(english):
            piece = piece.strip(" .,:;()·")
            if len(piece.split()) >= 2:
                phrases.add(piece)
    return phrases


def rendered(repo: Repository, iid: str) -> dict[str, str]:
    investigation = stored(repo, iid)
    snapshots = repo.get_snapshots(iid)
    texts = {
        fmt: export.render(fmt, investigation, snapshots)
        for fmt in export.FORMATS
        if fmt not in export.BINARY  # the web archive says only what was read, as it was read
    }
    texts["html"] = unescape(re.sub(r"<[^>]+>", " ", texts["html"]))
    texts["html"] = " ".join(texts["html"].split())
    return texts


def test_every_export_of_a_portuguese_investigation_is_portuguese(repo: Repository) -> None:
    iid, _ = trust_investigation(repo, language="pt-BR")
    phrases = english_phrases()
    assert len(phrases) >= 30  # the exports' messages were found
    for fmt, text in rendered(repo, iid).items():
        english = sorted(p for p in phrases | set(SEEN_IN_ENGLISH) if p in text)
        assert not english, (fmt, english)
    markdown = rendered(repo, iid)["md"]
    for portuguese in ("## Evidências", "Alegação (do briefing)", "Todas as fontes lidas"):
        assert portuguese in markdown


def test_an_english_investigation_keeps_its_english_words(repo: Repository) -> None:
    iid, _ = trust_investigation(repo, language="en")
    markdown = rendered(repo, iid)["md"]
    for english in ("## Evidence", "Claim (from the brief)", "Not independent", "All sources read"):
        assert english in markdown
