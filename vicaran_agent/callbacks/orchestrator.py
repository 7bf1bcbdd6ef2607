"""The orchestrator's callbacks: state set up once, URLs read first, and the approval gate.

The gate is code: the pipeline starts only when a plan was presented (the orchestrator's last
reply carried `[PLAN_APPROVAL_REQUIRED]`) and the journalist's latest message approves it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.events import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from .. import delivery, liveness
from .. import state_keys as keys
from ..briefing import (
    choose_collections,
    choose_mode,
    is_skip,
    new_topic,
    same_topic,
    vagueness,
)
from ..config import get_settings
from ..documents.artifact_plugin import artifact_reader
from ..documents.intake import (
    CUT_OFF,
    AttachedFile,
    Attachment,
    DocumentsInPlay,
    attachments_in,
    investigation_collection,
    look_up,
    take_in,
    without_attachments,
)
from ..documents.store import Reader
from ..formatting import markdown_text, one_line, user_sources_digest
from ..i18n import detect_language, language_name, message, report_language, text_language
from ..llm import (
    MODEL_FAILED,
    ORCHESTRATOR_OUTPUT_TOKENS,
    credentials_problem,
    describe_model_error,
    output_cap,
)
from ..plan import (
    PlanDocument,
    PlanFacts,
    gazettes_planned,
    looks_like_plan,
    plan_outline,
    plan_topic,
    render_plan,
)
from ..sanitize import clean
from ..schemas import InvestigationConfig, Mode, Source
from ..storage import InvestigationTakenError
from ..tools.live_search import supports_live_search
from ..tools.urls import extract_urls, normalize_url, unsupported_urls
from .persistence import repository, start_investigation

logger = logging.getLogger(__name__)

PLAN_MARKER = "[PLAN_APPROVAL_REQUIRED]"
PIPELINE_NAME = "investigation_pipeline"
ANALYZE_SOURCE = "analyze_source"
MAX_REFUSALS = 2
FINISHED = ("completed", "partial", "failed")

_ID_LINE = re.compile(
    r"investigation\s+id\s*:\s*([0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12})",
    re.IGNORECASE,
)
_APPROVALS = frozenset(
    [
        "approved",
        "approve",
        "approves",
        "yes",
        "yep",
        "yeah",
        "go",
        "start",
        "begin",
        "proceed",
        "ok",
        "okay",
        "sure",
        "sim",
        "aprovado",
        "aprovada",
        "aprovo",
        "aprovar",
        "aprove",
        "comece",
        "começar",
        "comecar",
        "começa",
        "iniciar",
        "inicie",
        "vai",
        "vamos",
        "bora",
        "pode",
        "prossiga",
        "prosseguir",
    ]
)
_FILLER = frozenset(
    [
        "please",
        "plan",
        "the",
        "this",
        "it",
        "ahead",
        "lets",
        "let's",
        "let",
        "us",
        "do",
        "now",
        "looks",
        "look",
        "good",
        "great",
        "fine",
        "perfect",
        "thanks",
        "thank",
        "you",
        "investigation",
        "with",
        "&",
        "and",
        "sounds",
        "all",
        "right",
        "go-ahead",
        "por",
        "favor",
        "o",
        "a",
        "este",
        "esse",
        "plano",
        "agora",
        "está",
        "esta",
        "ótimo",
        "otimo",
        "bom",
        "certo",
        "tudo",
        "isso",
        "obrigado",
        "obrigada",
        "investigação",
        "investigacao",
        "com",
        "e",
        "parece",
        "pode",
    ]
)
_NEGATIONS = frozenset(
    [
        "no",
        "not",
        "don't",
        "dont",
        "never",
        "wait",
        "but",
        "change",
        "instead",
        "except",
        "however",
        "stop",
        "cancel",
        "não",
        "nao",
        "nunca",
        "espera",
        "espere",
        "mas",
        "mude",
        "altere",
        "mudar",
        "exceto",
        "porém",
        "porem",
        "pare",
        "cancele",
    ]
)


def user_text(content: types.Content | None) -> str:
    if not content or not content.parts:
        return ""
    return "\n".join(p.text for p in content.parts if p.text and not p.thought).strip()


def is_approval(text: str) -> bool:
    """Whether a message approves the plan: approval words only, no negation or edit."""
    words = [w for w in re.findall(r"[\w'&-]+", text.lower()) if w]
    if not words or len(words) > 12:
        return False
    if any(w in _NEGATIONS for w in words) or not any(w in _APPROVALS for w in words):
        return False
    return all(w in _APPROVALS or w in _FILLER for w in words)


@dataclass(frozen=True)
class FirstMessage:
    """What code reads in the journalist's first message."""

    investigation_id: str | None
    mode: Mode
    brief: str
    title: str
    collections: list[str] = field(default_factory=list)


