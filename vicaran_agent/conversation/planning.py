"""The orchestrator's planning reply: the plan Vicaran renders itself, clarifying questions, the
documents and URLs the plan lists.
"""

from __future__ import annotations

from google.adk.agents.callback_context import CallbackContext

from .. import state_keys as keys
from ..briefing import (
    vagueness,
)
from ..config import get_settings
from ..documents.intake import (
    DocumentsInPlay,
)
from ..factcheck.live_search import supports_live_search
from ..formatting import markdown_text, one_line
from ..i18n import message
from ..llm_models import credentials_problem
from ..plan import (
    PlanDocument,
    PlanFacts,
    gazettes_planned,
    looks_like_plan,
    plan_outline,
    render_plan,
)
from ..schemas import InvestigationConfig, Source
from ..urls import extract_urls, unsupported_urls
from .messages import planning_messages
from .protocol import PLAN_MARKER


def planning_reply(
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
                planning_messages(callback_context), sources, config.language, documents
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
    for missing in documents.missing_facts:
        name = one_line(missing.name, 100)
        if missing.close:
            close = one_line(missing.close, 100)
            lines.append(message("plan_collection_close", language, name=name, close=close))
        else:
            lines.append(message("plan_collection_missing", language, name=name))
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
