"""Vicaran's Jinja2 templates (`vicaran_agent/templates/`): the dashboard's pages and the HTML
export. Autoescaped: every value is escaped unless it is `Markup` (the report's HTML, already
sanitized by `server.markdown`)."""

from __future__ import annotations

import functools

import jinja2


@functools.cache
def templates() -> jinja2.Environment:
    """The one template environment (later modules add their filters to an overlay)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("vicaran_agent", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
