"""Folded names: how a reference and a document's titles are compared (linear, no regex)."""

from __future__ import annotations

import unicodedata

# Words that only say "number" when a number follows them ("nº 2", "No. 5"); "no" stays elsewhere.
_NUMBER_WORDS = frozenset({"n", "no", "nr", "nro", "num", "numero", "number"})
ANNEX_WORDS = frozenset(
    {"anexo", "anexos", "annex", "annexes", "appendix", "apendice", "attachment", "exhibit"}
)
_ROMAN_UNITS = ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix")
_ROMAN_TENS = ("", "x", "xx", "xxx")
ROMAN_VALUES = {
    _ROMAN_TENS[n // 10] + _ROMAN_UNITS[n % 10]: n for n in range(1, 40)
}  # i..xxxix: annexes are numbered I to XX, rarely more


def roman_value(numeral: str) -> int | None:
    """The value of a well-formed roman numeral from I to XXXIX (any case), else None."""
    return ROMAN_VALUES.get(numeral.lower())


def _tokens(text: str) -> list[str]:
    """Lowercase letter/digit runs without accents; "14.133" stays one number."""
    text = unicodedata.normalize("NFKD", text)
    tokens: list[str] = []
    current: list[str] = []
    last = len(text) - 1
    for i, char in enumerate(text):
        if unicodedata.combining(char):
            continue
        if char.isalnum():
            current.append(char.casefold())
        elif (
            char == "." and current and current[-1].isdigit() and i < last and text[i + 1].isdigit()
        ):
            continue  # a thousands separator
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return tokens


def _is_number(token: str) -> bool:
    return token.isdigit()


def fold(text: str) -> str:
    """`text` as compared: no accents, case or punctuation; "nº" dropped before a number;
    numbers without leading zeros or thousands dots; an annex's roman numeral as digits."""
    tokens = _tokens(text)
    folded: list[str] = []
    skip = 0
    for i, token in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in _NUMBER_WORDS and _is_number(after):
            continue
        if token == "n" and after == "o" and i + 2 < len(tokens) and _is_number(tokens[i + 2]):
            skip = 1  # "N.º 2"
            continue
        if _is_number(token):
            token = token.lstrip("0") or "0"
        elif folded and folded[-1] in ANNEX_WORDS and (value := roman_value(token)):
            token = str(value)
        folded.append(token)
    return " ".join(folded)


def numbers(folded: str) -> set[str]:
    """The numbers in a folded name."""
    return {token for token in folded.split() if token.isdigit()}
