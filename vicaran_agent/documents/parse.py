"""Files into pages of text, locally: PDF, DOCX, HTML, Markdown, plain text and page images.

Every file is untrusted: its size and page count are checked before it is read, a page's text
is capped, a DOCX's unpacked size is checked before it is unzipped, an image's pixels before it
is decoded, OCR runs within budgets of pages and seconds, and everything else is linear-time
library code. What one document may index is capped (`Limits`: characters and passages): past
that, its pages are not read, and each says why. Nothing is sent anywhere.

This module parses in the process that calls it. The server and `vicaran docs` call it through
`documents.pool`, in a worker process with a memory cap and a time limit (`read_in_worker`).
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
import os
import re
import stat
import threading
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

import charset_normalizer
import lxml.html
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from lxml import etree
from markdown_it import MarkdownIt

from ..config import Settings, get_settings
from ..i18n import Phrase, language_tag, text_language
from ..tools.content import read_html
from . import ocr
from .characters import path_text, storable_text
from .model import DocumentError, DocumentKind, PageText, ParsedDocument, UnreadablePage
from .passages import split_passages

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from PIL.Image import Image

logger = logging.getLogger(__name__)

SUFFIXES: dict[str, DocumentKind] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
}
MIME_TYPES: dict[str, DocumentKind] = {
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "image/png": "image",
    "image/jpeg": "image",
    "image/tiff": "image",
}

MAX_PAGE_CHARS = 200_000  # a dense printed page holds ~5,000; more is not a page of text
SCAN_TEXT_CHARS = 200  # a page with less text than this and a page-sized image is a scan
_SCAN_IMAGE_SHARE = 0.5  # ... when one image covers this share of the page
_MAX_IMAGES_LOOKED_AT = 64
MAX_RENDER_PIXELS = 40_000_000  # a page drawn for OCR (A4 at 300 dpi is 8.7 million)
IMAGE_FORMATS = ("PNG", "JPEG", "TIFF")  # the only formats Pillow is asked to open
_IMAGE_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"II*\x00",
    b"MM\x00*",
    b"II+\x00",
    b"MM\x00+",
)
MAX_ZIP_MEMBERS = 10_000
_XML_PARTS = (".xml", ".rels")  # the members python-docx parses into trees
MAX_TITLE_CHARS = 300
_HEADING_LINE_CHARS = 150  # a first line longer than this is not a heading
_HEADING_SCAN_CHARS = 100_000  # a Markdown file's first heading is looked for this far
_LANGUAGE_SAMPLE_CHARS = 20_000

# PDFium is not thread-safe: calls into it from different threads take turns.
_PDFIUM_LOCK = threading.RLock()

_JUNK_TITLES = frozenset({"untitled", "sem título", "sem titulo", "title", "document", "documento"})
_JUNK_TITLE_SUFFIXES = (".doc", ".docx", ".pdf", ".odt", ".rtf", ".txt", ".xls", ".xlsx", ".tmp")
_JUNK_TITLE_PREFIXES = ("microsoft word - ", "microsoft powerpoint - ", "microsoft excel - ")
_WESTERN = frozenset({"cp1252", "latin_1", "iso8859_15"})
_COHERENCE_TIE = 0.02
_CHARSET = re.compile(rb"""charset\s{0,8}=\s{0,8}["']?([A-Za-z0-9_:.-]{1,40})""", re.IGNORECASE)


def kind_of(file_name: str, mime: str | None = None) -> DocumentKind | None:
    """The kind of a file by its name, else its MIME type; None when Vicaran cannot read it."""
    kind = SUFFIXES.get(Path(file_name).suffix.lower())
    if kind is None and mime:
        kind = MIME_TYPES.get(mime.split(";", 1)[0].strip().lower())
    return kind


def sniff(data: bytes) -> DocumentKind | None:
    """The kind of a nameless attachment from its first bytes (PDF, DOCX and images say what
    they are)."""
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.startswith(_IMAGE_SIGNATURES):
        return "image"
    if data.startswith(b"PK\x03\x04") and b"word/" in data[:65_536]:
        return "docx"
    return None


