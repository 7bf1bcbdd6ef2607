"""Scanned pages and page images read by the `tesseract` binary when installed, bounded in time.

Tesseract runs as a subprocess (one per page, a timeout each, a time budget per file); the page
image goes to it on stdin and nothing is written to disk or sent anywhere.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..i18n import Phrase
from .characters import storable_text

if TYPE_CHECKING:
    from PIL.Image import Image

logger = logging.getLogger(__name__)

DPI = 300  # pages are rendered at this resolution for Tesseract
PAGE_TIMEOUT_SECONDS = 60.0
FILE_BUDGET_SECONDS = 900.0  # past this, a file's remaining scanned pages are listed as unreadable
_LIST_TIMEOUT_SECONDS = 10.0
_FALLBACK_LANGUAGES = 3  # when none of the configured languages is installed, use up to this many


class PageNotRead(Exception):
    """A scanned page OCR could not read; `reason` says why, for the journalist."""

    def __init__(self, reason: Phrase) -> None:
        super().__init__(reason)
        self.reason = reason


def find_tesseract() -> str | None:
    """The path of the `tesseract` binary, or None when it is not installed."""
    return shutil.which("tesseract")


@functools.lru_cache(maxsize=8)
def installed_languages(binary: str) -> tuple[str, ...]:
    """The language data Tesseract has (`tesseract --list-langs`); () when it cannot say."""
    try:
        done = subprocess.run(
            [binary, "--list-langs"],
            capture_output=True,
            timeout=_LIST_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        logger.debug("tesseract --list-langs failed", exc_info=True)
        return ()
    # a header (List of available languages in "…" (N):), then one name a line; on stdout
    # (Tesseract 4 and 5) or stderr (older)
    listing = done.stdout if done.stdout.strip() else done.stderr
    lines = (line.strip() for line in listing.decode("utf-8", "replace").splitlines())
    return tuple(line for line in lines if line and not line.startswith("List of"))


def choose_languages(requested: str, installed: Sequence[str]) -> str:
    """The configured languages ("por+eng") that are installed, else those installed; "" if none."""
    usable = [name for name in requested.split("+") if name.strip() and name.strip() in installed]
    if usable:
        return "+".join(name.strip() for name in usable)
    others = [name for name in installed if name != "osd"]
    return "+".join(others[:_FALLBACK_LANGUAGES])


class PageReader:
    """OCR for the scanned pages of one file: one Tesseract run per page, within a time budget."""

    def __init__(
        self,
        requested_languages: str,
        *,
        page_timeout: float | None = None,
        budget: float | None = None,
    ) -> None:
        self.binary = find_tesseract()
        self.requested = requested_languages
        self.page_timeout = page_timeout or PAGE_TIMEOUT_SECONDS
        self._budget = budget or FILE_BUDGET_SECONDS
        self._deadline: float | None = None  # the budget runs from the first page read
        self._languages: str | None = None

    @property
    def languages(self) -> str:
        """The Tesseract languages this reader uses ("" when none can be used)."""
        if self._languages is None:
            installed = installed_languages(self.binary) if self.binary else ()
            self._languages = choose_languages(self.requested, installed)
        return self._languages

    def read(self, number: int, render: Callable[[], Image]) -> str:
        """The text of scanned page `number` (1-based); PageNotRead says why there is none.

        `render` draws the page; it is called only when Tesseract can run.
        """
        if not self.binary:
            raise PageNotRead(Phrase("page_ocr_missing", page=number))
        if not self.languages:
            raise PageNotRead(Phrase("page_ocr_no_languages", page=number))
        if self._deadline is None:
            self._deadline = time.monotonic() + self._budget
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise PageNotRead(Phrase("page_ocr_budget", page=number, seconds=int(self._budget)))
        image = render()
        text = self._tesseract(number, _pgm(image), min(self.page_timeout, left))
        if not text.strip():
            raise PageNotRead(Phrase("page_ocr_no_text", page=number))
        return text

    def _tesseract(self, number: int, image: bytes, timeout: float) -> str:
        command = [self.binary or "tesseract", "stdin", "stdout", "-l", self.languages]
        command += ["--dpi", str(DPI), "--psm", "3"]
        # one thread each: Tesseract's OpenMP threads are slower than one on a small machine
        environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(
                command,
                input=image,
                capture_output=True,
                timeout=timeout,
                env=environment,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise PageNotRead(
                Phrase("page_ocr_timeout", page=number, seconds=max(1, round(timeout)))
            ) from None
        except OSError as error:
            detail = error.strerror or type(error).__name__
            raise PageNotRead(Phrase("page_ocr_failed", page=number, detail=detail)) from None
        if done.returncode != 0:
            detail = _last_line(done.stderr) or f"exit status {done.returncode}"
            raise PageNotRead(Phrase("page_ocr_failed", page=number, detail=detail))
        return done.stdout.decode("utf-8", "replace")


def _pgm(image: Image) -> bytes:
    """The image as a greyscale PGM (no compression to spend time on; Tesseract reads it)."""
    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="PPM")
    return buffer.getvalue()


def _last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in storable_text(stderr.decode("utf-8", "replace")).split("\n")]
    lines = [line for line in lines if line and not line.startswith("Estimating resolution")]
    return lines[-1][:200] if lines else ""
