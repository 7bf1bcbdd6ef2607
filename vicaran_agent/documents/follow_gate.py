"""The gate of following: the model says, once per depth level for every candidate at once,
which references are worth following; code words the prompt and reads the answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..formatting import data_block, one_line
from ..i18n import message
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import ReferenceGate
from ..prompts.reference_gate import REFERENCE_GATE_INSTRUCTION
from .follow_records import Candidate, Run
from .registry import Resolution

CONTEXT_CHARS = 120  # words around a reference shown to the gate, each side

_FIELD_KEYS = {
    "title": "ref_field_title",
    "file name": "ref_field_file",
    "synonym": "ref_field_synonym",
}


def how_label(resolution: Resolution, language: str) -> str:
    """How a reference was matched to its document, for people ("exact title match")."""
    field_name = message(_FIELD_KEYS[resolution.matched], language)
    if resolution.how == "exact":
        return message("ref_how_exact", language, field=field_name)
    if resolution.how == "fuzzy":
        pct = round(resolution.score * 100)
        return message("ref_how_fuzzy", language, field=field_name, pct=pct)
    return message("ref_how_substring", language, field=field_name)


def _context(candidate: Candidate) -> str:
    text, offset = candidate.source.text, candidate.reference.offset
    if offset < 0 or not text:
        return ""
    start, end = max(0, offset - CONTEXT_CHARS), offset + len(candidate.reference.text)
    return one_line(text[start : end + CONTEXT_CHARS], 2 * CONTEXT_CHARS + 80)


def gate_prompt(claim: str, candidates: Sequence[Candidate], depth: int) -> str:
    """The gate's prompt: the claim, then every candidate of the level, numbered."""
    entries = []
    for number, candidate in enumerate(candidates, 1):
        reference = candidate.reference
        lines = [
            f"[R{number}] {reference.label} ({reference.kind.replace('_', ' ')})",
            f"Written: {one_line(reference.text, 200)}",
            f"Found in: {candidate.source.origin}",
        ]
        if context := _context(candidate):
            lines.append(f"Around it: {context}")
        if candidate.resolution is not None:
            document = candidate.resolution.document
            how = how_label(candidate.resolution, "en")
            lines.append(
                f'Matches: {document.file_name}, "{one_line(document.title, 160)}" ({how})'
            )
        elif candidate.scope == "same":
            lines.append("Matches: a part of the document it is written in")
        entries.append("\n".join(lines) + "\n")
    where = (
        "cited by the passages read for the claim"
        if depth == 1
        else f"cited by what following references led to ({depth - 1} step(s) away)"
    )
    return (
        f"CLAIM: {one_line(claim, 1000)}\n"
        f"DEPTH: {depth} ({where})\n\n"
        f"{data_block('REFERENCES', chr(10).join(entries))}"
    )


async def ask_gate(
    model: ModelClient | None,
    language: str,
    candidates: list[Candidate],
    depth: int,
    run: Run,
    say: Callable[[Run, str], None],
) -> list[Candidate]:
    """The candidates the model says are worth following (one call for the whole level)."""
    run.considered.update(c.reference.key for c in candidates)
    if model is None:
        return [c for c in candidates if c.exact]
    run.result.gate_calls += 1
    try:
        answer = await model.generate(
            instruction=REFERENCE_GATE_INSTRUCTION,
            prompt=gate_prompt(run.claim, candidates, depth),
            schema=ReferenceGate,
            temperature=0.0,
        )
    except ModelCallError as error:
        if not run.result.gate_failed:
            run.result.gate_failed = True
            say(run, message("ref_gate_failed", language, error=error))
        return [c for c in candidates if c.exact]
    decisions = {d.number: d for d in answer.references}
    chosen: list[Candidate] = []
    for number, candidate in enumerate(candidates, 1):
        decision = decisions.get(number)
        if decision is not None and decision.follow:
            chosen.append(candidate)
        else:
            reason = one_line(decision.reason, 200) if decision else ""
            run.result.rejected.append((candidate.reference, reason))
    return chosen
