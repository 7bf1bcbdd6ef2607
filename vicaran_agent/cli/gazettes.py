"""`vicaran gazettes search`: Brazilian municipal gazettes (Querido Diário) from the terminal.

    vicaran gazettes search '"contrato emergencial"' --city "Porto Alegre" --since 2024-05-01

Prints what the city resolved to (its territory id, or the homonyms and that the search went
without a city filter), then the candidates scored as the adaptive search scores them (the
query's words in the excerpts, the period, the city): date, city, score, `txt_url` and the
excerpts, one line each.

Exit codes, as `vicaran docs`: 0 done (found or not), 1 a failure (the API unreachable, a city
Querido Diário does not know), 2 a usage error (argparse's: a bad date, state or limit; a period
that ends before it starts), each said before any request. Excerpts are untrusted text: printed
on one line, without control characters.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import TYPE_CHECKING

from ..i18n import PORTUGUESE, detect_language, localized, message

if TYPE_CHECKING:
    from ..clients.gazette_data import City, Gazette
    from ..clients.querido_diario import QueridoDiario
    from ..config import Settings

OK, FAILED, USAGE = 0, 1, 2
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
EXCERPT_CHARS_SHOWN = 240

Ranker = Callable[[list["Gazette"]], list[tuple["Gazette", float]]]


@dataclass(frozen=True)
class _Query:
    """The search as the adaptive loop's scorer reads a claim: its words, place and period."""

    claim_text: str
    city: str
    state: str
    period_start: str
    period_end: str
    entities: list[str] = field(default_factory=list)


def add_gazettes_parser(commands: argparse._SubParsersAction) -> None:
    """`vicaran gazettes search`."""
    gazettes = commands.add_parser("gazettes", help="Brazilian municipal gazettes (Querido Diário)")
    actions = gazettes.add_subparsers(dest="gazettes_command", required=True)
    search = actions.add_parser(
        "search",
        help="the gazettes that match a query, with their excerpts",
        description='Query syntax: words (any of them), "an exact phrase", a + b (both), '
        "a | b (either), -word (without), pref* (a prefix). Bare words ignore accents and case; "
        "quoted phrases ignore case only.",
    )
    search.add_argument("query")
    search.add_argument("--city", metavar="NAME", help='e.g. "Porto Alegre" (accents optional)')
    search.add_argument("--state", type=state_code, metavar="UF", help="picks among homonyms")
    search.add_argument("--since", type=iso_day, metavar="YYYY-MM-DD", help="published from")
    search.add_argument("--until", type=iso_day, metavar="YYYY-MM-DD", help="published until")
    search.add_argument(
        "--limit",
        type=limit,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"1-{MAX_LIMIT} (default {DEFAULT_LIMIT})",
    )
    search.add_argument(
        "--language", choices=["en", PORTUGUESE], help="of the output (default: the query's)"
    )


def iso_day(value: str) -> str:
    text = value.strip()
    try:
        if len(text) == 10 and text[4] == "-" and text[7] == "-":
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"give a date as YYYY-MM-DD (e.g. 2024-05-01), not {value!r}")


def state_code(value: str) -> str:
    from ..clients.gazette_data import STATE_CODES

    code = value.strip().upper()
    if code not in STATE_CODES:
        raise argparse.ArgumentTypeError(
            f"give a Brazilian state code such as RS or SP, not {value!r}"
        )
    return code


def limit(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"give a number from 1 to {MAX_LIMIT}")
    return int(value)


def score_gazettes(
    asked: _Query, gazettes: list[Gazette], *, territory_id: str | None = None
) -> list[tuple[Gazette, float]]:
    """The adaptive search's scorer, imported when a search has candidates (with the model
    client it sits beside: not for every command's start)."""
    from ..gazettes.score import score_gazettes as score

    return score(asked, gazettes, territory_id=territory_id)


def run(args: argparse.Namespace) -> int:
    """The `gazettes` command (its only action is `search`)."""
    language = args.language or detect_language(args.query)
    if args.since and args.until and args.since > args.until:
        _say_error(message("gazettes_cli_reversed", language, since=args.since, until=args.until))
        return USAGE
    if not args.query.strip():
        _say_error(message("gazettes_cli_no_query", language))
        return USAGE
    import asyncio  # (here, not at the top: every command's parser imports this module)

    return asyncio.run(
        search(
            args.query,
            city=args.city,
            state=args.state,
            since=args.since,
            until=args.until,
            size=args.limit,
            language=language,
        )
    )


