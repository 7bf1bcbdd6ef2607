"""Scanned pages and page images read by the `tesseract` binary when installed, within budgets.

Tesseract runs as a subprocess (one per page, a timeout each); the page image goes to it on
stdin and nothing is written to disk or sent anywhere. What OCR may cost is granted page by
page: an `OcrBudget` holds one file's pages and seconds (VICARAN_OCR_DOCUMENT_PAGES and
_SECONDS), within an `OcrLedger` shared by the files of one investigation (_INVESTIGATION_PAGES
and _SECONDS), read at the same time or turn after turn. A page is granted before it is drawn,
so a page past the budget costs nothing; its seconds are what Tesseract took.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..i18n import Phrase
from .characters import storable_text

if TYPE_CHECKING:
    from PIL.Image import Image

    from ..config import Settings

logger = logging.getLogger(__name__)

DPI = 300  # pages are rendered at this resolution for Tesseract
PAGE_TIMEOUT_SECONDS = 60.0
MIN_GRANT_SECONDS = 0.05  # less left than this is nothing left
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


class Budget(Protocol):
    """What OCR may still cost: `allow` grants a page its seconds (or raises PageNotRead with
    why not), `spent` says what the page took of them."""

    def allow(self, page: int) -> float: ...

    def spent(self, page: int, granted: float, used: float) -> None: ...


class OcrLedger:
    """The OCR an investigation's files may still use, shared by files read at the same time
    (thread-safe): pages and seconds are taken when granted and what a page did not use is
    given back."""

    def __init__(self, pages: int, seconds: float) -> None:
        self.pages, self.seconds = pages, seconds
        self._pages_taken, self._seconds_taken = 0, 0.0
        self._lock = threading.Lock()

    @classmethod
    def of(cls, settings: Settings, pages_spent: int = 0, seconds_spent: float = 0.0) -> OcrLedger:
        """The investigation's budget from the settings, less what its earlier files spent."""
        ledger = cls(
            settings.vicaran_ocr_investigation_pages, settings.vicaran_ocr_investigation_seconds
        )
        ledger._pages_taken, ledger._seconds_taken = pages_spent, seconds_spent
        return ledger

    def take(self, page: int, seconds: float) -> float:
        """Up to `seconds` for `page`, taken from what is left; PageNotRead when nothing is."""
        with self._lock:
            if self._pages_taken >= self.pages:
                raise PageNotRead(
                    Phrase("page_ocr_investigation_pages", page=page, count=self.pages)
                )
            left = self.seconds - self._seconds_taken
            if left < MIN_GRANT_SECONDS:
                raise PageNotRead(
                    Phrase("page_ocr_investigation_seconds", page=page, seconds=int(self.seconds))
                )
            granted = min(seconds, left)
            self._pages_taken += 1
            self._seconds_taken += granted
            return granted

    def give_back(self, seconds: float) -> None:
        with self._lock:
            self._seconds_taken -= seconds


class OcrBudget:
    """One file's OCR: at most `pages` pages and `seconds` seconds of Tesseract, each page at
    most `page_timeout`, within `ledger` (the investigation's) when there is one."""

    def __init__(
        self,
        pages: int,
        seconds: float,
        *,
        page_timeout: float | None = None,
        ledger: OcrLedger | None = None,
    ) -> None:
        self.pages, self.seconds = pages, seconds
        self.page_timeout = page_timeout or PAGE_TIMEOUT_SECONDS
        self.ledger = ledger
        self.pages_read = 0  # pages granted (read, or tried)
        self.seconds_used = 0.0
        self._outstanding = 0.0  # granted and not yet accounted for
        self._lock = threading.Lock()

    @classmethod
    def of(cls, settings: Settings, ledger: OcrLedger | None = None) -> OcrBudget:
        return cls(
            settings.vicaran_ocr_document_pages,
            settings.vicaran_ocr_document_seconds,
            ledger=ledger,
        )

    def allow(self, page: int) -> float:
        with self._lock:
            if self.pages_read >= self.pages:
                raise PageNotRead(Phrase("page_ocr_pages_budget", page=page, count=self.pages))
            left = self.seconds - self.seconds_used - self._outstanding
            if left < MIN_GRANT_SECONDS:
                raise PageNotRead(
                    Phrase("page_ocr_budget", page=page, seconds=max(1, round(self.seconds)))
                )
            granted = min(self.page_timeout, left)
            if self.ledger is not None:
                granted = self.ledger.take(page, granted)
            self.pages_read += 1
            self._outstanding += granted
            return granted

    def spent(self, page: int, granted: float, used: float) -> None:
        used = min(max(used, 0.0), granted)
        with self._lock:
            self._outstanding -= granted
            self.seconds_used += used
        if self.ledger is not None:
            self.ledger.give_back(granted - used)

    def answer(self, request: tuple[Any, ...]) -> tuple[Any, float]:
        """The parse pool's `ask` for a file read in a worker: (answer, more time for the file).

        A page's grant lengthens the file's time limit by as much: OCR time is budgeted here,
        not by the parse timeout.
        """
        if request[0] == "allow":
            try:
                granted = self.allow(request[1])
            except PageNotRead as refused:
                return refused, 0.0
            return granted, granted
        _, page, granted, used = request
        self.spent(page, granted, used)
        return None, 0.0


class RemoteBudget:
    """An OcrBudget kept by the parse pool's caller, asked from a worker process."""

    def __init__(self, ask: Callable[[Any], Any]) -> None:
        self._ask = ask

    def allow(self, page: int) -> float:
        granted: float = self._ask(("allow", page))
        return granted

    def spent(self, page: int, granted: float, used: float) -> None:
        self._ask(("spent", page, granted, used))


class PageReader:
    """OCR for the scanned pages of one file: one Tesseract run per page, within `budget`.

    `binary` is the `tesseract` to run (None: OCR is not installed); by default the one on PATH.
    """

    _FIND: Any = object()

    def __init__(self, requested_languages: str, budget: Budget, *, binary: Any = _FIND) -> None:
        self.binary: str | None = find_tesseract() if binary is PageReader._FIND else binary
        self.requested = requested_languages
        self.budget = budget
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

        `render` draws the page; it is called only when Tesseract can run and the budget
        grants the page.
        """
        if not self.binary:
            raise PageNotRead(Phrase("page_ocr_missing", page=number))
        if not self.languages:
            raise PageNotRead(Phrase("page_ocr_no_languages", page=number))
        granted = self.budget.allow(number)
        used = 0.0
        try:
            image = _pgm(render())
            started = time.monotonic()
            try:
                text = self._tesseract(number, image, granted)
            finally:
                used = time.monotonic() - started
        finally:
            self.budget.spent(number, granted, used)
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
