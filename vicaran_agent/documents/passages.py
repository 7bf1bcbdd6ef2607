"""Pages into passages of about 1,000 characters that overlap, each keeping its page and offsets."""

from __future__ import annotations

from collections.abc import Iterable

from .model import PageText, Passage

PASSAGE_CHARS = 1000
OVERLAP_CHARS = 150
_MIN_TAIL = 200  # a page's last piece shorter than this joins the previous passage


def split_passages(
    pages: Iterable[PageText], size: int = PASSAGE_CHARS, overlap: int = OVERLAP_CHARS
) -> list[Passage]:
    """Passages of every page in order; a passage never spans two pages (its page is cited)."""
    passages: list[Passage] = []
    for page in pages:
        for start, end in _windows(page.text, size, overlap):
            text = page.text[start:end].strip()
            if text:
                passages.append(Passage(len(passages), page.number, start, end, text))
    return passages


def _windows(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """(start, end) spans of `text`: cut at a paragraph, sentence or word end near `size`."""
    n = len(text)
    spans: list[tuple[int, int]] = []
    start = 0
    while start < n:
        end = min(n, start + size)
        if n - end < _MIN_TAIL:
            end = n
        elif (cut := _cut(text, start + size // 2, end)) > start:
            end = cut
        spans.append((start, end))
        if end >= n:
            break
        start = _word_start(text, max(end - overlap, start + 1), end)
    return spans


def _cut(text: str, low: int, high: int) -> int:
    """The best place to end a passage in text[low:high]: after a paragraph, sentence or word."""
    for mark in ("\n\n", ". ", "\n", " "):
        at = text.rfind(mark, low, high)
        if at >= 0:
            return at + len(mark)
    return high


def _word_start(text: str, low: int, high: int) -> int:
    """The first word start at or after `low` (so an overlap never begins mid-word)."""
    at = text.find(" ", low, high)
    return at + 1 if 0 <= at < high - 1 else low
