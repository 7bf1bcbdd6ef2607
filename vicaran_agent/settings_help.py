"""The configuration page (`docs/configuration.md`), `.env.example` and the README's short table,
written from their one source: the words in `settings.toml` and the defaults of
`config.Settings`.

`python -m vicaran_agent.settings_help` rewrites them (`make docs`); `--check` exits 1 when one
is not what it would write.
"""

from __future__ import annotations

import functools
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import PROJECT_ROOT, Settings

SOURCE = Path(__file__).with_name("settings.toml")
PAGE = PROJECT_ROOT / "docs" / "configuration.md"
ENV_EXAMPLE = PROJECT_ROOT / ".env.example"
README = PROJECT_ROOT / "README.md"
README_START = "<!-- settings table: `make docs` writes it from vicaran_agent/settings.toml -->"
README_END = "<!-- end of the settings table -->"
_ENV_HEADER = """\
# Vicaran configuration. `make run` copies this file to .env; fill in the keys there.
# Never commit .env. Each setting is explained in docs/configuration.md; a commented line is an
# example of a change. Written by `make docs` from vicaran_agent/settings.toml: edit that file.
"""
_HEADER = "| setting | default | what it does, and when to change it |\n|---|---|---|"


@dataclass(frozen=True)
class Setting:
    name: str
    text: str
    default_note: str = ""
    example: str | None = None  # `.env.example` shows this change, commented, not the default


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


def env_default(value: Any) -> str:
    """A default as an environment variable spells it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def env_example() -> str:
    """`.env.example` as the source says it: every setting at its default (or a commented
    example of a change), under what it does."""
    _, shown = sections()
    defaults = {name.upper(): field.default for name, field in Settings.model_fields.items()}
    parts = [_ENV_HEADER]
    for section in shown:
        lines = [f"# --- {section.title.replace('`', '')} ---"]
        for setting in section.settings:
            lines.append("")
            lines += textwrap.wrap(setting.text, 98, initial_indent="# ", subsequent_indent="# ")
            if setting.example is None:
                lines.append(f"{setting.name}={env_default(defaults[setting.name])}")
            else:
                lines.append(f"# {setting.name}={setting.example}")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


@dataclass(frozen=True)
class ReadmeRow:
    names: tuple[str, ...]
    meaning: str
    label: str = ""  # how the names are written, when not just listed
    default: str = ""  # the default cell, when not the defaults listed


def readme_rows() -> tuple[ReadmeRow, ...]:
    data = tomllib.loads(SOURCE.read_text(encoding="utf-8"))
    return tuple(
        ReadmeRow(**{**row, "names": tuple(row["names"])}) for row in data.get("readme", [])
    )


def readme_table() -> str:
    """The README's short table: a row per group of settings, what they are for, the defaults."""
    defaults = {name.upper(): field.default for name, field in Settings.model_fields.items()}
    lines = ["| variable | meaning | default |", "|---|---|---|"]
    for row in readme_rows():
        label = row.label or ", ".join(f"`{name}`" for name in row.names)
        default = row.default or ", ".join(shown_default(defaults[n]) for n in row.names)
        lines.append(f"| {label} | {row.meaning} | {default} |")
    return "\n".join(lines)


def readme(current: str) -> str:
    """`current` (the README) with its settings table as the source says it."""
    start, end = current.index(README_START), current.index(README_END)
    table = f"{README_START}\n{readme_table()}\n"
    return current[:start] + table + current[end:]


def main(argv: list[str]) -> int:
    written = {
        PAGE: page(),
        ENV_EXAMPLE: env_example(),
        README: readme(README.read_text(encoding="utf-8")),
    }
    if "--check" in argv:
        stale = [path for path, text in written.items() if path.read_text("utf-8") != text]
        for path in stale:
            print(f"{path} is not current: run `make docs`", file=sys.stderr)
        return 1 if stale else 0
    for path, text in written.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
