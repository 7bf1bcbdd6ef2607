from __future__ import annotations

import pytest

from vicaran_agent.credibility import (
    DEFAULT_SCORE,
    SOURCES,
    credibility_label,
    credibility_score,
    is_fact_checker,
    is_official,
    reliability,
    stars,
)


@pytest.mark.parametrize(
    ("domain", "score"),
    [
        ("reuters.com", 5),
        ("apnews.com", 5),
        ("bbc.com", 5),
        ("nytimes.com", 4),
        ("washingtonpost.com", 4),
        ("theguardian.com", 4),
        ("cnn.com", 3),
        ("foxnews.com", 3),
        ("msnbc.com", 3),
    ],
)
def test_original_design_scores(domain: str, score: int) -> None:
    assert credibility_score(domain) == score


@pytest.mark.parametrize(
    ("url", "score"),
    [
        # wire services
        ("https://www.afp.com/en/news", 5),
        ("https://www.bloomberg.com/news/articles/x", 4),
        ("https://www.efe.com/efe/america/", 4),
        ("https://www.ansa.it/", 4),
        ("https://agenciabrasil.ebc.com.br/politica/noticia/2026-01/x", 4),
        # public broadcasters
        ("https://www.bbc.co.uk/news/uk-1", 5),
        ("https://news.bbc.co.uk/2/hi/x.stm", 5),
        ("https://www.bbc.com/portuguese/articles/c123", 5),
        ("https://www.npr.org/2026/01/01/x", 4),
        ("https://www.dw.com/pt-br/x", 4),
        ("https://www.abc.net.au/news/x", 4),
        # major outlets
        ("https://www1.folha.uol.com.br/poder/2026/01/x.shtml", 4),
        ("https://www.estadao.com.br/politica/x", 4),
        ("https://g1.globo.com/politica/noticia/x.ghtml", 4),
        ("https://oglobo.globo.com/brasil/x", 4),
        ("https://elpais.com/internacional/x.html", 4),
        ("https://www.ft.com/content/x", 4),
        # official and intergovernmental
        ("https://www.cdc.gov/x", 5),
        ("https://www.gov.br/saude/pt-br", 5),
        ("https://www.in.gov.br/web/dou", 5),
        ("https://portal.stf.jus.br/noticias/", 5),
        ("https://www.camara.leg.br/noticias/", 5),
        ("https://www.mpf.mp.br/", 5),
        ("https://www.gov.uk/government/x", 5),
        ("https://www.army.mil/", 5),
        ("https://www.nato.int/", 5),
        ("https://www.who.int/news", 5),
        ("https://news.un.org/en/story/x", 5),
        ("https://commission.europa.eu/x", 5),
        # universities
        ("https://news.mit.edu/2026/x", 4),
        ("https://www.ox.ac.uk/news", 4),
        ("https://www.ufsc.edu.br/", 4),
        ("https://jornal.usp.br/x", 4),
        ("https://www.unicamp.br/unicamp/", 4),
        # platforms
        ("https://medium.com/@someone/x", 2),
        ("https://someone.substack.com/p/x", 2),
        ("https://meublog.blogspot.com/2020/x.html", 2),
        ("https://meublog.blogspot.com.br/2020/x.html", 2),
        ("https://someone.wordpress.com/x", 2),
        ("https://www.facebook.com/x/posts/1", 2),
        ("https://x.com/someone/status/1", 2),
        ("https://twitter.com/someone/status/1", 2),
        ("https://www.tiktok.com/@x/video/1", 2),
        ("https://www.instagram.com/p/x/", 2),
        ("https://www.youtube.com/watch?v=x", 2),
        ("https://m.youtube.com/watch?v=x", 2),
        ("https://www.reddit.com/r/brasil/x", 2),
        ("https://t.me/channel/1", 2),
        ("https://www.whatsapp.com/channel/x", 2),
        ("https://www.kwai.com/@x", 2),
        # fabricators and satire
        ("https://www.infowars.com/posts/x", 1),
        ("https://www.sensacionalista.com.br/2026/x", 1),
        # unknown
        ("https://example.org/x", 3),
        ("https://notbbc.co.uk/x", 3),
        ("https://bbc.com.evil.example/x", 3),
        ("", 3),
        ("not a url at all", 3),
        ("http://192.168.0.1/", 3),
    ],
)
def test_credibility_score(url: str, score: int) -> None:
    assert credibility_score(url) == score


