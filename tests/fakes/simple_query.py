"""The subset of OpenSearch `simple_query_string` the Querido Diário fake understands.

How the real index analyses text (okfn-brasil/querido-diario-data-processing, tasks/create_index.py):
`source_text` uses the `brazilian` analyzer (lower-case, Portuguese stop words, the Brazilian stemmer,
which also drops accents); quoted phrases go to `source_text.exact` (standard tokenizer, lower-case
only: accents count). The fake follows that:

- a bare word matches case- and accent-insensitively, after a light plural stemmer standing in for
  the Brazilian one ("contratos" matches "contrato", "emergenciais" "emergencial"); stop words drop out;
- `"a phrase"` matches those words next to each other, case-insensitively, accents exact;
- `a b` is a OR b (the default operator), `a + b` AND, `a | b` OR, left to right without precedence
  (as Lucene's SimpleQueryParser builds it: `a | b + c` is `(a | b) + c`); `( … )` groups;
- a leading `-` negates (with the default OR, `a -b` matches whatever has a OR lacks b, as the real
  engine does); `pref*` is a prefix; `~N` after a word or phrase is ignored (no fuzziness).

Everything is a linear scan (no backtracking patterns): `\\w+` finds words.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

MAX_DEPTH = 16  # deeper parentheses are read as spaces
MAX_HITS = 500  # matches looked at for excerpts (a fake: enough for any fixture)
_WORD = re.compile(r"\w+")
_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_OPERATORS = frozenset('+|()"')

_STOPWORDS = "a o e as os de da do das dos em no na nos nas um uma uns umas ao aos para por pelo "
_STOPWORDS += "pela pelos pelas com sem que se ou sua seu suas seus ser foi sao nao como mais"
STOPWORDS = frozenset(_STOPWORDS.split())


def fold(text: str) -> str:
    """Lower-case, accents removed."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


_PLURALS = (("oes", "ao"), ("aes", "ao"), ("ais", "al"), ("eis", "el"), ("ois", "ol"))
_PLURALS += (("uis", "ul"), ("ns", "m"), ("res", "r"), ("zes", "z"), ("ses", "s"))


def stem(word: str) -> str:
    """A folded word without its plural ending (a light stand-in for the Brazilian stemmer)."""
    if len(word) <= 3 or word.isdigit():
        return word
    for ending, replacement in _PLURALS:
        if word.endswith(ending):
            return word[: -len(ending)] + replacement
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


# --- documents ------------------------------------------------------------------------------


@dataclass
class Document:
    """A text split into words, indexed both ways (stems and exact lower-case words)."""

    text: str
    spans: list[tuple[int, int]] = field(default_factory=list)
    exact: list[str] = field(default_factory=list)
    folded: list[str] = field(default_factory=list)
    stems: list[str] = field(default_factory=list)
    by_exact: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_stem: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))


def analyze(text: str) -> Document:
    document = Document(text)
    for match in _WORD.finditer(text):
        word = match.group()
        index = len(document.spans)
        document.spans.append(match.span())
        exact, folded = word.lower(), fold(word)
        document.exact.append(exact)
        document.folded.append(folded)
        document.stems.append(stem(folded))
        document.by_exact[exact].append(index)
        document.by_stem[document.stems[-1]].append(index)
    return document


# --- queries --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """A bare word (or a word the analyzer splits, such as "113.079", matched as a sequence)."""

    stems: tuple[str, ...]
    prefix: bool = False


@dataclass(frozen=True)
class Phrase:
    words: tuple[str, ...]  # lower-case, accents kept


@dataclass(frozen=True)
class Not:
    clause: Clause


@dataclass(frozen=True)
class Group:
    """Clauses combined left to right; the first operator is ignored."""

    items: tuple[tuple[str, Clause], ...]


Clause = Term | Phrase | Not | Group
Leaf = Term | Phrase


def _term(raw: str) -> Term | None:
    raw = raw.split("~", 1)[0]
    prefix = raw.endswith("*")
    words = [fold(w) for w in _WORD.findall(raw.rstrip("*"))]
    if prefix and len(words) == 1:
        return Term((words[0],), prefix=True)
    stems = tuple(stem(w) for w in words if w not in STOPWORDS)
    return Term(stems) if stems else None


def _phrase(raw: str) -> Phrase | None:
    words = tuple(w.lower() for w in _WORD.findall(raw))
    return Phrase(words) if words else None


@dataclass
class _Frame:
    items: list[tuple[str, Clause]] = field(default_factory=list)
    operator: str | None = None
    negate: bool = False

    def add(self, clause: Clause | None) -> None:
        if clause is not None:
            if self.negate:
                clause = Not(clause)
            self.items.append((self.operator or "OR", clause))
        self.operator, self.negate = None, False


def _group(frame: _Frame) -> Clause | None:
    if not frame.items:
        return None
    return frame.items[0][1] if len(frame.items) == 1 else Group(tuple(frame.items))


