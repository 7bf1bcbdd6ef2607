"""Official gazettes (Querido Diário) as evidence: the adaptive search for one claim (seed 002)."""

from .loop import GazetteSearchLoop
from .outcome import GazetteOutcome, SearchDone
from .read import GazetteEvidence, GazetteText, gazette_source, gazette_title
from .score import GazetteScore, score_gazettes
from .strategies import Strategy, build_strategies
from .terms import ClaimTerms, Period, claim_period, claim_terms

__all__ = [
    "ClaimTerms",
    "GazetteEvidence",
    "GazetteOutcome",
    "GazetteScore",
    "GazetteSearchLoop",
    "GazetteText",
    "Period",
    "SearchDone",
    "Strategy",
    "build_strategies",
    "claim_period",
    "claim_terms",
    "gazette_source",
    "gazette_title",
    "score_gazettes",
]
