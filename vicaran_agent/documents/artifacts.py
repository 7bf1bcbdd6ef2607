"""Attachments stored once, as ADK artifacts: the parts that name them, and their file names.

A file attached to a message reaches ADK as an `inline_data` part. Kept as it is, ADK's session
store would hold every byte of it (base64 in JSON: 80 MB for a 60 MB PDF) for as long as the
session lives, next to the copy saved as an artifact. `AttachmentsAsArtifacts`, a plugin of
Vicaran's app (in `artifact_plugin`, with everything here that needs ADK), runs before the
message is stored (ADK's `on_user_message_callback`, for the dev UI, `/run`, `/run_sse` and the
terminal alike): each file is saved as an artifact of the session and its part becomes a
reference, a `file_data` part naming ADK's artifact URI
(`artifact://apps/<app>/users/<user>/sessions/<session>/artifacts/<name>/versions/<n>`), with
its display name and MIME type. A file over VICARAN_DOCUMENT_MAX_BYTES is not stored at all: its
part becomes one line naming it, with its size in `part_metadata`, so the plan still says why it
was not used. The intake (`intake.take_in`) reads the artifact back, through `artifact_reader`,
which follows only references to this very session.

ADK ships `SaveFilesAsArtifactsPlugin`, which does the first half; it refuses files over 20 MB
(a limit of models that read files inline, which Vicaran's never do), names artifacts by the
file's display name as given (a name starting with `user:` would be saved in the user's scope,
shared by all their sessions) and keeps the bytes in the message when the artifact cannot be
saved. This plugin uses Vicaran's document limit and the intake's own file names.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from google.genai import types

from ..formatting import one_line
from ..sanitize import clean

if TYPE_CHECKING:
    from .intake import Attachment

MAX_NAME = 120  # characters of a file name kept

PLUGIN_NAME = "vicaran_attachments_as_artifacts"
METADATA_KEY = "vicaran_attachment"  # part_metadata of a file not stored (too large)
ARTIFACT_SCHEME = "artifact://"


def artifact_name(file_name: str) -> str:
    """The artifact a file is saved as: its name, with no `:` (`user:` names are user-scoped)."""
    return file_name.replace(":", "_")


def reference(uri: str, name: str, mime: str) -> types.Part:
    """What the session keeps of a stored file: where it is, its name and type."""
    return types.Part(file_data=types.FileData(file_uri=uri, display_name=name, mime_type=mime))


def not_stored(name: str, mime: str, size: int) -> types.Part:
    """What the session keeps of a file too large to take in: a line, and its size."""
    return types.Part(
        text=f"[Attached file: {one_line(name, 120)} - {size:,} bytes, not kept: over "
        "VICARAN_DOCUMENT_MAX_BYTES]",
        part_metadata={METADATA_KEY: {"file_name": name, "mime": mime, "size": size}},
    )


def refused_size(part: types.Part) -> tuple[str, str, int] | None:
    """(name, MIME type, size) of a file `not_stored` stands for; None for any other part."""
    meta = (part.part_metadata or {}).get(METADATA_KEY)
    if not isinstance(meta, dict) or part.text is None:
        return None
    name, mime, size = meta.get("file_name"), meta.get("mime"), meta.get("size")
    if not isinstance(name, str) or not isinstance(mime, str) or not isinstance(size, int):
        return None
    return name, mime, size


def is_reference(part: types.Part) -> bool:
    """A stored file's reference (any `artifact://` file_data part: whose it is, is checked
    when it is read)."""
    uri = part.file_data.file_uri if part.file_data else None
    return bool(uri and uri.startswith(ARTIFACT_SCHEME))


ReadArtifact = Callable[["Attachment"], Awaitable[bytes | None]]


def reference_target(uri: str) -> tuple[str, int] | None:
    """(artifact name, version) at the end of an artifact URI; None when it has neither.

    Read from the end: a version is digits after the last `/versions/`, the name is what comes
    between the `/artifacts/` before it and that (the session it belongs to is checked by
    `artifact_reader`, against the URI it would have)."""
    head, found, version = uri.rpartition("/versions/")
    if not found or not version.isdigit() or len(version) > 9:
        return None
    _, found, name = head.rpartition("/artifacts/")
    if not found or not name or ":" in name:
        return None
    return name, int(version)


def file_name_of(display_name: str | None, mime: str, data: bytes) -> str:
    """The file's own name, without any folder; else one from its content and MIME type
    (`attachment-<sha256 prefix>.pdf`: the same file keeps its name, another gets its own)."""
    name = (display_name or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = " ".join(clean(name).split()).strip(" .")[:MAX_NAME]
    if name:
        return name
    extension = mimetypes.guess_extension(mime or "") or ""
    return f"attachment-{hashlib.sha256(data).hexdigest()[:8]}{extension}"
