"""Documents into an investigation: files attached in the chat, and the collections it names.

An attachment is stored once, as an ADK artifact, before the message is (`artifacts`: the
session keeps a reference), read back, parsed here and added to the investigation's own
collection; its bytes and text never reach the orchestrator's model. What the plan and the
orchestrator need (titles, pages, languages, what could not be read) is kept in session state.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from google.genai import types
from pydantic import BaseModel, Field

from ..config import get_settings
from ..formatting import data_block, one_line
from ..sanitize import clean
from ..textmatch import closest_name
from . import pool
from .artifacts import (
    MAX_NAME,
    ReadArtifact,
    artifact_name,
    file_name_of,
    is_reference,
    reference_target,
    refused_size,
)
from .collection import Reader
from .model import DocumentError, DocumentInfo, DocumentReliability
from .ocr import OcrLedger
from .store import DocumentStore, get_document_store

logger = logging.getLogger(__name__)

ATTACHMENT_RELIABILITY: DocumentReliability = "neutral"
MAX_LISTED = 20  # documents per collection kept for the plan and the orchestrator
MAX_REASONS = 3  # unreadable pages named per document (the rest are counted)
MAX_URLS = 5  # web addresses written in a document, listed in the plan


def document_store() -> DocumentStore:
    """The store of the configured records database (the one place it is looked up)."""
    return get_document_store(get_settings().database_url)


def investigation_collection(investigation_id: str) -> str:
    """The collection an investigation's attachments go to: named by its whole id (a name
    nobody guesses; the collection is its conversation's user's all the same)."""
    return f"investigation-{investigation_id}"


# --- attachments ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Attachment:
    """A file in the journalist's message: its bytes (an `inline_data` part), or a reference to
    the artifact it was stored as (`artifact`, `version`, `uri`), or the size of a file too
    large to be stored (`stored_size`)."""

    index: int
    file_name: str
    mime: str
    part: types.Part
    artifact: str | None = None
    version: int | None = None
    uri: str | None = None
    stored_size: int | None = None

    @property
    def data(self) -> bytes:
        return (self.part.inline_data.data if self.part.inline_data else None) or b""


def attachments_in(content: types.Content | None) -> list[Attachment]:
    """The files attached to a message, each with a safe file name (ADK may send none)."""
    found = []
    for index, part in enumerate(content.parts or [] if content else []):
        if part.thought:
            continue
        if (refused := refused_size(part)) is not None:
            name, mime, size = refused
            found.append(
                Attachment(index, file_name_of(name, mime, b""), mime, part, stored_size=size)
            )
            continue
        if is_reference(part) and part.file_data is not None:
            reference = part.file_data
            mime = (reference.mime_type or "").split(";")[0].strip().lower()
            name = file_name_of(reference.display_name, mime, (reference.file_uri or "").encode())
            target = reference_target(reference.file_uri or "")
            artifact, version = target if target else (None, None)
            found.append(Attachment(index, name, mime, part, artifact, version, reference.file_uri))
            continue
        blob = part.inline_data
        if blob is None:
            continue
        mime = (blob.mime_type or "").split(";")[0].strip().lower()
        name = file_name_of(blob.display_name, mime, blob.data or b"")
        found.append(Attachment(index, name, mime, part))
    return found


def placeholder(name: str) -> types.Part:
    """What the orchestrator's model sees instead of a file: its name, never its bytes."""
    return types.Part(
        text=f"[Attached file: {one_line(name, MAX_NAME)} - read by Vicaran into the "
        "investigation's documents; its text is not shown here]"
    )


def without_attachments(contents: list[types.Content]) -> list[types.Content]:
    """`contents` with every attached file replaced by its placeholder (new objects, not edits)."""
    hidden = []
    for content in contents:
        files = {a.index: a for a in attachments_in(content)}
        if not files:
            hidden.append(content)
            continue
        parts = [
            placeholder(files[i].file_name) if i in files else part
            for i, part in enumerate(content.parts or [])
        ]
        hidden.append(content.model_copy(update={"parts": parts}))
    return hidden


CUT_OFF = "cut_off"  # an attached file's status when a restart stopped its indexing


class AttachedFile(BaseModel):
    """What happened to one attached file."""

    file_name: str
    mime: str = ""
    size_bytes: int = 0
    collection: str = ""
    status: str = "added"  # added | unchanged | replaced | unreadable | cut_off (by a restart)
    reason: str = ""  # why it could not be taken in
    document_id: str = ""
    artifact: str = ""  # the ADK artifact's name, when it was saved as one
    ocr_pages: int = 0  # what reading it took of the investigation's OCR budget
    ocr_seconds: float = 0.0

    @property
    def taken_in(self) -> bool:
        return bool(self.document_id)


