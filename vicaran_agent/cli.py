"""`vicaran`: headless investigations, exports, the server, and the callback outbox."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from google.adk.events import Event
from google.adk.runners import InMemoryRunner
from google.genai import types

from . import state_keys as keys
from .callbacks.orchestrator import PLAN_MARKER

EXIT_CODES = {"completed": 0, "partial": 2, "failed": 1}
USER = "journalist"


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
    """One investigation in the terminal: streams what the agent says as it says it."""

    def __init__(self, write: Callable[[str], None]) -> None:
        from .agent import build_app

        self.app = build_app()
        self.runner = InMemoryRunner(app=self.app)
        self.write = write
        self.session_id = ""

    async def send(self, text: str) -> str:
        """Send one message; return the text of the last message the agent wrote."""
        if not self.session_id:
            session = await self.runner.session_service.create_session(
                app_name=self.app.name, user_id=USER
            )
            self.session_id = session.id
        last = ""
        async for event in self.runner.run_async(
            user_id=USER,
            session_id=self.session_id,
            new_message=types.Content(role="user", parts=[types.Part(text=text)]),
        ):
            last = self._show(event) or last
        return last

    def _show(self, event: Event) -> str:
        for call in event.get_function_calls():
            if call.name == "analyze_source":
                self.write(f"📄 Reading {(call.args or {}).get('url')} ...")
        if event.partial or not event.content or not event.content.parts:
            return ""
        text = "".join(p.text or "" for p in event.content.parts if not p.thought).strip()
        if text:
            self.write(text + "\n")
        return text

    async def state(self) -> dict:
        session = await self.runner.session_service.get_session(
            app_name=self.app.name, user_id=USER, session_id=self.session_id
        )
        return dict(session.state) if session else {}


async def investigate(args: argparse.Namespace, ask: Callable[[str], str]) -> int:
    def write(text: str) -> None:
        print(text, flush=True)

    from . import liveness

    await liveness.sweep(force=True)  # runs a killed process left behind are not live
    running = asyncio.current_task()
    if running is not None:  # SIGTERM (a container stop) cancels the run: it is `interrupted`
        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, running.cancel)
    terminal = TerminalSession(write)
    reply = await terminal.send(build_message(args.brief, args.url, args.mode, args.id))
    while PLAN_MARKER in reply:
        if args.yes:
            answer = "APPROVED"
        elif not sys.stdin.isatty():
            write("The plan needs approval: run again with --yes to approve it without asking.")
            return 1
        else:
            answer = ask("Approve this plan? Type APPROVED, or write what to change: ").strip()
            if not answer:
                continue
        reply = await terminal.send(answer)
    state = await terminal.state()
    status = state.get(keys.INVESTIGATION_STATUS)
    if status not in EXIT_CODES:
        write("The investigation did not start.")
        return 1
    report = state.get(keys.INVESTIGATION_SUMMARY) or reply
    if args.out:
        await asyncio.to_thread(Path(args.out).write_text, report + "\n", encoding="utf-8")
        write(f"Report written to {args.out}")
    write(f"Investigation {state.get(keys.INVESTIGATION_ID)}: {status}")
    await deliver_before_exit(write, args.wait_delivery)
    return EXIT_CODES[status]


async def deliver_before_exit(write: Callable[[str], None], seconds: float = 60.0) -> None:
    """Deliver what the callback outbox holds, waiting up to `seconds` for the API to take it.

    A callback API that is down for a while gets its records when it comes back; whatever is
    left after the wait stays in the outbox for `vicaran outbox flush` or the next start.
    """
    from .config import get_settings
    from .delivery import Deliverer, stop_delivery
    from .storage import get_repository

    await stop_delivery()
    settings = get_settings()
    if not settings.callback_enabled:
        return
    repository = get_repository(settings.database_url)
    deliverer = Deliverer(settings, repository)
    deadline = time.monotonic() + max(0.0, seconds)
    told = False
    while True:
        left = deadline - time.monotonic()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(deliverer.deliver_due(now_only=False), timeout=max(0.5, left))
        counts = (await asyncio.to_thread(repository.outbox_summary))["counts"]
        pending = counts["pending"]
        left = deadline - time.monotonic()
        if not pending or left <= 0:
            break
        if not told:
            write(
                f"Waiting up to {seconds:g} s for the callback API to take {pending} record(s)..."
            )
            told = True
        await asyncio.sleep(min(1.0, left))
    if pending:
        write(
            f"{pending} record(s) still wait for the callback API: `vicaran outbox flush` "
            "sends them."
        )
    elif told:
        write("Every record reached the callback API.")


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
        "--wait-delivery",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="wait this long for the callback API to take every record (default 60)",
    )
    serve = commands.add_parser("serve", help="dev UI, agent API, callback API and dashboard")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
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
    return main


def serve(host: str, port: int) -> int:
    import uvicorn

    from . import liveness
    from .server.app import build_server

    print(
        f"Vicaran: dev UI http://{host}:{port}/dev-ui/ - dashboard http://{host}:{port}/investigations"
    )

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: object) -> None:
            # Before anything stops: this process's runs become `interrupted`, not stuck.
            liveness.interrupt_running()
            super().handle_exit(sig, frame)  # type: ignore[arg-type]

    config = uvicorn.Config(build_server(host=host, port=port), host=host, port=port)
    Server(config).run()
    return 0


def outbox(action: str) -> int:
    """`status`: what waits or failed; `flush`: deliver everything pending now."""
    from .config import get_settings
    from .delivery import Deliverer
    from .storage import get_repository

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
    from . import export as exports
    from .config import get_settings
    from .storage import get_repository

    repository = get_repository(get_settings().database_url)
    investigation = repository.get_investigation(investigation_id)
    if investigation is None:
        print(f"No investigation with id {investigation_id} is saved here.", file=sys.stderr)
        return 1
    snapshots = repository.get_snapshots(investigation_id) if fmt == "json" else {}
    text = exports.render(fmt, investigation, snapshots)
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


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "serve":
        return serve(args.host, args.port)
    if args.command == "outbox":
        return outbox(args.action)
    if args.command == "export":
        return export(args.investigation_id, args.fmt, args.out)
    if args.id:
        args.id = str(args.id)
    if not args.brief.strip():
        print("Give a brief: what should Vicaran investigate?", file=sys.stderr)
        return 1
    try:
        return asyncio.run(investigate(args, input))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("\nStopped: the investigation is marked interrupted.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
