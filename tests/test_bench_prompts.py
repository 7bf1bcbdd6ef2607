"""The benchmark counts prompt characters per task and per investigation, and checks the total."""

from __future__ import annotations

from typing import Any

from benchmarks import run, scenario
from tests.support import scripted_model


def call(task: str, instruction: str, prompt: str) -> dict[str, Any]:
    return {
        "model": "scripted/latency-500",
        "task": task,
        "instruction": instruction,
        "prompt": prompt,
        "chars": len(instruction) + len(prompt),
        "time": 10.0,
        "start": 1,
        "end": 2,
    }


def test_a_run_counts_system_and_prompt_characters_per_task():
    scripted_model.reset_calls()
    scripted_model.CALLS.extend(
        [
            call("SourceDigest", "i" * 300, "p" * 50),
            call("SourceDigest", "i" * 300, "p" * 70),
            call("ClaimAssessment", "j" * 1000, "q" * 400),
        ]
    )
    figures = scenario._model_figures(0.5, approved=0.0)
    scripted_model.reset_calls()
    assert figures["prompt_chars_by_task"] == {
        "ClaimAssessment": {"calls": 1, "system": 1000, "prompt": 400},
        "SourceDigest": {"calls": 2, "system": 600, "prompt": 120},
    }
    assert figures["prompt_chars_total"] == 2120


def figures(by_task: dict[str, tuple[int, int, int]]) -> dict[str, Any]:
    tasks = {t: {"calls": n, "system": s, "prompt": p} for t, (n, s, p) in by_task.items()}
    total = sum(s + p for _, s, p in by_task.values())
    return {"prompt_chars_by_task": tasks, "prompt_chars_total": total}


RESULTS = {
    "quick": figures(
        {"SourceDigest": (15, 34_785, 10_738), "ClaimAssessment": (6, 33_948, 36_535)}
    ),
    "detailed": figures(
        {"SourceDigest": (30, 70_110, 21_592), "TimelineDraft": (2, 3_770, 19_230)}
    ),
    "sweep 5s": figures({"SourceDigest": (5, 1, 1)}),  # not a row of the table
}


def test_the_table_gives_each_tasks_characters_in_the_quick_and_detailed_runs():
    lines = run.prompt_table(RESULTS).splitlines()
    assert "system + prompt" in lines[0] and "quick" in lines[0] and "detailed" in lines[0]
    (digest,) = [line for line in lines if line.startswith("SourceDigest")]
    assert "15" in digest and "45,523 (34,785 + 10,738)" in digest
    assert "30" in digest and "91,702 (70,110 + 21,592)" in digest
    (timeline,) = [line for line in lines if line.startswith("TimelineDraft")]
    assert timeline.split()[1] == "-"  # not in a quick run
    (total,) = [line for line in lines if line.startswith("per investigation")]
    assert "21" in total and "116,006" in total and "32" in total and "114,702" in total


def test_prompt_characters_per_investigation_are_held_to_the_figures_before_issue_26():
    before = run.PROMPT_CHARS_BEFORE
    under = {"quick": {"prompt_chars_total": before["quick"] - 1}}
    over = {"detailed": {"prompt_chars_total": before["detailed"] + 10}}
    (held,) = run.prompt_targets(under)
    (missed,) = run.prompt_targets(over)
    assert held["pass"] and "quick" in held["target"] and "-1" in held["detail"]
    assert not missed["pass"] and "+10" in missed["detail"]
    assert run.prompt_targets({"quick": {"error": "exit 1"}}) == []
