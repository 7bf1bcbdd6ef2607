"""`vicaran`: headless investigations, exports, the server, and the callback outbox."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import signal
import socket
import sys
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .. import state_keys as keys
from ..clock import SYSTEM_CLOCK, Clock
from ..i18n import PORTUGUESE, detect_language, localized, message, system_language

if TYPE_CHECKING:
    from ..config import Settings
    from ..terminal import Screen

EXIT_CODES = {"completed": 0, "partial": 2, "failed": 1}
USER = "journalist"
CLOCK: Clock = SYSTEM_CLOCK  # what the wait for the callback API goes by (tests move their own)


def build_message(
    brief: str, urls: list[str], mode: str | None, investigation_id: str | None
) -> str:
    lines = []
    if investigation_id:
        lines.append(f"Investigation ID: {investigation_id}")
    if mode:
        lines.append(f"Mode: {'Quick Search' if mode == 'quick' else 'Detailed Inquiry'}")
    lines.append(brief.strip())
    lines.extend(urls)
    return "\n".join(lines)


class TerminalSession:
    """One investigation in the terminal: shows what the agent says as it says it."""

    def __init__(self, screen: Screen) -> None:
        from google.adk.runners import InMemoryRunner

        from ..agent import build_app

        self.app = build_app()
        self.runner = InMemoryRunner(app=self.app)
        self.screen = screen
        self.session_id = ""

    async def send(self, text: str) -> str:
        """Send one message; return the text of the last message the agent wrote."""
        from google.genai import types

        from ..terminal import event_text

        if not self.session_id:
            session = await self.runner.session_service.create_session(
                app_name=self.app.name, user_id=USER
            )
            self.session_id = session.id
        last = ""
        with self.screen.working():
            async for event in self.runner.run_async(
                user_id=USER,
                session_id=self.session_id,
                new_message=types.Content(role="user", parts=[types.Part(text=text)]),
            ):
                self.screen.event(event)
                if not event.get_function_calls():
                    last = event_text(event, self.screen.language) or last
        return last

    async def state(self) -> dict:
        session = await self.runner.session_service.get_session(
            app_name=self.app.name, user_id=USER, session_id=self.session_id
        )
        return dict(session.state) if session else {}


async def investigate(
    args: argparse.Namespace,
    ask: Callable[[str], str],
    hidden_problems: Callable[[], int] = lambda: 0,
) -> int:
    """Plan, approve (or `--yes`), run; `hidden_problems()` counts what the log kept out of view."""
    from .. import liveness
    from ..config import get_settings, load_model_plugins
    from ..conversation.protocol import PLAN_MARKER
    from ..terminal import open_screen

    load_model_plugins()  # a bad VICARAN_MODEL_PLUGINS is one sentence, before anything runs
    screen = open_screen(detect_language(args.brief), args.plain)
    await liveness.sweep(force=True)  # runs a killed process left behind are not live
    running = asyncio.current_task()
    if running is not None:  # SIGTERM (a container stop) cancels the run: it is `interrupted`
        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, running.cancel)
    terminal = TerminalSession(screen)
    reply = await terminal.send(build_message(args.brief, args.url, args.mode, args.id))
    state = await terminal.state()
    screen.language = (state.get(keys.INVESTIGATION_CONFIG) or {}).get("language", screen.language)
    say = screen.say
    if state.get(keys.CLARIFY) == "asking":  # questions first: answered, or skipped with --yes
        if args.yes:
            answer = "skip"
        elif not sys.stdin.isatty():
            say(message("cli_needs_yes", screen.language))
            return 1
        else:
            answer = ask(message("cli_answer", screen.language)).strip() or "skip"
        reply = await terminal.send(answer)
    while PLAN_MARKER in reply:
        if args.yes:
            answer = "APPROVED"
        elif not sys.stdin.isatty():
            say(message("cli_needs_yes", screen.language))
            return 1
        else:
            answer = ask(message("cli_approve", screen.language)).strip()
            if not answer:
                continue
        reply = await terminal.send(answer)
    state = await terminal.state()
    status = state.get(keys.INVESTIGATION_STATUS)
    if status not in EXIT_CODES:
        say(message("cli_not_started", screen.language))
        return 1
    screen.finish(status)
    if args.out:
        from ..terminal import display_text

        report = display_text(state.get(keys.INVESTIGATION_SUMMARY) or reply)
        await asyncio.to_thread(Path(args.out).write_text, report + "\n", encoding="utf-8")
        say(message("cli_report_written", screen.language, path=args.out))
    await deliver_before_exit(screen, args.wait_delivery)
    if hidden_problems():
        say(message("cli_details", screen.language))
    investigation_id = str(state.get(keys.INVESTIGATION_ID) or "")
    if investigation_id:
        settings = get_settings()
        # No server here to ask: the label says the link assumes `vicaran serve`'s default.
        label = "cli_dashboard" if settings.public_url_set else "cli_dashboard_assumed"
        screen.link(message(label, screen.language), settings.investigation_url(investigation_id))
    return EXIT_CODES[status]


async def deliver_before_exit(screen: Screen, seconds: float = 60.0) -> None:
    """Deliver what the callback outbox holds, waiting up to `seconds` for the API to take it.

    A callback API that is down for a while gets its records when it comes back; whatever is
    left after the wait stays in the outbox for `vicaran outbox flush` or the next start.
    """
    from ..config import get_settings
    from ..delivery import Deliverer, stop_delivery
    from ..storage import get_repository

    await stop_delivery()
    settings = get_settings()
    if not settings.callback_enabled:
        return
    language = screen.language
    repository = get_repository(settings.database_url)
    deliverer = Deliverer(settings, repository)
    deadline = CLOCK.now() + max(0.0, seconds)
    told = False
    while True:
        left = deadline - CLOCK.now()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(deliverer.deliver_due(now_only=False), timeout=max(0.5, left))
        counts = (await asyncio.to_thread(repository.outbox_summary))["counts"]
        pending = counts["pending"]
        left = deadline - CLOCK.now()
        if not pending or left <= 0:
            break
        if not told:
            key = "cli_waiting_one" if pending == 1 else "cli_waiting_many"
            screen.say(message(key, language, seconds=f"{seconds:g}", count=pending))
            told = True
        await CLOCK.sleep(min(1.0, left))
    if pending:
        key = "cli_left_one" if pending == 1 else "cli_left_many"
        screen.say(message(key, language, count=pending))
    elif told:
        screen.say(message("cli_delivered", language))


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
    database = commands.add_parser("db", help="the records database's schema (migrations)")
    database.add_argument(
        "action",
        choices=["upgrade", "status"],
        help="upgrade: migrate to this version's schema (PostgreSQL needs it; SQLite does it "
        "itself); status: the database's revision and the one this version needs",
    )
    outbox = commands.add_parser("outbox", help="records waiting for the newsroom callback API")
    outbox.add_argument("action", choices=["status", "flush"])
    export = commands.add_parser("export", help="export a saved investigation")
    export.add_argument("investigation_id", metavar="ID", help="the investigation's id")
    export.add_argument(
        "--format",
        dest="fmt",
        required=True,
        choices=["md", "html", "json", "claimreview"],
        help="Markdown report, standalone HTML, every record as JSON, or ClaimReview JSON-LD",
    )
    export.add_argument("--out", help="write to this file instead of standard output")
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
        "--collection", required=True, action="append", metavar="NAME", help="repeat for more"
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


class PortError(OSError):
    """The server cannot listen where it was asked to; `str()` is the sentence to show."""


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (as uvicorn binds it), or PortError saying what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortError(
                f"Port {port} is already in use: stop what is using it or run "
                f"`make run PORT={port + 10}`."
            ) from error
        if error.errno == errno.EACCES:
            raise PortError(
                f"Port {port} needs administrator rights: run `make run PORT=8000` "
                "(or any port above 1023)."
            ) from error
        raise PortError(
            f"Cannot listen on {host}:{port} ({error.strerror or error}): run "
            "`make run HOST=127.0.0.1`, or give an address of this machine."
        ) from error
    return sock


def serve_notices(settings: Settings, host: str, port: int) -> list[str]:
    """What the operator should know about the links a server bound to host:port gives."""
    from ..config import RETIRED_PUBLIC_URL as RETIRED

    language = system_language()
    public = settings.serving_at(host, port)
    notices = []
    if settings.vicaran_public_url and not settings.public_url_set and public != RETIRED:
        notices.append(message("serve_retired_public_url", language, retired=RETIRED, url=public))
    if not settings.public_url_set and host.strip().strip("[]") in ("0.0.0.0", "::"):
        notices.append(message("serve_every_interface", language, url=public))
    return notices


def serve(host: str, port: int) -> int:
    problem = schema_problem()  # an outdated PostgreSQL schema: refuse before binding
    if problem:
        print(problem, file=sys.stderr)
        return 1
    try:
        sock = listen(host, port)  # before anything is loaded or printed: a busy port, at once
    except PortError as error:
        print(error, file=sys.stderr)
        return 1
    import uvicorn

    from .. import liveness
    from ..config import get_settings, server_url
    from ..server.app import SessionStoreError, build_server

    with sock:
        settings = get_settings()
        for notice in serve_notices(settings, host, port):
            print(notice, file=sys.stderr, flush=True)
        # Every link this process gives (reports, the dashboard, exports) names where it is
        # reached: the agent ADK loads here reads it from the settings, as everything else.
        public = settings.serving_at(host, port)
        os.environ["VICARAN_PUBLIC_URL"] = public
        get_settings.cache_clear()
        try:
            app = build_server(host=host, port=port)
        except SessionStoreError as error:
            print(error, file=sys.stderr)
            return 1
        bound = server_url(host, port)
        elsewhere = f" - links name {public}" if public != bound else ""
        print(
            f"Vicaran: dev UI {bound}/dev-ui/ - dashboard {bound}/investigations{elsewhere}",
            flush=True,
        )

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: object) -> None:
                # Before anything stops: this process's runs become `interrupted`, not stuck.
                liveness.interrupt_running()
                super().handle_exit(sig, frame)  # type: ignore[arg-type]

        Server(uvicorn.Config(app, host=host, port=port)).run(sockets=[sock])
    return 0


def schema_problem() -> str | None:
    """Why the records database cannot be served as it is (PostgreSQL only: SQLite upgrades)."""
    from sqlalchemy.engine import make_url

    from ..config import get_settings

    url = get_settings().database_url
    if make_url(url).get_backend_name() == "sqlite":
        return None
    from ..storage import migrate

    state, revision = migrate.status(url)
    if state == "current":
        return None
    return migrate.outdated_message(state, revision, migrate.head(), system_language())


def db(action: str) -> int:
    """`upgrade`: migrate the records database to this version's schema; `status`: compare."""
    from ..config import get_settings
    from ..storage import migrate

    language = system_language()
    url = get_settings().database_url
    state, revision = migrate.status(url)
    head = migrate.head()
    if action == "status":
        print(message("db_status", language, revision=revision or "-", head=head))
    if state == "current":
        print(message("db_up_to_date", language, head=head))
        return 0
    if action == "status" or state == "unknown":
        print(migrate.outdated_message(state, revision, head, language))
        return 1
    before, after = migrate.upgrade(url)
    print(message("db_upgraded", language, revision=before or "-", head=after))
    return 0


