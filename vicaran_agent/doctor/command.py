"""`vicaran doctor` itself: run the checks, print the lines and a summary."""

from __future__ import annotations

import asyncio

from ..config import Settings
from ..i18n import localized, message
from .checks import DEFAULT_TIMEOUT, Doctor
from .lines import Line


def report(lines: list[Line], language: str) -> tuple[list[str], int]:
    """The lines to print and the exit code (1 when anything failed)."""
    shown = [line.render(language) for line in lines]
    failed = [str(localized(line.service, language)) for line in lines if line.status == "fail"]
    warned = sum(line.status == "warn" for line in lines)
    if failed:
        shown.append(message("doctor_summary_fail", language, services="; ".join(failed)))
    elif warned:
        shown.append(message("doctor_summary_warn", language, count=warned))
    else:
        shown.append(message("doctor_summary_ok", language))
    return shown, 1 if failed else 0


def run(settings: Settings, language: str, timeout: float = DEFAULT_TIMEOUT) -> int:
    """`vicaran doctor`: print one line per service and a summary; 1 when something is broken."""
    lines = asyncio.run(Doctor(settings, timeout).run())
    shown, code = report(lines, language)
    for text in shown:
        print(text, flush=True)
    return code
