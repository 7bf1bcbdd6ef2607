"""`vicaran docs add | list | remove | search`: the journalist's collections from the terminal.

Exit codes: 0 done (every file taken in or unchanged), 1 something failed or was not found,
2 a usage error (argparse's, or an unusable collection name). Text from documents (titles, file
names, passages) is untrusted: it is printed on one line, without control characters.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings, get_settings
from ..documents.characters import path_text
from ..documents.collection import MAX_COLLECTION_CHARS, CollectionInfo
from ..documents.kinds import kind_of
from ..documents.model import DocumentError, DocumentInfo, DocumentReliability, ParsedDocument
from ..documents.query import excerpt
from ..documents.store import AddOutcome, DocumentStore, get_document_store
from ..i18n import Phrase, localized, system_language
from ..textmatch import closest_name

PROGRESS_FROM = 5  # files; fewer are just listed
PASSAGE_CHARS_SHOWN = 300
OK, FAILED, USAGE = 0, 1, 2


def printable(text: str, limit: int | None = None) -> str:
    """`text` on one line, without control characters, cut at `limit` characters with "…"."""
    line = "".join(c for c in " ".join(text.split()) if c.isprintable())
    if limit is not None and len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line


def parse_file(
    path: Path, settings: Settings | None = None, *, expected: tuple[int, int] | None = None
) -> ParsedDocument:
    """`documents.pool.parse_file`, imported when a file is read: the parsers load for
    `docs add`, not for a command that lists, removes or searches."""
    from ..documents.pool import parse_file as parse_in_worker

    return parse_in_worker(path, settings, expected=expected)


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


@dataclass(frozen=True)
class Found:
    """A path the walk met: the regular file to read for it, or why it is left out."""

    shown: Path  # as given or found in the folder
    read: Path | None = None  # the file read (a link's target), absolute, without links
    identity: tuple[int, int] | None = None  # (device, inode) of `read` when walked
    skip: Phrase | None = None
    missing: bool = False
    link: bool = False


def walk(paths: list[str]) -> list[Found]:
    """Every file under `paths` (folders recursively, hidden ones left out), with why one is not
    read. Only regular files are read; a link inside a folder is followed when its target is in
    that folder too (a file read once), never out of it. A link named on the command line is
    followed: the operator chose it."""
    found: list[Found] = []
    for given in paths:
        path = Path(given).expanduser()
        try:
            status = path.stat()
        except OSError as error:
            found.append(
                _broken_link(path, error) if path.is_symlink() else Found(path, missing=True)
            )
            continue
        if stat.S_ISDIR(status.st_mode):
            found += _walk_folder(path)
        else:
            found.append(_regular(path, Path(os.path.realpath(path)), status))
    return _read_once(found)


def _walk_folder(folder: Path) -> Iterator[Found]:
    root = Path(os.path.realpath(folder))
    for where, folders, files in os.walk(folder):  # links to folders are not descended
        here = Path(where)
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in folders:
            if (here / name).is_symlink():
                yield _link(here / name, root)
        for name in sorted(files):
            if not name.startswith("."):
                yield _entry(here / name, root)


def _entry(path: Path, root: Path) -> Found:
    try:
        status = os.lstat(path)
    except OSError:  # gone since the folder was listed
        return Found(path, missing=True)
    if stat.S_ISLNK(status.st_mode):
        return _link(path, root)
    return _regular(path, Path(os.path.realpath(path)), status)


def _link(path: Path, root: Path) -> Found:
    """A link met in the folder: followed only when it leads to a file inside `root`."""
    try:
        target = path.resolve(strict=True)
        status = target.stat()
    except (OSError, RuntimeError) as error:  # Python 3.11 says a loop with RuntimeError
        return _broken_link(path, error)
    inside = target.is_relative_to(root)
    if stat.S_ISDIR(status.st_mode):
        key = "docs_skip_link_folder_inside" if inside else "docs_skip_link_folder_outside"
        return Found(path, skip=Phrase(key), link=True)
    if not inside:
        return Found(path, skip=Phrase("docs_skip_link_outside"), link=True)
    found = _regular(path, target, status)
    return Found(found.shown, found.read, found.identity, found.skip, link=True)


def _broken_link(path: Path, error: BaseException) -> Found:
    if isinstance(error, RuntimeError) or getattr(error, "errno", None) == errno.ELOOP:
        return Found(path, skip=Phrase("docs_skip_link_loop"), link=True)
    if isinstance(error, FileNotFoundError):
        return Found(path, skip=Phrase("docs_skip_link_dangling"), link=True)
    return Found(path, skip=Phrase("docs_skip_link_unreadable", error=_strerror(error)), link=True)


def _regular(shown: Path, target: Path, status: os.stat_result) -> Found:
    """A file to read when it is a regular file of a kind Vicaran reads."""
    if (special := not_a_regular_file(status)) is not None:
        return Found(shown, skip=special)
    if not kind_of(target.name):
        return Found(shown, skip=Phrase("docs_skip_kind"))
    return Found(shown, target, (status.st_dev, status.st_ino))


def not_a_regular_file(status: os.stat_result) -> Phrase | None:
    """What a path is when it is not a regular file (a FIFO would block whoever opens it)."""
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return Phrase("docs_skip_fifo")
    if stat.S_ISSOCK(mode):
        return Phrase("docs_skip_socket")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Phrase("docs_skip_device")
    return Phrase("docs_skip_special")


def _read_once(found: list[Found]) -> list[Found]:
    """A file reached by a link and by its own name (or by two links) is read once."""
    owners: dict[tuple[int, int], Path] = {}
    for item in sorted(found, key=lambda f: f.link):  # files by their own name first
        if item.identity is not None:
            owners.setdefault(item.identity, item.shown)
    kept = []
    for item in found:
        owner = owners.get(item.identity) if item.identity is not None else None
        if item.link and owner is not None and owner != item.shown and item.read is not None:
            # named by the path it is read under: its file name when that says it
            target = printable(owner.name if owner.name == item.read.name else str(owner))
            item = Found(item.shown, skip=Phrase("docs_skip_link_duplicate", target=target))
        kept.append(item)
    return kept


def _strerror(error: BaseException) -> str:
    return getattr(error, "strerror", None) or type(error).__name__


def add(paths: list[str], collection: str, reliability: DocumentReliability | None) -> int:
    """Parse and index every file under `paths` into `collection`; one line per file."""
    name = _usable_collection(collection)
    if name is None:
        return USAGE
    settings = get_settings()
    language = system_language()
    store = _store(settings)
    found = walk(paths)
    readable = [item for item in found if item.read is not None]
    counts = dict.fromkeys(("added", "unchanged", "replaced", "failed", "skipped"), 0)
    with _progress(len(readable)) as (say, advance):
        for item in found:
            if item.missing:
                counts["failed"] += 1
                say(f"failed     {printable(str(item.shown))}: no such file or folder")
            elif item.read is None:
                counts["skipped"] += 1
                reason = localized(item.skip, language)
                say(f"skipped    {printable(str(item.shown))}: {printable(str(reason))}")
        for item in readable:
            status, line = _add_one(store, item, name, reliability, settings, language)
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
    item: Found,
    collection: str,
    reliability: DocumentReliability | None,
    settings: Settings,
    language: str,
) -> tuple[str, str]:
    """("added" | "unchanged" | "replaced" | "failed", the line to show) for one file."""
    shown = printable(str(item.shown))
    assert item.read is not None
    try:
        parsed = parse_file(item.read, settings, expected=item.identity)
        outcome = store.add(parsed, collection, reliability)
    except DocumentError as error:
        return "failed", f"failed     {shown}: {printable(error.said_in(language))}"
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
    """Every document (of one collection), as a table: every collection, chat attachments
    included, with its owner; a collection without documents is a row of its own."""
    store = _store()
    collections = {c.name: c for c in store.collection_owners()}
    if collection is not None and collection not in collections:
        _no_collection(collection, collections)
        return FAILED
    documents = store.documents(collection)
    shown = [collection] if collection is not None else list(collections)
    empty = [collections[name] for name in shown if not collections[name].documents]
    if not documents and not empty:
        print("No documents yet: add some with `vicaran docs add PATH --collection NAME`.")
        return OK
    print(_table(documents, collections, empty))
    return OK


def _no_collection(name: str, known: Iterable[str]) -> None:
    """There is no collection `name`: say so, with the one spelt most nearly like it."""
    close = closest_name(name, known)
    hint = f' Did you mean "{printable(close)}"?' if close else ""
    print(f'No collection "{printable(name)}".{hint}', file=sys.stderr)


def owner_of(collection: CollectionInfo) -> str:
    """Whose a collection is, for the operator: shared, a user's attachments, or unknown."""
    if collection.shared:
        return "operator (shared)"
    if collection.owner is not None:
        return f"user {printable(collection.owner, 40)}"
    return f"unknown (investigation {printable(collection.investigation_id or '-', 36)})"