def outbox(action: str) -> int:
    """`status`: what waits or failed; `flush`: deliver everything pending now."""
    from ..config import get_settings
    from ..delivery import Deliverer
    from ..storage import get_repository

    settings = get_settings()
    repository = get_repository(settings.database_url)
    if action == "flush":
        if not settings.callback_enabled:
            print("Set CALLBACK_API_URL and AGENT_SECRET to deliver the outbox.", file=sys.stderr)
            return 1
        delivered = asyncio.run(Deliverer(settings, repository).deliver_due(now_only=False))
        print(f"Delivered {delivered} record(s).")
    summary = repository.outbox_summary()
    counts = summary["counts"]
    print(
        f"Outbox: {counts['pending']} pending, {counts['delivered']} delivered, "
        f"{counts['failed']} failed."
    )
    for row in summary["retrying"]:
        print(
            f"  retrying #{row['id']} {row['type']} ({row['investigation_id']}): "
            f"{row['last_error']} - attempt {row['attempts']}, next at {row['next_attempt_at']}"
        )
    for row in summary["failed"]:
        print(
            f"  failed #{row['id']} {row['type']} ({row['investigation_id']}): {row['last_error']}"
            f" {row['response_body'] or ''}".rstrip()
        )
    return 0 if not counts["pending"] and not counts["failed"] else 1


