"""Vicaran's Jinja2 templates (`vicaran_agent/templates/`): the dashboard's pages and the HTML
export. Autoescaped: every value is escaped unless it is `Markup` (the report's HTML, already
sanitized by `markdown_html`). Messages in templates are gettext's (`{{ _("…") }}`, see
`catalogs`)."""

from __future__ import annotations

import functools
import gettext
from collections.abc import Callable, Mapping
from typing import Any

import jinja2


def environment(
    *,
    translations: gettext.NullTranslations | None = None,
    filters: Mapping[str, Callable[..., Any]] | None = None,
    names: Mapping[str, Any] | None = None,
) -> jinja2.Environment:
    """A template environment of its own: `translations` for its messages (English when
    none), and the filters and global names its templates use."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("vicaran_agent", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(  # type: ignore[attr-defined]
        translations or gettext.NullTranslations(), newstyle=True
    )
    env.filters.update(filters or {})
    env.globals.update(names or {})
    return env


@functools.cache
def templates() -> jinja2.Environment:
    """The page frame's environment (`server.pages`)."""
    return environment()
