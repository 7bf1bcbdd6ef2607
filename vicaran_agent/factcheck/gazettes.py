"""The official gazettes as a gatherer of one claim's evidence (the search itself: `gazettes/`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..gazettes.loop import GazetteSearchLoop
from ..gazettes.score import gazette_key
from ..i18n import message, word
from ..tools.analyze_source import now_iso
from ..urls import normalize_url
from .pool import Candidate

if TYPE_CHECKING:
    from .checker import ClaimChecker


async def gather_gazettes(checker: ClaimChecker) -> None:
    """The official gazettes' adaptive search; what it read joins this round's evidence."""
    shared = checker.shared
    assert shared.gazettes is not None
    loop = GazetteSearchLoop(
        shared.gazettes,
        shared.model,
        shared.settings,
        shared.language,
        emit=checker.emit,
        require_place=not shared.gazettes_asked,
    )
    # its own budget: a term's first query alone can outlast a web gatherer's
    seconds = shared.settings.vicaran_gazette_timeout_seconds
    try:
        outcome = await asyncio.wait_for(loop.run(checker.claim), timeout=seconds)
    except TimeoutError:
        what = word("official gazettes", shared.language)
        checker.notes.append(
            message("gather_timeout", shared.language, what=what, seconds=f"{seconds:g}")
        )
        return
    except Exception as error:  # noqa: BLE001 - the gazettes must never sink the claim
        what = word("official gazettes", shared.language)
        detail = f"{type(error).__name__}: {error}"
        checker.notes.append(message("gather_failed", shared.language, what=what, error=detail))
        return
    checker.reasoning += outcome.log
    if not outcome.searches:
        return  # not a claim about a municipality: nothing was searched
    checker.gazette_outcome = outcome
    checker.notes += outcome.failures
    texts = shared.runtime.texts
    retrieved = now_iso()
    for read, source in zip(outcome.read, outcome.sources(retrieved), strict=True):
        acts = [e for e in outcome.evidence if gazette_key(e.gazette) == gazette_key(read.gazette)]
        source.url = normalize_url(source.url)
        source.content_sha256 = texts.put(read.text)
        checker.found_sources.append(source)
        for number, act in enumerate(acts, 1):
            candidate = Candidate.from_gazette(source, act, number)
            candidate.retrieved_at = retrieved
            checker.pool.add(candidate)
