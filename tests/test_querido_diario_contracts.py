"""Querido Diário's recorded answers (tests/fixtures/contracts/querido_diario), in the real
service's shapes, parsed by Vicaran's own client; and the fake answers in the same shapes."""

from __future__ import annotations

from typing import Any

import httpx

from tests.fakes.querido_diario import FakeQueridoDiario
from tests.fakes.server import RecordedRequest, Response
from tests.fakes.traefik import TraefikRateLimit
from tests.support import contracts
from tests.support.clock import FakeClock
from tests.support.contracts import ContractServer, Recorded
from vicaran_agent.clients.querido_diario import QueridoDiario
from vicaran_agent.config import Settings

SERVICE = "querido_diario"
PRODUCTION = "api.queridodiario.org.br"


def recorded(name: str) -> Recorded:
    return contracts.load(SERVICE, name)


def client_for(url: str, clock: FakeClock | None = None, **overrides: Any) -> QueridoDiario:
    values: dict[str, Any] = {"querido_diario_base_url": url, "vicaran_max_retries": 2}
    values.update(overrides)
    return QueridoDiario(
        Settings(_env_file=None, **values),  # type: ignore[call-arg]
        backoff_base=0.01,
        backoff_max=0.05,
        clock=clock or FakeClock(autojump=True),
    )


def test_every_recording_cites_its_source_and_each_is_tested_here():
    names = [r.name for r in contracts.every(SERVICE)]
    assert names == [
        "cities",
        "city_not_found",
        "gazettes_empty",
        "gazettes_search",
        "rate_limited_429",
        "trailing_slash_307",
        "validation_422",
    ]
    for answer in contracts.every(SERVICE):
        assert any("okfn-brasil/" in s or "traefik/traefik" in s for s in answer.sources)


async def test_a_search_with_excerpts_and_omitted_none_fields():
    answer = recorded("gazettes_search")
    with contracts.serve(answer) as server:
        outcome = await client_for(server.url).search(['"contrato emergencial"'])

    assert outcome.failures == []
    assert outcome.totals == {'"contrato emergencial"': 143}  # the hit count, not the page
    full, bare = outcome.gazettes
    assert (full.territory_id, full.territory_name, full.state_code, full.date) == (
        "4314902",
        "Porto Alegre",
        "RS",
        "2024-05-17",
    )
    assert full.edition == "7791" and full.is_extra_edition is True
    assert full.txt_url is not None and full.txt_url.endswith(".txt")
    assert len(full.excerpts) == 2 and "limpeza urbana\nnas áreas" in full.excerpts[0]
    # the fields the API leaves out when None, and a gazette keyed by its file
    assert (bare.edition, bare.is_extra_edition, bare.txt_url, bare.excerpts) == (
        None,
        None,
        None,
        (),
    )
    assert bare.key == bare.url and "digitaloceanspaces" in bare.url


async def test_an_empty_search_is_no_gazette_and_no_failure():
    with contracts.serve(recorded("gazettes_empty")) as server:
        outcome = await client_for(server.url).search(["invasão alienígena"])

    assert outcome.gazettes == [] and outcome.failures == []
    assert outcome.totals == {"invasão alienígena": 0}


async def test_the_city_list_resolves_names_without_accents_and_homonyms_by_state():
    with contracts.serve(recorded("cities")) as server:
        client = client_for(server.url)
        sao_paulo = await client.resolve_city("sao paulo")
        bom_jesus = await client.resolve_city("Bom Jesus/RS")
        asked = [r.raw_path for r in server.requests]

    assert sao_paulo.city is not None and sao_paulo.city.territory_id == "3550308"
    assert sao_paulo.city.level == "3"  # a string, as the API's CityLevel
    assert bom_jesus.city is not None and bom_jesus.city.territory_id == "4302303"
    assert asked == ["/cities"]  # fetched once, unfiltered, without a trailing slash


