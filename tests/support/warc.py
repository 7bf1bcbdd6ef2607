"""Reading the WARC files Vicaran writes, as an archivist's tools would (warcio)."""

from __future__ import annotations

import contextlib
import io
from io import BytesIO
from pathlib import Path
from typing import Any


def records(data: bytes) -> list[dict[str, Any]]:
    """Every record: its type, target, WARC headers, HTTP status and headers, and payload."""
    from warcio.archiveiterator import ArchiveIterator

    found = []
    for record in ArchiveIterator(BytesIO(data)):
        http = record.http_headers
        found.append(
            {
                "type": record.rec_type,
                "uri": record.rec_headers.get_header("WARC-Target-URI"),
                "id": record.rec_headers.get_header("WARC-Record-ID"),
                "warc": dict(record.rec_headers.headers),
                "status": int(http.get_statuscode())
                if http and record.rec_type == "response"
                else None,
                "http": dict(http.headers) if http else {},
                "payload": record.content_stream().read(),
            }
        )
    return found


def check(path: Path) -> tuple[int, str]:
    """`warcio check -v PATH`: (exit code, what it printed)."""
    from warcio.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(["check", "-v", str(path)])
            code = 0
        except SystemExit as stop:
            code = int(stop.code or 0)
    return code, out.getvalue()
