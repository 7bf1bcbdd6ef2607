"""Model tokens and their estimated cost, per investigation and per stage.

Counts come from each model response's `usage_metadata` (what the provider bills); the cost is
an estimate from a price table (USD per million tokens, per model): the built-in one below,
merged with `VICARAN_MODEL_PRICES`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.genai import types

from . import state_keys as keys
from .config import Settings
from .i18n import is_portuguese, message

# USD per million tokens. List prices as published when this table was written (Gemini API,
# paid tier, prompts up to 200k tokens); set VICARAN_MODEL_PRICES to your contract's prices.
DEFAULT_MODEL_PRICES: dict[str, dict[str, float]] = {
    "gemini-3.8-flash": {"input": 0.75, "output": 3.75, "cached": 0.075},
    "gemini-3.5-flash": {"input": 1.5, "output": 9.0, "cached": 0.15},
    "gemini-2.5-flash": {"input": 0.3, "output": 2.5, "cached": 0.03},
    "gemini-2.5-pro": {"input": 1.25, "output": 10.0, "cached": 0.125},
}


def price_of(model: str, settings: Settings) -> dict[str, float] | None:
    """The model's prices (`input`, `output`, `cached`), or None when it has none."""
    table = {**DEFAULT_MODEL_PRICES, **settings.model_prices}
    name = model.rsplit("/", 1)[-1]  # "models/gemini-…" and provider prefixes name the same model
    prices = table.get(model) or table.get(name)
    if prices is None:
        return None
    return {
        "input": prices.get("input", 0.0),
        "output": prices.get("output", 0.0),
        "cached": prices.get("cached", prices.get("input", 0.0)),
    }


@dataclass
class Usage:
    """Tokens of some model calls: input (cached included), output (thinking included)."""

    input: int = 0
    output: int = 0
    cached: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.output += other.output
        self.cached += other.cached
        self.cost_usd += other.cost_usd
        self.calls += other.calls

    def as_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "cached": self.cached,
            "cost_usd": round(self.cost_usd, 6),
        }


def usage_of(
    metadata: types.GenerateContentResponseUsageMetadata | None,
    prices: dict[str, float] | None,
) -> Usage:
    """One response's tokens and cost (0 when the model reported no usage)."""
    if metadata is None:
        return Usage(calls=1)
    prompt = metadata.prompt_token_count or 0
    cached = min(metadata.cached_content_token_count or 0, prompt)
    output = (metadata.candidates_token_count or 0) + (metadata.thoughts_token_count or 0)
    cost = 0.0
    if prices is not None:
        cost = (
            (prompt - cached) * prices["input"]
            + cached * prices["cached"]
            + output * prices["output"]
        ) / 1_000_000
    return Usage(input=prompt, output=output, cached=cached, cost_usd=cost, calls=1)


_USAGE_FIELDS = ("input", "output", "cached", "cost_usd", "calls")
PLANNING_STAGE = "investigation_orchestrator"  # the turns before the run: plan, digests


def record_planning(state: Any, model: str, usage: Usage | TokenLedger, settings: Settings) -> None:
    """Add a planning turn's model use to the session's (the run counts it in: `planning_use`)."""
    ledger = TokenLedger.from_state(state.get(keys.PLANNING_USAGE))
    if isinstance(usage, TokenLedger):
        total = usage.total
        ledger.unpriced |= usage.unpriced
    else:
        total = usage
        if price_of(model, settings) is None:
            ledger.unpriced.add(model)
    ledger.per_stage.setdefault(PLANNING_STAGE, Usage()).add(total)
    state[keys.PLANNING_USAGE] = ledger.to_state()


def planning_use(state: Any) -> TokenLedger:
    """What the planning turns of this session spent."""
    return TokenLedger.from_state(state.get(keys.PLANNING_USAGE))


@dataclass
class TokenLedger:
    """The tokens one investigation spent, per stage; models without a price are listed."""

    per_stage: dict[str, Usage] = field(default_factory=dict)
    unpriced: set[str] = field(default_factory=set)

    def record(self, stage: str, model: str, usage: Usage, priced: bool) -> None:
        self.per_stage.setdefault(stage, Usage()).add(usage)
        if not priced:
            self.unpriced.add(model)

    @property
    def total(self) -> Usage:
        total = Usage()
        for usage in self.per_stage.values():
            total.add(usage)
        return total

    def merge(self, other: TokenLedger) -> None:
        for stage, usage in other.per_stage.items():
            self.per_stage.setdefault(stage, Usage()).add(usage)
        self.unpriced |= other.unpriced

    def to_state(self) -> dict[str, Any]:
        """As session state keeps it (calls included), for `from_state`."""
        return {
            "per_stage": {
                stage: {**usage.as_dict(), "calls": usage.calls}
                for stage, usage in self.per_stage.items()
            },
            "unpriced": sorted(self.unpriced),
        }

    @classmethod
    def from_state(cls, value: Any) -> TokenLedger:
        ledger = cls()
        if not isinstance(value, dict):
            return ledger
        for stage, usage in (value.get("per_stage") or {}).items():
            ledger.per_stage[stage] = Usage(**{k: usage.get(k, 0) for k in _USAGE_FIELDS})
        ledger.unpriced = set(value.get("unpriced") or [])
        return ledger

    def as_dict(self) -> dict[str, Any]:
        """The contract's `tokens` object: totals and `per_stage`."""
        record = self.total.as_dict()
        record["per_stage"] = {stage: u.as_dict() for stage, u in self.per_stage.items()}
        if self.unpriced:
            record["unpriced_models"] = sorted(self.unpriced)
        return record


def tokens_line(tokens: dict[str, Any] | None, language: str = "en") -> str:
    """One line for people: "12,345 tokens in · 2,345 out (1,000 cached) · ≈ US$ 0.0123"."""
    if not tokens:
        return ""
    cached = tokens.get("cached") or 0
    unpriced = tokens.get("unpriced_models") or []
    line = message(
        "tokens_line",
        language,
        input=tokens.get("input") or 0,
        output=tokens.get("output") or 0,
        cost=tokens.get("cost_usd") or 0.0,
        cached=message("tokens_cached", language, cached=cached) if cached else "",
        unpriced=message("tokens_unpriced", language, count=len(unpriced)) if unpriced else "",
    )
    # Brazilian Portuguese writes 12.345 tokens and US$ 0,0123.
    return line.translate(_PT_DIGITS) if is_portuguese(language) else line


_PT_DIGITS = str.maketrans({",": ".", ".": ","})
