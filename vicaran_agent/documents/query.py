"""A search query as terms, and the full-text expressions built from them in code.

The user's (or the model's) text is never handed to the database as query syntax: it is cut into
words (letters and digits, linear time), stop words dropped, and each word quoted and OR-ed, so
`NEAR(`, `"`, `*`, `-` or `:` in a query are separators or plain words, never operators.
"""

from __future__ import annotations

from collections import deque

from .synonyms import fold

MAX_TERMS = 32
MAX_TERM_CHARS = 64

_STOP_WORDS_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my no nor not now of off on once only or other our ours out over own same she
    should so some such than that the their theirs them then there these they this those through
    to too under until up very was we were what when where which while who whom why will with
    would you your yours
    ao aos as ate com como da das de dela dele deles demais depois do dos e ela elas ele eles em
    entre era eram essa essas esse esses esta estas este estes eu foi foram ha isso isto ja la
    lhe lhes mais mas me mesmo meu minha muito na nas nao nem no nos nossa nosso num numa o os ou
    para pela pelas pelo pelos por qual quando que quem se sem ser seu seus sua suas so tambem te
    tem ter teu tu tua um uma umas uns voce voces vos
"""  # English and Portuguese, without accents (terms are compared folded)
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def query_terms(query: str) -> list[str]:
    """The words of `query` worth searching for: lower case, no stop words, no repeats, bounded."""
    terms: list[str] = []
    word: list[str] = []
    for c in query[:4000] + " ":
        if c.isalnum():
            word.append(c)
            continue
        if word:
            term = "".join(word).lower()[:MAX_TERM_CHARS]
            word = []
            if fold(term) not in STOP_WORDS and term not in terms:
                terms.append(term)
                if len(terms) == MAX_TERMS:
                    break
    return terms


def fts5_match(terms: list[str]) -> str:
    """An SQLite FTS5 MATCH expression: every term a quoted string, OR-ed ("" when no terms)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def tsquery(terms: list[str]) -> str:
    """A PostgreSQL `to_tsquery` text: terms OR-ed (terms are letters and digits only)."""
    return " | ".join(term for term in terms if term.isalnum())


def excerpt(text: str, query: str, limit: int) -> str:
    """The `limit` characters of `text` around the most query terms (what a reader looks for).

    Two pointers over the words: linear in the text, whatever it holds.
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    limit -= 2  # room for the ellipses
    wanted = set(query_terms(query))
    words: list[tuple[int, int, bool]] = []  # (start, end, matches)
    start = -1
    for i, c in enumerate(text + " "):
        if c.isalnum() and start < 0:
            start = i
        elif not c.isalnum() and start >= 0:
            words.append((start, i, fold(text[start:i]) in wanted))
            start = -1
    best, best_at, left = 0, 0, 0
    inside: deque[int] = deque()  # starts of the matching words in the window
    for right, (start, end, match) in enumerate(words):
        if match:
            inside.append(start)
        while left < right and end - words[left][0] > limit:
            if inside and inside[0] == words[left][0]:
                inside.popleft()
            left += 1
        if len(inside) > best:  # centre the window on its matching words
            best = len(inside)
            best_at = max(0, min(len(text) - limit, (inside[0] + end - limit) // 2))
    cut = text[best_at : best_at + limit]
    return ("…" if best_at else "") + cut + ("…" if best_at + limit < len(text) else "")
