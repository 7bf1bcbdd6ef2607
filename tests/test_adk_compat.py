"""The contracts of the non-public ADK symbols `vicaran_agent/adk_compat.py` uses: an ADK upgrade
that moves or changes one fails here, naming it, before it fails somewhere deep in a run.

What the model-call path does with them (plugins, callbacks, spans, the call limit) is tested
in tests/test_model_calls.py; here, only their shape.
"""

from __future__ import annotations

import inspect

from google.adk.agents import InvocationContext
from google.adk.flows.llm_flows.core._model_call import call_llm_async
from google.adk.flows.llm_flows.single_flow import SingleFlow

from vicaran_agent import adk_compat


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_adks_model_call_takes_a_flow_an_invocation_a_request_and_the_response_event():
    assert inspect.isasyncgenfunction(call_llm_async)
    assert parameters(call_llm_async) == [
        "flow", "invocation_context", "llm_request", "model_response_event",
    ]  # fmt: skip
    assert isinstance(adk_compat._flow(), SingleFlow)


def test_an_invocation_can_be_copied_with_another_agent_and_run_config():
    fields = InvocationContext.model_fields
    assert {"agent", "run_config", "invocation_id", "branch"} <= set(fields)
    assert callable(InvocationContext.model_copy)


def test_adk_reads_model_names_as_vicaran_expects():
    assert adk_compat.is_gemini_model("gemini-2.5-flash")
    assert adk_compat.is_gemini_model(
        "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro"
    )
    assert not adk_compat.is_gemini_model("scripted-fast")
    assert not adk_compat.is_gemini_model(None)
    assert (
        adk_compat.extract_model_name(
            "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro"
        )
        == "gemini-2.5-pro"
    )


def test_the_call_limit_error_is_an_exception_adk_raises_by_that_name():
    assert issubclass(adk_compat.LlmCallsLimitExceededError, Exception)


def test_an_artifacts_uri_names_the_app_user_session_file_and_version():
    assert parameters(adk_compat.get_artifact_uri) == [
        "app_name", "user_id", "filename", "version", "session_id",
    ]  # fmt: skip
    uri = adk_compat.get_artifact_uri("vicaran_agent", "u1", "memo.pdf", 0, session_id="s1")
    assert uri.startswith("artifact://") and "memo.pdf" in uri and "s1" in uri


def test_a_model_class_says_what_it_can_do_with_llm_capabilities():
    from google.adk.models import BaseLlm

    capabilities = adk_compat.LlmCapabilities(output_schema_and_tools=True)
    assert capabilities.output_schema_and_tools is True
    assert inspect.isdatadescriptor(BaseLlm.capabilities)  # a property subclasses override
    assert BaseLlm.capabilities.fget.__annotations__["return"] in (
        "LlmCapabilities",
        adk_compat.LlmCapabilities,
    )
