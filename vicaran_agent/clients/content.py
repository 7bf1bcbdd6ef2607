"""Page text: is it readable or a block page, readable text from HTML, clipping, dates."""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections import deque
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple

import lxml.html
import trafilatura
from htmldate import find_date
from htmldate.core import DATE_ATTRIBUTES
from lxml import etree
from lxml.html import HtmlElement

logger = logging.getLogger(__name__)

HEAD_CHARS = 500
SHORT_CHARS = 1000

# reason -> phrases that only appear on block, error, challenge or paywall pages.
BLOCKED_CONTENT_INDICATORS: dict[str, tuple[str, ...]] = {
    "captcha": ("captcha",),
    "robot check": ("are you a robot", "robot check", "not a robot", "você é um robô"),
    "browser check": (
        "checking your browser",
        "verify you are human",
        "verifying you are human",
        "verificando seu navegador",
    ),
    "javascript required": (
        "please enable javascript",
        "enable javascript and cookies",
        "ative o javascript",
        "habilite o javascript",
    ),
    "cloudflare challenge": ("attention required! | cloudflare",),
    "access denied": ("access denied", "acesso negado"),
    "403 forbidden": ("403 forbidden", "erro 403"),
    "404 not found": ("404 not found", "erro 404"),
    "page not found": ("page not found", "página não encontrada"),
    "too many requests": ("too many requests", "muitas requisições", "muitas solicitações"),
    "rate limit exceeded": ("rate limit exceeded", "limite de requisições excedido"),
    "request blocked": ("request blocked", "requisição bloqueada"),
    "site unreachable": ("this site can't be reached", "não é possível acessar esse site"),
    "paywall": (
        "subscribe to continue reading",
        "subscribe to keep reading",
        "this article is for subscribers only",
        "assine para continuar lendo",
        "conteúdo exclusivo para assinantes",
    ),
}
# Words that also appear in real articles ("blocked roads"), so they count only on short pages.
WEAK_INDICATORS = ("blocked", "unavailable", "bloqueado", "bloqueada", "indisponível")


def _fold(text: str) -> str:
    """Lowercase, no accents, straight apostrophes, single spaces: for phrase matching."""
    text = unicodedata.normalize("NFKD", text.replace("’", "'").lower())
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).split())


_STRONG = [
    (reason, _fold(p)) for reason, phrases in BLOCKED_CONTENT_INDICATORS.items() for p in phrases
]
_WEAK = [(word, re.compile(rf"\b{re.escape(_fold(word))}\b")) for word in WEAK_INDICATORS]


def blocked_reason(text: str, min_chars: int = 200) -> str | None:
    """Why `text` is not a readable page ("blocked page: captcha", ...), or None."""
    text = (text or "").strip()
    head = _fold(text[:HEAD_CHARS])
    for reason, phrase in _STRONG:
        if phrase in head:
            return f"blocked page: {reason}"
    if len(text) < SHORT_CHARS:
        for word, pattern in _WEAK:
            if pattern.search(head):
                return f"blocked page: {word}"
    if len(text) < min_chars:
        return f"content too short ({len(text)} characters)"
    return None


# Elements whose text is never page text; block elements, which start a new line.
_HIDDEN_TAGS = ("script", "style", "noscript", "template", "svg", "head")
_BLOCK_TAGS = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header"}
    | {"footer", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}
)


# Past this many elements trafilatura would cost seconds per page: the lxml text is used instead.
MAX_EXTRACT_ELEMENTS = 20_000


class HtmlText(NamedTuple):
    title: str
    text: str
    published_at: str | None  # YYYY-MM-DD, as the page's metadata states it


# The meta tags (name, property or itemprop) that state when a page was published: htmldate's
# list, less the names that say something else (when the page was generated, any timestamp).
PUBLICATION_META = frozenset(DATE_ATTRIBUTES) - {"meta", "gentime", "timestamp"}
MAX_DATE_TAGS = 32  # a page states its date once or twice; past this, it is noise
MAX_DATE_CHARS = 100
MAX_JSON_LD_CHARS = 200_000
MAX_JSON_LD_NODES = 5_000


def publication_date(tags: Iterable[tuple[str, str]]) -> str | None:
    """YYYY-MM-DD: the publication date the page's meta tags state, else None. Never raises.

    `tags` are (name, content) pairs in page order: a `<meta>`'s name, property or itemprop
    and its content, or Jina Reader's `metadata`. Only publication names count (a modified
    time, a copyright year or the server's Last-Modified never do); htmldate reads the values
    (ISO 8601, RFC 1123, "5 March 2019", "2019/03/05" ...) and checks they are real dates.
    """
    head = lxml.html.Element("head")
    for name, content in tags:
        name = " ".join(str(name).split()).lower()
        if name not in PUBLICATION_META:
            continue
        value = " ".join(str(content).split())[:MAX_DATE_CHARS]
        if not value:
            continue
        try:
            etree.SubElement(head, "meta", name=name, content=value)
        except ValueError:  # characters XML cannot hold: not a date anyway
            continue
        if len(head) >= MAX_DATE_TAGS:
            break
    if not len(head):
        return None
    page = lxml.html.Element("html")
    page.append(head)
    etree.SubElement(page, "body")
    try:
        return find_date(page, extensive_search=False, original_date=True) or None
    except Exception:  # htmldate failing on odd values: no date
        logger.debug("htmldate could not read the date metadata", exc_info=True)
        return None