async def search(
    query: str,
    *,
    city: str | None = None,
    state: str | None = None,
    since: str | None = None,
    until: str | None = None,
    size: int = DEFAULT_LIMIT,
    language: str = "en",
    settings: Settings | None = None,
    ranker: Ranker | None = None,
) -> int:
    """Resolve the city, search, print the candidates; returns the exit code."""
    from ..clients.querido_diario import QueridoDiario
    from ..config import get_settings

    client = QueridoDiario(settings or get_settings())
    territory_ids: list[str] = []
    if city and city.strip():
        territory_id = await _territory(client, city.strip(), state, language)
        if territory_id is None:
            return FAILED
        territory_ids += [territory_id] if territory_id else []
    outcome = await client.search(
        [query],
        territory_ids=territory_ids,
        published_since=since,
        published_until=until,
        size=size,
    )
    if outcome.failures:
        for failure in outcome.failures:
            _say_error(localized(failure, language))
        return FAILED
    if not outcome.gazettes:
        print(message("gazettes_cli_none", language))
        return OK
    total = max(next(iter(outcome.totals.values()), 0), len(outcome.gazettes))
    heading = message("gazettes_cli_total", language, count=total)
    if len(outcome.gazettes) < total:
        heading += " " + message("gazettes_cli_showing", language, count=len(outcome.gazettes))
    print(heading)
    if ranker is None:
        asked = _Query(query, city or "", (state or "").upper(), since or "", until or "")
        ranker = partial(
            score_gazettes, asked, territory_id=territory_ids[0] if territory_ids else None
        )
    ranked: list[tuple[Gazette, float | None]] = list(ranker(outcome.gazettes))
    for number, (gazette, score) in enumerate(ranked, start=1):
        print()
        print("\n".join(candidate_lines(number, gazette, score, language)))
    return OK


async def _territory(
    client: QueridoDiario, city: str, state: str | None, language: str
) -> str | None:
    """The city's territory id; "" to search without a city filter (homonyms, said); None when
    the search must not run (the city is unknown, or the API could not be asked), said."""
    resolution = await client.resolve_city(city, state)
    if resolution.failure is not None:
        _say_error(localized(resolution.failure, language))
        return None
    if resolution.city is not None:
        found = resolution.city
        print(
            message(
                "gazettes_cli_city",
                language,
                name=found.name,
                state=found.state_code,
                territory_id=found.territory_id,
            )
        )
        return found.territory_id
    if resolution.candidates and not state:
        print(localized(resolution.note, language))
        print(message("gazettes_cli_pick", language, cities=_cities(resolution.candidates)))
        return ""
    if resolution.candidates:
        states = ", ".join(sorted({c.state_code for c in resolution.candidates}))
        name = resolution.candidates[0].name
        _say_error(
            message("gazettes_cli_not_in_state", language, name=name, state=state, states=states)
        )
        return None
    _say_error(message("gazettes_cli_unknown_city", language, name=printable(city, 80)))
    if resolution.close:
        _say_error(message("gazettes_cli_close", language, cities=_cities(resolution.close)))
    return None


def candidate_lines(number: int, gazette: Gazette, score: float | None, language: str) -> list[str]:
    """A candidate as lines: its heading, its address, then one line per excerpt."""
    place = f"{printable(gazette.territory_name, 60)} ({printable(gazette.state_code, 2)})"
    heading = [f"{number}. {gazette.date}", place]
    if score is not None:
        heading.append(message("gazettes_cli_score", language, score=f"{score:.2f}"))
    if gazette.edition:
        key = "gazettes_cli_extra" if gazette.is_extra_edition else "gazettes_cli_edition"
        heading.append(message(key, language, edition=printable(gazette.edition, 20)))
    lines = ["  ".join(heading)]
    if gazette.txt_url:
        lines.append(f"   {printable(gazette.txt_url)}")
    else:
        lines.append(f"   {printable(gazette.url)} ({message('gazettes_cli_no_text', language)})")
    lines += [f"   > {printable(e, EXCERPT_CHARS_SHOWN)}" for e in gazette.excerpts]
    return lines


def printable(text: str, limit: int | None = None) -> str:
    """`text` on one line, without control characters, cut at `limit` characters with "…"."""
    line = "".join(c for c in " ".join(text.split()) if c.isprintable())
    if limit is not None and len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line


def _cities(cities: tuple[City, ...]) -> str:
    return "; ".join(f"{c.name} ({c.state_code}) {c.territory_id}" for c in cities)


def _say_error(line: object) -> None:
    print(line, file=sys.stderr)
