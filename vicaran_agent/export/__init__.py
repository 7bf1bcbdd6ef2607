"""Exports of one investigation: Markdown, a standalone HTML page, JSON and ClaimReview.

One module each (`markdown`, `html`, `records` for JSON, `claimreview`), on the wording they
share (`words`) and the rules of their links (`links`); `formats.render` renders any of them.
This package names what the rest of Vicaran uses.

Every export works from the `InvestigationView` that `Repository.get_investigation` returns (and,
for JSON and HTML, the snapshots its records rest on). No protocol marker is ever exported. A
link to one of the investigation's snapshots names the server where it is now (the settings'
`public_url`), whichever server the report was written on; the HTML page carries the texts it
cites (each cut to `SNAPSHOT_CHARS`, all of them to `EXPORT_SNAPSHOT_CHARS`) and links them
inside itself, so it needs no server. Each ClaimReview names its claim's own dashboard page.
`[N]` in the report cites the N-th entry of `investigation.sources`; `[N]` in a fact-check's
explanation cites that check's N-th evidence item. A source or evidence item from the
journalist's documents has no web address (its `doc://` url is an identity): it is named
`📄 <title>, p. N` and linked, at most, to the snapshot of the passage Vicaran read; the JSON
export keeps the records as stored.
An official gazette (origin `gazette`) is public: it is named `📰 Diário Oficial de <city> — <date>`
(its title), linked to its public address, with its territory and its full text's address.
"""

from __future__ import annotations

from .claimreview import RATING_VALUES, claim_reviews, review_rating, to_claimreview
from .formats import BINARY, FORMATS, WITH_SNAPSHOTS, ExportFormat, filename, render
from .html import EXPORT_SNAPSHOT_CHARS, SNAPSHOT_CHARS, to_html
from .links import (
    COMPLETE_MARKER,
    archive_path,
    is_sha256,
    is_web,
    rebased,
    report_markdown,
    saved_links,
    snapshot_links,
    snapshot_of,
    snapshot_path,
    snapshot_url,
)
from .markdown import markdown_links, to_markdown
from .records import JSON_FORMAT, JSON_VERSION, to_json
from .warc import archived_ids, to_warc, web_archive
from .words import (
    GAZETTE_NAME,
    OWN_RECORD,
    REASONING_HEADING,
    RELIABILITY_LABELS,
    STANCE_LABELS,
    Cited,
    attribution,
    document_label,
    gazette_day,
    gazette_facts,
    gazette_label,
    independence,
    is_document,
    is_gazette,
    page_text,
    published_fact,
    relevance_text,
    review_text,
    sentence,
    steps_text,
)

__all__ = [
    "BINARY",
    "COMPLETE_MARKER",
    "EXPORT_SNAPSHOT_CHARS",
    "FORMATS",
    "GAZETTE_NAME",
    "JSON_FORMAT",
    "JSON_VERSION",
    "OWN_RECORD",
    "RATING_VALUES",
    "REASONING_HEADING",
    "RELIABILITY_LABELS",
    "SNAPSHOT_CHARS",
    "STANCE_LABELS",
    "WITH_SNAPSHOTS",
    "Cited",
    "ExportFormat",
    "archive_path",
    "archived_ids",
    "attribution",
    "claim_reviews",
    "document_label",
    "filename",
    "gazette_day",
    "gazette_facts",
    "gazette_label",
    "independence",
    "is_document",
    "is_gazette",
    "is_sha256",
    "is_web",
    "markdown_links",
    "page_text",
    "published_fact",
    "rebased",
    "relevance_text",
    "render",
    "report_markdown",
    "review_rating",
    "review_text",
    "saved_links",
    "sentence",
    "snapshot_links",
    "snapshot_of",
    "snapshot_path",
    "snapshot_url",
    "steps_text",
    "to_claimreview",
    "to_html",
    "to_json",
    "to_markdown",
    "to_warc",
    "web_archive",
]
