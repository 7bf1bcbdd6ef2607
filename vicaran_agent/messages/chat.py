"""What Vicaran says in the chat before a run: the brief, questions, the plan and attachments,
in English.

Each key's translations are in the catalogs (`locale/`), with the key as the context."""

from __future__ import annotations

from ._text import Text

MESSAGES: dict[str, Text] = {
    # key: English (a message that counts: (one, other))
    "started": (
        "[INVESTIGATION_STARTED]\n\nStarting the investigation. You'll see progress updates "
        "below as I work through each stage."
    ),
    "empty_brief": (
        "Tell me what you want to investigate: a short paragraph with the topic, the people or "
        "institutions involved and, if you have them, links to the coverage."
    ),
    "reply_too_long": (
        "The model's reply ran past its length limit ({limit} tokens) before it finished. "
        "Send your message again; if it keeps happening, choose a stronger model in "
        "VICARAN_FAST_MODEL."
    ),
    "id_taken": (
        "Investigation ID {id} already belongs to another conversation (status: {status}), so "
        "this one cannot use it. Start again without an Investigation ID line to get a new id, "
        "or give a different one."
    ),
    "gate_refused": (
        "I can't start yet: the plan has not been approved. Reply APPROVED to start, or tell me "
        "what to change."
    ),
    "already_done": (
        "This investigation has already run (status: {status}); its report and records are at "
        "{url}. To investigate something new, start a new session (in the dev UI: + New "
        "Session) and send the brief there."
    ),
    "different_topic": (
        "It sounds like you want to investigate a different topic. This session's investigation "
        "is about “{title}”, and one investigation is one topic: to start a new investigation for "
        "that, open a new session (in the dev UI: + New Session) and send the brief there. To go on "
        "with this one, tell me what to change in its plan."
    ),
    "clarify_intro": (
        "Before I plan, a few questions so the investigation looks for the right thing:"
    ),
    "clarify_outro": 'Answer in one message, or reply "skip" and I will plan with what I have.',
    "clarify_who": "Who exactly is this about: the person's name, role and organisation?",
    "clarify_which": (
        "Which {name} do you mean, and where (the full name, the city or the country)?"
    ),
    "clarify_where": "Where did it happen (city, state or country)?",
    "clarify_when": "What period should I cover (a year, a month, or since when)?",
    "plan_heading": "## 📋 Investigation Plan",
    "plan_intro_none": "Based on your brief, here's my investigation plan:",
    "plan_intro": (
        "Based on your brief and the source you provided, here's my investigation plan:",
        "Based on your brief and the {count} sources you provided, here's my investigation plan:",
    ),
    "plan_topic": "**Investigation Topic:** {topic}",
    "plan_questions": "**What I'll Investigate:**",
    "plan_gather": "**Sources I'll Gather:**",
    "plan_yours": "**Your sources analyzed:**",
    "plan_not_used": "**Not used in this investigation:**",
    "plan_mode": "**Mode:** {mode}",
    "plan_time": "**Estimated Time:** {time}",
    "mode_quick": "Quick Search",
    "mode_detailed": "Detailed Inquiry",
    # seed 001's estimates: no live run has measured Vicaran's own (`make bench` times the
    # scripted model, not a real one), so the plan promises no less than the seed did
    "time_quick": "about 10 minutes",
    "time_detailed": "15–20 minutes",
    "plan_default_questions": (
        "What happened, who was involved and when\nWhat official records and documents show\n"
        "What the people and institutions involved say"
    ),
    "plan_default_gather": (
        "Official records and statements\nLocal, national and wire coverage\nPublished fact-checks"
    ),
    "plan_gazettes": (
        "Official gazettes (Querido Diário): searched for every claim about an act of a Brazilian "
        "municipality (contracts, tenders, appointments, decrees), for the city and period it names."
    ),
    "plan_unreadable": "⚠️ {url}: could not be read ({reason}); I will look for other coverage.",
    "plan_unsupported": "{url}: not a web address (only http and https pages can be read)",
    "plan_over_limit": (
        "{url}: over the limit of {limit} links per message (VICARAN_MAX_USER_URLS); "
        "send it in a separate message to include it"
    ),
    "plan_no_search": (
        "Web search: off (no TAVILY_API_KEY in .env). This run will use {instead} instead."
    ),
    "plan_no_search_nothing": (
        "Web search: off (no TAVILY_API_KEY in .env), and no other evidence is available: every "
        "claim would stay unverified. Add links to your brief or set the key."
    ),
    "plan_no_search_yours": "your sources",
    "plan_no_search_live": "Google Search through the model to check claims",
    "plan_no_search_factcheck": "published fact-checks (Google Fact Check Tools)",
    "plan_and": " and ",
    "plan_model_problem": "The report and fact-checking model ({model}): {problem}",
    # --- the journalist's documents: attachments, collections, the plan's documents section
    "plan_documents": "**Your documents:**",
    "plan_document": "📄 {title} ({file}) - {pages}, {lang_name}",
    "n_pages": ("{count} page", "{count} pages"),
    "plan_document_unreadable": (
        "{count} page could not be read: {reasons}",
        "{count} pages could not be read: {reasons}",
    ),
    "plan_document_urls": (
        "addresses written in it, listed, not opened (VICARAN_FOLLOW_DOCUMENT_URLS is off): {urls}"
    ),
    "plan_document_urls_followed": (
        "addresses written in it, which Vicaran may open when a claim leads there: {urls}"
    ),
    "plan_documents_more": (
        '… and {count} more document in the collection "{collection}"',
        '… and {count} more documents in the collection "{collection}"',
    ),
    "plan_documents_look_for": "**In your documents I'll look for:**",
    "plan_documents_questions": "Answers to the questions above",
    "plan_documents_how": (
        "Each document is read as one of your sources (its passages closest to your brief), and "
        "every claim is checked against the passages of your documents, cited by page. Their "
        "text goes only to the configured model, never to a search or reading service."
    ),
    "language_en": "English",
    "language_pt": "Portuguese",
    "plan_language_note": (
        "🌐 Your brief is in {name}. Vicaran writes its plans and reports in English or "
        "Brazilian Portuguese, so this plan and the report are in English; published "
        "fact-checks are searched in {name}."
    ),
    "report_language_note": (
        "🌐 This report is in English: Vicaran writes reports in English or Brazilian "
        "Portuguese, and the brief is in {name}."
    ),
    "plan_collection_missing": (
        'Collection "{name}": not found among the collections this conversation can use (shared '
        "ones, and the files you attached). Create it with `vicaran docs add PATH --collection "
        "{name}`, then name it again in your brief."
    ),
    "plan_again_for_files": (
        "📎 You attached {count} file with your approval: here is the plan with it. Reply "
        "APPROVED to start.",
        "📎 You attached {count} files with your approval: here is the plan with them. Reply "
        "APPROVED to start.",
    ),
    "plan_collection_close": (
        'Collection "{name}": not found among the collections this conversation can use. Did '
        'you mean "{close}"? Then write `Collection: {close}` in your brief.'
    ),
    "plan_attachment_unreadable": (
        "📎 {file}: could not be read ({reason}); it is not part of this investigation."
    ),
    "plan_documents_problem": (
        "Your documents: the document store could not be read ({error}); this run would go "
        "without them."
    ),
    "plan_no_search_documents": (
        "Web search: off (no TAVILY_API_KEY in .env). This investigation runs only on your "
        "documents and the links you gave{also}."
    ),
    "plan_no_search_documents_also": "; claims are also checked with {instead}",
    "attachments_need_brief": (
        "I've added {files} to this investigation's documents. Now tell me what to investigate: "
        "who, what, where and when."
    ),
    "attachments_none_read": (
        "None of the files could be read:\n\n{lines}\n\nSend your brief, with files Vicaran "
        "reads (PDF, DOCX, HTML, Markdown or text, or pages as PNG, JPEG or TIFF images)."
    ),
    "attachments_cut_off": (
        "{files} was not indexed: Vicaran was restarted while it was reading it, so this "
        "investigation does not have it. Please attach it again.",
        "{files} were not indexed: Vicaran was restarted while it was reading them, so this "
        "investigation does not have them. Please attach them again.",
    ),
    "attachments_cut_off_brief": (
        "The message that carried them was not read either: send your brief again, with the "
        "files attached to it."
    ),
    "attachment_cut_off_reason": (
        "not indexed: the server restarted while it was reading it; attach it again"
    ),
    "attachments_not_added": (
        "{files} was not added: this session's investigation has already started, and its "
        "documents were fixed when you approved the plan. To use it, start a new session and "
        "attach it with your brief, or add it to a collection (`vicaran docs add PATH "
        "--collection NAME`) and name it in a new brief with `Collection: NAME`.",
        "{files} were not added: this session's investigation has already started, and its "
        "documents were fixed when you approved the plan. To use them, start a new session "
        "and attach them with your brief, or add them to a collection (`vicaran docs add "
        "PATH --collection NAME`) and name it in a new brief with `Collection: NAME`.",
    ),
}