def read_first_message(text: str) -> FirstMessage:
    """Id, mode, collections, brief and title: the id, mode and collection lines leave the brief."""
    match = _ID_LINE.search(text)
    investigation_id = str(uuid.UUID(match.group(1))) if match else None
    collections, rest = choose_collections(_ID_LINE.sub("", text))
    mode, brief = choose_mode(rest)
    return FirstMessage(investigation_id, mode, brief, title_of(brief), collections)


def parse_first_message(text: str) -> tuple[str | None, Mode, str, str]:
    """(investigation id or None, mode, brief, title) from the journalist's first message."""
    first = read_first_message(text)
    return first.investigation_id, first.mode, first.brief, first.title


def title_of(brief: str) -> str:
    """The brief's first line without its links, at most 100 characters."""
    first_line = next((line for line in brief.splitlines() if line.strip()), "")
    title = " ".join(w for w in first_line.split() if "://" not in w).strip(" -:.") or first_line
    return title if len(title) <= 100 else title[:99].rstrip() + "…"


def text_response(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def user_sources_from_events(events: Iterable[Event], state: Mapping[str, Any]) -> list[Source]:
    """Every source analyze_source read in the session, latest per URL, in first-seen order.

    A page that could not be read is one too (an error result with its record in state): the
    journalist gave it, so the plan lists it with the reason.
    """
    found: dict[str, Source] = {}
    for event in events:
        for response in event.get_function_responses():
            body = response.response or {}
            if response.name != ANALYZE_SOURCE or not body.get("url"):
                continue
            record = state.get(keys.USER_SOURCE_PREFIX + normalize_url(str(body.get("url"))))
            if record:
                source = Source.model_validate(record)
                found[source.url] = source
    return list(found.values())


async def initialize_investigation_state(callback_context: CallbackContext) -> types.Content | None:
    """Once per investigation: id, mode, config and language from the first message."""
    delivery.start_delivery()  # resume the callback outbox in this process (no-op when off)
    await liveness.sweep()  # runs whose process died are not shown as live
    state = callback_context.state
    files = attachments_in(callback_context.user_content)
    cut_off = _cut_off_by_a_restart(callback_context, files)
    if state.get(keys.INVESTIGATION_CONFIG):
        await _new_turn(callback_context, user_text(callback_context.user_content), files, cut_off)
        if cut_off and not files:
            return _cut_off_notice(cut_off, state[keys.INVESTIGATION_CONFIG]["language"])
        return None
    text = user_text(callback_context.user_content)
    if cut_off and not files:  # the brief was in that message: this one is not taken for it
        language = await asyncio.to_thread(detect_language, text or _cut_off_text(callback_context))
        known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
        known.attachments = _with_cut_off(known.attachments, cut_off, language)
        state[keys.INVESTIGATION_DOCUMENTS] = known.model_dump(mode="json")
        return _cut_off_notice(cut_off, language, brief=True)
    first = read_first_message(text)
    investigation_id, mode, brief, title = (
        first.investigation_id,
        first.mode,
        first.brief,
        first.title,
    )
    # The first detection loads the language model (about a second): off the event loop.
    if len(re.findall(r"\w+", brief)) < 2 and not extract_urls(brief):
        language = await asyncio.to_thread(detect_language, text)
        if files:  # the files first, the brief next: they wait in this session's collection
            return await _documents_before_the_brief(callback_context, files, language, cut_off)
        hint = message("empty_brief", language)
        return types.Content(role="model", parts=[types.Part(text=hint)])
    brief_language = await asyncio.to_thread(text_language, brief)
    language = report_language(brief_language)
    if investigation_id and (taken := await _taken(investigation_id, callback_context)):
        text = message("id_taken", language, id=investigation_id, status=taken)
        return types.Content(role="model", parts=[types.Part(text=text)])
    investigation_id = investigation_id or state.get(keys.INVESTIGATION_ID) or str(uuid.uuid4())
    config = InvestigationConfig.for_mode(
        mode,
        investigation_id=investigation_id,
        title=title,
        brief=brief,
        language=language,
        text_language=brief_language,
    )
    config.collections = list(first.collections)
    # Documents make a brief specific enough, as a link does: they say who and what.
    known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
    has_documents = bool(files or first.collections or known.attachments)
    if limit := get_settings().vicaran_source_limit:
        config.source_limit = limit
    state.update(
        {
            keys.USER_PROMPT: text,
            keys.INVESTIGATION_ID: investigation_id,
            keys.INVESTIGATION_MODE: mode,
            keys.INVESTIGATION_CONFIG: config.model_dump(mode="json"),
            keys.INVESTIGATION_LANGUAGE: language_name(language),
            keys.INVESTIGATION_STATUS: "planning",
            keys.USER_SOURCES: [],
            keys.USER_SOURCES_DIGEST: user_sources_digest([], language),
            keys.INVESTIGATION_PLAN: "",
            keys.PLAN_OUTLINE: plan_outline(""),
            keys.PLAN_APPROVED: False,
            keys.AWAITING_APPROVAL: False,
            keys.PIPELINE_STARTED: False,
            keys.CLARIFY: "asking" if vagueness(brief).vague and not has_documents else "",
            **{key: "" for key in keys.STAGE_OUTPUT_KEYS},
        }
    )
    await _documents_this_turn(callback_context, config, files, cut_off)
    return None


def _cut_off_by_a_restart(callback_context: CallbackContext, files: list[Attachment]) -> list[str]:
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


def _cut_off_text(callback_context: CallbackContext) -> str:
    """The text of the journalist's earlier messages (one was cut off: its language)."""
    return "\n".join(
        user_text(e.content) for e in callback_context.session.events if e.author == "user"
    )


def _with_cut_off(
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


def _cut_off_notice(cut_off: list[str], language: str, *, brief: bool = False) -> types.Content:
    names = ", ".join(one_line(name, 120) for name in cut_off)
    text = message("attachments_cut_off", language, files=names, count=len(cut_off))
    if brief:
        text += " " + message("attachments_cut_off_brief", language)
    return types.Content(role="model", parts=[types.Part(text=text)])


async def _new_turn(
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
    await _documents_this_turn(callback_context, config, files, cut_off)


async def _documents_this_turn(
    callback_context: CallbackContext,
    config: InvestigationConfig,
    files: list[Attachment],
    cut_off: Sequence[str] = (),
) -> None:
    """This turn's files into the investigation's collection (and files a restart cut off
    recorded as such); its collections looked up."""
    state = callback_context.state
    known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
    attached = _with_cut_off(list(known.attachments), list(cut_off), config.language)
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


async def _documents_before_the_brief(
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
    )
    cut = _with_cut_off([], list(cut_off), language)
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


async def _taken(investigation_id: str, callback_context: CallbackContext) -> str | None:
    """The status of an investigation another conversation owns (None: this one may use it).

    An interrupted run may be taken over: that is how a journalist continues it.
    """
    try:
        found = await asyncio.to_thread(repository().owner, investigation_id)
    except Exception:  # the store being down: checked again, atomically, at approval
        logger.warning("could not check who owns %s", investigation_id, exc_info=True)
        return None
    if found is None:
        return None
    session_id, status = found
    if session_id in (None, callback_context.session.id) or status == "interrupted":
        return None
    return status


def _sync_user_sources(callback_context: CallbackContext) -> list[Source]:
    sources = user_sources_from_events(callback_context.session.events, callback_context.state)
    records = [s.model_dump(mode="json") for s in sources]
    state = callback_context.state
    if records != state.get(keys.USER_SOURCES):
        config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
        state[keys.USER_SOURCES] = records
        state[keys.USER_SOURCES_DIGEST] = user_sources_digest(sources, config.language)
    return sources


def _refusals_this_turn(contents: list[types.Content]) -> int:
    """Refused transfers since the journalist's latest message."""
    refusals = 0
    for content in reversed(contents):
        parts = content.parts or []
        if content.role == "user" and any(p.text for p in parts):
            break
        refusals += sum(
            1
            for p in parts
            if p.function_response
            and p.function_response.name == "transfer_to_agent"
            and (p.function_response.response or {}).get("status") == "error"
        )
    return refusals


def _approval_can_start(state: Any) -> bool:
    return (
        bool(state.get(keys.PLAN_APPROVED))
        and state.get(keys.INVESTIGATION_STATUS) == "in_progress"
        and not state.get(keys.PIPELINE_STARTED)
    )


async def before_orchestrator_model(
    callback_context: CallbackContext, llm_request: LlmRequest
) -> LlmResponse | None:
    """Answers in code what code can decide; the model is called for everything else.

    Attached files never reach the model: each is replaced by a line naming it (their text
    reaches a model only as passages, during the run).
    """
    last = llm_request.contents[-1] if llm_request.contents else None
    llm_request.contents = without_attachments(llm_request.contents)
    settings = get_settings()
    if problem := credentials_problem(settings.vicaran_fast_model, settings):
        return text_response(problem.said_in(_language(callback_context)))
    state = callback_context.state
    if not state.get(keys.INVESTIGATION_CONFIG):
        return None
    analyzed = {s.url for s in _sync_user_sources(callback_context)}
    if _refusals_this_turn(llm_request.contents) >= MAX_REFUSALS:
        # A model that keeps trying to start the pipeline is stopped here, in code.
        config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
        return text_response(message("gate_refused", config.language))
    if not last or last.role != "user" or any(p.function_response for p in last.parts or []):
        return None  # not the first model call of this turn
    text = user_text(last)
    status = state.get(keys.INVESTIGATION_STATUS)
    if status != "planning" and (files := attachments_in(last)):
        return text_response(_files_not_added(state, files))
    if status in FINISHED:
        return _after_the_run(state, text)
    if status != "planning":
        return None
    if state.get(keys.AWAITING_APPROVAL) and is_approval(text):
        config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
        try:
            await start_investigation(callback_context, config)
        except InvestigationTakenError as taken:
            state[keys.AWAITING_APPROVAL] = False
            return text_response(
                message("id_taken", config.language, id=taken.investigation_id, status=taken.status)
            )
        state[keys.PLAN_APPROVED] = True
        state[keys.AWAITING_APPROVAL] = False
        state[keys.INVESTIGATION_STATUS] = "in_progress"
        # [INVESTIGATION_STARTED] is the pipeline's to say, once its detached run has the work:
        # a client that leaves on it then leaves a run that goes on.
        return LlmResponse(
            content=types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_call=types.FunctionCall(
                            name="transfer_to_agent", args={"agent_name": PIPELINE_NAME}
                        )
                    )
                ],
            )
        )
    if (answer := _another_topic(state, text)) is not None:
        return answer
    pending = [
        url
        for url in extract_urls(text, settings.vicaran_max_user_urls)
        if normalize_url(url) not in analyzed
    ]
    if pending:  # read the journalist's URLs before the model plans
        calls = [
            types.Part(function_call=types.FunctionCall(name=ANALYZE_SOURCE, args={"url": url}))
            for url in pending
        ]
        return LlmResponse(content=types.Content(role="model", parts=calls))
    return None


