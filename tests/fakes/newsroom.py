"""A minimal loopback newsroom callback API (callback-api.md): every POST succeeds.

    with FakeNewsroom(latency=0.05) as newsroom:
        httpx.post(newsroom.url + "/api/agent-callback", json={"type": "SOURCE_FOUND", ...})
        # -> 200 {"success": true, "source_id": "<uuid>"}

Any path is accepted; the id field depends on the record type (SOURCE_FOUND -> source_id,
CLAIM_EXTRACTED -> claim_id, FACT_CHECKED -> fact_check_id, TIMELINE_EVENT -> event_id; other
types get `{"success": true}` alone). `types()` lists the record types received, in order.
"""

from __future__ import annotations

import uuid

from tests.fakes.server import FakeServer, RecordedRequest, Response

ID_FIELDS = {
    "SOURCE_FOUND": "source_id",
    "CLAIM_EXTRACTED": "claim_id",
    "FACT_CHECKED": "fact_check_id",
    "TIMELINE_EVENT": "event_id",
}


class FakeNewsroom(FakeServer):
    """Answers every POST with success and, by record type, a fresh remote id."""

    def types(self) -> list[str]:
        return [
            str(r.json.get("type"))
            for r in self.requests
            if r.method == "POST" and isinstance(r.json, dict)
        ]

    def handle(self, request: RecordedRequest) -> Response:
        if request.method != "POST":
            return Response.json(405, {"success": False, "error": "Method not allowed"})
        if not isinstance(request.json, dict):
            return Response.json(400, {"success": False, "error": "Invalid JSON body"})
        answer: dict[str, object] = {"success": True}
        field = ID_FIELDS.get(str(request.json.get("type")))
        if field:
            answer[field] = str(uuid.uuid4())
        return Response.json(200, answer)
