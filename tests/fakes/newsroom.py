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

`SeedNewsroom` is the receiver seed 001 defines: the same, and as strict as its zod schemas
(`INVESTIGATION_PARTIAL.overall_bias_score` at most 5); what it refuses is in `refused`.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
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


# --- seed 001's receiver, as strict as its zod schemas ----------------------------------------
#
# The newsroom's `apps/web/app/api/agent-callback/route.ts` (seeds/001, "INVESTIGATION_PARTIAL
# Callback Type") parses every body with zod. What zod does is kept here:
# - `z.object({...})` ignores keys it does not declare (they are stripped, not refused);
# - types are never coerced: "5" is not a number, 1 is not a boolean, 4.0 passes `.int()` only
#   because JSON has one number type (as in JavaScript);
# - `.optional()` means absent: `null` is refused. Only the PARTIAL schema is printed in the seed
#   (`overall_bias_score: z.number().min(0).max(5).optional()`); the other types follow the
#   contract's table (reference/callback-api.md), and where the seed's own sender sends `None`
#   for a field (a source's title, a timeline event's source id) the field is nullable.
# - the ids a record names are the receiver's own (foreign keys in its database).

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

Check = Callable[[Any], str | None]  # a problem, or None


def _number(low: float | None = None, high: float | None = None, *, integer: bool = False) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "Expected number"
        if integer and value != int(value):
            return "Expected integer"
        if low is not None and value < low:
            return f"Number must be greater than or equal to {low}"
        if high is not None and value > high:
            return f"Number must be less than or equal to {high}"
        return None

    return check


def _string(*, min_length: int = 0, uuid: bool = False) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, str):
            return "Expected string"
        if len(value) < min_length:
            return f"String must contain at least {min_length} character(s)"
        if uuid and not _UUID.match(value):
            return "Invalid uuid"
        return None

    return check


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "Expected boolean"


def _enum(*options: str) -> Check:
    return lambda value: None if value in options else f"Invalid enum value {value!r}"


def _array(item: Check) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, list):
            return "Expected array"
        return next((f"[{i}]: {p}" for i, v in enumerate(value) if (p := item(v))), None)

    return check


def _record(item: Check) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, dict):
            return "Expected object"
        return next((f"{k}: {p}" for k, v in value.items() if (p := item(v))), None)

    return check


@dataclass(frozen=True)
class _Field:
    check: Check
    optional: bool = False  # may be absent
    nullable: bool = False  # may be null


def _required(check: Check) -> _Field:
    return _Field(check)


def _optional(check: Check) -> _Field:
    """zod `.optional()`: absent, or a valid value; never null."""
    return _Field(check, optional=True)


def _nullish(check: Check) -> _Field:
    """zod `.nullish()`: absent, null, or a valid value."""
    return _Field(check, optional=True, nullable=True)


def _object(fields: dict[str, _Field]) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, dict):
            return "Expected object"
        for name, spec in fields.items():
            if name not in value:
                if not spec.optional:
                    return f"{name}: Required"
                continue
            if value[name] is None:
                if not spec.nullable:
                    return f"{name}: Expected {'value' if spec.optional else 'non-null'}, received null"
                continue
            if problem := spec.check(value[name]):
                return f"{name}: {problem}"
        return None

    return check


_SCORE5 = _number(0, 5)  # seed 001: z.number().min(0).max(5)
_SCORE10 = _number(0, 10)
_VERDICTS = ("verified", "partially_true", "misleading", "false", "unverified")

