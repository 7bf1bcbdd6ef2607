"""What failed in a tool or a model call, and what to do, in English.

Each key's translations are in the catalogs (`locale/`), with the key as the context."""

from __future__ import annotations

from ._text import Text

# --- what failed in a tool or a model call, and what to do -------------------------------------
# Tools and the model client return these as `Phrase`s: English for the model and the logs,
# said again in the journalist's language wherever a stage shows them (`localized`).
MESSAGES: dict[str, Text] = {
    "model_key_rejected": (
        "The Gemini API rejected the credentials: set a valid GOOGLE_API_KEY in your .env "
        "file (or fix the Vertex AI settings) and restart."
    ),
    "model_missing": (
        "The model '{model}' does not exist for this account: set VICARAN_FAST_MODEL / "
        "VICARAN_PRO_MODEL to an available model."
    ),
    "model_rate_limited": "The model provider is rate limiting Vicaran (429); try again shortly.",
    "model_provider_error": "The model provider had an error ({code}).",
    "model_failed_code": "The model call failed ({code}): {detail}",
    "model_timeout": "The model did not answer in time.",
    "model_unreachable": "Could not reach the model provider ({error}).",
    "model_unknown": (
        "The model '{model}' is not known to Vicaran: check VICARAN_FAST_MODEL / "
        "VICARAN_PRO_MODEL (provider models like ollama_chat/... need `pip install -e .[local]`)."
    ),
    "model_no_key": "The model client is missing its API key: set GOOGLE_API_KEY.",
    "model_failed": "The model call failed: {error}: {detail}",
    "model_bad_format": "The model's answer did not match the expected format ({error}).",
    "model_call_limit": (
        "ADK's limit on model calls per turn was reached (RunConfig.max_llm_calls, 500 unless "
        "ADK_MAX_LLM_CALLS says otherwise): raise it for large investigations."
    ),
    "token_budget_spent": (
        "The token budget of this investigation ({budget:,} tokens, VICARAN_TOKEN_BUDGET) is "
        "spent: no more evidence was gathered, and the report was written from what was found."
    ),
    "tokens_line": "{input:,} tokens in · {output:,} out{cached} · ≈ US$ {cost:.4f}{unpriced}",
    "tokens_cached": " ({cached:,} cached)",
    "tokens_unpriced": (
        " (no price set for {count} model: VICARAN_MODEL_PRICES)",
        " (no price set for {count} models: VICARAN_MODEL_PRICES)",
    ),
    "report_tokens": "Model use: {line}",
    "model_cut_off": (
        "The model's answer was cut off at its output limit ({cap} tokens) twice; raise "
        "VICARAN_MAX_OUTPUT_TOKENS or use a stronger model."
    ),
    "model_cut_off_thinking": (
        "The model spent its output limit ({cap} tokens) thinking and never finished its "
        "answer, even when given more room; raise VICARAN_MAX_OUTPUT_TOKENS or use another "
        "model."
    ),
    "gemini_no_key": (
        "Vicaran needs a Gemini API key: set GOOGLE_API_KEY in your .env file (get one at "
        "https://aistudio.google.com/apikey) and restart, or use Vertex AI with "
        "GOOGLE_GENAI_USE_ENTERPRISE=1, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION."
    ),
    # why a page could not be read, for a journalist (the technical detail is kept apart)
    "unread_no_site": "the site could not be found (its address does not exist)",
    "unread_no_connection": "the site could not be reached",
    "unread_refused": "the site refused automated reading",
    "unread_missing": "the page no longer exists at this address",
    "unread_server_error": "the site had a server error",
    "unread_slow": "the site took too long to answer",
    "unread_not_a_page": "it is not a web page Vicaran reads (a file, or too large)",
    "unread_empty": "the page has no readable text",
    "unread_private": "it is a private or local address, which Vicaran never opens",
    "unread_redirects": "the page redirects without end",
    "unread_damaged": "the page is damaged (or built to stall a reader)",
    "unread_other": "it could not be read",
    "keys_missing": (
        "Not set: {keys}. Put them in .env (see .env.example) and restart; `vicaran doctor` "
        "checks each one."
    ),
    "key_missing_google": "GOOGLE_API_KEY (no model: nothing can be planned or investigated)",
    "key_missing_tavily": (
        "TAVILY_API_KEY (no web search: only the journalist's links and documents, and the "
        "model's own Google Search where it has one)"
    ),
    "key_missing_factcheck": "FACTCHECK_API_KEY (no published fact-checks looked up)",
    "gemini_vertex_incomplete": (
        "Vicaran is set to use Vertex AI but GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION "
        "are not both set: add them to your .env file and restart."
    ),
    # a retried failure: what happened, then what to do
    "failure_advice": "{what}: {advice}",
    "failure_retried": (
        "{what} (still failing after {count} retry): {advice}",
        "{what} (still failing after {count} retries): {advice}",
    ),
    "advice_try_later": "try again later",
    "advice_timeout": "try again later or raise VICARAN_SEARCH_TIMEOUT_SECONDS",
    "search_timed_out": "{service} search timed out after {seconds} s",
    "server_error": "{service} server error (HTTP {status})",
    "unreachable": "Could not reach {service} at {url} ({error})",
    "advice_network": "check the network connection or {setting}",
    "not_json": "{service} search failed: the answer was not a JSON object",
    "answer_too_large": (
        "{service} sent an answer larger than {limit} bytes, more than Vicaran reads of one "
        "answer: it was set aside unread; check {setting} ({url})"
    ),
    "answered_http": "{service} answered HTTP {status}: check {setting} ({url})",
    # Tavily (web search)
    "search_key_missing": (
        "Web search is off: set TAVILY_API_KEY in .env (get a key at https://app.tavily.com)"
    ),
    "tavily_rate_limited": "Tavily rate limit hit (429)",
    "advice_rate_limited": "wait a minute, or lower VICARAN_CONCURRENCY",
    "tavily_key_rejected": (
        "Tavily rejected the API key (401): set a valid TAVILY_API_KEY in .env "
        "(keys at https://app.tavily.com)"
    ),
    "tavily_bad_query": (
        'Tavily rejected the search "{query}" (400: {detail}): rephrase the query or check the '
        "search options"
    ),
    "tavily_unexpected": "Tavily search failed unexpectedly ({error}: {detail}): try again later",
    "tavily_credits": (
        "Tavily credit limit of your plan reached (432): upgrade the plan or wait for the "
        "monthly reset at https://app.tavily.com"
    ),
    "tavily_payg": (
        "Tavily pay-as-you-go limit reached (433): raise the limit at https://app.tavily.com"
    ),
    "tavily_forbidden": (
        "Tavily refused the request (403 forbidden: {detail}): check that your TAVILY_API_KEY "
        "and plan allow it at https://app.tavily.com"
    ),
    # Google Fact Check Tools
    "factcheck_key_missing": (
        "Fact-check databases skipped: set FACTCHECK_API_KEY in .env to search Google Fact "
        "Check Tools"
    ),
    "factcheck_key_invalid": (
        "Fact Check Tools rejected the API key (400): set a valid FACTCHECK_API_KEY in .env "
        "(keys at {url})"
    ),
    "factcheck_unexpected": (
        "Fact Check Tools search failed unexpectedly ({error}): check FACTCHECK_BASE_URL, or "
        "try again later"
    ),
    "factcheck_not_json": (
        "Fact Check Tools answered with something other than JSON: check FACTCHECK_BASE_URL ({url})"
    ),
    "factcheck_rate_limited": "Fact Check Tools quota or rate limit hit (429)",
    "advice_factcheck_quota": (
        "wait a minute, lower VICARAN_CONCURRENCY, or check the API quota of the "
        "FACTCHECK_API_KEY project in the Google Cloud console"
    ),
    "factcheck_disabled": (
        "Fact Check Tools API is disabled for the Google Cloud project of FACTCHECK_API_KEY "
        "({status}): enable it at {url}, wait a few minutes and try again"
    ),
    "factcheck_key_restricted": (
        "Fact Check Tools refused the API key ({status} {reason}): allow the Fact Check Tools "
        "API in the key's restrictions, or set another FACTCHECK_API_KEY in .env ({url})"
    ),
    "factcheck_no_key_sent": (
        "Fact Check Tools did not receive the API key ({status}): set a valid FACTCHECK_API_KEY "
        "in .env"
    ),
    "factcheck_bad_query": 'Fact Check Tools rejected the search "{query}" ({detail}): rephrase the query',
    "factcheck_refused": (
        "Fact Check Tools refused the request ({detail}): check FACTCHECK_API_KEY and that the "
        "Fact Check Tools API is enabled for its project ({url})"
    ),
    # Querido Diário (official gazettes): the client
    "gazettes_rejected": 'Querido Diário rejected the search "{query}" ({detail})',
    "gazettes_bad_date": 'Gazette search not sent: {name} must be a date as YYYY-MM-DD, not "{value}"',
    "gazettes_dates_reversed": (
        "Gazette search not sent: the period starts ({since}) after it ends ({until})"
    ),
    "gazettes_rate_limited": "Querido Diário rate limit hit (429)",
    "advice_gazettes_rate": "wait a minute, or lower VICARAN_QUERIDO_DIARIO_RPM",
    "gazettes_rate_wait": (
        "Querido Diário rate limit hit (429): it asks Vicaran to wait {seconds} s, longer than a "
        "request may take ({longest} s, VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS): try again later"
    ),
    "advice_gazettes_timeout": (
        "a term's first search can take 20-36 s: try again (a repeat is faster) or raise "
        "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS"
    ),
    "gazettes_redirect_loop": (
        "Querido Diário's address redirects in a loop ({url}): check QUERIDO_DIARIO_BASE_URL"
    ),
    "gazettes_redirects": (
        "Querido Diário's address redirected more than {count} times: check "
        "QUERIDO_DIARIO_BASE_URL ({url})"
    ),
    "gazettes_refused": "Querido Diário request not sent ({reason}): check QUERIDO_DIARIO_BASE_URL",
    "gazettes_not_json": (
        "Querido Diário answered with something other than JSON: check QUERIDO_DIARIO_BASE_URL "
        "({url})"
    ),
    "gazettes_unexpected": (
        "Querido Diário search failed unexpectedly ({error}): check QUERIDO_DIARIO_BASE_URL, or "
        "try again later"
    ),
    "city_resolved": "{name} ({state}) is territory {territory_id}",
    "city_homonyms": (
        "{count} city is named {name} ({states}): searching without a city filter",
        "{count} cities are named {name} ({states}): searching without a city filter",
    ),
    "city_not_in_state": (
        "No city named {name} in {state} (only in {states}): searching without a city filter"
    ),
    "city_unknown": "Querido Diário knows no city named {name}: searching without a city filter",
    "city_unknown_close": (
        "Querido Diário knows no city named {name} (close names: {names}): searching without a "
        "city filter"
    ),
    "cities_failed": (
        "Could not look up {name} in Querido Diário's city list ({what}): searching without a "
        "city filter"
    ),
    "gazette_unreadable": "Could not read the gazette text at {url}: {reason}",
    "gazette_text_not_web": "not a web address (an http or https URL is needed)",
    "gazette_text_timeout": "timed out after {seconds} s",
    "gazette_text_status": "the file host answered HTTP {status}",
    "gazette_text_not_text": "not a text file ({media})",
    "gazette_text_binary": "binary content, not a text",
    "gazette_text_unreachable": "connection failed ({error})",
    "gazette_text_redirects": "too many redirects (more than {count})",
    # `vicaran gazettes search`
    "gazettes_cli_city": "City: {name} ({state}), territory {territory_id}.",
    "gazettes_cli_pick": "Give --state to choose one: {cities}.",
    "gazettes_cli_not_in_state": "No city named {name} in {state} (only in {states}).",
    "gazettes_cli_unknown_city": "Querido Diário knows no city named {name}.",
    "gazettes_cli_close": "Close names: {cities}.",
    "gazettes_cli_none": "No gazette matches.",
    "gazettes_cli_total": ("{count} gazette matches.", "{count} gazettes match."),
    "gazettes_cli_showing": ("Showing the first one.", "Showing the first {count}."),
    "gazettes_cli_score": "score {score}",
    "gazettes_cli_edition": "edition {edition}",
    "gazettes_cli_extra": "extra edition {edition}",
    "gazettes_cli_no_text": "no text extracted",
    "gazettes_cli_reversed": "The period ends ({until}) before it starts ({since}).",
    "gazettes_cli_no_query": "Give a query: what should the gazettes say?",
    # live Google Search through the model
    "live_problem": "Live Google Search: {problem}",
    "live_unexpected": "Live Google Search: unexpected error ({error}).",
    "live_no_answer": "Live Google Search: the model returned no answer ({detail}).",
    "live_uncited": "Live Google Search: the model answered without citing any web sources.",
    "live_dropped": "Live Google Search: dropped the source '{name}' ({reason}).",
    "live_unread": (
        "Live Google Search: the source '{name}' ({url}) is cited as Google found it, not read "
        "by Vicaran ({reason})."
    ),
    # reading and digesting a page
    "page_unreadable": "{url} could not be read: {reason}",
    "page_not_summarised": "{url} was read but not summarised: {error}",
    "page_too_slow": "reading and summarising took longer than {seconds} s",
}