SaveArtifact = Callable[[str, types.Part], Awaitable[int]]


async def take_in(
    attachments: Iterable[Attachment],
    collection: str,
    save_artifact: SaveArtifact | None,
    read_artifact: ReadArtifact | None = None,
    owner: Reader | None = None,
    earlier: Iterable[AttachedFile] = (),
    reliability: DocumentReliability | None = None,
) -> list[AttachedFile]:
    """Parse and index each attachment into `owner`'s collection (a stored one read back with
    `read_artifact`, one still inline saved with `save_artifact`); one that fails is recorded
    with the reason.

    The files are read at the same time in the parse pool (and indexed one at a time), their
    OCR within one budget for the investigation, less what its `earlier` files took.
    `reliability`: theirs, said in the message they came with (else their collection's).
    """
    settings = get_settings()
    before = list(earlier)
    ledger = OcrLedger.of(
        settings,
        sum(a.ocr_pages for a in before),
        sum(a.ocr_seconds for a in before),
    )
    taken: list[AttachedFile] = []
    reading: list[tuple[AttachedFile, Attachment, bytes]] = []
    for attachment in attachments:
        stored = attachment.uri is not None
        read = await read_artifact(attachment) if stored and read_artifact is not None else None
        data = (read or b"") if stored else attachment.data
        record = AttachedFile(
            file_name=attachment.file_name,
            mime=attachment.mime,
            size_bytes=attachment.stored_size if attachment.stored_size is not None else len(data),
            collection=collection,
            artifact=(attachment.artifact or "") if read is not None else "",
        )
        taken.append(record)
        if (
            attachment.stored_size is not None
            or record.size_bytes > settings.vicaran_document_max_bytes
        ):
            record.status = "unreadable"
            record.reason = (
                f"too large ({record.size_bytes:,} bytes; the limit is "
                f"{settings.vicaran_document_max_bytes:,}, VICARAN_DOCUMENT_MAX_BYTES)"
            )
            continue
        if stored and read is None:
            record.status, record.reason = "unreadable", "not a file of this conversation"
            continue
        if not stored and save_artifact is not None:
            try:
                await save_artifact(artifact_name(attachment.file_name), attachment.part)
                record.artifact = artifact_name(attachment.file_name)
            except Exception:  # no artifact service: the document is still indexed
                logger.warning("could not save %s as an artifact", record.file_name, exc_info=True)
        reading.append((record, attachment, data))
    indexing = asyncio.Lock()  # one write at a time: files of one collection
    await asyncio.gather(
        *(
            _read_and_index(r, a, d, collection, owner, ledger, indexing, reliability)
            for r, a, d in reading
        )
    )
    return taken


async def _read_and_index(
    record: AttachedFile,
    attachment: Attachment,
    data: bytes,
    collection: str,
    owner: Reader | None,
    ledger: OcrLedger,
    indexing: asyncio.Lock,
    reliability: DocumentReliability | None = None,
) -> None:
    """One attachment parsed in the pool and indexed; what failed is said in `record`."""
    reading = pool.submit(data, attachment.file_name, mime=attachment.mime or None, ledger=ledger)
    try:
        try:
            parsed = await reading.parsed()
        finally:
            record.ocr_pages = reading.budget.pages_read
            record.ocr_seconds = round(reading.budget.seconds_used, 3)
        async with indexing:
            outcome = await asyncio.to_thread(
                functools.partial(
                    document_store().add,
                    parsed,
                    collection,
                    ATTACHMENT_RELIABILITY,
                    owner=owner,
                    own_reliability=reliability,
                )
            )
    except DocumentError as error:
        record.status, record.reason = "unreadable", _reason(str(error), record.file_name)
        return
    except Exception as error:  # the store being down costs this file, not the plan
        logger.warning("could not add %s to %s", record.file_name, collection, exc_info=True)
        record.status = "unreadable"
        record.reason = f"the document store failed ({type(error).__name__}: {error})"
        return
    record.status, record.document_id = outcome.status, outcome.document.document_id


def _reason(error: str, file_name: str) -> str:
    """A DocumentError's message without the file name it starts with (the line names it)."""
    head, colon, rest = error.partition(":")
    return one_line(rest if colon and head.strip() == file_name else error, 300)


# --- what the investigation's documents are, for the plan and the orchestrator ---------------


