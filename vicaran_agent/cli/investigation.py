"""`vicaran investigate`: the same root agent as the dev UI, in a terminal session, with exit codes
(0 completed, 2 partial, 1 failed) and the callback outbox drained before exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import state_keys as keys
from ..clock import SYSTEM_CLOCK, Clock
from ..i18n import detect_language, message

if TYPE_CHECKING:
    from ..terminal import Screen
from .output import log_output, one_sentence

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
        pending = (await asyncio.to_thread(repository.outbox_summary)).counts.pending
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
