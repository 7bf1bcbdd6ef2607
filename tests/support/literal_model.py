"""A literal model for offline tests, registered in ADK's LLMRegistry as `literal/...`.

It answers each prompt the way a careful, capable model that takes every sentence at its word
would: it does what the instruction says, even where two rules pull apart or a rule defeats its
own purpose. It is the scripted model (tests/support/scripted_model.py) for every task but the
ones whose rules decide what a verdict rests on - extraction, judging, the report and its audit
- and for those it reads the instruction and follows the rules it finds there:

- Brief claims: a request or question is not a claim ("requests ... are not claims"), unless
  the instruction says a request "carries that statement": then "Check whether X, as Y say" is
  the claim X, attributed to Y.
- Source claims: it "lists every source that makes it" - every source whose key claims state
  the claim's figure, the company that disputes it included - unless told to name "only the
  sources that assert the claim". Told about `attributed_to`, a source's statement "X,
  according to P" / "P found that X" gives two claims: what P found (attribution) and X (fact,
  resting on P's word).
- Judging: an item marked NOT INDEPENDENT "can never confirm or refute" the claim: context. An
  item that states the claim's figures and names it supports (refutes when it disputes or
  denies it). For an attribution it supports only when it names the party, and a dispute of
  the fact is context; for a fact resting on someone's word, an item that only relays
  somebody's word is context when it is told so (the claim's RESTS ON line says it). Asked to write "every sentence" in
  Portuguese, it translates its quotes too, unless the quotes are "never translated".
- The report: a finding says what the sources report and, for an unverified claim, that it was
  not established and that no independent source confirmed it - citing the claim's sources, as
  "every factual sentence needs" a citation.
- The audit: a sentence is supported only when the passages "state what the sentence says"; a
  status ("was not established") is something they never say, so a sentence with one is not
  supported - unless the instruction says statuses are checked by Vicaran "against the recorded
  verdicts": then it judges the rest of the sentence and lists the statuses it read.

Translation is a word-for-word glossary (figures and names stay): what matters is that a
translated quote is no longer the words the page wrote.
"""

from __future__ import annotations

import re
from typing import Any

from google.adk.models import LLMRegistry

from tests.support.scripted_model import (
    ScriptedModel,
    _block,
    _entries,
    _is_portuguese,
    _sentences,
    _words,
)

# --- the rules a literal reader finds in an instruction -----------------------------------


def _says(instruction: str, phrase: str) -> bool:
    return phrase.lower() in " ".join(instruction.split()).lower()


REQUESTS_CARRY_CLAIMS = "carries that statement"
ONLY_ASSERTING_SOURCES = "only the sources that assert"
ATTRIBUTION_KINDS = "`attributed_to`"
QUOTES_UNTRANSLATED = "never translated"
RELAYED_WORD_IS_CONTEXT = "only relays"
STATUS_BY_RECORDS = "against the recorded verdicts"

# --- reading text ------------------------------------------------------------------------

_PARTY = r"(?:[Tt]he )?(?P<party>[A-Z][\w]*(?: [A-Z][\w]*)*(?: \([A-Z]{2,}\))?)"
_FOUND = re.compile(rf"^{_PARTY} (?P<verb>found|says|said|reported) that (?P<fact>.+?)\.?$")
_ACCORDING = re.compile(rf"^(?P<fact>.+?),? according to {_PARTY}\.?$")
_DENIAL = re.compile(r"\b(disputes?|denies|denied|contests?|nega|contesta)\b", re.I)
_RELAYED = re.compile(r"\b(according to|found that|says|said|segundo|afirma)\b", re.I)
_REQUEST = re.compile(
    r"^(?:check|verify|verifique|find out) (?:whether|if|se) (?P<fact>.+?)"
    r"(?:,? (?:as|como) (?P<who>[\w ]+?) (?:says?|say|claims?|dizem|afirmam))?\.?$",
    re.I,
)
_ASKS = re.compile(r"(?i)^(investigate|investigue|check|verify|verifique|find|look)\b")
_STATUS = [
    (re.compile(r"was not established|não foi estabelecid[oa]", re.I), "unverified"),
    (
        re.compile(r"no independent source confirmed it|nenhuma fonte independente o confirmou"),
        "not_confirmed",
    ),
]
_STOP_NAMES = {"The", "This", "That", "Isso", "Esta", "Este", "Whether", "According", "Segundo"}
_GLOSSARY = {
    "the": "o",
    "found": "concluiu",
    "that": "que",
    "exceeded": "excedeu",
    "its": "seus",
    "permitted": "permitidos",
    "lead": "de chumbo",
    "discharge": "de descarte",
    "limits": "limites",
    "by": "em",
    "at": "na",
    "plant": "fábrica",
    "in": "no",
    "fourth": "quarto",
    "quarter": "trimestre",
    "of": "de",
    "according": "segundo",
    "to": "a",
    "complaints": "reclamações",
    "about": "sobre",
    "tap": "da torneira",
    "water": "água",
    "rose": "subiram",
    "and": "e",
    "says": "diz",
    "received": "recebeu",
    "against": "contra",
    "year": "ano",
    "before": "anterior",
    "health": "saúde",
    "department": "departamento",
}


