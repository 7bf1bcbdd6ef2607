"""The outlets and fact-checkers searched for every claim, by the language of the brief.

Each list holds national outlets of record and fact-checkers that are IFCN signatories; a
language without a list of its own gets the international English one.
"""

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
SPANISH_OUTLETS = (  # Spain and Latin America
    "elpais.com",
    "efe.com",
    "infobae.com",
    "animalpolitico.com",
    "maldita.es",
    "newtral.es",
    "chequeado.com",
    "colombiacheck.com",
)
FRENCH_OUTLETS = (  # France and French-speaking Africa
    "lemonde.fr",
    "francetvinfo.fr",
    "liberation.fr",
    "rfi.fr",
    "factuel.afp.com",
    "20minutes.fr",
    "lesurligneur.fr",
    "fr.africacheck.org",
)
GERMAN_OUTLETS = (
    "tagesschau.de",
    "spiegel.de",
    "zeit.de",
    "dw.com",
    "sueddeutsche.de",
    "correctiv.org",
    "dpa-factchecking.com",
    "faktencheck.afp.com",
)
_BY_LANGUAGE = {"es": SPANISH_OUTLETS, "fr": FRENCH_OUTLETS, "de": GERMAN_OUTLETS}


def outlets_for(language: str, settings: Settings) -> list[str]:
    """VICARAN_CHECK_OUTLETS when set, else the defaults for `language` (the brief's: an ISO
    639-1 code or a tag such as "pt-BR"; English's for a language without a list, or "")."""
    if settings.check_outlets:
        return settings.check_outlets
    if is_portuguese(language):
        return list(PORTUGUESE_OUTLETS)
    return list(_BY_LANGUAGE.get(language.split("-")[0].lower(), ENGLISH_OUTLETS))
