"""Links in exports: where a snapshot is (on this server or in the page), which addresses a
report may link, the report's text without its protocol marker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

from ..config import get_settings
from ..read_model import InvestigationView
from ..sanitize import strip_markers

COMPLETE_MARKER = "[INVESTIGATION_COMPLETE]"


_SHA256 = re.compile(r"[0-9a-f]{64}")


_URL_LENGTH = 300  # a server address longer than this is not one Vicaran wrote


_NOT_IN_URL = frozenset("<>()[]\"'`\\")  # Markdown's delimiters around a link


def report_markdown(summary: str | None) -> str:
    """The report's Markdown without any protocol marker."""
    return strip_markers(summary or "").strip()


def snapshot_path(investigation_id: str, sha256: str) -> str:
    """The server path of a snapshot (the read API's)."""
    return f"/api/investigations/{quote(investigation_id, safe='')}/snapshots/{sha256}"


def archive_path(investigation_id: str, archive_id: int) -> str:
    """The server path of one page's archived copy (WARC records; the read API's)."""
    return f"/api/investigations/{quote(investigation_id, safe='')}/archives/{archive_id}"


def snapshot_url(investigation_id: str, sha256: str, public_url: str) -> str:
    """The absolute address of a snapshot, where `vicaran serve` is reachable."""
    return public_url.rstrip("/") + snapshot_path(investigation_id, sha256)


def is_sha256(value: Any) -> bool:
    """Whether `value` names a snapshot: 64 lowercase hex digits."""
    return isinstance(value, str) and _SHA256.fullmatch(value) is not None


def snapshot_of(url: str, investigation_id: str) -> str | None:
    """The SHA-256 a link to one of the investigation's snapshots names, on whatever server
    (and under whatever path prefix) it was written; None for any other link."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or parts.query:
        return None
    prefix = snapshot_path(investigation_id, "")
    at = parts.path.rfind(prefix)
    sha = parts.path[at + len(prefix) :] if at >= 0 and investigation_id else ""
    return sha if is_sha256(sha) and not parts.fragment else None


def rebased(markdown: str, investigation_id: str, public_url: str) -> str:
    """`markdown` with each link to one of the investigation's snapshots on `public_url`.

    A report keeps the server address it was written with (a headless run assumes the default
    one, a server may since have moved): its snapshot links follow the server that exports it.
    Linear: each snapshot path is found once, its address looked for in the few hundred
    characters before it.
    """
    base = public_url.rstrip("/")
    marker = snapshot_path(investigation_id, "")
    if not (base and investigation_id and marker in markdown):
        return markdown
    out: list[str] = []
    done = 0
    at = markdown.find(marker)
    while at >= 0:
        end = at + len(marker) + 64
        window = markdown[max(done, at - _URL_LENGTH) : at]
        start = max(window.rfind("http://"), window.rfind("https://"))
        if start >= 0 and is_sha256(markdown[at + len(marker) : end]):
            start += at - len(window)
            address = markdown[start:at]
            if (
                not any(c.isspace() or c in _NOT_IN_URL for c in address)
                and not markdown[end : end + 1].isalnum()
                and snapshot_of(markdown[start:end], investigation_id)
            ):
                out.append(markdown[done:start] + base + markdown[at:end])
                done = end
        at = markdown.find(marker, max(done, at + 1))
    return "".join(out) + markdown[done:]


def snapshot_links(
    investigation_id: str, target: Callable[[str], str | None]
) -> Callable[[str], str | None]:
    """For `render_markdown(relink=...)`: a link to one of the investigation's snapshots, on
    any server, goes where `target(sha256)` says (None: the link is judged as written)."""

    def relink(url: str) -> str | None:
        sha = snapshot_of(url, investigation_id)
        return target(sha) if sha else None

    return relink


def saved_links(investigation: InvestigationView, public_url: str | None = None) -> set[str]:
    """The only addresses a report may link: the investigation's saved sources (normalized and
    as found) and the snapshots its records rest on - its sources' and its evidence's, such as
    the passage of a document's cited page (under `public_url`, default the configured one)."""
    base = get_settings().public_url if public_url is None else public_url
    iid = investigation.id
    links: set[str] = set()
    for source in investigation.sources:
        links.update(u for u in (source.url, source.display_url) if u)
    kept = [s.content_sha256 for s in investigation.sources] + [
        item.content_sha256 for check in investigation.fact_checks for item in check.evidence
    ]
    if base and iid:
        links.update(snapshot_url(iid, sha, base) for sha in kept if is_sha256(sha))
    return links


def http_href(url: str) -> str | None:
    """`url` when it is http(s); else None."""
    return url if url and urlsplit(url).scheme.lower() in ("http", "https") else None


def is_web(url: object) -> bool:
    """Whether `url` is an http(s) address (what a page may link)."""
    return http_href(str(url or "")) is not None
