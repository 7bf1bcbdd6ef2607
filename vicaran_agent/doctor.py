"""`vicaran doctor`: does each service the next run uses answer, and does it take our keys?

One line per service: the models (resolved through ADK's `LLMRegistry` after
VICARAN_MODEL_PLUGINS is loaded; a Gemini model is asked for with `models.get`, which spends no
tokens), Tavily (`GET /usage`), Jina Reader (`GET /`, its index), Fact Check Tools (one tiny
`claims:search`), Querido Diário (`GET /cities/{id}`), the callback API (an empty record the
receiver refuses after checking the secret), the records database and, when set, ADK's session
store. Every check runs at once, within one short timeout, and is never retried; keys are shown
masked. A check that fails is something the next run would hit: the command then exits 1.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from .config import Settings, model_plugins_problem, retired_querido_diario_host
from .i18n import Phrase, is_portuguese, localized, message
from .tools.http import AnswerTooLarge, capped_client

Status = Literal["ok", "note", "warn", "fail"]
MARKS: dict[Status, str] = {"ok": "✓", "note": "–", "warn": "!", "fail": "✗"}

QUERIDO_DIARIO_HOST = "https://api.queridodiario.org.br"
# A city every deployment of Querido Diário lists (Porto Alegre): `/cities/{id}` reads the city
# table only, so it answers at once (a search can take 20-36 s the first time).
PROBE_TERRITORY = "4314902"
FACTCHECK_PATH = "/v1alpha1/claims:search"
DEFAULT_TIMEOUT = 10.0
# Every answer a check reads is small (an account's usage, a probe); past this it is refused.
ANSWER_MAX_BYTES = 1_000_000


class Figure(int):
    """A count said the reader's way: 12,345 in English, 12.345 in Portuguese."""

    def said_in(self, language: str) -> str:
        text = f"{int(self):,}"
        return text.replace(",", ".") if is_portuguese(language) else text


@dataclass(frozen=True)
class Line:
    """What one check found: the service, how it stands, what was seen and the fix."""

    service: Phrase | str
    status: Status
    said: Phrase | str
    fix: Phrase | str | None = None

    def render(self, language: str) -> str:
        text = f"{MARKS[self.status]} {localized(self.service, language)}: "
        text += str(localized(self.said, language))
        if self.fix:
            text += f" → {localized(self.fix, language)}"
        return text


# --- the retired Querido Diário host -----------------------------------------------------------

_start_warned = False


def _host(url: str) -> str:
    try:
        return urlsplit(url.strip()).hostname or url.strip()[:80]
    except ValueError:
        return url.strip()[:80]


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
        host=_host(settings.querido_diario_base_url),
        new=QUERIDO_DIARIO_HOST,
        where=Phrase(where),
    )


def warn_at_start(settings: Settings, emit: Callable[[str], object], language: str) -> None:
    """Say once per process, as a command or the app starts, that the gazette host is retired."""
    global _start_warned
    if _start_warned:
        return
    line = retired_host_warning(settings, language)
    if line:
        _start_warned = True
        emit(line)


def reset_start_warning() -> None:
    """Forget that the start-up warning was given (tests)."""
    global _start_warned
    _start_warned = False


# --- helpers -----------------------------------------------------------------------------------


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


def _error_name(error: BaseException) -> str:
    return type(error).__name__


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _retry_after(response: httpx.Response) -> str:
    value = (response.headers.get("retry-after") or "").strip()
    return f", Retry-After {value[:40]}" if value else ""


def _transient(response: httpx.Response, service_budget: str) -> Line | None:
    """429 and 5xx: the service is there, but busy or failing now (Vicaran retries these)."""
    status = response.status_code
    if status == 429:
        said = Phrase("doctor_rate_limited", retry=_retry_after(response))
        return Line("", "warn", said, Phrase("doctor_fix_rate_limited", budget=service_budget))
    if status >= 500:
        return Line("", "warn", Phrase("doctor_server_error", status=status))
    return None


