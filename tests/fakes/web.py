"""A plain loopback website for Vicaran's direct-fetch fallback.

Usage:

    web = FakeWeb().start()
    web.add_article("/story", "Mayor resigns", ["First paragraph ...", "Second ..."])
    web.add_redirect("/old", "/story")            # 302 (or 301) with a Location header
    web.add_hang("/slow")                          # never answers (until stop)
    web.add_huge("/big", 5_000_000)                # a streamed HTML page of that many bytes
    web.add_raw("/doc.pdf", b"%PDF-1.7 ...", "application/pdf")

Unknown paths answer 404; the query string is ignored when matching routes.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from dataclasses import dataclass, field

from tests.fakes.server import FakeServer, RecordedRequest, Response


def article_html(
    title: str, paragraphs: list[str], *, published: str | None = None, lang: str = "en"
) -> str:
    """A small news-article page: <title>, <h1>, an <article> of paragraphs, site chrome."""
    meta = (
        f'<meta property="article:published_time" content="{html.escape(published)}">'
        if published
        else ""
    )
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>{meta}</head>\n<body>\n"
        '<nav><a href="/">Home</a> <a href="/politics">Politics</a></nav>\n'
        f"<main><article><h1>{html.escape(title)}</h1>\n{body}\n</article></main>\n"
        "<footer>© Example News. All rights reserved.</footer>\n</body></html>\n"
    )


@dataclass
class _Route:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    hang: bool = False
    huge: int = 0  # bytes to stream
    declare_length: bool = True


class FakeWeb(FakeServer):
    """Serves configured routes by path (the query string is ignored); 404 otherwise."""

    def __init__(self, *, latency: float = 0.0) -> None:
        super().__init__(latency=latency)
        self._routes: dict[str, _Route] = {}

    def page_url(self, path: str) -> str:
        return self.url + path

    def add_html(
        self,
        path: str,
        document: str,
        *,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        self._routes[path] = _Route(status, {"Content-Type": content_type}, document.encode())
        return self.page_url(path)

    def add_article(
        self,
        path: str,
        title: str,
        paragraphs: list[str],
        *,
        published: str | None = None,
        status: int = 200,
    ) -> str:
        return self.add_html(
            path, article_html(title, paragraphs, published=published), status=status
        )

    def add_raw(self, path: str, body: bytes, content_type: str, *, status: int = 200) -> str:
        self._routes[path] = _Route(status, {"Content-Type": content_type}, body)
        return self.page_url(path)

    def add_redirect(self, path: str, location: str, *, status: int = 302) -> str:
        """`location` may be absolute (any host) or a path on this site."""
        self._routes[path] = _Route(status, {"Location": location, "Content-Length": "0"})
        return self.page_url(path)

    def add_hang(self, path: str) -> str:
        self._routes[path] = _Route(hang=True)
        return self.page_url(path)

    def add_huge(
        self,
        path: str,
        size: int,
        *,
        declare_length: bool = True,
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        """A page of `size` bytes, streamed; with declare_length=False no Content-Length."""
        self._routes[path] = _Route(
            200, {"Content-Type": content_type}, huge=size, declare_length=declare_length
        )
        return self.page_url(path)

    def handle(self, request: RecordedRequest) -> Response:
        route = self._routes.get(request.path)
        if route is None:
            return Response.text(
                404, "<html><title>Not Found</title><body>404</body></html>", "text/html"
            )
        if route.hang:
            return Response(hang=True)
        if route.huge:
            headers = dict(route.headers)
            if route.declare_length:
                headers["Content-Length"] = str(route.huge)
            return Response(route.status, headers, _huge_body(route.huge))
        headers = {k: v for k, v in route.headers.items() if k != "Content-Length"}
        return Response(route.status, headers, route.body)


def _huge_body(size: int) -> Iterator[bytes]:
    head = b"<!DOCTYPE html><html><head><title>Huge page</title></head><body><article>"
    para = b"<p>" + b"All work and no play makes a very long page. " * 20 + b"</p>\n"
    sent = 0
    chunk = head
    while sent < size:
        while len(chunk) < 64 * 1024:
            chunk += para
        piece = chunk[: size - sent]
        sent += len(piece)
        yield piece
        chunk = b""
