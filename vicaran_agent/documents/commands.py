"""`vicaran docs add | list | remove | search`: the journalist's collections from the terminal.

Exit codes: 0 done (every file taken in or unchanged), 1 something failed or was not found,
2 a usage error (argparse's, or an unusable collection name). Text from documents (titles, file
names, passages) is untrusted: it is printed on one line, without control characters.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..config import Settings, get_settings
from .characters import path_text
from .model import DocumentError, DocumentInfo, DocumentReliability
from .parse import kind_of
from .pool import parse_file
from .query import excerpt
from .store import MAX_COLLECTION_CHARS, AddOutcome, DocumentStore, get_document_store

PROGRESS_FROM = 5  # files; fewer are just listed
PASSAGE_CHARS_SHOWN = 300
OK, FAILED, USAGE = 0, 1, 2


def printable(text: str, limit: int | None = None) -> str:
    """`text` on one line, without control characters, cut at `limit` characters with "…"."""
    line = "".join(c for c in " ".join(text.split()) if c.isprintable())
    if limit is not None and len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line


def _store(settings: Settings | None = None) -> DocumentStore:
    return get_document_store((settings or get_settings()).database_url)


def _usable_collection(name: str) -> str | None:
    name = " ".join(name.split())
    if not name or len(name) > MAX_COLLECTION_CHARS:
        print(
            f"A collection needs a name of 1 to {MAX_COLLECTION_CHARS} characters.",
            file=sys.stderr,
        )
        return None
    return name


# --- add -------------------------------------------------------------------------------------


def walk(paths: list[str]) -> Iterator[tuple[Path, str | None]]:
    """Every file under `paths` (folders recursively, hidden ones left out), with why it is skipped.

    The reason is None for a file Vicaran reads; a path that does not exist is reported too.
    """
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            for folder, folders, files in os.walk(path):
                folders[:] = sorted(f for f in folders if not f.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        yield Path(folder) / name, _skip_reason(name)
        elif path.is_file():
            yield path, _skip_reason(path.name)
        else:
            yield path, "missing"


def _skip_reason(name: str) -> str | None:
    return None if kind_of(name) else "not a kind of file Vicaran reads"


def add(paths: list[str], collection: str, reliability: DocumentReliability | None) -> int:
    """Parse and index every file under `paths` into `collection`; one line per file."""
    name = _usable_collection(collection)
    if name is None:
        return USAGE
    settings = get_settings()
    store = _store(settings)
    found = list(walk(paths))
    readable = [path for path, reason in found if reason is None]
    counts = dict.fromkeys(("added", "unchanged", "replaced", "failed", "skipped"), 0)
    with _progress(len(readable)) as (say, advance):
        for path, reason in found:
            if reason == "missing":
                counts["failed"] += 1
                say(f"failed     {printable(str(path))}: no such file or folder")
            elif reason is not None:
                counts["skipped"] += 1
                say(f"skipped    {printable(str(path))}: {reason}")
        for path in readable:
            status, line = _add_one(store, path, name, reliability, settings)
            counts[status] += 1
            say(line)
            advance()
    if not readable and not counts["failed"]:
        print(f"No document Vicaran reads in {', '.join(paths)}.", file=sys.stderr)
        return FAILED
    summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    print(f'Collection "{printable(name)}": {summary}.')
    return FAILED if counts["failed"] else OK


def _add_one(
    store: DocumentStore,
    path: Path,
    collection: str,
    reliability: DocumentReliability | None,
    settings: Settings,
) -> tuple[str, str]:
    """("added" | "unchanged" | "replaced" | "failed", the line to show) for one file."""
    shown = printable(str(path))
    try:
        outcome = store.add(parse_file(path.resolve(), settings), collection, reliability)
    except DocumentError as error:
        return "failed", f"failed     {shown}: {printable(str(error))}"
    except Exception as error:  # noqa: BLE001 - one bad file never stops the others
        detail = printable(f"{type(error).__name__}: {error}", 200)
        return "failed", f"failed     {shown}: could not be read ({detail})"
    return outcome.status, f"{outcome.status:<10} {shown}{_details(outcome)}"


def _details(outcome: AddOutcome) -> str:
    if outcome.status == "unchanged":
        return " (already in the collection)"
    document = outcome.document
    parts = [_count(document.page_count, "page"), _count(document.passages, "passage")]
    if document.unreadable:
        pages = ", ".join(str(u.number) for u in document.unreadable[:10])
        more = "…" if len(document.unreadable) > 10 else ""
        parts.append(f"unreadable: p. {pages}{more}")
    return f" ({'; '.join(parts)})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@contextlib.contextmanager
def _progress(total: int) -> Iterator[tuple[Callable[[str], None], Callable[[], None]]]:
    """(print a line, advance one file): a rich progress bar for many files on a terminal."""
    if total < PROGRESS_FROM or not sys.stdout.isatty():
        yield print, lambda: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
    ) as progress:
        task = progress.add_task("Indexing", total=total)
        yield (
            lambda line: progress.console.print(line, markup=False, highlight=False),
            lambda: progress.advance(task),
        )


# --- list, remove, search --------------------------------------------------------------------


def list_documents(collection: str | None) -> int:
    """Every document (of one collection), as a table."""
    store = _store()
    collections = store.collections()
    if collection is not None and collection not in collections:
        print(f'No collection "{printable(collection)}".', file=sys.stderr)
        return FAILED
    documents = store.documents(collection)
    if not documents:
        print("No documents yet: add some with `vicaran docs add PATH --collection NAME`.")
        return OK
    print(_table(documents, collections))
    return OK


def _table(documents: list[DocumentInfo], reliability: dict[str, DocumentReliability]) -> str:
    head = ("collection", "title", "file", "pages", "language", "unreadable pages", "passages")
    rows = [head]
    for d in documents:
        unreadable = ", ".join(str(u.number) for u in d.unreadable[:10]) or "-"
        if len(d.unreadable) > 10:
            unreadable += f" (+{len(d.unreadable) - 10})"
        rows.append(
            (
                f"{printable(d.collection, 30)} ({reliability.get(d.collection, 'neutral')})",
                printable(d.title, 50),
                printable(d.file_name, 40),
                str(d.page_count),
                d.language,
                unreadable,
                str(d.passages),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def remove(collection: str, documents: list[str]) -> int:
    """Remove documents (by file name, path or id) or, without any, the whole collection."""
    store = _store()
    if collection not in store.collections():
        print(f'No collection "{printable(collection)}".', file=sys.stderr)
        return FAILED
    shown = printable(collection)
    if not documents:
        removed = store.remove(collection)
        print(f'Removed collection "{shown}" ({_count(removed, "document")}).')
        return OK
    missing = 0
    for document in map(path_text, documents):  # as the store keeps names (see parse_file)
        if store.remove(collection, document):
            print(f'Removed {printable(document)} from "{shown}".')
        else:
            missing += 1
            print(f'No document {printable(document)} in "{shown}".', file=sys.stderr)
    return FAILED if missing else OK


def search(query: str, collections: list[str], limit: int) -> int:
    """The passages best matching `query`, each with its document and page (`p. N`)."""
    store = _store()
    known = store.collections()
    unknown = [name for name in collections if name not in known]
    if unknown:
        names = ", ".join(f'"{printable(name)}"' for name in unknown)
        print(f"No collection {names}.", file=sys.stderr)
        return FAILED
    hits = store.search(query, collections, limit=limit)
    if not hits:
        print("No passage matches.")
        return OK
    for rank, hit in enumerate(hits, start=1):
        source = f"{printable(hit.title, 80)} ({printable(hit.file_name, 60)})"
        score = f"{hit.score:.2f}" if hit.score >= 0.005 else "<0.01"
        print(f"{rank}. {source}, p. {hit.page} - score {score}")
        print(f"   {printable(excerpt(hit.text, query, PASSAGE_CHARS_SHOWN))}")
    return OK