@dataclass(frozen=True)
class Limits:
    """What one file may be and may index (from the settings; sent to a worker as they are)."""

    max_bytes: int
    max_pages: int
    max_chars: int
    max_passages: int
    max_unpacked: int
    ocr_languages: str

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            max_bytes=settings.vicaran_document_max_bytes,
            max_pages=settings.vicaran_document_max_pages,
            max_chars=settings.vicaran_document_max_chars,
            max_passages=settings.vicaran_document_max_passages,
            max_unpacked=settings.vicaran_document_max_unpacked_bytes,
            ocr_languages=settings.vicaran_ocr_languages,
        )


def parse_file(
    path: Path, settings: Settings | None = None, *, expected: tuple[int, int] | None = None
) -> ParsedDocument:
    """Read and parse one regular file, in this process; DocumentError says why it cannot be
    taken in. `expected`: as `read_file`."""
    settings = settings or get_settings()
    path = Path(path)
    data = read_file(path, settings, expected=expected)
    parsed = parse_bytes(data, path.name, settings=settings)
    parsed.path = path_text(str(path))
    return parsed


def read_file(path: Path, settings: Settings, *, expected: tuple[int, int] | None = None) -> bytes:
    """A regular file's bytes, never more than the size limit plus one (so a larger file is
    refused). `expected` is the (device, inode) the caller saw: another file at `path` now is
    refused."""
    path = Path(path)
    if kind_of(path.name) is None:
        raise DocumentError(Phrase("document_unsupported", name=path.name))
    limit = settings.vicaran_document_max_bytes
    try:
        return _read_regular(path, limit, expected)
    except OSError as error:
        detail = error.strerror or type(error).__name__
        raise DocumentError(
            Phrase("document_unreadable_file", name=path.name, error=detail)
        ) from None


_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once (and is refused) instead of waiting
    | getattr(os, "O_NOFOLLOW", 0)  # the caller resolved the path: a link put there is refused
    | getattr(os, "O_CLOEXEC", 0)
)


def _read_regular(path: Path, limit: int, expected: tuple[int, int] | None) -> bytes:
    """At most `limit` + 1 bytes of `path`, checked on the open file to be a regular one."""
    file = os.fdopen(os.open(path, _OPEN_FLAGS), "rb")
    with file:
        found = os.fstat(file.fileno())
        if not stat.S_ISREG(found.st_mode):
            raise DocumentError(Phrase("document_not_regular", name=path.name))
        if expected is not None and (found.st_dev, found.st_ino) != expected:
            raise DocumentError(Phrase("document_changed", name=path.name))
        return file.read(limit + 1)  # never more than the limit, whatever stat says


def parse_bytes(
    data: bytes, file_name: str, *, mime: str | None = None, settings: Settings | None = None
) -> ParsedDocument:
    """Parse a file's bytes (an attachment or a file read from disk) in this process.

    Whatever the reader, its text and names reach the caller as `storable_text`.
    """
    settings = settings or get_settings()
    reader = ocr.PageReader(settings.vicaran_ocr_languages, ocr.OcrBudget.of(settings))
    return read(data, file_name, mime, Limits.of(settings), reader)


def read_in_worker(
    data: bytes,
    file_name: str,
    mime: str | None,
    limits: Limits,
    tesseract: str | None,
    *,
    ask: Callable[[object], object],
) -> ParsedDocument:
    """What a parse-pool worker runs: `read`, its OCR granted page by page by the caller's
    budget (`ask`), with the `tesseract` the caller found."""
    reader = ocr.PageReader(limits.ocr_languages, ocr.RemoteBudget(ask), binary=tesseract)
    return read(data, file_name, mime, limits, reader)


def read(
    data: bytes, file_name: str, mime: str | None, limits: Limits, reader: ocr.PageReader
) -> ParsedDocument:
    """A file's pages within `limits`, its scanned pages read by `reader`."""
    name = path_text(Path(file_name).name or file_name) or "attachment"
    kind = kind_of(file_name, mime) or sniff(data)
    if kind is None:
        raise DocumentError(Phrase("document_unsupported", name=name))
    limit = limits.max_bytes
    if len(data) > limit:
        raise DocumentError(
            Phrase(
                "document_too_large",
                name=name,
                size=_size(len(data), up=True),
                limit=_size(limit, up=False),
            )
        )
    if not data or (len(data) < 4096 and not data.strip()):
        raise DocumentError(Phrase("document_empty", name=name))
    content = _storable(_READERS[kind](data, name, _Context(limits, reader)))
    stem = Path(name).stem or name
    sample = "\n".join(page.text for page in islice(content.pages, 20))
    return ParsedDocument(
        file_name=name,
        kind=kind,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        title=content.metadata_title or content.first_heading or stem,
        page_count=content.page_count,
        pages=content.pages,
        unreadable=sorted(content.unreadable, key=lambda page: page.number),
        language=language_tag(text_language(sample[:_LANGUAGE_SAMPLE_CHARS])),
        metadata_title=content.metadata_title,
        first_heading=content.first_heading,
        ocr_pages=content.ocr_pages,
    )


