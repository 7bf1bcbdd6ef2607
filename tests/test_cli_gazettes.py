"""`vicaran gazettes search` against the Querido Diário fake: what it decided, the candidates,
exit codes, and a clear sentence for bad input."""

from __future__ import annotations

import pytest

from tests.support.gazettes import BY_NUMBER
from vicaran_agent import cli
from vicaran_agent.cli import gazettes as gazettes_cli
from vicaran_agent.clients.gazette_data import Gazette

PA = BY_NUMBER[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = cli.main(["gazettes", "search", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def candidates(lines: list[str]) -> list[list[str]]:
    """The printed candidates: each a block of lines that starts with "N. YYYY-MM-DD"."""
    blocks: list[list[str]] = []
    for line in lines:
        if line[:1].isdigit() and ". " in line[:5]:
            blocks.append([line])
        elif blocks and line:
            blocks[-1].append(line)
    return blocks


def test_a_city_search_prints_the_territory_then_each_candidate(env, capsys):
    fake = env.services.querido_diario
    code, lines, err = run(
        capsys,
        '"contrato emergencial"',
        "--city", "porto alegre",
        "--since", PA.since,
        "--until", PA.until,
    )  # fmt: skip

    assert code == 0, err
    assert lines[0] == "City: Porto Alegre (RS), territory 4314902."
    assert lines[1] == "3 gazettes match."
    blocks = candidates(lines)
    # scored by the adaptive loop's scorer: ties in score keep the date order, oldest first
    assert [b[0].split()[1] for b in blocks] == ["2024-05-17", "2024-06-11", "2024-06-20"]
    decisive = blocks[0]
    assert decisive[0] == "1. 2024-05-17  Porto Alegre (RS)  score 0.93  edition 7286"
    assert decisive[1] == f"   {fake.txt_url(PA.decisive[0].path)}"
    assert decisive[2].startswith("   > EXTRATO DO CONTRATO EMERGENCIAL 002/2024 PROCESSO")
    assert all("\n" not in line and len(line) < 260 for line in lines)
    (search,) = fake.searches()
    assert search.query["territory_ids"] == ["4314902"]
    assert search.query["published_since"] == [PA.since]
    assert search.query["size"] == ["10"] and search.query["number_of_excerpts"] == ["3"]


def test_a_limit_below_the_total_says_how_many_are_shown(env, capsys):
    code, lines, _ = run(capsys, "limpeza | contrato", "--city", "Porto Alegre", "--limit", "2")

    assert code == 0
    assert lines[1].endswith("gazettes match. Showing the first 2.")
    assert len(candidates(lines)) == 2
    assert env.services.querido_diario.searches()[0].query["size"] == ["2"]


def test_homonyms_without_a_state_are_listed_and_the_search_runs_unfiltered(env, capsys):
    code, lines, _ = run(capsys, "obras", "--city", "Bom Jesus")

    assert code == 0
    assert lines[0] == (
        "3 cities are named Bom Jesus (PI, RS, SC): searching without a city filter"
    )
    assert lines[1].startswith("Give --state to choose one: Bom Jesus (PI) 2201903;")
    (search,) = env.services.querido_diario.searches()
    assert "territory_ids" not in search.query


def test_the_state_settles_homonyms(env, capsys):
    code, lines, _ = run(capsys, "obras", "--city", "Bom Jesus", "--state", "rs")

    assert code == 0 and lines[0] == "City: Bom Jesus (RS), territory 4302303."
    assert env.services.querido_diario.searches()[0].query["territory_ids"] == ["4302303"]


def test_an_unknown_city_fails_with_close_names_and_no_search(env, capsys):
    code, lines, err = run(capsys, "contrato", "--city", "Porto Alegr")

    assert code == 1 and lines == []
    assert err.splitlines() == [
        "Querido Diário knows no city named Porto Alegr.",
        "Close names: Porto Alegre (RS) 4314902.",
    ]
    assert env.services.querido_diario.searches() == []


def test_a_city_not_in_the_state_given_fails(env, capsys):
    code, _, err = run(capsys, "contrato", "--city", "Curitiba", "--state", "SP")

    assert code == 1
    assert err.strip() == "No city named Curitiba in SP (only in PR)."


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--since", "01/05/2024"], "argument --since: give a date as YYYY-MM-DD"),
        (["--until", "2024-02-30"], "argument --until: give a date as YYYY-MM-DD"),
        (["--state", "XX"], "argument --state: give a Brazilian state code"),
        (["--limit", "0"], "argument --limit: give a number from 1 to 100"),
    ],
)
def test_bad_input_is_a_usage_error_before_any_request(env, capsys, argv, said):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["gazettes", "search", "contrato", *argv])

    assert exit_.value.code == 2
    assert said in capsys.readouterr().err
    assert env.services.querido_diario.requests == []


def test_a_period_that_ends_before_it_starts_is_a_usage_error(env, capsys):
    code, _, err = run(capsys, "contrato", "--since", "2024-07-31", "--until", "2024-05-01")

    assert code == 2
    assert err.strip() == "The period ends (2024-05-01) before it starts (2024-07-31)."
    assert env.services.querido_diario.requests == []


def test_the_api_down_is_one_sentence_and_exit_1(env, capsys):
    env.set(QUERIDO_DIARIO_BASE_URL="http://127.0.0.1:9", VICARAN_MAX_RETRIES="0")

    city = run(capsys, "contrato", "--city", "Curitiba")
    search = run(capsys, "contrato")

    for code, lines, err in (city, search):
        assert code == 1 and lines == []
        (line,) = err.splitlines()
        assert line.startswith("Could not reach Querido Diário at http://127.0.0.1:9")


def test_a_503_from_the_api_is_retried_then_said(env, capsys):
    env.services.querido_diario.fail(503)

    code, _, err = run(capsys, "contrato")

    assert code == 1
    assert "Querido Diário server error (HTTP 503) (still failing after 1 retry)" in err


def test_nothing_found_is_said_and_is_not_a_failure(env, capsys):
    code, lines, _ = run(
        capsys,
        "invasão alienígena",
        "--city", "Sao Paulo",
        "--since", "2024-01-01",
        "--until", "2024-12-31",
        "--language", "en",
    )  # fmt: skip

    assert code == 0
    assert lines == ["City: São Paulo (SP), territory 3550308.", "No gazette matches."]


def test_a_portuguese_query_is_answered_in_portuguese(env, capsys):
    code, lines, _ = run(capsys, "licitação de medicamentos", "--city", "Rio de Janeiro")

    assert code == 0
    assert lines[0] == "Cidade: Rio de Janeiro (RJ), território 3304557."
    assert "diários oficiais correspondem à busca. Mostrando os 10 primeiros." in lines[1]
    assert "edição" in candidates(lines)[0][0]


def test_the_scorer_orders_the_candidates_and_shows_their_score(env, capsys, monkeypatch):
    def by_date(gazettes: list[Gazette]) -> list[tuple[Gazette, float]]:
        ordered = sorted(gazettes, key=lambda g: g.date)
        return [(g, 1.0 / (i + 1)) for i, g in enumerate(ordered)]

    monkeypatch.setattr(gazettes_cli, "score_gazettes", lambda _asked, gs, **_: by_date(gs))

    code, lines, _ = run(capsys, '"contrato emergencial"', "--city", "Porto Alegre")

    assert code == 0
    heads = [block[0] for block in candidates(lines)]
    assert [h.split()[1] for h in heads] == sorted(h.split()[1] for h in heads)
    assert heads[0].split("  ")[2] == "score 1.00" and heads[1].split("  ")[2] == "score 0.50"
