"""The approved plan, as later stages may use it: its topic and questions, as data.

The plan is the orchestrator model's prose, and it may quote the journalist's pages. Later
stages get only what they need from it - the topic and the questions, read by a linear line
scan of the plan's fixed format (the one `render_plan` writes), cleaned of links and markers
and delimited.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .credibility import stars
from .formatting import data_block, markdown_text, one_line
from .i18n import message, text_language_name, written_in_another_language
from .safe_markdown import code as code_span
from .sanitize import clean
from .schemas import Mode, Source

MAX_PLAN_QUESTIONS = 8
_QUESTION_HEADINGS = (
    "what i'll investigate",
    "what i will investigate",
    "key questions",
    "o que vou investigar",
    "o que vou apurar",
    "perguntas",
)
_GATHER_HEADINGS = (
    "sources i'll gather",
    "sources i will gather",
    "fontes que vou reunir",
    "fontes que vou buscar",
)
_DOCUMENT_HEADINGS = (
    "in your documents i'll look for",
    "in your documents i will look for",
    "nos seus documentos vou procurar",
    "nos seus documentos, vou procurar",
)
MAX_PLAN_DOCUMENTS = 12
_PLAN_TITLES = ("investigation plan", "plano de investigação", "plano de investigacao")
_TOPIC_LABELS = ("investigation topic", "tema da investigação", "tema da investigacao")
_BULLETS = ("- ", "* ", "• ", "+ ")


def _item(line: str) -> str | None:
    """A list item's text ("- x", "* x", "1. x", "2) x"), or None for any other line."""
    if line.startswith(_BULLETS):
        return line[2:].strip()
    number, dot, rest = line.partition(". ") if ". " in line[:4] else line.partition(") ")
    if dot and number.isdigit():
        return rest.strip()
    return None


def _label(line: str) -> str:
    return line.strip().strip("*#_ :").lower().replace("’", "'")


def _items_under(plan: str, headings: tuple[str, ...]) -> list[str]:
    """The list items right under the first heading that starts with one of `headings`."""
    items: list[str] = []
    inside = False
    for raw in (plan or "").splitlines():
        line = raw.strip()
        if not inside:
            inside = any(_label(line).startswith(h) for h in headings)
            continue
        item = _item(line)
        if item:
            items.append(item)
        elif line and items:
            break  # the next heading: the list is over
    return items


def plan_questions(plan: str) -> list[str]:
    """The questions of the approved plan: the items under "What I'll Investigate"."""
    return _items_under(plan, _QUESTION_HEADINGS)[:MAX_PLAN_QUESTIONS]


def plan_gather(plan: str) -> list[str]:
    """The kinds of source the plan says it will gather."""
    return _items_under(plan, _GATHER_HEADINGS)[:MAX_PLAN_QUESTIONS]


def plan_document_focus(plan: str) -> list[str]:
    """What the plan says it will look for in the journalist's documents."""
    return _items_under(plan, _DOCUMENT_HEADINGS)[:MAX_PLAN_QUESTIONS]


def looks_like_plan(text: str) -> bool:
    """Whether a reply presents a plan (its title, topic or questions), marker or not."""
    titled = any(
        any(t in _label(line) for t in _PLAN_TITLES)
        for line in (text or "").splitlines()
        if line.lstrip().startswith(("#", "*"))
    )
    return titled or bool(plan_topic(text) or plan_questions(text))


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


@dataclass(frozen=True)
class PlanDocument:
    """One of the journalist's documents as the plan lists it (never its text)."""

    title: str
    file_name: str
    pages: int
    language: str
    unreadable: int = 0
    reasons: tuple[str, ...] = ()  # the first few, "p. 3: no text layer"
    collection: str = ""
    urls: tuple[str, ...] = ()  # web addresses written in it: listed, opened only if allowed
    follow_urls: bool = False  # VICARAN_FOLLOW_DOCUMENT_URLS


@dataclass(frozen=True)
class PlanFacts:
    """What code knows for the plan: the parts no model may leave out or get wrong."""

    language: str
    title: str
    mode: Mode
    text_language: str = ""  # the brief's (any language; "" when it could not be told)
    sources: list[Source] = field(default_factory=list)
    not_used: list[str] = field(default_factory=list)
    documents: list[PlanDocument] = field(default_factory=list)
    more_documents: dict[str, int] = field(default_factory=dict)  # {collection: not listed}
    gazettes: bool = False  # claims about Brazilian municipalities are checked in gazettes


