"""What routing a stage's model call through ADK's model-call path costs, in its own process.

    uv run python -m benchmarks.model_routing [--calls 400]

Inside a real invocation (ADK's Runner, one stage-like agent), the same structured call is made
`--calls` times straight to the model and `--calls` times through ADK (plugins, callbacks, a span,
the call counter: `vicaran_agent.llm.respond`), with the scripted model answering at once. Prints
the CPU time per call both ways and the difference; then one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncGenerator
from typing import Any

os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"
os.environ["ADK_MAX_LLM_CALLS"] = "1000000"


async def _measure(calls: int) -> dict[str, Any]:
    from google.adk.agents import BaseAgent
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.events import Event
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    import tests.support.scripted_model  # noqa: F401 - registers scripted/...
    from vicaran_agent.llm import ModelClient, ModelSite
    from vicaran_agent.model_outputs import SearchPlan

    figures: dict[str, float] = {}

    class Timed(BaseAgent):
        async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
            direct = ModelClient("scripted/default")
            routed = ModelClient("scripted/default", site=ModelSite.of(ctx))
            prompt = "Brief: Acme Chemicals and Riverton's water."
            for name, client in (("direct", direct), ("routed", routed)) * 2:
                started = time.process_time()
                for _ in range(calls):
                    await client.generate(instruction="Plan.", prompt=prompt, schema=SearchPlan)
                figures[name] = (time.process_time() - started) / calls * 1e6
            yield Event(author=self.name, invocation_id=ctx.invocation_id)

    runner = InMemoryRunner(agent=Timed(name="source_finder"), app_name="bench")
    session = await runner.session_service.create_session(app_name="bench", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="go")])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    return {
        "calls": calls,
        "direct_us": round(figures["direct"], 1),
        "routed_us": round(figures["routed"], 1),
        "routing_us": round(figures["routed"] - figures["direct"], 1),
    }


def lines(figures: dict[str, Any]) -> list[str]:
    return [
        f"Model routing ({figures['calls']} calls each way, CPU per call): straight to the model "
        f"{figures['direct_us']:.0f} µs, through ADK {figures['routed_us']:.0f} µs: "
        f"+{figures['routing_us']:.0f} µs a call"
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args(argv)
    figures = asyncio.run(_measure(args.calls))
    print("\n".join(lines(figures)), file=sys.stderr)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
