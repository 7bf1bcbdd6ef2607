"""Single labels: verdicts, importance levels, stances, bias bands, evidence gatherers.

Translated in the catalogs with the context "verdict" or "word".
"""

from __future__ import annotations

VERDICT_CONTEXT = "verdict"
WORD_CONTEXT = "word"

VERDICTS: dict[str, tuple[str, str]] = {  # verdict: (emoji, label)
    "verified": ("✅", "VERIFIED"),
    "partially_true": ("⚠️", "PARTIALLY TRUE"),
    "misleading": ("🟠", "MISLEADING"),
    "false": ("❌", "FALSE"),
    "unverified": ("❓", "UNVERIFIED"),
}

WORDS: tuple[str, ...] = (
    # importance levels, stances and bias bands
    "HIGH",
    "MEDIUM",
    "LOW",
    "Supportive",
    "Neutral",
    "Critical",
    "Low",
    "Low-Moderate",
    "Moderate",
    "High",
    "Very High",
    # what gathers a claim's evidence
    "web search",
    "outlet search",
    "page reading",
    "live search",
    "documents",
    "official gazettes",
)