class Doctor:
    """Runs every check against one settings object, with one HTTP client and one timeout."""

    def __init__(self, settings: Settings, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.settings = settings
        self.timeout = timeout
        self.http: httpx.AsyncClient | None = None
        self.secrets = secrets_of(settings)

    def detail(self, error: object) -> str:
        """The first line of an error's text, short, with every configured secret masked (a
        driver or a service may repeat what it was given)."""
        text = " ".join((str(error).strip().splitlines() or [""])[0].split())
        return scrub(text, self.secrets)[:160]

    async def run(self) -> list[Line]:
        """Every line, in a fixed order; the checks themselves run at once."""
        lines: list[Line] = []
        problem = model_plugins_problem(self.settings)  # plugins register models: first
        if problem:
            lines.append(
                Line(Phrase("doctor_plugins"), "fail", Phrase("doctor_plugins_failed"), problem)
            )
        checks: list[tuple[Phrase, str, Callable[[], Awaitable[Line]]]] = []
        for model, variables in self._models().items():
            service = Phrase("doctor_model", model=model, variables=", ".join(variables))
            checks.append((service, "", lambda m=model, v=variables: self.model(m, v)))
        settings = self.settings
        checks += [
            (Phrase("doctor_tavily"), "TAVILY_BASE_URL", self.tavily),
            (Phrase("doctor_jina"), "JINA_READER_BASE_URL", self.jina),
            (Phrase("doctor_factcheck"), "FACTCHECK_BASE_URL", self.factcheck),
            (Phrase("doctor_querido_diario"), "QUERIDO_DIARIO_BASE_URL", self.querido_diario),
            (Phrase("doctor_callback"), "CALLBACK_API_URL", self.callback),
            (Phrase("doctor_database"), "VICARAN_DATABASE_URL", self.database),
        ]
        if settings.vicaran_session_db_url.strip():
            checks.append((Phrase("doctor_sessions"), "VICARAN_SESSION_DB_URL", self.sessions))
        async with capped_client(
            ANSWER_MAX_BYTES, timeout=httpx.Timeout(self.timeout), follow_redirects=False
        ) as self.http:
            found = await asyncio.gather(
                *(self._guarded(service, variable, check) for service, variable, check in checks)
            )
        return lines + found

    def _models(self) -> dict[str, list[str]]:
        """Each model name in use, with the settings that name it."""
        roles: dict[str, list[str]] = {}
        for variable, name in (
            ("VICARAN_FAST_MODEL", self.settings.vicaran_fast_model),
            ("VICARAN_PRO_MODEL", self.settings.vicaran_pro_model),
        ):
            roles.setdefault(name.strip(), []).append(variable)
        return roles

    async def _guarded(
        self, service: Phrase, variable: str, check: Callable[[], Awaitable[Line]]
    ) -> Line:
        """One check within the timeout; whatever goes wrong is a line, never an exception."""
        fix = Phrase("doctor_fix_address", variable=variable) if variable else None
        fix = fix or Phrase("doctor_fix_network")
        try:
            async with asyncio.timeout(self.timeout):
                line = await check()
        except TimeoutError:
            seconds = f"{self.timeout:g}"
            return Line(service, "fail", Phrase("doctor_timeout", seconds=seconds), fix)
        except httpx.TransportError as error:
            said = Phrase("doctor_unreachable", error=_error_name(error))
            return Line(service, "fail", said, fix)
        except AnswerTooLarge as error:
            said = Phrase("doctor_answer_too_large", limit=f"{error.limit:,}")
            return Line(service, "fail", said, fix)
        except Exception as error:  # noqa: BLE001 - a check that breaks is reported, not raised
            said = Phrase(
                "doctor_check_failed", error=_error_name(error), detail=self.detail(error)
            )
            return Line(service, "fail", said, fix)
        return Line(service, line.status, line.said, line.fix)

    async def _get(self, url: str, **options: Any) -> httpx.Response:
        assert self.http is not None
        return await self.http.get(url, **options)

    # --- models --------------------------------------------------------------------------------

    async def model(self, name: str, variables: list[str]) -> Line:
        from google.adk.models import LLMRegistry
        from google.adk.models.google_llm import Gemini

        named = ", ".join(variables)
        try:
            kind = LLMRegistry.resolve(name)
        except (ValueError, ImportError):
            return Line("", "fail", Phrase("doctor_model_unknown"), self._unknown_fix(named))
        if not issubclass(kind, Gemini):
            return Line("", "ok", Phrase("doctor_model_resolvable", kind=kind.__name__))
        problem = self.settings.gemini_credentials_problem()
        if problem:
            return Line("", "fail", Phrase("doctor_model_no_credentials"), problem)
        return await self._gemini(LLMRegistry.new_llm(name), named)

    def _unknown_fix(self, variables: str) -> Phrase:
        return Phrase("doctor_fix_model_unknown", variables=variables)

    async def _gemini(self, llm: Any, variables: str) -> Line:
        from google.genai import errors, types

        api = "Vertex AI" if self.settings.uses_vertex else "Gemini API"
        options = types.HttpOptions(timeout=int(self.timeout * 1000))
        try:
            found = await llm.api_client.aio.models.get(
                model=llm.model, config=types.GetModelConfig(http_options=options)
            )
        except errors.APIError as error:
            return _gemini_error(error, api, variables, self.detail(error.message or ""))
        except ValueError as error:  # the client refused to start: no usable credentials
            said = Phrase("doctor_model_client", detail=self.detail(error))
            return Line("", "fail", said, Phrase("doctor_fix_gemini_key"))
        limit = getattr(found, "input_token_limit", None)
        if isinstance(limit, int) and limit > 0:
            return Line("", "ok", Phrase("doctor_model_ok_limit", api=api, tokens=Figure(limit)))
        return Line("", "ok", Phrase("doctor_model_ok", api=api))

    # --- Tavily --------------------------------------------------------------------------------

    async def tavily(self) -> Line:
        key = self.settings.tavily_api_key.strip()
        if not key:
            said = Phrase("doctor_not_configured", variable="TAVILY_API_KEY")
            return Line("", "note", Phrase("doctor_no_tavily", unset=said))
        base = self.settings.tavily_base_url.rstrip("/")
        response = await self._get(f"{base}/usage", headers={"Authorization": f"Bearer {key}"})
        budget = f"VICARAN_TAVILY_RPM={self.settings.vicaran_tavily_rpm}"
        status = response.status_code
        if status == 401:
            said = Phrase("doctor_key_refused", masked=key_hint(key), status=status)
            return Line("", "fail", said, Phrase("doctor_fix_tavily_key"))
        if status in (403, 432, 433):
            said = Phrase("doctor_key_refused", masked=key_hint(key), status=status)
            return Line("", "fail", said, Phrase("doctor_fix_tavily_plan"))
        if (transient := _transient(response, budget)) is not None:
            return transient
        if status == 404:
            return Line("", "warn", Phrase("doctor_tavily_no_usage", status=status))
        if status != 200:
            return self._answered(status, "TAVILY_BASE_URL", base)
        usage = _tavily_usage(_json(response))
        if usage is None:
            return Line("", "warn", Phrase("doctor_tavily_no_usage", status=status))
        used, limit, plan = usage
        rpm = Figure(self.settings.vicaran_tavily_rpm)
        accepted = Phrase("doctor_key_accepted", masked=key_hint(key))
        if limit is None:
            credits: Phrase = Phrase("doctor_tavily_credits_unlimited", used=Figure(used))
        else:
            credits = Phrase("doctor_tavily_credits", used=Figure(used), limit=Figure(limit))
        said = Phrase("doctor_tavily_ok", accepted=accepted, credits=credits, plan=plan, rpm=rpm)
        if limit is not None and used >= limit:
            return Line("", "fail", said, Phrase("doctor_fix_tavily_spent"))
        return Line("", "ok", said)

    # --- Jina Reader ---------------------------------------------------------------------------

    async def jina(self) -> Line:
        key = self.settings.jina_api_key.strip()
        base = self.settings.jina_reader_base_url.rstrip("/")
        headers = {"Accept": "text/plain"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        response = await self._get(f"{base}/", headers=headers)
        rpm = Figure(self.settings.jina_rpm)
        status = response.status_code
        if key and status == 401:
            said = Phrase("doctor_key_refused", masked=key_hint(key), status=status)
            return Line("", "fail", said, Phrase("doctor_fix_jina_key"))
        if not key and status == 401:
            return Line("", "fail", Phrase("doctor_jina_needs_key"), Phrase("doctor_fix_jina_key"))
        if key and status == 402:
            return Line("", "fail", Phrase("doctor_jina_spent"), Phrase("doctor_fix_jina_spent"))
        if (transient := _transient(response, "VICARAN_JINA_RPM")) is not None:
            return transient
        if status != 200:
            return self._answered(status, "JINA_READER_BASE_URL", base)
        if not key:
            return Line("", "ok", Phrase("doctor_jina_anonymous", rpm=rpm))
        account = _jina_index(response.text)
        balance = account.get("balance left", "")
        if not balance:
            said = Phrase("doctor_jina_key_sent", masked=key_hint(key), rpm=rpm)
            return Line("", "ok", said)
        tokens = _number(balance)
        if tokens is not None and tokens <= 0:
            return Line("", "fail", Phrase("doctor_jina_spent"), Phrase("doctor_fix_jina_spent"))
        left = Figure(tokens) if tokens is not None else balance[:40]
        said = Phrase("doctor_jina_key_ok", masked=key_hint(key), balance=left, rpm=rpm)
        return Line("", "ok", said)

    # --- Fact Check Tools ----------------------------------------------------------------------

    async def factcheck(self) -> Line:
        key = self.settings.factcheck_api_key.strip()
        if not key:
            said = Phrase("doctor_not_configured", variable="FACTCHECK_API_KEY")
            return Line("", "note", Phrase("doctor_no_factcheck", unset=said))
        base = self.settings.factcheck_base_url.rstrip("/")
        response = await self._get(
            base + FACTCHECK_PATH,
            params={"query": "vaccine", "pageSize": "1"},
            headers={"X-Goog-Api-Key": key},  # a header: the key never sits in a logged URL
        )
        status = response.status_code
        if status == 200:
            rpm = Figure(self.settings.vicaran_factcheck_rpm)
            said = Phrase(
                "doctor_factcheck_ok",
                accepted=Phrase("doctor_key_accepted", masked=key_hint(key)),
                rpm=rpm,
            )
            return Line("", "ok", said)
        reasons, activation = _google_error(_json(response))
        if "SERVICE_DISABLED" in reasons:
            fix = Phrase("doctor_fix_factcheck_enable", url=activation or _FACTCHECK_CONSOLE)
            return Line("", "fail", Phrase("doctor_factcheck_disabled"), fix)
        if status in (400, 401, 403):
            said = Phrase("doctor_key_refused", masked=key_hint(key), status=status)
            return Line("", "fail", said, Phrase("doctor_fix_factcheck_key"))
        if (transient := _transient(response, "VICARAN_FACTCHECK_RPM")) is not None:
            return transient
        return self._answered(status, "FACTCHECK_BASE_URL", base)

    # --- Querido Diário ------------------------------------------------------------------------

    async def querido_diario(self) -> Line:
        base = self.settings.querido_diario_base_url.strip().rstrip("/")
        if retired_querido_diario_host(base):
            said = Phrase("doctor_retired", host=_host(base))
            return Line("", "fail", said, Phrase("doctor_fix_retired", new=QUERIDO_DIARIO_HOST))
        response = await self._get(f"{base}/cities/{PROBE_TERRITORY}")
        status = response.status_code
        budget = f"VICARAN_QUERIDO_DIARIO_RPM={self.settings.vicaran_querido_diario_rpm}"
        if status in (301, 302, 303, 307, 308):
            location = response.headers.get("location", "")
            new = shown_url(str(response.url.join(location))).removesuffix(
                f"/cities/{PROBE_TERRITORY}"
            )
            said = Phrase("doctor_redirected", location=new)
            return Line("", "fail", said, Phrase("doctor_fix_redirected", new=new))
        if (transient := _transient(response, budget)) is not None:
            return transient
        body = _json(response)
        city = body.get("city") if isinstance(body, dict) else None
        if status != 200 or not isinstance(city, dict):
            return self._answered(status, "QUERIDO_DIARIO_BASE_URL", base)
        rpm = Figure(self.settings.vicaran_querido_diario_rpm)
        burst = Figure(self.settings.vicaran_querido_diario_burst)
        return Line("", "ok", Phrase("doctor_querido_diario_ok", rpm=rpm, burst=burst))

    # --- the callback API ----------------------------------------------------------------------

    async def callback(self) -> Line:
        url = self.settings.callback_api_url.strip()
        secret = self.settings.agent_secret.strip()
        if not url:
            said = Phrase("doctor_not_configured", variable="CALLBACK_API_URL")
            return Line("", "note", Phrase("doctor_no_callback", unset=said))
        if not secret:
            return Line(
                "",
                "fail",
                Phrase("doctor_callback_no_secret"),
                Phrase("doctor_fix_callback_secret"),
            )
        assert self.http is not None
        # An empty record: the contract checks the secret first (401), then refuses it (400).
        response = await self.http.post(url, json={}, headers={"X-Agent-Secret": secret})
        status = response.status_code
        shown = shown_url(url)
        if status == 400:
            return Line("", "ok", Phrase("doctor_callback_ok"))
        if status == 401:
            said = Phrase("doctor_callback_refused", status=status)
            return Line("", "fail", said, Phrase("doctor_fix_callback_secret"))
        if status == 421:
            fix = Phrase("doctor_fix_callback_host", host=urlsplit(url).hostname or "?")
            return Line("", "fail", Phrase("doctor_callback_host", status=status), fix)
        if 200 <= status < 300:
            return Line("", "warn", Phrase("doctor_callback_lenient", status=status))
        if (transient := _transient(response, "")) is not None:
            return Line("", "warn", Phrase("doctor_callback_busy", said=transient.said))
        return Line(
            "",
            "fail",
            Phrase("doctor_answered", status=status),
            Phrase("doctor_fix_callback_path", url=shown),
        )

    # --- the records database and ADK's sessions -----------------------------------------------

    async def database(self) -> Line:
        return await asyncio.to_thread(self._database)

    def _database(self) -> Line:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url
        from sqlalchemy.pool import NullPool

        from .storage import migrate

        url = make_url(self.settings.database_url)
        shown = url.render_as_string(hide_password=True)
        fix = Phrase("doctor_fix_database", url=shown)
        if url.get_backend_name() == "sqlite":
            file = (url.database or "").removeprefix("file:")
            if file in ("", ":memory:") or url.query.get("mode") == "memory":
                return Line("", "warn", Phrase("doctor_database_memory"))
            path = Path(file).expanduser()
            if not path.exists():
                return _sqlite_not_made(path, fix)
            if not path.is_file():
                return Line("", "fail", Phrase("doctor_database_not_file", path=str(path)), fix)
            engine = None
        else:
            options: dict[str, Any] = {"poolclass": NullPool}
            if url.get_backend_name() == "postgresql":
                options["connect_args"] = {"connect_timeout": max(1, round(self.timeout))}
            try:
                engine = create_engine(url, **options)
            except Exception as error:  # noqa: BLE001 - a missing driver, a bad URL
                said = Phrase(
                    "doctor_database_cannot_open",
                    error=_error_name(error),
                    detail=self.detail(error),
                )
                return Line("", "fail", said, Phrase("doctor_fix_database_driver"))
        try:
            state, revision = migrate.status(engine or url.render_as_string(hide_password=False))
        except Exception as error:  # noqa: BLE001 - refused, unknown host, wrong password
            detail = self.detail(getattr(error, "orig", None) or error)
            said = Phrase("doctor_database_cannot_open", error=_error_name(error), detail=detail)
            return Line("", "fail", said, fix)
        finally:
            if engine is not None:
                engine.dispose()
        head = migrate.head()
        if state == "current":
            return Line("", "ok", Phrase("doctor_database_ok", revision=head))
        if url.get_backend_name() == "sqlite" and state != "unknown":
            said = Phrase("doctor_database_sqlite_behind", revision=revision or "-", head=head)
            return Line("", "ok", said)
        said = Phrase("doctor_database_schema", revision=revision or "-", head=head)
        outdated = migrate.outdated_message(state, revision, head, "en")
        return Line("", "fail", said, _Said(outdated, state, revision, head))

    async def sessions(self) -> Line:
        from sqlalchemy import text
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError
        from sqlalchemy.ext.asyncio import create_async_engine
        from sqlalchemy.pool import NullPool

        from .server.app import SessionStoreError, session_service_uri

        try:
            uri = session_service_uri(self.settings)
        except SessionStoreError as error:
            return Line("", "fail", Phrase("doctor_sessions_unusable"), str(error))
        assert uri is not None
        try:
            url = make_url(uri)
        except ArgumentError:
            return Line("", "ok", Phrase("doctor_sessions_adk", scheme=uri.split("://")[0]))
        if url.get_backend_name() != "postgresql":
            return Line("", "ok", Phrase("doctor_sessions_adk", scheme=url.drivername))
        engine = create_async_engine(url, poolclass=NullPool)
        try:
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except Exception as error:  # noqa: BLE001 - refused, unknown host, wrong password
            detail = self.detail(getattr(error, "orig", None) or error)
            said = Phrase("doctor_database_cannot_open", error=_error_name(error), detail=detail)
            shown = url.render_as_string(hide_password=True)
            return Line("", "fail", said, Phrase("doctor_fix_sessions", url=shown))
        finally:
            await engine.dispose()
        return Line("", "ok", Phrase("doctor_sessions_ok"))

    def _answered(self, status: int, variable: str, base: str) -> Line:
        """A status the service's contract does not explain: most likely the wrong address."""
        fix = Phrase("doctor_fix_address_now", variable=variable, url=shown_url(base))
        return Line("", "fail", Phrase("doctor_answered", status=status), fix)


class _Said(str):
    """The schema message of `storage.migrate`, said again in the reader's language."""

    def __new__(cls, english: str, state: Any, revision: str | None, head: str) -> _Said:
        said = super().__new__(cls, english)
        said.state, said.revision, said.head = state, revision, head
        return said

    def said_in(self, language: str) -> str:
        from .storage import migrate

        return migrate.outdated_message(self.state, self.revision, self.head, language)


_FACTCHECK_CONSOLE = "https://console.cloud.google.com/apis/library/factchecktools.googleapis.com"


def _gemini_error(error: Any, api: str, variables: str, detail: str) -> Line:
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


def _tavily_usage(body: Any) -> tuple[int, int | None, str] | None:
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


def _jina_index(text: str) -> dict[str, str]:
    """Reader's index lines (`[Balance left] 123`), by lower-case label."""
    fields: dict[str, str] = {}
    for line in text[:10_000].splitlines():
        label, closed, value = line.partition("] ")
        if closed and label.startswith("["):
            fields[label[1:].strip().lower()] = value.strip()
    return fields


def _number(text: str) -> int | None:
    try:
        return int(float(text.replace(",", "").replace("_", "")))
    except ValueError:
        return None


def _google_error(body: Any) -> tuple[set[str], str]:
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


def _sqlite_not_made(path: Path, fix: Phrase) -> Line:
    """A SQLite file that does not exist yet: fine when its folder can be made and written."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
        return Line("", "ok", Phrase("doctor_database_not_yet", path=str(path)))
    return Line("", "fail", Phrase("doctor_database_cannot_make", path=str(path)), fix)


# --- the command -------------------------------------------------------------------------------


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


def report(lines: list[Line], language: str) -> tuple[list[str], int]:
    """The lines to print and the exit code (1 when anything failed)."""
    shown = [line.render(language) for line in lines]
    failed = [str(localized(line.service, language)) for line in lines if line.status == "fail"]
    warned = sum(line.status == "warn" for line in lines)
    if failed:
        shown.append(message("doctor_summary_fail", language, services="; ".join(failed)))
    elif warned:
        shown.append(message("doctor_summary_warn", language, count=warned))
    else:
        shown.append(message("doctor_summary_ok", language))
    return shown, 1 if failed else 0


def run(settings: Settings, language: str, timeout: float = DEFAULT_TIMEOUT) -> int:
    """`vicaran doctor`: print one line per service and a summary; 1 when something is broken."""
    lines = asyncio.run(Doctor(settings, timeout).run())
    shown, code = report(lines, language)
    for text in shown:
        print(text, flush=True)
    return code
