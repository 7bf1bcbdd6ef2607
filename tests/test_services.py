"""One container holds what the process shares; another can be put in its place."""

from __future__ import annotations

from vicaran_agent import services
from vicaran_agent.clients.ratelimit import limiter
from vicaran_agent.documents.store import get_document_store
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
