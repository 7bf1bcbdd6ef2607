"""The fakes' shared machinery (tests/fakes/server.py): what other tests' assertions rest on.

Latency held by a clock and peak concurrency, hangs that end when the server stops, answers
streamed until the client hangs up, and the request log. Whether each fake speaks its real
service's contract is checked against recorded answers (test_contracts_*.py,
test_factcheck_contracts.py, test_querido_diario_contracts.py); the product's clients are tested
against the fakes in their own files.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import tavily
from tavily.errors import TimeoutError as TavilyTimeoutError

from tests.fakes.tavily import FakeTavily
from tests.fakes.web import FakeWeb
from tests.support.clock import FakeClock

RESULTS = [
    {"url": "https://news.example.org/a", "title": "A", "content": "alpha", "score": 0.9},
    {"url": "https://blog.other.net/b", "title": "B", "content": "beta", "score": 0.8},
]


@pytest.fixture
def fake_tavily():
    with FakeTavily(RESULTS) as fake:
        yield fake


async def test_hang_times_out_and_server_stops_promptly() -> None:
    fake = FakeTavily(RESULTS).start()
    fake.fail("hang")
    client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
    with pytest.raises(TavilyTimeoutError):  # cut by the client's timeout
        await client.search("q", timeout=0.3)
    await client.close()
    assert fake.wait_active(1)  # still hanging on the server's side ...
    fake.stop()
    assert fake.wait_idle(timeout=5)  # ... until the server stops


async def test_latency_and_peak_concurrency() -> None:
    """Latency holds each request by the fake's clock: overlap is shown by the clock, not by
    wall time, so a loaded machine changes nothing."""
    clock = FakeClock()
    with FakeTavily(RESULTS, latency=0.2, clock=clock) as fake:
        client = tavily.AsyncTavilyClient(api_key="tvly-test", api_base_url=fake.url)
        searches = asyncio.gather(*(client.search(f"q{i}") for i in range(4)))
        await clock.sleeping(4)  # all four are in, held by the latency
        clock.advance(0.1)
        assert clock.sleepers == 4 and fake.active == 4  # not yet: the latency is 0.2 s
        clock.advance(0.1)
        assert len(await searches) == 4
        assert fake.peak_concurrency == 4
        assert [r.ended - r.started for r in fake.requests] == [pytest.approx(0.2)] * 4
        await client.close()


@pytest.mark.parametrize("declare_length", [True, False])
def test_web_huge_page_streams(declare_length: bool) -> None:
    size = 20_000_000
    with FakeWeb() as web:
        url = web.add_huge("/big", size, declare_length=declare_length)
        with httpx.stream("GET", url) as resp:
            assert ("content-length" in resp.headers) is declare_length
            received = 0
            for chunk in resp.iter_bytes():
                received += len(chunk)
                if received > 200_000:
                    break
        full = httpx.get(web.add_huge("/small", 300_000, declare_length=declare_length))
        assert len(full.content) == 300_000 and full.text.startswith("<!DOCTYPE html>")
        assert web.wait_idle()  # the client hung up: the fake stopped sending
        assert web.requests[0].bytes_sent < size  # the client stopped it early


def test_log_records_json_body_and_headers(fake_tavily: FakeTavily) -> None:
    httpx.post(
        f"{fake_tavily.url}/search",
        content=json.dumps({"query": "q"}),
        headers={"Authorization": "Bearer tvly-test", "X-Test": "1"},
    )
    (req,) = fake_tavily.requests
    assert req.json == {"query": "q"} and req.header("x-test") == "1" and req.status == 200
    assert fake_tavily.count("/search", "POST") == 1
