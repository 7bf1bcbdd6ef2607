"""`vicaran`: headless investigations in the terminal, through the same root agent."""

from __future__ import annotations

import argparse
import asyncio
import sys
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
    return EXIT_CODES[status]


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
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.id:
        args.id = str(args.id)
    if not args.brief.strip():
        print("Give a brief: what should Vicaran investigate?", file=sys.stderr)
        return 1
    try:
        return asyncio.run(investigate(args, input))
    except KeyboardInterrupt:
        print("\nStopped.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
