"""The fixed messages Vicaran writes itself, by key, in English (the source language).

A message's English text is its msgid in the catalogs and its key the context
(`locale/<language>/LC_MESSAGES/vicaran.po`): `i18n.message(key, language)` says it in the
journalist's language, English when the language has no catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import chat, doctor, documents, gazettes, problems, progress
from ._text import Text

TABLES = (chat, progress, problems, doctor, documents, gazettes)


def _merged() -> Mapping[str, Text]:
    merged: dict[str, Text] = {}
    for table in TABLES:
        twice = merged.keys() & table.MESSAGES.keys()
        if twice:
            raise ValueError(f"message keys defined twice: {sorted(twice)}")
        merged.update(table.MESSAGES)
    return MappingProxyType(merged)


ENGLISH = _merged()

__all__ = ["ENGLISH", "TABLES", "Text"]
