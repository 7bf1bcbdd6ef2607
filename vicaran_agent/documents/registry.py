"""Which document a reference names: titles, file names and synonyms, matched exactly, closely
or in part (in that order), with the referring document breaking ties."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

from .model import DocumentInfo
from .names import ANNEX_WORDS, fold, numbers

MatchHow = Literal["exact", "fuzzy", "substring"]
MatchedName = Literal["title", "file name", "synonym"]
FUZZY_MIN = 0.7
_LEVEL = {"exact": 0, "fuzzy": 1, "substring": 2}
_STOPWORDS = frozenset(
    {"a", "o", "os", "as", "e", "de", "da", "do", "das", "dos", "em", "no", "na", "nos", "nas"}
    | {"para", "por", "com", "ao", "the", "of", "and", "to", "in", "on", "for", "an", "by", "at"}
)


@dataclass(frozen=True)
class Resolution:
    """The document a reference names, how it was matched (exact, fuzzy, substring), how well."""

    document: DocumentInfo
    how: MatchHow
    score: float  # 1.0 for exact; the similarity for fuzzy; the share of the longer name else
    matched: MatchedName = "title"


@dataclass(frozen=True)
class _Name:
    folded: str
    field: MatchedName


def _stem(file_name: str) -> str:
    """A file name without folders or extension, separators as spaces."""
    stem = os.path.splitext(os.path.basename(file_name))[0]
    return stem.replace("_", " ").replace("-", " ").replace("+", " ")


def _names(document: DocumentInfo) -> list[_Name]:
    raw: list[tuple[str, MatchedName]] = [
        (document.title, "title"),
        (document.metadata_title, "title"),
        (document.first_heading, "title"),
        (_stem(document.file_name), "file name"),
    ]
    raw += [(synonym, "synonym") for synonym in getattr(document, "synonyms", ()) or ()]
    names: list[_Name] = []
    for text, field in raw:
        folded = fold(text or "")
        if folded and all(n.folded != folded for n in names):
            names.append(_Name(folded, field))
    return names


def _contains(longer: str, shorter: str) -> bool:
    """Whether `shorter` is a run of whole words of `longer`."""
    return f" {shorter} " in f" {longer} "


def _substring_score(target: str, name: str) -> float:
    """The share of the longer of the two that the other one is, when one holds the other."""
    target_words, name_words = target.split(), name.split()
    if len(name_words) > len(target_words):
        specific = len(target_words) >= 2 or bool(numbers(target))
        if specific and _contains(name, target):
            return len(target) / len(name)
    elif len(name_words) >= 2 and name != target and _contains(target, name):
        return len(name) / len(target)
    return 0.0


def _is_relative(target: str) -> bool:
    """ "Anexo II" means the annex of the document that cites it."""
    words = target.split()
    return len(words) == 2 and words[0] in ANNEX_WORDS


def _signature(names: list[_Name]) -> set[str]:
    """The runs of numbers in a document's names ("2 2024" of "contrato 2 2024")."""
    runs: set[str] = set()
    for name in names:
        run: list[str] = []
        for token in [*name.folded.split(), ""]:
            if token.isdigit():
                run.append(token)
                continue
            if len(run) >= 2:
                runs.add(" ".join(run))
            run = []
    return runs


class DocumentRegistry:
    """The documents of the collections an investigation reads, by every name they go by."""

    def __init__(self, documents: Sequence[DocumentInfo]) -> None:
        self._documents = list(documents)
        self._names = {d.document_id: _names(d) for d in self._documents}
        self._by_id = {d.document_id: d for d in self._documents}

    def __len__(self) -> int:
        return len(self._documents)

    def __iter__(self) -> Iterator[DocumentInfo]:
        return iter(self._documents)

    def get(self, document_id: str) -> DocumentInfo | None:
        return self._by_id.get(document_id)

    def names_itself(self, target: str, document: DocumentInfo) -> bool:
        """Whether `target` is `document`'s own name, or how its name begins (a contract that
        cites its own number; not a report about that contract)."""
        folded = fold(target)
        names = self._names.get(document.document_id) or _names(document)
        return bool(folded) and any(
            n.folded == folded or n.folded.startswith(folded + " ") for n in names
        )

    def resolve(self, target: str, context: DocumentInfo | None = None) -> Resolution | None:
        """The document `target` names, or None; never `context` (the referring document).

        Exact names come before similar ones (ratio >= 0.7, same numbers), which come before
        names that hold the target or are held by it; within a level the referring document's
        names (shared words, its number, its folder) break ties. "Anexo II" is relative to the
        referring document: an annex that names it wins over an exact "Anexo II" that does not.
        """
        folded = fold(target)
        if not folded:
            return None
        candidates: list[tuple[Resolution, int]] = []
        for order, document in enumerate(self._documents):
            if context is not None and document.document_id == context.document_id:
                continue
            found = self._match(folded, document)
            if found is not None:
                candidates.append((found, order))
        if not candidates:
            return None
        affinity = self._affinity_to(context, folded)
        relative = context is not None and _is_relative(folded)

        def rank(item: tuple[Resolution, int]) -> tuple[object, ...]:
            resolution, order = item
            shared = affinity(resolution.document)
            level = _LEVEL[resolution.how]
            return (relative and shared == 0, level, -shared, -resolution.score, order)

        return min(candidates, key=rank)[0]

    def _match(self, folded: str, document: DocumentInfo) -> Resolution | None:
        best: Resolution | None = None
        for name in self._names[document.document_id]:
            if name.folded == folded:
                return Resolution(document, "exact", 1.0, name.field)
            found: Resolution | None = None
            if numbers(name.folded) == numbers(folded):
                similarity = fuzz.ratio(folded, name.folded) / 100
                if similarity >= FUZZY_MIN:
                    found = Resolution(document, "fuzzy", similarity, name.field)
            if found is None and (share := _substring_score(folded, name.folded)):
                found = Resolution(document, "substring", share, name.field)
            if found and (
                best is None or (_LEVEL[found.how], -found.score) < (_LEVEL[best.how], -best.score)
            ):
                best = found
        return best

    def _affinity_to(
        self, context: DocumentInfo | None, folded: str
    ) -> Callable[[DocumentInfo], int]:
        """How much a candidate's names share with the referring document's."""
        if context is None:
            return lambda document: 0
        names = self._names.get(context.document_id) or _names(context)
        words = {w for n in names for w in n.folded.split()} - _STOPWORDS - set(folded.split())
        runs = _signature(names)
        folder = os.path.dirname(context.path) if context.path else None

        def affinity(document: DocumentInfo) -> int:
            theirs = self._names[document.document_id]
            their_words = {w for n in theirs for w in n.folded.split()}
            shared = len(words & their_words)
            shared += 2 * sum(1 for run in runs if any(_contains(n.folded, run) for n in theirs))
            if folder is not None and document.path and os.path.dirname(document.path) == folder:
                shared += 1
            return shared

        return affinity
