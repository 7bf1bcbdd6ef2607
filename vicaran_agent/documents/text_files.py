"""HTML, Markdown and plain text: decoded with their declared or detected charset, titled by
their first heading.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import charset_normalizer
import lxml.html
from markdown_it import MarkdownIt

from ..clients.content import read_html
from ..i18n import Phrase
from .model import DocumentError

if TYPE_CHECKING:
    pass
from .content import (
    CHARSET,
    COHERENCE_TIE,
    HEADING_SCAN_CHARS,
    WESTERN,
    Content,
    ReadContext,
    TextBudget,
    check_pages,
    clean_title,
    first_line,
)

logger = logging.getLogger(__name__)


def read_html_file(data: bytes, name: str, context: ReadContext) -> Content:
    html = _decode(data, name, declared=True)
    page = read_html(html)
    title, heading = _html_title_and_heading(html)
    content = Content(
        1,
        TextBudget(context.limits),
        metadata_title=title or clean_title(page.title),
        first_heading=heading,
    )
    content.add(1, page.text)
    return content


def _html_title_and_heading(html: str) -> tuple[str, str]:
    """The <title> and the first <h1> (else <h2>) of a page; "" for what it lacks."""
    try:
        parser = lxml.html.HTMLParser(encoding="utf-8")
        root = lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=parser)
        found = root.xpath("(//title)[1] | (//h1)[1] | (//h2)[1]")
    except Exception:  # lxml failing on hostile input: no title, the text was read already
        logger.debug("lxml could not find the title of an HTML file", exc_info=True)
        return "", ""
    texts = {element.tag: clean_title(element.text_content()) for element in found}
    return texts.get("title", ""), texts.get("h1") or texts.get("h2", "")


def read_markdown_file(data: bytes, name: str, context: ReadContext) -> Content:
    text = _decode(data, name)
    heading = _markdown_heading(text[:HEADING_SCAN_CHARS])
    content = Content(1, TextBudget(context.limits), first_heading=heading)
    content.add(1, text)
    return content


def _markdown_heading(text: str) -> str:
    """The first level-1 heading (`# Title`), else the first heading of any level."""
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [
        (token.tag, tokens[at + 1].content)
        for at, token in enumerate(tokens[:-1])
        if token.type == "heading_open"
    ]
    for tag, heading in headings:
        if tag == "h1":
            return clean_title(heading)
    return clean_title(headings[0][1]) if headings else ""


def read_text_file(data: bytes, name: str, context: ReadContext) -> Content:
    """Plain text: one page, or a page per form feed (pdftotext and printers mark pages so)."""
    pieces = _decode(data, name).split("\f")
    if pieces and not pieces[-1].strip():
        pieces.pop()  # a file that ends with a form feed has no page after it
    check_pages(len(pieces), name, context.limits)
    content = Content(max(len(pieces), 1), TextBudget(context.limits))
    for number, piece in enumerate(pieces, start=1):
        if content.full:
            content.not_read(number, len(pieces))
            break
        content.add(number, piece)
    if content.pages and content.pages[0].number == 1:
        content.first_heading = first_line(content.pages[0].text)
    return content


def _decode(data: bytes, name: str, *, declared: bool = False) -> str:
    """Bytes to text: a BOM, else UTF-8, else (HTML) the declared charset, else detection."""
    for bom, encoding in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            return _text(data[len(bom) :].decode(encoding, "replace"))
    try:
        return _text(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if declared and (match := CHARSET.search(data[:4096])):
        try:
            return _text(data.decode(match.group(1).decode("ascii"), "replace"))
        except LookupError:
            pass
    matches = charset_normalizer.from_bytes(data)
    best = matches.best()
    if best is None:
        raise DocumentError(Phrase("document_not_text", name=name))
    # Short Latin-script texts fit several code pages equally well; Windows-1252 (a superset of
    # Latin-1) is what Portuguese and English files in a legacy encoding almost always are.
    for match in matches:
        if (
            match.chaos <= best.chaos
            and match.coherence >= best.coherence - COHERENCE_TIE
            and WESTERN.intersection(match.could_be_from_charset)
        ):
            best = match
            break
    return _text(str(best))


def _text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\x00", "")