def _another_topic(state: Any, text: str) -> LlmResponse | None:
    """A completely different subject once a plan is on screen: one investigation is one topic,
    so code suggests a new session and writes no plan; the plan stays as it was, and a "yes" to
    the suggestion does not approve it. An edited brief on the same subject goes to the model,
    which re-plans."""
    plan = state.get(keys.INVESTIGATION_PLAN) or ""
    if not plan:
        return None
    config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
    if not new_topic(text, config.brief, config.title, plan):
        return None
    state[keys.AWAITING_APPROVAL] = False
    return text_response(message("different_topic", config.language, title=config.title))


def _after_the_run(state: Any, text: str) -> LlmResponse | None:
    """A finished run's session answers questions about it; anything new gets a new session."""
    config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
    about = (config.brief, config.title, plan_topic(state.get(keys.INVESTIGATION_PLAN) or ""))
    if is_approval(text) or extract_urls(text, 1) or not same_topic(text, *about):
        return text_response(already_done(state))
    return None  # a question about this investigation: the model answers it


def _files_not_added(state: Any, files: list[Attachment]) -> str:
    """Files sent once the run has started: not added, said so, and how to use them."""
    language = (state.get(keys.INVESTIGATION_CONFIG) or {}).get("language", "en")
    names = ", ".join(f.file_name for f in files)
    text = message("attachments_not_added", language, files=names, count=len(files))
    if state.get(keys.INVESTIGATION_STATUS) in FINISHED:
        text += "\n\n" + already_done(state)
    return text


