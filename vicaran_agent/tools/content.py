"""Page text: is it readable or a block page, readable text from HTML, clipping, dates."""

from __future__ import annotations

import html as html_lib
import logging
import re
import unicodedata
from datetime import date, datetime
from email.utils import parsedate_to_datetime

import trafilatura

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


_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HIDDEN = re.compile(
    r"<(script|style|noscript|template|svg|head)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_BLOCK = re.compile(
    r"<\s*/?\s*(p|div|br|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|blockquote|pre)"
    r"\b[^>]*>",
    re.IGNORECASE,
)
_TAG = re.compile(r"<[^>]+>")


def _strip_tags(html: str) -> str:
    text = _COMMENT.sub(" ", html)
    # Source line breaks are just spaces in HTML; block elements make the lines.
    text = " ".join(_HIDDEN.sub(" ", text).split())
    text = _BLOCK.sub("\n", text)
    return _tidy(html_lib.unescape(_TAG.sub(" ", text)))


def _title(html: str, url: str) -> str:
    try:
        metadata = trafilatura.extract_metadata(html, default_url=url or None)
        if metadata is not None and metadata.title:
            return " ".join(metadata.title.split())
    except Exception:  # trafilatura/lxml can fail in many ways on hostile HTML
        logger.debug("trafilatura metadata failed for %s", url, exc_info=True)
    match = _TITLE.search(html)
    return " ".join(html_lib.unescape(_TAG.sub(" ", match.group(1))).split()) if match else ""


def extract_readable(html: str, url: str = "") -> tuple[str, str]:
    """(title, readable text) of an HTML page; never raises."""
    if not html or not html.strip():
        return "", ""
    text = ""
    try:
        text = (
            trafilatura.extract(html, url=url or None, include_comments=False, favor_precision=True)
            or ""
        )
    except Exception:  # trafilatura/lxml can fail in many ways on hostile HTML
        logger.debug("trafilatura extract failed for %s", url, exc_info=True)
    if not text.strip():
        text = _strip_tags(html)
    return _title(html, url), text.strip()


def _tidy(text: str) -> str:
    """Single spaces within lines, at most one blank line in a row, no outer whitespace."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


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
    value = _LABEL.sub("", (value or "").strip())
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
