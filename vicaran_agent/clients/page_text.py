"""What a page's answer says: Reader's text and JSON formats, the charset, the readable text and
date trafilatura extracts; run in the parse pool's workers (`page_reader` fetches the page).
"""

from __future__ import annotations

import codecs
import json
import re
import string
import unicodedata
from dataclasses import dataclass
from typing import Any

import httpx

from .content import blocked_reason, clip_text, publication_date, read_html

TEXT_LIMIT = 5000


_JINA_FIELDS = frozenset({"Title", "URL Source", "Published Time", "Warning", "Number of Pages"})


_TARGET_ERROR = "target url returned error "


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # keeps positions


# One character class, no quantifier: each search is a linear scan for the next stop.
_DESTINATION_STOP = re.compile(r"[()\n]")


_CHARSET_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.:-")


# Text codecs whose decoders are quadratic in the input (punycode inserts char by char).
_REFUSED_CODECS = frozenset({"punycode", "idna"})


class Failed(Exception):
    """A step failed; `reason` is the technical part after "Jina Reader:"/"direct fetch:",
    `kind` what it means for a journalist (`UNREAD_KINDS`: the site could not be found, it
    refused automated reading, ...)."""

    def __init__(
        self,
        reason: str,
        *,
        retry: bool = False,
        retry_after: float | None = None,
        kind: str = "other",
    ):
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.retry_after = retry_after
        self.kind = kind


# Why a page could not be read, in a journalist's words (messages `unread_<kind>`).
UNREAD_KINDS = (
    "no_site",
    "no_connection",
    "refused",
    "missing",
    "server_error",
    "slow",
    "not_a_page",
    "empty",
    "private",
    "redirects",
    "damaged",
    "other",
)


def status_kind(status: int) -> str:
    """What an HTTP status a site answered means for whoever wanted the page."""
    if status in (404, 410):
        return "missing"
    if status >= 500:
        return "server_error"
    return "refused"


@dataclass
class Page:
    title: str
    text: str
    published_at: str | None


def is_json(response: httpx.Response) -> bool:
    return "json" in response.headers.get("content-type", "").lower()


def _decode(body: bytes, charset: str | None) -> str:
    """`body` as text in `charset` (UTF-8 when unknown, unusable or slow to decode)."""
    encoding = "utf-8"
    if charset:
        try:
            if codecs.lookup(charset).name not in _REFUSED_CODECS:
                encoding = charset
        except (LookupError, ValueError):  # unknown, or a malformed name
            pass
    try:
        return body.decode(encoding, errors="replace")
    except (LookupError, ValueError):  # a codec that is not a text encoding
        return body.decode("utf-8", errors="replace")


def page_from_jina(body: bytes, charset: str | None, content_type: str | None) -> Page:
    """A Reader answer (text or JSON) as a readable page, clipped; raises Failed. CPU work."""
    text = _decode(body, charset)
    if "json" in (content_type or ""):
        page, warnings = _parse_jina_json(text)
    else:
        page, warnings = _parse_jina_text(text)
    for warning in warnings:
        if (answered := _target_error(warning)) is not None:
            status = int(answered[:3]) if answered[:3].isdigit() else 0
            raise Failed(f"the site answered {answered}", kind=status_kind(status))
        if "captcha" in warning.lower():
            raise Failed("blocked page: captcha", kind="refused")
    return _readable(page)


def _target_error(warning: str) -> str | None:
    """The status in Reader's "Target URL returned error 404: Not Found" ("404 Not Found")."""
    lowered = warning.translate(_ASCII_LOWER)
    start = lowered.find(_TARGET_ERROR)
    while start >= 0:
        at = start + len(_TARGET_ERROR)
        code = warning[at : at + 3]  # (no slice of the rest per occurrence: that is quadratic)
        if len(code) == 3 and code.isdigit():
            detail = warning[at + 4 :].strip() if warning[at + 3 : at + 4] == ":" else ""
            return f"{code} {detail}" if detail else code
        start = lowered.find(_TARGET_ERROR, start + 1)
    return None


def _parse_jina_text(text: str) -> tuple[Page, list[str]]:
    """Reader's text format: header lines, then "Markdown Content:" and the body."""
    head, marker, content = text.partition("Markdown Content:\n")
    if not marker:
        head, content = "", text
    fields: dict[str, str] = {}
    warnings: list[str] = []
    for line in head.splitlines():
        name, colon, value = line.partition(":")
        if not colon or name not in _JINA_FIELDS:
            continue
        value = value.strip()
        if name == "Warning":
            warnings.append(value)
        else:
            fields.setdefault(name, value)
    # A bare Published Time line may be the server's Last-Modified: the text has no metadata
    # to say otherwise, so the date is unknown.
    page = Page(title=fields.get("Title", ""), text=_plain_markdown(content), published_at=None)
    return page, warnings


