"""The journalist's documents read in the parse pool (workers/parsing.py), the caller's side.

The caller reads a file's bytes, finds `tesseract` and keeps the file's OCR budget (granted page
by page while a worker reads); a worker parses (`parse.read_in_worker`). A worker that runs out
of time or memory, or dies, costs that file only: DocumentError says why, in the journalist's
words, like any file that cannot be taken in.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings, get_settings
from ..i18n import Phrase
from ..workers.parsing import DOCUMENT, WorkerFailed, parse_pool
from . import ocr, parse
from .characters import path_text
from .model import DocumentError, ParsedDocument

# How a reader is named in "stopped the PDF reader".
_READER_NAMES = {
    "pdf": "PDF",
    "docx": "DOCX",
    "html": "HTML",
    "markdown": "Markdown",
    "text": "TXT",
    "image": "PNG/JPEG/TIFF",
}


@dataclass
class Reading:
    """One file being read in the pool: its result, and what its OCR has cost so far."""

    future: Future[ParsedDocument]
    budget: ocr.OcrBudget
    name: str
    kind: str
    settings: Settings

    def result(self) -> ParsedDocument:
        """The parsed file (waiting for it); DocumentError says why there is none."""
        try:
            return self.future.result()
        except WorkerFailed as failed:
            raise self._error(failed) from None

    async def parsed(self) -> ParsedDocument:
        """`result` for a coroutine."""
        try:
            return await asyncio.wrap_future(self.future)
        except WorkerFailed as failed:
            raise self._error(failed) from None

    def _error(self, failed: WorkerFailed) -> DocumentError:
        name, limit = self.name, self.settings.vicaran_parse_memory_mb
        if failed.why == "timeout":
            phrase = Phrase("document_parse_timeout", name=name, seconds=round(failed.seconds))
        elif failed.why == "memory":
            phrase = Phrase("document_parse_memory", name=name, limit=limit)
        elif failed.why == "crashed":
            reader = _READER_NAMES.get(self.kind, self.kind.upper())
            phrase = Phrase("document_parse_crashed", name=name, kind=reader, limit=limit)
        else:
            phrase = Phrase("document_parse_unavailable", name=name, detail=failed.detail)
        return DocumentError(phrase)


def submit(
    data: bytes,
    file_name: str,
    *,
    mime: str | None = None,
    settings: Settings | None = None,
    ledger: ocr.OcrLedger | None = None,
) -> Reading:
    """Start reading a file's bytes in the pool (`ledger`: the investigation's OCR budget)."""
    settings = settings or get_settings()
    budget = ocr.OcrBudget.of(settings, ledger)
    future = parse_pool(settings).submit(
        parse.read_in_worker,
        data,
        file_name,
        mime,
        parse.Limits.of(settings),
        ocr.find_tesseract(),
        lane=DOCUMENT,
        timeout=settings.vicaran_parse_timeout_seconds,
        ask=budget.answer,
    )
    name = path_text(Path(file_name).name or file_name) or "attachment"
    kind = parse.kind_of(file_name, mime) or parse.sniff(data) or ""
    return Reading(future, budget, name, kind, settings)


def parse_file(
    path: Path, settings: Settings | None = None, *, expected: tuple[int, int] | None = None
) -> ParsedDocument:
    """`parse.parse_file` in the pool: the bytes read here (a regular file, the very one the
    caller saw when `expected` names it), parsed in a worker."""
    settings = settings or get_settings()
    path = Path(path)
    data = parse.read_file(path, settings, expected=expected)
    parsed = submit(data, path.name, settings=settings).result()
    parsed.path = path_text(str(path))
    return parsed
