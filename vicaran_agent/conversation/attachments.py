"""Files in the planning conversation: taken into the investigation's collection turn by turn, and
files a restart cut off said as such.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import cast

from google.adk.agents.callback_context import CallbackContext
from google.genai import types

from .. import state_keys as keys
from ..briefing import (
    choose_collections,
    choose_reliability,
    is_skip,
)
from ..documents.artifact_plugin import artifact_reader
from ..documents.collection import Reader
from ..documents.intake import (
    CUT_OFF,
    AttachedFile,
    Attachment,
    DocumentsInPlay,
    attachments_in,
    investigation_collection,
    look_up,
    take_in,
)
from ..documents.model import DocumentReliability
from ..formatting import one_line
from ..i18n import message
from ..schemas import InvestigationConfig
from .messages import user_text


def cut_off_by_a_restart(callback_context: CallbackContext, files: list[Attachment]) -> list[str]:
    """The files of earlier planning messages that were never indexed: the server stopped while
    it read them, before their turn's state was saved. Each such message is reported once (this
    turn's files are dealt with by this turn; a file sent again now is not reported)."""
    state = callback_context.state
    if state.get(keys.INVESTIGATION_CONFIG) and state.get(keys.INVESTIGATION_STATUS) != "planning":
        return []  # files after approval are answered, not indexed
    kept = state.get(keys.ATTACHMENT_TURNS)
    handled = list(kept or [])
    # A session from before the turns were kept: a message whose files are all on record was
    # dealt with.
    recorded = set()
    if kept is None:
        known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
        recorded = {a.file_name for a in known.attachments}
    again = {f.file_name for f in files}
    current = callback_context.invocation_id
    names: list[str] = []
    turns: list[str] = [current] if files else []
    for event in callback_context.session.events:
        if event.author != "user" or event.invocation_id in (current, *handled, *turns):
            continue
        sent = [a.file_name for a in attachments_in(event.content)]
        if not sent:
            continue
        turns.append(event.invocation_id)
        if not set(sent) <= recorded:
            names += [n for n in sent if n not in again and n not in names]
    if turns:
        state[keys.ATTACHMENT_TURNS] = handled + turns
    return names


def cut_off_text(callback_context: CallbackContext) -> str:
    """The text of the journalist's earlier messages (one was cut off: its language)."""
    return "\n".join(
        user_text(e.content) for e in callback_context.session.events if e.author == "user"
    )


def with_cut_off(
    attached: list[AttachedFile], cut_off: list[str], language: str
) -> list[AttachedFile]:
    """`attached` with a record of each file cut off by a restart (listed until sent again)."""
    known = {a.file_name for a in attached}
    reason = message("attachment_cut_off_reason", language)
    return attached + [
        AttachedFile(file_name=name, status=CUT_OFF, reason=reason)
        for name in cut_off
        if name not in known
    ]


def cut_off_notice(cut_off: list[str], language: str, *, brief: bool = False) -> types.Content:
    names = ", ".join(one_line(name, 120) for name in cut_off)
    text = message("attachments_cut_off", language, files=names, count=len(cut_off))
    if brief:
        text += " " + message("attachments_cut_off_brief", language)
    return types.Content(role="model", parts=[types.Part(text=text)])


async def new_turn(
    callback_context: CallbackContext,
    text: str,
    files: list[Attachment],
    cut_off: Sequence[str] = (),
) -> None:
    """A planning turn: collections it names and files it carries join the investigation, and
    an answer to the clarifying questions (unless "skip") becomes part of the brief."""
    state = callback_context.state
    if state.get(keys.INVESTIGATION_STATUS) != "planning":
        return  # files after approval are answered by before_orchestrator_model
    config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
    named, text = choose_collections(text)
    config.collections += [n for n in named if n not in config.collections]
    if state.get(keys.CLARIFY) == "asking":
        state[keys.CLARIFY] = "done"
        if text and not is_skip(text):
            config.brief = f"{config.brief}\n\n{text}"
    await documents_this_turn(callback_context, config, files, cut_off)


async def documents_this_turn(
    callback_context: CallbackContext,
    config: InvestigationConfig,
    files: list[Attachment],
    cut_off: Sequence[str] = (),
) -> None:
    """This turn's files into the investigation's collection (and files a restart cut off
    recorded as such); its collections looked up."""
    state = callback_context.state
    known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
    attached = with_cut_off(list(known.attachments), list(cut_off), config.language)
    reader = Reader(callback_context.user_id, config.investigation_id)
    if files:
        own = investigation_collection(config.investigation_id)
        taken = await take_in(
            files,
            own,
            callback_context.save_artifact,
            read_artifact=artifact_reader(callback_context),
            owner=reader,
            earlier=known.attachments,
            reliability=said_reliability(callback_context),
        )
        attached = _sent_again(attached, taken) + taken
    for record in attached:
        if record.taken_in and record.collection not in config.collections:
            config.collections.append(record.collection)
    owns = {a.collection for a in attached}
    documents = await look_up(config.collections, owns, attached, reader)
    dumped = config.model_dump(mode="json")
    if dumped != state.get(keys.INVESTIGATION_CONFIG):
        state[keys.INVESTIGATION_CONFIG] = dumped
    if documents != known:
        state[keys.INVESTIGATION_DOCUMENTS] = documents.model_dump(mode="json")


def _sent_again(attached: list[AttachedFile], taken: list[AttachedFile]) -> list[AttachedFile]:
    """`attached` without the records of files a restart cut off that came again."""
    again = {a.file_name for a in taken}
    return [a for a in attached if a.status != CUT_OFF or a.file_name not in again]


def said_reliability(callback_context: CallbackContext) -> DocumentReliability | None:
    """The rating a `Reliability: high|neutral|low` line gives the files of this message."""
    chosen, _ = choose_reliability(user_text(callback_context.user_content))
    return cast("DocumentReliability | None", chosen)


async def documents_before_the_brief(
    callback_context: CallbackContext,
    files: list[Attachment],
    language: str,
    cut_off: Sequence[str] = (),
) -> types.Content:
    """Files sent before any brief: taken in now, and the brief asked for."""
    state = callback_context.state
    investigation_id = state.get(keys.INVESTIGATION_ID) or str(uuid.uuid4())
    state[keys.INVESTIGATION_ID] = investigation_id
    known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
    taken = await take_in(
        files,
        investigation_collection(investigation_id),
        callback_context.save_artifact,
        read_artifact=artifact_reader(callback_context),
        owner=Reader(callback_context.user_id, investigation_id),
        earlier=known.attachments,
        reliability=said_reliability(callback_context),
    )
    cut = with_cut_off([], list(cut_off), language)
    known.attachments = _sent_again(known.attachments, taken) + taken + cut
    state[keys.INVESTIGATION_DOCUMENTS] = known.model_dump(mode="json")
    read = [a.file_name for a in taken if a.taken_in]
    lines = [
        "- " + message("plan_attachment_unreadable", language, file=a.file_name, reason=a.reason)
        for a in taken + cut
        if not a.taken_in
    ]
    if read:
        text = message("attachments_need_brief", language, files=", ".join(read))
        text = "\n".join([text, *lines])
    else:
        text = message("attachments_none_read", language, lines="\n".join(lines))
    return types.Content(role="model", parts=[types.Part(text=text)])
