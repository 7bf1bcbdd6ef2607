"""Where a benchmark investigation's time went: its critical path, a waterfall, the stories' rows.

The waterfall draws, per model task and per service, when calls were running, in columns of
L/4 from the journalist's APPROVED; a gap in a row that should be busy is time the run waited.
The second story (issue 27, `benchmarks.scenario --story batches`) runs three times per mode;
its target is held by the median run, whose waterfall is printed.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Any

STORY = "batches"
STORY_REPEATS = 3
STORY_BOUNDS = {"quick": 12, "detailed": 14}  # x L after APPROVED, the median of the repeats
COLUMNS_PER_L = 4


def story_name(mode: str, repeat: int) -> str:
    return f"{mode} ({STORY} story) #{repeat}"


def critical_path(name: str, r: dict[str, Any]) -> str:
    """Model tasks, services and store writes of one run, ordered by when they started."""
    spans = [(a, b, f"model {t} x{n}") for t, (n, a, b) in r["model_windows"].items()]
    spans += [(a, b, f"http {s} x{n}") for s, (n, a, b) in r["http_windows"].items()]
    lines = [f"{name}: seconds after APPROVED (L = {r['latency']} s)"]
    for start, end, what in sorted(spans):
        lines.append(f"  {start:6.2f} - {end:6.2f}  {what}")
    stages = ", ".join(f"{a} {w[0]:.2f}-{w[1]:.2f}" for a, w in r["stage_windows"].items())
    lines.append(f"  stages (first-last event): {stages}")
    lines.append(
        f"  {r['httpx_clients_created']} httpx clients created, "
        f"{r['httpx_client_init_s']:.2f} s of event-loop time building them; "
        f"{r['sequential_model_calls']} model calls stood one after another; "
        f"iterations per verdict {r['iterations']}"
    )
    return "\n".join(lines)


def waterfall(name: str, r: dict[str, Any]) -> str:
    """One row per model task and per service: '#' where a call was running, '.' where none."""
    latency = r["latency"]
    step = latency / COLUMNS_PER_L
    columns = max(1, math.ceil(r["wall_s"] / step))
    rows: dict[str, list[tuple[float, float]]] = {}
    for task, start, end in r.get("model_spans", []):
        rows.setdefault(f"model {task}", []).append((start, end))
    for service, start, end in r.get("http_spans", []):
        rows.setdefault(f"http {service}", []).append((start, end))
    ordered = sorted(rows.items(), key=lambda row: min(a for a, _ in row[1]))
    width = max((len(label) for label in rows), default=10) + 6
    # each whole L numbered at its own column
    ruler = "".join(f"{n:<{COLUMNS_PER_L}}" for n in range(math.ceil(columns / COLUMNS_PER_L)))
    lines = [
        f"{name}: waterfall after APPROVED, one column = L/{COLUMNS_PER_L} "
        f"(L = {latency} s), run ends at {r['wall_per_L']:.1f}*L",
        f"  {'L':<{width}}{ruler}".rstrip(),
    ]
    for label, spans in ordered:
        bar = "".join(
            "#" if any(a < (c + 1) * step and b > c * step for a, b in spans) else "."
            for c in range(columns)
        )
        lines.append(f"  {f'{label} x{len(spans)}':<{width}}{bar}")
    return "\n".join(lines)


def story_runs(results: dict[str, dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    """The second story's runs of one mode that finished."""
    runs = [results.get(story_name(mode, n + 1), {}) for n in range(STORY_REPEATS)]
    return [r for r in runs if r and "error" not in r]


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run whose wall time is the median (the lower middle one of an even count)."""
    ordered = sorted(runs, key=lambda r: r["wall_s"])
    return ordered[(len(ordered) - 1) // 2]


def story_targets(
    results: dict[str, dict[str, Any]],
) -> list[tuple[str, bool, str]]:
    """Quick <= 12*L and detailed <= 14*L after APPROVED on the second story, median of 3."""
    found = []
    for mode, bound in STORY_BOUNDS.items():
        runs = story_runs(results, mode)
        if not runs:
            continue
        walls = [r["wall_per_L"] for r in runs]
        got = median(walls)
        shown = " ".join(f"{w:.1f}" for w in walls)
        found.append(
            (
                f"{mode}, {STORY} story (median of {STORY_REPEATS}) <= {bound}*L",
                got <= bound and len(runs) == STORY_REPEATS,
                f"{got:.1f}*L (runs: {shown})",
            )
        )
    return found
