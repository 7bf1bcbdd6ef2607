"""What a parsed document, a passage and a search hit are (plain data, no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..urls import document_url

DocumentKind = Literal["pdf", "docx", "html", "markdown", "text", "image"]
DocumentReliability = Literal["high", "neutral", "low"]


class DocumentError(Exception):
    """A file that cannot be taken in; the message says which file, why, and what to do."""

    def said_in(self, language: str) -> str:
        """The message in `language` when it was made from an i18n Phrase (else as it is)."""
        said = getattr(self.args[0] if self.args else None, "said_in", None)
        return said(language) if callable(said) else str(self)


@dataclass(frozen=True)
class PageText:
    """The readable text of one page (1-based, as printed readers count them)."""

    number: int
    text: str


@dataclass(frozen=True)
class UnreadablePage:
    number: int
    reason: str


@dataclass
class ParsedDocument:
    """A file read locally: its text per page, and what could not be read."""

    file_name: str
    kind: DocumentKind
    sha256: str  # of the file's bytes: an unchanged file is not indexed twice
    size_bytes: int
    title: str  # metadata title, else first heading, else the file name without extension
    page_count: int
    pages: list[PageText] = field(default_factory=list)  # readable pages only
    unreadable: list[UnreadablePage] = field(default_factory=list)
    language: str = "en"
    metadata_title: str = ""
    first_heading: str = ""
    ocr_pages: list[int] = field(default_factory=list)
    path: str = ""  # where it was read from ("" for an attachment)

    @property
    def text_chars(self) -> int:
        return sum(len(p.text) for p in self.pages)


@dataclass(frozen=True)
class Passage:
    """~1,000 characters of one page, with where they sit in the page's text."""

    ordinal: int  # position in the document, from 0
    page: int  # 1-based
    start: int  # character offsets in the page's text
    end: int
    text: str


@dataclass(frozen=True)
class DocumentInfo:
    """A document in a collection, as the store knows it."""

    document_id: str
    collection: str
    file_name: str
    title: str
    kind: str
    page_count: int
    language: str
    sha256: str
    reliability: DocumentReliability = "neutral"
    unreadable: tuple[UnreadablePage, ...] = ()
    metadata_title: str = ""
    first_heading: str = ""
    passages: int = 0
    path: str = ""
    added_at: str = ""
    # Normalized names (title, metadata title, first heading, file name; see documents.synonyms).
    synonyms: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()

    @property
    def url(self) -> str:
        return document_url(self.document_id)

    @property
    def publisher(self) -> str:
        """Who "published" it, for independence: the file (its passages count once)."""
        return self.file_name


@dataclass(frozen=True)
class PassageHit:
    """A passage a search found, ranked (higher score = better)."""

    passage_id: int
    document_id: str
    collection: str
    file_name: str
    title: str
    page: int
    start: int
    end: int
    text: str
    score: float

    @property
    def url(self) -> str:
        return document_url(self.document_id, self.page, self.passage_id)
