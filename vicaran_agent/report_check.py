"""What code checks in a report draft, and the sentences a citation audit looks at.

The draft is structured (`ReportDraft`), so most checks compare fields with the records: a
finding's stated verdict with the recorded one, citations with the saved sources, the answers
with the approved plan's questions. Prose is only split into sentences (linear scan) so each
cited sentence can be audited against what its sources say, and removed if it is unsupported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from .citations import resolve_citations
from .evidence import sufficient
from .model_outputs import ReportDraft, ReportFinding
from .sanitize import clean
from .schemas import Verdict

_CITE = re.compile(r"\[(\d{1,4})(?:, pp?\. [\d, ]{1,60})?\]")  # [N] or [N, p. 4]
_ENDS = ".!?"
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "sr",
        "jr",
        "nº",
        "vs",
        "inc",
        "co",
        "corp",
        "ltd",
        "gov",
        "sen",
        "rep",
        "gen",
        "prof",
        "sra",
        "sr",
        "dra",
        "art",
    ]
)


def split_sentences(text: str) -> list[str]:
    """Sentences of model prose, in one linear pass.

    A sentence ends at . ! or ? followed by a space, unless the word before is one letter
    ("U.S.") or the next word starts in lower case. Citations that open a sentence ("... end.
    [2] Next") belong to the sentence before.
    """
    text = " ".join((text or "").split())
    sentences: list[str] = []
    start = 0
    for i, char in enumerate(text):
        if char not in _ENDS or i + 2 > len(text) or text[i + 1] != " ":
            continue
        nxt = text[i + 2 : i + 3]
        if nxt.isalpha() and nxt.islower():
            continue
        if char == "." and _abbreviation(text, start, i):
            continue
        sentences.append(text[start : i + 1].strip())
        start = i + 2
    if text[start:].strip():
        sentences.append(text[start:].strip())
    merged: list[str] = []
    for sentence in sentences:
        lead = _leading_citations(sentence)
        if lead and merged:
            merged[-1] += " " + sentence[:lead].strip()
            sentence = sentence[lead:].strip()
        if sentence:
            merged.append(sentence)
    return merged


def _abbreviation(text: str, start: int, end: int) -> bool:
    """Whether the period at `end` closes an initial ("U.S.") or a short title ("Dr.")."""
    word_start = max(start, text.rfind(" ", start, end) + 1)
    segment_start = max(word_start, text.rfind(".", word_start, end) + 1)
    return end - segment_start <= 1 or text[word_start:end].lower() in _ABBREVIATIONS


def _leading_citations(sentence: str) -> int:
    """Length of the `[N]` groups a sentence starts with."""
    at = 0
    while True:
        match = _CITE.match(sentence, at)
        if not match:
            return at
        at = match.end()
        while at < len(sentence) and sentence[at] == " ":
            at += 1


def citations_in(sentence: str) -> list[int]:
    return list(dict.fromkeys(int(n) for n in _CITE.findall(sentence)))


@dataclass
class Sentence:
    """One sentence of the draft: where it is (`part`, `index`) and the sources it cites."""

    part: str  # "summary", "finding:C1", "bias", "timeline", "recommendation:0", "question:2"
    index: int
    text: str
    cites: list[int]


def _parts(draft: ReportDraft) -> dict[str, str]:
    parts = {"summary": draft.executive_summary}
    parts.update({f"finding:{f.claim_key.strip().upper()}": f.text for f in draft.findings})
    parts["bias"] = draft.bias_assessment
    parts["timeline"] = draft.timeline
    parts.update({f"recommendation:{i}": r for i, r in enumerate(draft.recommendations)})
    parts.update({f"question:{q.number}": q.answer for q in draft.questions})
    return parts


def cited_sentences(draft: ReportDraft) -> list[Sentence]:
    """Every sentence of the draft that carries a citation."""
    found = []
    for part, text in _parts(draft).items():
        for index, sentence in enumerate(split_sentences(text)):
            if cites := citations_in(sentence):
                found.append(Sentence(part, index, sentence, cites))
    return found


def _rewritten(draft: ReportDraft, change: Callable[[str, str], str]) -> ReportDraft:
    """A copy of the draft with `change(part, text)` applied to every prose part (`_parts`)."""
    copy = draft.model_copy(deep=True)
    copy.executive_summary = change("summary", copy.executive_summary)
    for finding in copy.findings:
        finding.text = change(f"finding:{finding.claim_key.strip().upper()}", finding.text)
    copy.bias_assessment = change("bias", copy.bias_assessment)
    copy.timeline = change("timeline", copy.timeline)
    copy.recommendations = [
        kept
        for i, r in enumerate(copy.recommendations)
        if (kept := change(f"recommendation:{i}", r))
    ]
    for question in copy.questions:
        question.answer = change(f"question:{question.number}", question.answer)
    return copy


def cleaned(draft: ReportDraft, allowed: Collection[str]) -> ReportDraft:
    """The draft with markers and every link but the saved sources' removed from its prose."""
    copy = _rewritten(draft, lambda _part, text: clean(text, allowed))
    copy.title = clean(copy.title, allowed)
    return copy


def without_sentences(draft: ReportDraft, remove: Collection[tuple[str, int]]) -> ReportDraft:
    """The draft with the given (part, index) sentences taken out."""
    if not remove:
        return draft

    def keep(part: str, text: str) -> str:
        sentences = split_sentences(text)
        return " ".join(s for i, s in enumerate(sentences) if (part, i) not in remove)

    return _rewritten(draft, keep)


def status_problem(status: str, verdict: Verdict) -> str:
    """How a statement of a claim's status disagrees with its record ("" when it agrees).

    A verdict label must be the recorded verdict; `not_confirmed` ("no independent source
    confirmed it") holds when the recorded evidence does not suffice to support the claim under
    the evidence rule, `not_refuted` when it does not suffice to refute it.
    """
    key = verdict.claim_key
    if status == "not_confirmed":
        if not sufficient(verdict.evidence, "supports")[0]:
            return ""
        return f"says no independent source confirmed {key}, but the records show one"
    if status == "not_refuted":
        if not sufficient(verdict.evidence, "refutes")[0]:
            return ""
        return f"says nothing contradicted {key}, but the records show a source that does"
    if status == verdict.verdict:
        return ""
    return f"says {key} is {status}, but its recorded verdict is {verdict.verdict}"


def stated_verdict(finding: ReportFinding) -> str:
    """The verdict a finding states, in the records' spelling ("Partially true" → partially_true)."""
    return finding.verdict.strip().lower().replace(" ", "_").replace("-", "_")


def code_problems(
    draft: ReportDraft, verdicts: list[Verdict], questions: list[str], valid: Collection[int]
) -> list[str]:
    """What is wrong with the draft that code can tell: verdicts, citations, plan coverage."""
    problems: list[str] = []
    recorded = {v.claim_key.upper(): v.verdict for v in verdicts}
    for finding in draft.findings:
        key = finding.claim_key.strip().upper()
        if key not in recorded:
            problems.append(f"Finding {key} is about no claim in FINDINGS; leave it out.")
            continue
        if stated_verdict(finding) != recorded[key]:
            problems.append(
                f"Finding {key} states the verdict '{finding.verdict or '(none)'}' but the "
                f"recorded verdict is '{recorded[key]}': the finding must agree with it."
            )
    for part, text in _parts(draft).items():
        _, _, removed = resolve_citations(text, valid)
        for number in dict.fromkeys(removed):
            problems.append(f"[{number}] in {_where(part)} cites no source in SOURCES.")
    answered = {q.number for q in draft.questions if q.answer.strip()}
    for number, question in enumerate(questions, 1):
        if number not in answered:
            problems.append(
                f'Question Q{number} of the plan ("{question}") is neither answered nor '
                "listed as open."
            )
    return problems


def _where(part: str) -> str:
    kind, _, which = part.partition(":")
    names = {
        "summary": "the executive summary",
        "bias": "the bias assessment",
        "timeline": "the timeline",
        "finding": f"finding {which}",
        "recommendation": f"recommendation {int(which or 0) + 1}" if which.isdigit() else kind,
        "question": f"the answer to Q{which}",
    }
    return names.get(kind, part)