@dataclass(frozen=True)
class _Context:
    """What a reader reads with: the limits, and OCR for scanned pages."""

    limits: Limits
    ocr: ocr.PageReader


class _TextBudget:
    """What one document may still index: characters and passages. A page past either is cut
    (what fits is kept) and the pages after it are not read; each says why."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.chars, self.passages = limits.max_chars, limits.max_passages
        self.full: str = ""  # "chars" | "passages" once spent

    def take(self, number: int, text: str) -> tuple[str, UnreadablePage | None]:
        """What of page `number`'s `text` to index, and the note when not all of it."""
        if self.full:
            return "", self.skipped(number)
        cut = ""
        if len(text) > self.chars:
            text, cut = text[: self.chars], "chars"
        count = len(split_passages([PageText(number, text)]))
        if count > self.passages:
            kept = split_passages([PageText(number, text)])[: self.passages]
            text, cut = text[: kept[-1].end] if kept else "", "passages"
            count = len(split_passages([PageText(number, text)]))
        self.chars -= len(text)
        self.passages -= count
        if cut:
            self.full = cut
        elif self.chars <= 0 or self.passages <= 0:
            self.full = "chars" if self.chars <= 0 else "passages"
        note = UnreadablePage(number, self._phrase("cut", number)) if cut else None
        return text, note

    def skipped(self, number: int) -> UnreadablePage:
        return UnreadablePage(number, self._phrase("skipped", number))

    def _phrase(self, what: str, number: int) -> Phrase:
        full = self.full or "chars"
        limit = self.limits.max_chars if full == "chars" else self.limits.max_passages
        return Phrase(f"page_{what}_{full}", page=number, limit=f"{limit:,}")


@dataclass
class _Content:
    """What a reader found in a file, within the document's `budget` of text."""

    page_count: int
    budget: _TextBudget
    pages: list[PageText] = field(default_factory=list)
    unreadable: list[UnreadablePage] = field(default_factory=list)
    metadata_title: str = ""
    first_heading: str = ""
    ocr_pages: list[int] = field(default_factory=list)

    @property
    def full(self) -> bool:
        """The budget is spent: the pages still to come are not read."""
        return bool(self.budget.full)

    def add(self, number: int, text: str) -> None:
        """Page `number`'s text, as storable text and as much of it as the budget takes."""
        text = storable_text(text)
        if not text.strip():
            return
        text, note = self.budget.take(number, text)
        if note is not None:
            self.unreadable.append(note)
        if text.strip():
            self.pages.append(PageText(number, text))

    def not_read(self, first: int, last: int) -> None:
        """Pages `first` to `last` were left unread: the budget was spent."""
        self.unreadable += [self.budget.skipped(number) for number in range(first, last + 1)]


def _storable(content: _Content) -> _Content:
    """What a reader found, without the characters no database or reader takes (see
    `characters`; pages are made so by `_Content.add`); a title that was a placeholder among
    them is no title."""
    content.metadata_title = _clean_title(storable_text(content.metadata_title))
    content.first_heading = _clean_title(storable_text(content.first_heading))
    return content


# --- PDF ---------------------------------------------------------------------------------------


def _read_pdf(data: bytes, name: str, context: _Context) -> _Content:
    with _PDFIUM_LOCK:
        pdf = _open_pdf(data, name)
    try:
        with _PDFIUM_LOCK:
            count = len(pdf)
            title = _pdf_title(pdf)
        if count == 0:
            raise DocumentError(Phrase("document_corrupt", name=name, kind="PDF"))
        _check_pages(count, name, context.limits)
        content = _Content(count, _TextBudget(context.limits), metadata_title=title)
        for number in range(1, count + 1):
            if content.full:  # the pages left are not even loaded
                content.not_read(number, count)
                break
            _read_pdf_page(pdf, number, context.ocr, content)
    finally:
        with _PDFIUM_LOCK:
            pdf.close()
    content.first_heading = _first_line(content.pages[0].text) if content.pages else ""
    return content


