"""Hostile documents, written byte by byte: files built to exhaust a parser, not to be read.

Each is what issue 20 attacked `vicaran serve` with (nothing here is downloaded):

- `self_drawing_pdf`: under 1 KB, a Form XObject that draws itself twice. PDFium expands it
  while loading the page, growing about 600 MB/s until it aborts (SIGABRT).
- `nested_forms_pdf`: 40 Form XObjects, each drawing the next twice (2^40 draws).
- `tiny_paragraphs_docx`: a DOCX of millions of one-letter paragraphs, a few hundred KB that
  unpack to ~95 MB of XML (python-docx held 1.65 GB for it).
- `one_stream_pdf`: 2,000 pages sharing one content stream of ~230,000 characters of text:
  468,000 passages, 234 s and a 963 MB database when indexed whole.
- `noise_pdf`: 2,000 pages drawing one image of noise and no text: every page goes to OCR.
"""

from __future__ import annotations

import io
import json
import os
import random
import resource
import subprocess
import sys
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PDF_HEADER = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


def pdf(objects: list[bytes]) -> bytes:
    """A PDF of `objects` (object 1 the catalog), with a correct cross-reference table."""
    out = bytearray(PDF_HEADER)
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def stream(dictionary: bytes, data: bytes, *, deflate: bool = False) -> bytes:
    """A stream object's body: `dictionary` entries, then `data` (Flate-compressed if asked)."""
    if deflate:
        data = zlib.compress(data, 9)
        dictionary += b" /Filter /FlateDecode"
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _pages(count: int, resources: bytes, contents: int, first: int = 3) -> list[bytes]:
    """The page tree (object 2, holding the pages' size and resources, which they inherit) and
    `count` page objects numbered from `first`, all drawing object `contents`."""
    kids = b" ".join(b"%d 0 R" % (first + n) for n in range(count))
    tree = (
        b"<< /Type /Pages /MediaBox [0 0 612 792] /Resources "
        + resources
        + b" /Kids ["
        + kids
        + b"] /Count %d >>" % count
    )
    return [tree] + [b"<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>" % contents] * count


def self_drawing_pdf() -> bytes:
    """One page drawing Form X, which draws itself twice."""
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            *_pages(1, b"<< /XObject << /X 4 0 R >> >>", contents=5),
            stream(
                b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                b"/Resources << /XObject << /X 4 0 R >> >>",
                b"/X Do /X Do",
            ),
            stream(b"", b"/X Do"),
        ]
    )


def nested_forms_pdf(levels: int = 40) -> bytes:
    """One page drawing Form 0; Form n draws Form n+1 twice; the last draws a line."""
    first_form = 5
    forms = []
    for level in range(levels):
        if level == levels - 1:
            resources, body = b"<< >>", b"0 0 m 10 10 l S"
        else:
            resources = b"<< /XObject << /F %d 0 R >> >>" % (first_form + level + 1)
            body = b"/F Do /F Do"
        forms.append(
            stream(
                b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources " + resources,
                body,
            )
        )
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            *_pages(1, b"<< /XObject << /F %d 0 R >> >>" % first_form, contents=4),
            stream(b"", b"/F Do"),
            *forms,
        ]
    )


def one_stream_pdf(pages: int = 2000, chars_per_page: int = 230_000, seed: int = 5) -> bytes:
    """`pages` pages that all draw the same content stream: ~`chars_per_page` characters of
    text in lines of Helvetica (so each page extracts to that much text)."""
    rng = random.Random(seed)
    letters = "abcdefghijlmnopqrstuvz"
    vocabulary = ["".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(3000)]
    lines, size = [], 0
    while size < chars_per_page:
        line = " ".join(rng.choices(vocabulary, k=14))
        lines.append(b"(" + line.encode("ascii") + b") Tj T*")
        size += len(line) + 1
    content = b"BT /F1 1 Tf 1 TL 10 780 Td\n" + b"\n".join(lines) + b"\nET"
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    contents = pages + 3
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            *_pages(pages, b"<< /Font << /F1 %d 0 R >> >>" % (contents + 1), contents),
            stream(b"", content, deflate=True),
            font,
        ]
    )


