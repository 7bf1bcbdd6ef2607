"""A file's kind, by its name or MIME type: what `vicaran docs` and the chat accept (no parser
is imported here, so a command that only lists or searches starts without them)."""

from __future__ import annotations

from pathlib import Path

from .model import DocumentKind

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


def kind_of(file_name: str, mime: str | None = None) -> DocumentKind | None:
    """The kind of a file by its name, else its MIME type; None when Vicaran cannot read it."""
    kind = SUFFIXES.get(Path(file_name).suffix.lower())
    if kind is None and mime:
        kind = MIME_TYPES.get(mime.split(";", 1)[0].strip().lower())
    return kind
