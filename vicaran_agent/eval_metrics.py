"""A deterministic `adk eval` metric: each turn ends with the marker its expected response ends with.

Vicaran's turns end with a marker the frontends act on (`[PLAN_APPROVAL_REQUIRED]` after a plan,
`[INVESTIGATION_COMPLETE]` after a report). The words around it vary from model to model; the
marker must not. Use it in a `test_config.json` as a custom metric:

    "custom_metrics": {"final_marker_match": {"code_config": {"name": "vicaran_agent.eval_metrics.final_marker_match"}}}
"""

from __future__ import annotations

from google.adk.evaluation.eval_case import ConversationScenario, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult
from google.genai import types


def _text(content: types.Content | None) -> str:
    parts = (content.parts or []) if content is not None else []
    return "".join(part.text or "" for part in parts if not part.thought)


def final_marker(text: str) -> str | None:
    """The `[UPPER_CASE]` marker a response ends with, if any (linear, no regex)."""
    tail = text.rstrip()
    if not tail.endswith("]"):
        return None
    start = tail.rfind("[")
    marker = tail[start + 1 : -1] if start >= 0 else ""
    if marker and all(c.isupper() or c == "_" for c in marker):
        return f"[{marker}]"
    return None


def final_marker_match(
    eval_metric: EvalMetric,
    actual_invocations: list[Invocation],
    expected_invocations: list[Invocation] | None,
    conversation_scenario: ConversationScenario | None = None,
) -> EvaluationResult:
    """1.0 per turn whose final response ends with its expected response's marker, else 0.0."""
    expected = expected_invocations or []
    per_invocation = []
    for index, actual in enumerate(actual_invocations):
        reference = expected[index] if index < len(expected) else None
        wanted = final_marker(_text(reference.final_response)) if reference else None
        score = 1.0 if wanted and final_marker(_text(actual.final_response)) == wanted else 0.0
        status = EvalStatus.PASSED if score == 1.0 else EvalStatus.FAILED
        per_invocation.append(
            PerInvocationResult(
                actual_invocation=actual,
                expected_invocation=reference,
                score=score,
                eval_status=status,
            )
        )
    if not per_invocation:
        return EvaluationResult(overall_eval_status=EvalStatus.NOT_EVALUATED)
    overall = sum(r.score or 0.0 for r in per_invocation) / len(per_invocation)
    return EvaluationResult(
        overall_score=overall,
        overall_eval_status=EvalStatus.PASSED if overall == 1.0 else EvalStatus.FAILED,
        per_invocation_results=per_invocation,
    )
