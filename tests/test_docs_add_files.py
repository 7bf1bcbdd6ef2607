"""`vicaran docs add` reads regular files only, and follows links only inside the folder given.

A FIFO, a socket or a device is skipped with the reason before anything opens it; a link is
followed when its target is inside the folder (read once), and refused when it leads out, loops
or leads nowhere. A file swapped for something else between the walk and the read is refused.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vicaran_agent import cli
from vicaran_agent.cli import documents as commands
from vicaran_agent.config import get_settings
from vicaran_agent.documents import parse
from vicaran_agent.documents.model import DocumentError
from vicaran_agent.documents.store import get_document_store


def store():
    return get_document_store(get_settings().database_url)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def line_for(lines: list[str], name: str) -> str:
    (line,) = [line for line in lines if line.split(" ", 1)[-1].strip().startswith(name)]
    return line


@pytest.fixture
def dossier(tmp_path: Path) -> Path:
    """A folder with one ordinary file, and a secret file outside it."""
    root = tmp_path / "dossier"
    (root / "sub").mkdir(parents=True)
    (root / "audit.txt").write_text("The audit found the tender overpriced by 40 percent.")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("The operator's private notes, never to be indexed.")
    return root


class WatchedFifo:
    """A named pipe with a writer waiting at its other end: whatever opens it to read gets a line
    at once instead of waiting forever (a regression fails its test, never hangs it), and the
    writer says whether anything but the test itself opened it."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self._closing = threading.Event()
        self._opened = threading.Event()
        self._writer = threading.Thread(target=self._write, name="fifo-writer", daemon=True)
        self._writer.start()

    def _write(self) -> None:
        with contextlib.suppress(OSError), open(self.path, "wb") as pipe:  # waits for a reader
            if not self._closing.is_set():
                self._opened.set()
            pipe.write(b"Written into the pipe by the test.\n")

    def opened(self) -> bool:
        """Whether something opened the pipe (so far)."""
        return self._opened.is_set()

    def close(self) -> None:
        """Let the writer go: the test opens the pipe itself, without waiting."""
        self._closing.set()
        reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self._writer.join()
        finally:
            os.close(reader)


@pytest.fixture
def fifo() -> Iterator[Callable[[Path], WatchedFifo]]:
    made: list[WatchedFifo] = []

    def make(path: Path) -> WatchedFifo:
        made.append(WatchedFifo(path))
        return made[-1]

    yield make
    for pipe in made:
        pipe.close()


# --- what is not a regular file -------------------------------------------------------------


def test_a_fifo_in_the_folder_is_skipped_and_the_command_finishes(
    env, dossier, capsys, fifo
) -> None:
    pipe = fifo(dossier / "pipe.txt")  # opening it without a writer would wait forever

    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 0, lines
    assert not pipe.opened()  # skipped before anything opened it
    line = line_for(lines, str(dossier / "pipe.txt"))
    assert line.startswith("skipped") and "a named pipe (FIFO), not a regular file" in line
    assert line_for(lines, str(dossier / "audit.txt")).startswith("added")
    assert lines[-1] == 'Collection "c": 1 added, 1 skipped.'


@pytest.mark.timeout(30)  # no writer ever comes: an open that waits for one never returns
def test_parse_file_refuses_a_fifo_at_once(env, tmp_path) -> None:
    """What opens the file checks too: a FIFO put where a file was walked never blocks."""
    os.mkfifo(tmp_path / "swapped.txt")
    with pytest.raises(DocumentError, match="not a regular file"):
        parse.parse_file(tmp_path / "swapped.txt")


def test_a_socket_in_the_folder_is_skipped_with_the_reason(env, dossier, capsys) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(dossier / "sock.txt"))
        code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")
    finally:
        listener.close()

    assert code == 0
    line = line_for(lines, str(dossier / "sock.txt"))
    assert line.startswith("skipped") and "a socket, not a regular file" in line
    assert [d.file_name for d in store().documents("c")] == ["audit.txt"]


def test_a_device_given_by_name_is_skipped_as_a_device(env, capsys) -> None:
    code, lines, err = run(capsys, "docs", "add", "/dev/null", "--collection", "c")

    assert code == 1  # nothing to read
    assert lines == ["skipped    /dev/null: a device, not a regular file"]
    assert "No document Vicaran reads" in err


# --- links --------------------------------------------------------------------------------------


def test_a_link_to_a_file_outside_the_folder_is_not_followed(env, dossier, capsys) -> None:
    (dossier / "notes.txt").symlink_to(dossier.parent / "outside" / "secret.txt")
    (dossier / "elsewhere").symlink_to(dossier.parent / "outside", target_is_directory=True)

    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 0
    line = line_for(lines, str(dossier / "notes.txt"))
    assert line.startswith("skipped") and "a link to a file outside the folder" in line
    line = line_for(lines, str(dossier / "elsewhere"))
    assert line.startswith("skipped") and "a link to a folder outside the folder" in line
    documents = store().documents("c")
    assert [d.file_name for d in documents] == ["audit.txt"]
    assert not any(str(dossier.parent / "outside") in (d.path or "") for d in documents)
    assert store().search("private notes", ["c"]) == []