def _open_pdf(data: bytes, name: str) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        if getattr(error, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise DocumentError(Phrase("document_encrypted", name=name)) from None
        logger.debug("PDFium could not open %s: %s", name, error)
        raise DocumentError(Phrase("document_corrupt", name=name, kind="PDF")) from None


def _pdf_title(pdf: pdfium.PdfDocument) -> str:
    try:
        return _clean_title(pdf.get_metadata_dict().get("Title", ""))
    except (pdfium.PdfiumError, ValueError):
        logger.debug("a PDF's metadata could not be read", exc_info=True)
        return ""


def _read_pdf_page(
    pdf: pdfium.PdfDocument, number: int, reader: ocr.PageReader, content: _Content
) -> None:
    """One page's text into `content`; a scanned page goes through OCR."""
    with _PDFIUM_LOCK:
        try:
            page = pdf[number - 1]
        except pdfium.PdfiumError:
            content.unreadable.append(UnreadablePage(number, Phrase("page_damaged", page=number)))
            return
        try:
            text = _pdf_text(page)
            scanned = _looks_scanned(page, text)
        except pdfium.PdfiumError:
            page.close()
            content.unreadable.append(UnreadablePage(number, Phrase("page_damaged", page=number)))
            return
    try:
        if scanned:
            try:
                text = _tidy(reader.read(number, lambda: _render(page, number))) or text
                content.ocr_pages.append(number)
            except ocr.PageNotRead as why:
                content.unreadable.append(UnreadablePage(number, why.reason))
    finally:
        with _PDFIUM_LOCK:
            page.close()
    content.add(number, text)


def _pdf_text(page: pdfium.PdfPage) -> str:
    textpage = page.get_textpage()
    try:
        count = min(textpage.count_chars(), MAX_PAGE_CHARS)
        return _tidy(textpage.get_text_range(0, count)) if count > 0 else ""
    finally:
        textpage.close()


def _looks_scanned(page: pdfium.PdfPage, text: str) -> bool:
    """No text layer but something drawn, or little text over a page-sized image."""
    if len(text) >= SCAN_TEXT_CHARS:
        return False
    if not text.strip():
        return pdfium_c.FPDFPage_CountObjects(page.raw) > 0
    width, height = page.get_size()
    area = max(width * height, 1.0)
    images = page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=2)
    for image in islice(images, _MAX_IMAGES_LOOKED_AT):
        left, bottom, right, top = image.get_bounds()
        if (right - left) * (top - bottom) >= _SCAN_IMAGE_SHARE * area:
            return True
    return False


def _render(page: pdfium.PdfPage, number: int) -> Image:
    """The page drawn in greyscale for OCR, at DPI unless that would be too many pixels."""
    width, height = page.get_size()
    scale = ocr.DPI / 72
    pixels = max(width * height, 1.0) * scale * scale
    if pixels > MAX_RENDER_PIXELS:
        scale *= math.sqrt(MAX_RENDER_PIXELS / pixels)
    with _PDFIUM_LOCK:
        try:
            return page.render(scale=scale, grayscale=True, may_draw_forms=True).to_pil()
        except pdfium.PdfiumError:
            raise ocr.PageNotRead(Phrase("page_damaged", page=number)) from None


# --- page images -------------------------------------------------------------------------------


def _read_image(data: bytes, name: str, context: _Context) -> _Content:
    """A photographed or scanned page read by OCR like a scanned PDF page: a PNG or JPEG is one
    page, a TIFF a page a frame. A file of which no page could be read is refused with why."""
    from PIL import Image as Pillow  # imported here, as python-docx is

    reader = context.ocr
    if not reader.binary:
        raise DocumentError(Phrase("document_image_ocr_missing", name=name))
    try:
        image = Pillow.open(io.BytesIO(data), formats=IMAGE_FORMATS)  # reads the header only
    except Pillow.DecompressionBombError:  # over Pillow's own limit (MAX_IMAGE_PIXELS)
        reason = _too_large(1)
        raise DocumentError(Phrase("document_image_unread", name=name, reason=reason)) from None
    except Exception:  # Pillow fails in many ways on damaged files
        logger.debug("Pillow could not open %s", name, exc_info=True)
        kinds = ", ".join(IMAGE_FORMATS[:-1]) + " or " + IMAGE_FORMATS[-1]
        raise DocumentError(Phrase("document_corrupt", name=name, kind=kinds)) from None
    with image:
        count = _frame_count(image, name, context.limits)
        content = _Content(count, _TextBudget(context.limits))
        for number in range(1, count + 1):
            if content.full:
                content.not_read(number, count)
                break
            _read_frame(image, number, reader, content)
    if not content.pages:  # then every page is unreadable, and says why
        reason = content.unreadable[0].reason
        raise DocumentError(Phrase("document_image_unread", name=name, reason=reason))
    content.first_heading = _first_line(content.pages[0].text)
    return content


