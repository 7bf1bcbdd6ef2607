"""The dashboard's page frame: Jinja2 templates (`vicaran_agent/templates/`, autoescaped), the
headers every page carries (a strict Content-Security-Policy), and the "Access token needed"
page, which carries its stylesheet inline since the static files are behind the token too."""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from markupsafe import Markup

from ..services import current
from ..templating import templates

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_PREFIX = "/dashboard-static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
FRAGMENT_HEADER = "vicaran-fragment"
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@functools.cache
def _inline_css() -> tuple[Markup, str]:
    """The stylesheet, for a page that cannot load it, and the CSP that allows exactly it."""
    css = (STATIC_DIR / "dashboard.css").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    return Markup(css), CSP.replace("style-src 'self'", f"style-src 'sha256-{digest}'")


def page(
    title: str,
    main: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    head: str = "",
    lang: str = "en",
) -> HTMLResponse:
    """A dashboard page around `main` and `head` (HTML the dashboard's renderers escaped), in
    the language `lang` (a BCP 47 tag)."""
    values = {"title": title, "main": Markup(main), "head": Markup(head), "lang": lang}
    return _render("base.html", status, headers, sample=current().sample_data, **values)


def fragment(main: str, *, status: int = 200) -> HTMLResponse:
    """`main` alone, for the page's live refresh (asked for with `Vicaran-Fragment: main`)."""
    return HTMLResponse(main, status, headers=PAGE_HEADERS)


def wants_fragment(headers: Mapping[str, str]) -> bool:
    """Whether the request is the page's live refresh, asking for its <main> only."""
    return headers.get(FRAGMENT_HEADER) == "main"


def token_page(headers: dict[str, str]) -> HTMLResponse:
    """401 for a browser: how to present the token."""
    css, csp = _inline_css()
    headers = {**headers, "Content-Security-Policy": csp}
    return _render("token.html", 401, headers, title="Access token needed", inline_css=css)


def _render(name: str, status: int, headers: dict[str, str] | None, **values: Any) -> HTMLResponse:
    values = {
        "static": STATIC_PREFIX,
        "head": "",
        "inline_css": "",
        "lang": "en",
        "sample": False,
        **values,
    }
    html = templates().get_template(name).render(**values)
    return HTMLResponse(html, status, headers={**PAGE_HEADERS, **(headers or {})})
