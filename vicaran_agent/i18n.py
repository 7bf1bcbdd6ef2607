"""The journalist's language: detection and the fixed messages Vicaran writes itself.

Two languages are kept apart. The *text's* language is whatever language a brief or document is
written in (an ISO 639-1 code such as "es", told by `text_language`); it decides which
fact-checks and outlets are searched. The *report* language is the one Vicaran writes in:
Brazilian Portuguese for a Portuguese text, English for any other (`report_language`).

Markers (`[PROGRESS]`, `[NO_SOURCES_FOUND]`, …) stay as specified in every language.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

from .catalogs import catalog_for, translations
from .messages import ENGLISH as ENGLISH_MESSAGES
from .messages.labels import VERDICT_CONTEXT, VERDICTS, WORD_CONTEXT

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

ENGLISH = "en"
PORTUGUESE = "pt-BR"

_NAMES = {ENGLISH: "English", PORTUGUESE: "Brazilian Portuguese"}

# The languages a text may be told to be in: those of the fact-checkers Google Fact Check Tools
# indexes (IFCN signatories and other ClaimReview publishers, Americas to Asia and Africa).
# Left out, so that a short brief is not taken for them: languages close to a bigger one that
# briefs are hardly written in (Galician, Occitan, Asturian…); Catalan, which short Portuguese
# and Spanish briefs full of English names are mistaken for (a Catalan brief comes out Spanish,
# the language its fact-checkers also publish in); and Malay, which short Indonesian texts (far
# more often fact-checked) are mistaken for.
_TEXT_LANGUAGE_CODES = (
    "af am ar as az be bg bn bs cs da de el en es et eu fa fi fr gu ha he hi hr hu hy id ig "
    "it ja ka kk km kn ko ky lg lt lv mk ml mn mr my ne nl no or pa pl ps pt ro ru rw si sk "
    "sl so sq sr sv sw ta te th tl tr uk ur uz vi yo zh zu"
)
TEXT_LANGUAGES = frozenset(_TEXT_LANGUAGE_CODES.split())
# Languages that are no brief's, kept in the model so that text written in none wins them and is
# set aside: Latin (lorem ipsum) and "zxx" (no linguistic content: numbers, codes).
_NOT_A_BRIEF = frozenset({"la", "zxx"})
# Below this, the model doubts its own guess (short texts, names of elsewhere): no language.
MIN_CONFIDENCE = 0.55

_load_lock = threading.Lock()


def _identifier() -> LanguageIdentifier:
    """py3langid's bundled model, limited to TEXT_LANGUAGES (loaded once: about a second)."""
    with _load_lock:  # threads asking at once wait for one load
        return _load_identifier()


@lru_cache(maxsize=1)
def _load_identifier() -> LanguageIdentifier:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(sorted((TEXT_LANGUAGES | _NOT_A_BRIEF) & set(identifier.labels)))
    return identifier


def _prose(text: str) -> str:
    """`text` without its web addresses and e-mails (their words are no one's language)."""
    return " ".join(
        w
        for w in text.split()
        if "://" not in w and not w.lower().startswith("www.") and "@" not in w
    )


def text_language(text: str) -> str:
    """The language `text` is written in, as an ISO 639-1 code ("pt", "es", "de", …), or ""
    when it cannot be told: no words (a link, numbers), no one's language (lorem ipsum), or a
    guess the model doubts (below MIN_CONFIDENCE)."""
    code, confidence = _identifier().classify(_prose(text))
    return code if code in TEXT_LANGUAGES and confidence >= MIN_CONFIDENCE else ""


def report_language(code: str) -> str:
    """The language Vicaran writes in for a text in `code`: the one of its catalog (Brazilian
    Portuguese for Portuguese), English for a language without one and for an unknown one."""
    catalog = catalog_for(code) if code else None
    return catalog.replace("_", "-") if catalog else ENGLISH


def language_tag(code: str) -> str:
    """How a text's language is recorded (a document's): "pt-BR" for Portuguese, as Vicaran's
    Portuguese is Brazilian; the code itself for any other; English when it could not be told."""
    return PORTUGUESE if is_portuguese(code) else (code or ENGLISH)


def detect_language(text: str) -> str:
    """The language to answer `text` in: Brazilian Portuguese or English (see report_language)."""
    return report_language(text_language(text))


def written_in_another_language(code: str) -> bool:
    """True when a text in `code` gets its plan and report in English although it is neither
    English nor Portuguese (the journalist is told so)."""
    return bool(code) and report_language(code) == ENGLISH and not code.lower().startswith("en")


def language_name(code: str) -> str:
    """The name of the report language, for prompts ("English", "Brazilian Portuguese")."""
    if code in _NAMES or not catalog_for(code):
        return _NAMES.get(code, "English")
    from babel import Locale

    return Locale.parse(code.replace("-", "_")).get_display_name("en") or "English"


def text_language_name(code: str, language: str = ENGLISH) -> str:
    """The name of any language `code`, said in `language` ("es" → "Spanish" / "espanhol")."""
    from babel import Locale, UnknownLocaleError

    try:
        names = Locale.parse((language or ENGLISH).replace("-", "_")).languages
    except (UnknownLocaleError, ValueError):
        names = Locale.parse(ENGLISH).languages
    return names.get(code.split("-")[0].lower(), code)


def is_portuguese(code: str) -> bool:
    return code.lower().startswith("pt")


def system_language() -> str:
    """The language of the terminal (LC_ALL, LC_MESSAGES, LANG): one with a catalog, or English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return report_language(value.split(".")[0])
    return ENGLISH


class Phrase(str):
    """A fixed message in English that can be said again in the journalist's language.

    Tools and the model client return it where a `str` is expected (the model and the logs read
    the English); whoever shows it to people words it with `localized`.
    """

    key: str
    values: dict[str, object]

    def __new__(cls, key: str, **values: object) -> Phrase:
        phrase = super().__new__(cls, message(key, ENGLISH, **values))
        phrase.key, phrase.values = key, values
        return phrase

    def __reduce__(self) -> tuple[object, ...]:  # copies and pickles keep the key
        return (_phrase, (self.key, self.values))

    def said_in(self, language: str) -> str:
        return message(self.key, language, **self.values)


def _phrase(key: str, values: dict[str, object]) -> Phrase:
    return Phrase(key, **values)


def localized(value: object, language: str) -> object:
    """`value` in `language` when it can say itself in it (a Phrase, a model error), else as is."""
    said = getattr(value, "said_in", None)
    return said(language) if callable(said) else value


def message(key: str, language: str, **values: object) -> str:
    """A fixed message (`messages/`) in the journalist's language; a counted one agrees with
    `count` by the language's plural rule."""
    english = ENGLISH_MESSAGES[key]
    said = translations(language)
    if isinstance(english, tuple):
        text = said.npgettext(key, english[0], english[1], int(values["count"]))  # type: ignore[call-overload]
    else:
        text = said.pgettext(key, english)
    return text.format(**{name: localized(value, language) for name, value in values.items()})


def word(text: str, language: str) -> str:
    """A single label in the journalist's language."""
    return translations(language).pgettext(WORD_CONTEXT, text)


def verdict_label(verdict: str, language: str) -> tuple[str, str]:
    """(emoji, label) for a verdict."""
    emoji, label = VERDICTS[verdict]
    return emoji, translations(language).pgettext(VERDICT_CONTEXT, label)
