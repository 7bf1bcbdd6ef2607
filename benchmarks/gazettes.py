"""The official gazettes at speed, in its own process: five claims about one city checked at once.

    uv run python -m benchmarks.gazettes [--latency 0.5] [--time-scale 1]

A Portuguese story about Porto Alegre after the May 2024 floods: five claims about the city's
acts (emergency contracts, the calamity decree, purchases for shelters), each checked by the fact
checker's gazette search against the loopback Querido Diário fake as deployed: its golden corpus,
0.2 s a request, Traefik's bucket in front of the API (25 a minute, burst 50, 429 past it) and a
25 s cold first query of every search string; with Vicaran's real default budget (25 requests in
any minute), the scripted model taking L a call and no web evidence (the gazettes alone). Prints
the wall time in seconds and model rounds (L), each claim's search rounds, the requests Querido
Diário received by kind, the busiest 60-second window and what Traefik refused; then one JSON
object on stdout. `--time-scale K` (tests) runs K times faster: a "minute" of 60/K s for both
budgets, K times Vicaran's requests a minute, a cold query of 25/K s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"

CLAIMS = [
    "A Prefeitura de Porto Alegre firmou contratos emergenciais com empresas privadas para "
    "limpeza urbana após as enchentes de maio de 2024.",
    "A Prefeitura de Porto Alegre declarou estado de calamidade pública por decreto em maio "
    "de 2024.",
    "A Prefeitura de Porto Alegre comprou colchões e cobertores para os abrigos temporários "
    "em 2024.",
    "A Prefeitura de Porto Alegre contratou unidades móveis de atendimento para os abrigos "
    "temporários em 2024.",
    "A Prefeitura de Porto Alegre contratou o transporte de resíduos das áreas atingidas pelas "
    "enchentes em 2024.",
]
QD_LATENCY = 0.2
COLD_SECONDS = 25.0  # a term's first query on the real service: 20-36 s
BUDGET_PER_MINUTE = 25  # Vicaran's default (VICARAN_QUERIDO_DIARIO_RPM), the production limit


async def _check(latency: float) -> dict[str, Any]:
    from tests.support.gazettes import gazette_checker
    from tests.support.scripted_model import _municipal_act
    from vicaran_agent.clients.querido_diario import QueridoDiario
    from vicaran_agent.config import get_settings
    from vicaran_agent.llm import ModelClient
    from vicaran_agent.runtime import investigation_runtime
    from vicaran_agent.schemas import Claim

    settings = get_settings()
    model = ModelClient(settings.vicaran_fast_model, settings)
    claims = [
        Claim(key=f"C{i}", claim_text=text, importance=0.9, origin="brief", **_municipal_act(text))
        for i, text in enumerate(CLAIMS, 1)
    ]
    async with investigation_runtime("bench-gazettes", settings) as runtime:
        client = QueridoDiario(settings)
        checkers = [
            gazette_checker(
                claim, settings=settings, runtime=runtime, model=model, client=client, cap=2
            )
            for claim in claims
        ]
        started = time.monotonic()
        verdicts = await asyncio.gather(*(c.run() for c in checkers))
        wall = time.monotonic() - started
        await client.aclose()
    outcomes = [c.gazette_outcome for c in checkers]
    return {
        "wall_s": round(wall, 2),
        "wall_per_L": round(wall / latency, 2),
        "rounds": [o.rounds if o else 0 for o in outcomes],
        "found": sum(bool(o and o.found) for o in outcomes),
        "gazettes_read": sum(len(o.read) for o in outcomes if o),
        "verdicts": dict(Counter(v.verdict for v in verdicts)),
        "gazette_evidence": sum(e.origin == "gazette" for v in verdicts for e in v.evidence),
    }


def _busiest(times: list[float], window: float) -> int:
    times = sorted(times)
    best, left = 0, 0
    for right, at in enumerate(times):
        while at - times[left] > window:
            left += 1
        best = max(best, right - left + 1)
    return best


def run(latency: float, scale: float = 1.0) -> dict[str, Any]:
    from tests.fakes.factcheck import FakeFactCheckTools
    from tests.fakes.jina import FakeJinaReader
    from tests.fakes.querido_diario import FakeQueridoDiario
    from tests.fakes.tavily import FakeTavily
    from tests.fakes.traefik import TraefikRateLimit

    latency_ms = round(latency * 1000)
    minute = 60.0 / scale
    traefik = TraefikRateLimit(average=25, period=minute, burst=50)
    gazettes = FakeQueridoDiario(
        latency=QD_LATENCY, rate_limit=traefik, cold_seconds=COLD_SECONDS / scale
    )
    services = {
        "tavily": FakeTavily(overrides=lambda query, body: []),
        "jina": FakeJinaReader({}),
        "factcheck": FakeFactCheckTools(),
        "querido_diario": gazettes,
    }
    for service in services.values():
        service.start()
    try:
        with tempfile.TemporaryDirectory(prefix="vicaran-gazettes-") as folder:
            os.environ.update(
                {
                    "VICARAN_FAST_MODEL": f"scripted/latency-{latency_ms}",
                    "VICARAN_PRO_MODEL": f"scripted/latency-{round(1.5 * latency_ms)}",
                    "TAVILY_API_KEY": "tvly-test",
                    "TAVILY_BASE_URL": services["tavily"].url,
                    "JINA_READER_BASE_URL": services["jina"].url,
                    "FACTCHECK_API_KEY": "test-key",
                    "FACTCHECK_BASE_URL": services["factcheck"].url,
                    "QUERIDO_DIARIO_BASE_URL": services["querido_diario"].url,
                    # Vicaran's own defaults (25 in any minute, 45 s a request), time-scaled
                    "VICARAN_QUERIDO_DIARIO_RPM": str(round(BUDGET_PER_MINUTE * scale)),
                    "VICARAN_RATE_WINDOW_SECONDS": f"{minute:g}",
                    "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS": f"{45 / scale:g}",
                    "VICARAN_GAZETTE_TIMEOUT_SECONDS": f"{180 / scale:g}",
                    "VICARAN_FETCH_ALLOW_PRIVATE": "true",  # the fake's texts are on loopback
                    "VICARAN_LIVE_SEARCH_FALLBACK": "false",
                    "VICARAN_PAGES_PER_CLAIM": "0",
                    "VICARAN_DATABASE_URL": f"sqlite:///{Path(folder) / 'bench.db'}",
                }
            )
            import tests.support.scripted_model  # noqa: F401 - registers scripted/...

            result = asyncio.run(_check(latency))
    finally:
        for service in services.values():
            service.stop()
    requests = gazettes.requests
    result["qd_requests"] = dict(Counter(_kind(r.path) for r in requests))
    result["qd_busiest_60s"] = _busiest([r.started for r in requests], minute)
    result["qd_refused"] = traefik.refused  # 429s of Traefik's bucket
    result["qd_cold"] = len(gazettes.cold)  # searches answered after the cold delay
    result["cold_s"] = COLD_SECONDS / scale
    result["latency"] = latency
    result["time_scale"] = scale
    return result


def _kind(path: str) -> str:
    return (
        "gazettes" if path == "/gazettes" else "cities" if path.startswith("/cities") else "texts"
    )


def lines(r: dict[str, Any]) -> list[str]:
    if "error" in r:
        return [f"  gazettes benchmark failed: {r['error'].splitlines()[0][:200]}"]
    scale = r.get("time_scale", 1.0)
    minute = "60 s" if scale == 1 else f"{60 / scale:g} s (a minute / {scale:g})"
    return [
        f"  {len(CLAIMS)} claims about Porto Alegre, checked at once in its gazettes: "
        f"{r['wall_s']} s = {r['wall_per_L']}*L; search rounds per claim {r['rounds']}; "
        f"acts found for {r['found']}/{len(CLAIMS)}, {r['gazettes_read']} gazettes read, "
        f"verdicts {r['verdicts']}",
        f"  Querido Diário received {r['qd_requests']} (busiest {minute}: "
        f"{r['qd_busiest_60s']}, budget {BUDGET_PER_MINUTE}/min; Traefik's bucket refused "
        f"{r['qd_refused']}; {r['qd_cold']} cold first queries of {r['cold_s']:g} s)",
    ]


def targets(r: dict[str, Any]) -> list[tuple[str, bool, str]]:
    if "error" in r:
        return [("gazettes ran", False, r["error"].splitlines()[0][:200])]
    rounds = max(r["rounds"] or [0])
    return [
        (
            f"gazette requests <= {BUDGET_PER_MINUTE} in any minute",
            r["qd_busiest_60s"] <= BUDGET_PER_MINUTE,
            f"busiest minute: {r['qd_busiest_60s']}",
        ),
        (
            f"gazette acts found for {len(CLAIMS)}/{len(CLAIMS)} claims despite cold queries",
            r["found"] == len(CLAIMS) and r["qd_cold"] > 0,
            f"{r['found']}/{len(CLAIMS)}, {r['qd_cold']} cold queries",
        ),
        ("no gazette request refused (429)", r["qd_refused"] == 0, f"{r['qd_refused']} refused"),
        ("gazette search rounds per claim <= 3", rounds <= 3, f"max {rounds}"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5, help="model latency L in seconds")
    parser.add_argument(
        "--time-scale", type=float, default=1.0, help="run K times faster (tests): minute = 60/K s"
    )
    args = parser.parse_args(argv)
    result = run(args.latency, args.time_scale)
    for line in lines(result):
        print(line, file=sys.stderr)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
