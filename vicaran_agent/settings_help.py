"""The configuration page (`docs/configuration.md`), written from its one source: the words in
`settings.toml` and the defaults of `config.Settings`.

`python -m vicaran_agent.settings_help` rewrites the page (`make docs`); `--check` exits 1
when the page is not what it would write.
"""

from __future__ import annotations

import functools
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import PROJECT_ROOT, Settings

SOURCE = Path(__file__).with_name("settings.toml")
PAGE = PROJECT_ROOT / "docs" / "configuration.md"
_HEADER = "| setting | default | what it does, and when to change it |\n|---|---|---|"


@dataclass(frozen=True)
class Setting:
    name: str
    text: str
    default_note: str = ""


@dataclass(frozen=True)
class Section:
    title: str
    intro: str
    settings: tuple[Setting, ...]


@functools.cache
def sections() -> tuple[str, tuple[Section, ...]]:
    """(the page's opening, its sections), as `settings.toml` has them."""
    data = tomllib.loads(SOURCE.read_text(encoding="utf-8"))
    return data["intro"], tuple(
        Section(
            title=section["title"],
            intro=section.get("intro", ""),
            settings=tuple(Setting(name, **help_) for name, help_ in section["settings"].items()),
        )
        for section in data["sections"]
    )


def shown_default(value: Any) -> str:
    """A default as the page writes it: `—` for empty, else the value in code."""
    if value == "":
        return "—"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    return f"`{value}`"


def page() -> str:
    """`docs/configuration.md` as the source says it."""
    intro, shown = sections()
    defaults = {name.upper(): field.default for name, field in Settings.model_fields.items()}
    parts = [intro]
    for section in shown:
        parts.append(f"## {section.title}")
        if section.intro:
            parts.append(section.intro)
        rows = [
            f"| `{s.name}` | {shown_default(defaults[s.name])}{s.default_note} | {s.text} |"
            for s in section.settings
        ]
        parts.append("\n".join([_HEADER, *rows]))
    return "\n\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    text = page()
    if "--check" in argv:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is not current: run `make docs`", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
