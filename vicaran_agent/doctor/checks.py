"""The checks: one per service the next run uses, all at once, within one short timeout."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..clients.http import AnswerTooLarge, capped_client
from ..config import Settings, model_plugins_problem, retired_querido_diario_host
from ..i18n import Phrase
from .answers import (
    FACTCHECK_CONSOLE,
    Said,
    busy_or_failing,
    error_name,
    gemini_error,
    google_error,
    jina_index,
    json_of,
    key_hint,
    number,
    scrub,
    secrets_of,
    shown_url,
    sqlite_not_made,
    tavily_usage,
)
from .lines import Figure, Line
from .startup import QUERIDO_DIARIO_HOST, host_of

# A city every deployment of Querido Diário lists (Porto Alegre): `/cities/{id}` reads the city
# table only, so it answers at once (a search can take 20-36 s the first time).
PROBE_TERRITORY = "4314902"
FACTCHECK_PATH = "/v1alpha1/claims:search"
DEFAULT_TIMEOUT = 10.0
# Every answer a check reads is small (an account's usage, a probe); past this it is refused.
ANSWER_MAX_BYTES = 1_000_000


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
            said = Phrase("doctor_unreachable", error=error_name(error))
            return Line(service, "fail", said, fix)
        except AnswerTooLarge as error:
            said = Phrase("doctor_answer_too_large", limit=f"{error.limit:,}")
            return Line(service, "fail", said, fix)
        except Exception as error:  # noqa: BLE001 - a check that breaks is reported, not raised
            said = Phrase("doctor_check_failed", error=error_name(error), detail=self.detail(error))
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
            return gemini_error(error, api, variables, self.detail(error.message or ""))
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
        if (transient := busy_or_failing(response, budget)) is not None:
            return transient
        if status == 404:
            return Line("", "warn", Phrase("doctor_tavily_no_usage", status=status))
        if status != 200:
            return self._answered(status, "TAVILY_BASE_URL", base)
        usage = tavily_usage(json_of(response))
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
        if (transient := busy_or_failing(response, "VICARAN_JINA_RPM")) is not None:
            return transient
        if status != 200:
            return self._answered(status, "JINA_READER_BASE_URL", base)
        if not key:
            return Line("", "ok", Phrase("doctor_jina_anonymous", rpm=rpm))
        account = jina_index(response.text)
        balance = account.get("balance left", "")
        if not balance:
            said = Phrase("doctor_jina_key_sent", masked=key_hint(key), rpm=rpm)
            return Line("", "ok", said)
        tokens = number(balance)
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
        reasons, activation = google_error(json_of(response))
        if "SERVICE_DISABLED" in reasons:
            fix = Phrase("doctor_fix_factcheck_enable", url=activation or FACTCHECK_CONSOLE)
            return Line("", "fail", Phrase("doctor_factcheck_disabled"), fix)
        if status in (400, 401, 403):
            said = Phrase("doctor_key_refused", masked=key_hint(key), status=status)
            return Line("", "fail", said, Phrase("doctor_fix_factcheck_key"))
        if (transient := busy_or_failing(response, "VICARAN_FACTCHECK_RPM")) is not None:
            return transient
        return self._answered(status, "FACTCHECK_BASE_URL", base)

    # --- Querido Diário ------------------------------------------------------------------------

    async def querido_diario(self) -> Line:
        base = self.settings.querido_diario_base_url.strip().rstrip("/")
        if retired_querido_diario_host(base):
            said = Phrase("doctor_retired", host=host_of(base))
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
        if (transient := busy_or_failing(response, budget)) is not None:
            return transient
        body = json_of(response)
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
        if (transient := busy_or_failing(response, "")) is not None:
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

        from ..storage import migrate

        url = make_url(self.settings.database_url)
        shown = url.render_as_string(hide_password=True)
        fix = Phrase("doctor_fix_database", url=shown)
        if url.get_backend_name() == "sqlite":
            file = (url.database or "").removeprefix("file:")
            if file in ("", ":memory:") or url.query.get("mode") == "memory":
                return Line("", "warn", Phrase("doctor_database_memory"))
            path = Path(file).expanduser()
            if not path.exists():
                return sqlite_not_made(path, fix)
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
                    error=error_name(error),
                    detail=self.detail(error),
                )
                return Line("", "fail", said, Phrase("doctor_fix_database_driver"))
        try:
            state, revision = migrate.status(engine or url.render_as_string(hide_password=False))
        except Exception as error:  # noqa: BLE001 - refused, unknown host, wrong password
            detail = self.detail(getattr(error, "orig", None) or error)
            said = Phrase("doctor_database_cannot_open", error=error_name(error), detail=detail)
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
        return Line("", "fail", said, Said(outdated, state, revision, head))

    async def sessions(self) -> Line:
        from sqlalchemy import text
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError
        from sqlalchemy.ext.asyncio import create_async_engine
        from sqlalchemy.pool import NullPool

        from ..server.app import SessionStoreError, session_service_uri

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
            said = Phrase("doctor_database_cannot_open", error=error_name(error), detail=detail)
            shown = url.render_as_string(hide_password=True)
            return Line("", "fail", said, Phrase("doctor_fix_sessions", url=shown))
        finally:
            await engine.dispose()
        return Line("", "ok", Phrase("doctor_sessions_ok"))

    def _answered(self, status: int, variable: str, base: str) -> Line:
        """A status the service's contract does not explain: most likely the wrong address."""
        fix = Phrase("doctor_fix_address_now", variable=variable, url=shown_url(base))
        return Line("", "fail", Phrase("doctor_answered", status=status), fix)
