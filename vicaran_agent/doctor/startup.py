"""The one warning given as a command or the app starts: Querido Diário's retired host."""

from __future__ import annotations

import os
from collections.abc import Callable
from urllib.parse import urlsplit

from .. import services
from ..config import Settings, retired_querido_diario_host
from ..i18n import Phrase, message

_BASE_URL = Settings.model_fields["querido_diario_base_url"]
QUERIDO_DIARIO_HOST: str = _BASE_URL.default  # where the API moved; Settings' default


def retired_host_warning(settings: Settings, language: str) -> str | None:
    """The one line that says the gazette API's address must change, or None."""
    if not retired_querido_diario_host(settings.querido_diario_base_url):
        return None
    where = (
        "doctor_in_environment" if os.environ.get("QUERIDO_DIARIO_BASE_URL") else "doctor_in_env"
    )
    return message(
        "doctor_retired_host",
        language,
        host=host_of(settings.querido_diario_base_url),
        new=QUERIDO_DIARIO_HOST,
        where=Phrase(where),
    )


def warn_at_start(settings: Settings, emit: Callable[[str], object], language: str) -> None:
    """Say once per process, as a command or the app starts, that the gazette host is retired."""
    shared = services.current()
    if shared.start_warned:
        return
    line = retired_host_warning(settings, language)
    if line:
        shared.start_warned = True
        emit(line)


def host_of(url: str) -> str:
    """The host a setting's URL names, for a line (the URL's start when it has none)."""
    try:
        return urlsplit(url.strip()).hostname or url.strip()[:80]
    except ValueError:
        return url.strip()[:80]
