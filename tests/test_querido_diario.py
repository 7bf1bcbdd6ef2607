"""The Querido Diário client against the loopback fake: real httpx, real HTTP, no network."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from tests.fakes.querido_diario import FakeCity, FakeGazette, FakeQueridoDiario
from tests.fakes.server import FakeServer, RecordedRequest, Response
from tests.fakes.traefik import TraefikRateLimit
from tests.support.clock import FakeClock
from tests.support.gazettes import BY_NUMBER, text_of
from tests.support.wait import until
from vicaran_agent.clients import querido_diario_http as qd_http
from vicaran_agent.clients.querido_diario import QueridoDiario
from vicaran_agent.config import Settings

PA = BY_NUMBER[1]
VALIDATION_422 = {
    "detail": [
        {
            "type": "date_from_datetime_parsing",
            "loc": ["query", "published_since"],
            "msg": "Input should be a valid date or datetime, invalid character in year",
            "input": "01/02/2023",
            "ctx": {"error": "invalid character in year"},
        }
    ]
}


@pytest.fixture
def fake() -> Iterator[FakeQueridoDiario]:
    with FakeQueridoDiario() as server:
        yield server


def settings_for(url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "querido_diario_base_url": url,
        "vicaran_max_retries": 2,
        "vicaran_search_timeout_seconds": 2,
        "vicaran_page_timeout_seconds": 2,
        "vicaran_concurrency": 4,
        "vicaran_fetch_allow_private": True,  # the fake's texts are on 127.0.0.1
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


def client_for(url: str, **overrides: Any) -> QueridoDiario:
    return QueridoDiario(settings_for(url, **overrides), backoff_base=0.01, backoff_max=0.05)


class Scripted(FakeServer):
    """Answers every request with the next of `responses` (the last one repeats)."""

    def __init__(self, *responses: Response) -> None:
        super().__init__()
        self.responses = list(responses)

    def handle(self, request: RecordedRequest) -> Response:
        return self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]


# --- /gazettes: the requests ----------------------------------------------------------------


async def test_every_search_request_carries_size_excerpts_sort_and_repeated_territories(fake):
    client = client_for(fake.url)
    await client.search(
        ['"contrato emergencial"', '"estado de calamidade"'],
        territory_ids=["4314902", "4304606"],
        published_since=date(2024, 5, 1),
        published_until="2024-07-31",
    )

    searches = fake.searches()
    assert sorted(r.query["querystring"][0] for r in searches) == [
        '"contrato emergencial"',
        '"estado de calamidade"',
    ]
    for request in searches:
        assert request.path == "/gazettes"  # never a trailing slash (that answers 307)
        assert request.query["size"] == ["30"]
        assert request.query["excerpt_size"] == ["500"]
        assert request.query["number_of_excerpts"] == ["3"]
        assert request.query["sort_by"] == ["relevance"]
        assert request.query["territory_ids"] == ["4314902", "4304606"]
        assert "territory_ids=4314902&territory_ids=4304606" in request.raw_path
        assert request.query["published_since"] == ["2024-05-01"]
        assert request.query["published_until"] == ["2024-07-31"]


async def test_a_comma_joined_territory_is_split_not_sent_as_one_id(fake):
    await client_for(fake.url).search(["limpeza"], territory_ids="4314902,4304606")

    (request,) = fake.searches()
    assert request.query["territory_ids"] == ["4314902", "4304606"]


async def test_the_size_asked_is_sent(fake):
    await client_for(fake.url).search(["limpeza"], territory_ids=["4314902"], size=5)

    assert fake.searches()[0].query["size"] == ["5"]


# --- /gazettes: the answers -----------------------------------------------------------------


def _direct(fake: FakeQueridoDiario, query: str) -> dict[str, Any]:
    params = [
        ("querystring", query),
        ("territory_ids", PA.territory_id),
        ("published_since", PA.since),
        ("published_until", PA.until),
        ("size", "30"),
    ]
    return httpx.get(f"{fake.url}/gazettes", params=params).json()


async def test_results_are_merged_by_txt_url_keeping_the_queries_and_each_total(fake):
    queries = ['"contrato emergencial"', '"estado de calamidade"']
    outcome = await client_for(fake.url).search(
        queries, territory_ids=[PA.territory_id], published_since=PA.since, published_until=PA.until
    )

    answers = {q: _direct(fake, q) for q in queries}
    by_query = {q: {g["txt_url"] for g in answers[q]["gazettes"]} for q in queries}
    both = by_query[queries[0]] & by_query[queries[1]]
    assert both  # the fixture has gazettes both queries find
    assert outcome.failures == []
    assert outcome.totals == {q: answers[q]["total_gazettes"] for q in queries}
    keys = [g.txt_url for g in outcome.gazettes]
    assert len(keys) == len(set(keys)) == len(by_query[queries[0]] | by_query[queries[1]])
    for gazette in outcome.gazettes:
        expected = tuple(q for q in queries if gazette.txt_url in by_query[q])
        assert gazette.queries == expected
        assert gazette.territory_name == "Porto Alegre" and gazette.state_code == "RS"
    merged = next(g for g in outcome.gazettes if g.txt_url in both)
    assert any("CONTRATO EMERGENCIAL" in e for e in merged.excerpts)
    assert any("calamidade" in e for e in merged.excerpts)


async def test_fields_the_api_omits_are_none_and_a_gazette_without_txt_url_keys_by_url():
    bare = FakeGazette("2704302", "2023-10-31", "Licitação de merenda.", has_txt=False)
    with FakeQueridoDiario([bare], [FakeCity("2704302", "Maceió", "AL")]) as fake:
        outcome = await client_for(fake.url).search(["merenda"])

    (gazette,) = outcome.gazettes
    assert gazette.txt_url is None and gazette.edition is None
    assert gazette.is_extra_edition is None
    assert gazette.key == gazette.url and gazette.url.endswith(".pdf")
    assert gazette.excerpts and "merenda" in gazette.excerpts[0]


async def test_an_identical_search_is_sent_once_per_client(fake):
    client = client_for(fake.url)
    first = await client.search(["limpeza"], territory_ids=["4314902"])
    second = await client.search(["limpeza"], territory_ids=["4314902"])

    assert fake.count("/gazettes") == 1
    assert [g.key for g in first.gazettes] == [g.key for g in second.gazettes]


# --- /gazettes: failures, said plainly ------------------------------------------------------


@pytest.mark.parametrize(
    ("since", "until", "said"),
    [
        ("01/05/2024", None, 'published_since must be a date as YYYY-MM-DD, not "01/05/2024"'),
        ("2024-05-01", "2024-13-01", "published_until must be a date"),
        ("2024-07-31", "2024-05-01", "the period starts (2024-07-31) after it ends (2024-05-01)"),
    ],
)
async def test_bad_dates_are_a_failure_line_and_nothing_is_sent(fake, since, until, said):
    outcome = await client_for(fake.url).search(
        ["limpeza"], published_since=since, published_until=until
    )

    assert outcome.gazettes == [] and len(outcome.failures) == 1
    assert said in outcome.failures[0]
    assert fake.count("/gazettes") == 0


async def test_a_422_becomes_a_failure_line_with_its_detail():
    with Scripted(Response.json(422, VALIDATION_422)) as server:
        outcome = await client_for(server.url).search(["limpeza"])
        sent = server.count()

    assert sent == 1  # a 422 is not retried
    assert outcome.gazettes == []
    (line,) = outcome.failures
    assert line.startswith('Querido Diário rejected the search "limpeza"')
    assert "published_since: Input should be a valid date or datetime" in line


async def test_a_503_is_retried_and_the_search_goes_on(fake):
    fake.fail(503, times=1)

    outcome = await client_for(fake.url).search(["limpeza"], territory_ids=["4314902"])

    assert outcome.failures == [] and outcome.gazettes
    assert fake.count("/gazettes") == 2


async def test_a_lasting_503_is_one_failure_line_and_the_other_queries_still_answer(fake):
    fake.fail(503, query="calamidade")

    outcome = await client_for(fake.url).search(
        ['"estado de calamidade"', "limpeza"], territory_ids=["4314902"]
    )

    assert outcome.failures == [
        "Querido Diário server error (HTTP 503) (still failing after 2 retries): try again later"
    ]
    assert list(outcome.totals) == ["limpeza"] and outcome.gazettes
    assert all(g.queries == ("limpeza",) for g in outcome.gazettes)
    assert fake.count("/gazettes") == 4  # 3 tries of the failing query, 1 of the other


async def test_a_lasting_429_says_which_budget_to_lower(fake):
    fake.fail(429)

    client = QueridoDiario(
        settings_for(fake.url, vicaran_max_retries=1), clock=FakeClock(autojump=True)
    )
    outcome = await client.search(["limpeza"])

    (line,) = outcome.failures
    assert "rate limit hit (429)" in line and "VICARAN_QUERIDO_DIARIO_RPM" in line


async def test_an_unreachable_api_is_a_failure_line_not_an_exception():
    outcome = await client_for("http://127.0.0.1:9", vicaran_max_retries=0).search(["limpeza"])

    (line,) = outcome.failures
    assert line.startswith("Could not reach Querido Diário at http://127.0.0.1:9")
    assert "QUERIDO_DIARIO_BASE_URL" in line


# --- a moved API: redirects followed hop by hop, each checked ------------------------------


class Moved(FakeServer):
    """An old address that answers every request with `status` and the same path at `to`
    (`to` None: itself, a loop; "deeper": one more path segment each time, never the same)."""

    def __init__(self, status: int, to: FakeServer | str | None) -> None:
        super().__init__()
        self.status = status
        self.to = to

    def handle(self, request: RecordedRequest) -> Response:
        if self.to == "deeper":
            path, _, query = request.raw_path.partition("?")
            location = f"{self.url}{path}/x" + (f"?{query}" if query else "")
        else:
            base = self.url if self.to is None else self.to.url  # type: ignore[union-attr]
            location = f"{base}{request.raw_path}"
        return Response(self.status, {"Location": location, "Content-Length": "0"})


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_a_moved_api_is_followed_to_its_new_host(fake, status):
    with Moved(status, fake) as old:
        client = client_for(old.url)
        outcome = await client.search(["limpeza"], territory_ids=["4314902"])
        city = await client.resolve_city("Porto Alegre")

    assert outcome.failures == [] and outcome.gazettes
    assert city.city is not None and city.city.territory_id == "4314902"
    (search,) = fake.searches()
    assert search.query["querystring"] == ["limpeza"]
    assert search.query["territory_ids"] == ["4314902"]  # the query string survives the hop
    assert [r.path for r in old.requests] == ["/gazettes", "/cities"]
    assert client.requests == 4  # every hop is a request of the budget


async def test_a_redirect_loop_is_one_clear_failure_line():
    with Moved(307, None) as loop:
        client = client_for(loop.url)
        outcome = await client.search(["limpeza"])
        city = await client.resolve_city("Porto Alegre")
        sent = loop.count()

    (line,) = outcome.failures
    assert line.startswith("Querido Diário's address redirects in a loop")
    assert "QUERIDO_DIARIO_BASE_URL" in line
    assert city.city is None and "redirects in a loop" in city.note
    assert sent == 2  # one request each: its Location is the URL just asked; never retried


async def test_too_many_redirects_is_one_clear_failure_line():
    with Moved(301, "deeper") as deep:
        outcome = await client_for(deep.url).search(["limpeza"])
        sent = deep.count()

    (line,) = outcome.failures
    assert line.startswith("Querido Diário's address redirected more than 5 times")
    assert sent == 6  # the request and five redirects, then no more


async def test_the_configured_api_may_be_private_but_its_redirects_are_checked(fake):
    private = {"vicaran_fetch_allow_private": False}
    direct = await client_for(fake.url, **private).search(["limpeza"], territory_ids=["4314902"])
    with Moved(307, fake) as old:
        moved = await client_for(old.url, **private).search(["limpeza"])

    assert direct.failures == [] and direct.gazettes  # the operator's own address: trusted
    (line,) = moved.failures  # a redirect into a private network is not followed
    assert "refusing to fetch" in line and "loopback" in line
    assert len(fake.searches()) == 1


# --- cities ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "state", "territory_id"),
    [
        ("sao paulo", None, "3550308"),  # the API's own filter would find nothing
        ("SÃO PAULO", None, "3550308"),  # not São Paulo de Olivença
        ("porto alegre", None, "4314902"),
        ("Niteroi", None, "3303302"),
        ("santa barbara d oeste", None, "3545803"),
        ("Porto Alegre/RS", None, "4314902"),
        ("Bom Jesus (RS)", None, "4302303"),
        ("Bom Jesus", "pi", "2201903"),
    ],
)
async def test_city_names_match_without_accents_case_or_punctuation(
    fake, name, state, territory_id
):
    resolution = await client_for(fake.url).resolve_city(name, state)

    assert resolution.city is not None and resolution.city.territory_id == territory_id
    assert resolution.candidates == () and resolution.failure is None
    assert resolution.note.endswith(f"is territory {territory_id}")


async def test_the_city_list_is_fetched_once_per_process(fake):
    first, second = client_for(fake.url), client_for(fake.url)

    found = await asyncio.gather(
        first.resolve_city("Curitiba"),
        first.resolve_city("belo horizonte"),
        second.resolve_city("Rio de Janeiro"),
        second.resolve_city("Sao Paulo"),
    )
    again = await client_for(fake.url).resolve_city("Canoas")

    assert [r.city.territory_id for r in (*found, again) if r.city] == [
        "4106902",
        "3106200",
        "3304557",
        "3550308",
        "4304606",
    ]
    (request,) = [r for r in fake.requests if r.path.startswith("/cities")]
    assert request.raw_path == "/cities"  # every city: no name filter, no trailing slash


async def test_homonyms_without_a_state_are_candidates_and_the_search_goes_unfiltered(fake):
    resolution = await client_for(fake.url).resolve_city("bom jesus")

    assert resolution.city is None
    assert sorted(c.state_code for c in resolution.candidates) == ["PI", "RS", "SC"]
    assert resolution.note == (
        "3 cities are named Bom Jesus (PI, RS, SC): searching without a city filter"
    )
    assert "3 cidades se chamam Bom Jesus" in resolution.note.said_in("pt-BR")


async def test_a_state_that_has_no_such_city_is_said(fake):
    resolution = await client_for(fake.url).resolve_city("Curitiba", "SP")

    assert resolution.city is None
    assert [c.territory_id for c in resolution.candidates] == ["4106902"]
    assert resolution.note == (
        "No city named Curitiba in SP (only in PR): searching without a city filter"
    )


@pytest.mark.parametrize(
    ("name", "close"),
    [("Porto Alegr", "4314902"), ("Olivença", "1303908"), ("Curitbia", "4106902")],
)
async def test_an_unknown_city_gets_close_names(fake, name, close):
    resolution = await client_for(fake.url).resolve_city(name)

    assert resolution.city is None and resolution.candidates == ()
    assert close in [c.territory_id for c in resolution.close]
    assert (
        "close names:" in resolution.note and "searching without a city filter" in resolution.note
    )


async def test_an_unlisted_city_without_close_names_is_said(fake):
    resolution = await client_for(fake.url).resolve_city("Xique-Xique")

    assert resolution.city is None and resolution.close == ()
    assert resolution.note == (
        "Querido Diário knows no city named Xique-Xique: searching without a city filter"
    )


async def test_a_failed_city_list_is_said_and_not_remembered(fake):
    fake.fail(503, path="/cities", times=3)
    client = client_for(fake.url)

    failed = await client.resolve_city("Curitiba")
    later = await client.resolve_city("Curitiba")

    assert failed.city is None and failed.failure is not None
    assert "HTTP 503" in failed.note and "searching without a city filter" in failed.note
    assert later.city is not None and later.city.territory_id == "4106902"
    assert fake.count("/cities") == 4


# --- texts ----------------------------------------------------------------------------------


async def test_a_gazette_text_is_read_whole_as_the_api_gives_it(fake):
    path = PA.decisive[0].path

    text = await client_for(fake.url).read_text(fake.txt_url(path))

    assert text == text_of(path)


async def test_a_gazette_text_is_cut_at_max_chars(fake):
    path = PA.decisive[0].path

    read = await client_for(fake.url).read(fake.txt_url(path), max_chars=120)

    assert read.text == text_of(path)[:120] and read.truncated and read.failure is None


async def test_a_gazette_text_never_reads_more_than_the_page_byte_cap(fake):
    path = PA.decisive[0].path
    client = client_for(fake.url, vicaran_max_page_bytes=300)

    read = await client.read(fake.txt_url(path), max_chars=80_000)

    assert read.text is not None and read.truncated
    assert len(read.text.encode()) <= 300 and text_of(path).startswith(read.text)


async def test_a_gazette_text_on_a_private_address_is_refused_outside_tests(fake):
    path = PA.decisive[0].path
    client = client_for(fake.url, vicaran_fetch_allow_private=False)

    read = await client.read(fake.txt_url(path))

    assert read.text is None
    assert "refusing to fetch" in str(read.failure) and "loopback" in str(read.failure)
    assert fake.count(f"/{path}") == 0


async def test_a_missing_text_is_none_with_the_reason(fake):
    read = await client_for(fake.url).read(f"{fake.url}/4314902/2024-05-17/nothing.txt")

    assert read.text is None
    assert read.failure == (
        f"Could not read the gazette text at {fake.url}/4314902/2024-05-17/nothing.txt: the file "
        "host answered HTTP 404"
    )
    assert await client_for(fake.url).read_text("not a url") is None


async def test_a_503_on_a_text_is_retried(fake):
    path = PA.decisive[0].path
    fake.fail(503, path=f"/{path}", times=1)

    text = await client_for(fake.url).read_text(fake.txt_url(path))

    assert text == text_of(path) and fake.count(f"/{path}") == 2


# --- the request budget ---------------------------------------------------------------------


async def test_every_request_takes_a_slot_of_the_querido_diario_budget(fake, monkeypatch):
    taken: list[tuple[str, int, float]] = []

    class Spy:
        def __init__(self, key: tuple[str, int, float]) -> None:
            self.key = key

        async def acquire(self) -> None:
            taken.append(self.key)

    monkeypatch.setattr(qd_http, "limiter", lambda *key, clock: Spy((*key, clock is client.clock)))
    fake.fail(503, times=1, query="limpeza")
    client = client_for(
        fake.url,
        vicaran_querido_diario_rpm=42,
        vicaran_rate_window_seconds=30,
        vicaran_querido_diario_burst=7,
    )

    await client.search(["limpeza", "calamidade"], territory_ids=["4314902"])
    await client.resolve_city("Porto Alegre")
    await client.read_text(fake.txt_url(PA.decisive[0].path))

    assert len(fake.requests) == 5  # 2 searches + 1 retry, the city list, a text
    assert taken == [("querido_diario", 42, 30, 7, True)] * 5  # timed by the client's clock
    assert client.requests == 5


@pytest.mark.real_rate_limits
async def test_no_window_carries_more_requests_than_the_budget():
    # 120 a minute over a 1 s window: 2 requests a second, whatever the concurrency; 4 searches
    # go in two bursts, the second a window (plus the limiter's margin) after the first. The
    # client and the fake share a clock that only the test moves.
    clock = FakeClock()
    with FakeQueridoDiario(clock=clock) as fake:
        client = QueridoDiario(
            settings_for(fake.url, vicaran_querido_diario_rpm=120, vicaran_rate_window_seconds=1.0),
            backoff_base=0.01,
            backoff_max=0.05,
            clock=clock,
        )
        search = asyncio.create_task(
            client.search([f"limpeza {n}" for n in range(4)], territory_ids=["4314902"])
        )
        await clock.sleeping(2)  # two searches wait for the next window
        await until(lambda: len(fake.searches()) == 2, "the first window's two searches")
        clock.advance(0.99)
        assert clock.sleepers == 2  # not within the window
        clock.advance(clock.next_deadline() - clock.now())
        await search

    stamps = sorted(r.started for r in fake.searches())
    assert len(stamps) == 4
    assert max(sum(1 for s in stamps if t <= s < t + 1.0) for t in stamps) == 2


def test_the_budget_and_timeout_default_to_the_production_service():
    """api-rate-limit: 25 a minute, burst 50 (querido-diario-deployment); cold queries 20-36 s."""
    settings = Settings(_env_file=None)

    assert settings.vicaran_querido_diario_rpm == 25
    assert 1 <= settings.vicaran_querido_diario_burst <= 50
    assert settings.vicaran_querido_diario_timeout_seconds == 45
    for burst in (0, 51):
        with pytest.raises(ValidationError, match="vicaran_querido_diario_burst"):
            Settings(_env_file=None, vicaran_querido_diario_burst=burst)


async def test_a_429_waits_its_retry_after_even_past_the_backoff_cap(monkeypatch):
    holds: list[float] = []
    monkeypatch.setattr(qd_http.RateLimiter, "hold", lambda self, seconds: holds.append(seconds))
    clock = FakeClock(autojump=True)
    refused = Response(429, {"Retry-After": "20"}, b"Too Many Requests")
    with Scripted(refused, Response.json(200, {"total_gazettes": 0, "gazettes": []})) as server:
        client = QueridoDiario(
            settings_for(server.url), backoff_base=0.01, backoff_max=0.05, clock=clock
        )
        outcome = await client.search(["limpeza"])
        sent = server.count()

    assert outcome.failures == [] and sent == 2
    assert clock.slept == [20.0]  # the server's word, not the 0.05 s backoff cap
    assert holds == [20.0]  # and every other request of the process waits as long


async def test_a_retry_after_longer_than_a_request_may_take_is_said_not_waited():
    clock = FakeClock(autojump=True)
    refused = Response(429, {"Retry-After": "600"}, b"Too Many Requests")
    with Scripted(refused) as server:
        client = QueridoDiario(settings_for(server.url), clock=clock)
        outcome = await client.search(["limpeza"])
        sent = server.count()

    (line,) = outcome.failures
    assert "asks Vicaran to wait 600 s" in line and "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS" in line
    assert clock.slept == [] and sent == 1


async def test_traefiks_429_is_waited_out_and_the_searches_all_answer():
    clock = FakeClock(autojump=True)  # the client's waits move the fake's clock: no real waiting
    bucket = TraefikRateLimit(burst=2, clock=clock.now)
    with FakeQueridoDiario(rate_limit=bucket) as fake:
        client = QueridoDiario(
            settings_for(fake.url, vicaran_max_retries=1),
            backoff_base=0.01,
            backoff_max=0.05,
            clock=clock,
        )
        outcome = await client.search(
            ["limpeza", '"contrato emergencial"', "calamidade"], territory_ids=["4314902"]
        )

    assert outcome.failures == [] and set(outcome.totals) == {
        "limpeza",
        '"contrato emergencial"',
        "calamidade",
    }
    assert bucket.refused == 1 and [r.status for r in fake.searches()].count(429) == 1
    assert clock.slept == [3.0]  # Traefik's Retry-After (2.4 s rounded up)


async def test_a_cold_query_slower_than_the_search_timeout_still_answers():
    """A term's first query takes 20-36 s on the real service: the gazette requests have their
    own timeout (VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS), not the web search's (scaled down)."""
    with FakeQueridoDiario(cold_seconds=0.6) as fake:
        client = client_for(
            fake.url,
            vicaran_max_retries=0,
            vicaran_search_timeout_seconds=0.2,
            vicaran_querido_diario_timeout_seconds=5,
        )
        outcome = await client.search(["limpeza"], territory_ids=["4314902"])

    assert outcome.failures == [] and outcome.gazettes
    assert fake.cold == ["limpeza"]


async def test_a_query_slower_than_the_gazette_timeout_fails_plainly():
    with FakeQueridoDiario(cold_seconds=5) as fake:
        client = client_for(
            fake.url, vicaran_max_retries=0, vicaran_querido_diario_timeout_seconds=0.3
        )
        outcome = await client.search(["limpeza"], territory_ids=["4314902"])

    (line,) = outcome.failures
    assert line.startswith("Querido Diário search timed out after 0.3 s")
    assert "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS" in line


async def test_a_gazette_text_waits_a_retry_after_no_longer_than_a_request_may_take(fake):
    path = PA.decisive[0].path
    clock = FakeClock(autojump=True)
    with Scripted(Response(503, {"Retry-After": "3600"}, b"")) as files:
        client = QueridoDiario(
            settings_for(fake.url, vicaran_max_retries=1, vicaran_querido_diario_timeout_seconds=7),
            clock=clock,
        )
        read = await client.read(f"{files.url}/{path}")

    assert read.text is None and "HTTP 503" in str(read.failure)
    assert clock.slept == [7.0]  # an hour asked: bounded by the request timeout
