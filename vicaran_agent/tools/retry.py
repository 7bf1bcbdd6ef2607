"""Backoff shared by every client that retries transient failures (429, 5xx, timeouts)."""

from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime

from ..i18n import Phrase


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), or None."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def backoff_delay(
    attempt: int, retry_after: float | None = None, *, base: float = 0.5, cap: float = 8.0
) -> float:
    """Exponential backoff with jitter for retry `attempt` (0-based), honouring Retry-After."""
    delay = min(cap, base * 2**attempt)
    delay = delay / 2 + random.uniform(0, delay / 2)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, cap)


class TransientError(Exception):
    """A failure worth retrying (429, 5xx, a timeout); says what happened and what to do."""

    def __init__(self, what: str, advice: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.advice = advice
        self.retry_after = retry_after

    @classmethod
    def unreachable(cls, service: str, url: str, setting: str, error: Exception) -> TransientError:
        """A service that did not answer. Only the error's type is named: its text may carry the
        request URL, and with it a key."""
        what = Phrase("unreachable", service=service, url=url, error=type(error).__name__)
        return cls(what, Phrase("advice_network", setting=setting))

    def final_message(self, retries: int) -> Phrase:
        if retries:
            return Phrase("failure_retried", what=self.what, count=retries, advice=self.advice)
        return Phrase("failure_advice", what=self.what, advice=self.advice)


class PermanentError(Exception):
    """A failure not worth retrying; `fatal` ones (a rejected key) stop the other requests too."""

    def __init__(self, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.fatal = fatal

    @classmethod
    def answered_http(cls, service: str, status: int, setting: str, url: str) -> PermanentError:
        """A status the service's contract does not explain: most likely the wrong address."""
        return cls(
            Phrase("answered_http", service=service, status=status, setting=setting, url=url)
        )
