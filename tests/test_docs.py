"""The repository's own docs: every link they make works on a fresh clone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXPECTED_DOCS = (
    "callback-api.md",
    "configuration.md",
    "how-vicaran-decides.md",
    "models.md",
    "security.md",
    "services.md",
)


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def link_targets(markdown: str) -> list[str]:
    """Every link and image target of a Markdown text (inline, reference and autolinks)."""
    targets = []
    for token in _walk(MarkdownIt("commonmark").enable("table").parse(markdown)):
        if token.type == "link_open":
            targets.append(str(token.attrs.get("href", "")))
        elif token.type == "image":
            targets.append(str(token.attrs.get("src", "")))
    return targets


def is_relative(target: str) -> bool:
    parts = urlsplit(target)
    return not (parts.scheme or parts.netloc or target.startswith("#"))


def test_link_parsing_sees_inline_reference_and_image_links():
    text = (
        "See [a](docs/a.md#x), ![b](img/b.png) and [c][ref]; `[not](a link)`.\n\n"
        "[ref]: ../shared/c.md\n\n| x | [d](d.md) |\n|---|---|\n| 1 | 2 |\n"
    )
    assert link_targets(text) == ["docs/a.md#x", "img/b.png", "../shared/c.md", "d.md"]
    assert [is_relative(t) for t in ("https://x.org/a", "#top", "docs/a.md")] == [
        False,
        False,
        True,
    ]


def test_the_docs_exist_and_the_readme_links_them():
    readme = link_targets((ROOT / "README.md").read_text())
    missing = [name for name in EXPECTED_DOCS if f"docs/{name}" not in readme]
    assert missing == []
    assert all((DOCS / name).is_file() for name in EXPECTED_DOCS)


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_never_point_to_the_shared_folder(document: Path):
    """`../shared` is the project's private workspace: a clone of the repository has none."""
    text = document.read_text()
    assert "../shared" not in text
    assert [t for t in link_targets(text) if "shared/" in t] == []


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_in_the_repository(document: Path):
    broken = []
    for target in link_targets(document.read_text()):
        if not is_relative(target):
            continue
        path = unquote(urlsplit(target).path)
        resolved = (document.parent / path).resolve() if path else document
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert broken == []
