"""Commands in a pseudo-terminal, as a journalist runs them, and what their screen then shows."""

from __future__ import annotations

import fcntl
import os
import pty
import selectors
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ESC = "\x1b"


@dataclass
class TerminalRun:
    code: int
    raw: bytes  # every byte the command wrote to its terminal

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    @property
    def screen(self) -> str:
        """What the terminal shows at the end (scrollback included), without colours."""
        return render(self.text)


def run_in_pty(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout: float = 120.0,
    columns: int = 100,
    rows: int = 40,
) -> TerminalRun:
    """Run `argv` with stdin, stdout and stderr on a new pseudo-terminal; return what it wrote."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(
        list(argv),
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=cwd,
        env={**env, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)},
        start_new_session=True,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    waiting = selectors.DefaultSelector()  # (select.select refuses descriptors past 1023)
    waiting.register(controller, selectors.EVENT_READ)
    try:
        while time.monotonic() < deadline:
            if not waiting.select(0.2):
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        else:
            raise TimeoutError(f"{argv[:3]} did not finish in {timeout:g} s")
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        waiting.close()
        os.close(controller)
    return TerminalRun(code, b"".join(chunks))


def render(text: str) -> str:
    """A small terminal: the lines left on screen after carriage returns, erases and cursor moves.

    Enough for what rich writes (SGR colours, erase line, cursor up/down/column, hide cursor,
    hyperlinks); other escape sequences are dropped. One pass over the text.
    """
    lines: list[list[str]] = [[]]
    row = col = 0
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == ESC and i + 1 < n and text[i + 1] == "[":
            j = i + 2
            while j < n and not ("@" <= text[j] <= "~"):
                j += 1
            params, final = text[i + 2 : j], text[j] if j < n else ""
            i = j + 1
            count = int(params) if params.isdigit() else 1
            if final == "A":
                row = max(0, row - count)
            elif final == "B":
                row += count
            elif final == "G":
                col = max(0, count - 1)
            elif final == "K":
                while len(lines) <= row:
                    lines.append([])
                line = lines[row]
                if params in ("", "0"):
                    del line[col:]
                elif params == "2":
                    line.clear()
            continue
        if char == ESC and i + 1 < n and text[i + 1] == "]":  # OSC (a hyperlink): to BEL or ST
            j = i + 2
            while (
                j < n and text[j] != "\a" and not (text[j] == ESC and text[j + 1 : j + 2] == "\\")
            ):
                j += 1
            i = j + (1 if j < n and text[j] == "\a" else 2)
            continue
        if char == ESC:  # another kind of escape: skip it and the character after
            i += 2
            continue
        i += 1
        if char == "\r":
            col = 0
        elif char == "\n":
            row, col = row + 1, 0
        elif char == "\b":
            col = max(0, col - 1)
        elif char >= " " or char == "\t":
            while len(lines) <= row:
                lines.append([])
            line = lines[row]
            if col < len(line):
                line[col] = char
            else:
                line.extend(" " * (col - len(line)))
                line.append(char)
            col += 1
    return "\n".join("".join(line).rstrip() for line in lines).strip("\n") + "\n"


def has_escape_codes(text: str) -> bool:
    return ESC in text