def noise_pdf(pages: int = 2000, side: int = 560, seed: int = 9) -> bytes:
    """`pages` pages, each one image of grey noise (`side` x `side`, shared) and no text."""
    rng = random.Random(seed)
    pixels = rng.randbytes(side * side)
    image = stream(
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8" % (side, side),
        pixels,
        deflate=True,
    )
    contents = pages + 3
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            *_pages(pages, b"<< /XObject << /Im %d 0 R >> >>" % (contents + 1), contents),
            stream(b"", b"q 612 0 0 792 0 0 cm /Im Do Q"),
            image,
        ]
    )


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def tiny_paragraphs_docx(unpacked_bytes: int = 95_000_000) -> bytes:
    """A DOCX whose document.xml is ~`unpacked_bytes` of one-letter paragraphs (it deflates
    to a few hundred KB)."""
    paragraph = b"<w:p><w:r><w:t>a</w:t></w:r></w:p>"
    head = f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{_W}"><w:body>'.encode()
    tail = b"</w:body></w:document>"
    count = max(1, (unpacked_bytes - len(head) - len(tail)) // len(paragraph))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
        package.writestr("[Content_Types].xml", _CONTENT_TYPES)
        package.writestr("_rels/.rels", _RELS)
        with package.open("word/document.xml", "w") as document:
            document.write(head)
            block = paragraph * 10_000
            for _ in range(count // 10_000):
                document.write(block)
            document.write(paragraph * (count % 10_000))
            document.write(tail)
    return buffer.getvalue()


# --- running what may blow up in a child process with a memory cap ------------------------------

ROOT = Path(__file__).resolve().parent.parent.parent
# A child's address space: room for Python, ADK and the parse pool's own (capped) workers, but
# never the machine: a parser that runs away in the child itself stops here (an abort).
CHILD_MEMORY_MB = 3072

_TAKE_IN = """
import asyncio, json, sys
from google.genai import types
from vicaran_agent.documents import intake

def parts(files):
    return [
        types.Part(inline_data=types.Blob(
            data=open(path, "rb").read(), mime_type=mime, display_name=name))
        for name, mime, path in files
    ]

async def main(turns):
    store = intake.document_store()
    done, earlier = [], []
    for files in turns:
        attachments = intake.attachments_in(types.Content(role="user", parts=parts(files)))
        kwargs = {"earlier": earlier} if earlier else {}
        records = await intake.take_in(attachments, "investigation-test", None, **kwargs)
        earlier += records
        for record in records:
            info = store.get(record.document_id) if record.document_id else None
            done.append({
                **record.model_dump(),
                "document": None if info is None else {
                    "pages": info.page_count,
                    "passages": info.passages,
                    "chars": sum(
                        len(store.page_text(info.document_id, page) or "")
                        for page in range(1, info.page_count + 1)
                    ),
                    "unreadable": [[u.number, u.reason] for u in info.unreadable],
                    "ocr_pages": list(info.ocr_pages),
                },
            })
    print("RESULT " + json.dumps(done))

asyncio.run(main(json.loads(sys.argv[1])))
"""


@dataclass
class Taken:
    """What a child process's `intake.take_in` made of some attachments."""

    returncode: int
    records: list[dict[str, Any]]
    output: str

    def by_name(self) -> dict[str, dict[str, Any]]:
        return {record["file_name"]: record for record in self.records}


def _cap(memory_mb: int) -> Callable[[], None]:
    def limit() -> None:
        size = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # an abort writes no core file

    return limit


def take_in_capped(
    turns: list[list[tuple[str, str, Path]]],
    environment: dict[str, str],
    *,
    timeout: float = 120,
    memory_mb: int = CHILD_MEMORY_MB,
) -> Taken:
    """`intake.take_in` of each turn's (file name, MIME type, path) files, in a child process
    with `environment`, at most `memory_mb` of address space and `timeout` seconds (a guard:
    the child is killed past it, and the test sees a returncode of -9)."""
    argument = json.dumps([[[n, m, str(p)] for n, m, p in files] for files in turns])
    try:
        done = subprocess.run(
            [sys.executable, "-c", _TAKE_IN, argument],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **environment},
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_cap(memory_mb),
            check=False,
        )
    except subprocess.TimeoutExpired as stopped:
        output = (stopped.stderr or b"").decode(errors="replace") if stopped.stderr else ""
        return Taken(-9, [], f"stopped after {timeout} s\n{output[-3000:]}")
    found = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    records = json.loads(found[-1][len("RESULT ") :]) if found else []
    return Taken(done.returncode, records, (done.stderr or "")[-3000:])


def fake_tesseract(folder: Path, text: str = "Page read by OCR.", rendezvous: int = 0) -> Path:
    """A folder holding a `tesseract` stand-in (put it first on PATH): it lists eng, logs each
    page it is given as a line of `calls`, and prints `text`.

    With `rendezvous`, each page waits until that many pages are being read at once (a marker
    file each; 20 s at most) and prints ALONE instead of `text` when they never were.
    """
    folder.mkdir(parents=True, exist_ok=True)
    wait = ""
    if rendezvous:
        wait = (
            f'marker=$(mktemp "{folder}/reading.XXXXXX")\n'
            "tries=0\n"
            f'while [ "$(ls "{folder}" | grep -c "^reading\\.")" -lt {rendezvous} ]; do\n'
            '  tries=$((tries + 1)); if [ "$tries" -gt 2000 ]; then echo ALONE; exit 0; fi\n'
            "  sleep 0.01\n"
            "done\n"
        )
    script = folder / "tesseract"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--list-langs" ]; then\n'
        "  printf 'List of available languages in \"/x\" (1):\\neng\\n'; exit 0\n"
        "fi\n"
        "cat > /dev/null\n"
        f'echo page >> "{folder}/calls"\n'
        f"{wait}"
        f"echo '{text}'\n"
    )
    script.chmod(0o755)
    return folder


