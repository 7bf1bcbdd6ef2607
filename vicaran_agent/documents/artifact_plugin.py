"""The ADK side of attachments (`artifacts` says why they are stored): the app's plugin that
saves each attached file as an artifact, and the reader the intake gets back through.

Kept apart from `artifacts` so that reading documents (the intake, the CLI, the parser workers)
does not import ADK.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from google.adk.agents.invocation_context import InvocationContext
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from ..adk_compat import get_artifact_uri
from ..config import get_settings
from .artifacts import (
    PLUGIN_NAME,
    ReadArtifact,
    artifact_name,
    file_name_of,
    not_stored,
    reference,
)

if TYPE_CHECKING:
    from google.adk.agents.callback_context import CallbackContext

    from .intake import Attachment

logger = logging.getLogger(__name__)


class AttachmentsAsArtifacts(BasePlugin):
    """Each attached file saved once as an artifact; the message keeps its reference."""

    def __init__(self) -> None:
        super().__init__(name=PLUGIN_NAME)

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        service = invocation_context.artifact_service
        if service is None or not user_message.parts:
            return None  # no store: the intake reads the inline bytes, as it always could
        limit = get_settings().vicaran_document_max_bytes
        session = invocation_context.session
        parts: list[types.Part] = []
        changed = False
        for part in user_message.parts:
            blob = part.inline_data
            if blob is None or part.thought:
                parts.append(part)
                continue
            data = blob.data or b""
            mime = (blob.mime_type or "").split(";")[0].strip().lower()
            name = file_name_of(blob.display_name, mime, data)
            if len(data) > limit:
                parts.append(not_stored(name, mime, len(data)))
                changed = True
                continue
            stored = artifact_name(name)
            try:
                version = await service.save_artifact(
                    app_name=invocation_context.app_name,
                    user_id=invocation_context.user_id,
                    session_id=session.id,
                    filename=stored,
                    artifact=types.Part(
                        inline_data=types.Blob(
                            data=data, mime_type=blob.mime_type, display_name=name
                        )
                    ),
                )
            except Exception:  # the intake reads (and saves) it from the message, as before
                logger.warning("could not save %s as an artifact", name, exc_info=True)
                parts.append(part)
                continue
            uri = get_artifact_uri(
                app_name=invocation_context.app_name,
                user_id=invocation_context.user_id,
                filename=stored,
                version=version,
                session_id=session.id,
            )
            parts.append(reference(uri, name, mime))
            changed = True
        if not changed:
            return None
        return user_message.model_copy(update={"parts": parts})


def artifact_reader(callback_context: CallbackContext) -> ReadArtifact:
    """Reads a referenced file of THIS conversation (None for any other reference), and names
    it in the turn's artifact delta, as saving it there would have (the dev UI lists those)."""
    session = callback_context.session

    async def read(attachment: Attachment) -> bytes | None:
        name, version = attachment.artifact, attachment.version
        if name is None or version is None:
            return None
        own = get_artifact_uri(
            app_name=session.app_name,
            user_id=session.user_id,
            filename=name,
            version=version,
            session_id=session.id,
        )
        if attachment.uri != own:
            return None  # another conversation's file, or a reference not made here
        part = await callback_context.load_artifact(name, version)
        data = part.inline_data.data if part is not None and part.inline_data else None
        if data is not None:
            callback_context.actions.artifact_delta[name] = version
        return data

    return read
