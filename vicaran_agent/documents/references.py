"""References inside what Vicaran read: legal sections, acts, contracts, processes, annexes,
other documents by title, and web addresses.

Linear time on any input: each pattern starts with a literal keyword, every repetition is bounded
and no two adjacent quantifiers can take the same characters; identifiers, years and titles are
read by hand-written scanners that look at a bounded number of characters; the matches looked at
per pattern and the references returned are capped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Literal

from ..urls import find_urls
from .names import fold, roman_value

ReferenceKind = Literal[
    "legal_section",
    "law",
    "decree",
    "ordinance",
    "contract",
    "process",
    "annex",
    "document",
    "url",
]

MAX_REFERENCES = 100  # per text: a page with more cites everything and is followed by nothing
MAX_MATCHES = 2_000  # matches looked at per pattern and text
MAX_TITLE_SCANS = 500
MAX_URLS = 50
TITLE_CHARS = 150  # how far a document title is read after "see", "conforme", …
IDENTIFIER_CHARS = 40
MODEL_ITEM_CHARS = 200


@dataclass(frozen=True)
class Reference:
    """One reference: what kind, its normalized target, the words as written, and where.

    `offset` is the character offset of `text` in what it was found in (-1: the model listed it).
    `within`: for a legal section, the act it belongs to ("Art. 75" of "Lei 14.133/2021").
    """

    kind: ReferenceKind
    target: str
    text: str
    offset: int
    within: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What makes two references the same: kind and folded target (and act)."""
        folded = fold(self.target)
        return (self.kind, f"{folded} | {fold(self.within)}" if self.within else folded)

    @property
    def label(self) -> str:
        """The target as people read it ("Art. 75 da Lei 14.133/2021")."""
        return f"{self.target}, {self.within}" if self.within else self.target


# --- patterns ----------------------------------------------------------------------------------

_NO = r"(?:(?:n\.?\s?[º°o˚]\.?|n\.|nr\.?|n[úu]m\.|n[úu]mero|number|#)\s{0,3})?"
_NO_REQUIRED = r"(?:n\.?\s?[º°o˚]\.?|n\.|nr\.?|n[úu]m\.|n[úu]mero|number|#)\s{0,3}"
_NEXT_IS_ID = r"(?=[0-9A-Za-z])"

_ACT_WORDS: dict[ReferenceKind, str] = {
    "law": (
        r"lei(?:\s{1,3}(?:complementar|federal|estadual|municipal|org[âa]nica))?"
        r"|medida\s{1,3}provis[óo]ria|law|act"
    ),
    "decree": (
        r"decreto-lei|decreto(?:\s{1,3}(?:legislativo|federal|estadual|municipal))?"
        r"|decree|executive\s{1,3}order"
    ),
    "ordinance": (
        r"portaria(?:\s{1,3}(?:conjunta|interministerial|normativa))?"
        r"|resolu[çc][ãa]o|instru[çc][ãa]o\s{1,3}normativa|ordinance|regulation|resolution"
    ),
}


def _keyword(words: str, *, number_sign: bool = False) -> re.Pattern[str]:
    sign = _NO_REQUIRED if number_sign else _NO
    return re.compile(rf"\b(?i:(?P<word>{words}))\s{{0,3}}(?i:{sign}){_NEXT_IS_ID}")


