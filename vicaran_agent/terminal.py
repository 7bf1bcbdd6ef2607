"""`vicaran investigate` on screen: live progress and Markdown in a terminal, plain text elsewhere.

Progress comes from the events the pipeline streams: the stage is the event's author, totals come
from the records a stage saves (its state delta), and the counts in between from the `i/n` a
per-source or per-claim line carries before its first colon. Markers are removed for display
only; what the session and the store hold is unchanged.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

from google.adk.events import Event

from . import state_keys as keys
from .i18n import message, verdict_label
from .sanitize import strip_markers
from .usage import tokens_line

# Each pipeline stage (an event's author) and the step it belongs to.
STAGE_STEPS = {
    "source_finder": "sources",
    "claim_extractor": "claims",
    "fact_checker": "checks",
    "bias_analyzer": "checks",
    "timeline_builder": "checks",
    "summary_writer": "report",
}
_VERDICTS = ("verified", "partially_true", "misleading", "false", "unverified")


def display_text(text: str) -> str:
    """`text` as people read it: no protocol markers, no gaps where they were, no blank edges."""
    lines = []
    for line in strip_markers(text).splitlines():
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        lines.append(indent + " ".join(body.split()) if body.strip() else "")
    kept: list[str] = []
    for line in lines:  # at most one blank line in a row
        if line or (kept and kept[-1]):
            kept.append(line)
    return "\n".join(kept).strip("\n")


def hard_breaks(markdown: str) -> str:
    """Markdown whose line breaks stay line breaks (progress lines are written line by line).

    Each line followed by a non-blank line ends with a hard break; fenced code is left alone.
    """
    lines = markdown.split("\n")
    fenced = False
    for index, line in enumerate(lines[:-1]):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and line.strip() and lines[index + 1].strip():
            lines[index] = line + "  "
    return "\n".join(lines)


def leading_ratio(text: str) -> tuple[int, int] | None:
    """The first `i/n` (1 ≤ i ≤ n) on the first line before its first colon, else None.

    "📄 **Analyzing source 3/15:** title" → (3, 15); a query, a title or a reason comes after
    the colon, so a "24/7" in it is never taken for progress. One pass, no regex.
    """
    head = text.split("\n", 1)[0].split(":", 1)[0]
    at, size = 0, len(head)
    while at < size:
        slash = head.find("/", at)
        if slash < 0:
            return None
        start = slash
        while start > 0 and "0" <= head[start - 1] <= "9":
            start -= 1
        end = slash + 1
        while end < size and "0" <= head[end] <= "9":
            end += 1
        if 0 < slash - start <= 6 and 0 < end - slash - 1 <= 6:  # counts, not serial numbers
            i, n = int(head[start:slash]), int(head[slash + 1 : end])
            if 1 <= i <= n:
                return i, n
        at = end
    return None


def is_verdict_line(text: str) -> bool:
    """A claim's result line: it starts with a verdict's emoji and bold label (any language),
    then names the claim by its number, "claim 2/5"."""
    return any(
        text.startswith(f"{emoji} **{label}**")
        for verdict in _VERDICTS
        for emoji, label in (verdict_label(verdict, "en"), verdict_label(verdict, "pt-BR"))
    )


@dataclass
class RunProgress:
    """Where an investigation is, from the events it streams."""

    step: str = "planning"
    sources_read: int = 0
    sources_total: int | None = None
    claims_checked: int = 0
    claims_total: int | None = None
    checked: set[int] = field(default_factory=set)  # the claims' numbers, as the chat gives them
    tokens: dict[str, Any] | None = None  # the run's model use, once the report is written
    started: float = field(default_factory=time.monotonic)

    def observe(self, event: Event) -> None:
        step = STAGE_STEPS.get(event.author)
        if step is None:
            return
        self.step = step
        delta = event.actions.state_delta if event.actions else {}
        text = "".join(
            p.text or "" for p in (event.content.parts if event.content else None) or []
        ).strip()
        if delta.get(keys.TOKEN_USAGE):
            self.tokens = delta[keys.TOKEN_USAGE]
        if keys.SOURCE_RECORDS in delta:
            self.sources_total = self.sources_read = len(delta[keys.SOURCE_RECORDS] or [])
        elif keys.CLAIM_RECORDS in delta:
            self.claims_total = len(delta[keys.CLAIM_RECORDS] or [])
        elif keys.VERDICT_RECORDS in delta:
            self.claims_checked = len(delta[keys.VERDICT_RECORDS] or [])
        elif event.author == "source_finder" and (ratio := leading_ratio(text)):
            self.sources_read = max(self.sources_read, ratio[0])
            self.sources_total = ratio[1]
        elif event.author == "fact_checker" and (ratio := leading_ratio(text)):
            # "Verifying claim 2/5: …" and "✅ **VERIFIED** — claim 2/5 (…): …": one numbering
            self.claims_total = self.claims_total or ratio[1]
            if is_verdict_line(text):
                self.checked.add(ratio[0])
                self.claims_checked = len(self.checked)

    def elapsed(self) -> str:
        seconds = int(time.monotonic() - self.started)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"

    def line(self, language: str, status: str | None = None) -> str:
        """One line, e.g. "Checking claims · sources read 12/15 · claims checked 2/5 · 1:05"."""
        label = f"status_{status}" if status else f"step_{self.step}"
        parts = [message(label, language)]
        if self.sources_total is not None:
            parts.append(
                message(
                    "progress_sources", language, read=self.sources_read, total=self.sources_total
                )
            )
        if self.claims_total is not None:
            parts.append(
                message(
                    "progress_claims", language, done=self.claims_checked, total=self.claims_total
                )
            )
        parts.append(self.elapsed())
        return " · ".join(parts)

    def model_use(self, language: str) -> str:
        """The run's tokens and estimated cost, once the report is written ("" before)."""
        if not self.tokens:
            return ""
        return message("report_tokens", language, line=tokens_line(self.tokens, language))


