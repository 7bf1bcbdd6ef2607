"""Text comparison that survives formatting: quotes found in what was read, near-copies found.

All of it is linear-time over untrusted text (no backtracking patterns): NFKC folding, a
character map, `str.find`, and word shingles.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections.abc import Iterable

QUOTE_MAX_CHARS = 300  # a verbatim quote kept as evidence

MIN_QUOTE_CHARS = 12  # shorter "quotes" ("the", "312%") match almost anything
SHINGLE_WORDS = 5
# Texts with fewer shingles (about two sentences) are too short to call copies: two pages that
# quote the same one-sentence statement are not one page syndicated twice.
MIN_SHINGLES = 25
COPY_THRESHOLD = 0.8  # share of the shorter text's shingles found in the other

_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u00a0": " ",
    }
)
_WORD = re.compile(r"\w+")


def sha256_text(text: str) -> str:
    """The name of a snapshot: SHA-256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def visible(text: str) -> str:
    """`text` without zero-width, bidi and other format characters (Unicode category Cf)."""
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def normalize(text: str) -> str:
    """Compatibility-folded, case-folded, invisible characters dropped, single-spaced."""
    folded = unicodedata.normalize("NFKC", text or "").translate(_PUNCTUATION)
    return " ".join(visible(folded).casefold().split())


def clip_quote(quote: str) -> str:
    """At most QUOTE_MAX_CHARS, cut at a word boundary (a cut quote is still verbatim)."""
    quote = " ".join((quote or "").split())
    if len(quote) <= QUOTE_MAX_CHARS:
        return quote
    cut = quote[:QUOTE_MAX_CHARS]
    boundary = cut.rfind(" ")
    return cut[:boundary] if boundary > QUOTE_MAX_CHARS // 2 else cut


def quote_problem(quote: str, text: str) -> str | None:
    """Why `quote` is not a verbatim quote of `text` (None when it is one).

    Whitespace, case, Unicode look-alikes, curly quotes and dashes do not matter; an ellipsis
    may join fragments that appear in that order.
    """
    wanted = normalize(quote).strip(" \"'")
    if len(wanted) < MIN_QUOTE_CHARS:
        return "no quote given" if not wanted else "the quote is too short to check"
    haystack = normalize(text)
    if not haystack:
        return "the text read is not available"
    at = 0
    for fragment in wanted.split("..."):
        fragment = fragment.strip(" \"'")
        if not fragment:
            continue
        found = haystack.find(fragment, at)
        if found < 0:
            return "the quote is not in the text read"
        at = found + len(fragment)
    return None


def shingles(text: str, size: int = SHINGLE_WORDS) -> set[str]:
    """Every run of `size` consecutive words (normalized)."""
    words = _WORD.findall(normalize(text))
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def copy_share(a: set[str], b: set[str]) -> float:
    """The share of the shorter text's shingles found in the other (0 when either is short)."""
    if min(len(a), len(b)) < MIN_SHINGLES:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small & large) / len(small)


def is_copy(a: set[str], b: set[str]) -> bool:
    """Near-identical text: syndicated wire copy, a mirror, the same release reposted."""
    return copy_share(a, b) >= COPY_THRESHOLD


def closest_name(name: str, names: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The one of `names` spelt most nearly like `name` (case and accents aside), or None.

    For short names (a collection's, at most 100 characters): difflib's ratio, over a few.
    """
    folded = {_fold(candidate)[:200]: candidate for candidate in names}
    key = _fold(name)[:200]
    if key in folded:
        return folded[key]
    close = difflib.get_close_matches(key, list(folded), n=1, cutoff=cutoff)
    return folded[close[0]] if close else None


def fold(text: str) -> str:
    """Lower case without accents ("Licitação" -> "licitacao"); º and ª become o and a."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _fold(text: str) -> str:
    return " ".join(fold(text).split())