def render_plan(reply: str, facts: PlanFacts) -> str:
    """The plan in its fixed format (headings in a set order), whatever shape the model's reply had.

    The model contributes the topic, the questions and the kinds of source, read from its reply
    by line; code writes everything else - the journalist's sources as read, what will not be
    used, mode, time and the approval marker.
    """
    lang = facts.language
    topic = one_line(clean(plan_topic(reply)), 200) or facts.title
    questions = [one_line(clean(q), 300) for q in plan_questions(reply)]
    if not questions:  # a reply without the format: its list items, else the default questions
        questions = [one_line(clean(i), 300) for i in _all_items(reply)][:MAX_PLAN_QUESTIONS]
    questions = [q for q in questions if q] or message("plan_default_questions", lang).split("\n")
    gather = [one_line(clean(g), 200) for g in plan_gather(reply)]
    gather = [g for g in gather if g] or message("plan_default_gather", lang).split("\n")
    count = len(facts.sources)
    intro = "plan_intro" if count else "plan_intro_none"
    parts = [
        message("plan_heading", lang),
        message(intro, lang, count=count),
        *language_note("plan_language_note", facts.text_language, lang),
        message("plan_topic", lang, topic=topic),
        "\n".join([message("plan_questions", lang)] + [f"- {q}" for q in questions]),
        "\n".join(
            [message("plan_gather", lang)]
            + [f"- {g}" for g in gather]
            + ([f"- {message('plan_gazettes', lang)}"] if facts.gazettes else [])
        ),
    ]
    if facts.sources:
        parts.append(
            "\n".join([message("plan_yours", lang)] + [_yours(s, lang) for s in facts.sources])
        )
    if facts.documents or facts.more_documents:
        parts += _documents_section(reply, facts)
    if facts.not_used:
        parts.append(
            "\n".join([message("plan_not_used", lang)] + [f"- {n}" for n in facts.not_used])
        )
    mode = message(f"mode_{facts.mode}", lang)
    parts.append(message("plan_mode", lang, mode=mode))  # each fact a paragraph: one per line
    parts.append(message("plan_time", lang, time=message(f"time_{facts.mode}", lang)))
    return "\n\n".join(parts)


def language_note(key: str, text_language: str, language: str) -> list[str]:
    """The note (message `key`) that a brief in another language than English or Portuguese
    gets its plan and report in English; none for the others."""
    if not written_in_another_language(text_language):
        return []
    return [message(key, language, name=text_language_name(text_language, language))]


def _yours(source: Source, language: str) -> str:
    if not source.is_reachable:
        reason = one_line(source.unreachable_reason or "unreadable", 200)
        return "- " + message("plan_unreadable", language, url=source.link, reason=reason)
    return f"- {stars(source.credibility_score)} {one_line(source.title or source.link, 160)} ({source.domain})"


def _all_items(text: str) -> list[str]:
    return [item for line in (text or "").splitlines() if (item := _item(line.strip()))]


def _documents_section(reply: str, facts: PlanFacts) -> list[str]:
    """The journalist's documents as read, and what the run will look for in them.

    What to look for is the model's list under "In your documents I'll look for" when its reply
    has one (it knows the titles, never the text); otherwise the plan's own questions.
    """
    lang = facts.language
    shown = facts.documents[:MAX_PLAN_DOCUMENTS]
    lines = [message("plan_documents", lang)] + [f"- {_document(d, lang)}" for d in shown]
    more = dict(facts.more_documents)
    for document in facts.documents[MAX_PLAN_DOCUMENTS:]:
        more[document.collection] = more.get(document.collection, 0) + 1
    for collection, count in more.items():
        if count:
            lines.append(
                "- " + message("plan_documents_more", lang, count=count, collection=collection)
            )
    focus = [one_line(clean(f), 300) for f in plan_document_focus(reply)]
    focus = [f for f in focus if f] or [message("plan_documents_questions", lang)]
    return [  # parts of their own: a paragraph right after a list would join its last item
        "\n".join(lines),
        "\n".join([message("plan_documents_look_for", lang)] + [f"- {f}" for f in focus]),
        message("plan_documents_how", lang),
    ]


def _document(document: PlanDocument, language: str) -> str:
    code = document.language.lower()
    name = (
        message("language_pt", language)
        if code.startswith("pt")
        else (
            message("language_en", language)
            if code.startswith("en")
            else markdown_text(text_language_name(code, language), 40)
        )
    )
    line = message(
        "plan_document",
        language,
        title=markdown_text(document.title, 160),
        file=markdown_text(document.file_name, 120),
        pages=message("n_pages", language, count=document.pages),
        lang_name=name,
    )
    if document.unreadable:
        reasons = "; ".join(one_line(r, 160) for r in document.reasons)
        if document.unreadable > len(document.reasons):
            reasons += "; …"
        line += " - " + message(
            "plan_document_unreadable", language, count=document.unreadable, reasons=reasons
        )
    if document.urls:
        key = "plan_document_urls_followed" if document.follow_urls else "plan_document_urls"
        urls = ", ".join(code_span(one_line(u, 200)) for u in document.urls)
        line += "\n  - " + message(key, language, urls=urls)
    return line


_GAZETTE_WORDS = (
    "diário oficial", "diario oficial", "diários oficiais", "diarios oficiais", "gazette",
    "querido diário", "querido diario", "prefeitura", "município", "municipio", "municipal",
    "câmara de vereadores", "secretaria municipal", "licitação", "licitacao", "pregão",
)  # fmt: skip


def asks_for_gazettes(brief: str) -> bool:
    """Whether the brief itself asks for official gazettes (then every claim is searched)."""
    text = brief.lower()
    return any(w in text for w in _GAZETTE_WORDS[:7])


def gazettes_planned(brief: str, language: str) -> bool:
    """Whether the run will consult Brazilian municipal gazettes: a Portuguese brief, or one
    that names gazettes or municipal government (code checks each claim's city when it runs)."""
    text = brief.lower()
    return language.startswith("pt") or any(word in text for word in _GAZETTE_WORDS)