def _parse_jina_json(text: str) -> tuple[Page, list[str]]:
    try:
        payload: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        raise Failed("unreadable JSON answer") from exc
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict):
        raise Failed("answer without data")
    warning = str(data.get("warning") or "")
    page = Page(
        title=str(data.get("title") or ""),
        text=_plain_markdown(str(data.get("content") or data.get("text") or "")),
        # the page's meta tags decide; `publishedTime` agrees with them or is Last-Modified
        published_at=publication_date(_meta_pairs(data.get("metadata"))),
    )
    return page, [w for w in warning.splitlines() if w.strip()]


def _meta_pairs(metadata: Any) -> list[tuple[str, str]]:
    """Reader's `metadata` ({name or property: content, or a list of them}) as pairs."""
    if not isinstance(metadata, dict):
        return []
    pairs: list[tuple[str, str]] = []
    for name, value in metadata.items():
        for content in value if isinstance(value, list) else [value]:
            if isinstance(name, str) and isinstance(content, str):
                pairs.append((name, content))
    return pairs


def _plain_markdown(markdown: str) -> str:
    """Markdown with images dropped and links reduced to their text (saves the text budget).

    Two linear passes of `_strip_links` (images first, so `[![alt](src)](href)` goes too).
    """
    return _strip_links(_strip_links(markdown, images=True), images=False).strip()


def _strip_links(text: str, *, images: bool) -> str:
    """`![alt](dest)` removed (images=True), or `[label](dest)` replaced by its label.

    A hand-written single left-to-right pass, linear in `text` whatever it holds: each `](` is
    looked at once; its label is searched backwards no further than the previous `](` (a label
    holds no `]`); a destination is scanned forwards from where the last scan stopped. The
    destination allows one level of parentheses (`Foo_(bar)`) and no line break; one that never
    closes is kept as text, together with anything inside it.
    """
    out: list[str] = []
    emitted = 0  # text[:emitted] is decided
    floor = 0  # a label starts at or after this
    search = 0
    while (close := text.find("](", search)) >= 0:
        opening = text.rfind("[", max(floor, emitted), close)
        floor = search = close + 2
        if opening < 0 or text.find("]", opening + 1, close) >= 0:
            continue  # no `[` since the previous `](`, or a `]` in the label: not a link
        is_image = opening > 0 and text[opening - 1] == "!"
        if is_image != images:
            continue  # the other pass's business
        closed, stop = _destination_end(text, close + 2)
        if not closed:
            search = max(search, stop)
            continue
        out.append(text[emitted : opening - 1 if images else opening])
        if not images:
            out.append(text[opening + 1 : close])
        emitted = floor = search = stop + 1
    out.append(text[emitted:])
    return "".join(out)


def _destination_end(text: str, start: int) -> tuple[bool, int]:
    """(True, index of the `)` closing a destination that starts at `start`), or (False,
    where it stopped being one: a line break, a second level of parentheses, the end)."""
    nested = False
    position = start
    while (stop := _DESTINATION_STOP.search(text, position)) is not None:
        index = stop.start()
        char = text[index]
        if char == ")":
            if not nested:
                return True, index
            nested = False
        elif char == "(" and not nested:
            nested = True
        else:
            return False, index
        position = index + 1
    return False, len(text)


def _meta_charset(head: bytes) -> str | None:
    """The charset named by a `<meta ... charset=...>` tag in `head`; linear, no regex."""
    for piece in head.split(b"<")[1:]:
        if piece[:4].lower() != b"meta":
            continue
        tag = piece.split(b">", 1)[0].lower()
        at = tag.find(b"charset=")
        if at < 0:
            continue
        value = tag[at + len(b"charset=") :].lstrip(b"\"' ")[:40]
        end = next((i for i, byte in enumerate(value) if byte not in _CHARSET_CHARS), len(value))
        if end:
            return value[:end].decode("ascii")
    return None


def _extract(body: bytes, charset: str | None, media: str, url: str) -> Page:
    document = _decode(body, charset or _meta_charset(body[:4096]))
    if media == "text/plain":
        return Page(title="", text=document.strip(), published_at=None)
    title, text, published = read_html(document, url)
    return Page(title=title, text=text, published_at=published)


def page_from_html(body: bytes, charset: str | None, media: str, url: str) -> Page:
    """A direct fetch's body as a readable page, clipped; raises Failed. CPU work."""
    return _readable(_extract(body, charset, media, url))


def _readable(page: Page) -> Page:
    """`page` if it reads as a page (raises Failed if not), its text clipped to the budget."""
    _check_readable(page)
    page.text = clip_text(page.text, TEXT_LIMIT)
    return page


def _check_readable(page: Page) -> None:
    if _looks_binary(page.text):
        raise Failed("binary content, not a readable page", kind="not_a_page")
    reason = blocked_reason(page.text)
    if reason:
        raise Failed(reason, kind="refused" if reason.startswith("blocked") else "empty")


def _looks_binary(text: str) -> bool:
    sample = text[:4000]
    if not sample:
        return False
    odd = sum(
        1
        for c in sample
        if c == "\ufffd" or (unicodedata.category(c) in ("Cc", "Co", "Cn") and c not in "\n\r\t")
    )
    return odd / len(sample) > 0.05
