"""The outlets and fact-checkers searched for every claim, by the investigation's language."""

from __future__ import annotations

from ..config import Settings
from ..i18n import is_portuguese

ENGLISH_OUTLETS = (
    "reuters.com",
    "apnews.com",
    "bbc.co.uk",
    "npr.org",
    "factcheck.org",
    "politifact.com",
    "fullfact.org",
    "snopes.com",
)
PORTUGUESE_OUTLETS = (
    "g1.globo.com",
    "estadao.com.br",
    "folha.uol.com.br",
    "agenciabrasil.ebc.com.br",
    "aosfatos.org",
    "lupa.uol.com.br",
    "apublica.org",
    "projetocomprova.com.br",
)


def outlets_for(language: str, settings: Settings) -> list[str]:
    """VICARAN_CHECK_OUTLETS when set, else the defaults for the language."""
    if settings.check_outlets:
        return settings.check_outlets
    return list(PORTUGUESE_OUTLETS if is_portuguese(language) else ENGLISH_OUTLETS)
