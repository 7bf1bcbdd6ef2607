"""The names a document goes by, normalized, so a reference in another document finds it.

"Anexo II", "Anexo 2" and "Annex II" name the same annex; "Contrato nº 002/2024" and
"contrato 002/2024" the same contract. `normalize_name` is applied to both sides: to a document's
title, metadata title, first heading and file name when it is stored, and to a reference's text
when it is resolved. Linear-time, character by character: names come from untrusted documents.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from ..textmatch import fold

MAX_SYNONYMS = 24
_NUMBER_WORDS = frozenset({"n", "no", "nos", "nr", "nro", "num", "numero", "number"})
# Words followed by a part number, and the words that mean the same in the other language.
_PART_WORDS: dict[str, tuple[str, ...]] = {
    "anexo": ("anexo", "annex"),
    "annex": ("annex", "anexo"),
    "apendice": ("apendice", "appendix"),
    "appendix": ("appendix", "apendice"),
    "capitulo": ("capitulo", "chapter"),
    "chapter": ("chapter", "capitulo"),
    "secao": ("secao", "section"),
    "section": ("section", "secao"),
    "parte": ("parte", "part"),
    "part": ("part", "parte"),
    "item": ("item",),
    "titulo": ("titulo",),
    "volume": ("volume",),
    "tomo": ("tomo",),
}
_ROMAN = (
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip
_MAX_PART = 50


def normalize_name(text: str) -> str:
    """A name as words: folded, punctuation dropped (kept inside numbers), "nº" before a number dropped."""
    folded = fold(text)
    chars: list[str] = []
    for i, c in enumerate(folded):
        inside_number = (
            c in "./-"
            and 0 < i < len(folded) - 1
            and folded[i - 1].isdigit()
            and folded[i + 1].isdigit()
        )
        chars.append(c if c.isalnum() or inside_number else " ")
    words = "".join(chars).split()
    kept = [
        word
        for i, word in enumerate(words)
        if not (word in _NUMBER_WORDS and i + 1 < len(words) and words[i + 1][:1].isdigit())
    ]
    return " ".join(kept)


def name_variants(text: str) -> list[str]:
    """`normalize_name(text)` and the other ways of writing it (numbers, annexes, languages)."""
    base = normalize_name(text)
    if not base:
        return []
    variants = [base]
    plain_numbers = " ".join(_plain_number(word) for word in base.split())
    variants.append(plain_numbers)
    for variant in list(variants):
        variants.extend(_part_variants(variant.split()))
    return list(dict.fromkeys(variants))


def synonyms(
    title: str = "", metadata_title: str = "", first_heading: str = "", file_name: str = ""
) -> tuple[str, ...]:
    """Every normalized name of a document, its title's first (at most MAX_SYNONYMS)."""
    stem = PurePath(file_name).stem if file_name else ""
    names: Iterable[str] = (title, metadata_title, first_heading, stem)
    found: list[str] = []
    for name in names:
        found.extend(name_variants(name[:500]))
    return tuple(dict.fromkeys(found))[:MAX_SYNONYMS]


def _plain_number(word: str) -> str:
    """ "8.666/1993" -> "8666/1993", "002-2024" -> "002/2024": one way to write a number."""
    if not word[:1].isdigit():
        return word
    return word.replace(".", "").replace("-", "/")


def _part_variants(words: list[str]) -> list[str]:
    """ "anexo ii" -> "anexo 2", "annex ii", "annex 2" (for the first numbered part only)."""
    for i, word in enumerate(words[:-1]):
        names = _PART_WORDS.get(word)
        if names is None:
            continue
        number = words[i + 1]
        numbers = [number]
        if number.isdigit() and 0 < int(number) <= _MAX_PART:
            numbers.append(_to_roman(int(number)))
        elif (value := _from_roman(number)) is not None:
            numbers.append(str(value))
        return [
            " ".join([*words[:i], name, part, *words[i + 2 :]])
            for name in names
            for part in numbers
        ]
    return []


def _to_roman(value: int) -> str:
    out = []
    for amount, letters in _ROMAN:
        while value >= amount:
            out.append(letters)
            value -= amount
    return "".join(out)


def _from_roman(word: str) -> int | None:
    """The value of a lower-case Roman numeral up to L, or None."""
    if not word or len(word) > 8 or any(c not in "ivxl" for c in word):
        return None
    value, i = 0, 0
    for amount, letters in _ROMAN:
        while word.startswith(letters, i):
            value += amount
            i += len(letters)
    if i != len(word) or not 0 < value <= _MAX_PART or _to_roman(value) != word:
        return None
    return value