def already_done(state: Any) -> str:
    """This session's investigation has run: where its report is, and how to start another."""
    config = state.get(keys.INVESTIGATION_CONFIG) or {}
    url = get_settings().investigation_url(str(config.get("investigation_id") or ""))
    status = state.get(keys.INVESTIGATION_STATUS)
    return message("already_done", config.get("language", "en"), status=status, url=url)


def after_orchestrator_model(
    callback_context: CallbackContext, llm_response: LlmResponse
) -> LlmResponse | None:
    """The orchestrator's reply made safe, and whether it presented a plan awaiting approval.

    Markers are code's: any the model copied from a page is removed, and the plan marker is
    written by code at the end when the model presented a plan. Only the journalist's sources
    stay linked. A reply cut off at the output cap becomes one clear sentence.
    """
    state = callback_context.state
    if llm_response.partial:
        return None
    parts = (
        llm_response.content.parts if llm_response.content and llm_response.content.parts else []
    )
    if any(p.function_call for p in parts):
        return None
    language = (state.get(keys.INVESTIGATION_CONFIG) or {}).get("language", "en")
    if llm_response.finish_reason == types.FinishReason.MAX_TOKENS:
        state[keys.AWAITING_APPROVAL] = False
        limit = output_cap(get_settings(), ORCHESTRATOR_OUTPUT_TOKENS)
        return text_response(message("reply_too_long", language, limit=limit))
    text = "".join(p.text for p in parts if p.text and not p.thought)
    if not text:
        return None
    sources = user_sources_from_events(callback_context.session.events, state)
    safe = clean(text, {s.url for s in sources} | {s.link for s in sources})
    if (llm_response.custom_metadata or {}).get(MODEL_FAILED):
        state[keys.AWAITING_APPROVAL] = False  # the sentence is the answer: no plan came
    elif state.get(keys.INVESTIGATION_STATUS) == "planning":
        safe = _planning_reply(callback_context, text, safe, sources)
    if safe == text:
        return None
    content = types.Content(role="model", parts=[types.Part(text=safe)])
    return llm_response.model_copy(update={"content": content})