_ACTS = [(kind, _keyword(words)) for kind, words in _ACT_WORDS.items()]
_CONTRACT = _keyword(
    r"contrato(?:\s{1,3}(?:administrativo|emergencial))?|conv[êe]nio|termo\s{1,3}aditivo"
    r"|contract|agreement"
)
_PROCESS = _keyword(
    r"processo(?:\s{1,3}(?:administrativo|judicial|licitat[óo]rio|sei))?"
    r"|procedimento|inqu[ée]rito(?:\s{1,3}civil)?|preg[ãa]o"
    r"(?:\s{1,3}(?:eletr[ôo]nico|presencial))?|licita[çc][ãa]o|concorr[êe]ncia|tomada\s{1,3}de"
    r"\s{1,3}pre[çc]os|dispensa|inexigibilidade"
)
_PROCESS_SIGNED = _keyword(r"case|docket|proc\.|autos|SEI", number_sign=True)
_NUMBERED_DOCUMENT = _keyword(
    r"of[íi]cio|memorando|parecer|edital|nota\s{1,3}t[ée]cnica|nota\s{1,3}fiscal"
    r"|nota\s{1,3}de\s{1,3}empenho|relat[óo]rio|ata|report|memo|opinion",
    number_sign=True,
)
# SEI (00000.000000/0000-00) and CNJ (0000000-00.0000.0.00.0000) process numbers on their own.
_PROCESS_NUMBER = re.compile(
    r"(?<![\d.])(?:\d{5}\.\d{6}/\d{4}-\d{2}|\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4})(?![\d])"
)
_SECTION = re.compile(
    r"\b(?i:(?P<word>art(?:igo)?s?\.?|article|section|sec\.|cl[áa]usula|clause))\s{0,3}"
    r"(?P<num>\d{1,4})(?:\s{0,2}[º°o˚](?!\w))?(?P<suffix>-[A-Z](?![\w]))?(?!\d)"
    r"|(?P<para>§)\s{0,3}(?P<pnum>\d{1,3})(?:\s{0,2}[º°o˚](?!\w))?(?!\d)"
)
_ANNEX = re.compile(
    r"\b(?i:(?P<word>anexos?|annex(?:es)?|appendix|ap[êe]ndices?|attachment|exhibit))\s{0,3}"
    r"(?i:(?:n\.?\s?[º°o˚]\.?)\s{0,3})?"
    r"(?P<id>[IVXL]{1,7}|\d{1,2}|[A-Z]|(?i:[úu]nico))(?![\w])"
)
_TRIGGER = re.compile(
    r"\b(?i:see\s{1,3}also|see|cf\.|vide|ver|veja|conforme|consoante|nos\s{1,3}termos\s{1,3}d[oa]s?"
    r"|de\s{1,3}acordo\s{1,3}com|according\s{1,3}to|in\s{1,3}accordance\s{1,3}with"
    r"|pursuant\s{1,3}to|as\s{1,3}(?:set\s{1,3}out|described|stated|shown)\s{1,3}in"
    r"|refer\s{1,3}to|previst[oa]s?\s{1,3}n[oa]s?|descrit[oa]s?\s{1,3}n[oa]s?"
    r"|constantes?\s{1,3}d[oa]s?|disposto\s{1,3}n[oa]s?)"
    r"\s{1,3}(?i:(?:the|os|as|o|a)\s{1,3})?"
)
# After an article: its subdivisions ("§ 1º,", "inciso II,") and then "da Lei nº …".
_SUBDIVISION = re.compile(
    r"\s{0,3}(?:,\s{0,3})?(?i:§\s{0,2}\d{1,3}[º°o]?|inciso\s{1,3}[IVXLC]{1,6}|al[íi]nea\s{1,3}\"?[a-z]"
    r"\"?|item\s{1,3}\d{1,3}|par[áa]grafo\s{1,3}[úu]nico|caput)"
)
_OF = re.compile(r"\s{0,3}(?:,\s{0,3})?(?i:d[oa]s?|of\s{1,3}the|of)\s{1,3}")
# The year after an act's number: ", de 1º de abril de 2021", " de 2021", " of 2020".
_YEAR_TAIL = re.compile(
    r",?\s{1,3}(?i:de|of)\s{1,3}(?:\d{1,2}[º°o]?\s{1,3}(?i:de)\s{1,3}[A-Za-zçÇ]{3,9}\s{1,3}"
    r"(?i:de)\s{1,3})?(?P<year>\d{4})(?!\d)"
)

_SECTION_NAMES = {
    "art": "Art.",
    "arts": "Art.",
    "artigo": "Art.",
    "artigos": "Art.",
    "article": "Article",
    "section": "Section",
    "sec": "Section",
    "clausula": "Cláusula",
    "clause": "Clause",
}
_ANNEX_NAMES = {
    "anexo": "Anexo",
    "anexos": "Anexo",
    "annex": "Annex",
    "annexes": "Annex",
    "appendix": "Appendix",
    "apendice": "Apêndice",
    "apendices": "Apêndice",
    "attachment": "Attachment",
    "exhibit": "Exhibit",
}
_IDENTIFIER_CHARS = frozenset("./-:")
_TRAILING = ".,;:!?-/"
_QUOTES = {"“": "”", '"': '"', "«": "»", "‘": "’"}
# Words a title may hold between its capitalized words ("Relatório de Auditoria nº 15 da CGU").
_CONNECTORS = frozenset(
    {"de", "da", "do", "das", "dos", "e", "em", "no", "na", "nos", "nas", "sobre", "para"}
    | {"of", "the", "and", "for", "on", "in", "to", "a", "o"}
    | {"nº", "n°", "no.", "n.", "nr.", "#", "-", "–"}
)
_CLOSING = ".,;:!?)]}»”’\"'"


