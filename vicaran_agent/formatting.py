"""Text built from records: delimited data blocks for prompts, short lines for people."""

from __future__ import annotations

import json
from typing import Any

from .credibility import stars
from .i18n import is_portuguese
from .sanitize import defuse_delimiters
from .schemas import Claim, Source, published_text

# JSON that may sit inside <script> (every JSON-LD): nothing in it may close the element, open
# a comment or end a line in JS.
_JSON_FOR_HTML = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def json_for_html(data: Any, *, indent: int | None = None) -> str:
    """`data` as JSON with `<`, `>`, `&` (and U+2028/9) written as \\u escapes: the same data,
    safe inside `<script type="application/ld+json">` wherever it ends up (every JSON-LD)."""
    return json.dumps(data, ensure_ascii=False, indent=indent).translate(_JSON_FOR_HTML)


DATA_OPENING = "<<<DATA "  # how every data block starts (its label follows)


def data_block(label: str, body: str) -> str:
    """Untrusted content, delimited so the instructions can tell the model to treat it as data.

    Delimiters inside the content - look-alikes and hidden characters included - are defused,
    so a page cannot close its block early.
    """
    safe = defuse_delimiters(body.strip())
    return f"{DATA_OPENING}{label}\n{safe}\nDATA>>>"


def source_entry(number: int, source: Source, prefix: str = "S") -> str:
    """One numbered source for a prompt."""
    meta = f"{source.domain}, credibility {source.credibility_score}/5"
    if source.origin == "document":
        meta = "the journalist's document, " + meta
    if source.published_at:
        meta += f", published {published_text(source.published_at, source.published_at_source)}"
    lines = [f"[{prefix}{number}] {source.title or source.url} ({meta})", f"URL: {source.url}"]
    if source.content_summary:
        lines.append(f"Summary: {source.content_summary}")
    lines.extend(f"Key claim: {claim}" for claim in source.key_claims)
    return "\n".join(lines)


def sources_block(numbered: list[tuple[int, Source]], prefix: str = "S") -> str:
    body = "\n\n".join(source_entry(n, s, prefix) for n, s in numbered)
    return data_block("SOURCES", body or "(no sources)")


def claims_block(claims: list[Claim]) -> str:
    body = "\n".join(f"- {c.key} (importance {c.importance:.2f}): {c.claim_text}" for c in claims)
    return data_block("CLAIMS", body or "(no claims)")


def user_sources_digest(sources: list[Source], language: str) -> str:
    """The journalist's sources as the orchestrator shows them in the plan (delimited data)."""
    if not sources:
        return "(none)" if not is_portuguese(language) else "(nenhuma)"
    lines = []
    for s in sources:
        if s.is_reachable:
            lines.append(
                f"- {stars(s.credibility_score)} {s.title or s.url} ({s.domain}): "
                f"{s.content_summary}"
            )
        else:
            lines.append(f"- ⚠️ {s.url}: could not be read ({s.unreachable_reason})")
    return data_block("USER_SOURCES", "\n".join(lines))


_MARKDOWN_SPECIAL = frozenset("\\`*_[]<>#|")


def markdown_text(text: str, limit: int = 160) -> str:
    """`one_line(text)` with Markdown's inline syntax escaped: shown as written, never as markup."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in one_line(text, limit))


def one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
