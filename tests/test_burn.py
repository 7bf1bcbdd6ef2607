"""`make test-stress`'s burner: it runs the command beside busy processes and always stops them."""

from __future__ import annotations

import importlib.util
import multiprocessing
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "burn.py"
_spec = importlib.util.spec_from_file_location("burn", SCRIPT)
assert _spec is not None and _spec.loader is not None
burn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(burn)


def test_the_command_runs_beside_the_burners_and_its_status_is_returned(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    check = f"import pathlib, sys; pathlib.Path({str(seen)!r}).touch(); sys.exit(3)"
    assert burn.main(["--burners", "2", "--", sys.executable, "-c", check]) == 3
    assert seen.exists()  # the command ran
    assert multiprocessing.active_children() == []  # and the burners are gone


def test_the_burners_are_stopped_when_the_command_cannot_start() -> None:
    with pytest.raises(FileNotFoundError):
        burn.main(["--burners", "1", "--", "/nonexistent/command"])
    assert multiprocessing.active_children() == []


def test_a_command_is_required() -> None:
    with pytest.raises(SystemExit):
        burn.main(["--burners", "1"])