def export(investigation_id: str, fmt: str, out: str | None) -> int:
    """Write one saved investigation as `fmt` to standard output, or to `out`."""
    from .. import export as exports
    from ..config import get_settings
    from ..storage import get_repository

    repository = get_repository(get_settings().database_url)
    investigation = repository.get_investigation(investigation_id)
    if investigation is None:
        print(f"No investigation with id {investigation_id} is saved here.", file=sys.stderr)
        return 1
    snapshots = repository.get_snapshots(investigation_id) if fmt in exports.WITH_SNAPSHOTS else {}
    text = exports.render(fmt, investigation, snapshots, settings=get_settings())
    if not out:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"Could not write {out}: {error.strerror or error}.", file=sys.stderr)
        return 1
    print(f"{exports.FORMATS[fmt].label} export of {investigation_id} written to {out}")
    return 0


@contextlib.contextmanager
def quiet_adk() -> Iterator[None]:
    """ADK's "[EXPERIMENTAL] ..." notices are not for journalists: off in Vicaran's commands.

    `adk run` and `adk web` never pass here, so they print them as ADK does.
    """
    switch = "ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS"
    before = os.environ.get(switch)
    os.environ[switch] = "true"
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)
            yield
    finally:
        if before is None:
            os.environ.pop(switch, None)
        else:
            os.environ[switch] = before


