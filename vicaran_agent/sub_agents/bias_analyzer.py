"""bias_analyzer: the model rates each source's lean; counts, shares and the score are code."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.adk.events import Event

from .. import state_keys as keys
from ..formatting import sources_block
from ..i18n import word
from ..model_outputs import BiasJudgement
from ..prompts.bias_analyzer import BIAS_ANALYZER_INSTRUCTION
from ..sanitize import clean
from ..schemas import BiasAssessment, Source, SourceBias
from ._stage import Stage, StageAgent

STANCES = ("supportive", "neutral", "critical")


def assess(
    judgement: BiasJudgement, numbered: list[tuple[int, Source]], per_source: bool
) -> BiasAssessment | None:
    """Coverage balance and the overall 0-10 score, over the sources the model rated.

    The overall score is half the mean per-source score and half the imbalance between
    supportive and critical coverage (0 when they are equal, 10 when all lean one way).
    None when no source could be rated: no score is better than a made-up 0.
    """
    by_number = dict(numbered)
    rated: dict[int, SourceBias] = {}
    for lean in judgement.sources:
        if lean.number in by_number and lean.number not in rated:
            source = by_number[lean.number]
            rated[lean.number] = SourceBias(
                url=source.url,
                source_id=source.source_id,
                bias_score=round(min(10.0, max(0.0, lean.bias_score)), 1),
                stance=lean.stance,
                indicators=[clean(i) for i in lean.indicators if clean(i).strip()][:3],
            )
    coverage = {stance: 0 for stance in STANCES}
    for item in rated.values():
        coverage[item.stance] += 1
    total = len(rated)
    if not total:
        return None
    pct = {s: round(100 * n / total, 1) for s, n in coverage.items()}
    mean = sum(i.bias_score for i in rated.values()) / total
    imbalance = abs(coverage["supportive"] - coverage["critical"]) / total
    return BiasAssessment(
        overall_bias_score=round(min(10.0, 0.5 * mean + 5.0 * imbalance), 1),
        coverage=coverage,
        coverage_pct=pct,
        per_source=[rated[n] for n in sorted(rated)] if per_source else [],
        recommendation=clean(judgement.recommendation).strip(),
        unrated=len(by_number) - total,
    )


def score_label(score: float) -> str:
    bands = ((2, "Low"), (4, "Low-Moderate"), (6, "Moderate"), (8, "High"))
    return next((label for limit, label in bands if score < limit), "Very High")


class BiasAnalyzerAgent(StageAgent):
    """Assesses the balance of the coverage the investigation gathered."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        numbered = stage.usable_sources()
        if not numbered:
            yield stage.finish(stage.msg("bias_skipped"), {keys.BIAS_RECORD: None})
            return
        yield stage.event(stage.msg("bias_progress"))
        judgements, errors = await stage.ask_per_batch(
            BIAS_ANALYZER_INSTRUCTION, numbered, sources_block, BiasJudgement
        )
        for error in errors:
            stage.issue(stage.msg("bias_failed_some", error=error))
        if not judgements:
            reason = errors[0] if errors else ""
            yield stage.finish(stage.msg("bias_failed", reason=reason), {keys.BIAS_RECORD: None})
            return
        judgement = BiasJudgement(
            sources=[lean for j in judgements for lean in j.sources],
            recommendation=next((j.recommendation for j in judgements if j.recommendation), ""),
        )
        bias = assess(judgement, numbered, per_source=stage.config.bias_level == "per_source")
        if bias is None:
            stage.issue(stage.msg("bias_none_issue"))
            yield stage.finish(stage.msg("bias_none_rated"), {keys.BIAS_RECORD: None})
            return
        if bias.unrated:
            stage.note(stage.msg("bias_unrated", count=bias.unrated))
        yield stage.finish(
            self._markdown(stage, bias, numbered), {keys.BIAS_RECORD: bias.model_dump(mode="json")}
        )

    @staticmethod
    def _markdown(stage: Stage, bias: BiasAssessment, numbered: list[tuple[int, Source]]) -> str:
        language = stage.language
        names = {s.url: s.title or s.domain for _, s in numbered}
        score = bias.overall_bias_score
        lines = [
            stage.msg("bias_header"),
            "",
            stage.msg("bias_overall", score=score, label=word(score_label(score), language)),
            "",
            stage.msg("coverage", count=len(numbered) - bias.unrated),
        ]
        for stance in STANCES:
            lines.append(
                stage.msg(
                    "coverage_line",
                    stance=word(stance.capitalize(), language),
                    count=bias.coverage[stance],
                    pct=f"{bias.coverage_pct[stance]:.0f}",
                )
            )
        if bias.unrated:
            lines.append(stage.msg("coverage_unrated", count=bias.unrated))
        for item in bias.per_source:
            stance = word(item.stance.capitalize(), language)
            lines.append(f"  - {names.get(item.url, item.url)}: {item.bias_score}/10 ({stance})")
        if bias.recommendation:
            lines += ["", stage.msg("recommendation", text=bias.recommendation)]
        return "\n".join(lines)
