"""What a command prints: ADK's start-up noise kept quiet, log records counted or shown, an
error said in one sentence in the journalist's language.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..i18n import localized, message

if TYPE_CHECKING:
    pass


@contextlib.contextmanager
def quiet_adk() -> Iterator[None]:
    """ADK's "[EXPERIMENTAL] ..." notices are not for journalists: off in Vicaran's commands.

    `adk run` and `adk web` never pass here, so they print them as ADK does.
    """
    switch = "ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS"
    before = os.environ.get(switch)
    os.environ[switch] = "true"
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)
            yield
    finally:
        if before is None:
            os.environ.pop(switch, None)
        else:
            os.environ[switch] = before


class _Counted(logging.Handler):
    """Keeps log records out of the terminal, counting Vicaran's own warnings and any error."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.name.startswith("vicaran_agent"):
            self.count += 1


class _ToStderr(logging.Handler):
    """Writes to whatever sys.stderr is when a record comes (a live display redirects it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr, flush=True)
        except (OSError, ValueError):
            self.handleError(record)


@contextlib.contextmanager
def log_output(verbose: bool) -> Iterator[_Counted | None]:
    """Warnings and errors with their details (verbose), or kept out of the way and counted."""
    root = logging.getLogger()
    handler: logging.Handler
    if verbose:
        handler = _ToStderr(logging.WARNING)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler = _Counted()
    root.addHandler(handler)
    try:
        yield handler if isinstance(handler, _Counted) else None
    finally:
        root.removeHandler(handler)


def one_sentence(error: BaseException, language: str) -> str:
    """A configuration or model error as people read it, without its dump."""
    import httpx
    from google.genai import errors as genai_errors
    from pydantic import ValidationError

    from ..config import ModelPluginError, settings_problem
    from ..llm_models import ModelCallError, describe_model_error

    if isinstance(error, ModelPluginError):
        return str(error)
    if isinstance(error, ModelCallError):
        return error.said_in(language)
    if isinstance(error, ValidationError):
        return settings_problem(error)
    if isinstance(error, (genai_errors.APIError, httpx.TransportError, TimeoutError)):
        return str(localized(describe_model_error(error, "")[0], language))
    detail = " ".join(f"{type(error).__name__}: {error}".split())[:200]
    return message("cli_error", language, error=detail)