@pytest.mark.parametrize(
    "url",
    [
        "factcheck.org",
        "https://www.politifact.com/factchecks/x",
        "https://fullfact.org/health/x",
        "https://www.snopes.com/fact-check/x",
        "https://www.aosfatos.org/noticias/x",
        "https://lupa.uol.com.br/jornalismo/x",
        "https://piaui.folha.uol.com.br/lupa/2020/01/01/x",
        "https://apublica.org/2026/x",
        "https://www.boatos.org/politica/x.html",
        "https://www.e-farsas.com/x.html",
        "https://checamos.afp.com/doc.afp.com.X",
        "https://factual.afp.com/x",
        "https://g1.globo.com/fato-ou-fake/noticia/2026/x.ghtml",
        "https://g1.globo.com/fato-ou-fake",
    ],
)
def test_fact_checkers_score_five(url: str) -> None:
    assert credibility_score(url) == 5
    assert is_fact_checker(url)
    assert not is_official(url)


@pytest.mark.parametrize(
    ("url", "score"),
    [
        ("https://g1.globo.com/politica/x", 4),
        ("https://g1.globo.com/fato-ou-fakes/x", 4),
        ("https://www.afp.com/pt", 5),
        ("https://piaui.folha.uol.com.br/materia/x", 4),
        ("https://www.uol.com.br/", 4),
    ],
)
def test_not_fact_checkers_on_the_same_sites(url: str, score: int) -> None:
    assert not is_fact_checker(url)
    assert credibility_score(url) == score


def test_more_specific_host_wins() -> None:
    assert credibility_score("https://gshow.globo.com/x") == credibility_score("globo.com") == 3
    assert credibility_score("https://g1.globo.com/x") == 4
    assert credibility_score("https://m.g1.globo.com/fato-ou-fake/x") == 5
    assert credibility_score("https://valor.globo.com/x") == 4


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://www.gov.br/saude", True),
        ("https://www.ibge.gov.br/", True),
        ("https://www.tse.jus.br/", True),
        ("https://www.senado.leg.br/", True),
        ("https://www.whitehouse.gov/", True),
        ("https://www.who.int/", True),
        ("https://www.un.org/", True),
        ("https://eur-lex.europa.eu/", True),
        ("https://reuters.com/", False),
        ("https://news.mit.edu/", False),
        ("https://gov.example.com/", False),
        ("https://govbr.com/", False),
        ("", False),
    ],
)
def test_is_official(url: str, expected: bool) -> None:
    assert is_official(url) is expected


def test_table_scores_are_on_the_scale() -> None:
    assert DEFAULT_SCORE == 3
    assert all(1 <= score <= 5 for score, _ in SOURCES.values())
    assert all(key == key.lower().strip() and not key.startswith("www.") for key in SOURCES)


@pytest.mark.parametrize(
    ("score", "expected"),
    [(5, "high"), (4, "high"), (3, "neutral"), (2, "low"), (1, "low"), (0, "low"), (9, "high")],
)
def test_reliability(score: int, expected: str) -> None:
    assert reliability(score) == expected


def test_stars_are_clamped() -> None:
    assert stars(5) == "⭐⭐⭐⭐⭐"
    assert stars(3) == "⭐⭐⭐"
    assert stars(1) == "⭐"
    assert stars(0) == "⭐"
    assert stars(-4) == "⭐"
    assert stars(12) == "⭐" * 5


@pytest.mark.parametrize(
    ("score", "english", "portuguese"),
    [
        (5, "High credibility", "Credibilidade alta"),
        (4, "Good credibility", "Credibilidade boa"),
        (3, "Medium credibility", "Credibilidade média"),
        (2, "Low credibility", "Credibilidade baixa"),
        (1, "Very low credibility", "Credibilidade muito baixa"),
    ],
)
def test_credibility_label(score: int, english: str, portuguese: str) -> None:
    assert credibility_label(score) == english
    assert credibility_label(score, "en") == english
    assert credibility_label(score, "es") == english
    assert credibility_label(score, "pt") == portuguese
    assert credibility_label(score, "pt-BR") == portuguese
    assert credibility_label(score, "PT_br") == portuguese


def test_credibility_label_clamps() -> None:
    assert credibility_label(7) == "High credibility"
    assert credibility_label(0, "pt-BR") == "Credibilidade muito baixa"
