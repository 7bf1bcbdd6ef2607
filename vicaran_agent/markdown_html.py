"""The investigation summary's Markdown as safe HTML, through a CommonMark parser.

Parsing is markdown-it-py (CommonMark, linear time on any input, raw HTML disabled: `<...>` is
shown as text). On top of it, in code, after parsing:
- no raw HTML and no images ever; indented code blocks and link reference definitions are off
  (a `[1]: https://...` line in model prose cannot turn citations into links);
- `[N]` citations link to `#source-N`;
- a link is made only to an http(s) URL, and with `allowed_links` only to one of those URLs
  (matched as written or after `normalize_url`): every other URL, bare or in `[text](url)` or
  `<url>` syntax, is shown as escaped text inside `<span class="url">`, never as a link;
- `relink` may send a URL elsewhere first (the caller's own address for it, e.g. a snapshot's
  path on this server or its anchor in an exported page): then it links there, shown as written;
- headings are shifted by `heading_offset` (`#` is `<h1>` at 0, `<h3>` at 2; never past `<h6>`);
- a line break inside a paragraph is kept (`<br>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .urls import normalize_url

_MD = MarkdownIt(
    "commonmark",
    {"html": False, "linkify": False, "typographer": False, "breaks": True, "xhtmlOut": False},
).disable(["image", "reference", "html_block", "html_inline", "code"])

# Bare URLs and citations in text: single character classes, linear time on any input.
_BARE = re.compile(r"https?://[^\s<>\"'`\x00-\x1f\x7f]+", re.IGNORECASE)
_HTTP = re.compile(r"https?://[^/?#\s]", re.IGNORECASE)
_CITATION = re.compile(r"\[(\d{1,4})((?:, pp?\. [\d, ]{1,60})?)\]")  # [N] or [N, p. 4]
_TRAILING = frozenset(".,;:!?*_")
_CONTROL = {c: None for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)}
_REL = "noopener noreferrer"


def render_markdown(
    text: str,
    *,
    heading_offset: int = 0,
    allowed_links: Collection[str] | None = None,
    relink: Callable[[str], str | None] | None = None,
) -> str:
    """Safe HTML for `text`.

    `heading_offset=2` turns `#` into `<h3>` (for use inside a page). `allowed_links`: the only
    URLs that may become links (e.g. the investigation's saved sources); None allows any
    http(s) URL. `relink(url)`: where an http(s) URL should link instead (an address the caller
    made, e.g. a path on this server), or None to judge it by `allowed_links`.
    """
    links = _Links(allowed_links, relink)
    tokens = _MD.parse((text or "").translate(_CONTROL))
    shift = max(0, heading_offset)
    for token in tokens:
        if token.type in ("heading_open", "heading_close") and shift:
            token.tag = f"h{min(6, int(token.tag[1:]) + shift)}"
        elif token.type == "inline" and token.children:
            token.children = _inline(token.children, links)
    return _MD.renderer.render(tokens, _MD.options, {}).strip()


class _Links:
    """Which URLs may be linked."""

    def __init__(
        self, allowed: Collection[str] | None, relink: Callable[[str], str | None] | None = None
    ) -> None:
        self.relink = relink
        self.any = allowed is None
        self.exact: set[str] = set()
        self.normalized: set[str] = set()
        self._seen: dict[str, bool] = {}  # a report repeats its URLs
        for url in allowed or ():
            if url and _is_http(url):
                self.exact.update((url, _MD.normalizeLink(url)))
                self.normalized.add(normalize_url(url))

    def target(self, url: str) -> str | None:
        """Where a link to `url` goes: its `relink` address, else `url` when allowed, else None."""
        if self.relink is not None and _is_http(url) and (moved := self.relink(url)):
            return moved
        return url if self.allows(url) else None

    def allows(self, url: str) -> bool:
        if not _is_http(url):
            return False
        if self.any or url in self.exact:
            return True
        if url not in self._seen:
            self._seen[url] = normalize_url(url) in self.normalized or (
                normalize_url(_MD.normalizeLinkText(url)) in self.normalized
            )
        return self._seen[url]


def _is_http(url: str) -> bool:
    return _HTTP.match(url) is not None


def _inline(children: Sequence[Token], links: _Links) -> list[Token]:
    """The inline tokens with links checked and bare URLs and citations turned into markup."""
    out: list[Token] = []
    # For each open link: None when it is kept as a link, else what to show at its close.
    stack: list[list[Token] | None] = []
    skip_autolink_text = False
    for token in children:
        if token.type == "link_open":
            href = token.attrGet("href")
            href = href if isinstance(href, str) else ""
            if (target := links.target(href)) is not None:
                token.attrSet("href", target)
                token.attrSet("rel", _REL)
                out.append(token)
                stack.append(None)
            elif token.markup == "autolink":  # <url>: show the URL itself, as text
                out.extend(_url_span(_MD.normalizeLinkText(href)))
                stack.append([])
                skip_autolink_text = True
            else:  # [text](url): the text, then the URL as text
                url = _url_span(_MD.normalizeLinkText(href))
                stack.append([_text(" ("), *url, _text(")")])
        elif token.type == "link_close":
            after = stack.pop() if stack else None
            if after is None:
                out.append(token)
            else:
                out.extend(after)
            skip_autolink_text = False
        elif token.type == "text":
            if skip_autolink_text:
                continue
            if any(kept is None for kept in stack):  # inside a link: no links in links
                out.append(token)
            else:
                out.extend(_marked_up(token.content, links))
        else:
            out.append(token)
    return out


def _marked_up(text: str, links: _Links) -> list[Token]:
    """`text` as tokens: plain text, and HTML for bare URLs and `[N]` citations."""
    out: list[Token] = []
    start = 0
    for match in _BARE.finditer(text):
        url = _trimmed(match.group(0))
        out.extend(_cited(text[start : match.start()]))
        if (target := links.target(url)) is not None:
            out += _element("link", "a", url, href=_MD.normalizeLink(target), rel=_REL)
        else:
            out += _url_span(url)
        start = match.start() + len(url)
    out.extend(_cited(text[start:]))
    return out


def _trimmed(url: str) -> str:
    """`url` without the punctuation that ends the sentence or a parenthesis around it."""
    opened, closed = url.count("("), url.count(")")
    end = len(url)
    while end > 0:
        last = url[end - 1]
        if last in _TRAILING:
            end -= 1
        elif last == ")" and closed > opened:
            closed -= 1
            end -= 1
        else:
            break
    return url[:end]


def _cited(text: str) -> list[Token]:
    """Plain text with `[N]` turned into links to `#source-N`."""
    out: list[Token] = []
    start = 0
    for match in _CITATION.finditer(text):
        if match.start() > start:
            out.append(_text(text[start : match.start()]))
        n = int(match.group(1))
        out += _element(
            "link", "a", f"[{n}{match.group(2)}]", href=f"#source-{n}", **{"class": "cite"}
        )
        start = match.end()
    if start < len(text):
        out.append(_text(text[start:]))
    return out


def _url_span(url: str) -> list[Token]:
    """A URL shown as text, never a link."""
    return _element("url", "span", url, **{"class": "url"})


def _element(kind: str, tag: str, text: str, **attrs: str) -> list[Token]:
    """`<tag attrs>text</tag>` as tokens: the renderer escapes the text and every value."""
    return [
        Token(f"{kind}_open", tag, 1, attrs=attrs),
        _text(text),
        Token(f"{kind}_close", tag, -1),
    ]


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)
