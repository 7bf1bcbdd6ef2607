"""The report's check, in one concurrent round: code checks, citation audit and quality score."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ..factcheck.pool import best_passage
from ..formatting import data_block, one_line
from ..i18n import ENGLISH, message
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import CitationAudit, QualityReview, ReportDraft, SentenceCheck
from ..report_check import Sentence, cited_sentences, code_problems, status_problem
from ..runtime import TextStore
from ..schemas import QUALITY_DIMENSIONS, Source, Verdict

AUDIT_BATCH = 8  # sentences per audit call (the calls run concurrently)
PASSAGE_CHARS = 700  # of each cited source, per sentence
MAX_CITED_PER_SENTENCE = 3


@dataclass
class Review:
    """What one check round found in a draft."""

    code: list[str]  # problems code found (verdicts, citations, plan questions)
    sentences: list[Sentence]  # the cited sentences sent to the audit
    checks: dict[tuple[str, int], SentenceCheck] = field(default_factory=dict)
    # What code found wrong in a sentence's statements of a claim's status, by sentence.
    misstated: dict[tuple[str, int], str] = field(default_factory=dict)
    statuses: int = 0  # statements of a claim's status checked against the records
    quality: QualityReview | None = None
    failures: list[str] = field(default_factory=list)  # what could not be checked

    @property
    def unsupported(self) -> list[Sentence]:
        """Sentences whose cited passages lack a fact they state, or that misstate a status."""
        return [
            s
            for s in self.sentences
            if (key := (s.part, s.index)) in self.misstated
            or ((c := self.checks.get(key)) is not None and not c.supported)
        ]

    @property
    def scores(self) -> dict[str, int]:
        if self.quality is None:
            return {}
        return {d: max(0, min(100, int(getattr(self.quality, d)))) for d in QUALITY_DIMENSIONS}

    @property
    def overall(self) -> int | None:
        scores = self.scores
        return round(sum(scores.values()) / len(scores)) if scores else None

    def problems(self, threshold: int) -> list[str]:
        """Everything a rewrite must fix (empty: the draft stands)."""
        found = list(self.code)
        for sentence in self.unsupported:
            if misstated := self.misstated.get((sentence.part, sentence.index)):
                found.append(
                    f'The sentence "{one_line(sentence.text, 200)}" {misstated}. State the '
                    "claim's status as FINDINGS records it, or leave it out."
                )
                continue
            why = self.checks[(sentence.part, sentence.index)].reason.strip()
            found.append(
                f'The sentence "{one_line(sentence.text, 200)}" is not supported by the source(s) '
                f"it cites{': ' + one_line(why, 160) if why else ''}. Rewrite it from what the "
                "sources say, cite the right source, or leave it out."
            )
        overall = self.overall
        if overall is not None and overall < threshold and self.quality is not None:
            listed = "; ".join(one_line(p, 200) for p in self.quality.problems[:5])
            found.append(
                f"The editor scored the report {overall}/100 (below {threshold})"
                + (f": {listed}" if listed else ".")
            )
        return found


class ReportReviewer:
    """Checks drafts of one investigation's report."""

    def __init__(
        self,
        model: ModelClient,
        audit_instruction: str,
        quality_instruction: str,
        *,
        numbered: list[tuple[int, Source]],
        citable: dict[int, Source],
        verdicts: list[Verdict],
        questions: list[str],
        texts: TextStore | None,
        language: str = ENGLISH,
    ) -> None:
        self.model = model
        self.audit_instruction = audit_instruction
        self.quality_instruction = quality_instruction
        self.numbered = numbered
        self.citable = citable
        self.verdicts = verdicts
        self.questions = questions
        self.texts = texts
        self.language = language  # of what could not be checked (the report lists it)
        self.by_key = {v.claim_key.upper(): v for v in verdicts}
        number_of = {s.url: n for n, s in numbered}
        # The sources each claim's record rests on, by number: which claims a sentence citing
        # them may be speaking of.
        self.claim_sources = {
            v.claim_key.upper(): {
                number_of[e.source_url] for e in v.evidence if e.source_url in number_of
            }
            for v in verdicts
        }
        # A document's text read is its passages the verdicts rest on, not only its digest; the
        # words a verdict rests on (quotes found in the text read) lead each source's passage.
        self.passages: dict[str, list[str]] = {}
        self.quotes: dict[str, list[str]] = {}
        for verdict in verdicts:
            for e in verdict.evidence:
                url = e.source_url
                if e.document_id and e.content_sha256:
                    shas = self.passages.setdefault(url, [])
                    if e.content_sha256 not in shas:
                        shas.append(e.content_sha256)
                if e.quote and e.stance != "context" and e.quote not in self.quotes.get(url, []):
                    self.quotes.setdefault(url, []).append(e.quote)

    def cited(self, draft: ReportDraft) -> list[Sentence]:
        """The draft's sentences that cite a saved source (what the audit reads)."""
        sentences = []
        for sentence in cited_sentences(draft):
            sentence.cites = [n for n in sentence.cites if n in self.citable]
            if sentence.cites:
                sentences.append(sentence)
        return sentences

    async def review(self, draft: ReportDraft, records: str, rendered: str) -> Review:
        """Code checks, the citation audit and the quality score of `draft`, concurrently.

        `records` is what the draft was written from; `rendered` the draft as a reader sees it.
        """
        review = Review(
            code=code_problems(draft, self.verdicts, self.questions, self.citable),
            sentences=self.cited(draft),
        )
        await asyncio.gather(self._audit(review), self._score(review, records, rendered))
        return review

    async def _audit(self, review: Review) -> None:
        batches = [
            review.sentences[i : i + AUDIT_BATCH]
            for i in range(0, len(review.sentences), AUDIT_BATCH)
        ]
        prompts = await asyncio.gather(*(self._audit_prompt(batch) for batch in batches))
        results = await asyncio.gather(
            *(
                self.model.generate(
                    instruction=self.audit_instruction, prompt=prompt, schema=CitationAudit
                )
                for prompt in prompts
            ),
            return_exceptions=True,
        )
        for batch, result in zip(batches, results, strict=True):
            if isinstance(result, ModelCallError):
                review.failures.append(message("audit_failed", self.language, error=result))
                continue
            if isinstance(result, BaseException):
                raise result
            answers = {check.number: check for check in result.sentences}
            for number, sentence in enumerate(batch, 1):
                if (check := answers.get(number)) is not None:
                    review.checks[(sentence.part, sentence.index)] = check
                    self._check_statuses(review, sentence, check)

    def _check_statuses(self, review: Review, sentence: Sentence, check: SentenceCheck) -> None:
        """Code checks what the sentence says of a claim's status against its record: the
        auditor only reads the statements out (a finding's own claim when it names none)."""
        own = sentence.part.removeprefix("finding:") if sentence.part.startswith("finding:") else ""
        for statement in check.statuses:
            verdict = self.by_key.get(statement.claim_key.strip().upper() or own)
            if verdict is None:
                continue  # no claim of this report: nothing to check it against
            review.statuses += 1
            problem = status_problem(statement.status, verdict)
            if problem and (sentence.part, sentence.index) not in review.misstated:
                review.misstated[(sentence.part, sentence.index)] = problem

    async def _audit_prompt(self, batch: list[Sentence]) -> str:
        entries = []
        spoken_of: set[str] = set()  # claims a sentence outside the findings may be about
        for number, sentence in enumerate(batch, 1):
            if sentence.part.startswith("finding:"):
                lines = [f"[A{number}] ({sentence.part.replace(':', ' ')}) {sentence.text}"]
            else:
                lines = [f"[A{number}] {sentence.text}"]
                cites = set(sentence.cites)
                spoken_of |= {k for k, numbers in self.claim_sources.items() if numbers & cites}
            for cited in sentence.cites[:MAX_CITED_PER_SENTENCE]:
                source = self.citable[cited]
                text = await self._text_read(source)
                quoted = " … ".join(f'"{q}"' for q in self.quotes.get(source.url, [])[:2])
                passage = (
                    best_passage(text, sentence.text, PASSAGE_CHARS)
                    if text
                    else "(Vicaran holds no stored text of this source)"
                )
                if quoted and text:
                    passage = one_line(f"{quoted} … {passage}", PASSAGE_CHARS + len(quoted))
                lines.append(
                    f"  [{cited}] {one_line(source.title, 100)} ({source.domain}): {passage}"
                )
            entries.append("\n".join(lines))
        sentences = data_block("SENTENCES", "\n\n".join(entries))
        if not spoken_of:
            return sentences
        claims = "\n".join(
            f"- {v.claim_key}: {one_line(v.claim_text, 160)}"
            for v in self.verdicts
            if v.claim_key.upper() in spoken_of
        )
        return data_block("CLAIMS", claims) + "\n\n" + sentences

    async def _text_read(self, source: Source) -> str | None:
        """What Vicaran read of a cited source (a document: its digest and cited passages)."""
        if self.texts is None:
            return None
        shas = [source.content_sha256, *self.passages.get(source.url, [])]
        texts = [t for sha in shas if sha and (t := await self.texts.load(sha))]
        return "\n\n".join(texts) or None

    async def _score(self, review: Review, records: str, rendered: str) -> None:
        prompt = records + "\n\n" + data_block("DRAFT", rendered)
        try:
            review.quality = await self.model.generate(
                instruction=self.quality_instruction, prompt=prompt, schema=QualityReview
            )
        except ModelCallError as error:
            review.failures.append(message("quality_failed", self.language, error=error))
