"""Reading what a service answered, and saying it without its secrets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..config import Settings
from ..i18n import Phrase
from .lines import Line


def mask(secret: str) -> str:
    """A key as it may be shown: its first and last four characters when it is long enough."""
    secret = secret.strip()
    return f"{secret[:4]}…{secret[-4:]}" if len(secret) >= 16 else "…"


def key_hint(key: str) -> str:
    """How a key is named in a line: " abcd…wxyz" when long enough to show safely, else ""."""
    masked = mask(key)
    return f" {masked}" if masked != "…" else ""


def shown_url(url: str) -> str:
    """An address without credentials, query or fragment (they may carry keys)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "?"
    if ":" in host:
        host = f"[{host}]"
    return urlunsplit((parts.scheme, host + port, parts.path, "", "")) or "?"


def error_name(error: BaseException) -> str:
    return type(error).__name__


def json_of(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def retry_after(response: httpx.Response) -> str:
    value = (response.headers.get("retry-after") or "").strip()
    return f", Retry-After {value[:40]}" if value else ""


def busy_or_failing(response: httpx.Response, service_budget: str) -> Line | None:
    """429 and 5xx: the service is there, but busy or failing now (Vicaran retries these)."""
    status = response.status_code
    if status == 429:
        said = Phrase("doctor_rate_limited", retry=retry_after(response))
        return Line("", "warn", said, Phrase("doctor_fix_rate_limited", budget=service_budget))
    if status >= 500:
        return Line("", "warn", Phrase("doctor_server_error", status=status))
    return None


class Said(str):
    """The schema message of `storage.migrate`, said again in the reader's language."""

    def __new__(cls, english: str, state: Any, revision: str | None, head: str) -> Said:
        said = super().__new__(cls, english)
        said.state, said.revision, said.head = state, revision, head
        return said

    def said_in(self, language: str) -> str:
        from ..storage import migrate

        return migrate.outdated_message(self.state, self.revision, self.head, language)


FACTCHECK_CONSOLE = "https://console.cloud.google.com/apis/library/factchecktools.googleapis.com"


def gemini_error(error: Any, api: str, variables: str, detail: str) -> Line:
    text = f"{error.status or ''} {error.message or ''}".upper()
    code = error.code or 0
    if code in (400, 401, 403) and ("API_KEY" in text or "API KEY" in text or "PERMISSION" in text):
        said = Phrase("doctor_model_refused", api=api, status=code)
        return Line("", "fail", said, Phrase("doctor_fix_gemini_key"))
    if code == 404:
        said = Phrase("doctor_model_missing", api=api)
        return Line("", "fail", said, Phrase("doctor_fix_model_missing", variables=variables))
    if code == 429:
        return Line("", "warn", Phrase("doctor_rate_limited", retry=""))
    if code >= 500:
        return Line("", "warn", Phrase("doctor_server_error", status=code))
    said = Phrase("doctor_model_failed", status=code, detail=detail)
    return Line("", "fail", said, Phrase("doctor_fix_model_missing", variables=variables))


def tavily_usage(body: Any) -> tuple[int, int | None, str] | None:
    """(credits used, the key's limit or None, the plan) from `GET /usage`, or None."""
    if not isinstance(body, dict) or not isinstance(body.get("key"), dict):
        return None
    key = body["key"]
    used, limit = key.get("usage"), key.get("limit")
    if not isinstance(used, int) or not (limit is None or isinstance(limit, int)):
        return None
    if limit is not None and limit >= 2_147_483_647:  # "unlimited", as the API writes it
        limit = None
    account = body.get("account") if isinstance(body.get("account"), dict) else {}
    plan = account.get("current_plan")
    return used, limit, plan if isinstance(plan, str) and plan else "?"


def jina_index(text: str) -> dict[str, str]:
    """Reader's index lines (`[Balance left] 123`), by lower-case label."""
    fields: dict[str, str] = {}
    for line in text[:10_000].splitlines():
        label, closed, value = line.partition("] ")
        if closed and label.startswith("["):
            fields[label[1:].strip().lower()] = value.strip()
    return fields


def number(text: str) -> int | None:
    try:
        return int(float(text.replace(",", "").replace("_", "")))
    except ValueError:
        return None


def google_error(body: Any) -> tuple[set[str], str]:
    """The ErrorInfo reasons of Google's error envelope, and an activation URL if it gives one."""
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    reasons: set[str] = set()
    activation = ""
    for detail in details if isinstance(details, list) else []:
        if not isinstance(detail, dict):
            continue
        if isinstance(detail.get("reason"), str):
            reasons.add(detail["reason"])
        metadata = detail.get("metadata")
        url = metadata.get("activationUrl") if isinstance(metadata, dict) else None
        if isinstance(url, str) and url.startswith("https://console."):  # names a project only
            activation = " ".join(url.split())[:300]
    return reasons, activation


def sqlite_not_made(path: Path, fix: Phrase) -> Line:
    """A SQLite file that does not exist yet: fine when its folder can be made and written."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
        return Line("", "ok", Phrase("doctor_database_not_yet", path=str(path)))
    return Line("", "fail", Phrase("doctor_database_cannot_make", path=str(path)), fix)


def secrets_of(settings: Settings) -> list[str]:
    """Every secret value a line must never show."""
    from sqlalchemy.engine import make_url

    values = [
        settings.google_api_key,
        settings.gemini_api_key,
        settings.tavily_api_key,
        settings.jina_api_key,
        settings.factcheck_api_key,
        settings.agent_secret,
        settings.vicaran_dashboard_token,
    ]
    for url in (settings.database_url, settings.vicaran_session_db_url):
        try:
            values.append(make_url(url).password or "")
        except Exception:  # noqa: BLE001 - not a database URL: nothing to hide in it
            continue
    return [value.strip() for value in values if len(value.strip()) >= 4]


def scrub(text: str, secrets: list[str]) -> str:
    """`text` with every secret replaced by its masked form."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, mask(secret))
    return text
