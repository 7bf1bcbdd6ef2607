"""A tiny, safe Markdown subset for the investigation summary.

Everything is HTML-escaped first; only these are then recognised: headings (`#` to `###`),
`**bold**`, `*italics*`, ordered and unordered lists, paragraphs (a line break inside one is
kept), `[N]` citations (links to `#source-N`) and bare http(s) URLs. No raw HTML, no other
link syntax, so no `javascript:` URL can ever be produced.
"""

from __future__ import annotations

import html
import re

_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
_ORDERED = re.compile(r"^(\d{1,9})[.)]\s+(.*)$")
_UNORDERED = re.compile(r"^[-*+]\s+(.*)$")
# Runs on escaped text: a URL ends before whitespace or an escaped <, >, " or '.
_URL = re.compile(r"https?://(?:(?!&lt;|&gt;|&quot;|&#x27;)\S)+")
_TRAILING = ".,;:!?*_"
_CITATION = re.compile(r"\[(\d{1,4})\]")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(
    r"(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\*)|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"
)
_SLOT = re.compile("\x00(\\d+)\x00")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def render_markdown(text: str, *, heading_offset: int = 0) -> str:
    """Safe HTML for `text`; `heading_offset=2` turns `#` into `<h3>` (for use inside a page)."""
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    kind = ""  # the open list: "ol", "ul" or ""
    start = 1

    def flush() -> None:
        nonlocal kind
        if paragraph:
            blocks.append("<p>" + "<br>\n".join(paragraph) + "</p>")
            paragraph.clear()
        if items:
            first = f' start="{start}"' if kind == "ol" and start != 1 else ""
            body = "".join(f"<li>{item}</li>" for item in items)
            blocks.append(f"<{kind}{first}>{body}</{kind}>")
            items.clear()
        kind = ""

    for raw in _CONTROL.sub("", text or "").splitlines():
        line = raw.strip()
        heading = _HEADING.match(line)
        ordered = _ORDERED.match(line)
        unordered = _UNORDERED.match(line)
        if not line:
            if paragraph:  # a list stays open across blank lines
                flush()
        elif heading:
            flush()
            level = min(6, len(heading.group(1)) + max(0, heading_offset))
            blocks.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif (item := ordered or unordered) is not None:
            wanted = "ol" if ordered else "ul"
            if paragraph or kind != wanted:
                flush()
                kind = wanted
                start = int(ordered.group(1)) if ordered else 1
            items.append(_inline(item.group(item.lastindex or 1)))
        else:
            if items:
                flush()
            paragraph.append(_inline(line))
    flush()
    return "\n".join(blocks)


def _inline(text: str) -> str:
    """Escape `text`, then add links, citations, bold and italics."""
    escaped = html.escape(text, quote=True)
    links: list[str] = []

    def link(match: re.Match[str]) -> str:
        url = match.group(0)
        tail = ""
        while url and (
            url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))
        ):
            tail = url[-1] + tail
            url = url[:-1]
        links.append(f'<a href="{url}" rel="noopener noreferrer">{url}</a>')
        return f"\x00{len(links) - 1}\x00{tail}"

    escaped = _URL.sub(link, escaped)
    escaped = _CITATION.sub(
        lambda m: f'<a href="#source-{int(m.group(1))}" class="cite">[{int(m.group(1))}]</a>',
        escaped,
    )
    escaped = _BOLD.sub(lambda m: f"<strong>{m.group(1) or m.group(2)}</strong>", escaped)
    escaped = _ITALIC.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", escaped)
    return _SLOT.sub(lambda m: links[int(m.group(1))], escaped)