def _planning_reply(
    callback_context: CallbackContext, text: str, safe: str, sources: list[Source]
) -> str:
    """Questions, a plan or an answer: the parts that matter are written by code."""
    state = callback_context.state
    config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
    if state.get(keys.CLARIFY) == "asking":
        state[keys.AWAITING_APPROVAL] = False
        return clarifying_questions(safe, config)
    # Until there is a plan, every reply is one; after, a reply that presents one replaces it,
    # and so do documents the plan on screen does not show (the earlier plan, brought up to date).
    documents = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
    earlier = state.get(keys.INVESTIGATION_PLAN) or ""
    changed = documents.signature() != (state.get(keys.PLAN_DOCUMENTS) or [])
    if not earlier or looks_like_plan(text) or changed:
        shown, more = _plan_documents(documents)
        facts = PlanFacts(
            language=config.language,
            text_language=config.search_language,
            title=config.title,
            mode=config.mode,
            sources=sources,
            not_used=not_used(
                _planning_messages(callback_context), sources, config.language, documents
            ),
            documents=shown,
            more_documents=more,
            gazettes=gazettes_planned(config.brief, config.language)
            and get_settings().vicaran_gazettes_read > 0,
        )
        plan = render_plan(safe if not earlier or looks_like_plan(text) else earlier, facts)
        state[keys.INVESTIGATION_PLAN] = plan
        state[keys.PLAN_OUTLINE] = plan_outline(plan)
        state[keys.PLAN_DOCUMENTS] = documents.signature()
        state[keys.AWAITING_APPROVAL] = True
        return f"{plan}\n\n{PLAN_MARKER}"
    if PLAN_MARKER in text:  # an answer about the plan, which stays approvable
        state[keys.AWAITING_APPROVAL] = True
        return f"{safe.rstrip()}\n\n{PLAN_MARKER}"
    state[keys.AWAITING_APPROVAL] = False
    return safe


