"""Whose record an evidence item is: matched, in code, to the party a claim quotes.

An item is a party's **own record** when it is a primary record and its issuer is that party:

- a page on an official domain (government, courts, parliaments, intergovernmental bodies: the
  "official" rows of credibility.py) whose registrable domain's name is the party's: its
  acronym (`epa` of epa.gov for "Environmental Protection Agency (EPA)"), its one distinctive
  word (`saude` for "Ministério da Saúde") or its words run together;
- an act of a municipal gazette, for a party that names the gazette's city ("Prefeitura de
  Maceió") or is a municipal body ("the mayor", "a Câmara") of the claim's own city;
- a passage of a document the journalist marked high, whose title or file name names the party
  (its acronym, or every one of its distinctive words).

The party is the name the model read (`Claim.attributed_to`); everything else is what Vicaran
itself knows of the item (its address, the gazette it read, the collection's mark), so a page
cannot make itself a party's record by saying so. A party with several distinctive words needs
all of them: "Millbrook Clean Water Coalition" is not millbrook.gov.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from ..urls import domain_of

if TYPE_CHECKING:
    from .pool import Candidate


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Words that say what kind of body a party is, not which one.
GENERIC = _set(
    """
    agency agencia authority autoridade bureau chamber camara coalition association associacao
    commission comissao committee comite council conselho court tribunal department departamento
    ministry ministerio secretariat secretaria office gabinete service servico institute
    instituto government governo city cidade state estado federal national nacional municipal
    municipio prefeitura public publico publica group grupo the of for and de da do dos das e
    us u s
    """
)
# Short words an acronym may skip ("Department of Justice" -> DOJ or DJ).
_LINKS = _set("of the for and de da do dos das e")
# What names a municipality's own bodies (its gazette publishes their acts).
_MUNICIPAL = _set(
    """
    prefeitura prefeito prefeita municipio municipal camara vereador vereadores secretaria
    mayor city council municipality
    """
)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", _plain(text))


def _words(party: str) -> list[str]:
    """The party's name without what it writes in parentheses (its acronym)."""
    return [w for w in _tokens(re.sub(r"\([^)]*\)", " ", party)) if w != "the"]


def _distinctive(party: str) -> set[str]:
    return {w for w in _words(party) if w not in GENERIC and len(w) >= 3}


def party_names(party: str) -> set[str]:
    """The names a party's own domain or document may go by: its acronyms (written in
    parentheses, or the initials of its words), its words run together, and its one
    distinctive word when it has only one."""
    words = _words(party)
    names = {w for w in _tokens(" ".join(re.findall(r"\(([^)]*)\)", party))) if len(w) >= 2}
    distinctive = _distinctive(party)
    if len(distinctive) == 1:
        names.update(distinctive)
    for kept in (words, [w for w in words if w not in _LINKS]):
        for start in range(len(kept)):
            for end in range(start + 2, len(kept) + 1):
                run = kept[start:end]
                names.add("".join(run))
                if len(run) >= 3:
                    names.add("".join(w[0] for w in run))
    caps = re.findall(r"\b[A-Z]{2,}\b", party)  # "the EPA", "a PF"
    names.update(c.casefold() for c in caps)
    return {n for n in names if len(n) >= 3}


def _domain_name(url: str) -> str:
    """The label under the public suffix: `epa` for www3.epa.gov, `maceio` for
    www.maceio.al.gov.br."""
    return _plain(domain_of(url).split(".", 1)[0])


def gazette_city(publisher: str) -> str:
    """The city of a gazette source's publisher (`Diário Oficial de Maceió/AL` -> `Maceió`)."""
    city = re.sub(r"^\s*Di[aá]rio Oficial d[eoa]s?\s+", "", publisher or "", flags=re.I)
    return city.split("/", 1)[0].strip()


def is_own_record(candidate: Candidate, party: str, claim_city: str = "") -> bool:
    """Whether `candidate` is `party`'s own record (see the module docstring)."""
    if not party.strip():
        return False
    if candidate.record == "official":
        return _domain_name(candidate.url) in party_names(party)
    if candidate.record == "gazette":
        city = _tokens(candidate.issuer)
        said = _tokens(party)
        named = bool(city) and any(said[i : i + len(city)] == city for i in range(len(said)))
        municipal = bool(_MUNICIPAL & set(said))
        here = bool(city) and _tokens(claim_city) == city
        return municipal and (named or here)
    if candidate.record == "document":
        issuer = set(_tokens(candidate.issuer))
        distinctive = _distinctive(party)
        return bool(issuer & party_names(party)) or (bool(distinctive) and distinctive <= issuer)
    return False
