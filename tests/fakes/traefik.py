"""Traefik's `rateLimit` middleware (in memory), computed as Traefik v3 computes it.

Querido Diário's production API sits behind the middleware `api-rate-limit`
(okfn-brasil/querido-diario-deployment, k8s/base/traefik-middlewares.yaml: `average: 25`,
`period: 1m`, `burst: 50`). What Traefik does with it (traefik/traefik, 2026-07,
pkg/middlewares/ratelimiter/rate_limiter.go and in_memory_limiter.go, over golang.org/x/time/rate):

- One token bucket per source (the client's IP by default): `rate = average / period` tokens a
  second (25/60 = 0.4167), capacity `burst`, full when created.
- Each request reserves a token (`Limiter.Reserve`); the reservation's delay is how long until the
  bucket holds it (`(1 - tokens) / rate` when short).
- `maxDelay` is 0.5 s when the rate is below 1 a second, else `1 / (2 * int(rate))`. A request
  whose delay is at most `maxDelay` is HELD that long and then served; a longer delay cancels the
  reservation (the token is given back) and answers **429** with `Retry-After: ceil(delay)` in
  seconds, `X-Retry-In: <Go duration>` and the body `Too Many Requests` (text/plain, sniffed).
- A bucket unused for `ttl` seconds is forgotten: `ttl = 1 + int(1 / rate)` below 1 a second
  (3 s for 25/min), else 2; the expiry is kept in whole Unix seconds. A client back after that
  idle time meets a new, full bucket.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

TOO_MANY_REQUESTS = b"Too Many Requests"  # http.StatusText(429), written without a newline


@dataclass(frozen=True)
class Decision:
    """What the middleware does with one request: hold it `delay` s and serve it, or refuse."""

    delay: float
    refused: bool

    def headers(self) -> dict[str, str]:
        """The headers of Traefik's 429 (serveDelayError)."""
        return {
            "Retry-After": f"{math.ceil(self.delay):.0f}",
            "X-Retry-In": go_duration(round(self.delay * 1e9)),
            "Content-Type": "text/plain; charset=utf-8",  # Go sniffs the body it writes
        }


@dataclass
class _Bucket:
    tokens: float
    last: float  # when `tokens` was computed (x/time/rate's `last`)
    expiry: int  # whole seconds, as the ttlmap keeps it


class TraefikRateLimit:
    """Traefik's in-memory rate limiter for every source; `clock` is injectable (seconds)."""

    def __init__(
        self,
        average: int = 25,
        period: float = 60.0,
        burst: int = 50,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = average / period  # tokens a second
        self.burst = max(burst, 1)
        self.max_delay = 0.5 if self.rate < 1 else 1 / (int(self.rate) * 2)
        self.ttl = 1 + (1 if self.rate >= 1 else int(1 / self.rate))
        self.clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()
        self.refused = 0  # requests answered 429
        self.held = 0  # requests served after a hold

    def decide(self, source: str = "127.0.0.1") -> Decision:
        """Reserve a token for one request of `source`, as `inMemoryRateLimiter.Allow` does."""
        with self._lock:
            now = self.clock()
            bucket = self._buckets.get(source)
            if bucket is None or bucket.expiry <= math.floor(now):
                bucket = _Bucket(tokens=float(self.burst), last=now, expiry=0)
            bucket.expiry = math.floor(now + self.ttl)  # Set, on every request
            self._buckets[source] = bucket
            tokens = min(float(self.burst), bucket.tokens + max(0.0, now - bucket.last) * self.rate)
            left = tokens - 1
            delay = -left / self.rate if left < 0 else 0.0
            if delay > self.max_delay:  # Cancel: the token goes back, time still advances
                bucket.tokens, bucket.last = tokens, now
                self.refused += 1
                return Decision(delay, refused=True)
            bucket.tokens, bucket.last = left, now
            self.held += delay > 0
            return Decision(delay, refused=False)


def go_duration(nanoseconds: int) -> str:
    """Go's `time.Duration.String()`: "2.4s", "1m1.5s", "480ms", "1.5µs", "0s"."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    value = abs(nanoseconds)
    if value < 1_000:
        return f"{sign}{value}ns"
    if value < 1_000_000:
        return f"{sign}{_decimal(value, 1_000)}µs"
    if value < 1_000_000_000:
        return f"{sign}{_decimal(value, 1_000_000)}ms"
    hours, rest = divmod(value, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = f"{_decimal(rest, 1_000_000_000)}s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    if minutes:
        return f"{sign}{minutes}m{text}"
    return sign + text


def _decimal(value: int, unit: int) -> str:
    whole, fraction = divmod(value, unit)
    digits = str(fraction).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)
