"""Setting values as text from the environment and `.env` files (what `config.Settings` reads)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def environment_values(
    names: Iterable[str], env_file: Path | str | Iterable[Path | str] | None
) -> dict[str, str]:
    """{field: text} for each field name set in the environment or an `.env` file, matched
    without regard to case; the environment wins over the files, a later file over an earlier.

    What pydantic-settings did for these plain fields, without its import on every command's
    start (issue 23): values are text, and `Settings` validates them like any other input.
    """
    fields = {name.lower(): name for name in names}
    found: dict[str, str] = {}
    files = [] if env_file is None else [env_file] if isinstance(env_file, Path | str) else env_file
    for file in files:
        if Path(file).is_file():
            from dotenv import dotenv_values  # only when there is a file to read

            for key, value in dotenv_values(file, encoding="utf-8").items():
                if value is not None and key.lower() in fields:
                    found[fields[key.lower()]] = value
    for key, value in os.environ.items():
        if key.lower() in fields:
            found[fields[key.lower()]] = value
    return found