async def test_a_404_is_a_failure_line_that_points_at_the_address_setting():
    """The retired host answers 404 on every path: said as a wrong address, not retried."""
    with contracts.serve(recorded("city_not_found")) as server:
        client = client_for(server.url)
        resolution = await client.resolve_city("Porto Alegre")
        outcome = await client.search(["limpeza"])
        sent, url = server.count(), server.url

    assert resolution.city is None and resolution.failure is not None
    assert "answered HTTP 404: check QUERIDO_DIARIO_BASE_URL" in resolution.failure
    assert outcome.failures == [
        f"Querido Diário answered HTTP 404: check QUERIDO_DIARIO_BASE_URL ({url})"
    ]
    assert sent == 2  # never retried


async def test_a_422_is_said_with_fastapis_detail():
    with contracts.serve(recorded("validation_422")) as server:
        outcome = await client_for(server.url).search(["limpeza"])

    (line,) = outcome.failures
    assert line == (
        'Querido Diário rejected the search "limpeza" (published_since: Input should be a valid '
        "date or datetime, invalid character in year)"
    )


class Forward(ContractServer):
    """The recorded 307, its Location's origin moved to `to` (the tests stay offline)."""

    def __init__(self, answer: Recorded, to: str) -> None:
        super().__init__(answer)
        self.to = to

    def handle(self, request: RecordedRequest) -> Response:
        location = httpx.URL(self.answer.header("Location") or "")
        moved = f"{self.to}{location.raw_path.decode()}"
        return Response(self.answer.status, {**self.answer.headers, "Location": moved}, b"")


async def test_the_trailing_slash_307_is_followed_to_the_path_without_it():
    answer = recorded("trailing_slash_307")
    location = httpx.URL(answer.header("Location") or "")
    assert (location.scheme, location.host, location.path) == ("http", PRODUCTION, "/cities")
    with contracts.serve(recorded("cities")) as cities, Forward(answer, cities.url) as slash:
        # the stand-in for the production host is on loopback: the tests' private allowance
        client = client_for(slash.url, vicaran_fetch_allow_private=True)
        resolution = await client.resolve_city("Porto Alegre")

    assert resolution.city is not None and resolution.city.territory_id == "4314902"
    assert [r.path for r in cities.requests] == ["/cities"]


async def test_traefiks_429_is_waited_out_for_its_retry_after_then_said():
    clock = FakeClock(autojump=True)
    with contracts.serve(recorded("rate_limited_429")) as server:
        outcome = await client_for(server.url, clock=clock).search(["limpeza"])
        sent = server.count()

    assert clock.slept == [3.0, 3.0]  # Retry-After, before each of the 2 retries
    assert sent == 3
    (line,) = outcome.failures
    assert line.startswith("Querido Diário rate limit hit (429) (still failing after 2 retries)")


def test_the_fake_answers_in_the_recorded_shapes():
    """Where the fake and the real service differ, the fake changes: compare them here."""
    bucket = TraefikRateLimit(burst=1, clock=lambda: 0.0)
    with FakeQueridoDiario(rate_limit=bucket) as fake:
        http = httpx.Client(follow_redirects=False)
        search = http.get(f"{fake.url}/gazettes", params={"querystring": "x"})
        refused = http.get(f"{fake.url}/cities")
        fake.rate_limit = None
        cities = http.get(f"{fake.url}/cities").json()
        missing = http.get(f"{fake.url}/cities/9999999")
        slash = http.get(f"{fake.url}/cities/")
        invalid = http.get(f"{fake.url}/gazettes", params={"published_since": "01/02/2023"})
        injected = (fake.fail(429, times=1), http.get(f"{fake.url}/cities"))[1]
        http.close()

    assert set(search.json()) == set(recorded("gazettes_empty").json())
    real_429 = recorded("rate_limited_429")
    for answer in (refused, injected):  # the bucket's, and a 429 a test injects
        assert answer.status_code == 429 and answer.content == real_429.body
        assert answer.headers["content-type"] == real_429.header("Content-Type")
        assert answer.headers["retry-after"] == real_429.header("Retry-After")
        assert answer.headers["x-retry-in"] == real_429.header("X-Retry-In")
    real_city = recorded("cities").json()["cities"][0]
    assert set(cities["cities"][0]) <= set(real_city) and "level" in cities["cities"][0]
    assert (missing.status_code, missing.json()) == (404, recorded("city_not_found").json())
    assert slash.status_code == 307 and httpx.URL(slash.headers["location"]).path == "/cities"
    assert invalid.json() == recorded("validation_422").json()
