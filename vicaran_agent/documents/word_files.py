"""DOCX (python-docx over a checked zip): paragraphs and tables, pages by their breaks."""

from __future__ import annotations

import io
import logging
import zipfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lxml import etree

from ..i18n import Phrase
from .model import DocumentError

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
from .content import (
    MAX_ZIP_MEMBERS,
    XML_PARTS,
    Content,
    Limits,
    ReadContext,
    TextBudget,
    check_pages,
    clean_title,
    size_text,
)

logger = logging.getLogger(__name__)


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


_PARAGRAPH, _TABLE, _ROW, _CELL = f"{_W}p", f"{_W}tbl", f"{_W}tr", f"{_W}tc"


_TEXT, _TAB, _BREAK, _CR = f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr"


_TAB_STOPS = f"{_W}tabs"


_CONTENT_CONTROL, _CONTROL_CONTENT = f"{_W}sdt", f"{_W}sdtContent"


_PAGE_BREAK_BEFORE, _STYLE, _VAL, _TYPE = (
    f"{_W}pageBreakBefore",
    f"{_W}pStyle",
    f"{_W}val",
    f"{_W}type",
)


_RENDERED_BREAK = f"{_W}lastRenderedPageBreak"


# What python-docx gives a package without core properties: title and last editor
# (docx.opc.parts.coreprops.CorePropertiesPart.default, python-docx 1.2).
_PYTHON_DOCX_MADE_UP = ("Word Document", "python-docx")


# Word stores a text box twice: for today's readers (mc:Choice) and old ones (mc:Fallback).
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


class _PageBreak:
    """A hard page break (`<w:br w:type="page"/>` or `pageBreakBefore`) in a DOCX's text."""


_BREAK_MARK = _PageBreak()


def read_docx_file(data: bytes, name: str, context: ReadContext) -> Content:
    """Paragraphs and tables in order, split into pages (see `_docx_content`)."""
    _check_zip(data, name, context.limits)
    from docx import Document  # imported here: python-docx costs ~0.1 s to import

    try:
        document = Document(io.BytesIO(data))
        return _docx_content(document, name, context.limits)
    except DocumentError:
        raise
    except Exception as error:  # python-docx and lxml fail in many ways on damaged packages
        logger.debug("python-docx could not read %s", name, exc_info=True)
        raise DocumentError(Phrase("document_corrupt", name=name, kind="DOCX")) from error


def _check_zip(data: bytes, name: str, limits: Limits) -> None:
    """Refuse a package that would unpack to far more than a document (a zip bomb), before
    anything is inflated: its XML parts (what python-docx makes trees of, at ~17 times their
    size) within `max_unpacked`, every member together within the file size limit."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = package.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise DocumentError(Phrase("document_corrupt", name=name, kind="DOCX")) from None
    # zipfile stops reading a member at its declared size, so the declared sizes bound the work
    xml = sum(m.file_size for m in members if m.filename.lower().endswith(XML_PARTS))
    if len(members) > MAX_ZIP_MEMBERS or xml > limits.max_unpacked:
        limit = size_text(limits.max_unpacked, up=False)
        raise DocumentError(Phrase("document_unpacks_too_large", name=name, limit=limit))
    if sum(member.file_size for member in members) > limits.max_bytes:
        limit = size_text(limits.max_bytes, up=False)
        raise DocumentError(Phrase("document_unpacks_too_large", name=name, limit=limit))


def _docx_content(document: DocxDocument, name: str, limits: Limits) -> Content:
    """A DOCX has no pages of its own. Word records where its pages began when it last saved the
    file (`w:lastRenderedPageBreak`): when those marks are there they number the pages as the
    journalist saw them; otherwise hard page breaks do; with neither, the text is one page."""
    styles = {style.style_id: (style.name or "") for style in document.styles}
    body = document.element.body
    for fallback in list(body.iter(_FALLBACK)):
        fallback.getparent().remove(fallback)
    rendered = next(body.iter(_RENDERED_BREAK), None) is not None
    pages: list[list[str]] = [[]]
    first_heading = ""
    for block in _docx_blocks(body, rendered):
        if block is _BREAK_MARK:
            pages.append([])
            check_pages(len(pages), name, limits)  # stops at the first page past the limit
        elif isinstance(block, tuple):
            line, style_id = block
            pages[-1].append(line)
            if not first_heading and line.strip() and _is_heading(styles.get(style_id, "")):
                first_heading = clean_title(line)
    content = Content(len(pages), TextBudget(limits), first_heading=first_heading)
    content.metadata_title = clean_title(_docx_title(document))
    for number, lines in enumerate(pages, start=1):
        if content.full:
            content.not_read(number, len(pages))
            break
        content.add(number, "\n".join(lines).strip())
    return content


def _docx_title(document: DocxDocument) -> str:
    """The title in the file's properties (docProps/core.xml); "" for the one python-docx makes
    up for a file without them (and saves, if the file is saved again)."""
    properties = document.core_properties
    if (properties.title, properties.last_modified_by) == _PYTHON_DOCX_MADE_UP:
        return ""
    return properties.title or ""


def _is_heading(style_name: str) -> bool:
    name = style_name.lower()
    return name.startswith("heading") or name == "title"


def _docx_blocks(
    container: etree._Element, rendered: bool
) -> Iterator[tuple[str, str] | _PageBreak]:
    """(line, style id) per paragraph and per table row, and page breaks, in document order.

    `rendered`: the page breaks are Word's rendered ones, else the hard ones.
    """
    for child in container:
        tag = child.tag
        if tag == _PARAGRAPH:
            yield from _docx_paragraph(child, rendered)
        elif tag == _TABLE:
            for row in child.iterchildren(_ROW):
                cells = (_plain_text(cell) for cell in row.iterchildren(_CELL))
                yield " | ".join(cells), ""
        elif tag == _CONTENT_CONTROL:
            for inner in child.iterchildren(_CONTROL_CONTENT):
                yield from _docx_blocks(inner, rendered)


def _docx_paragraph(
    paragraph: etree._Element, rendered: bool
) -> Iterator[tuple[str, str] | _PageBreak]:
    style = paragraph.find(f"{_W}pPr/{_STYLE}")
    style_id = style.get(_VAL, "") if style is not None else ""
    if not rendered and paragraph.find(f"{_W}pPr/{_PAGE_BREAK_BEFORE}") is not None:
        yield _BREAK_MARK
    pieces: list[str] = []
    elements = paragraph.iter(_TEXT, _TAB, _BREAK, _CR, _RENDERED_BREAK)
    for element in elements:
        tag = element.tag
        if tag == _TEXT:
            pieces.append(element.text or "")
        elif tag == _TAB:
            if element.getparent().tag != _TAB_STOPS:  # a tab stop's definition is no tab
                pieces.append("\t")
        elif (tag == _RENDERED_BREAK) if rendered else (element.get(_TYPE) == "page"):
            yield "".join(pieces), style_id
            yield _BREAK_MARK
            pieces = []
        elif tag != _RENDERED_BREAK:
            pieces.append("\n")
    yield "".join(pieces), style_id


def _plain_text(cell: etree._Element) -> str:
    """A table cell's text on one line (nested tables included)."""
    texts = (element.text or "" for element in cell.iter(_TEXT))
    return " ".join("".join(texts).split())
