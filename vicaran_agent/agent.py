"""Vicaran's root agent, as ADK discovers it: `root_agent` and `app`."""

from __future__ import annotations

import logging

from google.adk.agents import LlmAgent
from google.adk.agents.context_cache_config import ContextCacheConfig
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.apps import App
from google.genai import types
from pydantic import ValidationError

from . import state_keys as keys
from .adk_compat import is_gemini_model
from .config import Settings, get_settings, model_plugins_problem, settings_problem
from .conversation.gate import gate_tools
from .conversation.turns import (
    after_orchestrator_model,
    before_orchestrator_model,
    explain_model_error,
    initialize_investigation_state,
    user_sources_from_events,
)
from .documents.artifact_plugin import AttachmentsAsArtifacts
from .documents.intake import DocumentsInPlay
from .formatting import DATA_OPENING, user_sources_digest
from .llm_budgets import (
    ORCHESTRATOR_OUTPUT_TOKENS,
    ORCHESTRATOR_THINKING,
    declared_class,
    output_budget,
)
from .llm_models import ConfigHintModel, resolvable_model
from .prompts._common import UNTRUSTED_DATA_RULE, dated
from .prompts.orchestrator import (
    CLARIFY_INSTRUCTION,
    DOCUMENTS_INSTRUCTION,
    ORCHESTRATOR_INSTRUCTION,
    PLAN_INSTRUCTION,
)
from .prompts.render import render_instruction
from .sub_agents.pipeline import build_pipeline
from .tools.analyze_source import analyze_source
from .urls import warm as warm_domains
from .workers.parsing import parse_pool

APP_NAME = "vicaran_agent"
_DIGEST_SLOT = "{" + keys.USER_SOURCES_DIGEST + "}"


async def orchestrator_instruction(context: ReadonlyContext) -> str:
    """The orchestrator's instruction, with the journalist's sources as read so far, and the
    step it is at: clarifying questions, or the plan and the journalist's answer to it."""
    language = (context.state.get(keys.INVESTIGATION_CONFIG) or {}).get("language", "en")
    sources = user_sources_from_events(context.session.events, context.state)
    digest = user_sources_digest(sources, language)
    instruction = await render_instruction(
        ORCHESTRATOR_INSTRUCTION, context, {_DIGEST_SLOT: digest}
    )
    if context.state.get(keys.CLARIFY) == "asking":  # questions now; the plan comes after
        instruction += "\n" + CLARIFY_INSTRUCTION
    else:
        instruction += "\n" + PLAN_INSTRUCTION
        documents = DocumentsInPlay.from_state(context.state.get(keys.INVESTIGATION_DOCUMENTS))
        if documents.documents or documents.unreadable or documents.missing:
            instruction += "\n" + DOCUMENTS_INSTRUCTION.replace("{documents}", documents.digest())
    if DATA_OPENING in instruction:  # the journalist's pages or documents, as read
        instruction += "\n" + UNTRUSTED_DATA_RULE
    return dated(instruction, get_settings().today)


def orchestrator_config(settings: Settings) -> types.GenerateContentConfig:
    """An output cap and little thinking on every orchestrator turn (docs/models.md), and a
    timeout where the provider takes one."""
    model = settings.vicaran_fast_model
    budget = output_budget(
        settings, model, ORCHESTRATOR_OUTPUT_TOKENS, ORCHESTRATOR_THINKING, declared_class(model)
    )
    config = types.GenerateContentConfig(
        temperature=0.3, max_output_tokens=budget.cap, thinking_config=budget.thinking
    )
    if is_gemini_model(settings.vicaran_fast_model):
        milliseconds = int(settings.vicaran_model_timeout_seconds * 1000)
        config.http_options = types.HttpOptions(timeout=milliseconds)
    return config


def build_root_agent(settings: Settings | None = None) -> LlmAgent:
    """A fresh agent tree: the orchestrator with the pipeline as its only sub-agent."""
    settings = settings or get_settings()
    # A plugin that does not import leaves the app importable; its first answer says the fix.
    plugins_problem = model_plugins_problem(settings)
    return LlmAgent(
        name="investigation_orchestrator",
        model=resolvable_model(settings.vicaran_fast_model, plugins_problem),
        description="Plans investigations with journalists and starts them on approval.",
        instruction=orchestrator_instruction,
        tools=[analyze_source],
        sub_agents=[build_pipeline(settings)],
        generate_content_config=orchestrator_config(settings),
        before_agent_callback=initialize_investigation_state,
        before_model_callback=before_orchestrator_model,
        after_model_callback=after_orchestrator_model,
        on_model_error_callback=explain_model_error,
        before_tool_callback=gate_tools,
    )


def build_app(settings: Settings | None = None) -> App:
    # Caching pays off only for long orchestrator prompts; Gemini's own minimum is ~4k tokens.
    cache = ContextCacheConfig(min_tokens=4096, ttl_seconds=1800, cache_intervals=10)
    return App(
        name=APP_NAME,
        root_agent=build_root_agent(settings),
        context_cache_config=cache,
        plugins=[AttachmentsAsArtifacts()],  # attachments stored once; the session names them
    )


def importable_app() -> App:
    """The app; with settings that do not validate, one whose every answer says what to fix.

    ADK imports this module to find the agent: a typo in .env must not be a traceback there.
    """
    try:
        app = build_app()
    except ValidationError as error:
        hint = ConfigHintModel(model="unconfigured", hint=settings_problem(error))
        return App(
            name=APP_NAME, root_agent=LlmAgent(name="investigation_orchestrator", model=hint)
        )
    warn_retired_host()
    parse_pool()  # ADK loads the agent as it starts serving: the parsers start now, not at a page
    warm_domains()  # and the public suffix list is read now, not at the first source
    return app


def warn_retired_host() -> None:
    """`adk web` and `adk api_server` print nothing of Vicaran's as they start: a settings
    problem that breaks a whole service (the retired gazette host) is logged once, as the app
    is loaded. `vicaran` commands say it themselves (cli.main); it is never said twice."""
    from .doctor import warn_at_start
    from .i18n import system_language

    warn_at_start(get_settings(), logging.getLogger(__name__).warning, system_language())


app = importable_app()
root_agent = app.root_agent
