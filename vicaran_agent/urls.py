"""URL helpers: a stable normalized key, hosts and registered domains, URLs in free text.

Every helper parses a URL the same way, and the way browsers and Jina Reader do (WHATWG) where
Python's `urlsplit` differs in ways that matter: a backslash before the query is a slash in
http(s) URLs, and dot segments (`/a/../b`, also written `%2e%2e`) are removed (RFC 3986
§5.2.4). So the host and path that are rated and deduplicated are the ones that are fetched.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, unquote_plus, urlsplit, urlunsplit

import idna

if TYPE_CHECKING:
    import tldextract

# Matched case-insensitively, as is any `utm_*` parameter.
TRACKING_PARAMS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "mc_cid",
        "mc_eid",
        "igshid",
        "yclid",
        "_ga",
        "_gl",
        "ref_src",
        "spm",
        "cmpid",
        "ocid",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HAS_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
# mailto:, javascript:, data: ... (but not `host:8080`, which is a scheme-less host and port).
_OPAQUE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:(?!//|\d)")
_URL_IN_TEXT = re.compile(
    r"https?://(?:\[[0-9a-f:.]+\][^\s<>\"`\[\]]*|[^\s<>\"`\[\]]+)", re.IGNORECASE
)
_TRAILING = ".,;:!?}>'\""
_CLOSERS = {")": "(", "]": "["}
# Schemes whose URLs browsers parse with a backslash as a slash (WHATWG "special" schemes).
_SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
_DOT = frozenset({".", "%2e"})
_DOT_DOT = frozenset({"..", ".%2e", "%2e.", "%2e%2e"})


def _new_extractor() -> tldextract.TLDExtract:
    # No suffix_list_urls and no cache_dir: the public suffix list snapshot bundled with
    # tldextract is used, so nothing is fetched over the network and nothing is written to disk.
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@functools.cache
def _extractor() -> tldextract.TLDExtract:
    """The one extractor, its suffix trie built (~0.1-0.4 s) at its first use: `warm()`."""
    extract = _new_extractor()
    extract("example.com")
    return extract


def warm() -> None:
    """Build the public suffix trie now (the agent does as it loads), not on a run's clock;
    commands that never name a site's domain never pay for it."""
    _extractor()


def _split(url: str) -> SplitResult:
    url = url.strip()
    if _OPAQUE.match(url):
        raise ValueError("not a hierarchical URL")
    if not _HAS_SCHEME.match(url):
        url = "https:" + url if url.startswith("//") else "https://" + url
    scheme, _, rest = url.partition("://")
    if scheme.lower() in _SPECIAL_SCHEMES and "\\" in rest:
        # As browsers (and Jina Reader) read it: `https://evil.example\@bbc.com/` is evil.example.
        ends = [i for i in (rest.find("?"), rest.find("#")) if i >= 0]
        cut = min(ends) if ends else len(rest)
        head = rest[:cut].replace("\\", "/")
        url = f"{scheme}://{head}{rest[cut:]}"
    return urlsplit(url)


def remove_dot_segments(path: str) -> str:
    """`path` without `.` and `..` segments (RFC 3986 §5.2.4; `%2e` counts as a dot, as in
    browsers): `/world/../../evil.example/x` is `/evil.example/x`. Linear in the path."""
    segments = path.split("/")
    if not any(s.lower() in _DOT or s.lower() in _DOT_DOT for s in segments):
        return path
    kept: list[str] = []
    last = len(segments) - 1
    for i, segment in enumerate(segments):
        lowered = segment.lower()
        if lowered in _DOT_DOT:
            if len(kept) > 1 or (kept and kept[0]):  # never above the root
                kept.pop()
        elif lowered not in _DOT:
            kept.append(segment)
            continue
        if i == last:  # `/a/..` and `/a/.` name the directory: `/` stays
            kept.append("")
    joined = "/".join(kept)
    return joined if not path.startswith("/") or joined.startswith("/") else "/" + joined


def _split_netloc(netloc: str) -> tuple[str, str, str]:
    """(userinfo, host, port) without relying on urllib's strict port parsing."""
    userinfo, _, hostport = netloc.rpartition("@")
    if hostport.startswith("["):
        host, _, rest = hostport.partition("]")
        return userinfo, host + "]", rest.removeprefix(":")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        return userinfo, hostport, ""
    return userinfo, host, port


def _ascii_host(host: str) -> str:
    """Lowercase (IDNA/punycode for unicode), no trailing dot."""
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except UnicodeError:  # idna.IDNAError is one
            host = host.casefold()
    return host.lower().rstrip(".")


def _clean_host(host: str) -> str:
    """Lowercase (IDNA/punycode for unicode), no trailing dot, no leading `www.`."""
    host = _ascii_host(host)
    while host.startswith("www.") and "." in host[4:]:
        host = host[4:]
    return host


def _clean_query(query: str) -> str:
    kept = []
    for piece in query.split("&"):
        if not piece:
            continue
        key = unquote_plus(piece.partition("=")[0])
        lowered = key.strip().lower()
        if lowered.startswith("utm_") or lowered in TRACKING_PARAMS:
            continue
        kept.append((key, piece))
    # Sort by key only (stable), so repeated keys keep their relative order.
    return "&".join(piece for _, piece in sorted(kept, key=lambda item: item[0]))


