"""Session state keys. The names are part of the contract with the frontend and the tests."""

# Inputs and configuration.
USER_PROMPT = "user_prompt"
INVESTIGATION_ID = "investigation_id"
INVESTIGATION_MODE = "investigation_mode"
INVESTIGATION_CONFIG = "investigation_config"
USER_SOURCES = "user_sources"
INVESTIGATION_PLAN = "investigation_plan"
PLAN_OUTLINE = "plan_outline"  # the plan's topic and questions, cleaned and delimited
PLAN_APPROVED = "plan_approved"

# Orchestration (code-owned, never written by the model).
AWAITING_APPROVAL = "awaiting_approval"
INVESTIGATION_STATUS = "investigation_status"
PARTIAL_REASON = "partial_reason"
PIPELINE_STARTED = "pipeline_started"
INVESTIGATION_LANGUAGE = "investigation_language"
USER_SOURCES_DIGEST = "user_sources_digest"
# Clarifying questions: "asking" while the journalist's answer is awaited, "done" after it.
CLARIFY = "clarify"
# One key per journalist URL read at planning (parallel tool calls never write the same key).
USER_SOURCE_PREFIX = "vicaran_source:"
# The journalist's documents: attached files and the named collections, as last looked up
# (titles and pages, never text), and what the plan on screen showed of them.
INVESTIGATION_DOCUMENTS = "investigation_documents"
PLAN_DOCUMENTS = "plan_documents"
# The invocations whose attached files were dealt with: an earlier message with files that is
# not among them was cut off by a restart while its files were read (its state never saved).
ATTACHMENT_TURNS = "attachment_turns"

# Stage outputs: markdown shown to the journalist.
DISCOVERED_SOURCES = "discovered_sources"
EXTRACTED_CLAIMS = "extracted_claims"
FACT_CHECK_RESULTS = "fact_check_results"
BIAS_ANALYSIS = "bias_analysis"
TIMELINE_EVENTS = "timeline_events"
INVESTIGATION_SUMMARY = "investigation_summary"

# Structured records (lists of dicts validated by the models in schemas.py).
SOURCE_RECORDS = "source_records"
CLAIM_RECORDS = "claim_records"
VERDICT_RECORDS = "verdict_records"
BIAS_RECORD = "bias_record"
TIMELINE_RECORDS = "timeline_records"

# The report's check (quality scores and citation audit counts), saved with the summary.
REPORT_QUALITY = "report_quality"
# Model tokens and estimated cost of the run ({input, output, cached, cost_usd, per_stage}).
TOKEN_USAGE = "token_usage"
PLANNING_USAGE = "planning_usage"  # the planning turns' model use (usage.record_planning)

# Ids returned by the store.
SOURCE_ID_MAP = "source_id_map"
CLAIM_ID_MAP = "claim_id_map"

STAGE_OUTPUT_KEYS = (
    DISCOVERED_SOURCES,
    EXTRACTED_CLAIMS,
    FACT_CHECK_RESULTS,
    BIAS_ANALYSIS,
    TIMELINE_EVENTS,
    INVESTIGATION_SUMMARY,
)