def portuguese(text: str) -> str:
    """Word-for-word 'translation': function words change, figures and names stay."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        said = _GLOSSARY.get(word.lower())
        if said is None or (word[0].isupper() and match.start() > 0):  # a name stays
            return word
        return said[0].upper() + said[1:] if word[0].isupper() else said

    return re.sub(r"[A-Za-z]+", swap, text)


def _figures(text: str) -> set[str]:
    """The claim's key figures: percentages, else numbers of three digits or more."""
    percents = set(re.findall(r"\d+(?:[.,]\d+)?%", text))
    return percents or set(re.findall(r"\d{3,}", text))


def _names(text: str) -> set[str]:
    """Capitalized words (and acronyms) past the first word of each clause: who and where a
    text is about."""
    names = set()
    for clause in re.split(r"[.:;]\s", text):
        words = re.findall(r"[A-Za-zÀ-ÿ]+", clause)
        names |= {w.lower() for w in words[1:] if w[0].isupper() and len(w) >= 3}
    return names - {s.lower() for s in _STOP_NAMES}


def _on_point(claim: str, body: str) -> bool:
    figures, names = _figures(claim), _names(claim)
    if figures:
        return figures <= set(re.findall(r"\d+(?:[.,]\d+)?%|\d{3,}", body)) and bool(
            names & _words_and_acronyms(body)
        )
    return len(_words(claim) & _words(body)) >= max(1, len(_words(claim)) // 2)


def _words_and_acronyms(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", text)}


def _names_party(party: str, body: str) -> bool:
    """Whether the item names the party: its full name, or the acronym it gives in brackets."""
    text = " ".join(body.split()).lower()
    full = re.sub(r"\s*\([^)]*\)", "", party).strip().lower()
    acronyms = re.findall(r"\(([A-Z]{2,})\)", party)
    return full in text or any(re.search(rf"\b{a}\b", body) for a in acronyms)


def _sentence_with(body: str, claim: str) -> str:
    """The sentence of an evidence item that states the claim's figure (or shares most words)."""
    text = body.split("\n", 2)[-1]
    pieces = [p for chunk in text.split(" … ") for p in _sentences(chunk)] or [text]
    for figure in _figures(claim):
        if stated := next((p for p in pieces if figure in p), ""):
            return stated[:280]
    return max(pieces, key=lambda p: len(_words(claim) & _words(p)))[:280]


def _fact(sentence: str) -> tuple[str, str, str]:
    """(fact, party, verb) of a source's statement; party "" when nobody is quoted."""
    sentence = sentence.strip().rstrip(".")
    if found := _FOUND.match(sentence):
        return found.group("fact"), found.group("party"), found.group("verb")
    if according := _ACCORDING.match(sentence):
        return according.group("fact"), according.group("party"), "says"
    return sentence, "", ""


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


class LiteralModel(ScriptedModel):
    """Takes every instruction at its word (see the module docstring)."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"literal/.*"]

    def _for_journalist(self, instruction: str, text: str) -> str:
        return portuguese(text) if _is_portuguese(instruction) else text

    # --- claims ------------------------------------------------------------------------

    def _BriefClaims(self, instruction: str, prompt: str) -> dict[str, Any]:
        carried = _says(instruction, REQUESTS_CARRY_CLAIMS)
        claims = []
        for sentence in _sentences(_block(prompt, "BRIEF")):
            request = _REQUEST.match(sentence.strip())
            if request and carried:
                claims.append(
                    {
                        "claim_text": self._for_journalist(
                            instruction, _first_upper(request.group("fact"))
                        ),
                        "kind": "fact",
                        "attributed_to": (request.group("who") or "").strip(),
                        "importance": 0.9,
                        "queries": [request.group("fact")[:200]],
                    }
                )
            elif re.search(r"\d", sentence) and not (
                sentence.endswith("?") or _ASKS.match(sentence)
            ):
                claims.append({"claim_text": sentence, "importance": 0.9})
        return {"claims": claims[:3]}

    def _ClaimDraft(self, instruction: str, prompt: str) -> dict[str, Any]:
        asserting = _says(instruction, ONLY_ASSERTING_SOURCES)
        kinds = _says(instruction, ATTRIBUTION_KINDS)
        topic = _words(instruction.split("approved plan", 1)[-1][:2000])
        statements = [
            (number, claim.strip())
            for number, body in _entries(_block(prompt, "SOURCES"), "S")
            for claim in re.findall(r"^Key claim: (.*)$", body, re.M)
        ]
        claims: dict[str, dict[str, Any]] = {}

        def add(key: str, text: str, number: int, **fields: Any) -> None:
            entry = claims.setdefault(
                key, {"claim_text": text, "source_numbers": [], "queries": [text[:200]], **fields}
            )
            if number not in entry["source_numbers"]:
                entry["source_numbers"].append(number)

        if not asserting:  # "merge claims that say the same thing and list every source"
            for number, sentence in statements:
                figures = sorted(_figures(sentence))
                key = figures[0] if figures else sentence.lower()
                add(key, sentence.rstrip("."), number)
                if ", according to" in sentence:  # the most self-contained wording
                    claims[key]["claim_text"] = sentence.rstrip(".")
        else:
            for number, sentence in statements:
                if _DENIAL.search(sentence):
                    continue  # it disputes the claim: evidence, not a source that asserts it
                fact, party, verb = _fact(sentence)
                fact = _first_upper(fact)
                if kinds and party:
                    named = re.match(r"\w+ [A-Z]", fact)  # "Halvorsen Chemical ..." keeps its case
                    said = (
                        f"The {party} {verb} that {fact if named else fact[0].lower() + fact[1:]}"
                    )
                    add(f"said:{party}:{fact.lower()}", said, number, kind="attribution")
                    claims[f"said:{party}:{fact.lower()}"]["attributed_to"] = party
                add(fact.lower(), fact, number, kind="fact", attributed_to=party if kinds else "")
        ranked = []
        for entry in claims.values():
            share = len(_words(entry["claim_text"]) & topic) / max(
                1, len(_words(entry["claim_text"]))
            )
            entry["importance"] = round(min(0.95, 0.3 + share), 2)
            entry["claim_text"] = self._for_journalist(instruction, entry["claim_text"])
            ranked.append(entry)
        return {"claims": sorted(ranked, key=lambda c: -c["importance"])}

    # --- judging -----------------------------------------------------------------------

    def _ClaimAssessment(self, instruction: str, prompt: str) -> dict[str, Any]:
        found = re.search(r"^CLAIM: (.*)$", prompt, re.M)
        claim = found.group(1) if found else ""
        said_by = re.search(r"^ATTRIBUTION: the claim is that (.+) said, found", prompt, re.M)
        rests_on = re.search(r"^RESTS ON: (.+)'s word", prompt, re.M)
        translate = _is_portuguese(instruction) and not _says(instruction, QUOTES_UNTRANSLATED)
        line = re.search(r"^RESTS ON: .*$", prompt, re.M)
        told = f"{instruction}\n{line.group(0) if line else ''}"
        relayed_is_context = rests_on is not None and _says(told, RELAYED_WORD_IS_CONTEXT)
        stances, cited = [], {"supports": [], "refutes": []}
        for number, body in _entries(_block(prompt, "EVIDENCE"), "E"):
            header = body.split("\n", 1)[0]
            stance = "context"
            if "NOT INDEPENDENT" not in header and _on_point(claim, body):
                quote = _sentence_with(body, claim)
                stance = "refutes" if _DENIAL.search(quote) else "supports"
                if said_by is not None:  # what the party said: only an item naming it tells
                    if stance == "refutes" or not _names_party(said_by.group(1), body):
                        stance = "context"
                elif relayed_is_context and _RELAYED.search(quote):
                    stance = "context"
            quote = _sentence_with(body, claim) if stance != "context" else ""
            if quote and translate:
                quote = portuguese(quote)
            stances.append({"number": number, "stance": stance, "quote": quote})
            if stance != "context":
                cited[stance].append(number)
        if cited["supports"] and not cited["refutes"]:
            verdict, numbers = "verified", cited["supports"]
        elif cited["refutes"] and not cited["supports"]:
            verdict, numbers = "false", cited["refutes"]
        else:
            verdict, numbers = "unverified", cited["supports"] + cited["refutes"]
        refs = "".join(f"[{n}]" for n in numbers[:3])
        who = said_by.group(1) if said_by else rests_on.group(1) if rests_on else ""
        if _is_portuguese(instruction):
            explanation = (
                f"Segundo {who}, a alegação se sustenta nas evidências {refs}."
                if refs and who
                else f"As evidências {refs} tratam da alegação."
                if refs
                else "Nenhuma evidência independente trata da alegação."
            )
        else:
            explanation = (
                f"According to {who}, the evidence {refs} bears on the claim."
                if refs and who
                else f"The evidence {refs} bears on the claim."
                if refs
                else "No independent evidence addresses the claim."
            )
        return {
            "stances": stances,
            "verdict": verdict,
            "confidence": 0.8 if refs else 0.3,
            "explanation": explanation,
            "refined_queries": [],
            "references": [],
        }

    # --- the report and its audit --------------------------------------------------------

    def _ReportDraft(self, instruction: str, prompt: str) -> dict[str, Any]:
        draft = super()._ReportDraft(instruction, prompt)
        pt = _is_portuguese(instruction)
        findings = re.findall(
            r"^- (C\d+): (.*)\n  verdict: (\w+) \(confidence [\d.]+\); sources: (.*)$",
            _block(prompt, "FINDINGS"),
            re.M,
        )
        written, summary = [], []
        for key, claim, verdict, sources in findings:
            refs = "" if sources == "none" else " " + sources.replace(", ", "")
            claim = claim.rstrip(".")
            if verdict != "unverified":
                text = f"{claim}{refs}."
            elif pt:
                text = (
                    f"As fontes relatam: {claim}{refs}. Isso não foi estabelecido: nenhuma fonte "
                    f"independente o confirmou{refs}."
                )
                summary.append(f"Que {claim} não foi estabelecido{refs}.")
            else:
                text = (
                    f"The sources report: {claim}{refs}. This was not established: no "
                    f"independent source confirmed it{refs}."
                )
                summary.append(f"That {claim} was not established{refs}.")
            written.append({"claim_key": key, "verdict": verdict, "text": text})
        opening = (
            f"Esta investigação verificou {len(findings)} alegações."
            if pt
            else f"This investigation checked {len(findings)} claims."
        )
        draft["title"] = (
            "Halvorsen Chemical em Millbrook" if pt else "Halvorsen Chemical at Millbrook"
        )
        draft["findings"] = written
        draft["executive_summary"] = " ".join([opening, *summary[:1]])
        return draft

    def _CitationAudit(self, instruction: str, prompt: str) -> dict[str, Any]:
        by_records = _says(instruction, STATUS_BY_RECORDS)
        claims = re.findall(r"^- (C\d+): (.*)$", _block(prompt, "CLAIMS"), re.M)
        checks = []
        for number, body in _entries(_block(prompt, "SENTENCES"), "A"):
            sentence, _, passages = body.partition("\n")
            finding = re.match(r"\s*\(finding (C\d+)\)", sentence)
            sentence = re.sub(r"^\s*\(finding C\d+\)\s*", "", sentence).strip()
            statuses = [(pattern, label) for pattern, label in _STATUS if pattern.search(sentence)]
            facts = re.sub(r"\[\d+\]", "", sentence)
            if by_records:
                for pattern, _label in statuses:
                    facts = pattern.sub("", facts)
                facts = re.sub(r"(?i)\b(this|isso|that|que)\b\s*[:.]?", "", facts)
            stated = set(re.findall(r"\d+(?:[.,]\d+)?%|\d{3,}", facts)) | _names(facts)
            present = set(re.findall(r"\d+(?:[.,]\d+)?%|\d{3,}", passages)) | {
                w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", passages)
            }
            supported = stated <= present
            reason = "" if supported else "The passages do not state it."
            if statuses and not by_records:  # the passages never say "was not established"
                supported, reason = False, "The passages do not say it was not established."
            listed = []
            if by_records:
                for _pattern, label in statuses:
                    key = ""
                    if not finding and claims:
                        key = max(claims, key=lambda c: len(_words(c[1]) & _words(facts)))[0]
                    listed.append({"claim_key": key, "status": label})
            checks.append(
                {"number": number, "supported": supported, "reason": reason, "statuses": listed}
            )
        return {"sentences": checks}


LLMRegistry.register(LiteralModel)
