"""The model-routing benchmark runs, and its calls really go through ADK."""

from __future__ import annotations

from benchmarks import model_routing


async def test_the_routing_benchmark_measures_both_paths(env, monkeypatch):
    seen: list[str] = []
    from vicaran_agent import adk_compat

    original = adk_compat.call_llm_async

    def counting(flow, ctx, request, event):  # type: ignore[no-untyped-def]
        seen.append(ctx.agent.name)
        return original(flow, ctx, request, event)

    monkeypatch.setattr(adk_compat, "call_llm_async", counting)
    figures = await model_routing._measure(3)
    assert figures["calls"] == 3
    assert figures["direct_us"] > 0 and figures["routed_us"] > 0
    assert seen == ["source_finder__plan_searches"] * 6  # two rounds of 3 routed calls
    assert "through ADK" in model_routing.lines(figures)[0]
