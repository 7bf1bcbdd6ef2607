from __future__ import annotations

import pytest
import trafilatura

from vicaran_agent.clients.content import (
    blocked_reason,
    clip_text,
    extract_readable,
    published_date,
    read_html,
)

NEWS = (
    "SÃO PAULO (Reuters) - Heavy rain blocked roads across the metropolitan region on Tuesday, "
    "and officials said several highways would remain blocked until engineers had inspected "
    "two damaged bridges. The state civil defence agency said data on the number of displaced "
    "families was still unavailable, because teams had not reached the worst-hit districts. "
    "Hospitals reported that some medicines were temporarily unavailable after deliveries were "
    "delayed, although the health secretariat said stocks would be replenished within days. "
    "The governor told reporters that the state had requested federal support and that the "
    "army would help clear debris. Meteorologists expect more storms this week, with up to "
    "120 millimetres of rain forecast for the coast. Residents in low-lying neighbourhoods "
    "were advised to move to shelters set up in schools and sports centres, and the city "
    "suspended classes in 40 public schools. Bus operators said 15 lines were diverted and "
    "the metro was running with reduced frequency on two lines after a power failure. "
    "Insurance companies said it was too early to estimate losses, but business associations "
    "warned that retail sales in the region would fall sharply this month. Environmental "
    "researchers said the intensity of the rainfall was consistent with trends observed over "
    "the past decade and called for investment in drainage and early-warning systems. The "
    "federal government said it would release emergency funds once the state formally "
    "declared a public calamity, a step expected later in the week."
)


def test_news_fixture_is_realistic() -> None:
    assert 1500 < len(NEWS) < 2500
    assert "blocked" in NEWS[:500] and "unavailable" in NEWS[:500]


def test_real_article_mentioning_blocked_and_unavailable_is_readable() -> None:
    assert blocked_reason(NEWS) is None


def test_short_text_is_too_short() -> None:
    text = "Just a short snippet of a page that says very little at all."
    assert blocked_reason(text) == f"content too short ({len(text)} characters)"
    assert blocked_reason("  " + text + "\n\n") == f"content too short ({len(text)} characters)"
    assert blocked_reason("") == "content too short (0 characters)"
    assert blocked_reason(text, min_chars=10) is None


@pytest.mark.parametrize(
    ("head", "reason"),
    [
        ("Please complete the CAPTCHA to continue.", "captcha"),
        ("Are you a robot? Confirm below.", "robot check"),
        ("Robot Check. Enter the characters you see below.", "robot check"),
        ("Checking your browser before accessing example.com.", "browser check"),
        ("Verifying you are human. This may take a few seconds.", "browser check"),
        ("Please enable JavaScript to view this page.", "javascript required"),
        ("Enable JavaScript and cookies to continue", "javascript required"),
        ("Attention Required! | Cloudflare", "cloudflare challenge"),
        ("Access Denied. You don't have permission to access this server.", "access denied"),
        ("403 Forbidden\nnginx", "403 forbidden"),
        ("404 Not Found. The requested URL was not found.", "404 not found"),
        ("Oops! Page not found.", "page not found"),
        ("429 Too Many Requests", "too many requests"),
        ("Error: rate limit exceeded, retry later", "rate limit exceeded"),
        ("Request blocked. We can't connect to the server.", "request blocked"),
        ("This site can’t be reached. example.com took too long to respond.", "site unreachable"),
        ("Subscribe to continue reading this article.", "paywall"),
        ("Acesso negado", "access denied"),
        ("Página não encontrada", "page not found"),
        ("Pagina nao encontrada", "page not found"),
        ("Ative o JavaScript no seu navegador", "javascript required"),
        ("Muitas requisições. Tente novamente mais tarde.", "too many requests"),
        ("Assine para continuar lendo", "paywall"),
    ],
)
def test_strong_indicators_in_head_of_long_page(head: str, reason: str) -> None:
    text = head + "\n" + NEWS
    assert blocked_reason(text) == f"blocked page: {reason}"
    assert blocked_reason(head) == f"blocked page: {reason}"


def test_strong_indicator_matches_across_line_breaks() -> None:
    assert blocked_reason("403\n   Forbidden") == "blocked page: 403 forbidden"


