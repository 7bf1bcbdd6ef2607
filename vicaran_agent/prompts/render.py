"""Instructions rendered for one call: session state, and the investigation as a few lines.

The state's `investigation_config` is a dict for code (an id, limits, `None` values); a model
reads the investigation as text instead, through two slots only code fills:
- `{investigation}`: its title, mode and the brief's language;
- `{investigation_brief}`: the same, with the brief as the journalist wrote it.
The slots are filled after ADK's state injection, so braces in a title or brief stay text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.utils.instructions_utils import inject_session_state
from pydantic import ValidationError

from .. import state_keys as keys
from ..formatting import one_line
from ..i18n import text_language_name
from ..schemas import InvestigationConfig

INVESTIGATION = "{investigation}"
INVESTIGATION_BRIEF = "{investigation_brief}"
BRIEF_CHARS = 1500

_MODES = {
    "quick": "Quick Search (a brief report)",
    "detailed": "Detailed Inquiry (a comprehensive report)",
}


def about_investigation(config: Mapping[str, Any] | None, *, brief: bool = False) -> str:
    """The investigation as a model reads it: title, mode, the brief's language (and brief)."""
    try:
        settings = InvestigationConfig.model_validate(config or {})
    except ValidationError:
        return "**Investigation:** (not set up yet)"
    code = settings.text_language or ""
    written = text_language_name(code) if code else "unknown"
    lines = [
        f"**Investigation:** {one_line(settings.title, 200)}",
        f"- Mode: {_MODES[settings.mode]}",
        f"- Brief written in: {written}",
    ]
    if brief:
        lines.append(f"- Brief: {one_line(settings.brief, BRIEF_CHARS)}")
    return "\n".join(lines)


async def render_instruction(
    template: str, context: ReadonlyContext, blocks: Mapping[str, str] | None = None
) -> str:
    """`template` with state injected, the investigation slots and `blocks` ({slot: text})
    filled in; the texts filled in are never read as placeholders themselves."""
    config = context.state.get(keys.INVESTIGATION_CONFIG)
    filled = {
        INVESTIGATION: about_investigation(config),
        INVESTIGATION_BRIEF: about_investigation(config, brief=True),
        **(blocks or {}),
    }
    sentinels = {slot: f"\x00{i}\x00" for i, slot in enumerate(filled)}
    for slot, sentinel in sentinels.items():
        template = template.replace(slot, sentinel)
    rendered = await inject_session_state(template, context)
    for slot, sentinel in sentinels.items():
        rendered = rendered.replace(sentinel, filled[slot])
    return rendered
