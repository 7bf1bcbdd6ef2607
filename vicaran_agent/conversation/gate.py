"""The approval gate, in code: the pipeline starts only when a plan was presented (the
orchestrator's last reply carried `[PLAN_APPROVAL_REQUIRED]`) and the journalist's latest message
approves it; the orchestrator's tools are refused otherwise.
"""

from __future__ import annotations

from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from .. import state_keys as keys
from ..config import get_settings
from ..i18n import message
from ..urls import extract_urls, normalize_url
from .messages import planning_messages
from .protocol import ANALYZE_SOURCE, FINISHED, PIPELINE_NAME, PLAN_MARKER


def refusals_this_turn(contents: list[types.Content]) -> int:
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


def already_done(state: Any) -> str:
    """This session's investigation has run: where its report is, and how to start another."""
    config = state.get(keys.INVESTIGATION_CONFIG) or {}
    url = get_settings().investigation_url(str(config.get("investigation_id") or ""))
    status = state.get(keys.INVESTIGATION_STATUS)
    return message("already_done", config.get("language", "en"), status=status, url=url)


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
        for text in planning_messages(tool_context)
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
