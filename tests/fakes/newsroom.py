"""A minimal loopback newsroom callback API (callback-api.md): every POST succeeds.

    with FakeNewsroom(latency=0.05) as newsroom:
        httpx.post(newsroom.url + "/api/agent-callback", json={"type": "SOURCE_FOUND", ...})
        # -> 200 {"success": true, "source_id": "<uuid>"}

Any path is accepted; the id field depends on the record type (SOURCE_FOUND -> source_id,
CLAIM_EXTRACTED -> claim_id, FACT_CHECKED -> fact_check_id, TIMELINE_EVENT -> event_id; other
types get `{"success": true}` alone). `types()` lists the record types received, in order.

As the contract says (docs/callback-api.md, "Responses and errors"), the secret is checked
first: no `X-Agent-Secret` (or, when `secret` is given, another one) is 401
`{"success": false, "error": "Unauthorized"}`; then a body that is not a JSON object with a known
`type` is 400.
"""

from __future__ import annotations

import uuid
from typing import Any

from tests.fakes.server import FakeServer, RecordedRequest, Response

ID_FIELDS = {
    "SOURCE_FOUND": "source_id",
    "CLAIM_EXTRACTED": "claim_id",
    "FACT_CHECKED": "fact_check_id",
    "TIMELINE_EVENT": "event_id",
}


TYPES = frozenset(
    {
        "INVESTIGATION_STARTED",
        "SOURCE_FOUND",
        "CLAIM_EXTRACTED",
        "FACT_CHECKED",
        "BIAS_ANALYZED",
        "TIMELINE_EVENT",
        "INVESTIGATION_COMPLETE",
        "INVESTIGATION_PARTIAL",
        "INVESTIGATION_FAILED",
    }
)


class FakeNewsroom(FakeServer):
    """Answers every authenticated POST of a known type with success and a fresh remote id."""

    def __init__(
        self, *, secret: str | None = None, latency: float = 0.0, clock: Any = None
    ) -> None:
        super().__init__(latency=latency, clock=clock)
        self.secret = secret  # None: any secret is taken; a missing one never is

    def types(self) -> list[str]:
        return [
            str(r.json.get("type"))
            for r in self.requests
            if r.method == "POST" and isinstance(r.json, dict)
        ]

    def handle(self, request: RecordedRequest) -> Response:
        if request.method != "POST":
            return Response.json(405, {"success": False, "error": "Method not allowed"})
        given = request.header("x-agent-secret")
        if not given or (self.secret is not None and given != self.secret):
            return Response.json(401, {"success": False, "error": "Unauthorized"})
        if not isinstance(request.json, dict):
            return Response.json(400, {"success": False, "error": "Invalid JSON body"})
        kind = request.json.get("type")
        if kind not in TYPES:
            error = f"unknown type {kind!r}" if kind else "missing field 'type'"
            return Response.json(400, {"success": False, "error": error})
        answer: dict[str, object] = {"success": True}
        field = ID_FIELDS.get(str(request.json.get("type")))
        if field:
            answer[field] = str(uuid.uuid4())
        return Response.json(200, answer)
