"""`vicaran`: headless investigations, exports, the server, and the callback outbox.

The commands live in their own modules (`investigation`, `server`, `store`, `documents`,
`gazettes`); each is imported when it runs, so a command loads only what it needs.
"""

from __future__ import annotations

import argparse
import sys
import uuid

from ..i18n import PORTUGUESE, system_language


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="vicaran", description=__doc__)
    commands = main.add_subparsers(dest="command", required=True)
    run = commands.add_parser("investigate", help="run one investigation in the terminal")
    run.add_argument("brief", help="what to investigate")
    run.add_argument("--url", action="append", default=[], help="a source to include (repeat)")
    run.add_argument("--mode", choices=["quick", "detailed"], help="default: from the brief")
    run.add_argument("--id", type=uuid.UUID, help="use this investigation id")
    run.add_argument("--yes", action="store_true", help="approve the plan without asking")
    run.add_argument("--out", help="write the report to this Markdown file")
    run.add_argument(
        "--plain",
        action="store_true",
        help="plain text: no colours, no live progress (the default when output is not a terminal)",
    )
    run.add_argument(
        "--verbose", action="store_true", help="show the details of errors and warnings"
    )
    run.add_argument(
        "--wait-delivery",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="wait this long for the callback API to take every record (default 60)",
    )
    serve = commands.add_parser("serve", help="dev UI, agent API, callback API and dashboard")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    demo = commands.add_parser(
        "demo", help="the dashboard and exports of a sample investigation (no keys needed)"
    )
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8000)
    database = commands.add_parser("db", help="the records database's schema (migrations)")
    database.add_argument(
        "action",
        choices=["upgrade", "status"],
        help="upgrade: migrate to this version's schema (PostgreSQL needs it; SQLite does it "
        "itself); status: the database's revision and the one this version needs",
    )
    outbox = commands.add_parser("outbox", help="records waiting for the newsroom callback API")
    outbox.add_argument("action", choices=["status", "flush"])
    review = commands.add_parser("review", help="the claims of an investigation and their review")
    review.add_argument(
        "investigation_id", metavar="ID", help="the investigation's id (or short id)"
    )
    export = commands.add_parser("export", help="export a saved investigation")
    export.add_argument("investigation_id", metavar="ID", help="the investigation's id")
    export.add_argument(
        "--format",
        dest="fmt",
        required=True,
        choices=["md", "html", "json", "claimreview", "warc"],
        help="Markdown report, standalone HTML, every record as JSON, ClaimReview JSON-LD, or "
        "the web archive (WARC) of every page cited, as read",
    )
    export.add_argument(
        "--out", help="write to this file instead of standard output (e.g. report.warc.gz)"
    )
    export.add_argument(
        "--reviewed-only",
        action="store_true",
        help="ClaimReview: only the claims an editor approved or changed (rated as the editor said)",
    )
    doctor = commands.add_parser(
        "doctor", help="check each service the next run uses: reachable, keys accepted, limits"
    )
    doctor.add_argument(
        "--timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long each check may take (default 10)",
    )
    doctor.add_argument(
        "--language", choices=["en", PORTUGUESE], help="of the output (default: the terminal's)"
    )
    add_docs_parser(commands)
    from .gazettes import add_gazettes_parser

    add_gazettes_parser(commands)
    return main


def add_docs_parser(commands: argparse._SubParsersAction) -> None:
    """`vicaran docs add | list | remove | search`."""
    docs = commands.add_parser("docs", help="the journalist's document collections")
    actions = docs.add_subparsers(dest="docs_command", required=True)
    add = actions.add_parser(
        "add", help="parse and index files (folders recursively) into a collection"
    )
    add.add_argument("paths", nargs="+", metavar="PATH", help="a file or a folder")
    add.add_argument("--collection", required=True, metavar="NAME")
    add.add_argument(
        "--reliability",
        choices=["high", "neutral", "low"],
        help="how far the collection's documents are trusted (default: neutral, or as it was)",
    )
    listing = actions.add_parser("list", help="the documents of every collection, or of one")
    listing.add_argument("--collection", metavar="NAME")
    remove = actions.add_parser(
        "remove", help="remove documents (by file name or id), or the whole collection"
    )
    remove.add_argument("documents", nargs="*", metavar="DOCUMENT")
    remove.add_argument("--collection", required=True, metavar="NAME")
    search = actions.add_parser("search", help="the passages that best match a query")
    search.add_argument("query")
    search.add_argument(
        "--collection",
        action="append",
        metavar="NAME",
        help="search only this collection (repeat for more; default: every collection)",
    )
    search.add_argument("--limit", type=_limit, default=8, metavar="N", help="1-200 (default 8)")


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 120:
        raise argparse.ArgumentTypeError("give a number of seconds from 0.1 to 120")
    return seconds


def _limit(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 200:
        raise argparse.ArgumentTypeError("give a number from 1 to 200")
    return int(value)


def docs(args: argparse.Namespace) -> int:
    from . import documents

    if args.docs_command == "add":
        return documents.add(args.paths, args.collection, args.reliability)
    if args.docs_command == "list":
        return documents.list_documents(args.collection)
    if args.docs_command == "remove":
        return documents.remove(args.collection, args.documents)
    return documents.search(args.query, args.collection, args.limit)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from pydantic import ValidationError

    from ..config import export_model_key, get_settings, settings_problem

    try:
        settings = get_settings()
    except ValidationError as error:  # every command needs valid settings: say which is wrong
        print(settings_problem(error), file=sys.stderr)
        return 2
    export_model_key(settings)
    from ..doctor import warn_at_start

    warn_at_start(settings, lambda line: print(line, file=sys.stderr), system_language())
    from ..storage.migrate import SchemaOutdated, outdated_message
    from .output import quiet_adk

    with quiet_adk():
        try:
            return dispatch(args)
        except SchemaOutdated as error:  # PostgreSQL not migrated: say what to run
            language = system_language()
            print(
                outdated_message(error.state, error.revision, error.needed, language),
                file=sys.stderr,
            )
            return 1


def dispatch(args: argparse.Namespace) -> int:
    """Run the command `args` names."""
    if args.command == "serve":
        from .server import serve

        return serve(args.host, args.port)
    if args.command == "demo":
        from .server import demo

        return demo(args.host, args.port)
    if args.command == "outbox":
        from .store import outbox

        return outbox(args.action)
    if args.command == "db":
        from .store import db

        return db(args.action)
    if args.command == "review":
        from .store import review

        return review(args.investigation_id)
    if args.command == "export":
        from .store import export

        return export(args.investigation_id, args.fmt, args.out, args.reviewed_only)
    if args.command == "docs":
        return docs(args)
    if args.command == "doctor":
        from ..config import get_settings
        from ..doctor import run as doctor

        return doctor(get_settings(), args.language or system_language(), args.timeout)
    if args.command == "gazettes":
        from .gazettes import run as gazettes

        return gazettes(args)
    from .investigation import run_investigation

    return run_investigation(args)