def test_strong_indicator_after_head_is_ignored() -> None:
    text = NEWS[:600] + " Please complete the captcha. " + NEWS
    assert blocked_reason(text) is None


def test_original_false_positives_no_longer_trigger() -> None:
    article = (
        "Cloudflare reported a global outage on Tuesday that left many websites unreachable "
        "for several hours. " + NEWS
    )
    assert blocked_reason(article) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Service Unavailable", "blocked page: unavailable"),
        ("Your IP has been blocked.", "blocked page: blocked"),
        ("Serviço indisponível no momento.", "blocked page: indisponível"),
        ("Conteúdo bloqueado na sua região.", "blocked page: bloqueado"),
    ],
)
def test_weak_indicators_only_on_short_pages(text: str, reason: str) -> None:
    assert blocked_reason(text) == reason
    padded = text + " " + "x" * 700
    assert blocked_reason(padded) == reason
    long_page = text + " " + NEWS
    assert blocked_reason(long_page) is None


def test_weak_indicators_are_whole_words() -> None:
    text = "The unblocked channel and unavailability report. " + "word " * 60
    assert blocked_reason(text) is None


ARTICLE_HTML = """<!doctype html>
<html lang="en"><head>
<title>Council approves budget | City News</title>
<meta property="og:title" content="Council approves 2026 budget">
<style>body { color: red; }</style>
</head><body>
<nav><a href="/">Home</a> <a href="/politics">Politics</a></nav>
<article>
<h1>Council approves 2026 budget</h1>
<p>{body}</p>
<p>The vote passed 31 to 12, and the opposition complained about the lack of consultation
with residents of the northern districts before the final session.</p>
</article>
<div class="comments"><h3>Comments</h3><p class="comment">Comment by Joe: outrageous waste!</p>
</div>
<footer>Copyright 2026 City News. All rights reserved.</footer>
<script>var trackingSecret = "do-not-leak";</script>
</body></html>
""".replace(
    "{body}",
    " ".join(
        [
            "The municipal council approved the new budget on Tuesday after a long debate about "
            "public transport, schools and the maintenance of parks."
        ]
        * 4
    ),
)


def test_extract_readable_article() -> None:
    title, text = extract_readable(ARTICLE_HTML, "https://citynews.example/budget")
    assert title == "Council approves 2026 budget"
    assert "The municipal council approved the new budget" in text
    assert "The vote passed 31 to 12" in text
    assert "do-not-leak" not in text
    assert "color: red" not in text
    assert "outrageous waste" not in text


def test_extract_readable_falls_back_when_trafilatura_finds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: None)
    title, text = extract_readable(ARTICLE_HTML)
    assert title == "Council approves 2026 budget"
    assert "The municipal council approved the new budget" in text
    assert (
        "The vote passed 31 to 12, and the opposition complained about the lack of "
        "consultation with residents"
    ) in text
    assert "Home Politics" in text.splitlines()
    assert "do-not-leak" not in text
    assert "color: red" not in text
    assert "<" not in text


def test_extract_readable_survives_trafilatura_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("parser exploded")

    monkeypatch.setattr(trafilatura, "extract", boom)
    monkeypatch.setattr(trafilatura, "extract_metadata", boom)
    html = (
        "<html><head><title>  Fish &amp; Chips\n Daily </title></head>"
        "<body><p>Hello <b>world</b> &mdash; again</p><p>Next</p>"
        "<script>alert('x')</script><!-- hidden comment --></body></html>"
    )
    title, text = extract_readable(html)
    assert title == "Fish & Chips Daily"
    assert text == "Hello world — again\n\nNext"


@pytest.mark.parametrize(
    "html",
    ["", "   ", "<<<>>> </div></p>", "\x00\x01<html", "<html><body></body></html>", "<p>" * 5000],
)
def test_extract_readable_never_raises(html: str) -> None:
    title, text = extract_readable(html)
    assert isinstance(title, str) and isinstance(text, str)
    assert "<p>" not in text


def test_clip_text_tidies_whitespace() -> None:
    text = "  Title  \r\n\r\n\r\n\n  First   line\twith\u00a0gaps \n\n\n\n Second line  \n"
    assert clip_text(text) == "Title\n\nFirst line with gaps\n\nSecond line"