def parse(query: str) -> Clause | None:
    """The query as a clause tree; None when nothing searchable is left (matches nothing)."""
    text = query.translate(_CURLY)
    stack = [_Frame()]
    i, size = 0, len(text)
    while i < size:
        char = text[i]
        frame = stack[-1]
        if char.isspace():
            i += 1
        elif char == '"':
            end = text.find('"', i + 1)
            end = size if end < 0 else end
            frame.add(_phrase(text[i + 1 : end]))
            i = end + 1
            while i < size and not text[i].isspace() and text[i] not in _OPERATORS:
                i += 1  # a slop (`"…"~2`) is ignored
        elif char in "+|":
            frame.operator = "AND" if char == "+" else "OR"
            i += 1
        elif char == "-" and (i + 1 < size and not text[i + 1].isspace()):
            frame.negate = not frame.negate
            i += 1
        elif char == "(" and len(stack) < MAX_DEPTH:
            stack.append(_Frame())
            i += 1
        elif char == ")" and len(stack) > 1:
            done = stack.pop()
            stack[-1].add(_group(done))
            i += 1
        elif char in "()":
            i += 1
        else:
            start = i
            while i < size and not text[i].isspace() and text[i] not in _OPERATORS:
                i += 1
            frame.add(_term(text[start:i]))
    while len(stack) > 1:  # unclosed parentheses close at the end
        done = stack.pop()
        stack[-1].add(_group(done))
    return _group(stack[0])


# --- matching -------------------------------------------------------------------------------


def occurrences(leaf: Leaf, document: Document) -> list[tuple[int, int]]:
    """Where `leaf` occurs: (first word index, last word index + 1) of each occurrence."""
    if isinstance(leaf, Phrase):
        words, index, tokens = leaf.words, document.by_exact, document.exact
    elif leaf.prefix:
        prefix = leaf.stems[0]
        return [(i, i + 1) for i, w in enumerate(document.folded) if w.startswith(prefix)]
    else:
        words, index, tokens = leaf.stems, document.by_stem, document.stems
    found = []
    for start in index.get(words[0], ()):
        end = start + len(words)
        if end <= len(tokens) and all(tokens[start + k] == w for k, w in enumerate(words)):
            found.append((start, end))
    return found


def matches(clause: Clause, document: Document) -> bool:
    if isinstance(clause, Not):
        return not matches(clause.clause, document)
    if isinstance(clause, Group):
        result = matches(clause.items[0][1], document)
        for operator, item in clause.items[1:]:
            hit = result if operator == "OR" and result else matches(item, document)
            result = (result and hit) if operator == "AND" else (result or hit)
        return result
    return bool(occurrences(clause, document))


def positive_leaves(clause: Clause) -> list[Leaf]:
    """The words and phrases a matching document is highlighted and scored by (not negated)."""
    if isinstance(clause, Not):
        return []
    if isinstance(clause, Group):
        return [leaf for _, item in clause.items for leaf in positive_leaves(item)]
    return [clause]


def score(leaves: list[Leaf], document: Document, idf: dict[Leaf, float]) -> float:
    """A tf-idf relevance: each leaf's (1 + log tf) × idf, gently damped by the length."""
    total = 0.0
    for leaf in set(leaves):
        count = len(occurrences(leaf, document))
        if count:
            total += (1 + math.log(count)) * idf.get(leaf, 1.0)
    return total / (1 + 0.2 * math.log1p(len(document.spans) / 100))


def _fragment(text: str, hit_start: int, hit_end: int, size: int) -> tuple[int, int]:
    """About `size` characters around a match: from the start of its line when that is near
    (as a sentence-aware highlighter starts at a sentence), else centred; never cutting words."""
    line_start = text.rfind("\n", 0, hit_start) + 1
    if hit_start - line_start <= size // 2:
        start = line_start
    else:
        start = max(0, hit_start - (size - (hit_end - hit_start)) // 2)
        space = text.find(" ", start, hit_start)
        start = space + 1 if space >= 0 else start
    end = min(len(text), start + size)
    if end < len(text):
        space = text.rfind(" ", max(hit_end, start + 1), end)
        end = space if space > 0 else end
    return start, end


def excerpts(
    leaves: list[Leaf],
    document: Document,
    size: int,
    count: int,
    tags: tuple[str, str] = ("", ""),
) -> list[str]:
    """Up to `count` fragments of `size` characters around the matches, best (most distinct
    words and phrases) first; matches wrapped in `tags` (none by default)."""
    if count <= 0 or not leaves:
        return []
    size = max(1, size)
    hits: list[tuple[int, int, Leaf]] = []
    for leaf in set(leaves):
        for first, last in occurrences(leaf, document):
            hits.append((document.spans[first][0], document.spans[last - 1][1], leaf))
    hits.sort(key=lambda hit: (hit[0], hit[1]))
    del hits[MAX_HITS:]
    text = document.text
    fragments: list[tuple[float, int, int]] = []  # (-score, start, end)
    covered_until = -1
    for hit_start, hit_end, _ in hits:
        if hit_start < covered_until:
            continue
        start, end = _fragment(text, hit_start, hit_end, size)
        inside = [h for h in hits if h[0] >= start and h[1] <= end]
        rank = len({h[2] for h in inside}) + 0.01 * len(inside)
        fragments.append((-rank, start, end))
        covered_until = end
    chosen = sorted(fragments)[:count]
    pre, post = tags
    shown = []
    for _, start, end in chosen:
        if not (pre or post):
            shown.append(text[start:end])
            continue
        pieces, at = [], start
        for hit_start, hit_end, _ in hits:
            if hit_start >= at and hit_end <= end:
                pieces += [text[at:hit_start], pre, text[hit_start:hit_end], post]
                at = hit_end
        shown.append("".join([*pieces, text[at:end]]))
    return shown
