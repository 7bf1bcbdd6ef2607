"""How long a `vicaran` command takes to start, beside how long loading ADK's agents takes.

    uv run python -m benchmarks.cli_start [--runs 5]

Each command that does not run the agent (`--help`, `docs list`, `docs search`, `export`,
`gazettes search --help`, `outbox status`, `db status`) is run `--runs` times in a fresh
interpreter against a small records database of its own; its median wall time is set beside the
median of `python -c "from google.adk.agents import LlmAgent"` (ADK 2.13 loads its modules
lazily: `import google.adk.agents` alone loads almost nothing, `LlmAgent` loads what the agent
needs). Prints one line per command, then one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

LIMIT_SECONDS = 1.0
LIMIT_RATIO = 0.5  # of the ADK import
ADK_IMPORT = "from google.adk.agents import LlmAgent"
ID = str(uuid.UUID("7a7d75a8-0b1c-4d2e-8f30-415263748596"))
COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "docs list": ["docs", "list"],
    "docs search": ["docs", "search", "budget"],
    "export": ["export", ID[:8], "--format", "md"],
    "gazettes": ["gazettes", "search", "--help"],
    "outbox status": ["outbox", "status"],
    "db status": ["db", "status"],
}


def _seed(database_url: str) -> None:
    """One saved investigation and one document collection to list, search and export."""
    from vicaran_agent.documents.model import PageText, ParsedDocument
    from vicaran_agent.documents.store import get_document_store
    from vicaran_agent.schemas import InvestigationConfig, Source
    from vicaran_agent.storage import get_repository

    repository = get_repository(database_url)
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=ID, title="Port budget", brief="Port budget", language="en"
    )
    repository.start_investigation(config)
    source = Source(
        url="https://example.org/a", title="A", domain="example.org", credibility_score=3
    )
    repository.save_sources(ID, [source])
    text = "The port budget was overspent in 2023."
    document = ParsedDocument(
        file_name="audit.txt",
        kind="text",
        sha256="0" * 64,
        size_bytes=len(text),
        title="Audit",
        page_count=1,
        pages=[PageText(1, text)],
    )
    get_document_store(database_url).add(document, "audits")
    repository.close()


def _median(argv: list[str], runs: int, env: dict[str, str]) -> float:
    """The median wall time of `argv`; a run that fails is an error (its timing means nothing)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[2:])} exited {done.returncode}: {done.stderr}")
    return round(statistics.median(times), 3)


def measure(runs: int, only: list[str] | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        database_url = f"sqlite:///{Path(folder) / 'vicaran.db'}"
        env = {
            **os.environ,
            "VICARAN_DATABASE_URL": database_url,
            "ADK_DISABLE_LOAD_DOTENV": "1",
            "QUERIDO_DIARIO_BASE_URL": "https://api.queridodiario.org.br",
            # a journalist's Python keeps compiled modules: this machine's environment says not to
            "PYTHONDONTWRITEBYTECODE": "",
        }
        os.environ.update({k: env[k] for k in ("VICARAN_DATABASE_URL", "ADK_DISABLE_LOAD_DOTENV")})
        _seed(database_url)
        # Vicaran's compiled modules, as a journalist's first run leaves them (the libraries'
        # are compiled when installed): one pass, before anything is timed.
        package = Path(__file__).resolve().parent.parent / "vicaran_agent"
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], env=env)
        vicaran = [sys.executable, "-m", "vicaran_agent.cli"]
        chosen = {name: argv for name, argv in COMMANDS.items() if not only or name in only}
        commands = {name: _median([*vicaran, *argv], runs, env) for name, argv in chosen.items()}
        adk = _median([sys.executable, "-c", ADK_IMPORT], runs, env)
    return {"runs": runs, "adk_import_s": adk, "commands_s": commands}


def targets(figures: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(target, met, figure): every command's median <= 1 s, and <= half the ADK import."""
    commands: dict[str, float] = figures["commands_s"]
    slowest = max(commands, key=lambda name: commands[name])
    ratio = commands[slowest] / figures["adk_import_s"]
    return [
        (
            f"CLI start <= {LIMIT_SECONDS:g} s (median of {figures['runs']})",
            commands[slowest] <= LIMIT_SECONDS,
            f"slowest {slowest} {commands[slowest]:.2f} s",
        ),
        (
            f"CLI start <= {LIMIT_RATIO:g} x the ADK import",
            ratio <= LIMIT_RATIO,
            f"{ratio:.2f} x ({commands[slowest]:.2f} s / {figures['adk_import_s']:.2f} s)",
        ),
    ]


def lines(figures: dict[str, Any]) -> list[str]:
    said = [f"{name:<14} {seconds:.2f} s" for name, seconds in figures["commands_s"].items()]
    return [*said, f"{'(ADK import)':<14} {figures['adk_import_s']:.2f} s  ({ADK_IMPORT})"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (median)")
    parser.add_argument(
        "--only", action="append", choices=list(COMMANDS), help="time only this command (repeat)"
    )
    args = parser.parse_args(argv)
    try:
        figures = measure(max(1, args.runs), args.only)
    except RuntimeError as error:
        print(json.dumps({"error": str(error)[-2000:]}))
        return 1
    for line in lines(figures):
        print(line, file=sys.stderr)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