def test_clip_text_short_text_unchanged() -> None:
    assert clip_text("Hello world") == "Hello world"
    assert clip_text("") == ""
    assert clip_text("Hello", limit=0) == ""


def test_clip_text_cuts_on_word_boundary() -> None:
    text = "alpha beta gamma delta epsilon"
    clipped = clip_text(text, limit=14)
    assert clipped == "alpha beta…"
    assert len(clipped) <= 14


def test_clip_text_respects_limit_on_long_text() -> None:
    text = ("word " * 3000).strip()
    clipped = clip_text(text)
    assert len(clipped) <= 5000
    assert len(clipped) > 4900
    assert clipped.endswith("word…")


def test_clip_text_hard_cut_without_spaces() -> None:
    clipped = clip_text("x" * 100, limit=10)
    assert clipped == "x" * 9 + "…"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-08-18T20:06:42+00:00", "2026-08-18"),
        ("2026-08-18T20:06:42Z", "2026-08-18"),
        ("2026-08-18T20:06:42.123456789Z", "2026-08-18"),
        ("2026-08-18T23:30:00-03:00", "2026-08-18"),
        ("2026-08-18", "2026-08-18"),
        ("2026-08-18 20:06:42", "2026-08-18"),
        ("Tue, 18 Aug 2026 20:06:42 GMT", "2026-08-18"),
        ("Fri, 28 Nov 2025 06:34:57 GMT", "2025-11-28"),
        ("28 Nov 2025 06:34:57 +0000", "2025-11-28"),
        ("  Fri, 28 Nov 2025 06:34:57 GMT  ", "2025-11-28"),
        ("Published Time: 2026-08-18T20:06:42+00:00", "2026-08-18"),
        ("2026-08-18T25:99:00 garbage", "2026-08-18"),
        (None, None),
        ("", None),
        ("   ", None),
        ("yesterday", None),
        ("2026-13-45", None),
        ("Fri, 31 Feb 2025 06:34:57 GMT", None),
        ("2026", None),
    ],
)
def test_published_date(value: str | None, expected: str | None) -> None:
    assert published_date(value) == expected


def _page(head: str = "", body: str = "") -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in [ARTICLE_BODY] * 3)
    return (
        f"<!DOCTYPE html><html><head><title>Budget</title>{head}</head><body><article>"
        f"<h1>Budget</h1>{body}{paragraphs}</article>"
        "<footer>© 2024 Example News</footer></body></html>"
    )


ARTICLE_BODY = (
    "The city council approved the new budget after a six-hour session that stretched late into "
    "the night, with eleven votes in favour and four against the plan."
)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (
            '<meta property="article:published_time" content="2019-03-05T08:00:00-03:00">',
            "2019-03-05",
        ),
        ('<meta name="DC.date.issued" content="5 March 2019">', "2019-03-05"),
        ('<meta itemprop="datePublished" content="2019-03-05">', "2019-03-05"),
        (
            '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": ['
            '{"@type": "NewsArticle", "dateModified": "2026-11-01", '
            '"datePublished": "2019-03-05T10:00:00Z"}]}</script>',
            "2019-03-05",
        ),
        # what is not a publication date: a modification, the page's generation, the server
        ('<meta property="article:modified_time" content="2026-11-01T00:00:00Z">', None),
        ('<meta property="og:updated_time" content="2026-11-01">', None),
        ('<meta name="gentime" content="2026-11-27">', None),
        ('<meta http-equiv="last-modified" content="Fri, 27 Nov 2026 04:00:00 GMT">', None),
        ('<meta itemprop="copyrightYear" content="2024">', None),
        ('<script type="application/ld+json">{"dateModified": "2026-11-01"}</script>', None),
        ('<script type="application/ld+json">{"datePublished": </script>', None),  # broken
    ],
)
def test_an_html_pages_date_is_its_metadatas(head: str, expected: str | None) -> None:
    assert read_html(_page(head), "https://news.example/budget").published_at == expected


def test_dates_in_the_text_or_the_address_are_not_publication_dates() -> None:
    """Without date metadata the date is unknown, whatever the text, footer or URL mention."""
    page = _page(body="<p class='date'>Published on 5 March 2019, updated 27 Nov 2026</p>")
    assert read_html(page, "https://news.example/2019/03/05/budget").published_at is None
