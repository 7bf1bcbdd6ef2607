"""Domain credibility on a 1-5 scale (5 excellent ... 1 low), with labels for reports."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from .schemas import Reliability
from .urls import host_of, normalize_url

Kind = Literal[
    "wire", "broadcaster", "factcheck", "news", "official", "academic", "platform", "low"
]
Entry = tuple[int, Kind]
DEFAULT_SCORE = 3


def _group(kind: Kind, score: int, *keys: str) -> dict[str, Entry]:
    return {key: (score, kind) for key in keys}


def _merge(*groups: dict[str, Entry]) -> dict[str, Entry]:
    table: dict[str, Entry] = {}
    for group in groups:
        if duplicates := table.keys() & group.keys():
            raise ValueError(f"duplicate credibility entries: {sorted(duplicates)}")
        table.update(group)
    return table


# Keys are hosts or host suffixes ("gov.br" covers every host under it); "host/path" keys
# cover one section of a site. The most specific matching key wins.
SOURCES: dict[str, Entry] = _merge(
    _group("wire", 5, "reuters.com", "apnews.com", "ap.org", "afp.com"),
    _group("wire", 4, "bloomberg.com", "efe.com", "ansa.it", "dpa.com", "kyodonews.net"),
    _group("wire", 4, "dpa-international.com", "agenciabrasil.ebc.com.br"),
    _group("broadcaster", 5, "bbc.com", "bbc.co.uk"),
    _group("broadcaster", 4, "npr.org", "pbs.org", "dw.com", "france24.com", "rfi.fr"),
    _group("broadcaster", 4, "abc.net.au", "cbc.ca", "ebc.com.br", "nhk.or.jp", "rtp.pt"),
    _group("broadcaster", 4, "rtve.es", "swissinfo.ch"),
    _group("broadcaster", 3, "cnn.com", "foxnews.com", "msnbc.com"),
    _group(
        "factcheck",
        5,
        "factcheck.org",
        "politifact.com",
        "fullfact.org",
        "snopes.com",
        "leadstories.com",
        "africacheck.org",
        "chequeado.com",
        "maldita.es",
        "newtral.es",
        "poligrafo.sapo.pt",
        "aosfatos.org",
        "lupa.uol.com.br",
        "piaui.folha.uol.com.br/lupa",
        "apublica.org",
        "boatos.org",
        "e-farsas.com",
        "projetocomprova.com.br",
        "checamos.afp.com",
        "factual.afp.com",
        "factcheck.afp.com",
        "g1.globo.com/fato-ou-fake",
        "estadao.com.br/estadao-verifica",
        "noticias.uol.com.br/confere",
    ),
    _group(
        "news",
        4,
        "nytimes.com",
        "washingtonpost.com",
        "theguardian.com",
        "wsj.com",
        "ft.com",
        "economist.com",
        "elpais.com",
        "lemonde.fr",
        "lefigaro.fr",
        "spiegel.de",
        "zeit.de",
        "faz.net",
        "corriere.it",
        "publico.pt",
        "clarin.com",
        "lanacion.com.ar",
        "folha.uol.com.br",
        "piaui.folha.uol.com.br",
        "estadao.com.br",
        "g1.globo.com",
        "oglobo.globo.com",
        "valor.globo.com",
        "uol.com.br",
        "nexojornal.com.br",
        "poder360.com.br",
    ),
    _group("news", 3, "globo.com"),
    _group(
        "official",
        5,
        "gov",
        "mil",
        "int",
        "gov.br",
        "mil.br",
        "jus.br",
        "leg.br",
        "mp.br",
        "def.br",
        "gov.uk",
        "gov.au",
        "gc.ca",
        "canada.ca",
        "gouv.fr",
        "gob.es",
        "gob.mx",
        "gov.pt",
        "europa.eu",
        "who.int",
        "un.org",
        "worldbank.org",
        "imf.org",
        "oecd.org",
    ),
    _group("academic", 5, "nature.com", "science.org", "thelancet.com", "nejm.org", "bmj.com"),
    _group("academic", 4, "edu", "ac.uk", "edu.au", "edu.br", "usp.br", "unicamp.br"),
    _group("academic", 4, "unesp.br", "ufrj.br", "ufmg.br", "unb.br", "fiocruz.br"),
    _group(
        "platform",
        2,
        "medium.com",
        "substack.com",
        "blogspot.com",
        "blogspot.com.br",
        "blogger.com",
        "wordpress.com",
        "wixsite.com",
        "github.io",
        "sites.google.com",
        "docs.google.com",
        "facebook.com",
        "fb.com",
        "instagram.com",
        "threads.net",
        "x.com",
        "twitter.com",
        "bsky.app",
        "tiktok.com",
        "kwai.com",
        "youtube.com",
        "youtu.be",
        "rumble.com",
        "reddit.com",
        "quora.com",
        "linkedin.com",
        "t.me",
        "telegram.me",
        "whatsapp.com",
        "wa.me",
        "truthsocial.com",
        "gettr.com",
    ),
    # Fabricated-news sites and satire (often shared as if it were news).
    _group(
        "low",
        1,
        "infowars.com",
        "naturalnews.com",
        "beforeitsnews.com",
        "worldnewsdailyreport.com",
        "thegatewaypundit.com",
        "newspunch.com",
        "theonion.com",
        "babylonbee.com",
        "sensacionalista.com.br",
    ),
)


def _sections() -> dict[str, list[tuple[str, Entry]]]:
    sections: dict[str, list[tuple[str, Entry]]] = {}
    for key, entry in SOURCES.items():
        if "/" in key:
            host, _, path = key.partition("/")
            sections.setdefault(host, []).append(("/" + path, entry))
    return sections


_HOSTS = {key: entry for key, entry in SOURCES.items() if "/" not in key}
_SECTIONS = _sections()

_LABELS = {
    "en": {
        5: "High credibility",
        4: "Good credibility",
        3: "Medium credibility",
        2: "Low credibility",
        1: "Very low credibility",
    },
    "pt": {
        5: "Credibilidade alta",
        4: "Credibilidade boa",
        3: "Credibilidade média",
        2: "Credibilidade baixa",
        1: "Credibilidade muito baixa",
    },
}


def _lookup(url_or_domain: str) -> Entry | None:
    """The most specific table entry for the host (and path), walking up to its suffixes."""
    host = host_of(url_or_domain)
    if not host:
        return None
    path = urlsplit(normalize_url(url_or_domain)).path.lower()
    labels = host.split(".")
    for i in range(len(labels)):
        candidate = ".".join(labels[i:])
        for prefix, entry in _SECTIONS.get(candidate, ()):
            if path == prefix or path.startswith(prefix + "/"):
                return entry
        if candidate in _HOSTS:
            return _HOSTS[candidate]
    return None


def credibility_score(url_or_domain: str) -> int:
    """1..5; unknown domains score 3."""
    entry = _lookup(url_or_domain)
    return entry[0] if entry else DEFAULT_SCORE


def is_fact_checker(url_or_domain: str) -> bool:
    entry = _lookup(url_or_domain)
    return bool(entry and entry[1] == "factcheck")


def is_official(url_or_domain: str) -> bool:
    """Government, courts, parliaments and intergovernmental bodies."""
    entry = _lookup(url_or_domain)
    return bool(entry and entry[1] == "official")


def _clamp(score: int) -> int:
    return max(1, min(5, int(score)))


def reliability(score: int) -> Reliability:
    """4-5 high, 3 neutral, 1-2 low."""
    score = _clamp(score)
    return "high" if score >= 4 else "neutral" if score == 3 else "low"


def stars(score: int) -> str:
    return "⭐" * _clamp(score)


def credibility_label(score: int, language: str = "en") -> str:
    """English, or Brazilian Portuguese when `language` starts with "pt"."""
    labels = _LABELS["pt" if (language or "").lower().startswith("pt") else "en"]
    return labels[_clamp(score)]
