"""Markdown that any renderer shows as written: untrusted text escaped, only saved sources linked.

The Markdown export is read by whatever renders Markdown (GitHub, an editor, a CMS, Markdown.pl),
so nothing in it may become markup there:
- `<`, `>` and `&` are written as `&lt;`, `&gt;` and `&amp;` (every Markdown flavour decodes
  them as text; a backslash before `<` is not an escape everywhere), and Markdown's inline
  punctuation is backslash-escaped, so no tag, emphasis, link or image can be formed;
- a web address that is not one of `allowed` (the investigation's saved sources) is shown in a
  code span, never bare (renderers autolink bare addresses) and never as a link;
- images are never written (a remote image is a beacon): their text is kept.

`inline` escapes one field (a title, a quote, a note). `report` re-writes the report's own
Markdown: it is parsed with markdown-it-py (CommonMark, linear time, raw HTML off) and written
back by mdformat's renderer, with the text, links and images rendered here.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from types import SimpleNamespace
from typing import Any

from markdown_it import MarkdownIt
from mdformat.renderer import DEFAULT_RENDERERS, MDRenderer, RenderContext, RenderTreeNode

from .formatting import one_line
from .markdown_html import _Links

# A scheme URL or a bare www. host (what renderers autolink); one character class: linear.
_ADDRESS = re.compile(r"(?:https?://|www\.)[^\s<>\"'`\[\]]+", re.IGNORECASE)
_TRAILING = ".,;:!?*_)"
_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "|": "\\|",
        "~": "\\~",
        "!": "\\!",
    }
)
_CONTROL = {c: None for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)}
_BLOCK_START = frozenset("#+-=")  # a field that starts a line must not start a block
_ENV_LINKS = "vicaran_links"

_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_PARSER.disable(["reference", "html_block", "html_inline"])


def inline(text: Any, links: Collection[str] = (), limit: int | None = None) -> str:
    """`text` on one line as inline Markdown that shows exactly it, whatever renders it.

    `links`: addresses that may stay bare (saved sources); every other address goes in a code
    span. `limit`: cut to that many characters first (with "…").
    """
    line = " ".join(str(text or "").translate(_CONTROL).split())
    if limit is not None:
        line = one_line(line, limit)
    escaped = _escape(line, _Links(list(links)) if links else _Links([]))
    if escaped[:1] in _BLOCK_START:
        escaped = "\\" + escaped
    number = len(escaped) - len(escaped.lstrip("0123456789"))
    if number and escaped[number : number + 1] in (".", ")"):  # "1. x" would start a list
        escaped = escaped[:number] + "\\" + escaped[number:]
    return escaped


def code(text: str) -> str:
    """`text` as a code span (shown literally by every renderer)."""
    ticks = "`" * (_longest_run(text, "`") + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


def link(url: str, links: Collection[str] = ()) -> str:
    """A record's own address: an autolink when it is one of `links`, else a code span."""
    url = url.strip()
    if url and _Links(list(links)).allows(url) and not any(c in url for c in "<> \t\n"):
        return f"<{url}>"
    return code(url)


def report(markdown: str, links: Collection[str]) -> str:
    """The report's Markdown with every text escaped, links only to `links`, no images."""
    tokens = _PARSER.parse((markdown or "").translate(_CONTROL))
    options = {
        **_PARSER.options,
        "mdformat": {"wrap": "keep", "number": False},
        "parser_extension": [SimpleNamespace(RENDERERS=_RENDERERS)],
    }
    env = {_ENV_LINKS: _Links(list(links))}
    return MDRenderer().render(tokens, options, env, finalize=False).strip()


# --- rendering -------------------------------------------------------------------------------


def _escape(text: str, links: _Links, *, bare: bool = True) -> str:
    """Plain text escaped, each address in it kept bare (when allowed) or put in a code span."""
    out: list[str] = []
    start = 0
    for match in _ADDRESS.finditer(text):
        url = match.group(0).rstrip(_TRAILING)
        end = match.start() + len(url)
        out.append(_escape_plain(text[start : match.start()]))
        out.append(url if bare and links.allows(url) else code(url))
        start = end
    out.append(_escape_plain(text[start:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    """Markdown and HTML escaped; `[` and `]` only where they could open a link or definition
    (so a citation `[1]` stays as written)."""
    text = text.translate(_ESCAPES)
    if "]" not in text:
        return text
    pieces: list[str] = []
    for index, char in enumerate(text):
        if char == "]" and text[index + 1 : index + 2] in ("(", "[", ":"):
            pieces.append("\\]")
        else:
            pieces.append(char)
    return "".join(pieces)


def _text(node: RenderTreeNode, context: RenderContext) -> str:
    text = re.sub(" {2,}", " ", node.content.replace("\t", " ").replace("\n", " "))
    inside_link = _in_link(node)
    return _escape(text, context.env[_ENV_LINKS], bare=not inside_link)


def _link(node: RenderTreeNode, context: RenderContext) -> str:
    href = node.attrs.get("href")
    href = href if isinstance(href, str) else ""
    links: _Links = context.env[_ENV_LINKS]
    if links.allows(href):
        return DEFAULT_RENDERERS["link"](node, context)
    if node.info == "auto":
        return code(_PARSER.normalizeLinkText(href))
    text = "".join(child.render(context) for child in node.children)
    return f"{text} ({code(_PARSER.normalizeLinkText(href))})"


def _image(node: RenderTreeNode, context: RenderContext) -> str:
    """An image's text only: a picture from elsewhere is never loaded by a reader."""
    return "".join(child.render(context) for child in node.children)


def _in_link(node: RenderTreeNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "link":
            return True
        parent = parent.parent
    return False


def _longest_run(text: str, char: str) -> int:
    longest = current = 0
    for c in text:
        current = current + 1 if c == char else 0
        longest = max(longest, current)
    return longest


_RENDERERS = {"text": _text, "link": _link, "image": _image}
