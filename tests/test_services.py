"""One container holds what the process shares; another can be put in its place."""

from __future__ import annotations

import uuid

import httpx

from vicaran_agent import services
from vicaran_agent.clients.ratelimit import limiter
from vicaran_agent.config import Settings, get_settings
from vicaran_agent.documents.store import get_document_store
from vicaran_agent.schemas import InvestigationConfig
from vicaran_agent.server.app import build_server
from vicaran_agent.storage import get_repository


def test_a_container_of_its_own_shares_nothing_with_the_one_before(tmp_path):
    url = f"sqlite:///{tmp_path / 'records.db'}"
    outer = get_repository(url)
    budget = limiter("tavily", 60)
    own = services.Services()
    with services.use(own) as current:
        assert current is own is services.current()
        inner = get_repository(url)
        assert inner is not outer and get_repository(url) is inner
        assert limiter("tavily", 60) is not budget
        assert get_document_store(url) is get_document_store(url)
        own.running.add("inv-1")
    assert services.current() is not own and get_repository(url) is outer
    assert limiter("tavily", 60) is budget and "inv-1" not in services.current().running
    own.close()
    assert own.repositories == {} and own.document_stores == {}


def _container(tmp_path, name: str) -> services.Services:
    url = f"sqlite:///{tmp_path / f'{name}.db'}"
    return services.Services(settings=Settings(_env_file=None, vicaran_database_url=url))


async def test_two_servers_in_one_process_each_run_with_the_container_they_were_handed(tmp_path):
    """Neither is the process's container: each request (and the server's start) uses its own."""
    newsroom_a, newsroom_b = _container(tmp_path, "a"), _container(tmp_path, "b")
    config = InvestigationConfig.for_mode(
        "quick",
        investigation_id=str(uuid.uuid4()),
        title="Port tender",
        brief="Who won it?",
        language="en",
    )
    with services.use(newsroom_a):
        get_repository(get_settings().database_url).start_investigation(config)
    listed = {}
    for name, container in (("a", newsroom_a), ("b", newsroom_b)):
        app = build_server(with_adk=False, services=container)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
            answer = await http.get("/api/investigations")
        assert answer.status_code == 200, answer.text
        listed[name] = [item["title"] for item in answer.json()]
        assert app.state.services is container
    assert listed == {"a": ["Port tender"], "b": []}
    assert services.current() not in (newsroom_a, newsroom_b)
    assert set(newsroom_a.repositories) == {get_settings_of(newsroom_a)}
    newsroom_a.close()
    newsroom_b.close()


def get_settings_of(container: services.Services) -> str:
    assert container.settings is not None
    return container.settings.database_url
