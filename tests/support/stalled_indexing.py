"""A server that stops for good while it indexes an attachment (a test then kills it).

Loaded through VICARAN_MODEL_PLUGINS in that server's process only: the first attachment to be
indexed writes its file name to the file STALL_MARKER_FILE names, then waits forever.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from vicaran_agent.documents.store import DocumentStore

_add = DocumentStore.add


def _stalled_add(self: DocumentStore, parsed: Any, *args: Any, **kwargs: Any) -> Any:
    if kwargs.get("owner") is None:  # the operator's adds go through
        return _add(self, parsed, *args, **kwargs)
    Path(os.environ["STALL_MARKER_FILE"]).write_text(parsed.file_name)
    threading.Event().wait()  # until the process is killed


DocumentStore.add = _stalled_add  # type: ignore[method-assign]
