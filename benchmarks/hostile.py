"""The hostile documents of issue 20, in its own process; prints its figures, then one JSON object.

    uv run python -m benchmarks.hostile [--ocr-seconds 30] [--skip-alone] [--skip-served]

1. Alone: each hostile file (tests/support/hostile.py: the 760-byte self-drawing PDF, 40 nested
   forms, the tiny-paragraph DOCX that unpacks to 95 MB, 2,000 pages sharing one content stream,
   2,000 pages of noise for OCR) taken in by itself as an attachment is (`intake.take_in`: parsed
   in the parse pool, indexed in a fresh SQLite database): how long, what became of it, what
   was indexed and how many pages were cut with a note.
2. Served: `vicaran serve` (the scripted model, a fresh database, its address space capped at
   `--server-memory-mb` so that a parser running away inside it would stop there) with the whole
   set and a memo attached to one message over `/run_sse`, while `/healthz` is asked again and
   again from a process of its own (1 s allowed an answer) and the memory of the server and of
   every process under it (the parse pool's workers, Tesseract) is read every 50 ms: the peak of
   their resident sets summed (shared pages counted in each), of their proportional sets (what
   they cost the machine), the server's own peak, the slowest health answer and how long the
   plan took.

OCR runs with `--ocr-seconds` as the document's and the investigation's OCR time budget (the
defaults are 300 s and 600 s: the same memory, minutes longer). Tesseract must be installed for
the noise PDF to reach OCR (otherwise its pages are listed as not read, at once).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"

ROOT = Path(__file__).resolve().parent.parent
APP = "vicaran_agent"
PDF, DOCX, MARKDOWN = (
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "text/markdown",
)
MEMO = (
    b"# EPA inspection memo\n\nOn 2024-03-12 EPA inspectors found lead at 41 parts per billion "
    b"in Riverton's drinking water, nearly three times the federal action level.\n"
)
BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
TARGETS = {"tree_peak_rss_mib": 1536.0, "healthz_s": 1.0, "alone_s": 60.0}


def hostile_set() -> list[tuple[str, str, Callable[[], bytes]]]:
    """(file name, MIME type, maker) of each hostile file, then the memo."""
    from tests.support import hostile

    return [
        ("drawing.pdf", PDF, hostile.self_drawing_pdf),
        ("nested.pdf", PDF, hostile.nested_forms_pdf),
        ("tiny.docx", DOCX, hostile.tiny_paragraphs_docx),
        ("one-stream.pdf", PDF, hostile.one_stream_pdf),
        ("noise.pdf", PDF, hostile.noise_pdf),
        ("epa-memo.md", MARKDOWN, lambda: MEMO),
    ]


def settings_environment(workdir: Path, ocr_seconds: float) -> dict[str, str]:
    return {
        "VICARAN_DATABASE_URL": f"sqlite:///{workdir / 'vicaran.db'}",
        "VICARAN_OCR_DOCUMENT_SECONDS": str(ocr_seconds),
        "VICARAN_OCR_INVESTIGATION_SECONDS": str(ocr_seconds),
    }


# --- 1. alone --------------------------------------------------------------------------------


async def _alone(files: list[tuple[str, str, bytes]]) -> list[dict[str, Any]]:
    from google.genai import types

    from vicaran_agent.documents import intake

    store = intake.document_store()
    out = []
    for n, (name, mime, data) in enumerate(files):
        blob = types.Blob(data=data, mime_type=mime, display_name=name)
        content = types.Content(role="user", parts=[types.Part(inline_data=blob)])
        started = time.perf_counter()
        (record,) = await intake.take_in(intake.attachments_in(content), f"alone-{n}", None)
        seconds = time.perf_counter() - started
        info = store.get(record.document_id) if record.document_id else None
        out.append(
            {
                "file": name,
                "bytes": len(data),
                "seconds": round(seconds, 2),
                "status": record.status,
                "reason": record.reason[:160],
                "pages": info.page_count if info else 0,
                "passages": info.passages if info else 0,
                "pages_not_read": len(info.unreadable) if info else 0,
                "ocr_pages": record.ocr_pages,
            }
        )
    return out


def alone(workdir: Path, ocr_seconds: float) -> dict[str, Any]:
    """Each file taken in by itself, in this process (its parsing in the parse pool)."""
    os.environ.update(settings_environment(workdir, ocr_seconds))
    from vicaran_agent.config import forget_settings
    from vicaran_agent.workers.parsing import close_pools, parse_pool

    forget_settings()
    pool = parse_pool()
    pool.wait_ready(120)
    try:
        files = [(name, mime, make()) for name, mime, make in hostile_set()]
        results = asyncio.run(_alone(files))
    finally:
        peak_growth = pool.stats.peak_growth_mb
        failures = dict(pool.stats.failures)
        close_pools()
    return {"files": results, "pool_peak_growth_mib": peak_growth, "pool_failures": failures}


# --- 2. served -------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _capped(memory_mb: int) -> Callable[[], None]:
    def limit() -> None:
        import resource

        size = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return limit


@contextmanager
def served(
    workdir: Path, variables: dict[str, str], memory_mb: int
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`vicaran serve` on a free port with the scripted model: its base URL and process."""
    import httpx

    port = _free_port()
    environment = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "VICARAN_MODEL_PLUGINS": "tests.support.scripted_model",
        "VICARAN_FAST_MODEL": "scripted/default",
        "VICARAN_PRO_MODEL": "scripted/default",
        **variables,
    }
    log = (workdir / "serve.log").open("w")
    command = [sys.executable, "-m", "vicaran_agent.cli", "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=_capped(memory_mb),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"vicaran serve exited: {(workdir / 'serve.log').read_text()}")
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("vicaran serve did not start in 120 s")
            time.sleep(0.3)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _plan(base: str, files: list[tuple[str, str, bytes]]) -> dict[str, Any]:
    import httpx

    session = httpx.post(f"{base}/apps/{APP}/users/bench/sessions", json={}).json()
    parts: list[dict[str, Any]] = [{"text": BRIEF}]
    for name, mime, data in files:
        blob = {"displayName": name, "mimeType": mime, "data": base64.b64encode(data).decode()}
        parts.append({"inlineData": blob})
    body = {
        "appName": APP,
        "userId": "bench",
        "sessionId": session["id"],
        "newMessage": {"role": "user", "parts": parts},
        "streaming": False,
    }
    with httpx.stream("POST", f"{base}/run_sse", json=body, timeout=900) as response:
        response.raise_for_status()
        for _ in response.iter_lines():
            pass
    url = f"{base}/apps/{APP}/users/bench/sessions/{session['id']}"
    state = httpx.get(url, timeout=30).json()["state"]
    from vicaran_agent import state_keys as keys

    return {a["file_name"]: a for a in state[keys.INVESTIGATION_DOCUMENTS]["attachments"]}


def serve(workdir: Path, ocr_seconds: float, memory_mb: int) -> dict[str, Any]:
    """The whole set attached to one message of a real `vicaran serve`, watched."""
    from tests.support.watch import HealthPoller, TreeMemory

    files = [(name, mime, make()) for name, mime, make in hostile_set()]
    with served(workdir, settings_environment(workdir, ocr_seconds), memory_mb) as (base, process):
        with TreeMemory(process.pid) as memory, HealthPoller(f"{base}/healthz") as health:
            started = time.perf_counter()
            records = _plan(base, files)
            plan_s = time.perf_counter() - started
        alive = process.poll() is None
    return {
        "server_alive": alive,
        "plan_s": round(plan_s, 1),
        "statuses": {name: record["status"] for name, record in records.items()},
        "ocr_seconds_used": round(sum(r.get("ocr_seconds", 0.0) for r in records.values()), 1),
        "tree_peak_rss_mib": round(memory.peak_rss_mib),
        "tree_peak_pss_mib": round(memory.peak_pss_mib),
        "server_peak_rss_mib": round(memory.server_hwm_mib),
        "peak_processes": memory.peak_processes,
        "healthz_answers": len(health.answers),
        "healthz_problems": health.problems[:5],
        "slowest_healthz_s": round(health.slowest, 3),
    }


# --- the figures -----------------------------------------------------------------------------


def lines(r: dict[str, Any]) -> list[str]:
    """The figures as people read them."""
    out = []
    for f in r.get("alone", {}).get("files", []):
        kept = f"{f['pages']:,} page(s), {f['passages']:,} passage(s)" if f["pages"] else ""
        cut = f", {f['pages_not_read']:,} pages not read (each with why)" * bool(
            f["pages_not_read"]
        )
        ocr = f", OCR of {f['ocr_pages']} pages" * bool(f["ocr_pages"])
        why = f": {f['reason']}" if f["reason"] else ""
        out.append(
            f"alone: {f['file']} ({f['bytes']:,} bytes) {f['status']} in {f['seconds']:.1f} s"
            f"{' - ' + kept if kept else ''}{cut}{ocr}{why}"
        )
    s = r.get("served")
    if s:
        statuses = ", ".join(f"{name} {status}" for name, status in s["statuses"].items())
        out += [
            f"vicaran serve, the set attached to one message: plan in {s['plan_s']:.0f} s "
            f"({statuses}; OCR {s['ocr_seconds_used']:.0f} s)",
            f"peak memory of the server and its {s['peak_processes'] - 1} processes: RSS "
            f"{s['tree_peak_rss_mib']:,} MiB summed (PSS {s['tree_peak_pss_mib']:,} MiB); the "
            f"server alone {s['server_peak_rss_mib']:,} MiB",
            f"/healthz: {s['healthz_answers']} answers, slowest {s['slowest_healthz_s']:.3f} s, "
            f"{len(s['healthz_problems'])} problems; server alive after: {s['server_alive']}",
        ]
    return out


def targets(r: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(target, met, what was measured)."""
    found = []
    files = r.get("alone", {}).get("files", [])
    if files:
        slowest = max(files, key=lambda f: f["seconds"])
        found.append(
            (
                f"each hostile file alone refused or cut in < {TARGETS['alone_s']:.0f} s",
                slowest["seconds"] < TARGETS["alone_s"],
                f"slowest {slowest['file']} {slowest['seconds']:.1f} s",
            )
        )
    s = r.get("served")
    if s:
        found += [
            (
                f"vicaran serve + workers peak RSS <= {TARGETS['tree_peak_rss_mib']:.0f} MiB "
                "with the hostile set attached",
                s["tree_peak_rss_mib"] <= TARGETS["tree_peak_rss_mib"],
                f"{s['tree_peak_rss_mib']:,} MiB (PSS {s['tree_peak_pss_mib']:,} MiB)",
            ),
            (
                f"/healthz answers within {TARGETS['healthz_s']:.0f} s throughout",
                s["server_alive"]
                and not s["healthz_problems"]
                and s["slowest_healthz_s"] < TARGETS["healthz_s"],
                f"slowest {s['slowest_healthz_s']:.3f} s of {s['healthz_answers']}",
            ),
        ]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ocr-seconds", type=float, default=30.0)
    parser.add_argument("--server-memory-mb", type=int, default=4096)
    parser.add_argument("--skip-alone", action="store_true")
    parser.add_argument("--skip-served", action="store_true")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"ocr_seconds": args.ocr_seconds}
    with tempfile.TemporaryDirectory(prefix="vicaran-hostile-") as workdir:
        for part in ("served", "alone"):
            Path(workdir, part).mkdir()
        if not args.skip_served:  # first: this process has started no parse pool yet
            result["served"] = serve(
                Path(workdir, "served"), args.ocr_seconds, args.server_memory_mb
            )
        if not args.skip_alone:
            result["alone"] = alone(Path(workdir, "alone"), args.ocr_seconds)
    for line in lines(result):
        print(line, file=sys.stderr)
    for target, met, detail in targets(result):
        print(f"  {'PASS' if met else 'FAIL'}  {target}: {detail}", file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