def _frame_count(image: Image, name: str, limits: Limits) -> int:
    """A page for each frame of a TIFF (counted no further than the page limit), else one."""
    if image.format != "TIFF":
        return 1  # an animated PNG's or a camera's extra JPEG frames are no pages
    count = 1
    while True:
        try:
            image.seek(count)
        except EOFError:
            return count
        except Exception:  # a damaged directory of frames: the frames before it are read
            logger.debug("a TIFF's frame %d could not be found", count + 1, exc_info=True)
            return count
        count += 1
        _check_pages(count, name, limits)


def _read_frame(image: Image, number: int, reader: ocr.PageReader, content: _Content) -> None:
    """One frame's text into `content`, by OCR."""
    try:
        text = _tidy(reader.read(number, lambda: _page_picture(image, number)))
        if not text:
            raise ocr.PageNotRead(Phrase("page_ocr_no_text", page=number))
    except ocr.PageNotRead as why:
        content.unreadable.append(UnreadablePage(number, why.reason))
        return
    content.ocr_pages.append(number)
    content.add(number, text)


def _page_picture(image: Image, number: int) -> Image:
    """Frame `number` as OCR reads it: upright (by its orientation tag), dark on white, of at most
    MAX_RENDER_PIXELS (a JPEG is decoded at a smaller scale; another image is not decoded)."""
    from PIL import ImageOps

    try:
        image.seek(number - 1)
        width, height = image.size
        if width * height > MAX_RENDER_PIXELS and image.format in ("JPEG", "MPO"):
            # libjpeg decodes at 1/2, 1/4 or 1/8 of the size, at a fraction of the cost
            reduction = 2 ** math.ceil(math.log2(math.sqrt(width * height / MAX_RENDER_PIXELS)))
            image.draft("L", (math.ceil(width / reduction), math.ceil(height / reduction)))
            width, height = image.size
        if width * height > MAX_RENDER_PIXELS:
            raise ocr.PageNotRead(_too_large(number))
        return _on_white(ImageOps.exif_transpose(image))  # decodes the frame
    except ocr.PageNotRead:
        raise
    except Exception:  # a damaged or cut file; Pillow fails in many ways
        logger.debug("Pillow could not decode page %d", number, exc_info=True)
        raise ocr.PageNotRead(Phrase("page_damaged", page=number)) from None


def _on_white(image: Image) -> Image:
    """Greyscale, what is transparent white, and 16-bit shades scaled down (not cut) to 8 bits."""
    from PIL import Image as Pillow

    if image.mode.startswith("I"):
        return image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    if image.has_transparency_data:  # text drawn on nothing: onto white paper
        if image.mode not in ("RGBA", "LA"):
            image = image.convert("RGBA")
        page = Pillow.new("L", image.size, 255)
        page.paste(image.convert("L"), mask=image.getchannel("A"))
        return page
    return image.convert("L")


