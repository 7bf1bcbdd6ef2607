"""What a check found: one line per service, said in the reader's language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..i18n import Phrase, is_portuguese, localized

Status = Literal["ok", "note", "warn", "fail"]

MARKS: dict[Status, str] = {"ok": "✓", "note": "–", "warn": "!", "fail": "✗"}


class Figure(int):
    """A count said the reader's way: 12,345 in English, 12.345 in Portuguese."""

    def said_in(self, language: str) -> str:
        text = f"{int(self):,}"
        return text.replace(",", ".") if is_portuguese(language) else text


@dataclass(frozen=True)
class Line:
    """What one check found: the service, how it stands, what was seen and the fix."""

    service: Phrase | str
    status: Status
    said: Phrase | str
    fix: Phrase | str | None = None

    def render(self, language: str) -> str:
        text = f"{MARKS[self.status]} {localized(self.service, language)}: "
        text += str(localized(self.said, language))
        if self.fix:
            text += f" → {localized(self.fix, language)}"
        return text