SEED_SCHEMAS: dict[str, Check] = {
    "INVESTIGATION_STARTED": _object(
        {
            "mode": _required(_enum("quick", "detailed")),
            "title": _nullish(_string()),
            "brief": _nullish(_string()),
        }
    ),
    "SOURCE_FOUND": _object(
        {
            "url": _required(_string(min_length=1)),
            "title": _nullish(_string()),
            "domain": _nullish(_string()),
            "content_snippet": _nullish(_string()),
            "credibility_score": _required(_number(1, 5, integer=True)),
            "is_user_provided": _required(_boolean),
            "published_at": _nullish(_string()),
        }
    ),
    "CLAIM_EXTRACTED": _object(
        {
            "claim_text": _required(_string(min_length=1)),
            "importance": _optional(_number(0, 1)),
            "source_ids": _required(_array(_string())),
        }
    ),
    "FACT_CHECKED": _object(
        {
            "claim_id": _required(_string()),
            "verdict": _required(_enum(*_VERDICTS)),
            "confidence": _required(_number(0, 1)),
            "explanation": _required(_string()),
            "evidence": _required(
                _array(
                    _object(
                        {
                            "url": _required(_string(min_length=1)),
                            "title": _nullish(_string()),
                            "reliability": _required(_enum("high", "neutral", "low")),
                            "stance": _required(_enum("supports", "refutes", "context")),
                            "snippet": _nullish(_string()),
                        }
                    )
                )
            ),
            "source_ids": _required(_array(_string())),
        }
    ),
    "BIAS_ANALYZED": _object(
        {
            "overall_bias_score": _required(_SCORE10),
            "coverage": _required(_record(_number(0, integer=True))),
            "recommendation": _nullish(_string()),
            "per_source": _optional(
                _array(
                    _object(
                        {
                            "source_id": _required(_string()),
                            "bias_score": _required(_SCORE10),
                            "stance": _nullish(_string()),
                            "indicators": _nullish(_array(_string())),
                        }
                    )
                )
            ),
        }
    ),
    "TIMELINE_EVENT": _object(
        {
            "event_date": _required(_string(min_length=4)),
            "date_precision": _nullish(_enum("day", "month", "year")),
            "event_text": _required(_string(min_length=1)),
            "source_id": _nullish(_string()),
        }
    ),
    "INVESTIGATION_COMPLETE": _object(
        {"summary": _required(_string()), "overall_bias_score": _optional(_SCORE5)}
    ),
    # Exactly seed 001's investigationPartialSchema.
    "INVESTIGATION_PARTIAL": _object(
        {
            "summary": _required(_string()),
            "overall_bias_score": _optional(_SCORE5),
            "partial_reason": _required(_string()),
        }
    ),
    "INVESTIGATION_FAILED": _object({"error": _required(_string())}),
}


@dataclass
class Refusal:
    type: str
    error: str
    body: Any


class SeedNewsroom(FakeNewsroom):
    """Seed 001's receiver: 400 for any body its schemas refuse, and for ids it never gave.

    `refused` lists every 400 with its reason; `records(kind)` the accepted `data` of a type.
    """

    def __init__(self, *, secret: str | None = None, latency: float = 0.0) -> None:
        super().__init__(secret=secret, latency=latency)
        self.refused: list[Refusal] = []
        self._given: dict[str, set[str]] = {"source": set(), "claim": set()}
        self._accepted: list[tuple[str, str, dict[str, Any]]] = []
        self._state = threading.Lock()

    def records(self, kind: str, investigation_id: str | None = None) -> list[dict[str, Any]]:
        with self._state:
            return [
                data
                for k, inv, data in self._accepted
                if k == kind and investigation_id in (None, inv)
            ]

    def handle(self, request: RecordedRequest) -> Response:
        answer = super().handle(request)  # the secret, a JSON object, a known type
        if answer.status != 200:
            return answer
        body = request.json
        kind = str(body["type"])
        problem = (
            _string(uuid=True)(body.get("investigation_id")) and "investigation_id: Invalid uuid"
        )
        problem = problem or SEED_SCHEMAS[kind](body.get("data"))
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        with self._state:
            problem = problem or self._unknown_ids(data)
            if problem:
                self.refused.append(Refusal(kind, problem, body))
                return Response.json(400, {"success": False, "error": problem})
            self._accepted.append((kind, str(body["investigation_id"]), data))
            reply = json.loads(answer.body)  # type: ignore[arg-type]
            if "source_id" in reply:
                self._given["source"].add(reply["source_id"])
            if "claim_id" in reply:
                self._given["claim"].add(reply["claim_id"])
        return Response.json(200, reply)

    def _unknown_ids(self, data: dict[str, Any]) -> str | None:
        sources = list(data.get("source_ids") or [])
        sources += [p["source_id"] for p in data.get("per_source") or []]
        if data.get("source_id"):
            sources.append(data["source_id"])
        if unknown := [s for s in sources if s not in self._given["source"]]:
            return f"unknown source ids: {unknown}"
        if "claim_id" in data and data["claim_id"] not in self._given["claim"]:
            return f"unknown claim id: {data['claim_id']}"
        return None