class DocumentFacts(BaseModel):
    """One document as the plan lists it: never its text."""

    document_id: str
    title: str
    file_name: str
    pages: int
    language: str
    unreadable: int = 0
    reasons: list[str] = Field(default_factory=list)  # "p. 3: no text layer", the first few
    urls: list[str] = Field(default_factory=list)  # web addresses written in it (never opened)

    @classmethod
    def of(cls, info: DocumentInfo) -> DocumentFacts:
        return cls(
            document_id=info.document_id,
            title=one_line(clean(info.title) or info.file_name, 160),
            file_name=one_line(info.file_name, MAX_NAME),
            pages=info.page_count,
            language=info.language,
            unreadable=len(info.unreadable),
            reasons=[
                f"p. {u.number}: {one_line(u.reason, 120)}" for u in info.unreadable[:MAX_REASONS]
            ],
        )


class CollectionFacts(BaseModel):
    name: str
    found: bool = True
    close: str = ""  # not found: the usable collection spelt most nearly like it, if any
    own: bool = False  # the investigation's own collection (its attachments)
    reliability: str = "neutral"
    count: int = 0
    pages: int = 0
    documents: list[DocumentFacts] = Field(default_factory=list)  # the first MAX_LISTED


class DocumentsInPlay(BaseModel):
    """The investigation's documents as last looked up, and its attached files."""

    collections: list[CollectionFacts] = Field(default_factory=list)
    attachments: list[AttachedFile] = Field(default_factory=list)
    problem: str = ""  # the store could not be read

    @classmethod
    def from_state(cls, value: Any) -> DocumentsInPlay:
        return cls.model_validate(value) if value else cls()

    @property
    def documents(self) -> list[DocumentFacts]:
        return [d for c in self.collections for d in c.documents]

    @property
    def count(self) -> int:
        return sum(c.count for c in self.collections)

    @property
    def missing(self) -> list[str]:
        return [c.name for c in self.collections if not c.found and not c.own]

    @property
    def missing_facts(self) -> list[CollectionFacts]:
        """The named collections not found, each with the closest usable name (if any)."""
        return [c for c in self.collections if not c.found and not c.own]

    @property
    def unreadable(self) -> list[AttachedFile]:
        return [a for a in self.attachments if not a.taken_in]

    def digest(self) -> str:
        """The documents for the orchestrator's instruction: titles and pages, never text."""
        lines = []
        for c in self.collections:
            where = "attached in this conversation" if c.own else f'collection "{c.name}"'
            if not c.found:
                lines.append(f"- {where}: not found" if not c.own else "")
            lines += [
                f"- {d.title} ({d.file_name}; {d.pages} pages; language {d.language}; {where})"
                for d in c.documents
            ]
            if c.count > len(c.documents):
                lines.append(f"- ... and {c.count - len(c.documents)} more documents in {where}")
        lines += [f"- {a.file_name}: could not be read ({a.reason})" for a in self.unreadable]
        return data_block("DOCUMENTS", "\n".join(line for line in lines if line) or "(none)")

    def signature(self) -> list[str]:
        """What a plan showing these documents shows (a change calls for a new plan)."""
        return (
            [d.document_id for d in self.documents]
            + [f"missing:{name}" for name in self.missing]
            + [f"unreadable:{a.file_name}" for a in self.unreadable]
            + ([f"problem:{self.problem}"] if self.problem else [])
        )


async def look_up(
    collections: list[str],
    own: Collection[str],
    attachments: list[AttachedFile],
    reader: Reader,
) -> DocumentsInPlay:
    """The named collections as the store has them now, those `reader` may use (another is
    "not found", as one that does not exist): never raises, a failure is a problem."""
    facts = DocumentsInPlay(attachments=attachments)
    if not collections:
        return facts
    try:
        store = document_store()
        known = await asyncio.to_thread(store.collections, reader)
        for name in collections:
            entry = CollectionFacts(name=name, own=name in own, found=name in known)
            if not entry.found and not entry.own:
                entry.close = closest_name(name, [k for k in known if k not in own]) or ""
            if entry.found:
                entry.reliability = known[name]
                infos = await asyncio.to_thread(store.documents, name)
                entry.count = len(infos)
                entry.pages = sum(i.page_count for i in infos)
                entry.documents = [DocumentFacts.of(i) for i in infos[:MAX_LISTED]]
                for document in entry.documents:
                    document.urls = await asyncio.to_thread(
                        store.written_urls, document.document_id, MAX_URLS
                    )
            facts.collections.append(entry)
    except Exception as error:
        logger.warning("could not read the document collections", exc_info=True)
        facts.collections = [CollectionFacts(name=n, own=n in own) for n in collections]
        facts.problem = one_line(f"{type(error).__name__}: {error}", 300)
    return facts
