from __future__ import annotations

import socket

import pytest
import tldextract.cache

from vicaran_agent import urls
from vicaran_agent.credibility import credibility_score
from vicaran_agent.tools.analyze_source import source_base
from vicaran_agent.urls import domain_matches, domain_of, extract_urls, host_of, normalize_url


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", ""),
        ("   ", ""),
        ("bbc.com", "https://bbc.com"),
        ("bbc.com/news", "https://bbc.com/news"),
        ("//cdn.example.com/a.js", "https://cdn.example.com/a.js"),
        ("HTTPS://WWW.BBC.COM/", "https://bbc.com"),
        ("https://bbc.com/", "https://bbc.com"),
        ("https://bbc.com///", "https://bbc.com"),
        ("https://Example.com/Path/To/Article/", "https://example.com/Path/To/Article"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"),
        ("https://example.com/a?id=7&utm_source=x&UTM_Medium=y", "https://example.com/a?id=7"),
        ("https://example.com/?fbclid=abc", "https://example.com"),
        ("https://example.com/a?q=&x=1", "https://example.com/a?q=&x=1"),
        ("https://example.com/a?flag", "https://example.com/a?flag"),
        ("https://example.com/a?b=2&a=1&b=1", "https://example.com/a?a=1&b=2&b=1"),
        ("https://www.com", "https://www.com"),
        ("https://bbc.com./news", "https://bbc.com/news"),
        ("  https://bbc.com/news  ", "https://bbc.com/news"),
        ("ftp://FTP.Example.com:21/x", "ftp://ftp.example.com:21/x"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://user:Secret@Example.com/x", "http://user:Secret@example.com/x"),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_normalize_url_drops_tracking_parameters_and_keeps_the_rest() -> None:
    url = "https://example.com/story?id=42&utm_source=x&Utm_Medium=y&fbclid=z&GCLID=w&page=2"
    assert normalize_url(url) == "https://example.com/story?id=42&page=2"


def test_normalize_url_keeps_content_parameters() -> None:
    assert normalize_url("https://www.youtube.com/watch?v=dQw4w9WgXcQ&utm_source=tw") == (
        "https://youtube.com/watch?v=dQw4w9WgXcQ"
    )
    assert normalize_url("https://example.com/search?page=2&q=vacina") == (
        "https://example.com/search?page=2&q=vacina"
    )


def test_normalize_url_is_case_sensitive_in_path_and_query() -> None:
    assert normalize_url("https://EXAMPLE.com/A?Id=X") == "https://example.com/A?Id=X"
    assert normalize_url("https://example.com/A") != normalize_url("https://example.com/a")


def test_normalize_url_same_page_same_key() -> None:
    variants = [
        "https://www.bbc.com/news/world-123",
        "https://www.bbc.com/news/world-123/",
        "bbc.com/news/world-123/",
        "HTTPS://BBC.COM:443/news/world-123#comments",
        "https://bbc.com/news/world-123?utm_source=twitter&fbclid=xyz",
    ]
    assert {normalize_url(v) for v in variants} == {"https://bbc.com/news/world-123"}


def test_normalize_url_idn_hosts_use_punycode() -> None:
    assert normalize_url("https://München.de/Straße") == "https://xn--mnchen-3ya.de/Straße"
    assert normalize_url("https://xn--mnchen-3ya.de/Straße") == "https://xn--mnchen-3ya.de/Straße"
    assert host_of("https://www.café.com.br/x") == "xn--caf-dma.com.br"


@pytest.mark.parametrize(
    "junk",
    [
        "http://[::1",
        "http://exa mple.com/a b",
        "mailto:someone@example.com",
        "javascript:alert(1)",
        "data:text/html,<b>hi</b>",
        "https://",
        "://",
        "?",
        "#",
        "http://example.com:abc/",
        "http://💥.com/",
        "http://a..b/",
        "\x00\x01",
        "https://exa\u0301mple.com",
    ],
)
def test_normalize_url_never_raises(junk: str) -> None:
    result = normalize_url(junk)
    assert isinstance(result, str)
    assert normalize_url(result) == result
    assert isinstance(host_of(junk), str)
    assert isinstance(domain_of(junk), str)


def test_normalize_url_leaves_non_web_urls_alone() -> None:
    assert normalize_url(" mailto:someone@example.com ") == "mailto:someone@example.com"
    assert host_of("javascript:alert(1)") == ""


@pytest.mark.parametrize(
    "raw",
    [
        "HTTP://WWW.BBC.COM:80/News/Article/?utm_source=x&b=2&a=1&FBCLID=z#frag",
        "www.www.example.com/a/",
        "https://www.www.com/",
        "https://München.de/?b=1&a=",
        "example.com:8080",
        "https://example.com/a?x=%20y&y=a+b",
        "https://example.com/?",
        "https:///path/",
        "http://[2001:DB8::1]:443/",
    ],
)
def test_normalize_url_is_idempotent(raw: str) -> None:
    once = normalize_url(raw)
    assert normalize_url(once) == once


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://WWW.BBC.co.uk:8080/news", "bbc.co.uk"),
        ("news.bbc.co.uk", "news.bbc.co.uk"),
        ("http://[::1]:8000/", "::1"),
        ("http://127.0.0.1:5000/x", "127.0.0.1"),
        ("", ""),
        ("https://user@Example.org/", "example.org"),
    ],
)
def test_host_of(url: str, host: str) -> None:
    assert host_of(url) == host


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://news.bbc.co.uk/x", "bbc.co.uk"),
        ("https://g1.globo.com/politica/", "globo.com"),
        ("www.folha.uol.com.br", "uol.com.br"),
        ("https://www.saude.gov.br/", "saude.gov.br"),
        ("https://sp.gov.br/", "sp.gov.br"),
        ("https://bbc.com", "bbc.com"),
        ("http://127.0.0.1:8000/", "127.0.0.1"),
        ("http://[::1]/", "::1"),
        ("http://localhost:3000/", "localhost"),
        ("http://intranet/", "intranet"),
        ("", ""),
    ],
)
def test_domain_of(url: str, domain: str) -> None:
    assert domain_of(url) == domain


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("network access attempted")


