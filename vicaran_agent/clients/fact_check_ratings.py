"""Fact-checkers' ratings read as Vicaran's verdicts: the labels publishers use (in the languages
they publish in), the words around them, negations; a rating no label matches maps to nothing."""

from __future__ import annotations

import re
import unicodedata

# Publishers' labels (any case, accents and punctuation; they are normalized on import).
# Add a row to teach Vicaran a new label. Order does not matter: the longest match wins.
RATING_LABELS: dict[str, str] = {
    # verified
    "True": "verified",
    "Correct": "verified",
    "Accurate": "verified",
    "Verified": "verified",
    "Geppetto Checkmark": "verified",
    "Verdadeiro": "verified",
    "Verdade": "verified",
    "Comprovado": "verified",
    "Correto": "verified",
    "Verdadero": "verified",
    "Cierto": "verified",
    "Vrai": "verified",
    "Richtig": "verified",
    "Wahr": "verified",
    # partially_true
    "Partly true": "partially_true",
    "Partially true": "partially_true",
    "Partially correct": "partially_true",
    "Half true": "partially_true",
    "Half-true": "partially_true",
    "Mostly true": "partially_true",
    "Mostly accurate": "partially_true",
    "Mixture": "partially_true",
    "Mixed": "partially_true",
    "Exaggerated": "partially_true",
    "Exaggeration": "partially_true",
    "True, but": "partially_true",
    "One Pinocchio": "partially_true",
    "Two Pinocchios": "partially_true",
    "Meia verdade": "partially_true",
    "Meia-verdade": "partially_true",
    "Parcialmente verdadeiro": "partially_true",
    "Verdadeiro, mas": "partially_true",
    "Verdade, mas": "partially_true",
    "Exagerado": "partially_true",
    "Impreciso": "partially_true",
    "Subestimado": "partially_true",
    "Media verdad": "partially_true",
    "Parcialmente cierto": "partially_true",
    "Exagerada": "partially_true",
    "Verdadero, pero": "partially_true",
    "Exagéré": "partially_true",
    "Plutôt vrai": "partially_true",
    "Teilweise richtig": "partially_true",
    "Überwiegend richtig": "partially_true",
    # misleading
    "Misleading": "misleading",
    "Missing context": "misleading",
    "Out of context": "misleading",
    "Lacks context": "misleading",
    "Needs context": "misleading",
    "Mostly false": "misleading",
    "Partly false": "misleading",
    "Partially false": "misleading",
    "Distorted": "misleading",
    "Miscaptioned": "misleading",
    "Outdated": "misleading",
    "Three Pinocchios": "misleading",
    "Enganoso": "misleading",
    "Fora de contexto": "misleading",
    "Sem contexto": "misleading",
    "Falta contexto": "misleading",
    "Descontextualizado": "misleading",
    "Distorcido": "misleading",
    "Contraditório": "misleading",
    "Não é bem assim": "misleading",
    "Parcialmente falso": "misleading",
    "Engañoso": "misleading",
    "Engañosa": "misleading",
    "Sin contexto": "misleading",
    "Sacado de contexto": "misleading",
    "Trompeur": "misleading",
    "Trompeuse": "misleading",
    "Plutôt faux": "misleading",
    "Manque de contexte": "misleading",
    "Partiellement faux": "misleading",
    "Hors contexte": "misleading",
    "Irreführend": "misleading",
    "Fehlender Kontext": "misleading",
    "Teilweise falsch": "misleading",
    "Größtenteils falsch": "misleading",
    # false
    "False": "false",
    "Fake": "false",
    "Pants on Fire!": "false",
    "Pants on Fire": "false",
    "Four Pinocchios": "false",
    "Incorrect": "false",
    "Inaccurate": "false",
    "Wrong": "false",
    "Untrue": "false",
    "Fabricated": "false",
    "Hoax": "false",
    "Altered": "false",
    "Not true": "false",
    "Not correct": "false",
    "Not accurate": "false",
    "Falso": "false",
    "Falsa": "false",
    "Mentira": "false",
    "Não é verdade": "false",
    "Não procede": "false",
    "Faux": "false",
    "Bulo": "false",
    "Falsch": "false",
    "Frei erfunden": "false",
    # unverified
    "Unproven": "unverified",
    "Unverified": "unverified",
    "Unsupported": "unverified",
    "No evidence": "unverified",
    "Inconclusive": "unverified",
    "Unsubstantiated": "unverified",
    "Research in progress": "unverified",
    "Unverifiable": "unverified",
    # Satire is not a claim made in earnest: its rating settles nothing (as in seed 003).
    "Satire": "unverified",
    "Labeled satire": "unverified",
    "Originated as satire": "unverified",
    "Sátira": "unverified",
    "Insustentável": "unverified",
    "Sem evidências": "unverified",
    "Sem evidência": "unverified",
    "Sem provas": "unverified",
    "Sem comprovação": "unverified",
    "Não comprovado": "unverified",
    "Inconclusivo": "unverified",
    "Ainda é cedo para dizer": "unverified",
    "Sin evidencia": "unverified",
    "Sin pruebas": "unverified",
    "Inverificable": "unverified",
    "Insostenible": "unverified",
    "Inchequeable": "unverified",
    "Infondé": "unverified",
    "Unbelegt": "unverified",
}


# Leading words that frame a rating without changing it ("This is false.", "Rating: Falso").
RATING_FILLERS = (
    "this is",
    "this claim is",
    "the claim is",
    "claim is",
    "it is",
    "it s",
    "that is",
    "that s",
    "rating",
    "our rating",
    "verdict",
    "our verdict",
    "isto e",
    "isso e",
    "e",
    "classificacao",
    "veredito",
    "selo",
    "esto es",
    "es",
    "c est",
    "das ist",
)


# A rating that opens with one of these matches only a label written with it ("Not true").
NEGATIONS = frozenset({"not", "no", "never", "isn", "isnt", "nao", "nem", "nunca", "ni", "pas"})


def normalize_rating(text: str) -> str:
    """Lowercase, accents stripped, punctuation turned into spaces, single-spaced."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", plain).split())


_LABELS = {normalize_rating(label): verdict for label, verdict in RATING_LABELS.items()}


_BY_LENGTH = sorted(_LABELS, key=len, reverse=True)


_FILLERS = sorted((normalize_rating(f) for f in RATING_FILLERS), key=len, reverse=True)


def map_rating(rating: str) -> str | None:
    """The verdict label for a publisher's rating, or None when it is unknown or negated.

    The whole rating is looked up first; failing that, the longest label the rating starts
    with (after a framing phrase such as "This is") wins, so "Falso: o vídeo é de 2019" maps
    to false. A rating that opens with a negation maps only through a label that carries it:
    "Not true" → false, "Not false" → None.
    """
    text = normalize_rating(rating)
    if not text:
        return None
    if text in _LABELS:
        return _LABELS[text]
    text = _strip_filler(text)
    if text in _LABELS:
        return _LABELS[text]
    first = text.split(" ", 1)[0]
    for label in _BY_LENGTH:
        if first in NEGATIONS and not label.startswith(first + " "):
            continue  # "not false ..." must not fall back to "false"
        if text.startswith(label + " "):
            return _LABELS[label]
    return None


def _strip_filler(text: str) -> str:
    for filler in _FILLERS:
        if text.startswith(filler + " "):
            return text[len(filler) + 1 :]
    return text
