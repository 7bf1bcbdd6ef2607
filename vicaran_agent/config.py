"""Every setting Vicaran reads, in one place (environment variables and `.env`)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from . import services
from .environment import environment_values
from .i18n import Phrase, localized, message

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The `.env` files read, the later one winning: the project's, then the working folder's.
ENV_FILES: tuple[Path | str, ...] = (PROJECT_ROOT / ".env", ".env")

_TRUE = {"1", "true", "yes", "on"}


_PRICES = TypeAdapter(dict[str, dict[str, float]])

# `vicaran serve`'s (and `make run`'s) address when none is given: where links point when no
# server says otherwise (`vicaran investigate`, `vicaran export`, `adk web`, `adk api_server`).
SERVE_HOST = "127.0.0.1"
SERVE_PORT = 8000
# Room in a request for what comes with an attachment: the message's text, names and JSON.
REQUEST_ROOM_BYTES = 1_000_000
# What `.env.example` set VICARAN_PUBLIC_URL to until it followed the server: a `.env` copied
# from it pins port 8000 whatever port serves it, so this exact value is taken as unset.
RETIRED_PUBLIC_URL = "http://127.0.0.1:8000"
# A server bound to every interface is reached, on its own machine, through loopback.
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def server_url(host: str, port: int) -> str:
    """The address a browser on this machine uses for a server bound to host:port.

    An IPv6 address is bracketed; a wildcard (0.0.0.0, ::) becomes loopback (127.0.0.1, ::1),
    the one address every such server answers and its Host check allows.
    """
    name = host.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    name = _WILDCARDS.get(name, name)
    return f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"


class Settings(BaseModel):
    """Vicaran configuration. Field names map to the upper-case environment variables.

    `Settings()` reads the environment and `.env` (`environment_values`); keyword arguments win
    over both, and `_env_file=None` reads no file.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def __init__(
        self,
        _env_file: Path | str | Iterable[Path | str] | None = ENV_FILES,
        **values: Any,
    ) -> None:
        super().__init__(**{**environment_values(type(self).model_fields, _env_file), **values})

    # Models (any name ADK's LLMRegistry resolves).
    vicaran_fast_model: str = "gemini-3.5-flash"
    vicaran_pro_model: str = "gemini-3.8-flash"
    vicaran_model_plugins: str = ""  # comma-separated modules (settings.toml says what each does)

    # Gemini credentials (read to give a clear hint when missing; google-genai reads them itself).
    google_api_key: str = ""
    gemini_api_key: str = ""
    google_genai_use_enterprise: str = ""
    google_genai_use_vertexai: str = ""
    google_cloud_project: str = ""
    google_cloud_location: str = ""

    # Web search and page reading.
    tavily_api_key: str = ""
    tavily_base_url: str = "https://api.tavily.com"
    jina_api_key: str = ""
    jina_reader_base_url: str = "https://r.jina.ai"
    vicaran_fetch_allow_private: bool = False
    vicaran_search_include_domains: str = ""
    vicaran_search_exclude_domains: str = ""

    # Later stages (declared here so the names never change).
    factcheck_api_key: str = ""
    factcheck_base_url: str = "https://factchecktools.googleapis.com"
    querido_diario_base_url: str = "https://api.queridodiario.org.br"
    # Official gazettes (Querido Diário). Its production API (Traefik's api-rate-limit) takes 25
    # requests a minute with a burst of 50 per client; a term's first query can take 20-36 s.
    vicaran_querido_diario_rpm: int = Field(default=25, ge=1)
    vicaran_querido_diario_burst: int = Field(default=25, ge=1, le=50)  # requests at once
    vicaran_querido_diario_timeout_seconds: float = Field(default=45.0, gt=0)  # per request
    # One claim's whole gazette search (rounds, texts, reading): three rounds of cold queries fit.
    vicaran_gazette_timeout_seconds: float = Field(default=180.0, gt=0)
    vicaran_gazette_rounds: int = Field(default=3, ge=1, le=5)  # search rounds per claim
    vicaran_gazettes_read: int = Field(default=3, ge=0)  # read in full per claim (0: off)
    vicaran_memory_max_age_days: int = Field(default=180, ge=0)  # earlier checks remembered
    vicaran_archive_pages: bool = True  # each page read kept as WARC records (archive.py)
    vicaran_gazette_read_chars: int = Field(default=80_000, gt=0)  # of each gazette read

    # Storage and the newsroom callback API.
    vicaran_database_url: str = ""
    # ADK's session store for `vicaran serve` (e.g. postgresql+asyncpg://...); empty: ADK's local one.
    vicaran_session_db_url: str = ""
    callback_api_url: str = ""
    agent_secret: str = ""
    debug_mode: bool = False
    vicaran_callback_timeout_seconds: float = Field(default=10.0, gt=0)
    # What of the journalist's documents the callback API receives: "quotes" (evidence quotes and
    # passage summaries) or "none" (the document's title and page only).
    vicaran_callback_document_text: Literal["quotes", "none"] = "quotes"
    # The scale of `overall_bias_score` in the final records: 5 (seed 001's receiver, which takes
    # 0-5; Vicaran's 0-10 score is halved) or 10 (receivers built on Vicaran's own 0-10 contract).
    vicaran_callback_bias_scale: int = 5
    # `vicaran serve`: open on loopback; with a token, every route but the callback endpoint and
    # /healthz needs it. Host headers outside the allowed list are refused (DNS rebinding).
    vicaran_dashboard_token: str = ""
    vicaran_allowed_hosts: str = ""  # comma-separated; "" = 127.0.0.1, localhost, the bound host
    vicaran_callback_max_body_bytes: int = Field(default=1_000_000, gt=0)
    # Any other request body `vicaran serve` takes (0: the largest attachment as base64 + 1 MB).
    vicaran_max_request_bytes: int = Field(default=0, ge=0)

    # Limits, timeouts and concurrency.
    vicaran_concurrency: int = Field(default=16, ge=1)
    # Source digests (model calls) at once: a page read joins the digests already running.
    vicaran_digest_concurrency: int = Field(default=32, ge=1)
    vicaran_source_limit: int = Field(
        default=0, ge=0
    )  # 0: the mode's limit (15 quick, 30 detailed)
    vicaran_search_timeout_seconds: float = Field(default=20.0, gt=0)
    vicaran_page_timeout_seconds: float = Field(default=20.0, gt=0)
    vicaran_model_timeout_seconds: float = Field(default=120.0, gt=0)
    vicaran_max_retries: int = Field(default=2, ge=0)
    vicaran_max_page_bytes: int = Field(default=3_000_000, gt=0)
    # Characters of one page's text its digest reads (the snapshot keeps the whole page).
    vicaran_digest_page_chars: int = Field(default=30_000, gt=0)
    # Untrusted parsing (pages and documents) in worker processes (workers/pool.py): how many,
    # each one's address space (and what they may all grow by together), a document's time.
    vicaran_parse_workers: int = Field(default=3, ge=1)
    vicaran_parse_memory_mb: int = Field(default=1024, ge=256)
    vicaran_parse_timeout_seconds: float = Field(default=120.0, gt=0)  # beyond its OCR time
    # A running investigation writes a heartbeat this often; three missed beats (30 s by
    # default) and its process is taken for dead: the run is marked `interrupted`.
    vicaran_heartbeat_seconds: float = Field(default=10.0, gt=0, le=10.0)
    # Output cap of any single model call (0: sized per call).
    vicaran_max_output_tokens: int = Field(default=0, ge=0)
    # Model tokens one investigation may spend (0: no cap); past it, gathering stops.
    vicaran_token_budget: int = Field(default=0, ge=0)
    # JSON, USD per million tokens, per model: {"model": {"input": .., "output": .., "cached": ..}};
    # merged over usage.DEFAULT_MODEL_PRICES. A model with no price costs 0 (and is said unpriced).
    # A string, not a dict: an empty line in .env means no override, not a JSON error.
    vicaran_model_prices: str = ""
    vicaran_max_user_urls: int = Field(default=10, ge=0)
    vicaran_user_source_timeout_seconds: float = Field(default=60.0, gt=0)

    # The evidence engine (fact_checker).
    vicaran_claim_concurrency: int = Field(default=16, ge=1)
    vicaran_gather_timeout_seconds: float = Field(default=30.0, gt=0)
    vicaran_pages_per_claim: int = Field(default=3, ge=0)
    vicaran_check_outlets: str = ""
    vicaran_live_search_fallback: bool = True

    # The journalist's documents (parsed locally; passages reach only the configured model).
    vicaran_document_max_bytes: int = Field(default=50_000_000, gt=0)
    vicaran_document_max_pages: int = Field(default=2000, gt=0)
    # What one document may index (memory and database growth): past it, pages are not read.
    vicaran_document_max_chars: int = Field(default=10_000_000, gt=0)
    vicaran_document_max_passages: int = Field(default=15_000, gt=0)
    vicaran_document_max_unpacked_bytes: int = Field(default=20_000_000, gt=0)  # a DOCX's XML
    vicaran_ocr_languages: str = "por+eng"  # Tesseract languages for pages without a text layer
    # OCR budgets: one document's, and one investigation's attachments together.
    vicaran_ocr_document_pages: int = Field(default=100, ge=0)
    vicaran_ocr_document_seconds: float = Field(default=300.0, gt=0)
    vicaran_ocr_investigation_pages: int = Field(default=200, ge=0)
    vicaran_ocr_investigation_seconds: float = Field(default=600.0, gt=0)
    vicaran_document_passages_per_claim: int = Field(default=6, ge=0)
    vicaran_reference_depth: int = Field(default=2, ge=0)
    vicaran_reference_token_budget: int = Field(default=50_000, ge=0)
    vicaran_reference_convergence: int = Field(default=3, ge=1)  # same document back this often
    # An address written in a document is listed, not read: reading it would tell its host that
    # the document is being read (and carry whatever its query string says).
    vicaran_follow_document_urls: bool = False
    # A claim that comes only from the journalist's documents stays off web services unless true.
    vicaran_search_document_claims: bool = False

    # Trust: time, relevance, the report check and how exports name the publisher.
    vicaran_today: str = Field(
        default="", description="YYYY-MM-DD Vicaran treats as today (reproducible runs)."
    )
    vicaran_relevance_threshold: float = Field(default=0.3, ge=0, le=1)
    vicaran_quality_threshold: int = Field(default=70, ge=0, le=100)
    vicaran_publisher_name: str = "Vicaran"
    vicaran_publisher_url: str = ""
    # Where people reach `vicaran serve` ("" = the address it is bound to; see `public_url`).
    vicaran_public_url: str = ""

    # Requests per minute each service may receive from this process, whatever the concurrency.
    vicaran_tavily_rpm: int = Field(
        default=100, ge=1
    )  # Tavily development keys; 1000 for production keys
    vicaran_jina_rpm: int = Field(default=0, ge=0)  # 0: 20 without JINA_API_KEY, 200 with one
    vicaran_factcheck_rpm: int = Field(default=300, ge=1)
    # The rolling window the budgets are counted over (60 s, like the services; shorter rescales).
    vicaran_rate_window_seconds: float = Field(default=60.0, gt=0)

    @field_validator("vicaran_today")
    @classmethod
    def _iso_day(cls, value: str) -> str:
        value = value.strip()
        if value:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(
                    f"VICARAN_TODAY must be a date as YYYY-MM-DD (got {value!r})"
                ) from None
        return value

    @model_validator(mode="after")
    def _gazette_budget(self) -> Settings:
        if self.vicaran_gazette_timeout_seconds < self.vicaran_querido_diario_timeout_seconds:
            raise ValueError(
                "VICARAN_GAZETTE_TIMEOUT_SECONDS "
                f"({self.vicaran_gazette_timeout_seconds:g} s) must be at least "
                "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS "
                f"({self.vicaran_querido_diario_timeout_seconds:g} s): one claim's gazette search "
                "would end before its first request could"
            )
        return self

    @field_validator("vicaran_callback_bias_scale")
    @classmethod
    def _bias_scale(cls, value: int) -> int:
        if value not in (5, 10):
            raise ValueError("VICARAN_CALLBACK_BIAS_SCALE must be 5 or 10")
        return value

    @field_validator("vicaran_public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        value = value.strip()
        parts = urlsplit(value)
        if value and (parts.scheme not in ("http", "https") or not parts.netloc):
            raise ValueError(
                "VICARAN_PUBLIC_URL must be where people reach the server, like "
                f"https://vicaran.example.org (got {value!r}); leave it empty to use the "
                "address `vicaran serve` is bound to"
            )
        return value

    @field_validator("vicaran_model_prices")
    @classmethod
    def _price_table(cls, value: str) -> str:
        value = value.strip()
        if value:
            try:
                _PRICES.validate_json(value)
            except ValidationError as error:
                raise ValueError(
                    'VICARAN_MODEL_PRICES must be JSON like {"gemini-3.5-flash": {"input": 1.5, '
                    f'"output": 9, "cached": 0.15}} (USD per million tokens): {error}'
                ) from None
        return value

    @cached_property
    def model_prices(self) -> dict[str, dict[str, float]]:
        """VICARAN_MODEL_PRICES, parsed once (empty: no override): read for every model call."""
        return _PRICES.validate_json(self.vicaran_model_prices) if self.vicaran_model_prices else {}

    @property
    def today(self) -> date:
        """The date Vicaran treats as today: VICARAN_TODAY, else the machine's date."""
        return date.fromisoformat(self.vicaran_today) if self.vicaran_today else date.today()

    @property
    def database_url(self) -> str:
        if self.vicaran_database_url:
            return self.vicaran_database_url
        return f"sqlite:///{Path.cwd() / '.vicaran' / 'vicaran.db'}"

    @property
    def include_domains(self) -> list[str]:
        return _split(self.vicaran_search_include_domains)

    @property
    def exclude_domains(self) -> list[str]:
        return _split(self.vicaran_search_exclude_domains)

    @property
    def jina_rpm(self) -> int:
        if self.vicaran_jina_rpm:
            return self.vicaran_jina_rpm
        return 200 if self.jina_api_key.strip() else 20

    @property
    def callback_enabled(self) -> bool:
        """Records go to the newsroom's callback API too (both settings are needed)."""
        return bool(self.callback_api_url.strip() and self.agent_secret.strip())

    @property
    def max_request_bytes(self) -> int:
        """The largest request body `vicaran serve` reads (the callback endpoint has its own):
        VICARAN_MAX_REQUEST_BYTES, else a message carrying the largest document Vicaran takes
        in, base64-encoded as JSON carries it, with 1 MB for the rest of the message."""
        if self.vicaran_max_request_bytes:
            return self.vicaran_max_request_bytes
        return 4 * -(-self.vicaran_document_max_bytes // 3) + REQUEST_ROOM_BYTES

    @property
    def stale_seconds(self) -> float:
        """No heartbeat for this long: the run's process is dead (at most 30 s)."""
        return 3 * self.vicaran_heartbeat_seconds

    @property
    def allowed_hosts(self) -> list[str]:
        return _split(self.vicaran_allowed_hosts)

    @property
    def check_outlets(self) -> list[str]:
        return _split(self.vicaran_check_outlets)

    @property
    def public_url_set(self) -> bool:
        """Whether VICARAN_PUBLIC_URL names the server (the retired default does not)."""
        return self.vicaran_public_url.rstrip("/") not in ("", RETIRED_PUBLIC_URL)

    @property
    def public_url(self) -> str:
        """Where people reach the server, without a final slash: VICARAN_PUBLIC_URL, else the
        address `vicaran serve` is bound to (`serve` puts it there), else its default one."""
        if self.public_url_set:
            return self.vicaran_public_url.rstrip("/")
        return server_url(SERVE_HOST, SERVE_PORT)

    def serving_at(self, host: str, port: int) -> str:
        """`public_url` for a server bound to host:port: VICARAN_PUBLIC_URL when it is set,
        else that address."""
        return self.public_url if self.public_url_set else server_url(host, port)

    def investigation_url(self, investigation_id: str) -> str:
        """The dashboard page of one investigation, as `vicaran serve` publishes it."""
        return f"{self.public_url}/investigations/{quote(investigation_id, safe='')}"

    def claim_url(self, investigation_id: str, number: int) -> str:
        """The page of the investigation's `number`-th checked claim (1-based, as the report
        numbers them): the one page that carries its ClaimReview."""
        return f"{self.investigation_url(investigation_id)}/claims/{number}"

    @property
    def uses_vertex(self) -> bool:
        flag = self.google_genai_use_enterprise or self.google_genai_use_vertexai
        return flag.strip().lower() in _TRUE

    def missing_keys(self, model: str = "") -> list[Phrase]:
        """Each key not set that turns something off, and what (`key_missing_*` messages):
        the Gemini key (when `model`, default the fast model, is Gemini's), Tavily, Fact Check."""
        missing = []
        model = model or self.vicaran_fast_model
        if "gemini" in model.rsplit("/", 1)[-1].lower() and (
            self.gemini_credentials_problem() is not None
        ):
            missing.append(Phrase("key_missing_google"))
        if not self.tavily_api_key.strip():
            missing.append(Phrase("key_missing_tavily"))
        if not self.factcheck_api_key.strip():
            missing.append(Phrase("key_missing_factcheck"))
        return missing

    def gemini_credentials_problem(self) -> Phrase | None:
        """One sentence telling the journalist what to set, or None when Gemini can be reached."""
        if self.uses_vertex:
            if self.google_cloud_project and self.google_cloud_location:
                return None
            return Phrase("gemini_vertex_incomplete")
        if self.google_api_key or self.gemini_api_key:
            return None
        return Phrase("gemini_no_key")


def _split(value: str) -> list[str]:
    return [item.strip().lower() for item in value.split(",") if item.strip()]


# Querido Diário's hosts before it moved to api.queridodiario.org.br (2026-07); they answer 404.
RETIRED_QUERIDO_DIARIO_DOMAIN = "queridodiario.ok.org.br"


def retired_querido_diario_host(url: str) -> bool:
    """True when `url` (with or without a scheme) names a host of Querido Diário's retired
    domain (api.queridodiario.ok.org.br and its siblings), which serves no API any more."""
    text = (url or "").strip()
    if "://" not in text:
        text = "//" + text
    try:
        host = (urlsplit(text).hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    domain = RETIRED_QUERIDO_DIARIO_DOMAIN
    return host == domain or host.endswith("." + domain)


def get_settings() -> Settings:
    """The settings of the current services container, read from the environment (and `.env`)
    the first time they are asked for; `forget_settings` makes the next call read them again."""
    shared = services.current()
    if shared.settings is None:
        # Tests (and deployments that inject env vars) turn .env loading off the way ADK does.
        skip_dotenv = os.environ.get("ADK_DISABLE_LOAD_DOTENV", "").lower() in _TRUE
        shared.settings = Settings(_env_file=None) if skip_dotenv else Settings()
    return shared.settings


def forget_settings() -> None:
    """Read the settings again at the next `get_settings` (the environment changed)."""
    services.current().settings = None


def export_model_key(settings: Settings) -> None:
    """Put a Gemini key that sits only in .env into the process environment, where google-genai
    reads it; a key already in the environment wins. For the `vicaran` command's start only (ADK's
    own CLI loads .env itself for `adk web`, `adk run` and `adk api_server`)."""
    if settings.google_api_key and not os.environ.get("GOOGLE_API_KEY"):
        os.environ["GOOGLE_API_KEY"] = settings.google_api_key


def settings_problem(error: ValidationError) -> str:
    """Settings that do not validate, as one sentence naming each variable and what is wrong."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']).upper() or 'a setting'}: {e['msg']}"
        for e in error.errors()[:3]
    )
    return f"A setting is not valid ({problems}): correct it in .env or the environment."


class ModelPluginError(ImportError):
    """A module named in VICARAN_MODEL_PLUGINS could not be imported; `str()` says what to do."""

    def __init__(self, module: str, error: BaseException) -> None:
        missing = isinstance(error, ModuleNotFoundError) and (
            error.name is None or module == error.name or module.startswith(error.name + ".")
        )
        if missing:
            what = "which is not installed"
        else:
            reason = " ".join(f"{type(error).__name__}: {error}".split())[:200]
            what = f"which failed to import ({reason})"
        super().__init__(
            f"VICARAN_MODEL_PLUGINS names the module '{module}', {what}: correct the name, "
            "install the module, or remove it from the setting (in .env)."
        )
        self.module = module


def load_model_plugins(settings: Settings | None = None) -> None:
    """Import the modules named in VICARAN_MODEL_PLUGINS so their model classes register.

    Raises ModelPluginError, with the module's own error as its cause, when one cannot be imported.
    """
    settings = settings or get_settings()
    for module in settings.vicaran_model_plugins.split(","):
        if module.strip():
            try:
                importlib.import_module(module.strip())
            except Exception as error:
                raise ModelPluginError(module.strip(), error) from error


def model_plugins_problem(settings: Settings | None = None) -> str | None:
    """The sentence to show when VICARAN_MODEL_PLUGINS cannot be loaded, else None."""
    try:
        load_model_plugins(settings)
    except ModelPluginError as error:
        return str(error)
    return None


def missing_keys_line(settings: Settings, language: str) -> str | None:
    """One line naming each key not set and what its absence turns off, or None."""
    missing = settings.missing_keys()
    if not missing:
        return None
    keys = "; ".join(localized(phrase, language) for phrase in missing)
    return message("keys_missing", language, keys=keys)