class _Counted(logging.Handler):
    """Keeps log records out of the terminal, counting Vicaran's own warnings and any error."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.name.startswith("vicaran_agent"):
            self.count += 1


class _ToStderr(logging.Handler):
    """Writes to whatever sys.stderr is when a record comes (a live display redirects it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr, flush=True)
        except (OSError, ValueError):
            self.handleError(record)


@contextlib.contextmanager
def log_output(verbose: bool) -> Iterator[_Counted | None]:
    """Warnings and errors with their details (verbose), or kept out of the way and counted."""
    root = logging.getLogger()
    handler: logging.Handler
    if verbose:
        handler = _ToStderr(logging.WARNING)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler = _Counted()
    root.addHandler(handler)
    try:
        yield handler if isinstance(handler, _Counted) else None
    finally:
        root.removeHandler(handler)


def one_sentence(error: BaseException, language: str) -> str:
    """A configuration or model error as people read it, without its dump."""
    import httpx
    from google.genai import errors as genai_errors
    from pydantic import ValidationError

    from ..config import ModelPluginError, settings_problem
    from ..llm import ModelCallError, describe_model_error

    if isinstance(error, ModelPluginError):
        return str(error)
    if isinstance(error, ModelCallError):
        return error.said_in(language)
    if isinstance(error, ValidationError):
        return settings_problem(error)
    if isinstance(error, (genai_errors.APIError, httpx.TransportError, TimeoutError)):
        return str(localized(describe_model_error(error, "")[0], language))
    detail = " ".join(f"{type(error).__name__}: {error}".split())[:200]
    return message("cli_error", language, error=detail)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from pydantic import ValidationError

    from ..config import get_settings, settings_problem

    try:
        settings = get_settings()
    except ValidationError as error:  # every command needs valid settings: say which is wrong
        print(settings_problem(error), file=sys.stderr)
        return 2
    from ..doctor import warn_at_start

    warn_at_start(settings, lambda line: print(line, file=sys.stderr), system_language())
    from ..storage.migrate import SchemaOutdated, outdated_message

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
        return serve(args.host, args.port)
    if args.command == "outbox":
        return outbox(args.action)
    if args.command == "db":
        return db(args.action)
    if args.command == "export":
        return export(args.investigation_id, args.fmt, args.out)
    if args.command == "docs":
        return docs(args)
    if args.command == "doctor":
        from ..config import get_settings
        from ..doctor import run as doctor

        return doctor(get_settings(), args.language or system_language(), args.timeout)
    if args.command == "gazettes":
        from .gazettes import run as gazettes

        return gazettes(args)
    return run_investigation(args)


def run_investigation(args: argparse.Namespace) -> int:
    if args.id:
        args.id = str(args.id)
    if not args.brief.strip():
        print("Give a brief: what should Vicaran investigate?", file=sys.stderr)
        return 1
    language = detect_language(args.brief)
    with log_output(args.verbose) as hidden:
        try:
            count = (lambda: hidden.count) if hidden is not None else (lambda: 0)
            return asyncio.run(investigate(args, input, count))
        except (KeyboardInterrupt, asyncio.CancelledError):
            print("\n" + message("cli_interrupted", language), file=sys.stderr)
            return 130
        except Exception as error:  # noqa: BLE001 - a configuration or model error: one sentence
            if args.verbose:
                traceback.print_exc()
            print(one_sentence(error, language), file=sys.stderr)
            return 1
