"""What code reads in the journalist's words: the chosen mode, a vague brief, a skip, a new topic.

All of it is linear: literal phrases and word scans, no backtracking patterns over the brief.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .schemas import Mode
from .urls import extract_urls

# A mode is chosen by name; "the quick approval of the permit" chooses nothing.
_QUICK_NAMES = re.compile(  # a name, so capitalised: "a quick search of the files" is story
    r"\bQuick Search\b|\bQUICK SEARCH\b|\bBusca [Rr][áa]pida\b|\bBUSCA R[ÁA]PIDA\b"
)
_QUICK_ANY_CASE = re.compile(r"\bquick mode\b|\bmodo r[áa]pido\b|\bmode: ?quick\b", re.IGNORECASE)
_DETAILED_NAMES = re.compile(
    r"\bDetailed Inquiry\b|\bInvestiga[çc][ãa]o Detalhada\b|\bdetailed mode\b"
    r"|\bmodo detalhado\b|\bmode: ?detailed\b",
    re.IGNORECASE,
)
_MODE_LINE = re.compile(r"^[ \t]*(?:mode|modo)[ \t]*:[^\n]*$", re.IGNORECASE | re.MULTILINE)
_QUICK_VALUE = re.compile(r"quick|r[áa]pid", re.IGNORECASE)
_WRAPPERS = " \t.:;,!-–—"


def choose_mode(text: str) -> tuple[Mode, str]:
    """(mode, text without the mode phrase): quick only when the journalist names it."""
    head, _, rest = text.lstrip().partition(" ")
    if head.lower().rstrip(":.-–—") == "quick" and (head[-1:] in ":.-–—" or rest[:1] in "-–—:"):
        return "quick", _tidy(rest)  # "Quick: …", "quick - …": the word alone, set apart, first
    line = _MODE_LINE.search(text)
    if line:
        mode: Mode = "quick" if _QUICK_VALUE.search(line.group(0)) else "detailed"
        return mode, _tidy(text[: line.start()] + text[line.end() :])
    for pattern, mode in ((_QUICK_NAMES, "quick"), (_QUICK_ANY_CASE, "quick")):
        if found := pattern.search(text):
            return mode, _without(text, found.start(), found.end())
    if found := _DETAILED_NAMES.search(text):
        return "detailed", _without(text, found.start(), found.end())
    return "detailed", _without_sentence(text, _DETAILED_SENTENCES)


# Said as a sentence of its own, first or last, these ask for the default mode: they leave the
# brief (and so its title). Inside a sentence ("run a detailed investigation of ...") they stay.
_DETAILED_SENTENCES = ("detailed investigation", "in-depth investigation", "deep dive")
_SENTENCE_ENDS = ".!?:;-–—"


def _without_sentence(text: str, phrases: tuple[str, ...]) -> str:
    stripped = text.strip()
    lowered = stripped.lower()
    for phrase in phrases:
        tail = lowered.rstrip(_WRAPPERS)
        if tail.endswith(phrase):
            before = stripped[: len(tail) - len(phrase)].rstrip()
            if not before or before[-1] in _SENTENCE_ENDS:
                return _tidy(before)
        if lowered.startswith(phrase):
            after = stripped[len(phrase) :]
            if not after.strip() or after.lstrip(" \t")[:1] in _SENTENCE_ENDS:
                return _tidy(after.lstrip(" \t").lstrip(_WRAPPERS))
    return text


# "Collection: NAME" (or Coleção/Colecao), a line of its own; names comma- or semicolon-separated.
_COLLECTION_LINE = re.compile(
    r"^[ \t]*(?:collections?|cole[çc](?:ão|ões|ao|oes))[ \t]*:([^\n]*)$",
    re.IGNORECASE | re.MULTILINE,
)
_NAME_WRAPPERS = " \t\"'“”‘’`."
MAX_COLLECTION_NAME = 100


def choose_collections(text: str) -> tuple[list[str], str]:
    """(collection names, text without the lines naming them): documents the brief brings in."""
    names: list[str] = []
    kept: list[str] = []
    last = 0
    for line in _COLLECTION_LINE.finditer(text):
        kept.append(text[last : line.start()])
        last = line.end()
        for raw in line.group(1).replace(";", ",").split(","):
            name = " ".join(raw.split()).strip(_NAME_WRAPPERS)[:MAX_COLLECTION_NAME]
            if name and name not in names:
                names.append(name)
    if last == 0:
        return [], text
    return names, _tidy("".join(kept) + text[last:])


# "Reliability: high" (or Confiabilidade: alta), a line of its own: how far to trust the files
# attached with the message.
_RELIABILITY_LINE = re.compile(
    r"^[ \t]*(?:reliability|confiabilidade)[ \t]*:([^\n]*)$", re.IGNORECASE | re.MULTILINE
)
_RELIABILITY_WORDS = {
    "high": "high",
    "alta": "high",
    "neutral": "neutral",
    "neutra": "neutral",
    "medium": "neutral",
    "média": "neutral",
    "media": "neutral",
    "low": "low",
    "baixa": "low",
}


def choose_reliability(text: str) -> tuple[str | None, str]:
    """(high, neutral or low, or None when the message names none; the text without the line)."""
    line = _RELIABILITY_LINE.search(text)
    if line is None:
        return None, text
    word = line.group(1).strip(_NAME_WRAPPERS + " ").lower()
    chosen = _RELIABILITY_WORDS.get(word.split()[0] if word else "")
    return chosen, _tidy(text[: line.start()] + text[line.end() :])


def _without(text: str, start: int, end: int) -> str:
    """`text` minus the phrase at [start, end), its brackets and the punctuation after it."""
    if start and text[start - 1] == "(" and text[end : end + 1] == ")":
        start, end = start - 1, end + 1
    while end < len(text) and text[end] in _WRAPPERS and text[end] != "\n":
        end += 1
    return _tidy(text[:start] + " " + text[end:])


def _tidy(text: str) -> str:
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line).strip(" \n:-–—")


# --- a vague brief ------------------------------------------------------------------------

_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "janeiro",
        "fevereiro",
        "março",
        "marco",
        "abril",
        "maio",
        "junho",
        "julho",
        "agosto",
        "setembro",
        "outubro",
        "novembro",
        "dezembro",
        "yesterday",
        "today",
        "week",
        "month",
        "year",
        "ontem",
        "hoje",
        "semana",
        "mês",
        "mes",
        "ano",
    ]
)
_SENTENCE_ENDS = ".!?:\n"


@dataclass(frozen=True)
class Vagueness:
    """What a brief names: someone or something (proper names, acronyms), and a period."""

    named: bool
    period: bool
    names: int = 0  # distinct runs of proper names ("Acme Chemicals" is one)
    first: str = ""  # the first of them, as written

    @property
    def vague(self) -> bool:
        """Too vague to plan (DESIGN, protocol point 3): nothing named ("the mayor" could be any
        mayor), or a single name with no period and nothing else to place it ("Mayor Smith":
        which Smith, where, when?) - the entity is ambiguous, the place and period missing."""
        return not self.named or (self.names == 1 and not self.period)

    @property
    def ambiguous(self) -> bool:
        """One name, nothing to place or date it."""
        return self.named and self.vague


def vagueness(brief: str) -> Vagueness:
    """What the brief names. A URL makes a brief specific enough: the page says who."""
    if extract_urls(brief, 1):
        return Vagueness(True, True, 1, "")
    period = False
    found: list[list[str]] = []  # runs of proper names, word by word
    sentence_start = True
    in_name = False
    for raw in brief.split():
        word = raw.strip("\"'“”‘’()[],;.!?:")
        is_name = False
        if any(c.isdigit() for c in word) or word.lower() in _MONTHS:
            period = True
        elif len(word) > 1 and word[:1].isupper() and (not sentence_start or word.isupper()):
            is_name = True  # a proper name inside a sentence, or an acronym anywhere
        if is_name:  # "Acme Chemicals" is one name, "Riverton" another
            if in_name:
                found[-1].append(word)
            else:
                found.append([word])
        in_name = is_name and raw[-1:] not in _SENTENCE_ENDS + ",;"
        sentence_start = raw[-1:] in _SENTENCE_ENDS
    return Vagueness(bool(found), period, len(found), " ".join(found[0]) if found else "")


_SKIPS = frozenset(
    ["skip", "skip it", "no questions", "just plan", "pular", "pule", "pula", "sem perguntas"]
)


def is_skip(text: str) -> bool:
    """Whether the journalist declines the clarifying questions."""
    return " ".join(text.lower().strip(" .!").split()) in _SKIPS


_STOP = frozenset(
    [
        "about",
        "after",
        "also",
        "been",
        "before",
        "between",
        "could",
        "does",
        "from",
        "have",
        "into",
        "just",
        "more",
        "next",
        "only",
        "other",
        "over",
        "said",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "investigate",
        "investigation",
        "investigating",
        "want",
        "check",
        "whether",
        "sobre",
        "como",
        "mais",
        "para",
        "pelo",
        "pela",
        "essa",
        "esse",
        "esta",
        "este",
        "isso",
        "qual",
        "quais",
        "quando",
        "onde",
        "agora",
        "investigue",
        "investigar",
        "investigação",
        "investigacao",
        "quero",
        "verifique",
        "foram",
        "seria",
        "será",
        "tambem",
        "também",
        "depois",
        "antes",
        "entre",
    ]
)


def content_words(text: str) -> set[str]:
    """Words of four letters or more that say what a text is about (a possessive's "'s" off)."""
    words = (_possessive(w.strip("\"'“”‘’()[].,;:!?").lower()) for w in text.split())
    return {w for w in words if len(w) >= 4 and w not in _STOP and "://" not in w}


def _possessive(word: str) -> str:
    return word[:-2] if word.endswith(("'s", "’s")) else word


# Words that ask to change the plan, not to replace its subject ("also include the mayor").
_EDITS = frozenset(
    [
        "add",
        "also",
        "include",
        "including",
        "focus",
        "remove",
        "drop",
        "exclude",
        "change",
        "more",
        "less",
        "only",
        "just",
        "adicione",
        "adicionar",
        "inclua",
        "incluir",
        "incluindo",
        "também",
        "tambem",
        "foque",
        "focar",
        "remova",
        "remover",
        "exclua",
        "excluir",
        "mude",
        "mudar",
        "mais",
        "menos",
        "apenas",
        "só",
    ]
)
STEM = 5  # letters two words must share to be about the same thing ("chemical"/"chemicals")


def new_topic(message: str, *about: str) -> bool:
    """Whether a message during planning brings a completely different subject.

    It names someone or something (a proper name or an acronym), says enough (two content words
    or more), asks for no change to the plan ("add", "also", "focus" ...) and shares no word -
    compared by their first letters, so "chemicals" meets "chemical" - with the brief or the
    plan. Anything less clear is left to the model, which may still re-plan.
    """
    words = content_words(message)
    if len(words) < 2 or not vagueness(message).named:
        return False
    if any(w.strip("\"'“”‘’()[].,;:!?").lower() in _EDITS for w in message.split()):
        return False
    known = {w[:STEM] for text in about for w in content_words(text)}
    return not {w[:STEM] for w in words} & known


def same_topic(message: str, *about: str) -> bool:
    """Whether a message shares a subject word with the investigation's brief or plan."""
    known: set[str] = set()
    for text in about:
        known |= content_words(text)
    return bool(content_words(message) & known)
