"""Recorded answers of the real services (tests/fixtures/contracts/<service>/<name>.http).

Each file is one HTTP answer in the real service's shape, taken from the service's own source,
response models or documentation. It starts with `#` lines that cite where the shape comes from,
then the status line, the headers, an empty line and the body:

    # source: okfn-brasil/querido-diario-api api/api.py (GazetteSearchResponse), 2026-07-15
    HTTP/1.1 200 OK
    Content-Type: application/json

    {"total_gazettes": 0, "gazettes": []}

Tests parse these with the product's own clients (through `serve`, a loopback server that answers
the recorded file), so a client that only understands its fake fails here.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.server import FakeServer, RecordedRequest, Response

CONTRACTS = Path(__file__).resolve().parent.parent / "fixtures" / "contracts"


@dataclass(frozen=True)
class Recorded:
    """One recorded answer of a real service."""

    service: str
    name: str
    sources: tuple[str, ...]  # the header's `#` lines: where the shape comes from
    status: int
    headers: dict[str, str] = field(default_factory=dict)  # names as written
    body: bytes = b""

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)

    def json(self) -> Any:
        return json.loads(self.body)

    def response(self) -> Response:
        """The answer as a fake server sends it."""
        return Response(self.status, dict(self.headers), self.body)


def load(service: str, name: str) -> Recorded:
    """tests/fixtures/contracts/<service>/<name>.http, parsed."""
    path = CONTRACTS / service / f"{name}.http"
    raw = path.read_bytes()
    head, sep, body = raw.partition(b"\n\n")
    if not sep:
        raise ValueError(f"{path}: no empty line between the headers and the body")
    sources: list[str] = []
    lines = head.decode("utf-8").splitlines()
    while lines and lines[0].startswith("#"):
        sources.append(lines.pop(0).lstrip("# ").rstrip())
    if not sources:
        raise ValueError(f"{path}: cite where the shape comes from in `#` lines first")
    if not lines or not lines[0].startswith("HTTP/"):
        raise ValueError(f"{path}: the status line (HTTP/1.1 200 OK) must follow the citation")
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name_, _, value = line.partition(":")
        headers[name_.strip()] = value.strip()
    # The file ends with a newline for editors; a JSON or text body does not need it.
    return Recorded(service, name, tuple(sources), status, headers, body.rstrip(b"\n"))


def every(service: str) -> list[Recorded]:
    """Every recorded answer of one service, by name."""
    return [load(service, p.stem) for p in sorted((CONTRACTS / service).glob("*.http"))]


class ContractServer(FakeServer):
    """A loopback server that answers every request with one recorded answer (set `answer`)."""

    def __init__(self, recorded: Recorded) -> None:
        super().__init__()
        self.answer = recorded

    def handle(self, request: RecordedRequest) -> Response:
        return self.answer.response()


def serve(recorded: Recorded) -> ContractServer:
    """A started ContractServer (use as a context manager, or call `stop()`)."""
    server = ContractServer(recorded)
    server.start()
    return server


def shape(value: Any, maps: Collection[str] = ()) -> Any:
    """The structure of a JSON value, to compare a fake's answer with a recorded one: objects
    as {key: shape}, lists as [the shapes of their items, each once], scalars by JSON type.
    The objects under a key in `maps` hold data, not fields (a page's meta tags): "object"."""
    if isinstance(value, dict):
        return {k: "object" if k in maps else shape(v, maps) for k, v in value.items()}
    if isinstance(value, list):
        shapes: list[Any] = []
        for item in value:
            if shape(item, maps) not in shapes:
                shapes.append(shape(item, maps))
        return shapes
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


def fields(text: str) -> list[str]:
    """The names of a Jina Reader text answer's lines before its content (`Title`, `URL Source`,
    ... `Markdown Content`), in order."""
    head, marker, _ = text.partition("Markdown Content:")
    names = [line.split(":", 1)[0] for line in head.splitlines() if line.strip()]
    return [*names, "Markdown Content"] if marker else names