# --- scanners ----------------------------------------------------------------------------------


def _scan_identifier(text: str, start: int) -> int:
    """The end of the identifier at `start` ("002/2024", "23000.123456/2020-11", "CT-12"):
    letters, digits and . / - : up to the first other character, at most IDENTIFIER_CHARS,
    with trailing punctuation left out; `start` when there is no digit in it."""
    end, stop = start, min(len(text), start + IDENTIFIER_CHARS)
    while end < stop and (text[end].isalnum() or text[end] in _IDENTIFIER_CHARS):
        end += 1
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    if not any(c.isdigit() for c in text[start:end]):
        return start
    return end


def _word(match: re.Match[str]) -> str:
    """The keyword as written, in title case with single spaces ("Decreto-Lei", "Lei Federal")."""
    word = " ".join(match.group("word").split())
    return word.rstrip(".").title().replace("Sei", "SEI")


def _year(value: str) -> str:
    if len(value) == 2:  # "8.666/93": 1950-2049
        return ("19" if int(value) >= 50 else "20") + value
    return value


def _act_number(identifier: str) -> tuple[str, str]:
    """(number, year) of "14.133/2021", "8.666/93" or "10024" (year "")."""
    number, slash, year = identifier.rpartition("/")
    if slash and year.isdigit() and len(year) in (2, 4) and number:
        return number, _year(year)
    return identifier, ""


@dataclass(frozen=True)
class _Found:
    reference: Reference
    end: int
    weak: bool = False  # a title or a bare number: set aside when a keyword reference covers it


def _act_at(text: str, match: re.Match[str], kind: ReferenceKind) -> _Found | None:
    start = match.end()
    end = _scan_identifier(text, start)
    if end == start:
        return None
    number, year = _act_number(text[start:end])
    if not year and (tail := _YEAR_TAIL.match(text, end)):
        year, end = tail.group("year"), tail.end()
    target = f"{_word(match)} {number}" + (f"/{year}" if year else "")
    return _Found(Reference(kind, target, text[match.start() : end], match.start()), end)


def _acts(text: str) -> Iterator[_Found]:
    for kind, pattern in _ACTS:
        for match in islice(pattern.finditer(text), MAX_MATCHES):
            if found := _act_at(text, match, kind):
                yield found


def _act_after(text: str, position: int) -> Reference | None:
    """The act an article names right after it ("…, inciso II, da Lei nº 14.133/2021")."""
    for _ in range(3):
        sub = _SUBDIVISION.match(text, position)
        if sub is None:
            break
        position = sub.end()
    connector = _OF.match(text, position)
    if connector is None:
        return None
    for kind, pattern in _ACTS:
        match = pattern.match(text, connector.end())
        if match and (found := _act_at(text, match, kind)):
            return found.reference
    return None


def _numbered(text: str, pattern: re.Pattern[str], kind: ReferenceKind) -> Iterator[_Found]:
    for match in islice(pattern.finditer(text), MAX_MATCHES):
        start = match.end()
        end = _scan_identifier(text, start)
        if end > start:
            target = f"{_word(match)} {text[start:end]}"
            yield _Found(Reference(kind, target, text[match.start() : end], match.start()), end)


def _process_numbers(text: str) -> Iterator[_Found]:
    for match in islice(_PROCESS_NUMBER.finditer(text), MAX_MATCHES):
        reference = Reference(
            "process", f"Processo {match.group(0)}", match.group(0), match.start()
        )
        yield _Found(reference, match.end(), weak=True)


def _sections(text: str) -> Iterator[_Found]:
    for match in islice(_SECTION.finditer(text), MAX_MATCHES):
        if match.group("para"):
            target = f"§ {match.group('pnum')}"
        else:
            word = fold(match.group("word")).split()[0]
            target = f"{_SECTION_NAMES.get(word, 'Art.')} {match.group('num')}"
            target += match.group("suffix") or ""
        act = _act_after(text, match.end())
        reference = Reference(
            "legal_section",
            target,
            match.group(0),
            match.start(),
            within=act.target if act else "",
        )
        yield _Found(reference, match.end())


