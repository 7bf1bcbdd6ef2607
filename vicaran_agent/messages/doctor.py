"""`vicaran doctor`'s lines, in English.

Each key's translations are in the catalogs (`locale/`), with the key as the context."""

from __future__ import annotations

from ._text import Text

# `vicaran doctor` (doctor/): one line per service, "✓ Service: what was found → the fix"
MESSAGES: dict[str, Text] = {
    "doctor_retired_host": (
        "QUERIDO_DIARIO_BASE_URL names Querido Diário's retired host {host}, which answers 404 "
        "on every path: set QUERIDO_DIARIO_BASE_URL={new} {where}."
    ),
    "doctor_in_environment": "in the environment",
    "doctor_in_env": "in .env",
    # the services
    "doctor_plugins": "Model plugins (VICARAN_MODEL_PLUGINS)",
    "doctor_model": "Model {model} ({variables})",
    "doctor_tavily": "Tavily (web search)",
    "doctor_jina": "Jina Reader (page reading)",
    "doctor_factcheck": "Fact Check Tools (fact-check databases)",
    "doctor_querido_diario": "Querido Diário (official gazettes)",
    "doctor_callback": "Callback API (newsroom)",
    "doctor_database": "Records database",
    "doctor_sessions": "ADK session store (VICARAN_SESSION_DB_URL)",
    # what any service can answer
    "doctor_timeout": "did not answer within {seconds} s",
    "doctor_unreachable": "could not be reached ({error})",
    "doctor_answer_too_large": (
        "answered more than {limit} bytes, more than a check reads: set aside unread"
    ),
    "doctor_check_failed": "the check failed ({error}: {detail})",
    "doctor_answered": "answered HTTP {status}, which its API does not answer here",
    "doctor_rate_limited": "reachable, but limiting requests right now (429{retry})",
    "doctor_server_error": (
        "reachable, but failing right now (HTTP {status}); Vicaran retries such errors"
    ),
    "doctor_not_configured": "not configured — {variable} unset",
    "doctor_key_accepted": "key{masked} accepted",
    "doctor_key_refused": "key{masked} refused (HTTP {status})",
    "doctor_fix_address": "check {variable} and this machine's network connection",
    "doctor_fix_network": "check this machine's network connection and proxy settings",
    "doctor_fix_address_now": "check {variable} (now {url})",
    "doctor_fix_rate_limited": (
        "wait a minute and run `vicaran doctor` again; if it stays, lower {budget}"
    ),
    # models
    "doctor_plugins_failed": "could not be loaded",
    "doctor_model_unknown": "not a model name ADK can resolve",
    "doctor_fix_model_unknown": (
        "set {variables} to a model ADK knows (e.g. gemini-3.5-flash); provider models like "
        "ollama_chat/... need `uv sync --extra local`, your own classes VICARAN_MODEL_PLUGINS"
    ),
    "doctor_model_resolvable": "resolvable ({kind}); no key of it to check here",
    "doctor_model_no_credentials": "no Gemini credentials",
    "doctor_model_client": "the Gemini client could not start ({detail})",
    "doctor_model_ok": "the {api} accepted the credentials and knows this model",
    "doctor_model_ok_limit": (
        "the {api} accepted the credentials and knows this model (up to {tokens} input tokens)"
    ),
    "doctor_model_refused": "the {api} refused the credentials (HTTP {status})",
    "doctor_fix_gemini_key": (
        "set a valid GOOGLE_API_KEY in .env (https://aistudio.google.com/apikey), or correct "
        "the Vertex AI settings (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION and the login)"
    ),
    "doctor_model_missing": "the {api} does not offer this model to these credentials (HTTP 404)",
    "doctor_fix_model_missing": (
        "set {variables} to an available model (https://ai.google.dev/gemini-api/docs/models)"
    ),
    "doctor_model_failed": "the model check failed (HTTP {status}: {detail})",
    # Tavily
    "doctor_no_tavily": (
        "{unset}; web search is off: investigations use the journalist's links and documents, "
        "fact-check databases and Google Search grounding where they are available"
    ),
    "doctor_tavily_ok": (
        "{accepted}; {credits} (plan {plan}); Vicaran sends at most {rpm} requests/min "
        "(VICARAN_TAVILY_RPM)"
    ),
    "doctor_tavily_credits": "{used} of {limit} credits used this month",
    "doctor_tavily_credits_unlimited": "{used} credits used this month, no limit on the key",
    "doctor_tavily_no_usage": (
        "reachable, but GET /usage answered HTTP {status}: the key could not be checked "
        "without spending a search"
    ),
    "doctor_fix_tavily_key": "set a valid TAVILY_API_KEY in .env (https://app.tavily.com)",
    "doctor_fix_tavily_plan": (
        "the key's plan refuses it: check the key and its limits at https://app.tavily.com"
    ),
    "doctor_fix_tavily_spent": (
        "the key's credits are spent: raise its limit or upgrade at https://app.tavily.com, or "
        "set another TAVILY_API_KEY"
    ),
    # Jina Reader
    "doctor_jina_anonymous": (
        "reachable, without a key: Vicaran reads at most {rpm} pages/min (JINA_API_KEY raises "
        "Reader's limit from 20 to 200)"
    ),
    "doctor_jina_key_ok": (
        "key{masked} accepted, {balance} tokens left; Vicaran reads at most {rpm} pages/min "
        "(VICARAN_JINA_RPM)"
    ),
    "doctor_jina_key_sent": (
        "reachable, key{masked} sent (Reader's index does not say whose it is); Vicaran reads at "
        "most {rpm} pages/min (VICARAN_JINA_RPM)"
    ),
    "doctor_jina_needs_key": "Reader asks for a key (HTTP 401)",
    "doctor_fix_jina_key": (
        "set a valid JINA_API_KEY in .env (https://jina.ai/reader), or remove it to read "
        "anonymously (20 pages/min)"
    ),
    "doctor_jina_spent": "the key's balance is spent (no tokens left)",
    "doctor_fix_jina_spent": (
        "recharge it at https://jina.ai/reader, or remove JINA_API_KEY to read anonymously "
        "(20 pages/min)"
    ),
    # Fact Check Tools
    "doctor_no_factcheck": "{unset}; claims are checked without fact-check databases",
    "doctor_factcheck_ok": (
        "{accepted}; Vicaran sends at most {rpm} requests/min (VICARAN_FACTCHECK_RPM)"
    ),
    "doctor_factcheck_disabled": (
        "the Fact Check Tools API is not enabled for the key's project (HTTP 403)"
    ),
    "doctor_fix_factcheck_enable": "enable it at {url} and wait a few minutes",
    "doctor_fix_factcheck_key": (
        "set a valid FACTCHECK_API_KEY in .env (Google Cloud console, APIs & Services, "
        "Credentials), or remove it to check claims without fact-check databases"
    ),
    # Querido Diário
    "doctor_querido_diario_ok": (
        "reachable; Vicaran sends at most {rpm} requests/min, {burst} at once "
        "(VICARAN_QUERIDO_DIARIO_RPM, VICARAN_QUERIDO_DIARIO_BURST)"
    ),
    "doctor_retired": "{host} is the retired host: it answers 404 on every path",
    "doctor_fix_retired": "set QUERIDO_DIARIO_BASE_URL={new} in .env (or the environment)",
    "doctor_redirected": "answers with a redirect to {location}",
    "doctor_fix_redirected": "set QUERIDO_DIARIO_BASE_URL={new}",
    # the newsroom's callback API
    "doctor_no_callback": "{unset}; records stay in this server's database",
    "doctor_callback_no_secret": (
        "CALLBACK_API_URL is set but AGENT_SECRET is not: no record is delivered"
    ),
    "doctor_fix_callback_secret": (
        "set AGENT_SECRET to the secret the receiver expects (X-Agent-Secret)"
    ),
    "doctor_callback_ok": (
        "reachable, secret accepted (an empty test record was refused, as it should be: "
        "nothing was saved)"
    ),
    "doctor_callback_refused": "the secret was refused (HTTP {status})",
    "doctor_callback_host": "the receiver refuses this host name (HTTP {status})",
    "doctor_fix_callback_host": "add {host} to the receiver's VICARAN_ALLOWED_HOSTS",
    "doctor_callback_lenient": (
        "reachable, but it accepted an empty record (HTTP {status}): the receiver does not "
        "check records as the contract says (400)"
    ),
    "doctor_callback_busy": "{said}; records wait in the outbox until it takes them",
    "doctor_fix_callback_path": (
        "check CALLBACK_API_URL (now {url}): the receiver's own path, e.g. …/api/agent-callback"
    ),
    # the records database and ADK's sessions
    "doctor_database_ok": "open, schema up to date (revision {revision})",
    "doctor_database_sqlite_behind": (
        "open, schema at revision {revision}; Vicaran upgrades the file to {head} when it opens it"
    ),
    "doctor_database_schema": (
        "open, but the schema is at revision {revision} and this Vicaran needs {head}"
    ),
    "doctor_database_not_yet": "not created yet: the first run creates {path}",
    "doctor_database_cannot_make": "{path} cannot be created here",
    "doctor_database_not_file": "{path} is not a file",
    "doctor_database_memory": "in memory: nothing is kept after the process ends",
    "doctor_database_cannot_open": "cannot be opened ({error}: {detail})",
    "doctor_fix_database": (
        "check VICARAN_DATABASE_URL (now {url}): the server running, the user and password, "
        "a folder Vicaran can write"
    ),
    "doctor_fix_database_driver": (
        "check VICARAN_DATABASE_URL; PostgreSQL needs `uv sync --extra postgres` and a URL like "
        "postgresql+psycopg://user:password@host:5432/vicaran"
    ),
    "doctor_sessions_unusable": "cannot be used",
    "doctor_sessions_adk": "ADK's {scheme} store (not checked further)",
    "doctor_sessions_ok": "open",
    "doctor_fix_sessions": (
        "check VICARAN_SESSION_DB_URL (now {url}): the server running, the user and password"
    ),
    # the last line
    "doctor_summary_ok": "Everything the next run needs answers.",
    "doctor_summary_warn": (
        "{count} warning above; nothing blocks the next run.",
        "{count} warnings above; nothing blocks the next run.",
    ),
    "doctor_summary_fail": "To fix before the next run: {services}.",
}