MAX_QUESTIONS = 3


def clarifying_questions(reply: str, config: InvestigationConfig) -> str:
    """At most three questions: the model's own, or code's for what the brief leaves open."""
    asked = []
    for raw in reply.splitlines():
        line = raw.strip().lstrip("-*•0123456789.) ").strip()
        if line.endswith("?") and line not in asked:
            asked.append(one_line(line, 300))
    if not asked:
        lang = config.language
        named = vagueness(config.brief)
        if not named.named:
            asked = [message("clarify_who", lang), message("clarify_where", lang)]
        elif named.ambiguous:  # one name, nothing to place it: which one, and where
            asked = [message("clarify_which", lang, name=one_line(named.first, 80))]
        asked += [] if named.period else [message("clarify_when", lang)]
        asked = asked or [message("clarify_who", lang)]
    numbered = [f"{i}. {q}" for i, q in enumerate(asked[:MAX_QUESTIONS], 1)]
    lang = config.language
    return "\n\n".join(
        [message("clarify_intro", lang), "\n".join(numbered), message("clarify_outro", lang)]
    )


def _planning_messages(callback_context: CallbackContext) -> list[str]:
    """The journalist's messages in this session (all of them came before any approval)."""
    texts = [user_text(e.content) for e in callback_context.session.events if e.author == "user"]
    current = user_text(callback_context.user_content)
    if current and (not texts or texts[-1] != current):
        texts.append(current)
    return [t for t in texts if t]


def _plan_documents(documents: DocumentsInPlay) -> tuple[list[PlanDocument], dict[str, int]]:
    """The documents as the plan lists them, and how many each collection has beyond those."""
    shown = [
        PlanDocument(
            title=d.title,
            file_name=d.file_name,
            pages=d.pages,
            language=d.language,
            unreadable=d.unreadable,
            reasons=tuple(d.reasons),
            collection=c.name,
            urls=tuple(d.urls),
            follow_urls=get_settings().vicaran_follow_document_urls,
        )
        for c in documents.collections
        for d in c.documents
    ]
    more = {c.name: c.count - len(c.documents) for c in documents.collections}
    return shown, {name: count for name, count in more.items() if count > 0}


def not_used(
    messages: list[str],
    sources: list[Source],
    language: str,
    documents: DocumentsInPlay | None = None,
) -> list[str]:
    """Every input the run will not use, and every service it will go without, in one line each.

    Unreadable sources are listed with the journalist's sources, where they were given; so are
    files that could not be read and collections that do not exist.
    """
    settings = get_settings()
    documents = documents or DocumentsInPlay()
    limit = settings.vicaran_max_user_urls
    lines: list[str] = []
    for text in messages:
        lines += [message("plan_unsupported", language, url=u) for u in unsupported_urls(text)]
        over = extract_urls(text, limit + 1000)[limit:]
        lines += [message("plan_over_limit", language, url=u, limit=limit) for u in over]
    for attached in documents.unreadable:
        lines.append(
            message(
                "plan_attachment_unreadable",
                language,
                file=markdown_text(attached.file_name, 120),
                reason=one_line(attached.reason, 300),
            )
        )
    for name in documents.missing:
        lines.append(message("plan_collection_missing", language, name=one_line(name, 100)))
    if documents.problem:
        lines.append(message("plan_documents_problem", language, error=documents.problem))
    if not settings.tavily_api_key.strip():
        instead = []
        if any(s.is_reachable for s in sources) and not documents.count:
            instead.append(message("plan_no_search_yours", language))
        if settings.factcheck_api_key.strip():
            instead.append(message("plan_no_search_factcheck", language))
        if settings.vicaran_live_search_fallback and supports_live_search(
            settings.vicaran_pro_model
        ):
            instead.append(message("plan_no_search_live", language))
        said = message("plan_and", language).join(instead)
        if documents.count:  # said plainly: the journalist's documents and links, nothing else
            also = message("plan_no_search_documents_also", language, instead=said) if said else ""
            lines.append(message("plan_no_search_documents", language, also=also))
        elif said:
            lines.append(message("plan_no_search", language, instead=said))
        else:
            lines.append(message("plan_no_search_nothing", language))
    model = settings.vicaran_pro_model
    if model != settings.vicaran_fast_model and (problem := credentials_problem(model, settings)):
        lines.append(message("plan_model_problem", language, model=model, problem=problem))
    return list(dict.fromkeys(lines))


