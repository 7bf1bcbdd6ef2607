"""What a run says as it goes, in English: progress lines, the report's wording, reference
following, stages and the terminal.

Each key's translations are in the catalogs (`locale/`), with the key as the context."""

from __future__ import annotations

from ._text import Text

MESSAGES: dict[str, Text] = {
    "reading_documents": (
        "📚 [PROGRESS] Reading your document (always read, whatever the source limit)...",
        "📚 [PROGRESS] Reading your {count} documents (always read, whatever the source limit)...",
    ),
    "analyzing_document": (
        "📄 **Reading document {i}/{n}:** {title} ({pages})\n- {stars} {label} | "
        '{collection}\n- 💡 Key finding: "{finding}"'
    ),
    "document_no_text": "no readable text",
    "document_unreadable": ("⚠️ **Document {i}/{n} could not be read:** {title}\n- {reason}"),
    "document_not_summarised": (
        "{title}: the document could not be summarised ({error}); its passages are used as they are"
    ),
    "documents_unavailable": "Your documents could not be read from the document store ({error})",
    "searching": '🔍 [PROGRESS] Searching for sources on: "{query}"',
    "search_failed": "⚠️ [PROGRESS] Web search problem: {reason}",
    "found": (
        "✅ [PROGRESS] Found {count} relevant source. Analyzing credibility...",
        "✅ [PROGRESS] Found {count} relevant sources. Analyzing credibility...",
    ),
    "analyzing_source": (
        "📄 **Analyzing source {i}/{n}:** {title}\n- {stars} {label} | {domain}\n- 💡 Key "
        'finding: "{finding}"'
    ),
    "source_unreadable": ("⚠️ **Source {i}/{n} could not be read:** {url}\n- {reason}"),
    "sources_done": (
        "📊 [PROGRESS] Source analysis complete: {usable} of the {total} found\n- {high} "
        "(⭐⭐⭐⭐⭐)\n- {medium} (⭐⭐⭐)\n- {low} (⭐⭐)\n\nAll sources saved to your dashboard."
    ),
    "n_sources": ("{count} source", "{count} sources"),
    "n_high": ("{count} high-credibility source", "{count} high-credibility sources"),
    "n_medium": ("{count} medium-credibility source", "{count} medium-credibility sources"),
    "n_low": ("{count} low-credibility source", "{count} low-credibility sources"),
    "source_off_topic": (
        "↪️ **Source {i}/{n} set aside (off-topic):** {title} | {domain}\n- {reason}"
    ),
    "sources_set_aside": (
        "↪️ {count} source set aside as off-topic (saved, not used for claims, bias or the "
        "timeline).",
        "↪️ {count} sources set aside as off-topic (saved, not used for claims, bias or the "
        "timeline).",
    ),
    "set_aside_note": "Set aside as off-topic{relevance}: {title} ({link}){why}",
    "relevance": " (relevance {pct}%)",
    "user_sources_unreadable": (
        "Your source could not be read: {urls}",
        "Your sources could not be read: {urls}",
    ),
    "source_crashed": "A source could not be processed: {error}",
    "search_plan_failed": "Search planning failed, searched the brief instead: {error}",
    "no_sources_issue": "No sources could be found or read.",
    "search_empty": "The web search returned no results.",
    "no_sources": (
        "[NO_SOURCES_FOUND] No sources could be found or read for this investigation. {reason}"
    ),
    "extracting": (
        "📋 [PROGRESS] Extracting claims from {count} source...",
        "📋 [PROGRESS] Extracting claims from {count} sources...",
    ),
    "claims_done": (
        "✅ [PROGRESS] Extracted {count} verifiable claim:",
        "✅ [PROGRESS] Extracted {count} verifiable claims. Top claims by importance:",
    ),
    "claims_failed_some": "Claim extraction failed for some sources: {error}",
    "claims_no_source": "No claims could be extracted because no source was read.",
    "claims_none_note": "The sources contain no checkable claims: {reason}",
    "brief_claims_failed": "The brief's own claims could not be extracted: {error}",
    "claims_saved": "All claims saved for verification.",
    "no_claims_no_sources": "[NO_CLAIMS_EXTRACTED] No sources available for claim extraction.",
    "no_claims": "[NO_CLAIMS_EXTRACTED] The sources contain no checkable claims. {reason}",
    "no_claims_default": (
        "They report opinions, reactions or general statements rather than facts that can be "
        "checked."
    ),
    "verifying": '🔍 [PROGRESS] Verifying claim {i}/{n}: "{claim}"',
    # names its claim: claims are checked concurrently, and their lines come as each finishes
    "verdict_line": (
        '{emoji} **{label}** — claim {i}/{n} ("{claim}"): {reason}\n- Confidence: {confidence}%'
    ),
    "claim_failed": "⚠️ Claim {i}/{n} could not be checked: {reason}",
    "timeline_order": (
        "The dates contradict a claim's order of events: “{claim}” puts “{earlier}” before "
        "“{later}”, which the sources date {earlier_date} and {later_date}."
    ),
    "timeline_disputed": (
        "The sources date one happening differently: {first} and {second} (“{text}”); check "
        "which is right before publishing either."
    ),
    # claim memory: the same claim checked by an earlier investigation of this store
    "memory_earlier": "🧠 Claim {i} was checked before: {earlier}",
    "memory_prior": (
        "{count} piece of evidence from the same claim's earlier check offered again, with its "
        "dates (its stance judged anew)",
        "{count} pieces of evidence from the same claim's earlier check offered again, with their "
        "dates (their stance judged anew)",
    ),
    "memory_note": "Claim {i} was checked before: {earlier}.",
    "memory_found_by": "the earlier check of {day}",
    "memory_check": "on {day} in «{title}»: {verdict}{review}",
    "memory_approved": ", approved by {reviewer}",
    "memory_changed": ", as changed by {reviewer}",
    "downgraded": "(Vicaran: downgraded from {verdict} - {reason}.)",
    # why the evidence rule allows a verdict or not (evidence.py)
    "rule_high": "high-reliability evidence ({publisher})",
    "rule_own_record": "the own record of the party quoted ({publisher})",
    "rule_neutral_agree": "{count} independent neutral sources agree",
    "rule_contradicted": (
        "neutral sources agree but an equal or more reliable source contradicts them"
    ),
    "rule_one_source": "only one independent neutral or low-reliability source on point",
    "rule_no_evidence": "no independent evidence on point",
    "rule_uncited": "the explanation cites no evidence that was found",
    "claim_unchecked": 'The claim "{claim}" could not be checked: {error}',
    "unchecked": "Could not be checked.",
    "claim_crashed": "A claim could not be checked: {error}",
    "gather_timeout": "{what} did not answer within {seconds} s",
    "gather_failed": "{what} failed: {error}",
    "kept_off_the_web": (
        "🔒 Checked against your documents only: this claim comes only from them, so it was not "
        "sent to web search or fact-check services (VICARAN_SEARCH_DOCUMENT_CLAIMS=true allows it)."
    ),
    "conflict": (
        "Note: high-reliability sources conflict: {supports} support the claim, {refutes} "
        "contradict it."
    ),
    "factcheck_skipped": "ℹ️ [PROGRESS] {note}",
    "factcheck_off": "Fact-check databases skipped: set FACTCHECK_API_KEY in .env to search them.",
    "no_claims_to_verify": "[NO_CLAIMS_TO_VERIFY] There are no claims to verify.",
    "facts_header": "**Fact-Checking Complete**",
    "confidence": "Confidence",
    "claim_sources": "Sources",
    "claim_said_by": "What {party} said or did",
    "claim_on_word_of": "On the word of {party}",
    "your_brief": "your brief",
    "bias_header": "📊 **Bias Analysis Complete**",
    "bias_overall": "**Overall Score: {score}/10** ({label} Bias)",
    "coverage": (
        "Coverage breakdown ({count} rated source):",
        "Coverage breakdown ({count} rated sources):",
    ),
    "coverage_unrated": (
        "• Not rated: {count} source (left out of the shares)",
        "• Not rated: {count} sources (left out of the shares)",
    ),
    "coverage_line": (
        "• {stance}: {count} source ({pct}%)",
        "• {stance}: {count} sources ({pct}%)",
    ),
    "bias_failed_some": "Bias analysis failed for some sources: {error}",
    "bias_none_issue": "Bias analysis rated none of the sources",
    "bias_unrated": (
        "{count} source could not be rated for bias",
        "{count} sources could not be rated for bias",
    ),
    "recommendation": "💡 Recommendation: {text}",
    "timeline_header": "**Timeline**\n\n| Date | Event |",
    "facts_done": "Fact-check results saved to your dashboard.",
    "bias_progress": "⚖️ [PROGRESS] Analyzing source coverage balance...",
    "bias_skipped": "[BIAS_SKIPPED] No sources to analyze for bias.",
    "bias_none_rated": (
        "[BIAS_SKIPPED] No source could be rated for bias, so there is no bias score."
    ),
    "bias_failed": "[BIAS_SKIPPED] Bias analysis failed: {reason}",
    "timeline_progress": "📅 [PROGRESS] Constructing timeline from sources...",
    "timeline_quick": "[TIMELINE_SKIPPED] Quick Search mode - timeline construction disabled.",
    "timeline_failed_some": "Timeline construction failed for some sources: {error}",
    "timeline_empty": "[TIMELINE_SKIPPED] No dated events were found in the sources.",
    "timeline_failed": "[TIMELINE_SKIPPED] Timeline construction failed: {reason}",
    "summary_progress": "📝 [PROGRESS] Writing the cited report...",
    "report_checking": (
        "🔎 [PROGRESS] Checking the report: {count} cited sentence against its sources, "
        "and its quality...",
        "🔎 [PROGRESS] Checking the report: {count} cited sentences against their sources, "
        "and its quality...",
    ),
    "report_rewriting": (
        "✍️ [PROGRESS] Rewriting the report once to fix {count} problem...",
        "✍️ [PROGRESS] Rewriting the report once to fix {count} problems...",
    ),
    "report_no_model": "The report was assembled without the model: {error}",
    "report_no_rewrite": "The report could not be rewritten to fix its problems: {error}",
    "audit_failed": "The citation audit could not check some sentences: {error}",
    "quality_failed": "The report's quality could not be scored: {error}",
    "sentence_removed": 'Removed from the report, not supported by the sources it cites: "{text}"',
    "sentence_removed_status": 'Removed from the report, it contradicts the recorded verdicts and evidence: "{text}"',
    "citations_removed": (
        "{count} citation pointing to no saved source was removed",
        "{count} citations pointing to no saved source were removed",
    ),
    "report_questions": "## Questions from the Plan",
    "question_open": "Open",
    "question_unaddressed": "Not addressed by this report.",
    "report_notes": "## Notes",
    "notes_more": "…and {count} more.",
    "sources_read": ("{count} source read", "{count} sources read"),
    "sources_cited": ("{count} cited below", "{count} cited below"),
    "sources_aside": (
        "{count} set aside as off-topic (see Notes)",
        "{count} set aside as off-topic (see Notes)",
    ),
    "snapshot": "snapshot",
    "dashboard_link": "Dashboard: <{url}>",  # a link in any Markdown
    "dashboard_link_unserved": (
        "Dashboard: <{url}> (open it with `make run` or `vicaran serve`: "
        "this process serves no dashboard)"
    ),
    "sources_all": "Every source that was read:",
    "quality_footer": (
        "*Checked by Vicaran: quality {overall}/100 (factual accuracy {factual_accuracy}, "
        "citations {citation_correctness}, plan coverage {plan_coverage}, structure {structure}, "
        "relevance {relevance}); {audited}, {unsupported} unsupported, {removed}; {rewrites}.*"
    ),
    "quality_footer_unscored": (
        "*Checked by Vicaran: no quality score (the check could not run); {audited}, "
        "{unsupported} unsupported, {removed}; {rewrites}.*"
    ),
    "audited": (
        "{count} cited sentence audited against its sources",
        "{count} cited sentences audited against their sources",
    ),
    "removed": ("{count} removed", "{count} removed"),
    "no_rewrite": "not rewritten",
    "one_rewrite": "rewritten once",
    "failed_no_sources": "No usable source was found or read, and no claim could be decided.",
    "failed_models": "Every model call failed ({count} of them); the last error: {error}",
    "failed_notice": "❌ **This investigation failed:** {reason}",
    "partial_notice": "⚠️ **This investigation is partial.** {reason}",
    # an interrupted run, as the newsroom's callback API receives it (INVESTIGATION_PARTIAL)
    "interrupted_reason": (
        "Interrupted: the process running this investigation stopped before it finished; "
        "run it again (same investigation id) to continue."
    ),
    "interrupted_summary": (
        "Interrupted before its report was written. Saved so far: sources {sources}, "
        "claims {claims}, fact-checks {checks}."
    ),
    "dashboard_timeline_skipped": (
        "Skipped in Quick Search: the timeline is built only in a Detailed Inquiry."
    ),
    "sources_heading": "## Sources",
    "report_title": "# Investigation Summary: {title}",
    "report_summary": "## Executive Summary",
    "report_findings": "## Key Findings",
    "report_bias": "## Bias Assessment",
    "report_timeline": "## Timeline",
    "report_recommendations": "## Recommendations",
    "failed": (
        "❌ The investigation stopped because of an unexpected error: {error}. Everything saved "
        "so far is kept; start a new investigation to try again."
    ),
    # `vicaran investigate` in the terminal
    "reading_url": "📄 Reading {url} ...",
    # reference following (seed 004): one line per followed reference, one per limit
    "ref_followed": "↪ {origin} cites “{text}” → {target} ({how}): {passages} (depth {depth})",
    "ref_searched": (
        "↪ {origin} cites “{text}” → search in the collection: {passages} (depth {depth})"
    ),
    "ref_page": "↪ {origin} cites {url} → page read: {title} (depth {depth})",
    "ref_page_failed": "↪ {origin} cites {url} → could not be read: {reason} (depth {depth})",
    "ref_url_listed": (
        "🔗 {origin} names {url}: listed, not opened (VICARAN_FOLLOW_DOCUMENT_URLS is off: "
        "opening it would tell its host that the document is being read)"
    ),
    "ref_failed": "⚠️ Following “{text}” failed: {error}",
    "ref_passages": ("{count} passage", "{count} passages"),
    "ref_how_exact": "exact {field} match",
    "ref_how_fuzzy": "similar {field}, {pct}%",
    "ref_how_substring": "partial {field} match",
    "ref_field_title": "title",
    "ref_field_file": "file name",
    "ref_field_synonym": "synonym",
    "ref_same_document": "same document",
    "ref_origin_model": "The fact-checker's reading",
    "ref_limit_depth": (
        "⏹ Depth limit ({limit}) reached: {count} reference not followed ({examples}).",
        "⏹ Depth limit ({limit}) reached: {count} references not followed ({examples}).",
    ),
    "ref_limit_visited": (
        "⏹ Already read, not followed again: {count} reference ({examples}).",
        "⏹ Already read, not followed again: {count} references ({examples}).",
    ),
    "ref_limit_budget": (
        "⏹ Reading budget for this claim spent ({limit} tokens): {count} reference not "
        "followed ({examples}).",
        "⏹ Reading budget for this claim spent ({limit} tokens): {count} references not "
        "followed ({examples}).",
    ),
    "ref_limit_convergence": (
        "⏹ {document} came back {times} times: stopped following references ({count} not "
        "followed: {examples}).",
        "⏹ {document} came back {times} times: stopped following references ({count} not "
        "followed: {examples}).",
    ),
    "ref_limit_candidates": (
        "⏹ {found} references found at depth {depth}: the first {limit} were considered."
    ),
    "ref_gate_failed": (
        "⚠️ Choosing which references to follow failed ({error}); only references that name a "
        "document exactly were followed."
    ),
    "step_planning": "Planning",
    "step_sources": "Finding and reading sources",
    "step_claims": "Extracting claims",
    "step_checks": "Checking claims",
    "step_report": "Writing the report",
    # a pipeline stage by name, and one that raised (it fails soft: the run goes on without it)
    "stage_source_finder": "source search",
    "stage_claim_extractor": "claim extraction",
    "stage_fact_checker": "fact-checking",
    "stage_bias_analyzer": "bias analysis",
    "stage_timeline_builder": "timeline",
    "stage_summary_writer": "report",
    "stage_crashed": "The {stage} stage ({name}) failed: {error}",
    "stage_crashed_line": (
        "⚠️ The {stage} stage failed ({error}); the investigation goes on without it."
    ),
    "status_completed": "Completed",
    "status_partial": "Partial",
    "status_failed": "Failed",
    "progress_sources": "sources read {read}/{total}",
    "progress_claims": "claims checked {done}/{total}",
    "cli_approve": "Approve this plan? Type APPROVED, or write what to change: ",
    "cli_answer": "Your answers, in one line (or skip to plan with what there is): ",
    "cli_needs_yes": (
        "The plan needs your approval: run again with --yes to approve it without being asked."
    ),
    "cli_not_started": "The investigation did not start.",
    "cli_report_written": "Report written to {path}",
    "cli_dashboard": "Open it in the dashboard (`make run` or `vicaran serve`):",
    "cli_dashboard_assumed": (
        "Open it in the dashboard, at the address `make run` and `vicaran serve` use by default "
        "(set VICARAN_PUBLIC_URL if yours runs elsewhere):"
    ),
    "serve_retired_public_url": (
        "VICARAN_PUBLIC_URL={retired} (the line .env.example used to ship) is taken as unset: "
        "links name {url}, where this server listens. Remove the line from .env, or set the "
        "address people use (http://localhost:8000 to keep that one)."
    ),
    "serve_every_interface": (
        "Listening on every interface: links name {url}, which works on this machine only; set "
        "VICARAN_PUBLIC_URL (and VICARAN_ALLOWED_HOSTS) to the address others use."
    ),
    "cli_details": "Some steps ran into problems: run again with --verbose to see the details.",
    "cli_error": (
        "Vicaran stopped because of an unexpected error ({error}): run again with --verbose "
        "for the details."
    ),
    "cli_interrupted": "Stopped: the investigation is marked interrupted.",
    "cli_waiting_one": "Waiting up to {seconds} s for the callback API to take 1 record...",
    "cli_waiting_many": "Waiting up to {seconds} s for the callback API to take {count} records...",
    "cli_left_one": "1 record still waits for the callback API: `vicaran outbox flush` sends it.",
    "cli_left_many": (
        "{count} records still wait for the callback API: `vicaran outbox flush` sends them."
    ),
    "cli_delivered": "Every record reached the callback API.",
    "db_empty": (
        "The records database has no tables yet: run `{command}` (with VICARAN_DATABASE_URL "
        "set) to create them."
    ),
    "db_outdated": (
        "The records database's schema is at revision {revision} and this Vicaran needs {head}: "
        "run `{command}` (with VICARAN_DATABASE_URL set)."
    ),
    "db_unknown": (
        "The records database is at revision {revision}, newer than this Vicaran knows "
        "(its latest is {head}): run the newer Vicaran that migrated it."
    ),
    "db_status": "Records database: revision {revision}; this Vicaran's schema: revision {head}.",
    "db_up_to_date": "The records database is up to date (revision {head}).",
    "db_upgraded": "The records database was upgraded from revision {revision} to {head}.",
}
