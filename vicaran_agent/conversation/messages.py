"""What code reads in the journalist's messages: the text, an approval, the first message's id,
mode, collections, brief and title.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from google.adk.agents.callback_context import CallbackContext
from google.genai import types

from ..briefing import (
    choose_collections,
    choose_mode,
    choose_reliability,
)
from ..schemas import Mode

_ID_LINE = re.compile(
    r"investigation\s+id\s*:\s*([0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12})",
    re.IGNORECASE,
)


_APPROVALS = frozenset(
    [
        "approved",
        "approve",
        "approves",
        "yes",
        "yep",
        "yeah",
        "go",
        "start",
        "begin",
        "proceed",
        "ok",
        "okay",
        "sure",
        "sim",
        "aprovado",
        "aprovada",
        "aprovo",
        "aprovar",
        "aprove",
        "comece",
        "começar",
        "comecar",
        "começa",
        "iniciar",
        "inicie",
        "vai",
        "vamos",
        "bora",
        "pode",
        "prossiga",
        "prosseguir",
    ]
)


_FILLER = frozenset(
    [
        "please",
        "plan",
        "the",
        "this",
        "it",
        "ahead",
        "lets",
        "let's",
        "let",
        "us",
        "do",
        "now",
        "looks",
        "look",
        "good",
        "great",
        "fine",
        "perfect",
        "thanks",
        "thank",
        "you",
        "investigation",
        "with",
        "&",
        "and",
        "sounds",
        "all",
        "right",
        "go-ahead",
        "por",
        "favor",
        "o",
        "a",
        "este",
        "esse",
        "plano",
        "agora",
        "está",
        "esta",
        "ótimo",
        "otimo",
        "bom",
        "certo",
        "tudo",
        "isso",
        "obrigado",
        "obrigada",
        "investigação",
        "investigacao",
        "com",
        "e",
        "parece",
        "pode",
    ]
)


_NEGATIONS = frozenset(
    [
        "no",
        "not",
        "don't",
        "dont",
        "never",
        "wait",
        "but",
        "change",
        "instead",
        "except",
        "however",
        "stop",
        "cancel",
        "não",
        "nao",
        "nunca",
        "espera",
        "espere",
        "mas",
        "mude",
        "altere",
        "mudar",
        "exceto",
        "porém",
        "porem",
        "pare",
        "cancele",
    ]
)


def user_text(content: types.Content | None) -> str:
    if not content or not content.parts:
        return ""
    return "\n".join(p.text for p in content.parts if p.text and not p.thought).strip()


def is_approval(text: str) -> bool:
    """Whether a message approves the plan: approval words only, no negation or edit."""
    words = [w for w in re.findall(r"[\w'&-]+", text.lower()) if w]
    if not words or len(words) > 12:
        return False
    if any(w in _NEGATIONS for w in words) or not any(w in _APPROVALS for w in words):
        return False
    return all(w in _APPROVALS or w in _FILLER for w in words)


@dataclass(frozen=True)
class FirstMessage:
    """What code reads in the journalist's first message."""

    investigation_id: str | None
    mode: Mode
    brief: str
    title: str
    collections: list[str] = field(default_factory=list)


def read_first_message(text: str) -> FirstMessage:
    """Id, mode, collections, brief and title: the id, mode and collection lines leave the brief."""
    match = _ID_LINE.search(text)
    investigation_id = str(uuid.UUID(match.group(1))) if match else None
    collections, rest = choose_collections(_ID_LINE.sub("", text))
    _, rest = choose_reliability(rest)  # the attached files' rating: not the brief's words
    mode, brief = choose_mode(rest)
    return FirstMessage(investigation_id, mode, brief, title_of(brief), collections)


def parse_first_message(text: str) -> tuple[str | None, Mode, str, str]:
    """(investigation id or None, mode, brief, title) from the journalist's first message."""
    first = read_first_message(text)
    return first.investigation_id, first.mode, first.brief, first.title


def title_of(brief: str) -> str:
    """The brief's first line without its links, at most 100 characters."""
    first_line = next((line for line in brief.splitlines() if line.strip()), "")
    title = " ".join(w for w in first_line.split() if "://" not in w).strip(" -:.") or first_line
    return title if len(title) <= 100 else title[:99].rstrip() + "…"


def planning_messages(callback_context: CallbackContext) -> list[str]:
    """The journalist's messages in this session (all of them came before any approval)."""
    texts = [user_text(e.content) for e in callback_context.session.events if e.author == "user"]
    current = user_text(callback_context.user_content)
    if current and (not texts or texts[-1] != current):
        texts.append(current)
    return [t for t in texts if t]