def test_tldextract_works_offline_without_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", _no_network)
    monkeypatch.setattr(socket, "create_connection", _no_network)
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setattr(tldextract.cache.DiskCache, "set", _no_network)
    extractor = urls._new_extractor()
    assert extractor("news.bbc.co.uk").top_domain_under_public_suffix == "bbc.co.uk"
    assert extractor("a.b.gov.br").top_domain_under_public_suffix == "b.gov.br"
    assert domain_of("https://g1.globo.com/") == "globo.com"


@pytest.mark.parametrize(
    ("url", "patterns", "expected"),
    [
        ("https://news.bbc.co.uk/x", ["bbc.co.uk"], True),
        ("https://bbc.co.uk/x", ["bbc.co.uk"], True),
        ("https://www.bbc.co.uk/x", ["bbc.co.uk"], True),
        ("https://notbbc.co.uk/x", ["bbc.co.uk"], False),
        ("https://bbc.co.uk.evil.com/", ["bbc.co.uk"], False),
        ("news.bbc.co.uk", ["BBC.co.uk"], True),
        ("news.bbc.co.uk", ["https://www.bbc.co.uk/"], True),
        ("news.bbc.co.uk", ["*.bbc.co.uk"], True),
        ("news.bbc.co.uk", ["reuters.com", "bbc.co.uk"], True),
        ("news.bbc.co.uk", [], False),
        ("news.bbc.co.uk", ["", "  "], False),
        ("", ["bbc.co.uk"], False),
        ("https://g1.globo.com/", ["globo.com"], True),
        ("https://globo.com/", ["g1.globo.com"], False),
    ],
)
def test_domain_matches(url: str, patterns: list[str], expected: bool) -> None:
    assert domain_matches(url, patterns) is expected


def test_extract_urls_strips_trailing_punctuation() -> None:
    text = (
        "Read https://example.com/a. Then https://example.com/b, and https://example.com/c; "
        "also https://example.com/d! or https://example.com/e? "
        "'https://example.com/f' \"https://example.com/g\" {https://example.com/h}"
    )
    assert extract_urls(text) == [f"https://example.com/{c}" for c in "abcdefgh"]


def test_extract_urls_handles_parentheses_and_markdown() -> None:
    text = (
        "See [the report](https://example.com/report) (https://example.com/x) "
        "and https://en.wikipedia.org/wiki/Foo_(bar) plus "
        "[wiki](https://en.wikipedia.org/wiki/Baz_(qux)) and <https://example.com/angle>."
    )
    assert extract_urls(text) == [
        "https://example.com/report",
        "https://example.com/x",
        "https://en.wikipedia.org/wiki/Foo_(bar)",
        "https://en.wikipedia.org/wiki/Baz_(qux)",
        "https://example.com/angle",
    ]


def test_extract_urls_markdown_link_with_url_text() -> None:
    text = "[https://example.com/a](https://example.com/a?utm_source=x)"
    assert extract_urls(text) == ["https://example.com/a"]


