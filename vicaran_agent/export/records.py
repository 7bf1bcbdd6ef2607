"""The JSON export: every record and the texts Vicaran read, as stored."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from ..read_model import InvestigationView
from .links import rebased, report_markdown

JSON_FORMAT = "vicaran-investigation"


JSON_VERSION = 1


def to_json(
    investigation: InvestigationView,
    snapshots: dict[str, str],
    *,
    now: datetime | None = None,
    public_url: str = "",
) -> str:
    """Every record (quality included) and the texts Vicaran read, pretty-printed.

    Args:
        investigation: what `Repository.get_investigation` returns.
        snapshots: {sha256: text}, e.g. `Repository.get_snapshots(id)`.
        now: the export time (default: now, UTC).
        public_url: where the server is; the report's snapshot links are moved there.

    Returns:
        `{"format", "version", "exported_at", "investigation", "snapshots"}` as JSON text.
    """
    record = investigation.model_dump(mode="json")
    if investigation.summary is not None:
        summary = report_markdown(investigation.summary)
        record["summary"] = rebased(summary, investigation.id, public_url)
    exported_at = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    document = {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "exported_at": exported_at,
        "investigation": record,
        "snapshots": dict(sorted(snapshots.items())),
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
