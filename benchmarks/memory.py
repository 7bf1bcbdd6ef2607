"""Claim memory at scale: looking up a new claim among 10,000 stored ones.

    uv run python -m benchmarks.memory [--claims 10000] [--lookups 200]

Stores `--claims` checked claims (20 per investigation; each states a figure, a year and a
company, as checked claims do), then times `Repository.earlier_checks` for `--lookups` new claims,
one at a time (a tenth of them restate a stored claim in other words, the rest do not). Prints the
median and p95 in milliseconds and how many were recalled; then one JSON object on stdout.
Target: p95 <= 50 ms per claim.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"

PER_INVESTIGATION = 20
LIMIT_MS = 50.0
COMPANIES = [f"Company{n:03d} Holdings" for n in range(300)]
PLACES = ["Riverton", "Valmora", "Porto Alegre", "Clearwater", "Lakeside", "Northbridge"]
VERBS = ["exceeded lead limits", "paid suppliers", "spent on school meals", "hired consultants"]


def claim_text(n: int) -> tuple[str, list[str]]:
    company = COMPANIES[n % len(COMPANIES)]
    place = PLACES[n % len(PLACES)]
    verb = VERBS[n % len(VERBS)]
    return f"{company} {verb} by {n % 997}% at its {place} plant in {2015 + n % 10}.", [company]


def seed(repository: Any, claims: int) -> None:
    from vicaran_agent.schemas import Claim, InvestigationConfig, Verdict

    for first in range(0, claims, PER_INVESTIGATION):
        config = InvestigationConfig.for_mode(
            "quick", investigation_id=str(uuid.uuid4()), title=f"Story {first}", brief="b",
            language="en",
        )  # fmt: skip
        repository.start_investigation(config)
        iid = config.investigation_id
        drafted = [claim_text(n) for n in range(first, min(first + PER_INVESTIGATION, claims))]
        ids = repository.save_claims(
            iid,
            [
                Claim(key=f"C{k}", claim_text=text, importance=0.5, entities=entities)
                for k, (text, entities) in enumerate(drafted)
            ],
        )
        repository.save_verdicts(
            iid,
            [
                Verdict(
                    claim_key=f"C{k}",
                    claim_text=text,
                    claim_id=ids[f"C{k}"],
                    verdict="false",
                    confidence=0.8,
                    explanation="x",
                    as_of="2026-11-01",
                )
                for k, (text, _) in enumerate(drafted)
            ],
        )


def measure(claims: int, lookups: int) -> dict[str, Any]:
    from vicaran_agent.storage import get_repository

    with tempfile.TemporaryDirectory(prefix="vicaran-memory-") as folder:
        repository = get_repository(f"sqlite:///{Path(folder) / 'memory.db'}")
        started = time.perf_counter()
        seed(repository, claims)
        seeded_s = time.perf_counter() - started
        new_id = str(uuid.uuid4())
        times, recalled = [], 0
        for n in range(lookups):
            if n % 10 == 0:  # a stored claim, said again in other words
                text, entities = claim_text(n * 37 % claims)
                text = "In " + text.split(" in ")[-1].rstrip(".") + ", " + text.split(" in ")[0]
            else:  # a claim nobody checked: a year no stored claim states
                text, entities = claim_text(n)
                text = text.rsplit(" in ", 1)[0] + " in 2031."
            began = time.perf_counter()
            found = repository.earlier_checks(new_id, [("C1", text, entities)], "2026-01-01")
            times.append((time.perf_counter() - began) * 1000)
            recalled += bool(found)
        repository.close()
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return {
        "claims": claims,
        "lookups": lookups,
        "seeded_s": round(seeded_s, 1),
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(p95, 2),
        "recalled": recalled,
        "restated": (lookups + 9) // 10,
    }


def targets(figures: dict[str, Any]) -> list[tuple[str, bool, str]]:
    return [
        (
            f"claim memory p95 <= {LIMIT_MS:g} ms per claim at {figures['claims']:,} stored claims",
            figures["p95_ms"] <= LIMIT_MS,
            f"p95 {figures['p95_ms']:.1f} ms, median {figures['median_ms']:.1f} ms",
        ),
        (
            "claim memory recalls every restated claim and nothing else",
            figures["recalled"] == figures["restated"],
            f"{figures['recalled']} recalled of {figures['restated']} restated",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--lookups", type=int, default=200)
    args = parser.parse_args(argv)
    figures = measure(args.claims, args.lookups)
    print(
        f"{figures['claims']:,} stored claims (seeded in {figures['seeded_s']} s): "
        f"lookup median {figures['median_ms']} ms, p95 {figures['p95_ms']} ms; "
        f"{figures['recalled']} recalled of {figures['restated']} restated",
        file=sys.stderr,
    )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
