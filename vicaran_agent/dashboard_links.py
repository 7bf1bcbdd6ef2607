"""The line that ends every run in the chat: the investigation's dashboard page."""

from __future__ import annotations

from . import services
from .config import Settings
from .i18n import message


def dashboard_line(settings: Settings, investigation_id: str, language: str) -> str:
    """The run's link to its dashboard page. Where no Vicaran server runs in this process
    (`adk run`, `adk web`) and VICARAN_PUBLIC_URL names none, it also says how to open one."""
    url = settings.investigation_url(investigation_id)
    served = settings.public_url_set or services.current().dashboard_served
    return message("dashboard_link" if served else "dashboard_link_unserved", language, url=url)
