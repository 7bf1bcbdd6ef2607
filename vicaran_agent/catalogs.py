"""Message catalogs (gettext, kept with Babel): `locale/<language>/LC_MESSAGES/vicaran.po`.

English is the source language: a message is its English text (`_("No sources yet.")` in code,
`{{ _("No sources yet.") }}` in a template; `ngettext` for counts), so a language without a
catalog reads English. The keyed messages of `messages/` are there too, the key as the context
(`msgctxt`); so are the labels (`messages/labels.py`, contexts "verdict" and "word"). A catalog
is compiled in memory the first time its language is asked for (no build step, nothing generated
is committed). Adding a language is adding its catalog: `locale/<ll_CC>/LC_MESSAGES/vicaran.po`.

`python -m vicaran_agent.catalogs --check` (run by `make lint`) extracts every message from the
code and templates that use the catalogs and fails on a message without a translation in each
catalog, or a translation whose message is no longer used; `--update` adds the new messages to
each catalog (untranslated) and drops the unused ones.
"""

from __future__ import annotations

import functools
import gettext
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog, Message

PACKAGE = Path(__file__).resolve().parent
LOCALE = PACKAGE / "locale"
DOMAIN = "vicaran"
# The catalogs there are ("pt_BR"); a report language ("pt-BR") reads the one of its language.
LANGUAGES = tuple(sorted(p.name for p in LOCALE.iterdir() if (p / "LC_MESSAGES").is_dir()))
# Where the catalogs' messages are: the modules and templates written with them.
SOURCES = (
    ("server/views.py", "python"),
    ("export/*.py", "python"),
    ("schemas.py", "python"),
    ("templates/dashboard/**.html", "jinja2.ext:babel_extract"),
    ("templates/export/**.html", "jinja2.ext:babel_extract"),
)


def N_(message: str) -> str:
    """Marks `message` for the catalogs where it is defined; `_` translates it where shown."""
    return message


def catalog_for(language: str) -> str | None:
    """The catalog a language tag ("pt", "pt-BR", "pt_BR") reads, or None (English)."""
    primary = language.replace("_", "-").split("-")[0].lower()
    return next((c for c in LANGUAGES if c.split("_")[0].lower() == primary), None)


def translations(language: str) -> gettext.NullTranslations:
    """The catalog `language` (a report language: "en", "pt-BR") reads; English: none."""
    catalog = catalog_for(language) if language else None
    return _compiled(catalog) if catalog else gettext.NullTranslations()


@functools.cache
def _compiled(catalog: str) -> gettext.GNUTranslations:
    from babel.messages.mofile import write_mo

    messages = _read(catalog)
    buffer = io.BytesIO()
    write_mo(buffer, messages)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _po_path(catalog: str) -> Path:
    return LOCALE / catalog / "LC_MESSAGES" / f"{DOMAIN}.po"


# --- keeping the catalogs -------------------------------------------------------------------


_KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}


# A message as the catalogs key it: (context or None, msgid or (singular, plural)).
Key = tuple[str | None, str | tuple[str, str]]


def extracted() -> dict[Key, list[str]]:
    """Every message the sources use, with where ({(context, msgid): [file:line]})."""
    from babel.messages.extract import extract_from_dir

    from . import messages
    from .messages import labels

    options = {
        pattern: {"extensions": "jinja2.ext.i18n"} for pattern, how in SOURCES if "jinja2" in how
    }
    found: dict[Key, list[str]] = {}
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(PACKAGE), method_map=list(SOURCES), options_map=options, keywords=_KEYWORDS
    ):
        msgid = message if isinstance(message, str) else (message[0], message[1])
        found.setdefault((context, msgid), []).append(f"{filename}:{lineno}")
    for table in messages.TABLES:
        where = f"messages/{table.__name__.rsplit('.', 1)[1]}.py:0"
        for key, english in table.MESSAGES.items():
            found[(key, english)] = [where]
    for _emoji, label in labels.VERDICTS.values():
        found[(labels.VERDICT_CONTEXT, label)] = ["messages/labels.py:0"]
    for word in labels.WORDS:
        found[(labels.WORD_CONTEXT, word)] = ["messages/labels.py:0"]
    return found


def _read(catalog: str) -> Catalog:
    from babel.messages.pofile import read_po

    with _po_path(catalog).open("rb") as po:
        return read_po(po, locale=catalog, domain=DOMAIN)


def problems(catalog: str) -> list[str]:
    """What is wrong with one catalog: messages without a translation, translations unused."""
    used = extracted()
    messages = _read(catalog)
    kept: dict[Key, Message] = {
        (m.context, m.id if isinstance(m.id, str) else (m.id[0], m.id[1])): m
        for m in messages
        if m.id
    }
    found = []
    for key, where in used.items():
        entry = kept.get(key)
        strings = [] if entry is None else entry.string
        strings = [strings] if isinstance(strings, str) else list(strings)
        if entry is None or not all(strings):
            found.append(f"{catalog}: no translation of {key!r} ({where[0]})")
    found += [
        f"{catalog}: {key!r} is translated but no longer used" for key in kept if key not in used
    ]
    return found


def update(catalog: str) -> None:
    """Add the messages the sources use to `catalog` (untranslated), drop the unused ones."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    old = _read(catalog)
    new = Catalog(
        locale=catalog,
        domain=DOMAIN,
        header_comment=old.header_comment,
        project="Vicaran",
        version="1",
        copyright_holder="Vicaran",
        msgid_bugs_address="",
        creation_date=old.creation_date,
        revision_date=old.revision_date,
        last_translator="Vicaran",
        language_team="Vicaran",
        fuzzy=False,
    )
    # The catalog's own plural rule: pt_BR counts 0 as plural ("0 fontes"), as Vicaran always has,
    # where Babel's locale data would say "0 fonte".
    new.mime_headers = [("Plural-Forms", old.plural_forms)]
    for (context, msgid), where in sorted(extracted().items(), key=lambda item: item[1][0]):
        previous = old.get(msgid if isinstance(msgid, str) else msgid[0], context=context)
        string = (
            previous.string
            if previous is not None
            else ("" if isinstance(msgid, str) else ("", ""))
        )
        if isinstance(msgid, tuple) and isinstance(string, str):  # a message that now counts:
            string = (string, string)  # its translation for both forms, to be told apart
        locations = [(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) for w in where]
        new.add(msgid, string, locations=locations, context=context)
    with _po_path(catalog).open("wb") as po:
        write_po(po, new, width=100, include_lineno=False)


def main(argv: list[str]) -> int:
    if "--update" in argv:
        for catalog in LANGUAGES:
            update(catalog)
        return 0
    found = [problem for catalog in LANGUAGES for problem in problems(catalog)]
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print(
            "Translate them in vicaran_agent/locale/ (`make messages` adds new ones).",
            file=sys.stderr,
        )
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
