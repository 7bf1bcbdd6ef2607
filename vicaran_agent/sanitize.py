"""Untrusted text made safe to show and to prompt with: markers, links and data delimiters.

Pages, search snippets and model prose may carry protocol markers (only code emits those), links
to anywhere (only saved sources are linked) and look-alikes of the `<<<DATA`/`DATA>>>` delimiters
(which would let a page close its data block). Every function here is a linear scan.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from .textmatch import visible
from .urls import normalize_url

MARKERS = (
    "PLAN_APPROVAL_REQUIRED",
    "INVESTIGATION_STARTED",
    "INVESTIGATION_COMPLETE",
    "PROGRESS",
    "TIMELINE_SKIPPED",
    "NO_SOURCES_FOUND",
    "NO_CLAIMS_EXTRACTED",
    "NO_CLAIMS_TO_VERIFY",
    "BIAS_SKIPPED",
)
# Alternation of literals: linear. Spaces inside the brackets do not hide a marker either.
_MARKER = re.compile(r"\[\s*(?:" + "|".join(MARKERS) + r")\s*\]", re.IGNORECASE)
# A scheme URL, or a bare www. host that renderers autolink; [^...]+ runs are linear.
_LINK = re.compile(r"(?:https?://|www\.)[^\s<>\"'`\[\]]+", re.IGNORECASE)
_TRAILING = ".,;:!?"
# Markdown link syntax around a URL: `[text](url)` keeps its text.
_MD_TARGET = re.compile(r"\]\(\s*\)")

# Characters that look like the delimiters' `<`, `>`, `D`, `A`, `T` (after NFKC).
_CONFUSABLES = str.maketrans(
    {
        "\u0410": "A", "\u0430": "a", "\u0391": "A", "\u03b1": "a", "\u13aa": "A", "\u1d00": "A",
        "\u0422": "T", "\u0442": "t", "\u03a4": "T", "\u03c4": "t", "\u13a2": "T", "\u1d1b": "T",
        "\u13a0": "D", "\u1d05": "D", "\u216e": "D", "\u217e": "d",
        "\u2039": "<", "\u203a": ">", "\u2329": "<", "\u232a": ">", "\u27e8": "<", "\u27e9": ">",
        "\u3008": "<", "\u3009": ">", "\u02c2": "<", "\u02c3": ">", "\u1438": "<", "\u1433": ">",
        "\u00ab": "<<", "\u00bb": ">>",
    }
)  # fmt: skip
_DELIMITER = re.compile(r"<\s*<\s*<\s*DATA|DATA\s*>\s*>\s*>", re.IGNORECASE)


def strip_markers(text: str) -> str:
    """`text` without any protocol marker (they are emitted by code only)."""
    return _MARKER.sub("", text) if "[" in text else text


def scrub_links(text: str, allowed: Collection[str] = ()) -> str:
    """`text` with every link removed unless it is a saved source's address.

    Removed, not kept as plain text, since renderers autolink plain URLs; `[text](url)` keeps
    its text. `allowed` holds addresses (compared as given and normalized).
    """
    if "://" not in text and "www." not in text.lower():
        return text
    keep = set(allowed) | {normalize_url(url) for url in allowed}

    def replace(match: re.Match[str]) -> str:
        url = match.group(0)
        tail = ""
        while url and (
            url[-1] in _TRAILING or (url[-1] == ")" and url.count(")") > url.count("("))
        ):
            url, tail = url[:-1], url[-1] + tail
        if url in keep or normalize_url(url) in keep:
            return url + tail
        return tail

    return _MD_TARGET.sub("]", _LINK.sub(replace, text))


def clean(text: str | None, allowed: Collection[str] = ()) -> str:
    """Text for people or for a record: no markers, no invisible characters, no foreign links."""
    if not text:
        return ""
    return scrub_links(strip_markers(visible(text)), allowed)


def defuse_delimiters(body: str) -> str:
    """`body` with every look-alike of the data delimiters replaced by "[data]".

    Invisible characters are dropped first; the delimiters are then found on a folded view
    (NFKC, confusable letters mapped), one character at a time, so the replaced spans are the
    original text's.
    """
    body = visible(body)
    folded: list[str] = []
    origin: list[int] = []  # for each folded character, the index of its original character
    for index, char in enumerate(body):
        for folded_char in unicodedata.normalize("NFKC", char).translate(_CONFUSABLES):
            folded.append(folded_char)
            origin.append(index)
    view = "".join(folded)
    pieces: list[str] = []
    at = 0
    for match in _DELIMITER.finditer(view):
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        if start < at:
            continue
        pieces += [body[at:start], "[data]"]
        at = end
    pieces.append(body[at:])
    return "".join(pieces)
