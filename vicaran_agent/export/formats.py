"""The export formats, and the one entry that renders any of them (`render`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..config import Settings, get_settings
from ..read_model import InvestigationView
from .claimreview import to_claimreview
from .html import to_html
from .markdown import to_markdown
from .records import to_json


@dataclass(frozen=True)
class ExportFormat:
    """How one export is named and served."""

    extension: str
    media_type: str
    label: str


FORMATS: dict[str, ExportFormat] = {
    "md": ExportFormat("md", "text/markdown; charset=utf-8", "Markdown"),
    "html": ExportFormat("html", "text/html; charset=utf-8", "HTML"),
    "json": ExportFormat("json", "application/json", "JSON"),
    "claimreview": ExportFormat("jsonld", "application/ld+json", "ClaimReview"),
    "warc": ExportFormat("warc.gz", "application/warc", "Web archive (WARC)"),
}
BINARY = frozenset({"warc"})  # made by `web_archive`, from the records store, not `render`


def render(
    fmt: str,
    investigation: InvestigationView,
    snapshots: dict[str, str] | None = None,
    *,
    settings: Settings | None = None,
    now: datetime | None = None,
    reviewed_only: bool = False,
) -> str:
    """The investigation exported as `fmt` (a key of `FORMATS`).

    Args:
        fmt: "md", "html", "json" or "claimreview".
        investigation: what `Repository.get_investigation` returns.
        snapshots: {sha256: text} of what Vicaran read (the JSON and HTML exports carry them:
            see `WITH_SNAPSHOTS`).
        settings: publisher and public URL; the process settings when omitted.
        now: the export time written into the JSON export (default: now, UTC).
        reviewed_only: ClaimReview: only the claims an editor approved or changed.

    Returns:
        The export's text.

    Raises:
        ValueError: `fmt` is not a known format.
    """
    settings = settings or get_settings()
    public_url = settings.public_url
    if fmt == "md":
        return to_markdown(investigation, public_url=public_url)
    if fmt == "html":
        return to_html(investigation, public_url=public_url, snapshots=snapshots or {})
    if fmt == "json":
        return to_json(investigation, snapshots or {}, now=now, public_url=public_url)
    if fmt == "claimreview":
        return to_claimreview(investigation, settings, reviewed_only=reviewed_only)
    if fmt in BINARY:
        raise ValueError(f"the {fmt} export is a file of bytes: use export.web_archive")
    raise ValueError(f"unknown export format {fmt!r}: use {', '.join(FORMATS)}")


WITH_SNAPSHOTS = frozenset({"json", "html"})  # the formats that carry the texts read


def filename(investigation_id: str, fmt: str) -> str:
    """The download name, e.g. `vicaran-0b7e4a4e.md`."""
    short = re.sub(r"[^A-Za-z0-9-]", "", investigation_id)[:8] or "export"
    return f"vicaran-{short}.{FORMATS[fmt].extension}"