def _too_large(number: int) -> Phrase:
    return Phrase("page_image_too_large", page=number, limit=MAX_RENDER_PIXELS // 1_000_000)


# --- DOCX --------------------------------------------------------------------------------------

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


def _read_docx(data: bytes, name: str, context: _Context) -> _Content:
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
    xml = sum(m.file_size for m in members if m.filename.lower().endswith(_XML_PARTS))
    if len(members) > MAX_ZIP_MEMBERS or xml > limits.max_unpacked:
        limit = _size(limits.max_unpacked, up=False)
        raise DocumentError(Phrase("document_unpacks_too_large", name=name, limit=limit))
    if sum(member.file_size for member in members) > limits.max_bytes:
        limit = _size(limits.max_bytes, up=False)
        raise DocumentError(Phrase("document_unpacks_too_large", name=name, limit=limit))


def _docx_content(document: DocxDocument, name: str, limits: Limits) -> _Content:
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
            _check_pages(len(pages), name, limits)  # stops at the first page past the limit
        elif isinstance(block, tuple):
            line, style_id = block
            pages[-1].append(line)
            if not first_heading and line.strip() and _is_heading(styles.get(style_id, "")):
                first_heading = _clean_title(line)
    content = _Content(len(pages), _TextBudget(limits), first_heading=first_heading)
    content.metadata_title = _clean_title(_docx_title(document))
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


# --- HTML, Markdown, plain text ----------------------------------------------------------------


def _read_html(data: bytes, name: str, context: _Context) -> _Content:
    html = _decode(data, name, declared=True)
    page = read_html(html)
    title, heading = _html_title_and_heading(html)
    content = _Content(
        1,
        _TextBudget(context.limits),
        metadata_title=title or _clean_title(page.title),
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
    texts = {element.tag: _clean_title(element.text_content()) for element in found}
    return texts.get("title", ""), texts.get("h1") or texts.get("h2", "")


def _read_markdown(data: bytes, name: str, context: _Context) -> _Content:
    text = _decode(data, name)
    heading = _markdown_heading(text[:_HEADING_SCAN_CHARS])
    content = _Content(1, _TextBudget(context.limits), first_heading=heading)
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
            return _clean_title(heading)
    return _clean_title(headings[0][1]) if headings else ""


def _read_text(data: bytes, name: str, context: _Context) -> _Content:
    """Plain text: one page, or a page per form feed (pdftotext and printers mark pages so)."""
    pieces = _decode(data, name).split("\f")
    if pieces and not pieces[-1].strip():
        pieces.pop()  # a file that ends with a form feed has no page after it
    _check_pages(len(pieces), name, context.limits)
    content = _Content(max(len(pieces), 1), _TextBudget(context.limits))
    for number, piece in enumerate(pieces, start=1):
        if content.full:
            content.not_read(number, len(pieces))
            break
        content.add(number, piece)
    if content.pages and content.pages[0].number == 1:
        content.first_heading = _first_line(content.pages[0].text)
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
    if declared and (match := _CHARSET.search(data[:4096])):
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
            and match.coherence >= best.coherence - _COHERENCE_TIE
            and _WESTERN.intersection(match.could_be_from_charset)
        ):
            best = match
            break
    return _text(str(best))


def _text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\x00", "")


# --- shared ------------------------------------------------------------------------------------


def _check_pages(count: int, name: str, limits: Limits) -> None:
    limit = limits.max_pages
    if count > limit:
        raise DocumentError(Phrase("document_too_many_pages", name=name, count=limit))


def _tidy(text: str) -> str:
    """Extracted text with Unix line ends, hyphenated line ends joined and controls removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x02\n", "")
    return storable_text(text).strip()


def _first_line(text: str) -> str:
    """A page's first line when it reads like a heading (short, with letters)."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(line) > _HEADING_LINE_CHARS or not any(ch.isalpha() for ch in line):
        return ""
    return _clean_title(line)


def _clean_title(title: str) -> str:
    """A title on one line; "" for the placeholders office software writes ("Untitled", a file)."""
    title = " ".join(title.split())[:MAX_TITLE_CHARS]
    lowered = title.lower()
    for prefix in _JUNK_TITLE_PREFIXES:
        if lowered.startswith(prefix):
            title, lowered = title[len(prefix) :].strip(), lowered[len(prefix) :].strip()
    if lowered in _JUNK_TITLES or lowered.endswith(_JUNK_TITLE_SUFFIXES):
        return ""
    return title


def _size(count: int, *, up: bool) -> str:
    """A byte count for people, rounded up (a size) or down (a limit) so the two compare right."""
    if count < 1_000:
        return f"{count} bytes"
    unit, name = (1_000_000, "MB") if count >= 1_000_000 else (1_000, "KB")
    value = math.ceil(count / unit) if up else count // unit
    return f"{value} {name}"


_READERS: dict[DocumentKind, Callable[[bytes, str, _Context], _Content]] = {
    "pdf": _read_pdf,
    "docx": _read_docx,
    "html": _read_html,
    "markdown": _read_markdown,
    "text": _read_text,
    "image": _read_image,
}
