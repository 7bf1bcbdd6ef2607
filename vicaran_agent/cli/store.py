"""`vicaran db`, `vicaran outbox` and `vicaran export`: the records store from the terminal."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import message, system_language

if TYPE_CHECKING:
    from ..read_model import InvestigationView, ReviewView
    from ..storage import Repository


def schema_problem() -> str | None:
    """Why the records database cannot be served as it is (PostgreSQL only: SQLite upgrades)."""
    from sqlalchemy.engine import make_url

    from ..config import get_settings

    url = get_settings().database_url
    if make_url(url).get_backend_name() == "sqlite":
        return None
    from ..storage import migrate

    state, revision = migrate.status(url)
    if state == "current":
        return None
    return migrate.outdated_message(state, revision, migrate.head(), system_language())


def db(action: str) -> int:
    """`upgrade`: migrate the records database to this version's schema; `status`: compare."""
    from ..config import get_settings
    from ..storage import migrate

    language = system_language()
    url = get_settings().database_url
    state, revision = migrate.status(url)
    head = migrate.head()
    if action == "status":
        print(message("db_status", language, revision=revision or "-", head=head))
    if state == "current":
        print(message("db_up_to_date", language, head=head))
        return 0
    if action == "status" or state == "unknown":
        print(migrate.outdated_message(state, revision, head, language))
        return 1
    before, after = migrate.upgrade(url)
    print(message("db_upgraded", language, revision=before or "-", head=after))
    return 0


def outbox(action: str) -> int:
    """`status`: what waits or failed; `flush`: deliver everything pending now."""
    from ..config import get_settings
    from ..storage.reads import get_reader

    settings = get_settings()
    if action == "flush":
        if not settings.callback_enabled:
            print("Set CALLBACK_API_URL and AGENT_SECRET to deliver the outbox.", file=sys.stderr)
            return 1
        from ..delivery import Deliverer  # (its HTTP client: only to deliver)
        from ..storage import get_repository

        repository = get_repository(settings.database_url)
        delivered = asyncio.run(Deliverer(settings, repository).deliver_due(now_only=False))
        print(f"Delivered {delivered} record(s).")
    summary = get_reader(settings.database_url).outbox_summary()
    counts = summary.counts
    print(
        f"Outbox: {counts.pending} pending, {counts.delivered} delivered, {counts.failed} failed."
    )
    for row in summary.retrying:
        print(
            f"  retrying #{row.id} {row.type} ({row.investigation_id}): "
            f"{row.last_error} - attempt {row.attempts}, next at {row.next_attempt_at}"
        )
    for row in summary.failed:
        print(
            f"  failed #{row.id} {row.type} ({row.investigation_id}): {row.last_error}"
            f" {row.response_body or ''}".rstrip()
        )
    return 0 if not counts.pending and not counts.failed else 1


def export(investigation_id: str, fmt: str, out: str | None, reviewed_only: bool = False) -> int:
    """Write one saved investigation as `fmt` to standard output, or to `out`."""
    if reviewed_only and fmt != "claimreview":
        print("--reviewed-only applies to --format claimreview.", file=sys.stderr)
        return 2
    from .. import export as exports
    from ..config import get_settings

    investigation = _saved(investigation_id)
    if investigation is None:
        return 1
    investigation_id = investigation.id
    if fmt in exports.BINARY and not out and sys.stdout.isatty():
        print("A web archive is a binary file: give --out FILE.warc.gz.", file=sys.stderr)
        return 2
    if fmt in exports.BINARY:
        data = exports.web_archive(_repository(), investigation)
    else:
        with_texts = fmt in exports.WITH_SNAPSHOTS
        snapshots = _repository().get_snapshots(investigation_id) if with_texts else {}
        text = exports.render(
            fmt, investigation, snapshots, settings=get_settings(), reviewed_only=reviewed_only
        )
        data = text.encode("utf-8")
    if not out:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    try:
        Path(out).write_bytes(data)
    except OSError as error:
        print(f"Could not write {out}: {error.strerror or error}.", file=sys.stderr)
        return 1
    print(f"{exports.FORMATS[fmt].label} export of {investigation_id} written to {out}")
    return 0


def review(investigation_id: str) -> int:
    """Each checked claim, its verdict and where its editorial review stands."""
    investigation = _saved(investigation_id)
    if investigation is None:
        return 1
    print(
        f"{investigation.title} ({investigation.id[:8]}): {len(investigation.fact_checks)} claims"
    )
    for number, check in enumerate(investigation.fact_checks, 1):
        said = " ".join(check.claim_text.split())
        print(f"{number}. {check.verdict.upper()} - {said[:160]}")
        print(f"   {_review_line(check.review)}")
    return 0


def _review_line(review: ReviewView) -> str:
    if review.status == "unreviewed":
        return "unreviewed"
    when = (review.at or "")[:16].replace("T", " ")
    if review.status == "changed":
        before, after = (review.verdict_before or "").upper(), (review.verdict_after or "").upper()
        return f"changed by {review.reviewer} on {when} from {before} to {after}: {review.note}"
    note = f": {review.note}" if review.note else ""
    return f"approved by {review.reviewer} on {when}{note}"


def _repository() -> Repository:
    """The whole store (the texts and pages read), beyond what `_saved`'s reader gives."""
    from ..config import get_settings
    from ..storage import get_repository

    return get_repository(get_settings().database_url)


def _saved(investigation_id: str) -> InvestigationView | None:
    """The investigation `investigation_id` (or a unique short id) names; None, said on
    standard error, when it names none or several."""
    from ..config import get_settings
    from ..storage.reads import AmbiguousIdError, get_reader

    try:
        investigation = get_reader(get_settings().database_url).get_investigation(investigation_id)
    except AmbiguousIdError as error:
        print(str(error), file=sys.stderr)
        return None
    if investigation is None:
        print(f"No investigation with id {investigation_id} is saved here.", file=sys.stderr)
    return investigation
