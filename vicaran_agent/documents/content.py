"""What every file reader shares: the limits of a document, its text budget, what a reader found
(pages, unreadable pages, titles) and the small text helpers; the format readers are `pdf_files`
(PDF and page images), `word_files` (DOCX) and `text_files` (HTML, Markdown, plain text).
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..config import Settings
from ..i18n import Phrase
from . import ocr
from .characters import storable_text
from .model import DocumentError, PageText, UnreadablePage
from .passages import split_passages

if TYPE_CHECKING:
    pass


MAX_PAGE_CHARS = 200_000  # a dense printed page holds ~5,000; more is not a page of text


SCAN_TEXT_CHARS = 200  # a page with less text than this and a page-sized image is a scan


SCAN_IMAGE_SHARE = 0.5  # ... when one image covers this share of the page


MAX_IMAGES_LOOKED_AT = 64


MAX_RENDER_PIXELS = 40_000_000  # a page drawn for OCR (A4 at 300 dpi is 8.7 million)


IMAGE_FORMATS = ("PNG", "JPEG", "TIFF")  # the only formats Pillow is asked to open


IMAGE_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"II*\x00",
    b"MM\x00*",
    b"II+\x00",
    b"MM\x00+",
)


MAX_ZIP_MEMBERS = 10_000


XML_PARTS = (".xml", ".rels")  # the members python-docx parses into trees


MAX_TITLE_CHARS = 300


_HEADING_LINE_CHARS = 150  # a first line longer than this is not a heading


HEADING_SCAN_CHARS = 100_000  # a Markdown file's first heading is looked for this far


# PDFium is not thread-safe: calls into it from different threads take turns.
PDFIUM_LOCK = threading.RLock()


_JUNK_TITLES = frozenset({"untitled", "sem título", "sem titulo", "title", "document", "documento"})


_JUNK_TITLE_SUFFIXES = (".doc", ".docx", ".pdf", ".odt", ".rtf", ".txt", ".xls", ".xlsx", ".tmp")


_JUNK_TITLE_PREFIXES = ("microsoft word - ", "microsoft powerpoint - ", "microsoft excel - ")


WESTERN = frozenset({"cp1252", "latin_1", "iso8859_15"})


COHERENCE_TIE = 0.02


CHARSET = re.compile(rb"""charset\s{0,8}=\s{0,8}["']?([A-Za-z0-9_:.-]{1,40})""", re.IGNORECASE)


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


@dataclass(frozen=True)
class ReadContext:
    """What a reader reads with: the limits, and OCR for scanned pages."""

    limits: Limits
    ocr: ocr.PageReader


class TextBudget:
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
class Content:
    """What a reader found in a file, within the document's `budget` of text."""

    page_count: int
    budget: TextBudget
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


def storable(content: Content) -> Content:
    """What a reader found, without the characters no database or reader takes (see
    `characters`; pages are made so by `Content.add`); a title that was a placeholder among
    them is no title."""
    content.metadata_title = clean_title(storable_text(content.metadata_title))
    content.first_heading = clean_title(storable_text(content.first_heading))
    return content


def check_pages(count: int, name: str, limits: Limits) -> None:
    limit = limits.max_pages
    if count > limit:
        raise DocumentError(Phrase("document_too_many_pages", name=name, count=limit))


def tidy(text: str) -> str:
    """Extracted text with Unix line ends, hyphenated line ends joined and controls removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x02\n", "")
    return storable_text(text).strip()


def first_line(text: str) -> str:
    """A page's first line when it reads like a heading (short, with letters)."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(line) > _HEADING_LINE_CHARS or not any(ch.isalpha() for ch in line):
        return ""
    return clean_title(line)


def clean_title(title: str) -> str:
    """A title on one line; "" for the placeholders office software writes ("Untitled", a file)."""
    title = " ".join(title.split())[:MAX_TITLE_CHARS]
    lowered = title.lower()
    for prefix in _JUNK_TITLE_PREFIXES:
        if lowered.startswith(prefix):
            title, lowered = title[len(prefix) :].strip(), lowered[len(prefix) :].strip()
    if lowered in _JUNK_TITLES or lowered.endswith(_JUNK_TITLE_SUFFIXES):
        return ""
    return title


def size_text(count: int, *, up: bool) -> str:
    """A byte count for people, rounded up (a size) or down (a limit) so the two compare right."""
    if count < 1_000:
        return f"{count} bytes"
    unit, name = (1_000_000, "MB") if count >= 1_000_000 else (1_000, "KB")
    value = math.ceil(count / unit) if up else count // unit
    return f"{value} {name}"
