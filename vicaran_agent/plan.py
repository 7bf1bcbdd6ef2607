"""The approved plan, as later stages may use it: its topic and questions, as data.

The plan is the orchestrator model's prose, and it may quote the journalist's pages. Later
stages get only what they need from it - the topic and the questions, read by a linear line
scan of the plan's fixed format (seeds/001), cleaned of links and markers and delimited.
"""

from __future__ import annotations

from .formatting import data_block, one_line
from .sanitize import clean

MAX_PLAN_QUESTIONS = 8
_PLAN_HEADINGS = (
    "what i'll investigate",
    "what i will investigate",
    "key questions",
    "o que vou investigar",
    "o que vou apurar",
    "perguntas",
)
_TOPIC_LABELS = ("investigation topic", "tema da investigação", "tema da investigacao")
_BULLETS = ("- ", "* ", "• ", "+ ")


def plan_questions(plan: str) -> list[str]:
    """The questions of the approved plan: the bullets under "What I'll Investigate"."""
    questions: list[str] = []
    inside = False
    for raw in (plan or "").splitlines():
        line = raw.strip()
        label = line.strip("*#_ :").lower().replace("’", "'")
        if any(label.startswith(h) for h in _PLAN_HEADINGS):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith(_BULLETS):
            text = line[2:].strip()
            if text:
                questions.append(text)
        elif line and questions:
            break  # the next heading: the list is over
    return questions[:MAX_PLAN_QUESTIONS]


def plan_topic(plan: str) -> str:
    """The plan's "Investigation Topic" line, without its label."""
    for raw in (plan or "").splitlines():
        label, colon, value = raw.strip().strip("*# ").partition(":")
        if colon and label.strip("*_ ").lower() in _TOPIC_LABELS:
            return value.strip("*_ ").strip()
    return ""


def plan_outline(plan: str) -> str:
    """What later stages read of the plan: topic and questions, cleaned, as a data block."""
    topic = one_line(clean(plan_topic(plan)), 300)
    questions = [one_line(clean(q), 300) for q in plan_questions(plan)]
    lines = [f"Topic: {topic or '(not stated)'}", "Questions:"]
    lines += [f"- {q}" for q in questions if q] or ["- (none stated)"]
    return data_block("PLAN", "\n".join(lines))
