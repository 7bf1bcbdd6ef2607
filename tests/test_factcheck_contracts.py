"""FactCheckApi reads Google Fact Check Tools' recorded answers (tests/fixtures/contracts/factcheck).

Each recording is served on loopback as is; Vicaran's own client asks it and must parse what the
real service sends: claims with several reviews, fields left out, the empty object, a page token,
and Google's error envelope (whose ErrorInfo is not always the only detail).
"""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from tests.fakes.factcheck import FakeFactCheckTools
from tests.support import contracts
from vicaran_agent.clients.fact_check_api import KEY_INVALID, FactCheckApi, Review
from vicaran_agent.config import Settings

RECORDED = {r.name: r for r in contracts.every("factcheck")}
RETRIES = 2


def settings_for(url: str) -> Settings:
    return Settings(
        _env_file=None,
        factcheck_api_key="test-key",
        factcheck_base_url=url,
        vicaran_max_retries=RETRIES,
        vicaran_search_timeout_seconds=2,
    )


async def ask(name: str, language: str = "pt") -> tuple[list[Review], list[str], int]:
    """(reviews, failures, requests made) of one search answered by recording `name`."""
    with contracts.serve(RECORDED[name]) as server:
        api = FactCheckApi(settings_for(server.url), backoff_base=0.001, backoff_max=0.002)
        outcome = await api.search(["merenda escolar Maceió"], language=language)
        (first, *_) = server.requests
        assert first.path == "/v1alpha1/claims:search"
        assert first.query["query"] == ["merenda escolar Maceió"]
        assert first.query["languageCode"] == [language]
        assert first.header("x-goog-api-key") == "test-key" and first.body == b""
        return outcome.reviews, list(outcome.failures), len(server.requests)


def test_every_recording_cites_its_source_and_is_in_googles_shape() -> None:
    assert set(RECORDED) == {
        "search-claims",
        "search-missing-optional",
        "search-empty",
        "search-next-page",
        "error-api-key-invalid",
        "error-service-disabled",
        "error-rate-limited",
    }
    for recorded in RECORDED.values():
        assert any("source:" in line for line in recorded.sources), recorded.name
        assert recorded.header("content-type") == "application/json; charset=UTF-8"
        body = recorded.json()
        if recorded.status == 200:
            assert set(body) <= {"claims", "nextPageToken"}, recorded.name
        else:
            error = body["error"]
            assert error["code"] == recorded.status
            infos = [d for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
            assert len(infos) == 1 and infos[0]["domain"] == "googleapis.com"


async def test_claims_with_their_reviews() -> None:
    reviews, failures, requests = await ask("search-claims")
    assert failures == [] and requests == 1
    assert [(r.site, r.rating, r.verdict, r.language) for r in reviews] == [
        ("aosfatos.org", "Falso", "false", "pt"),
        ("lupa.uol.com.br", "Enganoso", "misleading", "pt"),
        ("politifact.com", "Mostly False", "misleading", "en"),
    ]
    first = reviews[0]
    assert first == Review(
        claim_text="O prefeito de Maceió desviou a verba da merenda escolar em 2024",
        claimant="Publicação no Facebook",
        claim_date="2024-05-30",
        publisher="Aos Fatos",
        site="aosfatos.org",
        url="https://www.aosfatos.org/noticias/prefeito-maceio-merenda-escolar/",
        title="É falso que prefeito de Maceió desviou verba da merenda",
        review_date="2024-06-01",
        rating="Falso",
        verdict="false",
        language="pt",
        query="merenda escolar Maceió",
    )
    assert reviews[1].claim_text == first.claim_text  # two reviews of one claim


async def test_fields_left_out_are_unknown_not_errors() -> None:
    reviews, failures, _ = await ask("search-missing-optional")
    assert failures == []
    bare, untexted = reviews  # the claim without claimReview has nothing to give
    assert replace(bare, query="") == Review(
        claim_text="Vacina contra a dengue foi suspensa pelo Ministério da Saúde",
        claimant=None,
        claim_date=None,
        publisher="projetocomprova.com.br",  # no name: the site stands for it
        site="projetocomprova.com.br",
        url="https://projetocomprova.com.br/publicacoes/vacina-dengue-suspensa/",
        title="",
        review_date=None,
        rating="Enganoso",
        verdict="misleading",
        language=None,
    )
    assert (untexted.claim_text, untexted.publisher, untexted.verdict) == ("", "Chequeado", "false")


async def test_no_match_is_the_empty_object() -> None:
    assert await ask("search-empty") == ([], [], 1)


async def test_a_page_with_a_token_is_read_and_one_page_is_asked_for() -> None:
    reviews, failures, requests = await ask("search-next-page", language="fr")
    assert failures == [] and requests == 1  # one page per query: the token is not followed
    assert [(r.site, r.verdict, r.language) for r in reviews] == [
        ("factuel.afp.com", "false", "fr"),
        ("20minutes.fr", "misleading", "fr"),
    ]


async def test_a_rejected_key_is_said_once_and_not_retried() -> None:
    assert await ask("error-api-key-invalid") == ([], [KEY_INVALID], 1)


async def test_a_disabled_api_names_the_page_that_enables_it() -> None:
    reviews, (failure,), requests = await ask("error-service-disabled")
    assert reviews == [] and requests == 1
    assert "disabled" in failure and "(403)" in failure
    assert "factchecktools.googleapis.com/overview?project=123456789012" in failure


async def test_a_quota_refusal_is_retried_then_reported() -> None:
    reviews, (failure,), requests = await ask("error-rate-limited")
    assert reviews == [] and requests == 1 + RETRIES
    assert "429" in failure and "quota" in failure.lower()


# --- the fake answers in the recorded shape ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "failure"),
    [
        ("error-api-key-invalid", None),
        ("error-service-disabled", "service_disabled"),
        ("error-rate-limited", 429),
    ],
)
def test_the_fakes_errors_have_the_recorded_envelope(name: str, failure: object) -> None:
    """The same details, in the same order, with the same metadata keys as the recording."""
    recorded = RECORDED[name].json()["error"]
    with FakeFactCheckTools(api_key="test-key") as fake:
        if failure is not None:
            fake.fail(failure)  # type: ignore[arg-type]
        key = "wrong-key" if failure is None else "test-key"
        answer = httpx.get(
            f"{fake.url}/v1alpha1/claims:search",
            params={"query": "x"},
            headers={"X-Goog-Api-Key": key},
        )
    assert answer.status_code == RECORDED[name].status
    assert answer.headers["content-type"] == RECORDED[name].header("content-type")
    faked = answer.json()["error"]
    assert (faked["code"], faked["status"]) == (recorded["code"], recorded["status"])
    shape = [(d["@type"], sorted(d.get("metadata", {}))) for d in recorded["details"]]
    assert [(d["@type"], sorted(d.get("metadata", {}))) for d in faked["details"]] == shape
