"""Shared fixtures: loopback fakes, a hermetic environment and the scripted model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# Tests never read a developer's .env (ADK's CLI honours the same switch in subprocesses).
os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"

from tests.fakes.factcheck import FakeFactCheckTools
from tests.fakes.jina import FakeJinaReader
from tests.fakes.querido_diario import FakeQueridoDiario
from tests.fakes.tavily import FakeTavily
from tests.fakes.web import FakeWeb
from tests.support import scripted_model
from tests.support.corpus import MACEIO, RIVERTON, pages, search_results
from tests.support.databases import BACKENDS, migrated_sqlite, records_database
from vicaran_agent import services as shared
from vicaran_agent.clients import safety
from vicaran_agent.clients.ratelimit import RateLimiter
from vicaran_agent.config import forget_settings
from vicaran_agent.workers.parsing import close_pools, parse_pool

PORTUGUESE_HINTS = ("maceió", "maceio", "merenda", "prefeitura", "licitação")


def _results_for(query: str, _body: dict[str, object]) -> list[dict[str, object]]:
    if any(hint in query.lower() for hint in PORTUGUESE_HINTS):
        return search_results(MACEIO)
    return search_results(RIVERTON)


async def _offline_resolve(host: str, port: int) -> set:
    """No DNS in tests: public-looking hosts do not resolve (as on a closed network)."""
    raise safety.UnreachableURLError(f"could not resolve host {host}: tests run offline")


@dataclass
class Services:
    tavily: FakeTavily
    jina: FakeJinaReader
    web: FakeWeb
    factcheck: FakeFactCheckTools
    querido_diario: FakeQueridoDiario


@dataclass
class TestEnv:
    services: Services
    database_url: str
    monkeypatch: pytest.MonkeyPatch

    def set(self, **values: str) -> None:
        """Change settings (env var names) for the rest of the test."""
        for name, value in values.items():
            self.monkeypatch.setenv(name, value)
        forget_settings()

    @property
    def variables(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k.startswith(_PREFIXES)}


_PREFIXES = (
    "VICARAN_", "TAVILY_", "JINA_", "GOOGLE_", "ADK_", "CALLBACK_", "AGENT_", "FACTCHECK_",
    "SCRIPTED_", "QUERIDO_",
)  # fmt: skip


@pytest.fixture(autouse=True, scope="session")
def _parsers_started() -> Iterator[None]:
    """The parse pool's worker processes, started once for the whole run (as `vicaran serve`
    starts them), so that no test's time limits count their start-up; stopped at its end."""
    parse_pool().wait_ready(120)
    yield
    close_pools()


@pytest.fixture(autouse=True)
def _no_request_budgets(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-service rate limits are process-wide; only tests marked `real_rate_limits` feel them."""
    if request.node.get_closest_marker("real_rate_limits") is None:
        monkeypatch.setattr(RateLimiter, "reserve", lambda self: 0.0)


@pytest.fixture
def services() -> Iterator[Services]:
    with (
        FakeTavily(results=search_results(RIVERTON), overrides=_results_for) as tavily,
        FakeJinaReader(pages(RIVERTON + MACEIO)) as jina,
        FakeWeb() as web,
        FakeFactCheckTools() as factcheck,
        FakeQueridoDiario() as querido_diario,
    ):
        yield Services(tavily, jina, web, factcheck, querido_diario)


@pytest.fixture
def env(
    services: Services,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[TestEnv]:
    """Vicaran wired to the fakes, the scripted model and a fresh SQLite file (outside the
    test's `tmp_path`, which stays the test's own: a folder of files to add, say)."""
    for name in list(os.environ):
        if name.startswith(_PREFIXES) and name != "ADK_DISABLE_LOAD_DOTENV":
            monkeypatch.delenv(name)
    database_url = migrated_sqlite(tmp_path_factory.mktemp("records") / "vicaran.db")
    values = {
        "VICARAN_FAST_MODEL": "scripted/default",
        "VICARAN_PRO_MODEL": "scripted/default",
        "TAVILY_API_KEY": "tvly-test",
        "TAVILY_BASE_URL": services.tavily.url,
        "JINA_READER_BASE_URL": services.jina.url,
        "FACTCHECK_API_KEY": "test-key",
        "FACTCHECK_BASE_URL": services.factcheck.url,
        "QUERIDO_DIARIO_BASE_URL": services.querido_diario.url,
        "VICARAN_DATABASE_URL": database_url,
        "VICARAN_PAGE_TIMEOUT_SECONDS": "2",
        "VICARAN_SEARCH_TIMEOUT_SECONDS": "2",
        "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS": "2",
        "VICARAN_MODEL_TIMEOUT_SECONDS": "10",
        "VICARAN_MAX_RETRIES": "1",
        "VICARAN_LIVE_SEARCH_FALLBACK": "false",
        # subprocesses (adk api_server, adk run) do not get the in-process budget patch
        "VICARAN_TAVILY_RPM": "60000",
        "VICARAN_JINA_RPM": "60000",
        "VICARAN_FACTCHECK_RPM": "60000",
        "VICARAN_QUERIDO_DIARIO_RPM": "60000",
        "VICARAN_GATHER_TIMEOUT_SECONDS": "5",
        "VICARAN_GAZETTE_TIMEOUT_SECONDS": "20",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(safety, "_resolve", _offline_resolve)
    forget_settings()
    scripted_model.reset_calls()
    yield TestEnv(services, database_url, monkeypatch)
    forget_settings()


@pytest.fixture(autouse=True)
def _own_services() -> Iterator[shared.Services]:
    """Each test runs with its own services container (records stores, request budgets, city
    lists, runtimes, detached runs...), sharing only the session's parse pools; the stores it
    opened are closed after it (a SQLite store keeps three file descriptors, and 2,000 tests of
    fresh databases ran the process past what `select` accepts)."""
    own = shared.Services(parse_pools=shared.current().parse_pools)
    with shared.use(own):
        yield own
    own.close()


@pytest.fixture(params=BACKENDS)
def records_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty records database, once per backend (PostgreSQL skips without a server)."""
    with records_database(request.param, tmp_path) as url:
        yield url