def _table(
    documents: list[DocumentInfo],
    collections: dict[str, CollectionInfo],
    empty: list[CollectionInfo],
) -> str:
    head = ("collection", "owner", "title", "file", "pages", "language", "unreadable pages")
    head += ("passages",)
    rows = [head]

    def named(name: str) -> tuple[str, str]:
        found = collections.get(name)
        reliability = found.reliability if found else "neutral"
        owner = owner_of(found) if found else "-"
        return f"{printable(name, 50)} ({reliability})", owner

    for d in documents:
        unreadable = ", ".join(str(u.number) for u in d.unreadable[:10]) or "-"
        if len(d.unreadable) > 10:
            unreadable += f" (+{len(d.unreadable) - 10})"
        rows.append(
            (
                *named(d.collection),
                printable(d.title, 50),
                printable(d.file_name, 40),
                str(d.page_count),
                d.language,
                unreadable,
                str(d.passages),
            )
        )
    rows += [(*named(c.name), "(no documents)", "-", "-", "-", "-", "0") for c in empty]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def remove(collection: str, documents: list[str]) -> int:
    """Remove documents (by file name, path or id) or, without any, the whole collection."""
    store = _store()
    known = store.collections()
    if collection not in known:
        _no_collection(collection, known)
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


def search(query: str, collections: list[str] | None, limit: int) -> int:
    """The passages best matching `query` in `collections` (None: in every collection), each
    with its collection, document and page (`p. N`)."""
    store = _store()
    known = store.collections()
    unknown = [name for name in collections or [] if name not in known]
    if unknown:
        for name in unknown:
            _no_collection(name, known)
        return FAILED
    if not known:
        print("No documents yet: add some with `vicaran docs add PATH --collection NAME`.")
        return OK
    hits = store.search(query, collections or list(known), limit=limit)
    if not hits:
        print("No passage matches.")
        return OK
    for rank, hit in enumerate(hits, start=1):
        source = f"{printable(hit.title, 80)} ({printable(hit.file_name, 60)})"
        score = f"{hit.score:.2f}" if hit.score >= 0.005 else "<0.01"
        where = f'in "{printable(hit.collection, 60)}"'
        print(f"{rank}. {source} {where}, p. {hit.page} - score {score}")
        print(f"   {printable(excerpt(hit.text, query, PASSAGE_CHARS_SHOWN))}")
    return OK
