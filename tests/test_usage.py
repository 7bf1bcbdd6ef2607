"""Tokens and their estimated cost: what a provider bills, priced from the table."""

from __future__ import annotations

import pytest
from google.genai import types

from vicaran_agent.config import get_settings
from vicaran_agent.usage import TokenLedger, price_of, tokens_line, usage_of


def metadata(prompt: int, output: int, cached: int = 0, thoughts: int = 0):
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt,
        candidates_token_count=output,
        cached_content_token_count=cached,
        thoughts_token_count=thoughts,
    )


def test_cached_input_is_priced_apart_and_thinking_counts_as_output():
    prices = {"input": 1.0, "output": 10.0, "cached": 0.1}
    use = usage_of(metadata(1_000_000, 100_000, cached=400_000, thoughts=50_000), prices)
    assert (use.input, use.output, use.cached) == (1_000_000, 150_000, 400_000)
    assert use.cost_usd == pytest.approx(0.6 + 0.04 + 1.5)


def test_a_response_without_usage_counts_a_call_and_no_tokens():
    use = usage_of(None, {"input": 1.0, "output": 1.0, "cached": 1.0})
    assert (use.calls, use.total, use.cost_usd) == (1, 0, 0.0)


def test_prices_come_from_the_table_and_the_setting_overrides_it(env):
    assert price_of("gemini-2.5-flash", get_settings()) == {
        "input": 0.3,
        "output": 2.5,
        "cached": 0.03,
    }
    assert price_of("models/gemini-2.5-flash", get_settings()) is not None
    assert price_of("scripted/default", get_settings()) is None
    env.set(VICARAN_MODEL_PRICES='{"scripted/default": {"input": 2, "output": 4}}')
    assert price_of("scripted/default", get_settings()) == {
        "input": 2.0,
        "output": 4.0,
        "cached": 2.0,  # no cached price: cached input costs what input costs
    }


def test_the_ledger_adds_per_stage_and_lists_unpriced_models():
    ledger = TokenLedger()
    prices = {"input": 1.0, "output": 1.0, "cached": 1.0}
    ledger.record("fact_checker", "m", usage_of(metadata(10, 5), prices), True)
    ledger.record("fact_checker", "m", usage_of(metadata(20, 5), prices), True)
    ledger.record("summary_writer", "x", usage_of(metadata(7, 3), None), False)
    record = ledger.as_dict()
    assert (record["input"], record["output"]) == (37, 13)
    assert record["per_stage"]["fact_checker"] == {
        "input": 30,
        "output": 10,
        "cached": 0,
        "cost_usd": 0.00004,
    }
    assert record["unpriced_models"] == ["x"]
    assert ledger.total.total == 50
    assert "(no price set for 1 model: VICARAN_MODEL_PRICES)" in tokens_line(record)
    assert tokens_line(None) == ""


def test_an_empty_price_table_setting_is_no_override_and_a_bad_one_is_explained(env):
    """`.env.example` ships `VICARAN_MODEL_PRICES=` empty: `make run` copies it to `.env`."""
    from pydantic import ValidationError

    from vicaran_agent.config import Settings

    env.set(VICARAN_MODEL_PRICES="")
    assert price_of("gemini-2.5-flash", Settings()) is not None
    env.set(VICARAN_MODEL_PRICES="{not json")
    with pytest.raises(ValidationError, match="VICARAN_MODEL_PRICES must be JSON"):
        Settings()
    env.set(VICARAN_MODEL_PRICES='{"m": {"input": "cheap"}}')
    with pytest.raises(ValidationError, match="VICARAN_MODEL_PRICES must be JSON"):
        Settings()
