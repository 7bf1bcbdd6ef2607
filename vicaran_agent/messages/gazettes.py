"""The gazette search's reasoning log, in English.

Each key's translations are in the catalogs (`locale/`), with the key as the context."""

from __future__ import annotations

from ._text import Text

# The gazette search's reasoning log (gazettes/loop.py): strategies, rounds, scores, reads
MESSAGES: dict[str, Text] = {
    "gazette_place": "🏛 Official gazettes of {city} (IBGE {territory}), {period}",
    "gazette_place_unknown": (
        "🏛 {city} is not a Brazilian municipality Querido Diário knows: no gazette searched"
    ),
    "gazette_place_unresolved": "🏛 {note}: searching the gazettes of every city, {period}",
    "gazette_no_place": "🏛 The claim names no city: searching the gazettes of every city, {period}",
    "gazette_any_date": "any date",
    "gazette_every_city": "every city",
    "gazette_strategy_exact": "Exact search",
    "gazette_strategy_broad": "Broad search",
    "gazette_strategy_contextual": "Contextual search",
    "gazette_strategy_refined": "Refined search",
    "gazette_strategy_widened": "Widened search",
    "gazette_search": "🔎 {strategy}: {query}",
    "gazette_rounds": ("{count} round", "{count} rounds"),
    "gazette_searches": ("{count} search", "{count} searches"),
    "gazette_count": ("{count} gazette", "{count} gazettes"),
    "gazette_round": (
        "Round {round} ({searches}): {count} gazette found, best score {score} ({best})",
        "Round {round} ({searches}): {count} gazettes found, best score {score} ({best})",
    ),
    "gazette_round_empty": "Round {round} ({searches}): no gazette found",
    "gazette_sufficient_code": (
        "✓ Enough to read: the best excerpts name “{entity}” (score {score})"
    ),
    "gazette_sufficient_model": "✓ Enough to read: {reason}",
    "gazette_insufficient": "↻ Not enough yet: {reason}",
    "gazette_widened": "↻ Dates widened to {period}",
    "gazette_judge_failed": (
        "⚠️ Judging the excerpts failed ({error}); the search was widened in code"
    ),
    "gazette_no_new_searches": "⏹ No new search to try: reading the best gazettes found",
    "gazette_round_limit": (
        "⏹ {count} round, the limit: reading the best gazettes found",
        "⏹ {count} rounds, the limit: reading the best gazettes found",
    ),
    "gazette_search_failed": "⚠️ Gazette search failed: {error}",
    "gazette_read": (
        "📖 Read {title} (score {score}): {chars} characters, {count} passage selected",
        "📖 Read {title} (score {score}): {chars} characters, {count} passages selected",
    ),
    "gazette_read_failed": "⚠️ Could not read {title}: {reason}",
    "gazette_no_text": "Querido Diário gives no text for it",
    "gazette_text_unavailable": "its text could not be fetched",
    "gazette_quotes_dropped": (
        "⚠️ {count} quote not found in the gazette's text was dropped",
        "⚠️ {count} quotes not found in the gazettes' text were dropped",
    ),
    "gazette_reading_failed": "⚠️ Reading the gazette passages failed ({error})",
    "gazette_found": (
        "📌 {count} gazette act bears on the claim ({gazettes})",
        "📌 {count} gazette acts bear on the claim ({gazettes})",
    ),
    "gazette_found_unreadable": (
        "{count} gazette was found but could not be read (Querido Diário gave no text for it): "
        "{gazettes}. Read it on Querido Diário's site (search by city and date), or run the "
        "check again later. {rounds}, {searches} for {city}, {period}.",
        "{count} gazettes were found but could not be read (Querido Diário gave no text for "
        "them): {gazettes}. Read them on Querido Diário's site (search by city and date), or "
        "run the check again later. {rounds}, {searches} for {city}, {period}.",
    ),
    "gazette_none": (
        "No gazette found: {rounds}, {searches} in Querido Diário for {city}, {period}."
    ),
    "gazette_none_relevant": (
        "No gazette act bears on the claim: {gazettes} read after {rounds}, {searches} in "
        "Querido Diário for {city}, {period}."
    ),
}