def ocr_calls(folder: Path) -> int:
    calls = folder / "calls"
    return calls.read_text().count("\n") if calls.exists() else 0


# --- parse-pool tasks for tests (module-level: a worker imports them by name) -------------------


def abort(*args: object) -> None:
    """A parser that dies as PDFium does out of memory (SIGABRT)."""
    os.abort()


def hold(folder: str, name: str) -> int:
    """Say it started (`folder/holding-<name>`), wait until `folder/release` exists (60 s at
    most), then give its process id."""
    Path(folder, f"holding-{name}").touch()
    for _ in range(6000):
        if Path(folder, "release").exists():
            break
        time.sleep(0.01)
    return os.getpid()


def holding(folder: Path) -> list[Path]:
    return sorted(folder.glob("holding-*"))


def allocate(mb: int) -> int:
    """Ask Python for `mb` MB at once (a MemoryError past the worker's cap)."""
    return len(bytearray(mb << 20))


def grow(folder: str, name: str, mb: int) -> int:
    """Hold `mb` MB of touched memory, say so (`folder/grown-<name>`), wait for `release`."""
    held = bytearray(mb << 20)
    held[::4096] = b"\x01" * len(range(0, len(held), 4096))  # resident, not just reserved
    Path(folder, f"grown-{name}").touch()
    for _ in range(6000):
        if Path(folder, "release").exists():
            break
        time.sleep(0.01)
    return len(held)


def start_and_hang(folder: str) -> None:
    """Start a long `sleep` (as OCR starts Tesseract), write its pid, then never return."""
    child = subprocess.Popen(["sleep", "600"])
    Path(folder, "child.pid").write_text(str(child.pid))
    while True:
        time.sleep(1)


def ask_then_sleep(seconds: float, *, ask: Callable[[object], object]) -> object:
    """Ask the caller once, sleep `seconds` (more than the task's own time limit), answer."""
    answer = ask("may I?")
    time.sleep(seconds)
    return answer


def hang(folder: str) -> None:
    """Say it started (`folder/hanging`), then never return (a parser stuck in a loop)."""
    Path(folder, "hanging").touch()
    while True:
        time.sleep(1)
