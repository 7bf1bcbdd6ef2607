"""Backoff shared by every client that retries transient failures (429, 5xx, timeouts)."""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from email.utils import parsedate_to_datetime
from typing import TypeVar

from ..clock import SYSTEM_CLOCK, Clock
from ..i18n import Phrase

logger = logging.getLogger(__name__)
T = TypeVar("T")


def parse_retry_after(value: str | None, clock: Clock = SYSTEM_CLOCK) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date, from `clock`'s
    wall time), or None."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - clock.wall())
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


async def retried(
    call: Callable[[], Awaitable[T]],
    *,
    retries: int,
    backoff: Callable[[int, float | None], float],
    service: str,
    unexpected: str,
    clock: Clock = SYSTEM_CLOCK,
) -> T | str:
    """`call()` retried on TransientError up to `retries` times; its result, or why not.

    A PermanentError's message, the last transient failure's, or - for anything else (a
    malformed answer; logged) - the `unexpected` phrase: a client never raises into the run.
    The waits between tries are `clock`'s (tests move it instead of waiting).
    """
    attempt = 0
    while True:
        try:
            return await call()
        except PermanentError as failure:
            return failure.message
        except TransientError as failure:
            if attempt >= retries:
                return failure.final_message(retries)
            delay = backoff(attempt, failure.retry_after)
            logger.info("%s: %s; retry in %.2f s", service, failure.what, delay)
            attempt += 1
            await clock.sleep(delay)
        except Exception as exc:
            logger.warning("%s request failed", service, exc_info=True)
            return Phrase(unexpected, error=type(exc).__name__)
