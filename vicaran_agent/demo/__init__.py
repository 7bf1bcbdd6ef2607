"""`vicaran demo` (`make demo`): what Vicaran produces, before any key is set.

A finished investigation of a made-up story (`sample.json`, in the JSON export's format: every
record and the texts read) is loaded into a records database of its own, and the dashboard, its
pages, the read API and the exports serve it, read-only, each page saying it is sample data.
Nothing is investigated: no model, no search, no key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from starlette.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..schemas import (
    BiasAssessment,
    Claim,
    Evidence,
    InvestigationConfig,
    Source,
    SourceBias,
    TimelineEvent,
    Verdict,
)
from ..storage import Repository

if TYPE_CHECKING:
    from fastapi import FastAPI

    from ..config import Settings
    from ..services import Services

SAMPLE = Path(__file__).with_name("sample.json")
READ_ONLY = "This is Vicaran's sample data, read-only: run `make run` to investigate."


def sample() -> dict[str, Any]:
    """The bundled sample investigation, as the JSON export writes it."""
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def load(repository: Repository, document: dict[str, Any]) -> str:
    """Save an exported investigation's records (its id kept) in `repository`; its id."""
    record, texts = document["investigation"], document.get("snapshots") or {}
    config = InvestigationConfig.for_mode(
        record["mode"],
        investigation_id=record["id"],
        title=record["title"],
        brief=record["brief"],
        language=record["language"],
    )
    repository.start_investigation(config)
    iid = config.investigation_id
    url_of = {s["id"]: s["url"] for s in record["sources"]}
    new_ids = repository.save_sources(iid, [_model(Source, s) for s in record["sources"]], texts)

    def sources(ids: list[str]) -> list[str]:
        return [new_ids[url_of[i]] for i in ids if url_of.get(i) in new_ids]

    claims = [_model(Claim, c, source_ids=sources(c["source_ids"])) for c in record["claims"]]
    claim_ids = repository.save_claims(iid, claims)
    key_of = {c["id"]: c["key"] for c in record["claims"]}
    verdicts = [
        _model(
            Verdict,
            v,
            claim_id=claim_ids[key_of[v["claim_id"]]],
            evidence=[_model(Evidence, e) for e in v["evidence"]],
            source_ids=sources(v["source_ids"]),
        )
        for v in record["fact_checks"]
    ]
    repository.save_verdicts(iid, verdicts, texts)
    if bias := record.get("bias"):
        per_source = [
            _model(SourceBias, p, source_id=(sources([p["source_id"]]) or [None])[0])
            for p in bias["per_source"]
        ]
        repository.save_bias(iid, _model(BiasAssessment, bias, per_source=per_source))
    repository.save_timeline(
        iid,
        [
            _model(TimelineEvent, t, source_ids=sources(t["source_ids"]), event_id=None)
            for t in record["timeline"]
        ],
    )
    repository.finish_investigation(
        iid,
        record["status"],
        summary=record["summary"],
        partial_reason=record.get("partial_reason"),
        overall_bias_score=record.get("overall_bias_score"),
        quality=record.get("quality"),
        tokens=record.get("tokens"),
    )
    return iid


def sample_server(
    settings: Settings, *, host: str = "127.0.0.1", port: int = 8000
) -> tuple[FastAPI, Services, str]:
    """The read-only server of the sample investigation: (its app, the services it runs with -
    close them after -, the sample's page path)."""
    from ..server.app import build_server
    from ..services import Services, serving
    from ..storage import get_repository

    shown = Services(settings=settings, sample_data=True)
    with serving(shown):
        investigation_id = load(get_repository(settings.database_url), sample())
    page = f"/investigations/{investigation_id}"
    app = build_server(settings, with_adk=False, host=host, port=port, services=shown)
    app.add_middleware(ReadOnly, home=page)
    return app, shown, page


def _model(model: type[BaseModel], data: dict[str, Any], **overrides: Any) -> Any:
    """`model` from an exported record: its fields that have a value, `overrides` over them."""
    fields = {name: data[name] for name in model.model_fields if data.get(name) is not None}
    return model.model_validate({**fields, **overrides})


class ReadOnly:
    """Sample data is shown, never changed: every request but a read is refused (405), and the
    address of the server opens the sample."""

    def __init__(self, app: ASGIApp, *, home: str) -> None:
        self.app = app
        self.home = home

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if scope.get("method") not in ("GET", "HEAD"):
                answer = JSONResponse({"success": False, "error": READ_ONLY}, 405)
                await answer(scope, receive, send)
                return
            if scope.get("path") == "/":
                await RedirectResponse(self.home, 307)(scope, receive, send)
                return
        await self.app(scope, receive, send)