def test_a_link_inside_the_folder_is_followed_and_its_file_read_once(env, dossier, capsys) -> None:
    hidden = dossier / ".store"
    hidden.mkdir()
    (hidden / "minutes.txt").write_text("Minutes of the council meeting of 2024-03-02.")
    (dossier / "minutes.txt").symlink_to(Path(".store") / "minutes.txt")  # relative, inside
    (dossier / "sub" / "same-audit.txt").symlink_to(dossier / "audit.txt")  # read already
    (dossier / "sub" / "up").symlink_to(dossier, target_is_directory=True)  # a folder inside

    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 0
    assert line_for(lines, str(dossier / "minutes.txt")).startswith("added")
    line = line_for(lines, str(dossier / "sub" / "same-audit.txt"))
    assert line.startswith("skipped") and "a link to audit.txt, read under its own name" in line
    line = line_for(lines, str(dossier / "sub" / "up"))
    assert line.startswith("skipped") and "a link to a folder inside this one" in line
    documents = {d.file_name: d for d in store().documents("c")}
    assert sorted(documents) == ["audit.txt", "minutes.txt"]
    # stored where it really is, inside the folder
    assert documents["minutes.txt"].path == str((hidden / "minutes.txt").resolve())
    assert lines[-1] == 'Collection "c": 2 added, 2 skipped.'


def test_a_link_loop_and_a_dangling_link_are_skipped_with_the_reason(env, dossier, capsys) -> None:
    (dossier / "loop.txt").symlink_to(dossier / "loop.txt")
    (dossier / "a.txt").symlink_to(dossier / "b.txt")
    (dossier / "b.txt").symlink_to(dossier / "a.txt")
    (dossier / "gone.txt").symlink_to(dossier / "deleted.txt")

    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 0
    for name in ("loop.txt", "a.txt", "b.txt"):
        line = line_for(lines, str(dossier / name))
        assert line.startswith("skipped") and "a link that leads back to itself" in line
    line = line_for(lines, str(dossier / "gone.txt"))
    assert line.startswith("skipped") and "a link to a file that does not exist" in line
    assert [d.file_name for d in store().documents("c")] == ["audit.txt"]


def test_the_reasons_are_said_in_portuguese_on_a_portuguese_terminal(
    env, dossier, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    (dossier / "notes.txt").symlink_to(dossier.parent / "outside" / "secret.txt")
    (dossier / "gone.txt").symlink_to(dossier / "deleted.txt")

    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 0
    assert "um link para um arquivo fora da pasta" in line_for(lines, str(dossier / "notes.txt"))
    assert "um link para um arquivo que não existe" in line_for(lines, str(dossier / "gone.txt"))


def test_a_link_named_on_the_command_line_is_followed(env, dossier, capsys) -> None:
    """The operator named that file: it is read where it is (a regular file)."""
    link = dossier.parent / "chosen.txt"
    link.symlink_to(dossier.parent / "outside" / "secret.txt")

    code, lines, _ = run(capsys, "docs", "add", str(link), "--collection", "c")

    assert code == 0 and lines[0].startswith("added")
    (document,) = store().documents("c")
    assert document.path == str((dossier.parent / "outside" / "secret.txt").resolve())


# --- a file swapped between the walk and the read ---------------------------------------------


@pytest.fixture
def swap_before_reading(monkeypatch) -> Iterator[list[object]]:
    """Runs each queued action just before `docs add` reads the next file."""
    queued: list[object] = []
    real = commands.parse_file

    def swapping(path: Path, *args: object, **kwargs: object):
        while queued:
            queued.pop(0)()
        return real(path, *args, **kwargs)

    monkeypatch.setattr(commands, "parse_file", swapping)
    yield queued


def test_a_folder_swapped_for_a_link_out_after_the_walk_is_refused(
    env, dossier, capsys, swap_before_reading
) -> None:
    (dossier / "audit.txt").unlink()
    (dossier / "sub" / "secret.txt").write_text("A harmless draft.")
    outside = dossier.parent / "outside"

    def swap() -> None:
        (dossier / "sub").rename(dossier / "sub-old")
        (dossier / "sub").symlink_to(outside, target_is_directory=True)

    swap_before_reading.append(swap)
    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 1
    line = line_for(lines, str(dossier / "sub" / "secret.txt"))
    assert line.startswith("failed") and "changed while it was being added" in line
    assert store().search("private notes", ["c"]) == []


@pytest.mark.timeout(30)  # the old code waited here forever
def test_a_file_swapped_for_a_fifo_after_the_walk_is_refused_at_once(
    env, dossier, capsys, swap_before_reading
) -> None:
    def swap() -> None:
        (dossier / "audit.txt").unlink()
        os.mkfifo(dossier / "audit.txt")

    swap_before_reading.append(swap)
    code, lines, _ = run(capsys, "docs", "add", str(dossier), "--collection", "c")

    assert code == 1
    line = line_for(lines, str(dossier / "audit.txt"))
    assert line.startswith("failed") and "not a regular file" in line


def test_special_files_are_named_by_what_they_are() -> None:
    said = commands.not_a_regular_file(os.stat("/dev/null"))
    assert said is not None and said.said_in("en") == "a device, not a regular file"
    assert commands.not_a_regular_file(os.stat(__file__)) is None


def test_parse_file_refuses_a_file_that_is_not_the_one_walked(tmp_path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("one")
    second.write_text("two")
    walked = os.stat(first)
    with pytest.raises(DocumentError, match="changed while it was being added"):
        parse.parse_file(second, expected=(walked.st_dev, walked.st_ino))