def _scheme_netloc(parts: SplitResult, tidy_host: Callable[[str], str]) -> tuple[str, str]:
    """(lowercase scheme, netloc with the host tidied and a default port dropped)."""
    scheme = parts.scheme.lower()
    userinfo, host, port = _split_netloc(parts.netloc)
    host = tidy_host(host)
    if port.isdigit() and int(port) == _DEFAULT_PORTS.get(scheme):
        port = ""
    return scheme, (userinfo + "@" if userinfo else "") + host + (":" + port if port else "")


def normalize_url(url: str) -> str:
    """A stable key for `url`: same page, same string. Never raises."""
    if not url or not url.strip():
        return ""
    try:
        parts = _split(url)
        scheme, netloc = _scheme_netloc(parts, _clean_host)
        path = remove_dot_segments(parts.path).rstrip("/")
        return urlunsplit((scheme, netloc, path, _clean_query(parts.query), ""))
    except (ValueError, TypeError):
        return url.strip()


def fetchable_url(url: str) -> str:
    """The address to fetch for `url`: the page `normalize_url(url)` names. "" if unusable.

    Parsed as `normalize_url` parses it (backslashes, dot segments, IDNA host, no fragment, no
    default port), so what is read is what is rated and deduplicated; but `www.`, the query and
    a trailing slash are kept as written, because a server may tell those apart.
    """
    if not url or not url.strip():
        return ""
    try:
        parts = _split(url)
        scheme, netloc = _scheme_netloc(parts, _ascii_host)
        return urlunsplit((scheme, netloc, remove_dot_segments(parts.path), parts.query, ""))
    except (ValueError, TypeError):
        return ""


def host_of(url: str) -> str:
    """Lowercase host without `www.`, port or IPv6 brackets ("" when there is none)."""
    if not url or not url.strip():
        return ""
    try:
        _, host, _ = _split_netloc(_split(url).netloc)
    except ValueError:
        return ""
    return _clean_host(host).strip("[]")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def domain_of(url: str) -> str:
    """The registered domain (`news.bbc.co.uk` -> `bbc.co.uk`); the host for IPs and localhost."""
    host = host_of(url)
    if not host or "." not in host or _is_ip(host):
        return host
    return _extractor()(host).top_domain_under_public_suffix or host


def domain_matches(url_or_domain: str, patterns: list[str]) -> bool:
    """True when the host equals a pattern or is a subdomain of one."""
    host = host_of(url_or_domain)
    if not host:
        return False
    for pattern in patterns:
        wanted = host_of(pattern.strip().removeprefix("*.").lstrip("."))
        if wanted and (host == wanted or host.endswith("." + wanted)):
            return True
    return False


def _trim(candidate: str) -> str:
    """Drop trailing punctuation and unbalanced closing brackets (linear: counted once)."""
    unmatched = {c: candidate.count(c) - candidate.count(o) for c, o in _CLOSERS.items()}
    end = len(candidate)
    while end:
        last = candidate[end - 1]
        if last in _TRAILING:
            end -= 1
        elif unmatched.get(last, 0) > 0:
            unmatched[last] -= 1
            end -= 1
        else:
            break
    return candidate[:end]


def extract_urls(text: str, limit: int = 10) -> list[str]:
    """http(s) URLs in free text, as written, deduplicated by `normalize_url`, in order."""
    return [url for _, url in find_urls(text, limit)]


def find_urls(text: str, limit: int = 10) -> list[tuple[int, str]]:
    """(offset, URL) of the http(s) URLs in free text, as `extract_urls` finds them."""
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    if limit <= 0 or not text:
        return found
    for match in _URL_IN_TEXT.finditer(text):
        url = _trim(match.group(0))
        key = normalize_url(url)
        if not host_of(url) or key in seen:
            continue
        seen.add(key)
        found.append((match.start(), url))
        if len(found) >= limit:
            break
    return found


_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")
_URL_STOPS = frozenset('<>"`')


def unsupported_urls(text: str) -> list[str]:
    """Addresses in free text whose scheme Vicaran cannot read (ftp://, file://, …), in order.

    A linear scan: each "://" is found once, its scheme read backwards (at most 32 characters)
    and its address forwards to the next space.
    """
    found: list[str] = []
    at = text.find("://")
    while at != -1:
        start = at
        while start > 0 and at - start < 32 and text[start - 1].lower() in _SCHEME_CHARS:
            start -= 1
        end = at + 3
        while end < len(text) and not text[end].isspace() and text[end] not in _URL_STOPS:
            end += 1
        scheme = text[start:at].lower()
        if scheme[:1].isalpha() and scheme not in ("http", "https"):
            url = _trim(text[start:end])
            if url not in found:
                found.append(url)
        at = text.find("://", end)
    return found


# A document (or a passage of it) has no web address: `doc://<id>/p<page>/<passage>` names it.
DOCUMENT_SCHEME = "doc"


def document_url(document_id: str, page: int | None = None, passage_id: int | None = None) -> str:
    """The identity of a document (or of one passage of it) among sources and evidence."""
    url = f"{DOCUMENT_SCHEME}://{document_id}"
    if page is not None:
        url += f"/p{page}"
        if passage_id is not None:
            url += f"/{passage_id}"
    return url


def is_document_url(url: str) -> bool:
    return url.startswith(f"{DOCUMENT_SCHEME}://")