def _annexes(text: str) -> Iterator[_Found]:
    for match in islice(_ANNEX.finditer(text), MAX_MATCHES):
        ident = match.group("id")
        if ident.isalpha() and len(ident) > 1 and ident.isupper() and roman_value(ident) is None:
            continue  # "Anexo VIV" is not a numeral
        if fold(ident) in ("unico",):
            ident = "Único"
        name = _ANNEX_NAMES.get(fold(match.group("word")), "Anexo")
        reference = Reference("annex", f"{name} {ident}", match.group(0), match.start())
        yield _Found(reference, match.end())


def _title_at(text: str, start: int) -> tuple[str, int]:
    """A quoted title, or a run of capitalized words, at `start`: (title, end); ("", start)."""
    opening = text[start : start + 1]
    if opening in _QUOTES:
        close = text.find(_QUOTES[opening], start + 1, start + 1 + TITLE_CHARS)
        title = text[start + 1 : close] if close > 0 else ""
        if close > 0 and "\n" not in title and any(c.isalpha() for c in title):
            return " ".join(title.split()), close + 1
        return "", start
    kept: list[tuple[str, int]] = []  # (token, where it ends)
    position = start
    for raw in text[start : start + TITLE_CHARS].split(" "):
        token_start, position = position, position + len(raw) + 1
        token = raw.rstrip(_CLOSING)
        if not token or "\n" in raw or position > start + TITLE_CHARS:
            break
        numeric = token[0].isdigit() and all(c.isdigit() or c in "./-" for c in token)
        if not (token[0].isupper() or numeric or (kept and token.lower() in _CONNECTORS)):
            break
        kept.append((token, token_start + len(token)))
        if token != raw:
            break  # punctuation closes the title
    while kept and kept[-1][0].lower() in _CONNECTORS:
        kept.pop()
    capitalized = sum(1 for t, _ in kept if t[0].isupper() and t.lower() not in _CONNECTORS)
    if capitalized < 2:
        return "", start
    return " ".join(t for t, _ in kept), kept[-1][1]


def _titles(text: str) -> Iterator[_Found]:
    for match in islice(_TRIGGER.finditer(text), MAX_TITLE_SCANS):
        title, end = _title_at(text, match.end())
        if title:
            reference = Reference("document", title, text[match.end() : end], match.end())
            yield _Found(reference, end, weak=True)


def _urls(text: str) -> Iterator[_Found]:
    for offset, url in find_urls(text, MAX_URLS):
        yield _Found(Reference("url", url, url, offset), offset + len(url))


def _all(text: str) -> Iterable[_Found]:
    yield from _sections(text)
    yield from _acts(text)
    yield from _numbered(text, _CONTRACT, "contract")
    yield from _numbered(text, _PROCESS, "process")
    yield from _numbered(text, _PROCESS_SIGNED, "process")
    yield from _process_numbers(text)
    yield from _numbered(text, _NUMBERED_DOCUMENT, "document")
    yield from _annexes(text)
    yield from _titles(text)
    yield from _urls(text)


# --- entry points ------------------------------------------------------------------------------


def detect_references(text: str) -> list[Reference]:
    """The references in `text`, in order of first appearance, one per kind and target.

    One that starts inside a keyword reference already taken ("SEI nº …" in "Processo SEI nº …",
    "Lei nº 200" in "Decreto-Lei nº 200", a title that is "Anexo II") is part of it.
    """
    if not text:
        return []
    found = sorted(_all(text), key=lambda f: (f.reference.offset, f.weak, -f.end))
    references: list[Reference] = []
    seen: set[tuple[str, str]] = set()
    covered = 0  # the end of the keyword references taken so far
    for item in found:
        reference = item.reference
        if reference.offset < covered or reference.key in seen:
            continue
        if not item.weak:
            covered = max(covered, item.end)
        seen.add(reference.key)
        references.append(reference)
        if len(references) >= MAX_REFERENCES:
            break
    return references


def references_from_model(items: list[str]) -> list[Reference]:
    """References the model listed in free text: the kind read from the words, else "document"."""
    references: list[Reference] = []
    seen: set[tuple[str, str]] = set()
    for item in items[:MAX_REFERENCES]:
        text = " ".join(str(item).split())[:MODEL_ITEM_CHARS]
        if not text:
            continue
        detected = detect_references(text)
        first = detected[0] if detected else None
        if first is None:
            reference = Reference("document", text.strip(" .;:\"'“”"), text, -1)
        else:
            reference = Reference(first.kind, first.target, text, -1, first.within)
        if reference.target and reference.key not in seen:
            seen.add(reference.key)
            references.append(reference)
    return references