def _language(callback_context: CallbackContext) -> str:
    """The investigation's language; before there is one, the language of the message."""
    config = callback_context.state.get(keys.INVESTIGATION_CONFIG) or {}
    return config.get("language") or detect_language(user_text(callback_context.user_content))


def explain_model_error(
    callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
) -> LlmResponse:
    """A failed orchestrator model call becomes one clear sentence, never a stack trace."""
    problem = describe_model_error(error, llm_request.model or "")[0]
    response = text_response(problem.said_in(_language(callback_context)))
    response.custom_metadata = {MODEL_FAILED: True}
    return response


def gate_tools(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> dict[str, Any] | None:
    """The orchestrator's tools, in code: a page read only of an address the journalist wrote,
    a transfer only after approval."""
    if tool.name == ANALYZE_SOURCE:
        return journalists_address_only(args, tool_context)
    return gate_transfer(tool, args, tool_context)


def journalists_address_only(
    args: dict[str, Any], tool_context: ToolContext
) -> dict[str, Any] | None:
    """Refuses to read an address the journalist did not write in this conversation.

    The model reads pages and file names; an address it makes up or copies from them (with the
    brief in its query string, say) would tell another host what is being investigated.
    """
    url = str(args.get("url") or "")
    limit = get_settings().vicaran_max_user_urls
    written = {
        normalize_url(u)
        for text in _planning_messages(tool_context)
        for u in extract_urls(text, limit)
    }
    if url and normalize_url(url) in written:
        return None
    return {
        "status": "error",
        "error_message": (
            "Refused: analyze_source reads only the addresses the journalist wrote in this "
            "conversation. An address found in a page or a document is never opened from here; "
            "do not ask again, go on with the plan."
        ),
    }


def gate_transfer(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> dict[str, Any] | None:
    """Refuses any transfer to the pipeline the journalist has not approved."""
    if tool.name != "transfer_to_agent":
        return None
    if args.get("agent_name") == PIPELINE_NAME and _approval_can_start(tool_context.state):
        return None
    if tool_context.state.get(keys.INVESTIGATION_STATUS) in FINISHED:
        return {
            "status": "error",
            "error_message": (
                "Refused: this session's investigation has already run. Tell the journalist to "
                "start a new session for a new investigation; never plan again here."
            ),
        }
    return {
        "status": "error",
        "error_message": (
            "Refused: the journalist has not approved a plan. Present the investigation plan "
            f"ending with {PLAN_MARKER} and wait; Vicaran starts the pipeline itself on approval."
        ),
    }


def guard_pipeline_start(callback_context: CallbackContext) -> types.Content | None:
    """Second lock: the pipeline itself refuses to run without an approved plan."""
    state = callback_context.state
    if _approval_can_start(state):
        state[keys.PIPELINE_STARTED] = True
        return None
    config = state.get(keys.INVESTIGATION_CONFIG) or {}
    language = config.get("language", "en")
    status = state.get(keys.INVESTIGATION_STATUS)
    if status and status not in ("planning", "in_progress"):
        text = already_done(state)
    else:
        text = message("gate_refused", language)
        plan = state.get(keys.INVESTIGATION_PLAN)
        if plan and status == "planning":
            text += f"\n\n{plan}\n\n{PLAN_MARKER}"
            state[keys.AWAITING_APPROVAL] = True
    return types.Content(role="model", parts=[types.Part(text=text)])
