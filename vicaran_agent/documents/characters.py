"""Text a parser found, made storable: no character a database refuses or a reader can't see.

PostgreSQL refuses any text holding a NUL, and neither database stores a lone surrogate (what
Python makes of a file name that is not UTF-8). Control characters (C0 and C1: terminal escapes,
PDF producers' padding) and Unicode noncharacters mean nothing in a document's text. Every step
is a linear scan (a regex of one character class, str.replace, one codec pass).
"""

from __future__ import annotations

import contextlib
import os
import re

# Characters that end a line (those str.splitlines knows): kept as a line end.
_LINE_ENDS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_DROPPED = [
    *(code for code in range(0x00, 0x20) if chr(code) not in "\t\n" + _LINE_ENDS),
    *(code for code in range(0x7F, 0xA0) if chr(code) not in _LINE_ENDS),  # DEL, C1
    *range(0xFDD0, 0xFDF0),  # noncharacters
    *(plane | low for plane in range(0, 0x110000, 0x10000) for low in (0xFFFE, 0xFFFF)),
]
_REPLACEMENTS: dict[int, str] = dict.fromkeys(_DROPPED, "")
_REPLACEMENTS.update(dict.fromkeys(map(ord, _LINE_ENDS), "\n"))


def _character_class(codes: list[int]) -> str:
    """A regex character class of `codes`, as ranges (a class of few ranges is scanned fastest)."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in runs)


# One character class (no repetition: a linear scan) of what to replace, and of any character
# beyond the first plane (rare in documents; the few noncharacters there are looked up).
_FOUND = re.compile(
    "["
    + _character_class([code for code in _REPLACEMENTS if code <= 0xFFFF])
    + "\U00010000-\U0010ffff]"
)


def _replacement(match: re.Match[str]) -> str:
    char = match.group()
    return _REPLACEMENTS.get(ord(char), char)


def storable_text(text: str) -> str:
    """`text` without control characters but tab and line end (other line ends become "\\n"),
    noncharacters and lone surrogates; a surrogate pair becomes the character it encodes."""
    if text.isascii() and text.isprintable():
        return text
    if _has_surrogates(text):
        # a pair as two code points is one character; UTF-16 joins it, and drops a lone one
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")
    return _FOUND.sub(_replacement, text.replace("\r\n", "\n"))


def path_text(path: str) -> str:
    """A file name or path as storable text that still tells apart the files it names.

    A name that is not UTF-8 shows its bytes (`caf\\xe9.txt`) rather than losing them, so that
    the same file always gets the same name and another file, another name.
    """
    if _has_surrogates(path):
        # a surrogate that is no escaped byte fails here; storable_text drops it
        with contextlib.suppress(UnicodeEncodeError):
            path = os.fsencode(path).decode("utf-8", "backslashreplace")
    return storable_text(path)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
