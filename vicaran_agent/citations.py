"""`[N]` citations: every number must resolve, or it is removed before anything ships.

A citation of the journalist's document may carry its page: `[N, p. 4]` (`[N, pp. 4, 17]`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

# Bounded repetitions and distinct separators: no catastrophic backtracking on model prose.
_GROUP = re.compile(r"\s?\[(\d{1,6}(?:[ ]{0,3}[,;][ ]{0,3}\d{1,6}){0,30})(, pp?\. [\d, ]{1,60})?\]")
_SINGLE = re.compile(r"\[(\d{1,6})\]")
_ENDS = frozenset(".!?")
_DROP_NEXT = "\x00"  # a removed citation between two sentence ends: the second one goes too


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
            rest = text[match.end() : match.end() + 1]
            before = text[: match.start()].rstrip()[-1:]
            # "Acme Ltda. [7]." without its citation is one sentence end, not "Ltda.."
            return _DROP_NEXT if rest in _ENDS and before in _ENDS else ""
        lead = " " if match.group(0).startswith(" ") else ""
        pages = match.group(2) if len(good) == 1 and match.group(2) else ""
        return lead + "".join(f"[{n}{pages}]" for n in good)

    resolved = _GROUP.sub(replace, text)
    if _DROP_NEXT in resolved:
        resolved = "".join(
            part[1:] if n else part for n, part in enumerate(resolved.split(_DROP_NEXT))
        )
    return resolved, kept, removed


def page_label(pages: Sequence[int]) -> str:
    """ ", p. 4" or ", pp. 4, 17" (pages 1-based, as printed)."""
    ordered = sorted(set(pages))
    if not ordered:
        return ""
    if len(ordered) == 1:
        return f", p. {ordered[0]}"
    return ", pp. " + ", ".join(str(p) for p in ordered)


def with_pages(text: str, pages: Mapping[int, Sequence[int]]) -> str:
    """Bare `[N]` of a document source become `[N, p. P]`: the pages its evidence rests on."""
    if not pages:
        return text

    def replace(match: re.Match[str]) -> str:
        number = int(match.group(1))
        label = page_label(pages.get(number, ()))
        return f"[{number}{label}]" if label else match.group(0)

    return _SINGLE.sub(replace, text)