def test_extract_urls_dedupes_by_normalized_form_keeping_first_as_written() -> None:
    text = (
        "https://www.BBC.com/news/1?utm_source=x then bbc again https://bbc.com/news/1/ "
        "and http://other.org/Page#top and https://bbc.com/news/2"
    )
    assert extract_urls(text) == [
        "https://www.BBC.com/news/1?utm_source=x",
        "http://other.org/Page#top",
        "https://bbc.com/news/2",
    ]


def test_extract_urls_limit_and_schemes() -> None:
    text = " ".join(f"https://example.com/{i}" for i in range(20))
    assert extract_urls(text, limit=3) == [f"https://example.com/{i}" for i in range(3)]
    assert len(extract_urls(text)) == 10
    assert extract_urls(text, limit=0) == []
    assert extract_urls("ftp://example.com/x www.example.com mailto:a@b.com https:// x") == []
    assert extract_urls("") == []
    assert extract_urls("HTTP://EXAMPLE.COM/Up") == ["HTTP://EXAMPLE.COM/Up"]


def test_extract_urls_ipv6_and_query_strings() -> None:
    text = "local http://[::1]:8000/a, search https://example.com/s?q=a+b&page=2."
    assert extract_urls(text) == [
        "http://[::1]:8000/a",
        "https://example.com/s?q=a+b&page=2",
    ]


# --- dot segments and backslashes: rated, deduplicated and fetched alike --------------------

DOTTED = "https://www.reuters.com/world/../../evil.example/fake"


@pytest.mark.parametrize(
    "written",
    [
        DOTTED,
        "https://www.reuters.com/world/%2e%2e/%2E%2e/evil.example/fake",
        "https://www.reuters.com/./world/./../../../evil.example/./fake/",
        "https://www.reuters.com\\world\\..\\..\\evil.example\\fake",
        "https://www.reuters.com/evil.example/fake",
    ],
)
def test_dot_segments_are_removed_before_rating_and_dedupe(written: str) -> None:
    assert normalize_url(written) == "https://reuters.com/evil.example/fake"
    assert urls.fetchable_url(written) in (
        "https://www.reuters.com/evil.example/fake",
        "https://www.reuters.com/evil.example/fake/",
    )
    assert normalize_url(urls.fetchable_url(written)) == normalize_url(written)
    # the record keeps the URL as found for people, and rates and keys the page that is read
    base = source_base(written, origin="web", is_user_provided=False)
    assert base["display_url"] == written
    assert base["url"] == "https://reuters.com/evil.example/fake"
    assert base["domain"] == "reuters.com" and base["credibility_score"] == 5
    assert credibility_score(written) == credibility_score(urls.fetchable_url(written))


def test_a_backslash_is_a_slash_as_browsers_read_it() -> None:
    # Python's urlsplit sees host www.reuters.com; browsers and Jina Reader fetch evil.example
    tricked = "https://evil.example\\@www.reuters.com/story"
    assert host_of(tricked) == "evil.example"
    assert normalize_url(tricked) == "https://evil.example/@www.reuters.com/story"
    assert urls.fetchable_url(tricked) == "https://evil.example/@www.reuters.com/story"
    assert credibility_score(tricked) == 3  # unknown site, not Reuters' 5
    # in the query a backslash is data
    assert normalize_url("https://a.example/x?q=a\\b") == "https://a.example/x?q=a\\b"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("", ""),
        ("/", "/"),
        ("/a/b/c/./../../g", "/a/g"),  # RFC 3986 §5.2.4's example
        ("/mid/content=5/../6", "/mid/6"),  # and its other one
        ("/..", "/"),
        ("/../../a", "/a"),
        ("/a/..", "/"),
        ("/a/.", "/a/"),
        ("/a/./b", "/a/b"),
        ("/a//../b", "/a/b"),
        ("/a/.b/..c/b.", "/a/.b/..c/b."),  # only whole segments are dots
        ("/%2E/x/%2e%2E/y", "/y"),
    ],
)
def test_remove_dot_segments(path: str, expected: str) -> None:
    assert urls.remove_dot_segments(path) == expected


def test_fetchable_url_keeps_what_a_server_may_tell_apart() -> None:
    url = "HTTPS://WWW.Example.COM:443/A/../B/?utm_source=x&b=2&a=1#frag"
    assert urls.fetchable_url(url) == "https://www.example.com/B/?utm_source=x&b=2&a=1"
    assert normalize_url(url) == "https://example.com/B?a=1&b=2"
    assert urls.fetchable_url("https://München.de/Straße") == "https://xn--mnchen-3ya.de/Straße"
    for junk in ("", "  ", "mailto:a@b.c", "http://[::1", "javascript:alert(1)"):
        assert urls.fetchable_url(junk) == ""
