"""What Vicaran writes in the chat renders as it was meant to in any CommonMark renderer (the dev
UI's included): each list item its own, no paragraph swallowed by the item before it, each fact
on its own line."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from vicaran_agent.plan import PlanDocument, PlanFacts, render_plan
from vicaran_agent.schemas import Source

REPLY = """**Investigation Plan**
**Topic:** Riverton dam contract
**Key questions:**
- Who signed the contract?
- What did it cost?
**What I'll gather:**
- Council minutes
"""


def blocks(markdown: str) -> list[tuple[str, str]]:
    """(kind, text as written) of each paragraph as rendered: "li" inside a list item, else
    "p". A paragraph whose text holds a line break was two lines of the message run together."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    found, depth = [], 0
    for n, token in enumerate(tokens):
        if token.type == "list_item_open":
            depth += 1
        elif token.type == "list_item_close":
            depth -= 1
        elif token.type == "inline" and tokens[n - 1].type == "paragraph_open":
            found.append(("li" if depth else "p", token.content))
    return found


def plan(language: str = "en") -> str:
    documents = [
        PlanDocument("Contrato 002/2024", "contrato.pdf", 12, "pt", collection="dam"),
        PlanDocument("Audit", "audit.pdf", 3, "en", collection="dam", urls=("https://a.example",)),
    ]
    source = Source(
        url="https://news.example/a", title="A story", domain="news.example", credibility_score=3
    )
    facts = PlanFacts(
        language=language,
        title="Riverton dam",
        mode="quick",
        sources=[source],
        not_used=["https://x.example/file.zip: not a page Vicaran reads"],
        documents=documents,
        gazettes=True,
    )
    return render_plan(REPLY, facts)


def test_no_paragraph_of_the_plan_is_swallowed_by_a_list_item():
    for language in ("en", "pt-BR"):
        rendered = blocks(plan(language))
        run_together = [text for _, text in rendered if "\n" in text]
        assert run_together == [], language
        items = [text for kind, text in rendered if kind == "li"]
        assert not [i for i in items if "Each document is read" in i or "Cada documento" in i]
        assert any(
            kind == "p" and text.startswith(("Each document", "Cada documento"))
            for kind, text in rendered
        )


def test_the_mode_and_the_estimated_time_are_on_lines_of_their_own():
    rendered = [text for _, text in blocks(plan("en"))]
    assert "**Mode:** Quick Search" in rendered
    assert "**Estimated Time:** about 10 minutes" in rendered


# Lists the code splits into items itself (never shown as one message).
SPLIT_BY_CODE = {"plan_default_questions", "plan_default_gather"}


def _rendered_messages(language: str) -> dict[str, list[str]]:
    """Every message of the tables, in `language`, with each placeholder filled."""
    from vicaran_agent.i18n import message
    from vicaran_agent.messages import ENGLISH

    said = {}
    for key, english in ENGLISH.items():
        if key in SPLIT_BY_CODE:
            continue
        fields = set(re.findall(r"\{([a-z_]+)[:}]", str(english)))
        plural = isinstance(english, tuple)
        values = {name: 2 for name in fields} | (
            {"count": 2} if plural or "count" in fields else {}
        )
        said[key] = [message(key, language, **values)]
    return said


def test_no_message_runs_two_of_its_lines_together():
    """A line break inside a paragraph is a space in Markdown: a message's lines are paragraphs
    or list items (`- `), so the dev UI shows them one per line, as a terminal does."""
    for language in ("en", "pt-BR"):
        run_together = {
            key: text
            for key, texts in _rendered_messages(language).items()
            for text in texts
            if any("\n" in block for _, block in blocks(text))
        }
        assert run_together == {}, language
