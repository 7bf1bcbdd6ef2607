"""`vicaran docs add` reads regular files only, and follows links only inside the folder given.

A FIFO, a socket or a device is skipped with the reason before anything opens it; a link is
followed when its target is inside the folder (read once), and refused when it leads out, loops
or leads nowhere. A file swapped for something else between the walk and the read is refused.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from vicaran_agent import cli
from vicaran_agent.config import get_settings
from vicaran_agent.documents import commands, parse
from vicaran_agent.documents.model import DocumentError
from vicaran_agent.documents.store import get_document_store

ROOT = Path(__file__).resolve().parent.parent
MEMORY_CAP = 1024 * 1024 * 1024  # address space of a child that runs `docs add`
OPERATION_SECONDS = 30  # after its imports: the command itself takes well under a second


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


def run_in_a_capped_child(env, imports: str, code: str) -> tuple[int, str]:
    """(exit code, output) of `code` run in a child under an address-space cap, after `imports`.

    The imports are slow on a busy machine and not what is tested: the child says when it has
    them, and only `code` is given a deadline. The cap is set in the child itself (a preexec_fn
    could deadlock beside the fakes' threads).
    """
    cap = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))"
    script = f"{cap}\n{imports}\nprint('ready', flush=True)\n{code}"
    variables = {**os.environ, **env.variables, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    with subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=variables,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # a few lines of warnings at most
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            first = child.stdout.readline()
            assert first == "ready\n", first + child.communicate()[1]
            output, errors = child.communicate(timeout=OPERATION_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            pytest.fail(f"still running after {OPERATION_SECONDS} s: it hung")
    assert child.returncode in (0, 1), errors
    return child.returncode, output


def docs_add_in_a_child(env, *argv: str) -> tuple[int, list[str]]:
    """`vicaran docs add` in a capped child process, stopped if it hangs."""
    argv_ = ["docs", "add", *argv]
    code, output = run_in_a_capped_child(
        env, "from vicaran_agent import cli", f"raise SystemExit(cli.main({argv_!r}))"
    )
    return code, output.splitlines()


# --- what is not a regular file -------------------------------------------------------------


def test_a_fifo_in_the_folder_is_skipped_and_the_command_finishes(env, dossier) -> None:
    os.mkfifo(dossier / "pipe.txt")  # nobody ever writes: opening it would wait forever

    code, lines = docs_add_in_a_child(env, str(dossier), "--collection", "c")

    assert code == 0, lines
    line = line_for(lines, str(dossier / "pipe.txt"))
    assert line.startswith("skipped") and "a named pipe (FIFO), not a regular file" in line
    assert line_for(lines, str(dossier / "audit.txt")).startswith("added")
    assert lines[-1] == 'Collection "c": 1 added, 1 skipped.'


def test_parse_file_refuses_a_fifo_at_once(env, tmp_path) -> None:
    """What opens the file checks too: a FIFO put where a file was walked never blocks."""
    fifo = tmp_path / "swapped.txt"
    os.mkfifo(fifo)
    imports = (
        "from pathlib import Path\n"
        "from vicaran_agent.documents.model import DocumentError\n"
        "from vicaran_agent.documents.parse import parse_file"
    )
    code = (
        "try:\n"
        f"    parse_file(Path({str(fifo)!r}))\n"
        "except DocumentError as error:\n"
        "    print('refused:', error)\n"
    )
    _, output = run_in_a_capped_child(env, imports, code)
    assert output.startswith("refused:") and "not a regular file" in output, output


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
