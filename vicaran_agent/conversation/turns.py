"""The orchestrator's callbacks: state set up once, each turn answered in code where code can
decide, the model's reply made safe.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.events import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from .. import delivery, liveness
from .. import state_keys as keys
from ..briefing import (
    new_topic,
    same_topic,
    vagueness,
)
from ..callbacks.persistence import repository, start_investigation
from ..config import get_settings, missing_keys_line
from ..documents.intake import (
    Attachment,
    DocumentsInPlay,
    attachments_in,
    without_attachments,
)
from ..formatting import user_sources_digest
from ..i18n import detect_language, language_name, message, report_language, text_language
from ..llm_budgets import ORCHESTRATOR_OUTPUT_TOKENS, output_cap
from ..llm_models import MODEL_FAILED, credentials_problem, describe_model_error
from ..plan import (
    plan_outline,
    plan_topic,
)
from ..sanitize import clean
from ..schemas import InvestigationConfig, Source
from ..storage import InvestigationTakenError
from ..urls import extract_urls, normalize_url
from ..usage import price_of, record_planning, usage_of
from .attachments import (
    cut_off_by_a_restart,
    cut_off_notice,
    cut_off_text,
    documents_before_the_brief,
    documents_this_turn,
    new_turn,
    with_cut_off,
)
from .gate import already_done, refusals_this_turn
from .messages import is_approval, read_first_message, user_text
from .planning import planning_reply
from .protocol import ANALYZE_SOURCE, FINISHED, MAX_REFUSALS, PIPELINE_NAME

logger = logging.getLogger(__name__)


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
    cut_off = cut_off_by_a_restart(callback_context, files)
    if state.get(keys.INVESTIGATION_CONFIG):
        await new_turn(callback_context, user_text(callback_context.user_content), files, cut_off)
        if cut_off and not files:
            return cut_off_notice(cut_off, state[keys.INVESTIGATION_CONFIG]["language"])
        return None
    text = user_text(callback_context.user_content)
    if cut_off and not files:  # the brief was in that message: this one is not taken for it
        language = await asyncio.to_thread(detect_language, text or cut_off_text(callback_context))
        known = DocumentsInPlay.from_state(state.get(keys.INVESTIGATION_DOCUMENTS))
        known.attachments = with_cut_off(known.attachments, cut_off, language)
        state[keys.INVESTIGATION_DOCUMENTS] = known.model_dump(mode="json")
        return cut_off_notice(cut_off, language, brief=True)
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
            return await documents_before_the_brief(callback_context, files, language, cut_off)
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
    await documents_this_turn(callback_context, config, files, cut_off)
    return None


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
        language = _language(callback_context)
        missing = missing_keys_line(settings, language)  # every key missing, not the model's only
        return text_response(problem.said_in(language) + (f"\n\n{missing}" if missing else ""))
    state = callback_context.state
    if not state.get(keys.INVESTIGATION_CONFIG):
        return None
    analyzed = {s.url for s in _sync_user_sources(callback_context)}
    if refusals_this_turn(llm_request.contents) >= MAX_REFUSALS:
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
    if is_approval(text) and state.get(keys.INVESTIGATION_PLAN) and (files := attachments_in(last)):
        return text_response(_plan_again_for_files(callback_context, len(files)))
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


def _plan_again_for_files(callback_context: CallbackContext, count: int) -> str:
    """Files sent with an approval change what the run reads: the plan, brought up to date with
    them, and approval asked again (code's answer: nothing starts, no tool call is shown)."""
    state = callback_context.state
    config = InvestigationConfig.model_validate(state[keys.INVESTIGATION_CONFIG])
    earlier = state[keys.INVESTIGATION_PLAN]
    sources = user_sources_from_events(callback_context.session.events, state)
    plan = planning_reply(callback_context, earlier, earlier, sources)
    return message("plan_again_for_files", config.language, count=count) + "\n\n" + plan


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
    if llm_response.usage_metadata is not None and state.get(keys.INVESTIGATION_STATUS) in (
        None,
        "planning",
    ):  # the planning turn's model use is the investigation's too
        settings = get_settings()
        model = settings.vicaran_fast_model
        usage = usage_of(llm_response.usage_metadata, price_of(model, settings))
        record_planning(state, model, usage, settings)
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
        safe = planning_reply(callback_context, text, safe, sources)
    if safe == text:
        return None
    content = types.Content(role="model", parts=[types.Part(text=safe)])
    return llm_response.model_copy(update={"content": content})


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