def page_date_tags(root: HtmlElement | None) -> Iterator[tuple[str, str]]:
    """(name, content) of the page's `<meta>` tags, then its JSON-LD `datePublished`s."""
    if root is None:
        return
    for meta in root.iter("meta"):
        name = meta.get("name") or meta.get("property") or meta.get("itemprop")
        content = meta.get("content") or meta.get("datetime")
        if name and content:
            yield name, content
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        for value in _json_ld_published(script.text or ""):
            yield "datePublished", value


def _json_ld_published(text: str) -> Iterator[str]:
    """The `datePublished` strings of a JSON-LD block, outermost first (bounded walk)."""
    if len(text) > MAX_JSON_LD_CHARS:
        return
    try:
        pending: deque[Any] = deque([json.loads(text)])
    except (ValueError, RecursionError):
        return
    seen = 0
    while pending and seen < MAX_JSON_LD_NODES:
        node = pending.popleft()
        seen += 1
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            published = node.get("datePublished")
            if isinstance(published, str):
                yield published
            pending.extend(v for v in node.values() if isinstance(v, (dict, list)))


def _parse_html(html: str) -> HtmlElement | None:
    """libxml2's HTML parser (linear, depth-limited); None when it cannot make a document."""
    try:
        try:
            return lxml.html.document_fromstring(html)
        except ValueError:  # a str that declares its own encoding: parse it as UTF-8 bytes
            parser = lxml.html.HTMLParser(encoding="utf-8")
            return lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=parser)
    except Exception:  # an empty document, or lxml failing on hostile input
        logger.debug("lxml could not parse a page", exc_info=True)
        return None


def _element_text(element: HtmlElement) -> str:
    return " ".join("".join(element.itertext()).split())


def _html_title(root: HtmlElement | None) -> str:
    title = root.find(".//title") if root is not None else None
    return _element_text(title) if title is not None else ""


def _strip_tags(root: HtmlElement | None) -> str:
    """The document's text without scripts, styles, comments and the head; lines per block."""
    if root is None:
        return ""
    etree.strip_elements(
        root, *_HIDDEN_TAGS, etree.Comment, etree.ProcessingInstruction, with_tail=False
    )
    pieces: list[str] = []
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        # every tag separates words; block tags separate lines (source line breaks do not)
        pieces.append("\n" if tag.lower() in _BLOCK_TAGS else " ")
        text = element.text if event == "start" else element.tail
        if text:
            pieces.append(" ".join(text.split()))
    return _tidy("".join(pieces))


def read_html(html: str, url: str = "") -> HtmlText:
    """Title, readable text and publication date (its metadata's) of an HTML page; never raises.

    trafilatura finds the main text (its fast mode: the justext/readability fallbacks it skips
    are quadratic on long runs of short elements); when it finds none, the whole page's text
    (lxml) stands in. trafilatura costs tens of microseconds per element, so a page of more
    than MAX_EXTRACT_ELEMENTS elements (far beyond an article) gets the lxml text and title
    only. Everything here is linear in the page.
    """
    if not html or not html.strip():
        return HtmlText("", "", None)
    root = _parse_html(html)
    published = publication_date(page_date_tags(root))
    if root is not None and _element_count(root) > MAX_EXTRACT_ELEMENTS:
        title = _html_title(root)
        return HtmlText(title, _strip_tags(root), published)
    text = ""
    try:
        text = (
            trafilatura.extract(
                html,
                url=url or None,
                include_comments=False,
                favor_precision=True,
                fast=True,
            )
            or ""
        )
    except Exception:  # trafilatura/lxml can fail in many ways on hostile HTML
        logger.debug("trafilatura extract failed for %s", url, exc_info=True)
    title = ""
    try:
        # (its date is htmldate's guess from the whole page: only the metadata's is used)
        metadata = trafilatura.extract_metadata(html, default_url=url or None, extensive=False)
        if metadata is not None:
            title = " ".join((metadata.title or "").split())
    except Exception:  # trafilatura/lxml can fail in many ways on hostile HTML
        logger.debug("trafilatura metadata failed for %s", url, exc_info=True)
    title = title or _html_title(root)
    if not text.strip():
        text = _strip_tags(root)
    return HtmlText(title, text.strip(), published)


def _element_count(root: HtmlElement) -> int:
    try:
        return int(root.xpath("count(//*)"))
    except Exception:  # lxml failing on a hostile tree: assume the worst
        logger.debug("counting a page's elements failed", exc_info=True)
        return MAX_EXTRACT_ELEMENTS + 1


def extract_readable(html: str, url: str = "") -> tuple[str, str]:
    """(title, readable text) of an HTML page; never raises."""
    page = read_html(html, url)
    return page.title, page.text


def _tidy(text: str) -> str:
    """Single spaces within lines, at most one blank line in a row, no outer whitespace."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[str] = []
    for line in text.split("\n"):
        line = " ".join(line.split())
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip()


def clip_text(text: str, limit: int = 5000) -> str:
    """Tidy whitespace and cut to at most `limit` characters, ending in "…" when cut."""
    if limit <= 0 or not text:
        return ""
    text = _tidy(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    boundary = max(cut.rfind(" "), cut.rfind("\n"))
    if boundary > limit // 2:
        cut = cut[:boundary]
    return cut.rstrip() + "…"


_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_LABEL = re.compile(r"^published[ _]?(time|date)\s*:\s*", re.IGNORECASE)


def published_date(value: str | None) -> str | None:
    """`YYYY-MM-DD` from an ISO 8601 or RFC 1123 date (as the page states it), else None."""
    value = _LABEL.sub("", (value or "").strip()[:200]).strip()
    if not value:
        return None
    try:
        return datetime.fromisoformat(value).date().isoformat()
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).date().isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    if match := _ISO_DAY.match(value):
        try:
            return date(*(int(part) for part in match.groups())).isoformat()
        except ValueError:
            return None
    return None
