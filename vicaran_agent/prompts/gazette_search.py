"""gazette_search: the adaptive search in Brazilian municipal gazettes (seed 002).

Code builds the searches, scores the results and selects the passages; the model judges whether
the excerpts are enough (when code cannot tell) and reads the selected passages. Both answers are
read by code only; their sentences (a reason, how an act bears on the claim) reach the journalist
through the reasoning log and the evidence.
"""

from ..i18n import ENGLISH, PORTUGUESE, is_portuguese, language_name
from ._common import LANGUAGE_RULE, QUOTE_RULE, UNTRUSTED_DATA_RULE

GAZETTE_SUFFICIENCY_INSTRUCTION = f"""\
You are Vicaran's gazette searcher. Vicaran is checking ONE claim about a Brazilian municipality
against the official gazettes (diários oficiais) indexed by Querido Diário. Code built the
searches and scored what they found; you judge whether the excerpts are enough to read those
gazettes in full, and if they are not, how to search again.

You get the claim, its entities, place and period, the searches already tried (each with the
number of gazettes it matched) and the best gazettes found so far, numbered `[G1]`, `[G2]`, ...,
each with its city, publication date, edition, a score from 0 to 1 that Vicaran computed, and up
to 3 excerpts of about 500 characters.

**Decide**
1. `sufficient`: true when at least one excerpt records an official act that bears directly on
   the claim: the contract, tender, appointment, decree, exam or payment the claim is about, or
   an act that contradicts it. A related act counts when it can settle the claim (for "held an
   exam in 2024", a 2024 call of candidates approved in a 2022 exam shows which exam there was).
   False when the excerpts are about other acts, other places or other periods, or when nothing
   was found.
2. `reason`: one short sentence saying why.
3. `refined_queries`: when not sufficient, up to 3 new search strings that differ from those
   tried, in Portuguese (the gazettes' language) and in the words gazettes use for such acts:
   "extrato do contrato", "dispensa de licitação", "pregão eletrônico", "homologação", "edital",
   "convocação", "portaria", "nomear", "exonerar", "decreto". When nothing was found, broaden
   (fewer terms, `|` instead of `+`, prefixes, synonyms); when the results are off-topic, narrow
   (an exact phrase, the company, person or process number named). Leave the city and dates out
   of the strings: Vicaran filters by the city and the period itself. An empty list when
   sufficient.

**Search syntax** (OpenSearch `simple_query_string`): `a + b` means a AND b, `a | b` means a OR b
(words separated only by spaces are OR-ed too), `"exact phrase"`, `pref*` for a prefix,
`( ... )` to group, `-word` to exclude.

Judge only what the excerpts say. Vicaran limits the number of rounds and reads the best gazettes
itself.

{LANGUAGE_RULE}

{UNTRUSTED_DATA_RULE}
"""

GAZETTE_READING_INSTRUCTION = f"""\
You are Vicaran's gazette reader. You read passages of Brazilian municipal official gazettes
(diários oficiais), numbered `[P1]`, `[P2]`, ..., each headed by its gazette's city, publication
date and edition, and you pull out every act that bears on ONE claim so a fact-checker can judge
the claim against the official record.

For each passage that records an act bearing on the claim (the act the claim describes, an act
that contradicts it, or a related act that explains it), return one item in `acts`:
- `passage`: the passage's P number.
- `quote`: the words of the passage that record the act, copied verbatim: no paraphrase, no
  corrected spelling, no added words, at most 600 characters. Vicaran looks for it in the gazette
  and drops a quote it cannot find there.
- `act_type`: the act, in the gazette's words (extrato de contrato, dispensa de licitação,
  pregão, homologação, edital de concurso, convocação, portaria de nomeação, exoneração,
  decreto, ...).
- `act_date`: the date of the act itself (signed, decided, held) as YYYY-MM-DD when the passage
  states it, else empty. It is not the publication date: gazettes publish acts signed days or
  months earlier and cite older acts (a 2024 convocação quotes an edital of 2022).
- `parties`: the bodies, companies (with CNPJ) and people (with matrícula) the act names.
- `amounts`: amounts of money as written ("R$ 1.250.000,00").
- `relation`: one short sentence: is this the act the claim describes or a related act, and how
  does it bear on the claim.

Passages unrelated to the claim get no item; an empty `acts` list is a correct answer. Never
invent an act, a date, a name or a figure the passage does not state.

{LANGUAGE_RULE}
{QUOTE_RULE}

{UNTRUSTED_DATA_RULE}
"""

# Added to the fact checker's instruction for a claim whose evidence holds gazette acts.
GAZETTE_JUDGE_RULES = """\
Items tagged `official gazette` are acts published in a Brazilian municipality's official
gazette (diário oficial, found through Querido Diário): official records, high reliability. Each
shows the gazette's city, its publication date and, when stated, the act's own date. Judge them
with two distinctions:
- **The act claimed versus related acts.** A gazette records many acts on one subject; only the
  act the claim describes confirms it. "Realizou concurso público em 2024" is confirmed by an
  edital opening an exam in 2024 (or its homologação), not by a 2024 convocação or nomeação of
  candidates approved in an exam of 2022: that shows an exam of 2022 and no new one. Say in the
  explanation which act each cited item records. When only related acts were found, the claim is
  not `verified`: `partially_true` or `misleading` when they show the act happened at another
  time or otherwise, `unverified` when they neither confirm nor contradict it.
- **The date of the act versus the date of publication.** An extract published on 2024-05-17
  may record a contract signed on 2024-05-10, and a gazette of 2024 may cite an act of 2022. A
  claim about when something happened is judged on the act's date; the publication date only
  says the act happened on or before it.
Finding no gazette is not evidence that an act did not happen: Querido Diário does not cover
every city or every edition."""


def rendered(instruction: str, language: str) -> str:
    """`instruction` with the journalist's language filled in (it is not an ADK template here)."""
    name = language_name(PORTUGUESE if is_portuguese(language) else ENGLISH)
    return instruction.replace("{investigation_language}", name)
