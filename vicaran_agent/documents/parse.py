"""Files into pages of text, locally: PDF, DOCX, HTML, Markdown, plain text and page images.

Every file is untrusted: its size and page count are checked before it is read, a page's text
is capped, a DOCX's unpacked size is checked before it is unzipped, an image's pixels before it
is decoded, OCR runs within budgets of pages and seconds, and everything else is linear-time
library code. What one document may index is capped (`Limits`: characters and passages): past
that, its pages are not read, and each says why. Nothing is sent anywhere.

This module tells a file's kind and reads it in the process that calls it, with one reader per
format (`pdf_files`, `word_files`, `text_files`, on what `content` shares). The server and
`vicaran docs` call it through `documents.pool`, in a worker process with a memory cap and a time
limit (`read_in_worker`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from ..config import Settings, get_settings
from ..i18n import Phrase, language_tag, text_language
from . import ocr
from .characters import path_text
from .content import IMAGE_SIGNATURES, Content, Limits, ReadContext, size_text, storable
from .kinds import kind_of
from .model import DocumentError, DocumentKind, ParsedDocument
from .pdf_files import read_image_file, read_pdf_file
from .text_files import read_html_file, read_markdown_file, read_text_file
from .word_files import read_docx_file

logger = logging.getLogger(__name__)


_LANGUAGE_SAMPLE_CHARS = 20_000


def sniff(data: bytes) -> DocumentKind | None:
    """The kind of a nameless attachment from its first bytes (PDF, DOCX and images say what
    they are)."""
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.startswith(IMAGE_SIGNATURES):
        return "image"
    if data.startswith(b"PK\x03\x04") and b"word/" in data[:65_536]:
        return "docx"
    return None


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
                size=size_text(len(data), up=True),
                limit=size_text(limit, up=False),
            )
        )
    if not data or (len(data) < 4096 and not data.strip()):
        raise DocumentError(Phrase("document_empty", name=name))
    content = storable(_READERS[kind](data, name, ReadContext(limits, reader)))
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


_READERS: dict[DocumentKind, Callable[[bytes, str, ReadContext], Content]] = {
    "pdf": read_pdf_file,
    "docx": read_docx_file,
    "html": read_html_file,
    "markdown": read_markdown_file,
    "text": read_text_file,
    "image": read_image_file,
}
