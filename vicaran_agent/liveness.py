"""Runs show signs of life; runs whose process died are found and marked `interrupted`.

A running investigation's heartbeat is written every VICARAN_HEARTBEAT_SECONDS (10); one with
none for three beats (30 s) belongs to a process that was killed. Stale runs are swept at start-up, at every
journalist turn and (in `vicaran serve`) periodically; readers never see a dead run as live
(the store reports it `interrupted` even before a sweep writes it). A process that is told to
stop (SIGTERM) marks its own runs `interrupted` first. Either way, with a callback API each
interrupted run is queued for it once, as INVESTIGATION_PARTIAL (a receiver has no such status).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from . import delivery, services
from .callbacks.persistence import repository
from .clock import SYSTEM_CLOCK, Clock
from .config import get_settings
from .storage.outbox import queue_for_callback

logger = logging.getLogger(__name__)

SWEEP_EVERY_SECONDS = 10.0
STOPPED_BY_SIGNAL = "The process running this investigation was stopped before it finished."


@asynccontextmanager
async def alive(investigation_id: str, clock: Clock = SYSTEM_CLOCK) -> AsyncIterator[None]:
    """Heartbeats for one run, by `clock`, for as long as it runs in this process."""
    running = services.current().running  # investigations this process is running now
    running.add(investigation_id)
    beating = asyncio.create_task(_beat(investigation_id, clock))
    try:
        yield
    finally:
        running.discard(investigation_id)
        beating.cancel()
        await asyncio.wait([beating])  # no beat after the run


async def _beat(investigation_id: str, clock: Clock) -> None:
    while True:
        await clock.sleep(get_settings().vicaran_heartbeat_seconds)
        try:
            await asyncio.to_thread(repository().heartbeat, [investigation_id])
        except Exception:  # a missed beat is logged; the next one may land
            logger.warning("heartbeat of %s failed", investigation_id, exc_info=True)


async def sweep(*, force: bool = False, clock: Clock = SYSTEM_CLOCK) -> list[str]:
    """Mark runs whose process died `interrupted` (at most every SWEEP_EVERY_SECONDS)."""
    now = clock.now()
    swept = services.current().last_sweep  # when each clock last swept
    last = swept.get(clock)
    if not force and last is not None and now - last < SWEEP_EVERY_SECONDS:
        return []
    swept[clock] = now
    try:
        with queue_for_callback(get_settings().callback_enabled):
            swept = await asyncio.to_thread(repository().sweep_stale)
    except Exception:  # the store being down must not stop a conversation
        logger.warning("could not sweep stale investigations", exc_info=True)
        return []
    if swept:
        logger.info("marked %d stale investigation(s) interrupted: %s", len(swept), swept)
        delivery.kick()  # each goes to the callback API as INVESTIGATION_PARTIAL
    return swept


def interrupt_running(reason: str = STOPPED_BY_SIGNAL) -> list[str]:
    """This process's runs become `interrupted` (call before the process exits)."""
    running = sorted(services.current().running)
    if not running:
        return []
    try:  # queued for the callback API: delivered now, or by the next start
        with queue_for_callback(get_settings().callback_enabled):
            return repository().mark_interrupted(running, reason)
    except Exception:
        logger.exception("could not mark %s interrupted", running)
        return []