class Screen(Protocol):
    """Where `vicaran investigate` writes: a rich terminal, or plain text."""

    language: str
    progress: RunProgress

    def working(self) -> Any: ...  # a context manager: the live display, while the agent works

    def event(self, event: Event) -> None: ...

    def say(self, text: str) -> None: ...

    def link(self, text: str, url: str) -> None: ...

    def finish(self, status: str) -> None: ...


class PlainScreen:
    """Markdown source without markers, line by line; no colours, no cursor movement."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.progress = RunProgress()

    @staticmethod
    def write(text: str) -> None:
        print(text, flush=True)

    def working(self) -> Any:
        return nullcontext()

    def event(self, event: Event) -> None:
        self.progress.observe(event)
        if text := display_text(event_text(event, self.language)):
            self.write(text + "\n")

    def say(self, text: str) -> None:
        self.write(display_text(text))

    def link(self, text: str, url: str) -> None:
        self.write(f"{text}\n{url}")

    def finish(self, status: str) -> None:
        self.write(self.progress.line(self.language, status))
        if use := self.progress.model_use(self.language):
            self.write(use)


class RichScreen:
    """A live status line (stage, counters, elapsed time) under Markdown rendered as it comes."""

    def __init__(self, language: str, console: Any = None) -> None:
        from rich.console import Console
        from rich.spinner import Spinner

        self.language = language
        self.progress = RunProgress()
        self.console = console or Console(highlight=False)
        self._spinner = Spinner("dots", style="cyan")
        self._live: Any = None

    def _status(self) -> Any:
        from rich.text import Text

        self._spinner.update(text=Text(" " + self.progress.line(self.language), style="bold"))
        return self._spinner

    @contextmanager
    def working(self) -> Iterator[None]:
        from rich.live import Live

        live = Live(
            console=self.console,
            get_renderable=self._status,
            refresh_per_second=4,  # the elapsed time and the spinner
            transient=True,
        )
        with live:
            self._live = live
            try:
                yield
            finally:
                self._live = None

    def event(self, event: Event) -> None:
        from rich.markdown import Markdown

        self.progress.observe(event)
        if text := display_text(event_text(event, self.language)):
            self.console.print(Markdown(hard_breaks(text)))
            self.console.print()
        if self._live is not None:
            self._live.refresh()  # every change of stage or count is drawn, however fast

    def say(self, text: str) -> None:
        from rich.markdown import Markdown

        self.console.print(Markdown(hard_breaks(display_text(text))))

    def link(self, text: str, url: str) -> None:
        from rich.markdown import Markdown
        from rich.text import Text

        self.console.print(Markdown(text))
        self.console.print(Text(url, style=f"link {url}"), soft_wrap=True)

    def finish(self, status: str) -> None:
        style = {"completed": "bold green", "partial": "bold yellow"}.get(status, "bold red")
        self.console.print(self.progress.line(self.language, status), style=style)
        if use := self.progress.model_use(self.language):
            self.console.print(use, style="dim", soft_wrap=True)


def event_text(event: Event, language: str) -> str:
    """What an event says to people: its final text, thoughts left out; a URL being read."""
    reading = [
        message("reading_url", language, url=(call.args or {}).get("url"))
        for call in event.get_function_calls()
        if call.name == "analyze_source"
    ]
    if reading:
        return "\n".join(reading)
    if event.partial or not event.content or not event.content.parts:
        return ""
    return "".join(p.text or "" for p in event.content.parts if not p.thought).strip()


def open_screen(language: str, plain: bool) -> Screen:
    """A rich screen on a terminal, plain text when asked or when stdout is not a terminal."""
    if plain or not sys.stdout.isatty():
        return PlainScreen(language)
    return RichScreen(language)
