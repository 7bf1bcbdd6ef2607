"""`[N]` citations: every number must resolve, or it is removed before anything ships."""

from __future__ import annotations

import re
from collections.abc import Collection

_GROUP = re.compile(r"\s?\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def resolve_citations(text: str, valid: Collection[int]) -> tuple[str, list[int], list[int]]:
    """(text with only valid citations, numbers kept in first-use order, numbers removed)."""
    kept: list[int] = []
    removed: list[int] = []

    def replace(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        good = [n for n in numbers if n in valid]
        removed.extend(n for n in numbers if n not in valid)
        kept.extend(n for n in good if n not in kept)
        if not good:
            return ""
        lead = " " if match.group(0).startswith(" ") else ""
        return lead + "".join(f"[{n}]" for n in good)

    return _GROUP.sub(replace, text), kept, removed
