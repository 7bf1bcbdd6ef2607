"""`make bench`: every benchmark scenario in its own process, a table, and the targets checked.

    uv run python -m benchmarks.run [--json PATH] [--latency 0.5] [--quick-only] [--no-documents]
                                    [--no-hostile]

Runs quick (15 sources, 5 claims), detailed (30, 15), a detailed-mode sweep (5/15/30/60 sources
with 15 claims; 5/15/30 claims with 30 sources), the serial baselines of quick and detailed
(every concurrency bound 1), a rate-limited quick run and a detailed run with a 200-page collection
attached; with VICARAN_BENCH_POSTGRES_URL (or VICARAN_TEST_POSTGRES_URL) set, quick and detailed
again with the records on that PostgreSQL server (a fresh schema each). Wall time is from the journalist's
APPROVED to the investigation's last event; L is the fast model's latency (the pro model: 1.5·L).
The second story (`--story batches`, issue 27: both models at L, every service at 0.4·L, the
searches answering in batches, 30 pages beyond the limit) runs quick and detailed three times
each; the median holds the target and its waterfall is printed (benchmarks/critical_path.py).
Then the documents benchmark (benchmarks/documents.py, its own process): indexing 2,000 text-PDF
pages and 100,000 passages, search latency and RSS, and what the parse pool costs a file; the
hostile documents (benchmarks/hostile.py): each of issue 20's hostile files taken in alone, then
all attached at once to a real `vicaran serve` (peak memory of the server and its parsers, the
slowest /healthz answer); and the gazettes benchmark
(benchmarks/gazettes.py): five claims about one city checked in its gazettes at once, against
Querido Diário as deployed (25 requests a minute, 25 s cold first queries); and what routing a
model call through ADK costs
(benchmarks/model_routing.py). Prompt characters (system instruction + prompt) are printed per
task for the quick and detailed runs, with the total per investigation, which is held to the
figures before issue 26 (PROMPT_CHARS_BEFORE).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks import cli_start, documents, gazettes, hostile, memory, model_routing
from benchmarks.critical_path import (
    STORY,
    STORY_REPEATS,
    critical_path,
    median_run,
    story_name,
    story_runs,
    story_targets,
    waterfall,
)

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("tavily", "jina", "factcheck", "newsroom")
PROMPT_BOUND = 40_000
# Prompt characters (system instruction + prompt, every call) of one investigation on main at
# 0ad5aa1, before issue 26's prompt work, by this bench's quick (15 sources, 5 claims) and detailed
# (30, 15) scenarios (the same in every run): a run may not send more.
PROMPT_CHARS_BEFORE = {"quick": 180_596, "detailed": 436_732}
TIMEOUT_SECONDS = 240
DOCUMENTS_TIMEOUT_SECONDS = 400
HOSTILE_TIMEOUT_SECONDS = 400
GAZETTES_TIMEOUT_SECONDS = 300
ROUTING_TIMEOUT_SECONDS = 120
CLI_START_TIMEOUT_SECONDS = 180
MEMORY_TIMEOUT_SECONDS = 240


@dataclass(frozen=True)
class Run:
    name: str
    mode: str
    sources: int
    claims: int
    serial: bool = False
    rate_limited: bool = False
    rewrite: bool = False
    document_pages: int = 0
    postgres: bool = False  # records on PostgreSQL (VICARAN_BENCH_POSTGRES_URL)
    archive: bool = True  # each page read kept as WARC records (VICARAN_ARCHIVE_PAGES)
    story: str = "acme"  # benchmarks.scenario --story

    def argv(self, latency: float) -> list[str]:
        argv = [sys.executable, "-m", "benchmarks.scenario", "--mode", self.mode]
        argv += ["--sources", str(self.sources), "--claims", str(self.claims)]
        argv += ["--latency", str(latency)]
        argv += ["--serial"] * self.serial + ["--rate-limited"] * self.rate_limited
        argv += ["--document-pages", str(self.document_pages)] * bool(self.document_pages)
        argv += ["--postgres", POSTGRES_URL] * self.postgres
        argv += ["--no-archive"] * (not self.archive)
        argv += ["--story", self.story]
        return argv + ["--rewrite"] * self.rewrite


QUICK = Run("quick", "quick", 15, 5)
DETAILED = Run("detailed", "detailed", 30, 15)
REWRITE = Run("quick rewrite", "quick", 15, 5, rewrite=True)
# The journalist's documents beside the web: a 200-page collection attached to a detailed run.
# The records on PostgreSQL too (a bench row), when a server is named.
POSTGRES_URL = os.environ.get("VICARAN_BENCH_POSTGRES_URL") or os.environ.get(
    "VICARAN_TEST_POSTGRES_URL", ""
)
POSTGRES_RUNS = [
    Run("quick (PostgreSQL)", "quick", 15, 5, postgres=True),
    Run("detailed (PostgreSQL)", "detailed", 30, 15, postgres=True),
]
DOCUMENT_RUN = Run("detailed + 200 pp", "detailed", 30, 15, document_pages=200)
# What keeping the web archive costs: the detailed run (archiving on, the default) without it.
UNARCHIVED = Run("detailed, no archive", "detailed", 30, 15, archive=False)
SOURCE_SWEEP = [5, 15, 30, 60]  # with 15 claims
CLAIM_SWEEP = [5, 15, 30]  # with 30 sources


def plan(quick_only: bool) -> list[list[Run]]:
    """Batches, run one after another; the runs of one batch run at the same time.

    Every run whose wall time is a target runs alone. The serial baselines and the rate-limited
    run sleep on injected latency nearly all the time, so they share one batch (that keeps the
    whole benchmark under 5 minutes on 2 cores; the baselines may come out slightly slower).
    """
    if quick_only:
        return [[QUICK], [Run("quick serial", "quick", 15, 5, serial=True)]]
    sweep = [Run(f"sweep {n}s", "detailed", n, 15) for n in SOURCE_SWEEP if n != 30]
    sweep += [Run(f"sweep {n}c", "detailed", 30, n) for n in CLAIM_SWEEP if n != 15]
    background = [
        Run("detailed serial", "detailed", 30, 15, serial=True),
        Run("quick serial", "quick", 15, 5, serial=True),
        Run("rate-limited", "quick", 15, 5, rate_limited=True),
    ]
    postgres = [[run] for run in POSTGRES_RUNS] if POSTGRES_URL else []
    # the second story (issue 27): each mode three times, alone, for its median
    story = [
        [Run(story_name(mode, n + 1), mode, sources, claims, story=STORY)]
        for mode, sources, claims in (("quick", 15, 5), ("detailed", 30, 15))
        for n in range(STORY_REPEATS)
    ]
    return [
        [QUICK],
        [DETAILED],
        *story,
        *postgres,
        [DOCUMENT_RUN],
        [UNARCHIVED],
        [REWRITE],
        *([run] for run in sweep),
        background,
    ]


def execute(batch: list[Run], latency: float) -> dict[str, dict[str, Any]]:
    """Run a batch of scenarios at the same time, each in its own process."""
    with ThreadPoolExecutor(len(batch)) as pool:
        figures = list(pool.map(lambda run: one(run, latency), batch))
    return {run.name: result for run, result in zip(batch, figures, strict=True)}


def one(run: Run, latency: float) -> dict[str, Any]:
    """The figures of one scenario process (or why it failed), with how long it took."""
    return process(run.argv(latency), TIMEOUT_SECONDS)


def process(argv: list[str], timeout: int) -> dict[str, Any]:
    """The JSON figures a benchmark process prints last (or why it failed), with its duration."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            argv,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s", "process_s": timeout}
    elapsed = round(time.monotonic() - started, 1)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        return {"error": f"exit {done.returncode}: {tail}", "process_s": elapsed}
    return {**json.loads(lines[-1]), "process_s": elapsed}


