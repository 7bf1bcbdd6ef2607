"""The `final_marker_match` metric of tests/eval/test_config.json, in-process."""

from __future__ import annotations

from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus
from google.genai import types

from vicaran_agent.eval_metrics import final_marker, final_marker_match


def turn(user: str, response: str) -> Invocation:
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=user)]),
        final_response=types.Content(role="model", parts=[types.Part(text=response)]),
    )


METRIC = EvalMetric(metric_name="final_marker_match", threshold=1.0)


def test_the_marker_is_the_bracketed_word_a_response_ends_with():
    assert final_marker("## Plan\n...\n[PLAN_APPROVAL_REQUIRED]\n") == "[PLAN_APPROVAL_REQUIRED]"
    assert final_marker("Report [1] cites a source.") is None
    assert final_marker("see [1]") is None
    assert final_marker("") is None


def test_each_turn_must_end_with_its_expected_marker():
    expected = [
        turn("brief", "Plan. [PLAN_APPROVAL_REQUIRED]"),
        turn("APPROVED", "[INVESTIGATION_COMPLETE]"),
    ]
    same = [
        turn("brief", "Another plan\n[PLAN_APPROVAL_REQUIRED]"),
        turn("APPROVED", "R\n[INVESTIGATION_COMPLETE]"),
    ]
    result = final_marker_match(METRIC, same, expected)
    assert result.overall_eval_status == EvalStatus.PASSED and result.overall_score == 1.0

    stopped = [same[0], turn("APPROVED", "The run stopped.")]
    result = final_marker_match(METRIC, stopped, expected)
    assert result.overall_eval_status == EvalStatus.FAILED and result.overall_score == 0.5
    assert [r.score for r in result.per_invocation_results] == [1.0, 0.0]


def test_a_turn_with_no_expected_marker_cannot_pass():
    result = final_marker_match(METRIC, [turn("hi", "[DONE]")], [turn("hi", "hello")])
    assert result.overall_eval_status == EvalStatus.FAILED
