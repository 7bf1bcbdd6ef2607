"""After-agent callbacks: each stage's records saved in one batch; returned ids go into state."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from google.adk.agents.callback_context import CallbackContext

from .. import delivery
from .. import state_keys as keys
from ..config import get_settings
from ..runtime import open_runtime
from ..schemas import BiasAssessment, Claim, InvestigationConfig, Source, TimelineEvent, Verdict
from ..storage import InvestigationTakenError, Repository, get_repository
from ..storage.outbox import queue_for_callback

logger = logging.getLogger(__name__)

R = TypeVar("R")
SOURCES, CLAIMS = "the sources", "the claims"


def repository() -> Repository:
    return get_repository(get_settings().database_url)


async def store(
    context: CallbackContext, stage: str, what: str, call: Callable[[Repository], R]
) -> R | None:
    """Run one repository call off the event loop; a failure is recorded, never raised."""
    try:
        return await _saved(call)
    except InvestigationTakenError:
        raise  # a decision for the caller, not a failure to record
    except Exception as error:
        logger.exception("could not save %s", what)
        _failed(context, stage, what, error)
        return None


async def _saved(call: Callable[[Repository], R]) -> R:
    with queue_for_callback(get_settings().callback_enabled):
        result = await asyncio.to_thread(lambda: call(repository()))
    delivery.kick()  # queued records go to the callback API in the background
    return result


def _failed(context: CallbackContext, stage: str, what: str, error: Exception) -> None:
    """The stage's issues say what could not be saved (the report tells the journalist)."""
    key = f"issues_{stage}"
    issues = list(context.state.get(key) or [])
    issues.append(f"Could not save {what}: {type(error).__name__}: {error}")
    context.state[key] = issues


async def store_under_way(
    context: CallbackContext, stage: str, what: str, call: Callable[[Repository], R]
) -> R | None:
    """`store`, but while the next stage works: the save starts and None is returned;
    `settle(context, stage, what)` gives its outcome later (in the same run). Without a running
    investigation (a callback called alone) it is `store`."""
    runtime = open_runtime(_investigation_id(context))
    if runtime is None:
        return await store(context, stage, what, call)
    runtime.saves.start(stage, _saved(call))
    return None


async def settle(context: CallbackContext, stage: str, what: str) -> Any | None:
    """The outcome of `stage`'s save under way; None when it failed (recorded as `store` does)
    or when none is under way (settled already, or made inline)."""
    runtime = open_runtime(_investigation_id(context))
    saving = runtime.saves.take(stage) if runtime else None
    if saving is None:
        return None
    try:
        return await saving
    except Exception as error:
        logger.exception("could not save %s", what)
        _failed(context, stage, what, error)
        return None


def _records(context: CallbackContext, key: str, model: type[Any]) -> list[Any]:
    return [model.model_validate(item) for item in context.state.get(key) or []]


def _investigation_id(context: CallbackContext) -> str:
    return InvestigationConfig.model_validate(
        context.state[keys.INVESTIGATION_CONFIG]
    ).investigation_id


def _texts(investigation_id: str, shas: list[str | None]) -> dict[str, str]:
    """The snapshots the records name, from the running investigation's memory."""
    runtime = open_runtime(investigation_id)
    return runtime.texts.pick(shas) if runtime else {}


async def save_sources(callback_context: CallbackContext) -> None:
    """Saved while the claims are extracted (they need no ids); the claims' save takes them."""
    sources: list[Source] = _records(callback_context, keys.SOURCE_RECORDS, Source)
    inv = _investigation_id(callback_context)
    texts = _texts(inv, [s.content_sha256 for s in sources])
    ids = await store_under_way(
        callback_context,
        "source_finder",
        SOURCES,
        lambda r: r.save_sources(inv, sources, texts),
    )
    _source_ids(callback_context, ids)


def _source_ids(callback_context: CallbackContext, ids: dict[str, str] | None) -> None:
    """The saved sources' ids into their records and the id map (by address); None: none now."""
    if ids is None:
        return
    sources: list[Source] = _records(callback_context, keys.SOURCE_RECORDS, Source)
    for source in sources:
        source.source_id = ids.get(source.url)
    callback_context.state[keys.SOURCE_RECORDS] = [s.model_dump(mode="json") for s in sources]
    callback_context.state[keys.SOURCE_ID_MAP] = ids


async def save_claims(callback_context: CallbackContext) -> None:
    """Saved while the claims are checked (the checks need no ids); the checks' save takes them."""
    _source_ids(callback_context, await settle(callback_context, "source_finder", SOURCES))
    claims = _linked_claims(callback_context)
    inv = _investigation_id(callback_context)
    ids = await store_under_way(
        callback_context, "claim_extractor", CLAIMS, lambda r: r.save_claims(inv, claims)
    )
    _claim_ids(callback_context, ids)


def _linked_claims(callback_context: CallbackContext) -> list[Claim]:
    """The claims, each naming the saved sources it comes from."""
    claims: list[Claim] = _records(callback_context, keys.CLAIM_RECORDS, Claim)
    source_ids: dict[str, str] = callback_context.state.get(keys.SOURCE_ID_MAP) or {}
    for claim in claims:
        claim.source_ids = [source_ids[u] for u in claim.source_urls if u in source_ids]
    return claims


def _claim_ids(callback_context: CallbackContext, ids: dict[str, str] | None) -> None:
    """The saved claims' ids into their records and the id map (by key); None: none now."""
    if ids is None:
        return
    claims = _linked_claims(callback_context)
    for claim in claims:
        claim.claim_id = ids.get(claim.key)
    callback_context.state[keys.CLAIM_RECORDS] = [c.model_dump(mode="json") for c in claims]
    callback_context.state[keys.CLAIM_ID_MAP] = ids


