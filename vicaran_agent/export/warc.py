"""The web-archive export: one `.warc.gz` of what the report cites, as Vicaran read it.

Each web page among the sources and the evidence goes in as the records kept when it was read
(`archive.page_records`: request, response as received, and what page it stands for); each
document passage and gazette as a `resource` record of the text Vicaran read. A page read before
archiving was on (or whose archive could not be kept) is left out, and said in the `warcinfo`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..archive import archive_file
from ..read_model import InvestigationView, SourceView
from .formats import filename as download_name
from .links import is_sha256, is_web
from .words import Cited, cited_items

if TYPE_CHECKING:
    from ..storage import Repository

# Evidence whose page Vicaran read (a search hit alone, "web", is the search service's snippet).
_READ_EVIDENCE = frozenset({"source", "page", "live_search", "late_source"})


def was_read(item: Cited) -> bool:
    """Whether Vicaran read `item`'s web page itself (not only a search service's snippet)."""
    if not (is_web(item.url) and is_sha256(item.content_sha256)):
        return False
    if isinstance(item, SourceView):
        return item.is_reachable and item.origin in ("web", "user_url")
    return item.origin in _READ_EVIDENCE


def archived_ids(investigation: InvestigationView) -> list[int]:
    """The archived copies the export holds, each once, in the order they are first cited."""
    ids: dict[int, None] = {}
    for item in cited_items(investigation):
        if item.archive_id is not None and is_web(item.url):
            ids.setdefault(item.archive_id)
    return list(ids)


def _resources(investigation: InvestigationView) -> list[Cited]:
    """The cited documents and gazettes: in the archive as the texts Vicaran read."""
    return [
        item
        for item in cited_items(investigation)
        if item.origin in ("document", "gazette") and is_sha256(item.content_sha256)
    ]


def web_archive(repository: Repository, investigation: InvestigationView) -> bytes:
    """The investigation's `.warc.gz`, from what the records store kept (only the texts it
    holds are loaded, not every snapshot of the investigation)."""
    captures = repository.get_captures(investigation.id, archived_ids(investigation))
    shas = [item.content_sha256 or "" for item in _resources(investigation)]
    texts = repository.get_snapshots(investigation.id, only=shas)
    name = download_name(investigation.id, "warc")
    return to_warc(investigation, captures, texts, filename=name)


def to_warc(
    investigation: InvestigationView,
    captures: dict[int, bytes],
    texts: dict[str, str],
    *,
    filename: str,
    software: str = "Vicaran",
) -> bytes:
    """The investigation's web archive.

    Args:
        investigation: what `Repository.get_investigation` returns.
        captures: {archive id: gzipped WARC records} of `archived_ids(investigation)`.
        texts: {sha256: text} of the snapshots (documents' passages and gazettes go in whole).
        filename: the file's name, said in its `warcinfo` record.
        software: what made it, said there too.
    """
    pages = [captures[i] for i in archived_ids(investigation) if i in captures]
    resources: dict[tuple[str, str], str] = {}
    for item in _resources(investigation):
        if (sha := item.content_sha256 or "") in texts:
            resources.setdefault((item.url, sha), texts[sha])
    missing = [
        item.url
        for item in cited_items(investigation)
        if item.archive_id is None and was_read(item)
    ]
    info = {
        "software": software,
        "format": "WARC File Format 1.1",
        "description": f"What Vicaran read for the investigation {investigation.title!r} "
        f"({investigation.id})",
        "isPartOf": investigation.id,
    }
    if missing:
        info["not-archived"] = " ".join(dict.fromkeys(missing))
    return archive_file(
        filename, info, pages, [(uri, text) for (uri, _), text in resources.items()]
    )
