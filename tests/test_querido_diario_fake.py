"""The Querido Diário fake speaks the real contract (external-apis.md §4), and the golden
scenario fixtures agree with seed 002."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fakes import simple_query as sq
from tests.fakes.querido_diario import FakeCity, FakeGazette, FakeQueridoDiario
from tests.fakes.traefik import TraefikRateLimit, go_duration
from tests.support.gazettes import BY_NUMBER, CITIES, GAZETTES, SCENARIOS, WRITTEN, text_of

MACEIO = FakeCity("2704302", "Maceió", "AL")
ARAPIRACA = FakeCity("2700300", "Arapiraca", "AL")
MERENDA = FakeGazette(
    "2704302",
    "2023-11-01",
    "EXTRATO DE CONTRATO Nº 12/2023. Objeto: aquisição de gêneros alimentícios para a merenda "
    "escolar. Contratada: Nutrir Alimentos Ltda.\nPORTARIA Nº 40. Nomeia Ana Lima.",
    edition="6799",
    is_extra_edition=False,
)
BARE = FakeGazette("2704302", "2023-10-31", "Licitação de pavimentação da Rua A.", has_txt=False)
OBRAS = FakeGazette("2700300", "2023-11-01", "AVISO DE LICITAÇÃO. Pavimentação e merenda.")


@pytest.fixture
def fake() -> Iterator[FakeQueridoDiario]:
    with FakeQueridoDiario([MERENDA, BARE, OBRAS], [MACEIO, ARAPIRACA]) as server:
        yield server


@functools.cache
def _http() -> httpx.Client:
    """One client for the module (building one costs ~100 ms, its CA bundle), a connection per
    request (kept alive, the fake's unbuffered writes meet Nagle and delayed ACKs: 40 ms each)."""
    return httpx.Client(follow_redirects=False, headers={"Connection": "close"})


def get(fake: FakeQueridoDiario, path: str, params: Any = None) -> httpx.Response:
    return _http().get(f"{fake.url}{path}", params=params)


def dates(response: httpx.Response) -> list[str]:
    return [g["date"] for g in response.json()["gazettes"]]


# --- /gazettes ------------------------------------------------------------------------------


def test_territory_ids_are_repeated_keys_and_a_comma_joined_value_is_one_id(fake):
    both = get(fake, "/gazettes", [("territory_ids", "2704302"), ("territory_ids", "2700300")])
    joined = get(fake, "/gazettes", {"territory_ids": "2704302,2700300"})
    one = get(fake, "/gazettes", {"territory_ids": "2700300"})

    assert both.json()["total_gazettes"] == 3
    assert joined.status_code == 200 and joined.json() == {"total_gazettes": 0, "gazettes": []}
    assert [g["territory_id"] for g in one.json()["gazettes"]] == ["2700300"]


def test_no_filter_at_all_finds_nothing_and_unknown_parameters_are_ignored(fake):
    assert get(fake, "/gazettes").json() == {"total_gazettes": 0, "gazettes": []}
    answer = get(fake, "/gazettes", {"since": "2023-01-01", "querystring": "merenda"})
    assert answer.status_code == 200 and answer.json()["total_gazettes"] == 2


def test_dates_are_inclusive_and_without_querystring_the_index_order_holds(fake):
    answer = get(
        fake, "/gazettes", {"published_since": "2023-10-31", "published_until": "2023-11-01"}
    )
    day = get(fake, "/gazettes", {"published_since": "2023-11-01", "published_until": "2023-11-01"})

    assert answer.json()["total_gazettes"] == 3
    # territory ascending, then newest first; no excerpts without a querystring
    assert [(g["territory_id"], g["date"]) for g in answer.json()["gazettes"]] == [
        ("2700300", "2023-11-01"),
        ("2704302", "2023-11-01"),
        ("2704302", "2023-10-31"),
    ]
    assert all(g["excerpts"] == [] for g in answer.json()["gazettes"])
    assert dates(day) == ["2023-11-01", "2023-11-01"]


def test_a_bad_date_answers_fastapis_422_body(fake):
    answer = get(fake, "/gazettes", {"published_since": "01/02/2023"})

    assert answer.status_code == 422
    assert answer.json() == {
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


def test_a_bad_int_and_a_bad_sort_answer_422_with_their_types(fake):
    size = get(fake, "/gazettes", {"size": "many", "territory_ids": "2704302"})
    sort = get(fake, "/gazettes", {"sort_by": "score", "territory_ids": "2704302"})

    assert size.status_code == 422
    assert [(e["type"], e["loc"]) for e in size.json()["detail"]] == [
        ("int_parsing", ["query", "size"])
    ]
    assert sort.status_code == 422
    assert sort.json()["detail"][0]["type"] == "enum"
    assert sort.json()["detail"][0]["ctx"] == {
        "expected": "'relevance', 'descending_date' or 'ascending_date'"
    }


def test_fields_whose_value_is_none_are_left_out(fake):
    answer = get(fake, "/gazettes", {"territory_ids": "2704302"}).json()["gazettes"]
    full = next(g for g in answer if g["date"] == "2023-11-01")
    bare = next(g for g in answer if g["date"] == "2023-10-31")

    assert full["edition"] == "6799" and full["is_extra_edition"] is False
    assert full["txt_url"].endswith(".txt") and full["url"].endswith(".pdf")
    assert full["territory_name"] == "Maceió" and full["state_code"] == "AL"
    assert "scraped_at" in full
    assert {"edition", "is_extra_edition", "txt_url"}.isdisjoint(bare)


def test_size_offset_and_date_sorts(fake):
    params = {"querystring": "licitação | merenda", "size": "1"}
    first = get(fake, "/gazettes", {**params, "sort_by": "ascending_date"})
    second = get(fake, "/gazettes", {**params, "sort_by": "ascending_date", "offset": "1"})
    newest = get(fake, "/gazettes", {**params, "sort_by": "descending_date"})

    assert first.json()["total_gazettes"] == 3 and len(first.json()["gazettes"]) == 1
    assert dates(first) == ["2023-10-31"] and dates(second) == ["2023-11-01"]
    assert dates(newest) == ["2023-11-01"]


def test_excerpts_are_fragments_around_the_matches(fake):
    answer = get(
        fake,
        "/gazettes",
        {"querystring": "merenda", "territory_ids": "2704302", "excerpt_size": "60"},
    )
    many = get(
        fake,
        "/gazettes",
        {
            "querystring": "merenda | Nomeia",
            "territory_ids": "2704302",
            "excerpt_size": "30",
            "number_of_excerpts": "3",
        },
    )
    (gazette,) = answer.json()["gazettes"]
    (excerpt,) = gazette["excerpts"]  # one by default
    assert "merenda" in excerpt and len(excerpt) <= 60
    assert excerpt in MERENDA.text
    fragments = many.json()["gazettes"][0]["excerpts"]
    assert len(fragments) == 2 and all(len(f) <= 30 for f in fragments)
    assert any("merenda" in f for f in fragments) and any("Nomeia" in f for f in fragments)


def test_trailing_slash_redirects_and_unknown_routes_404(fake):
    slash = get(fake, "/cities/", {"city_name": "Mac"})
    unknown = get(fake, "/nowhere")

    assert slash.status_code == 307
    assert slash.headers["location"] == f"{fake.url}/cities?city_name=Mac"
    assert unknown.status_code == 404 and unknown.json() == {"detail": "Not Found"}


# --- /cities and the texts ------------------------------------------------------------------


def test_city_name_is_a_case_insensitive_substring_of_the_accented_name(fake):
    def names(city_name: str) -> list[str]:
        answer = get(fake, "/cities", {"city_name": city_name}).json()["cities"]
        return [c["territory_name"] for c in answer]

    assert names("maceió") == ["Maceió"]
    assert names("MACE") == ["Maceió"]
    assert names("maceio") == []  # accents count
    assert names("") == ["Maceió", "Arapiraca"]  # no name: every city


def test_a_city_by_id_or_404(fake):
    found = get(fake, "/cities/2704302")
    missing = get(fake, "/cities/9999999")

    assert found.json() == {
        "city": {
            "territory_id": "2704302",
            "territory_name": "Maceió",
            "state_code": "AL",
            "level": "3",
            "availability_date": "",
        }
    }
    assert missing.status_code == 404 and missing.json() == {"detail": "City not found."}


def test_the_gazette_text_is_served_at_its_txt_url(fake):
    answer = get(fake, "/gazettes", {"querystring": "merenda", "territory_ids": "2704302"})
    (gazette,) = answer.json()["gazettes"]
    text = httpx.get(gazette["txt_url"])

    assert gazette["txt_url"] == fake.txt_url(MERENDA)
    assert text.status_code == 200
    assert text.headers["content-type"].startswith("text/plain")
    assert text.text == MERENDA.text


def test_injected_failures_hit_matching_requests_only(fake):
    fake.fail(503, times=1, query="merenda")

    failed = get(fake, "/gazettes", {"querystring": "merenda"})
    other = get(fake, "/gazettes", {"querystring": "pavimentação"})
    again = get(fake, "/gazettes", {"querystring": "merenda"})

    assert failed.status_code == 503
    assert other.status_code == 200 and again.status_code == 200


# --- as deployed: Traefik's bucket in front of the API, slow first queries ------------------


class Clock:
    """A clock the test moves (seconds)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def limited(clock: Clock) -> FakeQueridoDiario:
    return FakeQueridoDiario(
        [MERENDA, BARE, OBRAS], [MACEIO, ARAPIRACA], rate_limit=TraefikRateLimit(clock=clock)
    )


def test_the_api_serves_a_burst_of_50_then_answers_traefiks_429():
    clock = Clock()
    with limited(clock) as fake:
        burst = [get(fake, "/cities").status_code for _ in range(50)]
        refused = get(fake, "/gazettes", {"querystring": "merenda"})

    assert burst == [200] * 50
    assert refused.status_code == 429
    assert refused.text == "Too Many Requests"
    assert refused.headers["content-type"] == "text/plain; charset=utf-8"
    # an empty bucket refills one token in 60/25 = 2.4 s: Traefik rounds Retry-After up
    assert refused.headers["retry-after"] == "3"
    assert refused.headers["x-retry-in"] == "2.4s"


def test_the_bucket_refills_25_a_minute_and_a_refusal_costs_no_token():
    clock = Clock()
    with limited(clock) as fake:
        for _ in range(50):
            get(fake, "/cities")
        statuses = [get(fake, "/cities").status_code for _ in range(3)]  # refused: no cost
        clock.now += 2.4  # one token
        after = [get(fake, "/cities").status_code for _ in range(2)]
        clock.now += 1.0  # 0.42 token: the next one is 1.4 s away, more than 0.5 s
        early = get(fake, "/cities")

    assert statuses == [429, 429, 429]
    assert after == [200, 429]
    assert early.status_code == 429 and early.headers["x-retry-in"] == "1.4s"
    assert early.headers["retry-after"] == "2"


def test_a_request_half_a_second_from_a_token_is_held_and_served():
    clock = Clock()
    with limited(clock) as fake:
        for _ in range(50):
            get(fake, "/cities")
        clock.now += 2.0  # 0.83 token: the next is 0.4 s away, within Traefik's 0.5 s
        held = get(fake, "/cities")

    assert held.status_code == 200
    assert fake.rate_limit is not None and fake.rate_limit.held == 1


def test_a_client_idle_for_three_seconds_meets_a_new_full_bucket():
    """Traefik forgets a bucket unused for 1 + int(1/rate) = 3 s (its ttlmap, whole seconds)."""
    clock = Clock()
    with limited(clock) as fake:
        for _ in range(51):
            get(fake, "/cities")
        clock.now += 2.0
        soon = get(fake, "/cities", {"city_name": "x"})  # held 0.4 s: the bucket is kept
        clock.now += 3.0
        again = [get(fake, "/cities").status_code for _ in range(51)]

    assert soon.status_code == 200
    assert again == [200] * 50 + [429]


def test_the_bucket_counts_api_requests_only_not_the_gazette_files():
    clock = Clock()
    with limited(clock) as fake:
        for _ in range(50):
            get(fake, "/nowhere")  # a 404 of the API is still a request Traefik counted
        text = _http().get(fake.txt_url(MERENDA))
        slash = get(fake, "/cities/")

    assert text.status_code == 200
    assert slash.status_code == 429  # Traefik answers before the API's trailing-slash 307


def test_the_production_bucket_is_on_by_default_and_can_be_lifted():
    assert FakeQueridoDiario([], []).rate_limit is not None
    assert FakeQueridoDiario([], [], rate_limit=None).rate_limit is None
    bucket = TraefikRateLimit()
    assert (bucket.rate, bucket.burst, bucket.max_delay, bucket.ttl) == (25 / 60, 50, 0.5, 3)


@pytest.mark.parametrize(
    ("nanoseconds", "text"),
    [
        (0, "0s"),
        (2_400_000_000, "2.4s"),
        (1_919_999_616, "1.919999616s"),
        (480_000_000, "480ms"),
        (1_500, "1.5µs"),
        (999, "999ns"),
        (61_500_000_000, "1m1.5s"),
        (3_723_000_000_000, "1h2m3s"),
    ],
)
def test_x_retry_in_is_written_as_go_writes_a_duration(nanoseconds, text):
    assert go_duration(nanoseconds) == text


def test_a_querystring_is_cold_the_first_time_and_warm_after():
    with FakeQueridoDiario([MERENDA, OBRAS], [MACEIO], cold_seconds=0.05) as fake:
        first = get(fake, "/gazettes", {"querystring": "merenda"})
        second = get(fake, "/gazettes", {"querystring": "merenda", "territory_ids": "2704302"})
        other = get(fake, "/gazettes", {"querystring": "pavimentação"})
        listing = get(fake, "/gazettes", {"territory_ids": "2704302"})  # no search: never cold

    assert [r.status_code for r in (first, second, other, listing)] == [200] * 4
    assert first.json()["total_gazettes"] == 2 and second.json()["total_gazettes"] == 1
    assert fake.cold == ["merenda", "pavimentação"]  # the repeat, with a filter, was warm


# --- the query subset -----------------------------------------------------------------------

TEXT = sq.analyze(
    "EXTRATO DO CONTRATO EMERGENCIAL 002/2024. Licitação de medicamentos para hospitais "
    "municipais. Matrícula 113.079, padrão 4130."
)


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ('"contrato emergencial"', True),
        ('"emergencial contrato"', False),  # a phrase keeps its order
        ("contratos emergenciais", True),  # plurals stem to the singular
        ("CONTRATO", True),
        ("licitacao", True),  # bare words ignore accents
        ('"licitacao"', False),  # quoted phrases do not (the .exact field only lower-cases)
        ('"Licitação"', True),
        ("contrato + pavimentação", False),
        ("contrato | pavimentação", True),
        ("pavimentação contrato", True),  # the default operator is OR
        ("contrato + -licitação", False),
        ("contrato + -pavimentação", True),
        ("-pavimentação", True),
        ("pavimentação + (medicamento | vacina)", False),
        ("(pavimentação | medicamento) + hospital", True),
        ("medic*", True),
        ("hospitalar*", False),
        ("113.079", True),
        ("113.080", False),
        ("de", False),  # only stop words: nothing to search
        ("\u201ccontrato emergencial\u201d", True),  # curly quotes are straight quotes
    ],
)
def test_simple_query_string_subset(query, found):
    clause = sq.parse(query)
    assert (clause is not None and sq.matches(clause, TEXT)) is found


def test_operators_apply_left_to_right_without_precedence():
    # Lucene's simple parser: `a | b + c` is `(a | b) + c`
    clause = sq.parse("pavimentação | contrato + vacina")
    assert clause is not None and not sq.matches(clause, TEXT)


# --- the golden scenario fixtures -----------------------------------------------------------


def test_the_five_scenarios_are_those_of_seed_002():
    assert [BY_NUMBER[n].territory_id for n in (1, 2, 3, 4, 5)] == [
        "4314902",
        "3304557",
        "3106200",
        "4106902",
        "3550308",
    ]
    assert [BY_NUMBER[n].verdicts[0] for n in (1, 2, 3, 4, 5)] == [
        "verified",
        "verified",
        "partially_true",
        "verified",
        "unverified",
    ]
    assert BY_NUMBER[5].decisive == ()
    real = {d.path for s in SCENARIOS.values() for d in s.decisive}
    assert "3304557/2024-05-14/8b2cb5ceefd60b30d7b4352db186ff10a2bdf336.txt" in real
    assert "4106902/2024-04-18/f236e7a372015829a44b72044627b5880131ec3f.txt" in real


def test_every_decisive_act_is_in_its_gazette_in_the_period_and_the_city():
    served = {g.path for g in GAZETTES}
    for scenario in SCENARIOS.values():
        for decisive in scenario.decisive:
            assert decisive.path in served
            assert decisive.act in text_of(decisive.path)
            assert all(mark in decisive.act for mark in decisive.marks)
            assert decisive.territory_id == scenario.territory_id
            assert scenario.since <= decisive.date <= scenario.until
        for path in scenario.related:
            assert path in served


def test_the_seed_facts_are_in_the_texts():
    corpus = "\n".join(g.text for g in WRITTEN)
    for fact in (
        "EXTRATO DO CONTRATO EMERGENCIAL 002/2024\nPROCESSO 24.17.000001778-5",
        "LOCAR VEÍCULOS E EQUIPAMENTOS LTDA",
        "AGUIAR SERVIÇOS",
        "MECANICAPINA",
        "FG SOLUÇÕES AMBIENTAIS",
        "DECRETO Nº 22.647",
        "LEMAN MEDICAMENTOS",
        "ANJOMEDI",
        "ANTIBIÓTICOS DO BRASIL",
        "EDITAL 02/2022",
        "Matrícula 113.079",
        "padrão 4130",
    ):
        assert fact in corpus, fact


def test_each_scenarios_decisive_gazette_is_found_by_a_plain_query_in_its_city():
    queries = {
        1: "contrato emergencial + limpeza",
        2: "licitação + medicamentos",
        3: '"concurso público" + "guarda municipal"',
        4: "enfermeiro + concurso",
    }
    with FakeQueridoDiario() as fake:
        for number, query in queries.items():
            scenario = BY_NUMBER[number]
            answer = get(
                fake,
                "/gazettes",
                [
                    ("querystring", query),
                    ("territory_ids", scenario.territory_id),
                    ("published_since", scenario.since),
                    ("published_until", scenario.until),
                    ("size", "30"),
                ],
            ).json()
            found = [g["txt_url"] for g in answer["gazettes"]]
            assert fake.txt_url(scenario.decisive[0].path) in found, number
            assert answer["total_gazettes"] < len(GAZETTES)  # a filter, not everything


def test_nothing_in_sao_paulo_speaks_of_the_alien_invasion():
    scenario = BY_NUMBER[5]
    with FakeQueridoDiario() as fake:
        for query in ("invasão alienígena", "alien* | extraterrestre* | ovni | invas*"):
            answer = get(
                fake,
                "/gazettes",
                {"querystring": query, "territory_ids": scenario.territory_id},
            )
            assert answer.json() == {"total_gazettes": 0, "gazettes": []}
        every = get(fake, "/gazettes", {"territory_ids": scenario.territory_id})
        assert every.json()["total_gazettes"] > 5  # São Paulo has gazettes, just none of that


def test_cities_include_homonyms_for_the_state_rule():
    bom_jesus = [c.state_code for c in CITIES if c.name == "Bom Jesus"]
    assert len(bom_jesus) >= 3 and len(set(bom_jesus)) == len(bom_jesus)
    assert any(c.name == "São Paulo de Olivença" and c.state_code == "AM" for c in CITIES)