async def save_verdicts(callback_context: CallbackContext) -> None:
    """The fact-checks, after the sources the fact checker found (official gazettes read)."""
    await _settle_saves(callback_context)
    await _save_new_sources(callback_context)
    verdicts: list[Verdict] = _records(callback_context, keys.VERDICT_RECORDS, Verdict)
    claim_ids: dict[str, str] = callback_context.state.get(keys.CLAIM_ID_MAP) or {}
    source_ids: dict[str, str] = callback_context.state.get(keys.SOURCE_ID_MAP) or {}
    for verdict in verdicts:
        verdict.claim_id = claim_ids.get(verdict.claim_key)
        verdict.source_ids = rested_on(verdict, source_ids)
    saved = [v for v in verdicts if v.claim_id]
    inv = _investigation_id(callback_context)
    texts = _texts(inv, [e.content_sha256 for v in saved for e in v.evidence])
    ids = await store(
        callback_context,
        "fact_checker",
        "the fact-checks",
        lambda r: r.save_verdicts(inv, saved, texts),
    )
    if ids is None:
        return
    for verdict in verdicts:
        verdict.fact_check_id = ids.get(verdict.claim_key)
    callback_context.state[keys.VERDICT_RECORDS] = [v.model_dump(mode="json") for v in verdicts]


async def _settle_saves(callback_context: CallbackContext) -> None:
    """The sources' and the claims' saves, if still under way: their ids into state."""
    _source_ids(callback_context, await settle(callback_context, "source_finder", SOURCES))
    _claim_ids(callback_context, await settle(callback_context, "claim_extractor", CLAIMS))


async def _save_new_sources(callback_context: CallbackContext) -> None:
    """Sources a later stage added to the records (not yet saved): saved after the others."""
    sources: list[Source] = _records(callback_context, keys.SOURCE_RECORDS, Source)
    new = [s for s in sources if not s.source_id]
    if not new:
        return
    inv = _investigation_id(callback_context)
    texts = _texts(inv, [s.content_sha256 for s in new])
    ids = await store(
        callback_context, "fact_checker", SOURCES, lambda r: r.save_sources(inv, new, texts)
    )
    if ids is None:
        return
    for source in new:
        source.source_id = ids.get(source.url)
    known: dict[str, str] = dict(callback_context.state.get(keys.SOURCE_ID_MAP) or {})
    callback_context.state[keys.SOURCE_RECORDS] = [s.model_dump(mode="json") for s in sources]
    callback_context.state[keys.SOURCE_ID_MAP] = {**known, **ids}


def rested_on(verdict: Verdict, source_ids: dict[str, str]) -> list[str]:
    """Ids of the saved sources the verdict's on-point evidence comes from, in order.

    A passage of a document (`doc://<id>/p<page>/<passage>`) comes from the document's source.
    """
    found = []
    for item in verdict.evidence:
        if item.stance == "context":
            continue
        url = item.url if item.url in source_ids else item.source_url
        if url in source_ids:
            found.append(source_ids[url])
    return list(dict.fromkeys(found))


async def save_bias(callback_context: CallbackContext) -> None:
    raw = callback_context.state.get(keys.BIAS_RECORD)
    if not raw:
        return
    bias = BiasAssessment.model_validate(raw)
    source_ids: dict[str, str] = callback_context.state.get(keys.SOURCE_ID_MAP) or {}
    for item in bias.per_source:
        item.source_id = source_ids.get(item.url)
    inv = _investigation_id(callback_context)
    await store(
        callback_context, "bias_analyzer", "the bias analysis", lambda r: r.save_bias(inv, bias)
    )
    callback_context.state[keys.BIAS_RECORD] = bias.model_dump(mode="json")


async def save_timeline(callback_context: CallbackContext) -> None:
    events: list[TimelineEvent] = _records(callback_context, keys.TIMELINE_RECORDS, TimelineEvent)
    if not events:
        return
    source_ids: dict[str, str] = callback_context.state.get(keys.SOURCE_ID_MAP) or {}
    for event in events:
        event.source_ids = [source_ids[u] for u in event.source_urls if u in source_ids]
    inv = _investigation_id(callback_context)
    ids = await store(
        callback_context, "timeline_builder", "the timeline", lambda r: r.save_timeline(inv, events)
    )
    if ids is None:
        return
    for event, event_id in zip(events, ids, strict=False):
        event.event_id = event_id
    callback_context.state[keys.TIMELINE_RECORDS] = [e.model_dump(mode="json") for e in events]


async def finish_investigation(callback_context: CallbackContext) -> None:
    """The run's end, saved after every save still under way (a stage that stopped early left
    one): the finished record comes last, for readers and for the callback API."""
    await _settle_saves(callback_context)
    state = callback_context.state
    status = state.get(keys.INVESTIGATION_STATUS) or "partial"
    reason = state.get(keys.PARTIAL_REASON)
    inv = _investigation_id(callback_context)
    await store(
        callback_context,
        "summary_writer",
        "the final report",
        lambda r: r.finish_investigation(
            inv,
            status,
            summary=state.get(keys.INVESTIGATION_SUMMARY),
            partial_reason=reason if status == "partial" else None,
            error=reason if status == "failed" else None,
            quality=state.get(keys.REPORT_QUALITY),
            tokens=state.get(keys.TOKEN_USAGE),
        ),
    )


async def start_investigation(
    callback_context: CallbackContext, config: InvestigationConfig
) -> None:
    """Saved as this conversation's; raises InvestigationTakenError when another owns it."""
    session_id = callback_context.session.id
    await store(
        callback_context,
        "investigation_orchestrator",
        "the investigation",
        lambda r: r.start_investigation(config, session_id),
    )