# --- the table ---------------------------------------------------------------------------------


def _per_service(figures: dict[str, int]) -> str:
    return "/".join(str(figures.get(s, 0)) for s in SERVICES)


def speedup(results: dict[str, dict[str, Any]], name: str) -> float | None:
    baseline = results.get(f"{name} serial", {})
    result = results.get(name, {})
    if "wall_s" not in baseline or "wall_s" not in result:
        return None
    return round(baseline["wall_s"] / result["wall_s"], 1)


def table(results: dict[str, dict[str, Any]]) -> str:
    head = (
        "scenario", "src", "clm", "wall s", "wall/L", "model", "prompt chars tot/max",
        "HTTP tav/jina/fc/news", "peak tav/jina/fc/news", "RSS MiB", "speed-up",
    )  # fmt: skip
    rows = [head]
    for name, r in results.items():
        if "error" in r:
            rows.append((name, "-", "-", "FAILED", r["error"].splitlines()[0][:60], *[""] * 6))
            continue
        up = speedup(results, name)
        rows.append(
            (
                name,
                f"{r['sources']}",
                f"{r['claims']}",
                f"{r['wall_s']:.1f}",
                f"{r['wall_per_L']:.1f}",
                str(r["model_calls"]),
                f"{r['prompt_chars_total']:,} / {r['prompt_chars_max']:,}",
                _per_service(r["http_calls"]),
                _per_service(r["http_peak_concurrency"]),
                f"{r['peak_rss_mib']:.0f}",
                f"{up:.1f}x" if up else ("baseline" if name.endswith("serial") else "-"),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def prompt_table(results: dict[str, dict[str, Any]]) -> str:
    """Prompt characters per task, system instruction + prompt, in the quick and detailed runs,
    and per investigation (biggest first)."""
    runs = [
        (n, results[n])
        for n in ("quick", "detailed")
        if "error" not in results.get(n, {"error": 1})
    ]
    if not runs:
        return ""
    tasks = {t for _, r in runs for t in r["prompt_chars_by_task"]}

    def size(task: str) -> int:
        return max(_chars(r["prompt_chars_by_task"].get(task)) for _, r in runs)

    head = ["task"] + [
        cell for name, _ in runs for cell in (f"{name} calls", f"{name} chars (system + prompt)")
    ]
    rows = [head]
    for task in sorted(tasks, key=lambda t: (-size(t), t)):
        cells = [task]
        for _, r in runs:
            chars = r["prompt_chars_by_task"].get(task)
            cells += [str(chars["calls"]), _shown_chars(chars)] if chars else ["-", "-"]
        rows.append(cells)
    total = ["per investigation"]
    for _, r in runs:
        every = r["prompt_chars_by_task"].values()
        summed = {k: sum(c[k] for c in every) for k in ("calls", "system", "prompt")}
        total += [str(summed["calls"]), _shown_chars(summed)]
    rows.append(total)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _chars(chars: dict[str, int] | None) -> int:
    return chars["system"] + chars["prompt"] if chars else 0


def _shown_chars(chars: dict[str, int]) -> str:
    return f"{_chars(chars):,} ({chars['system']:,} + {chars['prompt']:,})"


def prompt_targets(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Quick and detailed send no more prompt characters than before issue 26."""
    found = []
    for name, before in PROMPT_CHARS_BEFORE.items():
        r = results.get(name)
        if r is None or "error" in r:
            continue
        total = r["prompt_chars_total"]
        found.append(
            check(
                f"{name}: prompt chars per investigation <= {before:,} (before issue 26)",
                total <= before,
                f"{total:,} ({total - before:+,})",
            )
        )
    return found


# --- the targets -------------------------------------------------------------------------------


def check(label: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"target": label, "pass": ok, "detail": detail}


def targets(
    results: dict[str, dict[str, Any]], latency: float, total: float
) -> list[dict[str, Any]]:
    ok = {n: r for n, r in results.items() if "error" not in r}
    found: list[dict[str, Any]] = []
    bounds = [("quick", 12), ("detailed", 16), (DOCUMENT_RUN.name, 16)]
    bounds += [(run.name, 12 if run.mode == "quick" else 16) for run in POSTGRES_RUNS]
    for name, bound in bounds:
        if name in ok:
            got = ok[name]["wall_per_L"]
            found.append(check(f"{name} <= {bound}*L", got <= bound, f"{got:.1f}*L"))
    for axis, names in (
        ("sources 5-60", [f"sweep {n}s" for n in SOURCE_SWEEP]),
        ("claims 5-30", [f"sweep {n}c" for n in CLAIM_SWEEP]),
    ):
        walls = [_sweep(ok, n) for n in names]
        if all(w is not None for w in walls) and walls:
            spread = (max(walls) - min(walls)) / latency  # type: ignore[type-var, operator]
            shown = " ".join(f"{w / latency:.1f}" for w in walls)  # type: ignore[operator]
            found.append(
                check(
                    f"sweep {axis} flat: max-min <= 4*L (within +/-2*L)",
                    spread <= 4,
                    f"spread {spread:.1f}*L (walls/L: {shown}); strict max-min <= 2*L: "
                    f"{'yes' if spread <= 2 else 'no'}",
                )
            )
    if "detailed" in ok and UNARCHIVED.name in ok:
        cost = (ok["detailed"]["wall_s"] - ok[UNARCHIVED.name]["wall_s"]) / latency
        pages = ok["detailed"].get("pages_archived", 0)
        found.append(
            check(
                "detailed with the web archive on still <= 16*L; what archiving costs",
                ok["detailed"]["wall_per_L"] <= 16,
                f"{ok['detailed']['wall_per_L']:.1f}*L with, "
                f"{ok[UNARCHIVED.name]['wall_per_L']:.1f}*L without ({cost:+.1f}*L, "
                f"{pages} pages archived, {ok['detailed'].get('archive_bytes', 0):,} bytes)",
            )
        )
    for name in ("quick", "detailed"):
        up = speedup(ok, name)
        if up is not None:
            found.append(check(f"{name} >= 4x faster than serial", up >= 4, f"{up:.1f}x"))
    if "quick" in ok and "quick rewrite" in ok:
        extra = (ok["quick rewrite"]["wall_s"] - ok["quick"]["wall_s"]) / latency
        rewrites = ok["quick rewrite"]["report_rewrites"]
        found.append(
            check(
                "one report rewrite costs <= 3*L (a pro draft and a fast check round)",
                rewrites == 1 and extra <= 3,
                f"+{extra:.1f}*L, {rewrites} rewrite(s); standard runs: "
                + ", ".join(
                    f"{n} {r['report_rewrites']}" for n, r in ok.items() if not r["rewrite"]
                )
                + " rewrite(s)",
            )
        )
    if ok:
        top = max(ok.items(), key=lambda item: item[1]["prompt_chars_max"])
        biggest = top[1]["prompt_chars_max"]
        found.append(
            check(
                f"largest prompt < {PROMPT_BOUND:,} chars",
                biggest < PROMPT_BOUND,
                f"{biggest:,} ({top[1]['prompt_chars_max_task']}, {top[0]})",
            )
        )
        twice = {n: r["pages_read_twice"] for n, r in ok.items() if r["pages_read_twice"]}
        found.append(check("pages read twice = 0", not twice, str(twice or 0)))
        again = {
            n: r["identical_searches_repeated"]
            for n, r in ok.items()
            if r["identical_searches_repeated"]
        }
        found.append(check("identical searches repeated = 0", not again, str(again or 0)))
        unfinished = {n: r["status"] for n, r in ok.items() if r["status"] != "completed"}
        found.append(
            check("every investigation completed", not unfinished, str(unfinished or "yes"))
        )
        unquoted = {
            n: f"{r['decided_with_independent_quote']}/{r['decided']}"
            for n, r in ok.items()
            if r["decided_with_independent_quote"] != r["decided"]
        }
        decided = sum(r["decided"] for r in ok.values())
        found.append(
            check(
                "every decided verdict rests on an independent quoted item",
                not unquoted and decided > 0,
                f"{decided} decided verdicts" + (f"; missing: {unquoted}" if unquoted else ""),
            )
        )
    limited = ok.get("rate-limited")
    if limited:
        waits = limited["retry_waits_s"]
        handled = (
            limited["unretried_429s"] == 0
            and limited["status"] in ("completed", "partial")
            and bool(waits)
            and min(waits) >= 0.95
        )
        found.append(
            check(
                "rate-limited: 429s retried after Retry-After",
                handled,
                f"{limited['tavily_429s']} 429s, retried after {waits} s (Retry-After 1 s), "
                f"{limited['unretried_429s']} never retried, status {limited['status']}",
            )
        )
        rate, bound = limited["peak_rate_sent_per_s"], limited["rate_limit_per_s"]
        found.append(
            check(
                "rate-limited: requests/s sent within the limit",
                rate <= bound,
                f"busiest 1-s window {rate} requests (limit {bound}/s; Vicaran's budget "
                f"{bound * 60}/min counted over 1-s windows)",
            )
        )
    if len(results) > 2:
        found.append(check("whole benchmark < 5 minutes", total < 300, f"{total:.0f} s"))
    for name, r in results.items():
        if "error" in r:
            found.append(check(f"{name} ran", False, r["error"].splitlines()[0][:200]))
    return found


def document_targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The documents benchmark's targets, or that it did not run."""
    if "error" in figures:
        return [check("documents ran", False, figures["error"].splitlines()[0][:200])]
    return [check(label, met, detail) for label, met, detail in documents.targets(figures)]


def hostile_targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The hostile documents' targets, or that they did not run."""
    if "error" in figures:
        return [check("hostile documents ran", False, figures["error"].splitlines()[0][:200])]
    return [check(label, met, detail) for label, met, detail in hostile.targets(figures)]


def _sweep(ok: dict[str, dict[str, Any]], name: str) -> float | None:
    if name in ("sweep 30s", "sweep 15c"):
        name = "detailed"  # the same run
    r = ok.get(name)
    return None if r is None else float(r["wall_s"])


def machine() -> dict[str, Any]:
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "node": platform.node(),
        "commit": commit,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--latency", type=float, default=0.5, help="model latency L in seconds")
    parser.add_argument("--quick-only", action="store_true", help="quick and its serial baseline")
    parser.add_argument("--no-documents", action="store_true", help="skip the documents benchmark")
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile documents")
    args = parser.parse_args(argv)

    started = time.monotonic()
    results: dict[str, dict[str, Any]] = {}
    for batch in plan(args.quick_only):
        print(f"running {', '.join(r.name for r in batch)} ...", file=sys.stderr, flush=True)
        for name, result in execute(batch, args.latency).items():
            results[name] = result
            print(f"  {name}: {result['process_s']:.1f} s", file=sys.stderr, flush=True)
    total = round(time.monotonic() - started, 1)
    document_figures: dict[str, Any] | None = None
    if not (args.no_documents or args.quick_only):
        print("running documents ...", file=sys.stderr, flush=True)
        argv_documents = [sys.executable, "-m", "benchmarks.documents"]
        document_figures = process(argv_documents, DOCUMENTS_TIMEOUT_SECONDS)
        print(f"  documents: {document_figures['process_s']:.1f} s", file=sys.stderr, flush=True)
    hostile_figures: dict[str, Any] | None = None
    if not (args.no_hostile or args.quick_only):
        print("running hostile documents ...", file=sys.stderr, flush=True)
        argv_hostile = [sys.executable, "-m", "benchmarks.hostile"]
        hostile_figures = process(argv_hostile, HOSTILE_TIMEOUT_SECONDS)
        print(f"  hostile: {hostile_figures['process_s']:.1f} s", file=sys.stderr, flush=True)

    gazette_figures: dict[str, Any] | None = None
    if not args.quick_only:
        print("running gazettes ...", file=sys.stderr, flush=True)
        argv_gazettes = [
            sys.executable,
            "-m",
            "benchmarks.gazettes",
            "--latency",
            str(args.latency),
        ]
        gazette_figures = process(argv_gazettes, GAZETTES_TIMEOUT_SECONDS)
        print(f"  gazettes: {gazette_figures['process_s']:.1f} s", file=sys.stderr, flush=True)

    print("running model routing ...", file=sys.stderr, flush=True)
    routing = process([sys.executable, "-m", "benchmarks.model_routing"], ROUTING_TIMEOUT_SECONDS)
    print("running CLI start ...", file=sys.stderr, flush=True)
    cli_figures = process([sys.executable, "-m", "benchmarks.cli_start"], CLI_START_TIMEOUT_SECONDS)
    print("running claim memory ...", file=sys.stderr, flush=True)
    memory_figures = process([sys.executable, "-m", "benchmarks.memory"], MEMORY_TIMEOUT_SECONDS)

    checks = targets(results, args.latency, total) + prompt_targets(results)
    checks += [check(label, met, detail) for label, met, detail in story_targets(results)]
    if document_figures is not None:
        checks += document_targets(document_figures)
    if hostile_figures is not None:
        checks += hostile_targets(hostile_figures)
    if gazette_figures is not None:
        checks += [
            check(label, met, detail) for label, met, detail in gazettes.targets(gazette_figures)
        ]
    if "error" not in cli_figures:
        checks += [
            check(label, met, detail) for label, met, detail in cli_start.targets(cli_figures)
        ]
    if "error" not in memory_figures:
        checks += [
            check(label, met, detail) for label, met, detail in memory.targets(memory_figures)
        ]
    print(table(results))
    print()
    if prompts := prompt_table(results):
        print("Prompt characters per task (system instruction + prompt):")
        print(prompts)
        print()
    for name in ("quick", "detailed"):
        if name in results and "error" not in results[name]:
            print(critical_path(name, results[name]))
            print()
    for mode in ("quick", "detailed"):
        if runs := story_runs(results, mode):
            chosen = median_run(runs)
            print(waterfall(f"{mode}, {STORY} story (the median run)", chosen))
            print(critical_path(f"{mode}, {STORY} story (the median run)", chosen))
            print()
    if document_figures is not None and "error" not in document_figures:
        print("Documents:")
        for line in documents.lines(document_figures):
            print(f"  {line}")
        print()
    if hostile_figures is not None and "error" not in hostile_figures:
        print("Hostile documents:")
        for line in hostile.lines(hostile_figures):
            print(f"  {line}")
        print()
    if gazette_figures is not None:
        print("Official gazettes:")
        print("\n".join(gazettes.lines(gazette_figures)))
        print()
    if "error" not in routing:
        print(model_routing.lines(routing)[0])
        print()
    if "error" not in cli_figures:
        print("CLI start (median wall time of each command, a fresh interpreter):")
        print("\n".join(f"  {line}" for line in cli_start.lines(cli_figures)))
        print()
    print(f"Targets (L = {args.latency} s):")
    for c in checks:
        print(f"  {'PASS' if c['pass'] else 'FAIL'}  {c['target']}: {c['detail']}")
    durations = ", ".join(f"{n} {r['process_s']:.0f} s" for n, r in results.items())
    print(f"\nTotal {total:.0f} s ({durations})")
    if document_figures is not None:
        print(f"Documents benchmark {document_figures['process_s']:.0f} s more")
    if hostile_figures is not None:
        print(f"Hostile documents {hostile_figures['process_s']:.0f} s more")
    if args.json:
        report = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": machine(),
            "latency": args.latency,
            "total_runtime_s": total,
            "runs": results,
            "documents": document_figures,
            "hostile_documents": hostile_figures,
            "gazettes": gazette_figures,
            "model_routing": routing,
            "cli_start": cli_figures,
            "claim_memory": memory_figures,
            "targets": checks,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    # Figures, not a test: a missed target is reported above; only a run that broke fails.
    broken = any("error" in r for r in results.values())
    broken = broken or any(
        f is not None and "error" in f
        for f in (
            document_figures,
            hostile_figures,
            gazette_figures,
            routing,
            cli_figures,
            memory_figures,
        )
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
