"""The journalist's language: detection and the fixed messages Vicaran writes itself.

Two languages are kept apart. The *text's* language is whatever language a brief or document is
written in (an ISO 639-1 code such as "es", told by `text_language`); it decides which
fact-checks and outlets are searched. The *report* language is the one Vicaran writes in:
Brazilian Portuguese for a Portuguese text, English for any other (`report_language`).

Markers (`[PROGRESS]`, `[NO_SOURCES_FOUND]`, …) stay as specified in every language.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

ENGLISH = "en"
PORTUGUESE = "pt-BR"

_NAMES = {ENGLISH: "English", PORTUGUESE: "Brazilian Portuguese"}

# The languages a text may be told to be in: those of the fact-checkers Google Fact Check Tools
# indexes (IFCN signatories and other ClaimReview publishers, Americas to Asia and Africa).
# Left out, so that a short brief is not taken for them: languages close to a bigger one that
# briefs are hardly written in (Galician, Occitan, Asturian…); Catalan, which short Portuguese
# and Spanish briefs full of English names are mistaken for (a Catalan brief comes out Spanish,
# the language its fact-checkers also publish in); and Malay, which short Indonesian texts (far
# more often fact-checked) are mistaken for.
_TEXT_LANGUAGE_CODES = (
    "af am ar as az be bg bn bs cs da de el en es et eu fa fi fr gu ha he hi hr hu hy id ig "
    "it ja ka kk km kn ko ky lg lt lv mk ml mn mr my ne nl no or pa pl ps pt ro ru rw si sk "
    "sl so sq sr sv sw ta te th tl tr uk ur uz vi yo zh zu"
)
TEXT_LANGUAGES = frozenset(_TEXT_LANGUAGE_CODES.split())
# Languages that are no brief's, kept in the model so that text written in none wins them and is
# set aside: Latin (lorem ipsum) and "zxx" (no linguistic content: numbers, codes).
_NOT_A_BRIEF = frozenset({"la", "zxx"})
# Below this, the model doubts its own guess (short texts, names of elsewhere): no language.
MIN_CONFIDENCE = 0.55

_load_lock = threading.Lock()


def _identifier() -> LanguageIdentifier:
    """py3langid's bundled model, limited to TEXT_LANGUAGES (loaded once: about a second)."""
    with _load_lock:  # threads asking at once wait for one load
        return _load_identifier()


@lru_cache(maxsize=1)
def _load_identifier() -> LanguageIdentifier:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(sorted((TEXT_LANGUAGES | _NOT_A_BRIEF) & set(identifier.labels)))
    return identifier


def _prose(text: str) -> str:
    """`text` without its web addresses and e-mails (their words are no one's language)."""
    return " ".join(
        w
        for w in text.split()
        if "://" not in w and not w.lower().startswith("www.") and "@" not in w
    )


def text_language(text: str) -> str:
    """The language `text` is written in, as an ISO 639-1 code ("pt", "es", "de", …), or ""
    when it cannot be told: no words (a link, numbers), no one's language (lorem ipsum), or a
    guess the model doubts (below MIN_CONFIDENCE)."""
    code, confidence = _identifier().classify(_prose(text))
    return code if code in TEXT_LANGUAGES and confidence >= MIN_CONFIDENCE else ""


def report_language(code: str) -> str:
    """The language Vicaran writes in for a text in `code`: Brazilian Portuguese for
    Portuguese, English for every other language and for an unknown one."""
    return PORTUGUESE if is_portuguese(code) else ENGLISH


def language_tag(code: str) -> str:
    """How a text's language is recorded (a document's): "pt-BR" for Portuguese, as Vicaran's
    Portuguese is Brazilian; the code itself for any other; English when it could not be told."""
    return PORTUGUESE if is_portuguese(code) else (code or ENGLISH)


def detect_language(text: str) -> str:
    """The language to answer `text` in: Brazilian Portuguese or English (see report_language)."""
    return report_language(text_language(text))


def written_in_another_language(code: str) -> bool:
    """True when a text in `code` gets its plan and report in English although it is neither
    English nor Portuguese (the journalist is told so)."""
    return bool(code) and report_language(code) == ENGLISH and not code.lower().startswith("en")


def language_name(code: str) -> str:
    """The name of the report language, for prompts ("English", "Brazilian Portuguese")."""
    return _NAMES.get(code, "English")


def text_language_name(code: str, language: str = ENGLISH) -> str:
    """The name of any language `code`, said in `language` ("es" → "Spanish" / "espanhol")."""
    from babel import Locale, UnknownLocaleError

    try:
        names = Locale.parse("pt_BR" if is_portuguese(language) else "en").languages
    except (UnknownLocaleError, ValueError):
        return code
    return names.get(code.split("-")[0].lower(), code)


def is_portuguese(code: str) -> bool:
    return code.lower().startswith("pt")


def system_language() -> str:
    """The language of the terminal (LC_ALL, LC_MESSAGES, LANG): Portuguese or English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return PORTUGUESE if value.lower().startswith("pt") else ENGLISH
    return ENGLISH


# A message, or (one, other): the forms of a counted message, chosen by its `count` value.
_Text = str | tuple[str, str]

_MESSAGES: dict[str, tuple[_Text, _Text]] = {
    # key: (English, Brazilian Portuguese)
    "started": (
        "[INVESTIGATION_STARTED]\n\nStarting the investigation. You'll see progress updates "
        "below as I work through each stage.",
        "[INVESTIGATION_STARTED]\n\nIniciando a investigação. Você verá o progresso abaixo a "
        "cada etapa.",
    ),
    "empty_brief": (
        "Tell me what you want to investigate: a short paragraph with the topic, the people or "
        "institutions involved and, if you have them, links to the coverage.",
        "Diga o que você quer investigar: um parágrafo com o assunto, as pessoas ou instituições "
        "envolvidas e, se tiver, os links das reportagens.",
    ),
    "reply_too_long": (
        "The model's reply ran past its length limit ({limit} tokens) before it finished. "
        "Send your message again; if it keeps happening, choose a stronger model in "
        "VICARAN_FAST_MODEL.",
        "A resposta do modelo passou do limite de tamanho ({limit} tokens) antes de terminar. "
        "Envie a mensagem de novo; se continuar, escolha um modelo mais capaz em "
        "VICARAN_FAST_MODEL.",
    ),
    "id_taken": (
        "Investigation ID {id} already belongs to another conversation (status: {status}), so "
        "this one cannot use it. Start again without an Investigation ID line to get a new id, "
        "or give a different one.",
        "O Investigation ID {id} já pertence a outra conversa (status: {status}); esta não pode "
        "usá-lo. Comece de novo sem a linha Investigation ID para receber um novo id, ou informe "
        "outro.",
    ),
    "gate_refused": (
        "I can't start yet: the plan has not been approved. Reply APPROVED to start, or tell me "
        "what to change.",
        "Ainda não posso começar: o plano não foi aprovado. Responda APROVADO para começar ou "
        "diga o que mudar.",
    ),
    "already_done": (
        "This investigation has already run (status: {status}); its report and records are at "
        "{url}. To investigate something new, start a new session (in the dev UI: + New "
        "Session) and send the brief there.",
        "Esta investigação já foi executada (status: {status}); o relatório e os registros "
        "estão em {url}. Para investigar outro assunto, abra uma nova sessão (na interface: "
        "+ New Session) e envie o briefing lá.",
    ),
    "different_topic": (
        "It sounds like you want to investigate a different topic. This session's investigation "
        "is about “{title}”, and one investigation is one topic: to start a new investigation for "
        "that, open a new session (in the dev UI: + New Session) and send the brief there. To go on "
        "with this one, tell me what to change in its plan.",
        "Parece que você quer investigar outro assunto. A investigação desta sessão trata de "
        "“{title}”, e uma investigação é um assunto só: para começar uma nova investigação sobre "
        "isso, abra uma nova sessão (na interface: + New Session) e envie o briefing lá. Para seguir com esta, diga o "
        "que mudar no plano dela.",
    ),
    "clarify_intro": (
        "Before I plan, a few questions so the investigation looks for the right thing:",
        "Antes de planejar, algumas perguntas para a investigação buscar a coisa certa:",
    ),
    "clarify_outro": (
        'Answer in one message, or reply "skip" and I will plan with what I have.',
        'Responda em uma mensagem, ou diga "pular" e eu planejo com o que tenho.',
    ),
    "clarify_who": (
        "Who exactly is this about: the person's name, role and organisation?",
        "De quem exatamente se trata: nome, cargo e órgão ou empresa?",
    ),
    "clarify_which": (
        "Which {name} do you mean, and where (the full name, the city or the country)?",
        "Qual {name} exatamente, e onde (o nome completo, a cidade ou o país)?",
    ),
    "clarify_where": (
        "Where did it happen (city, state or country)?",
        "Onde aconteceu (cidade, estado ou país)?",
    ),
    "clarify_when": (
        "What period should I cover (a year, a month, or since when)?",
        "Que período devo cobrir (um ano, um mês ou desde quando)?",
    ),
    "plan_heading": ("## 📋 Investigation Plan", "## 📋 Plano de Investigação"),
    "plan_intro_none": (
        "Based on your brief, here's my investigation plan:",
        "Com base no seu briefing, este é o meu plano de investigação:",
    ),
    "plan_intro": (
        (
            "Based on your brief and the source you provided, here's my investigation plan:",
            "Based on your brief and the {count} sources you provided, here's my investigation "
            "plan:",
        ),
        (
            "Com base no seu briefing e na fonte que você enviou, este é o meu plano de "
            "investigação:",
            "Com base no seu briefing e nas {count} fontes que você enviou, este é o meu plano "
            "de investigação:",
        ),
    ),
    "plan_topic": ("**Investigation Topic:** {topic}", "**Tema da Investigação:** {topic}"),
    "plan_questions": ("**What I'll Investigate:**", "**O que vou investigar:**"),
    "plan_gather": ("**Sources I'll Gather:**", "**Fontes que vou reunir:**"),
    "plan_yours": ("**Your sources analyzed:**", "**Suas fontes analisadas:**"),
    "plan_not_used": (
        "**Not used in this investigation:**",
        "**Não será usado nesta investigação:**",
    ),
    "plan_mode": ("**Mode:** {mode}", "**Modo:** {mode}"),
    "plan_time": ("**Estimated Time:** {time}", "**Tempo estimado:** {time}"),
    "mode_quick": ("Quick Search", "Busca Rápida"),
    "mode_detailed": ("Detailed Inquiry", "Investigação Detalhada"),
    # seed 001's estimates: no live run has measured Vicaran's own (`make bench` times the
    # scripted model, not a real one), so the plan promises no less than the seed did
    "time_quick": ("about 10 minutes", "cerca de 10 minutos"),
    "time_detailed": ("15–20 minutes", "15 a 20 minutos"),
    "plan_default_questions": (
        "What happened, who was involved and when\nWhat official records and documents show\n"
        "What the people and institutions involved say",
        "O que aconteceu, quem estava envolvido e quando\nO que mostram os registros e "
        "documentos oficiais\nO que dizem as pessoas e instituições envolvidas",
    ),
    "plan_default_gather": (
        "Official records and statements\nLocal, national and wire coverage\nPublished fact-checks",
        "Registros e notas oficiais\nImprensa local, nacional e agências\nChecagens já publicadas",
    ),
    "plan_gazettes": (
        "Official gazettes (Querido Diário): searched for every claim about an act of a Brazilian "
        "municipality (contracts, tenders, appointments, decrees), for the city and period it names.",
        "Diários oficiais (Querido Diário): consultados para cada alegação sobre um ato de um "
        "município brasileiro (contratos, licitações, nomeações, decretos), na cidade e no período "
        "que ela cita.",
    ),
    "plan_unreadable": (
        "⚠️ {url}: could not be read ({reason}); I will look for other coverage.",
        "⚠️ {url}: não foi possível ler ({reason}); vou buscar outra cobertura.",
    ),
    "plan_unsupported": (
        "{url}: not a web address (only http and https pages can be read)",
        "{url}: não é um endereço web (só páginas http e https podem ser lidas)",
    ),
    "plan_over_limit": (
        "{url}: over the limit of {limit} links per message (VICARAN_MAX_USER_URLS); "
        "send it in a separate message to include it",
        "{url}: acima do limite de {limit} links por mensagem (VICARAN_MAX_USER_URLS); "
        "envie em outra mensagem para incluí-lo",
    ),
    "plan_no_search": (
        "Web search: off (no TAVILY_API_KEY in .env). This run will use {instead} instead.",
        "Busca na web: desligada (sem TAVILY_API_KEY no .env). Esta execução vai usar {instead}.",
    ),
    "plan_no_search_nothing": (
        "Web search: off (no TAVILY_API_KEY in .env), and no other evidence is available: every "
        "claim would stay unverified. Add links to your brief or set the key.",
        "Busca na web: desligada (sem TAVILY_API_KEY no .env), e não há outra evidência "
        "disponível: toda alegação ficaria não verificada. Inclua links no briefing ou defina "
        "a chave.",
    ),
    "plan_no_search_yours": ("your sources", "as suas fontes"),
    "plan_no_search_live": (
        "Google Search through the model to check claims",
        "a Busca do Google pelo modelo para checar as alegações",
    ),
    "plan_no_search_factcheck": (
        "published fact-checks (Google Fact Check Tools)",
        "checagens publicadas (Google Fact Check Tools)",
    ),
    "plan_and": (" and ", " e "),
    "plan_model_problem": (
        "The report and fact-checking model ({model}): {problem}",
        "O modelo do relatório e da checagem ({model}): {problem}",
    ),
    # --- the journalist's documents: attachments, collections, the plan's documents section
    "plan_documents": ("**Your documents:**", "**Seus documentos:**"),
    "plan_document": (
        "📄 {title} ({file}) - {pages}, {lang_name}",
        "📄 {title} ({file}) - {pages}, {lang_name}",
    ),
    "n_pages": (("{count} page", "{count} pages"), ("{count} página", "{count} páginas")),
    "plan_document_unreadable": (
        ("{count} page could not be read: {reasons}", "{count} pages could not be read: {reasons}"),
        (
            "{count} página não pôde ser lida: {reasons}",
            "{count} páginas não puderam ser lidas: {reasons}",
        ),
    ),
    "plan_document_urls": (
        "addresses written in it, listed, not opened (VICARAN_FOLLOW_DOCUMENT_URLS is off): {urls}",
        "endereços escritos nele, listados, não abertos (VICARAN_FOLLOW_DOCUMENT_URLS está "
        "desligado): {urls}",
    ),
    "plan_document_urls_followed": (
        "addresses written in it, which Vicaran may open when a claim leads there: {urls}",
        "endereços escritos nele, que o Vicaran pode abrir quando uma afirmação levar a eles: "
        "{urls}",
    ),
    "plan_documents_more": (
        (
            '… and {count} more document in the collection "{collection}"',
            '… and {count} more documents in the collection "{collection}"',
        ),
        (
            '… e mais {count} documento na coleção "{collection}"',
            '… e mais {count} documentos na coleção "{collection}"',
        ),
    ),
    "plan_documents_look_for": (
        "**In your documents I'll look for:**",
        "**Nos seus documentos vou procurar:**",
    ),
    "plan_documents_questions": (
        "Answers to the questions above",
        "Respostas às perguntas acima",
    ),
    "plan_documents_how": (
        "Each document is read as one of your sources (its passages closest to your brief), and "
        "every claim is checked against the passages of your documents, cited by page. Their "
        "text goes only to the configured model, never to a search or reading service.",
        "Cada documento é lido como uma das suas fontes (os trechos mais próximos do seu "
        "briefing), e cada alegação é checada nos trechos dos seus documentos, citados por "
        "página. O texto deles vai só para o modelo configurado, nunca para um serviço de busca "
        "ou de leitura.",
    ),
    "language_en": ("English", "inglês"),
    "language_pt": ("Portuguese", "português"),
    "plan_language_note": (
        "🌐 Your brief is in {name}. Vicaran writes its plans and reports in English or "
        "Brazilian Portuguese, so this plan and the report are in English; published "
        "fact-checks are searched in {name}.",
        "🌐 Seu briefing está em {name}. O Vicaran escreve planos e relatórios em inglês ou "
        "português do Brasil, por isso este plano e o relatório estão em inglês; as checagens "
        "publicadas são buscadas em {name}.",
    ),
    "report_language_note": (
        "🌐 This report is in English: Vicaran writes reports in English or Brazilian "
        "Portuguese, and the brief is in {name}.",
        "🌐 Este relatório está em inglês: o Vicaran escreve relatórios em inglês ou português "
        "do Brasil, e o briefing está em {name}.",
    ),
    "plan_collection_missing": (
        'Collection "{name}": not found among the collections this conversation can use (shared '
        "ones, and the files you attached). Create it with `vicaran docs add PATH --collection "
        "{name}`, then name it again in your brief.",
        'Coleção "{name}": não encontrada entre as coleções que esta conversa pode usar (as '
        "compartilhadas e os arquivos que você anexou). Crie-a com `vicaran docs add CAMINHO "
        "--collection {name}` e cite-a de novo no briefing.",
    ),
    "plan_attachment_unreadable": (
        "📎 {file}: could not be read ({reason}); it is not part of this investigation.",
        "📎 {file}: não foi possível ler ({reason}); ele não faz parte desta investigação.",
    ),
    "plan_documents_problem": (
        "Your documents: the document store could not be read ({error}); this run would go "
        "without them.",
        "Seus documentos: não foi possível ler o repositório de documentos ({error}); esta "
        "execução ficaria sem eles.",
    ),
    "plan_no_search_documents": (
        "Web search: off (no TAVILY_API_KEY in .env). This investigation runs only on your "
        "documents and the links you gave{also}.",
        "Busca na web: desligada (sem TAVILY_API_KEY no .env). Esta investigação usa apenas os "
        "seus documentos e os links que você enviou{also}.",
    ),
    "plan_no_search_documents_also": (
        "; claims are also checked with {instead}",
        "; as alegações também são checadas com {instead}",
    ),
    "attachments_need_brief": (
        "I've added {files} to this investigation's documents. Now tell me what to investigate: "
        "who, what, where and when.",
        "Adicionei {files} aos documentos desta investigação. Agora me diga o que investigar: "
        "quem, o quê, onde e quando.",
    ),
    "attachments_none_read": (
        "None of the files could be read:\n{lines}\nSend your brief, with files Vicaran reads "
        "(PDF, DOCX, HTML, Markdown or text, or pages as PNG, JPEG or TIFF images).",
        "Nenhum dos arquivos pôde ser lido:\n{lines}\nEnvie o seu briefing, com arquivos que o "
        "Vicaran lê (PDF, DOCX, HTML, Markdown ou texto, ou páginas em imagens PNG, JPEG ou TIFF).",
    ),
    "attachments_cut_off": (
        (
            "{files} was not indexed: Vicaran was restarted while it was reading it, so this "
            "investigation does not have it. Please attach it again.",
            "{files} were not indexed: Vicaran was restarted while it was reading them, so this "
            "investigation does not have them. Please attach them again.",
        ),
        (
            "{files} não foi indexado: o Vicaran foi reiniciado enquanto o lia, então esta "
            "investigação não o tem. Por favor, anexe-o de novo.",
            "{files} não foram indexados: o Vicaran foi reiniciado enquanto os lia, então esta "
            "investigação não os tem. Por favor, anexe-os de novo.",
        ),
    ),
    "attachments_cut_off_brief": (
        "The message that carried them was not read either: send your brief again, with the "
        "files attached to it.",
        "A mensagem que os trazia também não foi lida: envie o seu briefing de novo, com os "
        "arquivos anexados a ele.",
    ),
    "attachment_cut_off_reason": (
        "not indexed: the server restarted while it was reading it; attach it again",
        "não indexado: o servidor reiniciou enquanto o lia; anexe-o de novo",
    ),
    "attachments_not_added": (
        (
            "{files} was not added: this session's investigation has already started, and its "
            "documents were fixed when you approved the plan. To use it, start a new session and "
            "attach it with your brief, or add it to a collection (`vicaran docs add PATH "
            "--collection NAME`) and name it in a new brief with `Collection: NAME`.",
            "{files} were not added: this session's investigation has already started, and its "
            "documents were fixed when you approved the plan. To use them, start a new session "
            "and attach them with your brief, or add them to a collection (`vicaran docs add "
            "PATH --collection NAME`) and name it in a new brief with `Collection: NAME`.",
        ),
        (
            "{files} não foi adicionado: a investigação desta sessão já começou, e os documentos "
            "dela foram definidos quando você aprovou o plano. Para usá-lo, abra uma nova sessão "
            "e anexe-o com o briefing, ou adicione-o a uma coleção (`vicaran docs add CAMINHO "
            "--collection NOME`) e cite-a num novo briefing com `Collection: NOME`.",
            "{files} não foram adicionados: a investigação desta sessão já começou, e os "
            "documentos dela foram definidos quando você aprovou o plano. Para usá-los, abra uma "
            "nova sessão e anexe-os com o briefing, ou adicione-os a uma coleção (`vicaran docs "
            "add CAMINHO --collection NOME`) e cite-a num novo briefing com `Collection: NOME`.",
        ),
    ),
    "reading_documents": (
        (
            "📚 [PROGRESS] Reading your document (always read, whatever the source limit)...",
            "📚 [PROGRESS] Reading your {count} documents (always read, whatever the source "
            "limit)...",
        ),
        (
            "📚 [PROGRESS] Lendo o seu documento (sempre lido, qualquer que seja o limite de "
            "fontes)...",
            "📚 [PROGRESS] Lendo os seus {count} documentos (sempre lidos, qualquer que seja o "
            "limite de fontes)...",
        ),
    ),
    "analyzing_document": (
        "📄 **Reading document {i}/{n}:** {title} ({pages})\n   {stars} {label} | {collection}\n"
        '   💡 Key finding: "{finding}"',
        "📄 **Lendo documento {i}/{n}:** {title} ({pages})\n   {stars} {label} | {collection}\n"
        '   💡 Principal constatação: "{finding}"',
    ),
    "document_no_text": ("no readable text", "nenhum texto legível"),
    "document_unreadable": (
        "⚠️ **Document {i}/{n} could not be read:** {title}\n   {reason}",
        "⚠️ **O documento {i}/{n} não pôde ser lido:** {title}\n   {reason}",
    ),
    "document_not_summarised": (
        "{title}: the document could not be summarised ({error}); its passages are used as they are",
        "{title}: não foi possível resumir o documento ({error}); os trechos são usados como estão",
    ),
    "documents_unavailable": (
        "Your documents could not be read from the document store ({error})",
        "Não foi possível ler os seus documentos no repositório de documentos ({error})",
    ),
    "searching": (
        '🔍 [PROGRESS] Searching for sources on: "{query}"',
        '🔍 [PROGRESS] Buscando fontes sobre: "{query}"',
    ),
    "search_failed": (
        "⚠️ [PROGRESS] Web search problem: {reason}",
        "⚠️ [PROGRESS] Problema na busca na web: {reason}",
    ),
    "found": (
        (
            "✅ [PROGRESS] Found {count} relevant source. Analyzing credibility...",
            "✅ [PROGRESS] Found {count} relevant sources. Analyzing credibility...",
        ),
        (
            "✅ [PROGRESS] Encontrei {count} fonte relevante. Analisando a credibilidade...",
            "✅ [PROGRESS] Encontrei {count} fontes relevantes. Analisando a credibilidade...",
        ),
    ),
    "analyzing_source": (
        '📄 **Analyzing source {i}/{n}:** {title}\n   {stars} {label} | {domain}\n   💡 Key finding: "{finding}"',
        "📄 **Analisando fonte {i}/{n}:** {title}\n   {stars} {label} | {domain}\n"
        '   💡 Principal constatação: "{finding}"',
    ),
    "source_unreadable": (
        "⚠️ **Source {i}/{n} could not be read:** {url}\n   {reason}",
        "⚠️ **A fonte {i}/{n} não pôde ser lida:** {url}\n   {reason}",
    ),
    "sources_done": (
        "📊 [PROGRESS] Source analysis complete: {total}\n• {high} (⭐⭐⭐⭐⭐)\n"
        "• {medium} (⭐⭐⭐)\n• {low} (⭐⭐)\n\nAll sources saved to your dashboard.",
        "📊 [PROGRESS] Análise das fontes concluída: {total}\n• {high} (⭐⭐⭐⭐⭐)\n"
        "• {medium} (⭐⭐⭐)\n• {low} (⭐⭐)\n\nTodas as fontes foram salvas no painel.",
    ),
    "n_sources": (("{count} source", "{count} sources"), ("{count} fonte", "{count} fontes")),
    "n_high": (
        ("{count} high-credibility source", "{count} high-credibility sources"),
        ("{count} fonte de alta credibilidade", "{count} fontes de alta credibilidade"),
    ),
    "n_medium": (
        ("{count} medium-credibility source", "{count} medium-credibility sources"),
        ("{count} fonte de credibilidade média", "{count} fontes de credibilidade média"),
    ),
    "n_low": (
        ("{count} low-credibility source", "{count} low-credibility sources"),
        ("{count} fonte de baixa credibilidade", "{count} fontes de baixa credibilidade"),
    ),
    "source_off_topic": (
        "↪️ **Source {i}/{n} set aside (off-topic):** {title} | {domain}\n   {reason}",
        "↪️ **Fonte {i}/{n} deixada de lado (fora do tema):** {title} | {domain}\n   {reason}",
    ),
    "sources_set_aside": (
        (
            "↪️ {count} source set aside as off-topic (saved, not used for claims, bias or the "
            "timeline).",
            "↪️ {count} sources set aside as off-topic (saved, not used for claims, bias or the "
            "timeline).",
        ),
        (
            "↪️ {count} fonte fora do tema deixada de lado (salva, mas fora das alegações, do "
            "viés e da linha do tempo).",
            "↪️ {count} fontes fora do tema deixadas de lado (salvas, mas fora das alegações, do "
            "viés e da linha do tempo).",
        ),
    ),
    "set_aside_note": (
        "Set aside as off-topic{relevance}: {title} ({link}){why}",
        "Deixada de lado por estar fora do tema{relevance}: {title} ({link}){why}",
    ),
    "relevance": (" (relevance {pct}%)", " (relevância {pct}%)"),
    "user_sources_unreadable": (
        ("Your source could not be read: {urls}", "Your sources could not be read: {urls}"),
        ("Sua fonte não pôde ser lida: {urls}", "Suas fontes não puderam ser lidas: {urls}"),
    ),
    "source_crashed": (
        "A source could not be processed: {error}",
        "Uma fonte não pôde ser processada: {error}",
    ),
    "search_plan_failed": (
        "Search planning failed, searched the brief instead: {error}",
        "O planejamento das buscas falhou; busquei pelo próprio briefing: {error}",
    ),
    "no_sources_issue": (
        "No sources could be found or read.",
        "Nenhuma fonte pôde ser encontrada ou lida.",
    ),
    "search_empty": (
        "The web search returned no results.",
        "A busca na web não trouxe resultados.",
    ),
    "no_sources": (
        "[NO_SOURCES_FOUND] No sources could be found or read for this investigation. {reason}",
        "[NO_SOURCES_FOUND] Nenhuma fonte pôde ser encontrada ou lida nesta investigação. {reason}",
    ),
    "extracting": (
        (
            "📋 [PROGRESS] Extracting claims from {count} source...",
            "📋 [PROGRESS] Extracting claims from {count} sources...",
        ),
        (
            "📋 [PROGRESS] Extraindo alegações de {count} fonte...",
            "📋 [PROGRESS] Extraindo alegações de {count} fontes...",
        ),
    ),
    "claims_done": (
        (
            "✅ [PROGRESS] Extracted {count} verifiable claim:",
            "✅ [PROGRESS] Extracted {count} verifiable claims. Top claims by importance:",
        ),
        (
            "✅ [PROGRESS] Extraí {count} alegação verificável:",
            "✅ [PROGRESS] Extraí {count} alegações verificáveis. Principais por importância:",
        ),
    ),
    "claims_failed_some": (
        "Claim extraction failed for some sources: {error}",
        "A extração de alegações falhou em algumas fontes: {error}",
    ),
    "claims_no_source": (
        "No claims could be extracted because no source was read.",
        "Nenhuma alegação pôde ser extraída porque nenhuma fonte foi lida.",
    ),
    "claims_none_note": (
        "The sources contain no checkable claims: {reason}",
        "As fontes não contêm alegações verificáveis: {reason}",
    ),
    "brief_claims_failed": (
        "The brief's own claims could not be extracted: {error}",
        "As alegações do próprio briefing não puderam ser extraídas: {error}",
    ),
    "claims_saved": ("All claims saved for verification.", "Todas as alegações foram salvas."),
    "no_claims_no_sources": (
        "[NO_CLAIMS_EXTRACTED] No sources available for claim extraction.",
        "[NO_CLAIMS_EXTRACTED] Não há fontes disponíveis para extrair alegações.",
    ),
    "no_claims": (
        "[NO_CLAIMS_EXTRACTED] The sources contain no checkable claims. {reason}",
        "[NO_CLAIMS_EXTRACTED] As fontes não contêm alegações verificáveis. {reason}",
    ),
    "no_claims_default": (
        "They report opinions, reactions or general statements rather than facts that can be checked.",
        "Elas trazem opiniões, reações ou afirmações genéricas, e não fatos que possam ser checados.",
    ),
    "verifying": (
        '🔍 [PROGRESS] Verifying claim {i}/{n}: "{claim}"',
        '🔍 [PROGRESS] Verificando alegação {i}/{n}: "{claim}"',
    ),
    # names its claim: claims are checked concurrently, and their lines come as each finishes
    "verdict_line": (
        '{emoji} **{label}** — claim {i}/{n} ("{claim}"): {reason}\n   Confidence: {confidence}%',
        '{emoji} **{label}** — alegação {i}/{n} ("{claim}"): {reason}\n   Confiança: {confidence}%',
    ),
    "claim_failed": (
        "⚠️ Claim {i}/{n} could not be checked: {reason}",
        "⚠️ A alegação {i}/{n} não pôde ser verificada: {reason}",
    ),
    "downgraded": (
        "(Vicaran: downgraded from {verdict} - {reason}.)",
        "(Vicaran: rebaixado de {verdict} - {reason}.)",
    ),
    # why the evidence rule allows a verdict or not (evidence.py)
    "rule_high": (
        "high-reliability evidence ({publisher})",
        "evidência de alta confiabilidade ({publisher})",
    ),
    "rule_own_record": (
        "the own record of the party quoted ({publisher})",
        "o registro próprio da parte citada ({publisher})",
    ),
    "rule_neutral_agree": (
        "{count} independent neutral sources agree",
        "{count} fontes neutras independentes concordam",
    ),
    "rule_contradicted": (
        "neutral sources agree but an equal or more reliable source contradicts them",
        "fontes neutras concordam, mas uma fonte igual ou mais confiável as contradiz",
    ),
    "rule_one_source": (
        "only one independent neutral or low-reliability source on point",
        "só uma fonte independente, neutra ou de baixa confiabilidade, trata do ponto",
    ),
    "rule_no_evidence": (
        "no independent evidence on point",
        "nenhuma evidência independente trata do ponto",
    ),
    "rule_uncited": (
        "the explanation cites no evidence that was found",
        "a explicação não cita nenhuma evidência encontrada",
    ),
    "claim_unchecked": (
        'The claim "{claim}" could not be checked: {error}',
        'A alegação "{claim}" não pôde ser verificada: {error}',
    ),
    "unchecked": ("Could not be checked.", "Não pôde ser verificada."),
    "claim_crashed": (
        "A claim could not be checked: {error}",
        "Uma alegação não pôde ser verificada: {error}",
    ),
    "gather_timeout": (
        "{what} did not answer within {seconds} s",
        "{what} não respondeu em {seconds} s",
    ),
    "gather_failed": ("{what} failed: {error}", "{what} falhou: {error}"),
    "kept_off_the_web": (
        "🔒 Checked against your documents only: this claim comes only from them, so it was not "
        "sent to web search or fact-check services (VICARAN_SEARCH_DOCUMENT_CLAIMS=true allows it).",
        "🔒 Verificada só nos seus documentos: esta alegação vem apenas deles, por isso não foi "
        "enviada à busca na web nem a serviços de checagem (VICARAN_SEARCH_DOCUMENT_CLAIMS=true permite).",
    ),
    "conflict": (
        "Note: high-reliability sources conflict: {supports} support the claim, {refutes} contradict it.",
        "Atenção: fontes de alta confiabilidade divergem: {supports} confirmam a alegação, {refutes} a contradizem.",
    ),
    "factcheck_skipped": ("ℹ️ [PROGRESS] {note}", "ℹ️ [PROGRESS] {note}"),
    "factcheck_off": (
        "Fact-check databases skipped: set FACTCHECK_API_KEY in .env to search them.",
        "Bases de checagem não consultadas: defina FACTCHECK_API_KEY no .env para usá-las.",
    ),
    "no_claims_to_verify": (
        "[NO_CLAIMS_TO_VERIFY] There are no claims to verify.",
        "[NO_CLAIMS_TO_VERIFY] Não há alegações para verificar.",
    ),
    "facts_header": ("**Fact-Checking Complete**", "**Checagem concluída**"),
    "confidence": ("Confidence", "Confiança"),
    "claim_sources": ("Sources", "Fontes"),
    "claim_said_by": ("What {party} said or did", "O que {party} disse ou fez"),
    "claim_on_word_of": ("On the word of {party}", "Segundo {party}"),
    "your_brief": ("your brief", "seu briefing"),
    "bias_header": ("📊 **Bias Analysis Complete**", "📊 **Análise de viés concluída**"),
    "bias_overall": (
        "**Overall Score: {score}/10** ({label} Bias)",
        "**Pontuação geral: {score}/10** (viés {label})",
    ),
    "coverage": (
        (
            "Coverage breakdown ({count} rated source):",
            "Coverage breakdown ({count} rated sources):",
        ),
        (
            "Distribuição da cobertura ({count} fonte avaliada):",
            "Distribuição da cobertura ({count} fontes avaliadas):",
        ),
    ),
    "coverage_unrated": (
        (
            "• Not rated: {count} source (left out of the shares)",
            "• Not rated: {count} sources (left out of the shares)",
        ),
        (
            "• Não avaliada: {count} fonte (fora das porcentagens)",
            "• Não avaliadas: {count} fontes (fora das porcentagens)",
        ),
    ),
    "coverage_line": (
        ("• {stance}: {count} source ({pct}%)", "• {stance}: {count} sources ({pct}%)"),
        ("• {stance}: {count} fonte ({pct}%)", "• {stance}: {count} fontes ({pct}%)"),
    ),
    "bias_failed_some": (
        "Bias analysis failed for some sources: {error}",
        "A análise de viés falhou em algumas fontes: {error}",
    ),
    "bias_none_issue": (
        "Bias analysis rated none of the sources",
        "A análise de viés não avaliou nenhuma fonte",
    ),
    "bias_unrated": (
        (
            "{count} source could not be rated for bias",
            "{count} sources could not be rated for bias",
        ),
        (
            "{count} fonte não pôde ser avaliada quanto ao viés",
            "{count} fontes não puderam ser avaliadas quanto ao viés",
        ),
    ),
    "recommendation": ("💡 Recommendation: {text}", "💡 Recomendação: {text}"),
    "timeline_header": (
        "**Timeline**\n\n| Date | Event |",
        "**Linha do tempo**\n\n| Data | Evento |",
    ),
    "facts_done": (
        "Fact-check results saved to your dashboard.",
        "Resultados da checagem salvos no painel.",
    ),
    "bias_progress": (
        "⚖️ [PROGRESS] Analyzing source coverage balance...",
        "⚖️ [PROGRESS] Analisando o equilíbrio da cobertura...",
    ),
    "bias_skipped": (
        "[BIAS_SKIPPED] No sources to analyze for bias.",
        "[BIAS_SKIPPED] Não há fontes para analisar o viés.",
    ),
    "bias_none_rated": (
        "[BIAS_SKIPPED] No source could be rated for bias, so there is no bias score.",
        "[BIAS_SKIPPED] Nenhuma fonte pôde ser avaliada quanto ao viés; não há pontuação.",
    ),
    "bias_failed": (
        "[BIAS_SKIPPED] Bias analysis failed: {reason}",
        "[BIAS_SKIPPED] A análise de viés falhou: {reason}",
    ),
    "timeline_progress": (
        "📅 [PROGRESS] Constructing timeline from sources...",
        "📅 [PROGRESS] Construindo a linha do tempo a partir das fontes...",
    ),
    "timeline_quick": (
        "[TIMELINE_SKIPPED] Quick Search mode - timeline construction disabled.",
        "[TIMELINE_SKIPPED] Modo Busca Rápida: a linha do tempo não é construída.",
    ),
    "timeline_failed_some": (
        "Timeline construction failed for some sources: {error}",
        "A construção da linha do tempo falhou em algumas fontes: {error}",
    ),
    "timeline_empty": (
        "[TIMELINE_SKIPPED] No dated events were found in the sources.",
        "[TIMELINE_SKIPPED] Nenhum evento datado foi encontrado nas fontes.",
    ),
    "timeline_failed": (
        "[TIMELINE_SKIPPED] Timeline construction failed: {reason}",
        "[TIMELINE_SKIPPED] A construção da linha do tempo falhou: {reason}",
    ),
    "summary_progress": (
        "📝 [PROGRESS] Writing the cited report...",
        "📝 [PROGRESS] Escrevendo o relatório com citações...",
    ),
    "report_checking": (
        (
            "🔎 [PROGRESS] Checking the report: {count} cited sentence against its sources, "
            "and its quality...",
            "🔎 [PROGRESS] Checking the report: {count} cited sentences against their sources, "
            "and its quality...",
        ),
        (
            "🔎 [PROGRESS] Conferindo o relatório: {count} frase com citação contra as fontes, "
            "e a qualidade...",
            "🔎 [PROGRESS] Conferindo o relatório: {count} frases com citação contra as fontes, "
            "e a qualidade...",
        ),
    ),
    "report_rewriting": (
        (
            "✍️ [PROGRESS] Rewriting the report once to fix {count} problem...",
            "✍️ [PROGRESS] Rewriting the report once to fix {count} problems...",
        ),
        (
            "✍️ [PROGRESS] Reescrevendo o relatório uma vez para corrigir {count} problema...",
            "✍️ [PROGRESS] Reescrevendo o relatório uma vez para corrigir {count} problemas...",
        ),
    ),
    "report_no_model": (
        "The report was assembled without the model: {error}",
        "O relatório foi montado sem o modelo: {error}",
    ),
    "report_no_rewrite": (
        "The report could not be rewritten to fix its problems: {error}",
        "O relatório não pôde ser reescrito para corrigir seus problemas: {error}",
    ),
    "audit_failed": (
        "The citation audit could not check some sentences: {error}",
        "A auditoria de citações não conseguiu conferir algumas frases: {error}",
    ),
    "quality_failed": (
        "The report's quality could not be scored: {error}",
        "A qualidade do relatório não pôde ser avaliada: {error}",
    ),
    "sentence_removed": (
        'Removed from the report, not supported by the sources it cites: "{text}"',
        'Removida do relatório, sem respaldo nas fontes que cita: "{text}"',
    ),
    "sentence_removed_status": (
        'Removed from the report, it contradicts the recorded verdicts and evidence: "{text}"',
        'Removida do relatório, contradiz os vereditos e as evidências registrados: "{text}"',
    ),
    "citations_removed": (
        (
            "{count} citation pointing to no saved source was removed",
            "{count} citations pointing to no saved source were removed",
        ),
        (
            "{count} citação que não apontava para nenhuma fonte salva foi removida",
            "{count} citações que não apontavam para nenhuma fonte salva foram removidas",
        ),
    ),
    "report_questions": ("## Questions from the Plan", "## Perguntas do Plano"),
    "question_open": ("Open", "Em aberto"),
    "question_unaddressed": (
        "Not addressed by this report.",
        "Não respondida por este relatório.",
    ),
    "report_notes": ("## Notes", "## Observações"),
    "notes_more": ("…and {count} more.", "…e mais {count}."),
    "sources_read": (
        ("{count} source read", "{count} sources read"),
        ("{count} fonte lida", "{count} fontes lidas"),
    ),
    "sources_cited": (
        ("{count} cited below", "{count} cited below"),
        ("{count} citada abaixo", "{count} citadas abaixo"),
    ),
    "sources_aside": (
        (
            "{count} set aside as off-topic (see Notes)",
            "{count} set aside as off-topic (see Notes)",
        ),
        (
            "{count} deixada de lado por estar fora do tema (veja Observações)",
            "{count} deixadas de lado por estarem fora do tema (veja Observações)",
        ),
    ),
    "snapshot": ("snapshot", "cópia salva"),
    "dashboard_link": ("Dashboard: <{url}>", "Painel: <{url}>"),  # a link in any Markdown
    "sources_all": (
        "Every source that was read:",
        "Todas as fontes lidas:",
    ),
    "quality_footer": (
        "*Checked by Vicaran: quality {overall}/100 (factual accuracy {factual_accuracy}, "
        "citations {citation_correctness}, plan coverage {plan_coverage}, structure {structure}, "
        "relevance {relevance}); {audited}, {unsupported} unsupported, {removed}; {rewrites}.*",
        "*Conferido pelo Vicaran: qualidade {overall}/100 (exatidão {factual_accuracy}, "
        "citações {citation_correctness}, cobertura do plano {plan_coverage}, estrutura "
        "{structure}, relevância {relevance}); {audited}, {unsupported} sem respaldo, {removed}; "
        "{rewrites}.*",
    ),
    "quality_footer_unscored": (
        "*Checked by Vicaran: no quality score (the check could not run); {audited}, "
        "{unsupported} unsupported, {removed}; {rewrites}.*",
        "*Conferido pelo Vicaran: sem nota de qualidade (a checagem não rodou); {audited}, "
        "{unsupported} sem respaldo, {removed}; {rewrites}.*",
    ),
    "audited": (
        (
            "{count} cited sentence audited against its sources",
            "{count} cited sentences audited against their sources",
        ),
        (
            "{count} frase com citação conferida contra as fontes",
            "{count} frases com citação conferidas contra as fontes",
        ),
    ),
    "removed": (
        ("{count} removed", "{count} removed"),
        ("{count} removida", "{count} removidas"),
    ),
    "no_rewrite": ("not rewritten", "sem reescrita"),
    "one_rewrite": ("rewritten once", "reescrito uma vez"),
    "failed_no_sources": (
        "No usable source was found or read, and no claim could be decided.",
        "Nenhuma fonte utilizável foi encontrada ou lida, e nenhuma alegação pôde ser decidida.",
    ),
    "failed_models": (
        "Every model call failed ({count} of them); the last error: {error}",
        "Todas as chamadas ao modelo falharam ({count}); o último erro: {error}",
    ),
    "failed_notice": (
        "❌ **This investigation failed:** {reason}",
        "❌ **Esta investigação falhou:** {reason}",
    ),
    "partial_notice": (
        "⚠️ **This investigation is partial.** {reason}",
        "⚠️ **Esta investigação está incompleta.** {reason}",
    ),
    # an interrupted run, as the newsroom's callback API receives it (INVESTIGATION_PARTIAL)
    "interrupted_reason": (
        "Interrupted: the process running this investigation stopped before it finished; "
        "run it again (same investigation id) to continue.",
        "Interrompida: o processo que executava esta investigação parou antes do fim; "
        "execute-a de novo (mesmo id de investigação) para continuar.",
    ),
    "interrupted_summary": (
        "Interrupted before its report was written. Saved so far: sources {sources}, "
        "claims {claims}, fact-checks {checks}.",
        "Interrompida antes do relatório. Salvo até aqui: fontes {sources}, alegações {claims}, "
        "checagens {checks}.",
    ),
    "dashboard_timeline_skipped": (
        "Skipped in Quick Search: the timeline is built only in a Detailed Inquiry.",
        "Etapa pulada na Busca Rápida: a linha do tempo só é montada na Investigação Detalhada.",
    ),
    "sources_heading": ("## Sources", "## Fontes"),
    "report_title": ("# Investigation Summary: {title}", "# Resumo da Investigação: {title}"),
    "report_summary": ("## Executive Summary", "## Resumo Executivo"),
    "report_findings": ("## Key Findings", "## Principais Constatações"),
    "report_bias": ("## Bias Assessment", "## Avaliação de Viés"),
    "report_timeline": ("## Timeline", "## Linha do Tempo"),
    "report_recommendations": ("## Recommendations", "## Recomendações"),
    "failed": (
        "❌ The investigation stopped because of an unexpected error: {error}. Everything saved "
        "so far is kept; start a new investigation to try again.",
        "❌ A investigação parou por um erro inesperado: {error}. Tudo o que foi salvo até "
        "aqui foi mantido; comece uma nova investigação para tentar de novo.",
    ),
    # `vicaran investigate` in the terminal
    "reading_url": ("📄 Reading {url} ...", "📄 Lendo {url} ..."),
    # reference following (seed 004): one line per followed reference, one per limit
    "ref_followed": (
        "↪ {origin} cites “{text}” → {target} ({how}): {passages} (depth {depth})",
        "↪ {origin} cita “{text}” → {target} ({how}): {passages} (profundidade {depth})",
    ),
    "ref_searched": (
        "↪ {origin} cites “{text}” → search in the collection: {passages} (depth {depth})",
        "↪ {origin} cita “{text}” → busca na coleção: {passages} (profundidade {depth})",
    ),
    "ref_page": (
        "↪ {origin} cites {url} → page read: {title} (depth {depth})",
        "↪ {origin} cita {url} → página lida: {title} (profundidade {depth})",
    ),
    "ref_page_failed": (
        "↪ {origin} cites {url} → could not be read: {reason} (depth {depth})",
        "↪ {origin} cita {url} → não foi possível ler: {reason} (profundidade {depth})",
    ),
    "ref_url_listed": (
        "🔗 {origin} names {url}: listed, not opened (VICARAN_FOLLOW_DOCUMENT_URLS is off: "
        "opening it would tell its host that the document is being read)",
        "🔗 {origin} cita {url}: listado, não aberto (VICARAN_FOLLOW_DOCUMENT_URLS está "
        "desligado: abri-lo contaria ao site que o documento está sendo lido)",
    ),
    "ref_failed": (
        "⚠️ Following “{text}” failed: {error}",
        "⚠️ Não foi possível seguir “{text}”: {error}",
    ),
    "ref_passages": (
        ("{count} passage", "{count} passages"),
        ("{count} trecho", "{count} trechos"),
    ),
    "ref_how_exact": ("exact {field} match", "correspondência exata do {field}"),
    "ref_how_fuzzy": ("similar {field}, {pct}%", "{field} semelhante, {pct}%"),
    "ref_how_substring": ("partial {field} match", "correspondência parcial do {field}"),
    "ref_field_title": ("title", "título"),
    "ref_field_file": ("file name", "nome do arquivo"),
    "ref_field_synonym": ("synonym", "sinônimo"),
    "ref_same_document": ("same document", "mesmo documento"),
    "ref_origin_model": ("The fact-checker's reading", "A leitura do checador"),
    "ref_limit_depth": (
        (
            "⏹ Depth limit ({limit}) reached: {count} reference not followed ({examples}).",
            "⏹ Depth limit ({limit}) reached: {count} references not followed ({examples}).",
        ),
        (
            "⏹ Limite de profundidade ({limit}) atingido: {count} referência não seguida "
            "({examples}).",
            "⏹ Limite de profundidade ({limit}) atingido: {count} referências não seguidas "
            "({examples}).",
        ),
    ),
    "ref_limit_visited": (
        (
            "⏹ Already read, not followed again: {count} reference ({examples}).",
            "⏹ Already read, not followed again: {count} references ({examples}).",
        ),
        (
            "⏹ Já lido, não seguido de novo: {count} referência ({examples}).",
            "⏹ Já lido, não seguido de novo: {count} referências ({examples}).",
        ),
    ),
    "ref_limit_budget": (
        (
            "⏹ Reading budget for this claim spent ({limit} tokens): {count} reference not "
            "followed ({examples}).",
            "⏹ Reading budget for this claim spent ({limit} tokens): {count} references not "
            "followed ({examples}).",
        ),
        (
            "⏹ Orçamento de leitura desta alegação esgotado ({limit} tokens): {count} referência "
            "não seguida ({examples}).",
            "⏹ Orçamento de leitura desta alegação esgotado ({limit} tokens): {count} "
            "referências não seguidas ({examples}).",
        ),
    ),
    "ref_limit_convergence": (
        (
            "⏹ {document} came back {times} times: stopped following references ({count} not "
            "followed: {examples}).",
            "⏹ {document} came back {times} times: stopped following references ({count} not "
            "followed: {examples}).",
        ),
        (
            "⏹ {document} voltou {times} vezes: parei de seguir referências ({count} não "
            "seguida: {examples}).",
            "⏹ {document} voltou {times} vezes: parei de seguir referências ({count} não "
            "seguidas: {examples}).",
        ),
    ),
    "ref_limit_candidates": (
        "⏹ {found} references found at depth {depth}: the first {limit} were considered.",
        "⏹ {found} referências encontradas na profundidade {depth}: as {limit} primeiras foram "
        "consideradas.",
    ),
    "ref_gate_failed": (
        "⚠️ Choosing which references to follow failed ({error}); only references that name a "
        "document exactly were followed.",
        "⚠️ A escolha das referências a seguir falhou ({error}); só foram seguidas as "
        "referências que nomeiam um documento exatamente.",
    ),
    "step_planning": ("Planning", "Planejando"),
    "step_sources": ("Finding and reading sources", "Buscando e lendo fontes"),
    "step_claims": ("Extracting claims", "Extraindo alegações"),
    "step_checks": ("Checking claims", "Checando alegações"),
    "step_report": ("Writing the report", "Escrevendo o relatório"),
    # a pipeline stage by name, and one that raised (it fails soft: the run goes on without it)
    "stage_source_finder": ("source search", "busca de fontes"),
    "stage_claim_extractor": ("claim extraction", "extração de alegações"),
    "stage_fact_checker": ("fact-checking", "checagem"),
    "stage_bias_analyzer": ("bias analysis", "análise de viés"),
    "stage_timeline_builder": ("timeline", "linha do tempo"),
    "stage_summary_writer": ("report", "relatório"),
    "stage_crashed": (
        "The {stage} stage ({name}) failed: {error}",
        "A etapa de {stage} ({name}) falhou: {error}",
    ),
    "stage_crashed_line": (
        "⚠️ The {stage} stage failed ({error}); the investigation goes on without it.",
        "⚠️ A etapa de {stage} falhou ({error}); a investigação segue sem ela.",
    ),
    "status_completed": ("Completed", "Concluída"),
    "status_partial": ("Partial", "Incompleta"),
    "status_failed": ("Failed", "Falhou"),
    "progress_sources": ("sources read {read}/{total}", "fontes lidas {read}/{total}"),
    "progress_claims": ("claims checked {done}/{total}", "alegações checadas {done}/{total}"),
    "cli_approve": (
        "Approve this plan? Type APPROVED, or write what to change: ",
        "Aprovar este plano? Digite APROVADO ou escreva o que mudar: ",
    ),
    "cli_answer": (
        "Your answers, in one line (or skip to plan with what there is): ",
        "Suas respostas, numa linha (ou pular para planejar com o que há): ",
    ),
    "cli_needs_yes": (
        "The plan needs your approval: run again with --yes to approve it without being asked.",
        "O plano precisa da sua aprovação: rode de novo com --yes para aprová-lo sem pergunta.",
    ),
    "cli_not_started": ("The investigation did not start.", "A investigação não começou."),
    "cli_report_written": ("Report written to {path}", "Relatório salvo em {path}"),
    "cli_dashboard": (
        "Open it in the dashboard (`make run` or `vicaran serve`):",
        "Abra no painel (`make run` ou `vicaran serve`):",
    ),
    "cli_dashboard_assumed": (
        "Open it in the dashboard, at the address `make run` and `vicaran serve` use by default "
        "(set VICARAN_PUBLIC_URL if yours runs elsewhere):",
        "Abra no painel, no endereço que `make run` e `vicaran serve` usam por padrão (defina "
        "VICARAN_PUBLIC_URL se o seu roda em outro lugar):",
    ),
    "serve_retired_public_url": (
        "VICARAN_PUBLIC_URL={retired} (the line .env.example used to ship) is taken as unset: "
        "links name {url}, where this server listens. Remove the line from .env, or set the "
        "address people use (http://localhost:8000 to keep that one).",
        "VICARAN_PUBLIC_URL={retired} (a linha que o .env.example trazia) é tratada como "
        "ausente: os links apontam para {url}, onde este servidor atende. Tire a linha do .env "
        "ou defina o endereço que as pessoas usam (http://localhost:8000 para manter aquele).",
    ),
    "serve_every_interface": (
        "Listening on every interface: links name {url}, which works on this machine only; set "
        "VICARAN_PUBLIC_URL (and VICARAN_ALLOWED_HOSTS) to the address others use.",
        "Atendendo em todas as interfaces: os links apontam para {url}, que só funciona nesta "
        "máquina; defina VICARAN_PUBLIC_URL (e VICARAN_ALLOWED_HOSTS) com o endereço que os "
        "outros usam.",
    ),
    "cli_details": (
        "Some steps ran into problems: run again with --verbose to see the details.",
        "Algumas etapas tiveram problemas: rode de novo com --verbose para ver os detalhes.",
    ),
    "cli_error": (
        "Vicaran stopped because of an unexpected error ({error}): run again with --verbose "
        "for the details.",
        "O Vicaran parou por um erro inesperado ({error}): rode de novo com --verbose para ver "
        "os detalhes.",
    ),
    "cli_interrupted": (
        "Stopped: the investigation is marked interrupted.",
        "Parada: a investigação foi marcada como interrompida.",
    ),
    "cli_waiting_one": (
        "Waiting up to {seconds} s for the callback API to take 1 record...",
        "Aguardando até {seconds} s a API de callback receber 1 registro...",
    ),
    "cli_waiting_many": (
        "Waiting up to {seconds} s for the callback API to take {count} records...",
        "Aguardando até {seconds} s a API de callback receber {count} registros...",
    ),
    "cli_left_one": (
        "1 record still waits for the callback API: `vicaran outbox flush` sends it.",
        "1 registro ainda aguarda a API de callback: `vicaran outbox flush` o envia.",
    ),
    "cli_left_many": (
        "{count} records still wait for the callback API: `vicaran outbox flush` sends them.",
        "{count} registros ainda aguardam a API de callback: `vicaran outbox flush` os envia.",
    ),
    "cli_delivered": (
        "Every record reached the callback API.",
        "Todos os registros chegaram à API de callback.",
    ),
    "db_empty": (
        "The records database has no tables yet: run `{command}` (with VICARAN_DATABASE_URL "
        "set) to create them.",
        "O banco de registros ainda não tem tabelas: rode `{command}` (com VICARAN_DATABASE_URL "
        "definida) para criá-las.",
    ),
    "db_outdated": (
        "The records database's schema is at revision {revision} and this Vicaran needs {head}: "
        "run `{command}` (with VICARAN_DATABASE_URL set).",
        "O esquema do banco de registros está na revisão {revision} e este Vicaran precisa da "
        "{head}: rode `{command}` (com VICARAN_DATABASE_URL definida).",
    ),
    "db_unknown": (
        "The records database is at revision {revision}, newer than this Vicaran knows "
        "(its latest is {head}): run the newer Vicaran that migrated it.",
        "O banco de registros está na revisão {revision}, mais nova do que este Vicaran conhece "
        "(a última dele é {head}): use o Vicaran mais novo que o migrou.",
    ),
    "db_status": (
        "Records database: revision {revision}; this Vicaran's schema: revision {head}.",
        "Banco de registros: revisão {revision}; o esquema deste Vicaran: revisão {head}.",
    ),
    "db_up_to_date": (
        "The records database is up to date (revision {head}).",
        "O banco de registros está atualizado (revisão {head}).",
    ),
    "db_upgraded": (
        "The records database was upgraded from revision {revision} to {head}.",
        "O banco de registros foi atualizado da revisão {revision} para a {head}.",
    ),
}

# --- what failed in a tool or a model call, and what to do -------------------------------------
# Tools and the model client return these as `Phrase`s: English for the model and the logs,
# said again in the journalist's language wherever a stage shows them (`localized`).
_PROBLEMS: dict[str, tuple[_Text, _Text]] = {
    "model_key_rejected": (
        "The Gemini API rejected the credentials: set a valid GOOGLE_API_KEY in your .env "
        "file (or fix the Vertex AI settings) and restart.",
        "A API do Gemini recusou as credenciais: defina uma GOOGLE_API_KEY válida no arquivo "
        ".env (ou corrija as configurações do Vertex AI) e reinicie.",
    ),
    "model_missing": (
        "The model '{model}' does not exist for this account: set VICARAN_FAST_MODEL / "
        "VICARAN_PRO_MODEL to an available model.",
        "O modelo '{model}' não existe para esta conta: defina VICARAN_FAST_MODEL / "
        "VICARAN_PRO_MODEL com um modelo disponível.",
    ),
    "model_rate_limited": (
        "The model provider is rate limiting Vicaran (429); try again shortly.",
        "O provedor do modelo está limitando as chamadas do Vicaran (429); tente de novo em "
        "instantes.",
    ),
    "model_provider_error": (
        "The model provider had an error ({code}).",
        "O provedor do modelo teve um erro ({code}).",
    ),
    "model_failed_code": (
        "The model call failed ({code}): {detail}",
        "A chamada ao modelo falhou ({code}): {detail}",
    ),
    "model_timeout": ("The model did not answer in time.", "O modelo não respondeu a tempo."),
    "model_unreachable": (
        "Could not reach the model provider ({error}).",
        "Não foi possível alcançar o provedor do modelo ({error}).",
    ),
    "model_unknown": (
        "The model '{model}' is not known to Vicaran: check VICARAN_FAST_MODEL / "
        "VICARAN_PRO_MODEL (provider models like ollama_chat/... need `pip install -e .[local]`).",
        "O Vicaran não conhece o modelo '{model}': confira VICARAN_FAST_MODEL / "
        "VICARAN_PRO_MODEL (modelos de provedores como ollama_chat/... precisam de "
        "`pip install -e .[local]`).",
    ),
    "model_no_key": (
        "The model client is missing its API key: set GOOGLE_API_KEY.",
        "Falta a chave de API do cliente do modelo: defina GOOGLE_API_KEY.",
    ),
    "model_failed": (
        "The model call failed: {error}: {detail}",
        "A chamada ao modelo falhou: {error}: {detail}",
    ),
    "model_bad_format": (
        "The model's answer did not match the expected format ({error}).",
        "A resposta do modelo não veio no formato esperado ({error}).",
    ),
    "model_call_limit": (
        "ADK's limit on model calls per turn was reached (RunConfig.max_llm_calls, 500 unless "
        "ADK_MAX_LLM_CALLS says otherwise): raise it for large investigations.",
        "O limite do ADK de chamadas ao modelo por turno foi atingido (RunConfig.max_llm_calls, "
        "500 se ADK_MAX_LLM_CALLS não disser outro): aumente-o para investigações grandes.",
    ),
    "token_budget_spent": (
        "The token budget of this investigation ({budget:,} tokens, VICARAN_TOKEN_BUDGET) is "
        "spent: no more evidence was gathered, and the report was written from what was found.",
        "O orçamento de tokens desta investigação ({budget:,} tokens, VICARAN_TOKEN_BUDGET) foi "
        "gasto: nenhuma evidência a mais foi buscada, e o relatório foi escrito com o que já se "
        "encontrou.",
    ),
    "tokens_line": (
        "{input:,} tokens in · {output:,} out{cached} · ≈ US$ {cost:.4f}{unpriced}",
        "{input:,} tokens de entrada · {output:,} de saída{cached} · ≈ US$ {cost:.4f}{unpriced}",
    ),
    "tokens_cached": (" ({cached:,} cached)", " ({cached:,} em cache)"),
    "tokens_unpriced": (
        (
            " (no price set for {count} model: VICARAN_MODEL_PRICES)",
            " (no price set for {count} models: VICARAN_MODEL_PRICES)",
        ),
        (
            " (sem preço para {count} modelo: VICARAN_MODEL_PRICES)",
            " (sem preço para {count} modelos: VICARAN_MODEL_PRICES)",
        ),
    ),
    "report_tokens": ("Model use: {line}", "Uso do modelo: {line}"),
    "model_cut_off": (
        "The model's answer was cut off at its output limit ({cap} tokens) twice; raise "
        "VICARAN_MAX_OUTPUT_TOKENS or use a stronger model.",
        "A resposta do modelo foi cortada no limite de saída ({cap} tokens) duas vezes; "
        "aumente VICARAN_MAX_OUTPUT_TOKENS ou use um modelo mais capaz.",
    ),
    "model_cut_off_thinking": (
        "The model spent its output limit ({cap} tokens) thinking and never finished its "
        "answer, even when given more room; raise VICARAN_MAX_OUTPUT_TOKENS or use another "
        "model.",
        "O modelo gastou o limite de saída ({cap} tokens) pensando e não terminou a resposta, "
        "nem com mais espaço; aumente VICARAN_MAX_OUTPUT_TOKENS ou use outro modelo.",
    ),
    "gemini_no_key": (
        "Vicaran needs a Gemini API key: set GOOGLE_API_KEY in your .env file (get one at "
        "https://aistudio.google.com/apikey) and restart, or use Vertex AI with "
        "GOOGLE_GENAI_USE_ENTERPRISE=1, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION.",
        "O Vicaran precisa de uma chave de API do Gemini: defina GOOGLE_API_KEY no arquivo .env "
        "(crie uma em https://aistudio.google.com/apikey) e reinicie, ou use o Vertex AI com "
        "GOOGLE_GENAI_USE_ENTERPRISE=1, GOOGLE_CLOUD_PROJECT e GOOGLE_CLOUD_LOCATION.",
    ),
    "gemini_vertex_incomplete": (
        "Vicaran is set to use Vertex AI but GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION "
        "are not both set: add them to your .env file and restart.",
        "O Vicaran está configurado para usar o Vertex AI, mas GOOGLE_CLOUD_PROJECT e "
        "GOOGLE_CLOUD_LOCATION não estão ambos definidos: inclua-os no arquivo .env e reinicie.",
    ),
    # a retried failure: what happened, then what to do
    "failure_advice": ("{what}: {advice}", "{what}: {advice}"),
    "failure_retried": (
        (
            "{what} (still failing after {count} retry): {advice}",
            "{what} (still failing after {count} retries): {advice}",
        ),
        (
            "{what} (ainda falhando após {count} nova tentativa): {advice}",
            "{what} (ainda falhando após {count} novas tentativas): {advice}",
        ),
    ),
    "advice_try_later": ("try again later", "tente de novo mais tarde"),
    "advice_timeout": (
        "try again later or raise VICARAN_SEARCH_TIMEOUT_SECONDS",
        "tente de novo mais tarde ou aumente VICARAN_SEARCH_TIMEOUT_SECONDS",
    ),
    "search_timed_out": (
        "{service} search timed out after {seconds} s",
        "A busca no {service} não respondeu em {seconds} s",
    ),
    "server_error": (
        "{service} server error (HTTP {status})",
        "{service}: erro no servidor (HTTP {status})",
    ),
    "unreachable": (
        "Could not reach {service} at {url} ({error})",
        "Não foi possível alcançar {service} em {url} ({error})",
    ),
    "advice_network": (
        "check the network connection or {setting}",
        "confira a conexão de rede ou {setting}",
    ),
    "not_json": (
        "{service} search failed: the answer was not a JSON object",
        "A busca no {service} falhou: a resposta não era um objeto JSON",
    ),
    "answer_too_large": (
        "{service} sent an answer larger than {limit} bytes, more than Vicaran reads of one "
        "answer: it was set aside unread; check {setting} ({url})",
        "{service} enviou uma resposta maior que {limit} bytes, mais do que o Vicaran lê de uma "
        "resposta: ela foi deixada de lado sem ser lida; confira {setting} ({url})",
    ),
    "answered_http": (
        "{service} answered HTTP {status}: check {setting} ({url})",
        "{service} respondeu HTTP {status}: confira {setting} ({url})",
    ),
    # Tavily (web search)
    "search_key_missing": (
        "Web search is off: set TAVILY_API_KEY in .env (get a key at https://app.tavily.com)",
        "A busca na web está desligada: defina TAVILY_API_KEY no .env (crie uma chave em "
        "https://app.tavily.com)",
    ),
    "tavily_rate_limited": (
        "Tavily rate limit hit (429)",
        "Limite de uso do Tavily atingido (429)",
    ),
    "advice_rate_limited": (
        "wait a minute, or lower VICARAN_CONCURRENCY",
        "espere um minuto ou diminua VICARAN_CONCURRENCY",
    ),
    "tavily_key_rejected": (
        "Tavily rejected the API key (401): set a valid TAVILY_API_KEY in .env "
        "(keys at https://app.tavily.com)",
        "O Tavily recusou a chave de API (401): defina uma TAVILY_API_KEY válida no .env "
        "(chaves em https://app.tavily.com)",
    ),
    "tavily_bad_query": (
        'Tavily rejected the search "{query}" (400: {detail}): rephrase the query or check the '
        "search options",
        'O Tavily recusou a busca "{query}" (400: {detail}): reformule a busca ou confira as '
        "opções de busca",
    ),
    "tavily_unexpected": (
        "Tavily search failed unexpectedly ({error}: {detail}): try again later",
        "A busca no Tavily falhou de forma inesperada ({error}: {detail}): tente de novo mais "
        "tarde",
    ),
    "tavily_credits": (
        "Tavily credit limit of your plan reached (432): upgrade the plan or wait for the "
        "monthly reset at https://app.tavily.com",
        "O limite de créditos do seu plano no Tavily foi atingido (432): mude de plano ou "
        "espere a renovação mensal em https://app.tavily.com",
    ),
    "tavily_payg": (
        "Tavily pay-as-you-go limit reached (433): raise the limit at https://app.tavily.com",
        "O limite pré-pago do Tavily foi atingido (433): aumente o limite em "
        "https://app.tavily.com",
    ),
    "tavily_forbidden": (
        "Tavily refused the request (403 forbidden: {detail}): check that your TAVILY_API_KEY "
        "and plan allow it at https://app.tavily.com",
        "O Tavily recusou o pedido (403 forbidden: {detail}): confira se a sua TAVILY_API_KEY "
        "e o seu plano permitem isso em https://app.tavily.com",
    ),
    # Google Fact Check Tools
    "factcheck_key_missing": (
        "Fact-check databases skipped: set FACTCHECK_API_KEY in .env to search Google Fact "
        "Check Tools",
        "Bases de checagem não consultadas: defina FACTCHECK_API_KEY no .env para buscar no "
        "Google Fact Check Tools",
    ),
    "factcheck_key_invalid": (
        "Fact Check Tools rejected the API key (400): set a valid FACTCHECK_API_KEY in .env "
        "(keys at {url})",
        "O Fact Check Tools recusou a chave de API (400): defina uma FACTCHECK_API_KEY válida "
        "no .env (chaves em {url})",
    ),
    "factcheck_unexpected": (
        "Fact Check Tools search failed unexpectedly ({error}): check FACTCHECK_BASE_URL, or "
        "try again later",
        "A busca no Fact Check Tools falhou de forma inesperada ({error}): confira "
        "FACTCHECK_BASE_URL ou tente de novo mais tarde",
    ),
    "factcheck_not_json": (
        "Fact Check Tools answered with something other than JSON: check FACTCHECK_BASE_URL "
        "({url})",
        "O Fact Check Tools respondeu algo que não é JSON: confira FACTCHECK_BASE_URL ({url})",
    ),
    "factcheck_rate_limited": (
        "Fact Check Tools quota or rate limit hit (429)",
        "Cota ou limite de uso do Fact Check Tools atingido (429)",
    ),
    "advice_factcheck_quota": (
        "wait a minute, lower VICARAN_CONCURRENCY, or check the API quota of the "
        "FACTCHECK_API_KEY project in the Google Cloud console",
        "espere um minuto, diminua VICARAN_CONCURRENCY ou confira a cota da API do projeto da "
        "FACTCHECK_API_KEY no console do Google Cloud",
    ),
    "factcheck_disabled": (
        "Fact Check Tools API is disabled for the Google Cloud project of FACTCHECK_API_KEY "
        "({status}): enable it at {url}, wait a few minutes and try again",
        "A API do Fact Check Tools está desativada no projeto do Google Cloud da "
        "FACTCHECK_API_KEY ({status}): ative-a em {url}, espere alguns minutos e tente de novo",
    ),
    "factcheck_key_restricted": (
        "Fact Check Tools refused the API key ({status} {reason}): allow the Fact Check Tools "
        "API in the key's restrictions, or set another FACTCHECK_API_KEY in .env ({url})",
        "O Fact Check Tools recusou a chave de API ({status} {reason}): libere a API do Fact "
        "Check Tools nas restrições da chave ou defina outra FACTCHECK_API_KEY no .env ({url})",
    ),
    "factcheck_no_key_sent": (
        "Fact Check Tools did not receive the API key ({status}): set a valid FACTCHECK_API_KEY "
        "in .env",
        "O Fact Check Tools não recebeu a chave de API ({status}): defina uma FACTCHECK_API_KEY "
        "válida no .env",
    ),
    "factcheck_bad_query": (
        'Fact Check Tools rejected the search "{query}" ({detail}): rephrase the query',
        'O Fact Check Tools recusou a busca "{query}" ({detail}): reformule a busca',
    ),
    "factcheck_refused": (
        "Fact Check Tools refused the request ({detail}): check FACTCHECK_API_KEY and that the "
        "Fact Check Tools API is enabled for its project ({url})",
        "O Fact Check Tools recusou o pedido ({detail}): confira a FACTCHECK_API_KEY e se a API "
        "do Fact Check Tools está ativada no projeto dela ({url})",
    ),
    # Querido Diário (official gazettes): the client
    "gazettes_rejected": (
        'Querido Diário rejected the search "{query}" ({detail})',
        'O Querido Diário recusou a busca "{query}" ({detail})',
    ),
    "gazettes_bad_date": (
        'Gazette search not sent: {name} must be a date as YYYY-MM-DD, not "{value}"',
        "Busca nos diários oficiais não enviada: {name} deve ser uma data no formato "
        'AAAA-MM-DD, não "{value}"',
    ),
    "gazettes_dates_reversed": (
        "Gazette search not sent: the period starts ({since}) after it ends ({until})",
        "Busca nos diários oficiais não enviada: o período começa ({since}) depois de terminar "
        "({until})",
    ),
    "gazettes_rate_limited": (
        "Querido Diário rate limit hit (429)",
        "Limite de requisições do Querido Diário atingido (429)",
    ),
    "advice_gazettes_rate": (
        "wait a minute, or lower VICARAN_QUERIDO_DIARIO_RPM",
        "espere um minuto ou diminua VICARAN_QUERIDO_DIARIO_RPM",
    ),
    "gazettes_rate_wait": (
        "Querido Diário rate limit hit (429): it asks Vicaran to wait {seconds} s, longer than a "
        "request may take ({longest} s, VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS): try again later",
        "Limite de requisições do Querido Diário atingido (429): ele pede que o Vicaran espere "
        "{seconds} s, mais do que uma requisição pode levar ({longest} s, "
        "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS): tente de novo mais tarde",
    ),
    "advice_gazettes_timeout": (
        "a term's first search can take 20-36 s: try again (a repeat is faster) or raise "
        "VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS",
        "a primeira busca de um termo pode levar de 20 a 36 s: tente de novo (a repetição é mais "
        "rápida) ou aumente VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS",
    ),
    "gazettes_redirect_loop": (
        "Querido Diário's address redirects in a loop ({url}): check QUERIDO_DIARIO_BASE_URL",
        "O endereço do Querido Diário redireciona em círculo ({url}): confira "
        "QUERIDO_DIARIO_BASE_URL",
    ),
    "gazettes_redirects": (
        "Querido Diário's address redirected more than {count} times: check "
        "QUERIDO_DIARIO_BASE_URL ({url})",
        "O endereço do Querido Diário redirecionou mais de {count} vezes: confira "
        "QUERIDO_DIARIO_BASE_URL ({url})",
    ),
    "gazettes_refused": (
        "Querido Diário request not sent ({reason}): check QUERIDO_DIARIO_BASE_URL",
        "Requisição ao Querido Diário não enviada ({reason}): confira QUERIDO_DIARIO_BASE_URL",
    ),
    "gazettes_not_json": (
        "Querido Diário answered with something other than JSON: check QUERIDO_DIARIO_BASE_URL "
        "({url})",
        "O Querido Diário respondeu algo que não é JSON: confira QUERIDO_DIARIO_BASE_URL ({url})",
    ),
    "gazettes_unexpected": (
        "Querido Diário search failed unexpectedly ({error}): check QUERIDO_DIARIO_BASE_URL, or "
        "try again later",
        "A busca no Querido Diário falhou de forma inesperada ({error}): confira "
        "QUERIDO_DIARIO_BASE_URL ou tente de novo mais tarde",
    ),
    "city_resolved": (
        "{name} ({state}) is territory {territory_id}",
        "{name} ({state}) é o território {territory_id}",
    ),
    "city_homonyms": (
        (
            "{count} city is named {name} ({states}): searching without a city filter",
            "{count} cities are named {name} ({states}): searching without a city filter",
        ),
        (
            "{count} cidade se chama {name} ({states}): buscando sem filtro de cidade",
            "{count} cidades se chamam {name} ({states}): buscando sem filtro de cidade",
        ),
    ),
    "city_not_in_state": (
        "No city named {name} in {state} (only in {states}): searching without a city filter",
        "Nenhuma cidade chamada {name} em {state} (só em {states}): buscando sem filtro de cidade",
    ),
    "city_unknown": (
        "Querido Diário knows no city named {name}: searching without a city filter",
        "O Querido Diário não conhece cidade chamada {name}: buscando sem filtro de cidade",
    ),
    "city_unknown_close": (
        "Querido Diário knows no city named {name} (close names: {names}): searching without a "
        "city filter",
        "O Querido Diário não conhece cidade chamada {name} (nomes parecidos: {names}): buscando "
        "sem filtro de cidade",
    ),
    "cities_failed": (
        "Could not look up {name} in Querido Diário's city list ({what}): searching without a "
        "city filter",
        "Não foi possível procurar {name} na lista de cidades do Querido Diário ({what}): "
        "buscando sem filtro de cidade",
    ),
    "gazette_unreadable": (
        "Could not read the gazette text at {url}: {reason}",
        "Não foi possível ler o texto do diário em {url}: {reason}",
    ),
    "gazette_text_not_web": (
        "not a web address (an http or https URL is needed)",
        "não é um endereço web (é preciso uma URL http ou https)",
    ),
    "gazette_text_timeout": ("timed out after {seconds} s", "sem resposta em {seconds} s"),
    "gazette_text_status": (
        "the file host answered HTTP {status}",
        "o servidor de arquivos respondeu HTTP {status}",
    ),
    "gazette_text_not_text": ("not a text file ({media})", "não é um arquivo de texto ({media})"),
    "gazette_text_binary": (
        "binary content, not a text",
        "conteúdo binário, não um texto",
    ),
    "gazette_text_unreachable": ("connection failed ({error})", "a conexão falhou ({error})"),
    "gazette_text_redirects": (
        "too many redirects (more than {count})",
        "redirecionamentos demais (mais de {count})",
    ),
    # `vicaran gazettes search`
    "gazettes_cli_city": (
        "City: {name} ({state}), territory {territory_id}.",
        "Cidade: {name} ({state}), território {territory_id}.",
    ),
    "gazettes_cli_pick": (
        "Give --state to choose one: {cities}.",
        "Use --state para escolher uma: {cities}.",
    ),
    "gazettes_cli_not_in_state": (
        "No city named {name} in {state} (only in {states}).",
        "Nenhuma cidade chamada {name} em {state} (só em {states}).",
    ),
    "gazettes_cli_unknown_city": (
        "Querido Diário knows no city named {name}.",
        "O Querido Diário não conhece cidade chamada {name}.",
    ),
    "gazettes_cli_close": ("Close names: {cities}.", "Nomes parecidos: {cities}."),
    "gazettes_cli_none": ("No gazette matches.", "Nenhum diário oficial corresponde à busca."),
    "gazettes_cli_total": (
        ("{count} gazette matches.", "{count} gazettes match."),
        (
            "{count} diário oficial corresponde à busca.",
            "{count} diários oficiais correspondem à busca.",
        ),
    ),
    "gazettes_cli_showing": (
        ("Showing the first one.", "Showing the first {count}."),
        ("Mostrando o primeiro.", "Mostrando os {count} primeiros."),
    ),
    "gazettes_cli_score": ("score {score}", "pontuação {score}"),
    "gazettes_cli_edition": ("edition {edition}", "edição {edition}"),
    "gazettes_cli_extra": ("extra edition {edition}", "edição extra {edition}"),
    "gazettes_cli_no_text": ("no text extracted", "sem texto extraído"),
    "gazettes_cli_reversed": (
        "The period ends ({until}) before it starts ({since}).",
        "O período termina ({until}) antes de começar ({since}).",
    ),
    "gazettes_cli_no_query": (
        "Give a query: what should the gazettes say?",
        "Informe uma busca: o que os diários oficiais devem dizer?",
    ),
    # live Google Search through the model
    "live_problem": ("Live Google Search: {problem}", "Busca do Google ao vivo: {problem}"),
    "live_unexpected": (
        "Live Google Search: unexpected error ({error}).",
        "Busca do Google ao vivo: erro inesperado ({error}).",
    ),
    "live_no_answer": (
        "Live Google Search: the model returned no answer ({detail}).",
        "Busca do Google ao vivo: o modelo não deu resposta ({detail}).",
    ),
    "live_uncited": (
        "Live Google Search: the model answered without citing any web sources.",
        "Busca do Google ao vivo: o modelo respondeu sem citar nenhuma fonte da web.",
    ),
    "live_dropped": (
        "Live Google Search: dropped the source '{name}' ({reason}).",
        "Busca do Google ao vivo: a fonte '{name}' foi descartada ({reason}).",
    ),
    "live_unread": (
        "Live Google Search: the source '{name}' ({url}) is cited as Google found it, not read "
        "by Vicaran ({reason}).",
        "Busca do Google ao vivo: a fonte '{name}' ({url}) é citada como o Google a encontrou, "
        "sem ter sido lida pelo Vicaran ({reason}).",
    ),
    # reading and digesting a page
    "page_unreadable": ("{url} could not be read: {reason}", "{url} não pôde ser lida: {reason}"),
    "page_not_summarised": (
        "{url} was read but not summarised: {error}",
        "{url} foi lida, mas não resumida: {error}",
    ),
    "page_too_slow": (
        "reading and summarising took longer than {seconds} s",
        "a leitura e o resumo levaram mais de {seconds} s",
    ),
}
_MESSAGES.update(_PROBLEMS)

# `vicaran doctor` (doctor.py): one line per service, "✓ Service: what was found → the fix"
_DOCTOR: dict[str, tuple[_Text, _Text]] = {
    "doctor_retired_host": (
        "QUERIDO_DIARIO_BASE_URL names Querido Diário's retired host {host}, which answers 404 "
        "on every path: set QUERIDO_DIARIO_BASE_URL={new} {where}.",
        "QUERIDO_DIARIO_BASE_URL aponta para o endereço aposentado do Querido Diário, {host}, "
        "que responde 404 em todo caminho: defina QUERIDO_DIARIO_BASE_URL={new} {where}.",
    ),
    "doctor_in_environment": ("in the environment", "no ambiente"),
    "doctor_in_env": ("in .env", "no .env"),
    # the services
    "doctor_plugins": (
        "Model plugins (VICARAN_MODEL_PLUGINS)",
        "Plugins de modelo (VICARAN_MODEL_PLUGINS)",
    ),
    "doctor_model": ("Model {model} ({variables})", "Modelo {model} ({variables})"),
    "doctor_tavily": ("Tavily (web search)", "Tavily (busca na web)"),
    "doctor_jina": ("Jina Reader (page reading)", "Jina Reader (leitura de páginas)"),
    "doctor_factcheck": (
        "Fact Check Tools (fact-check databases)",
        "Fact Check Tools (bases de checagens)",
    ),
    "doctor_querido_diario": (
        "Querido Diário (official gazettes)",
        "Querido Diário (diários oficiais)",
    ),
    "doctor_callback": ("Callback API (newsroom)", "API de callback (redação)"),
    "doctor_database": ("Records database", "Banco de registros"),
    "doctor_sessions": (
        "ADK session store (VICARAN_SESSION_DB_URL)",
        "Sessões do ADK (VICARAN_SESSION_DB_URL)",
    ),
    # what any service can answer
    "doctor_timeout": (
        "did not answer within {seconds} s",
        "não respondeu em {seconds} s",
    ),
    "doctor_unreachable": (
        "could not be reached ({error})",
        "não foi possível alcançá-lo ({error})",
    ),
    "doctor_answer_too_large": (
        "answered more than {limit} bytes, more than a check reads: set aside unread",
        "respondeu mais de {limit} bytes, mais do que uma verificação lê: deixado de lado sem ler",
    ),
    "doctor_check_failed": (
        "the check failed ({error}: {detail})",
        "a verificação falhou ({error}: {detail})",
    ),
    "doctor_answered": (
        "answered HTTP {status}, which its API does not answer here",
        "respondeu HTTP {status}, o que a API dele não responde aqui",
    ),
    "doctor_rate_limited": (
        "reachable, but limiting requests right now (429{retry})",
        "acessível, mas limitando as requisições agora (429{retry})",
    ),
    "doctor_server_error": (
        "reachable, but failing right now (HTTP {status}); Vicaran retries such errors",
        "acessível, mas falhando agora (HTTP {status}); o Vicaran repete essas chamadas",
    ),
    "doctor_not_configured": (
        "not configured — {variable} unset",
        "não configurado — {variable} sem valor",
    ),
    "doctor_key_accepted": ("key{masked} accepted", "chave{masked} aceita"),
    "doctor_key_refused": (
        "key{masked} refused (HTTP {status})",
        "chave{masked} recusada (HTTP {status})",
    ),
    "doctor_fix_address": (
        "check {variable} and this machine's network connection",
        "confira {variable} e a conexão de rede desta máquina",
    ),
    "doctor_fix_network": (
        "check this machine's network connection and proxy settings",
        "confira a conexão de rede e o proxy desta máquina",
    ),
    "doctor_fix_address_now": (
        "check {variable} (now {url})",
        "confira {variable} (hoje {url})",
    ),
    "doctor_fix_rate_limited": (
        "wait a minute and run `vicaran doctor` again; if it stays, lower {budget}",
        "espere um minuto e rode `vicaran doctor` de novo; se continuar, diminua {budget}",
    ),
    # models
    "doctor_plugins_failed": ("could not be loaded", "não puderam ser carregados"),
    "doctor_model_unknown": (
        "not a model name ADK can resolve",
        "não é um nome de modelo que o ADK resolva",
    ),
    "doctor_fix_model_unknown": (
        "set {variables} to a model ADK knows (e.g. gemini-3.5-flash); provider models like "
        "ollama_chat/... need `uv sync --extra local`, your own classes VICARAN_MODEL_PLUGINS",
        "defina {variables} com um modelo que o ADK conheça (p. ex. gemini-3.5-flash); modelos "
        "de provedores como ollama_chat/... precisam de `uv sync --extra local`, classes suas "
        "de VICARAN_MODEL_PLUGINS",
    ),
    "doctor_model_resolvable": (
        "resolvable ({kind}); no key of it to check here",
        "resolvível ({kind}); não há chave dele a verificar aqui",
    ),
    "doctor_model_no_credentials": ("no Gemini credentials", "sem credenciais do Gemini"),
    "doctor_model_client": (
        "the Gemini client could not start ({detail})",
        "o cliente do Gemini não pôde iniciar ({detail})",
    ),
    "doctor_model_ok": (
        "the {api} accepted the credentials and knows this model",
        "a {api} aceitou as credenciais e conhece este modelo",
    ),
    "doctor_model_ok_limit": (
        "the {api} accepted the credentials and knows this model (up to {tokens} input tokens)",
        "a {api} aceitou as credenciais e conhece este modelo (até {tokens} tokens de entrada)",
    ),
    "doctor_model_refused": (
        "the {api} refused the credentials (HTTP {status})",
        "a {api} recusou as credenciais (HTTP {status})",
    ),
    "doctor_fix_gemini_key": (
        "set a valid GOOGLE_API_KEY in .env (https://aistudio.google.com/apikey), or correct "
        "the Vertex AI settings (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION and the login)",
        "defina uma GOOGLE_API_KEY válida no .env (https://aistudio.google.com/apikey), ou "
        "corrija as configurações do Vertex AI (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION e o "
        "login)",
    ),
    "doctor_model_missing": (
        "the {api} does not offer this model to these credentials (HTTP 404)",
        "a {api} não oferece este modelo a estas credenciais (HTTP 404)",
    ),
    "doctor_fix_model_missing": (
        "set {variables} to an available model (https://ai.google.dev/gemini-api/docs/models)",
        "defina {variables} com um modelo disponível "
        "(https://ai.google.dev/gemini-api/docs/models)",
    ),
    "doctor_model_failed": (
        "the model check failed (HTTP {status}: {detail})",
        "a verificação do modelo falhou (HTTP {status}: {detail})",
    ),
    # Tavily
    "doctor_no_tavily": (
        "{unset}; web search is off: investigations use the journalist's links and documents, "
        "fact-check databases and Google Search grounding where they are available",
        "{unset}; a busca na web está desligada: as investigações usam os links e documentos "
        "do jornalista, as bases de checagens e a busca do Google quando disponíveis",
    ),
    "doctor_tavily_ok": (
        "{accepted}; {credits} (plan {plan}); Vicaran sends at most {rpm} requests/min "
        "(VICARAN_TAVILY_RPM)",
        "{accepted}; {credits} (plano {plan}); o Vicaran envia no máximo {rpm} requisições/min "
        "(VICARAN_TAVILY_RPM)",
    ),
    "doctor_tavily_credits": (
        "{used} of {limit} credits used this month",
        "{used} de {limit} créditos usados no mês",
    ),
    "doctor_tavily_credits_unlimited": (
        "{used} credits used this month, no limit on the key",
        "{used} créditos usados no mês, sem limite na chave",
    ),
    "doctor_tavily_no_usage": (
        "reachable, but GET /usage answered HTTP {status}: the key could not be checked "
        "without spending a search",
        "acessível, mas GET /usage respondeu HTTP {status}: não foi possível verificar a chave "
        "sem gastar uma busca",
    ),
    "doctor_fix_tavily_key": (
        "set a valid TAVILY_API_KEY in .env (https://app.tavily.com)",
        "defina uma TAVILY_API_KEY válida no .env (https://app.tavily.com)",
    ),
    "doctor_fix_tavily_plan": (
        "the key's plan refuses it: check the key and its limits at https://app.tavily.com",
        "o plano da chave a recusa: confira a chave e os limites em https://app.tavily.com",
    ),
    "doctor_fix_tavily_spent": (
        "the key's credits are spent: raise its limit or upgrade at https://app.tavily.com, or "
        "set another TAVILY_API_KEY",
        "os créditos da chave acabaram: aumente o limite ou o plano em https://app.tavily.com, "
        "ou defina outra TAVILY_API_KEY",
    ),
    # Jina Reader
    "doctor_jina_anonymous": (
        "reachable, without a key: Vicaran reads at most {rpm} pages/min (JINA_API_KEY raises "
        "Reader's limit from 20 to 200)",
        "acessível, sem chave: o Vicaran lê no máximo {rpm} páginas/min (JINA_API_KEY eleva o "
        "limite do Reader de 20 para 200)",
    ),
    "doctor_jina_key_ok": (
        "key{masked} accepted, {balance} tokens left; Vicaran reads at most {rpm} pages/min "
        "(VICARAN_JINA_RPM)",
        "chave{masked} aceita, restam {balance} tokens; o Vicaran lê no máximo {rpm} "
        "páginas/min (VICARAN_JINA_RPM)",
    ),
    "doctor_jina_key_sent": (
        "reachable, key{masked} sent (Reader's index does not say whose it is); Vicaran reads at "
        "most {rpm} pages/min (VICARAN_JINA_RPM)",
        "acessível, chave{masked} enviada (o índice do Reader não diz de quem é); o Vicaran lê "
        "no máximo {rpm} páginas/min (VICARAN_JINA_RPM)",
    ),
    "doctor_jina_needs_key": (
        "Reader asks for a key (HTTP 401)",
        "o Reader pede uma chave (HTTP 401)",
    ),
    "doctor_fix_jina_key": (
        "set a valid JINA_API_KEY in .env (https://jina.ai/reader), or remove it to read "
        "anonymously (20 pages/min)",
        "defina uma JINA_API_KEY válida no .env (https://jina.ai/reader), ou remova-a para ler "
        "sem chave (20 páginas/min)",
    ),
    "doctor_jina_spent": (
        "the key's balance is spent (no tokens left)",
        "o saldo da chave acabou (nenhum token restante)",
    ),
    "doctor_fix_jina_spent": (
        "recharge it at https://jina.ai/reader, or remove JINA_API_KEY to read anonymously "
        "(20 pages/min)",
        "recarregue-o em https://jina.ai/reader, ou remova JINA_API_KEY para ler sem chave "
        "(20 páginas/min)",
    ),
    # Fact Check Tools
    "doctor_no_factcheck": (
        "{unset}; claims are checked without fact-check databases",
        "{unset}; as alegações são verificadas sem as bases de checagens",
    ),
    "doctor_factcheck_ok": (
        "{accepted}; Vicaran sends at most {rpm} requests/min (VICARAN_FACTCHECK_RPM)",
        "{accepted}; o Vicaran envia no máximo {rpm} requisições/min (VICARAN_FACTCHECK_RPM)",
    ),
    "doctor_factcheck_disabled": (
        "the Fact Check Tools API is not enabled for the key's project (HTTP 403)",
        "a API Fact Check Tools não está ativada no projeto da chave (HTTP 403)",
    ),
    "doctor_fix_factcheck_enable": (
        "enable it at {url} and wait a few minutes",
        "ative-a em {url} e espere alguns minutos",
    ),
    "doctor_fix_factcheck_key": (
        "set a valid FACTCHECK_API_KEY in .env (Google Cloud console, APIs & Services, "
        "Credentials), or remove it to check claims without fact-check databases",
        "defina uma FACTCHECK_API_KEY válida no .env (console do Google Cloud, APIs e serviços, "
        "Credenciais), ou remova-a para verificar alegações sem as bases de checagens",
    ),
    # Querido Diário
    "doctor_querido_diario_ok": (
        "reachable; Vicaran sends at most {rpm} requests/min, {burst} at once "
        "(VICARAN_QUERIDO_DIARIO_RPM, VICARAN_QUERIDO_DIARIO_BURST)",
        "acessível; o Vicaran envia no máximo {rpm} requisições/min, {burst} de uma vez "
        "(VICARAN_QUERIDO_DIARIO_RPM, VICARAN_QUERIDO_DIARIO_BURST)",
    ),
    "doctor_retired": (
        "{host} is the retired host: it answers 404 on every path",
        "{host} é o endereço aposentado: responde 404 em todo caminho",
    ),
    "doctor_fix_retired": (
        "set QUERIDO_DIARIO_BASE_URL={new} in .env (or the environment)",
        "defina QUERIDO_DIARIO_BASE_URL={new} no .env (ou no ambiente)",
    ),
    "doctor_redirected": (
        "answers with a redirect to {location}",
        "responde com um redirecionamento para {location}",
    ),
    "doctor_fix_redirected": (
        "set QUERIDO_DIARIO_BASE_URL={new}",
        "defina QUERIDO_DIARIO_BASE_URL={new}",
    ),
    # the newsroom's callback API
    "doctor_no_callback": (
        "{unset}; records stay in this server's database",
        "{unset}; os registros ficam no banco deste servidor",
    ),
    "doctor_callback_no_secret": (
        "CALLBACK_API_URL is set but AGENT_SECRET is not: no record is delivered",
        "CALLBACK_API_URL está definida mas AGENT_SECRET não: nenhum registro é entregue",
    ),
    "doctor_fix_callback_secret": (
        "set AGENT_SECRET to the secret the receiver expects (X-Agent-Secret)",
        "defina AGENT_SECRET com o segredo que o receptor espera (X-Agent-Secret)",
    ),
    "doctor_callback_ok": (
        "reachable, secret accepted (an empty test record was refused, as it should be: "
        "nothing was saved)",
        "acessível, segredo aceito (um registro vazio de teste foi recusado, como deve ser: "
        "nada foi salvo)",
    ),
    "doctor_callback_refused": (
        "the secret was refused (HTTP {status})",
        "o segredo foi recusado (HTTP {status})",
    ),
    "doctor_callback_host": (
        "the receiver refuses this host name (HTTP {status})",
        "o receptor recusa este nome de host (HTTP {status})",
    ),
    "doctor_fix_callback_host": (
        "add {host} to the receiver's VICARAN_ALLOWED_HOSTS",
        "inclua {host} em VICARAN_ALLOWED_HOSTS do receptor",
    ),
    "doctor_callback_lenient": (
        "reachable, but it accepted an empty record (HTTP {status}): the receiver does not "
        "check records as the contract says (400)",
        "acessível, mas aceitou um registro vazio (HTTP {status}): o receptor não confere os "
        "registros como o contrato diz (400)",
    ),
    "doctor_callback_busy": (
        "{said}; records wait in the outbox until it takes them",
        "{said}; os registros aguardam na fila até que ele os receba",
    ),
    "doctor_fix_callback_path": (
        "check CALLBACK_API_URL (now {url}): the receiver's own path, e.g. …/api/agent-callback",
        "confira CALLBACK_API_URL (hoje {url}): o caminho do próprio receptor, p. ex. "
        "…/api/agent-callback",
    ),
    # the records database and ADK's sessions
    "doctor_database_ok": (
        "open, schema up to date (revision {revision})",
        "aberto, esquema atualizado (revisão {revision})",
    ),
    "doctor_database_sqlite_behind": (
        "open, schema at revision {revision}; Vicaran upgrades the file to {head} when it opens it",
        "aberto, esquema na revisão {revision}; o Vicaran atualiza o arquivo para a {head} ao "
        "abri-lo",
    ),
    "doctor_database_schema": (
        "open, but the schema is at revision {revision} and this Vicaran needs {head}",
        "aberto, mas o esquema está na revisão {revision} e este Vicaran precisa da {head}",
    ),
    "doctor_database_not_yet": (
        "not created yet: the first run creates {path}",
        "ainda não criado: a primeira execução cria {path}",
    ),
    "doctor_database_cannot_make": (
        "{path} cannot be created here",
        "{path} não pode ser criado aqui",
    ),
    "doctor_database_not_file": ("{path} is not a file", "{path} não é um arquivo"),
    "doctor_database_memory": (
        "in memory: nothing is kept after the process ends",
        "em memória: nada fica guardado depois que o processo termina",
    ),
    "doctor_database_cannot_open": (
        "cannot be opened ({error}: {detail})",
        "não pode ser aberto ({error}: {detail})",
    ),
    "doctor_fix_database": (
        "check VICARAN_DATABASE_URL (now {url}): the server running, the user and password, "
        "a folder Vicaran can write",
        "confira VICARAN_DATABASE_URL (hoje {url}): o servidor no ar, o usuário e a senha, "
        "uma pasta em que o Vicaran possa escrever",
    ),
    "doctor_fix_database_driver": (
        "check VICARAN_DATABASE_URL; PostgreSQL needs `uv sync --extra postgres` and a URL like "
        "postgresql+psycopg://user:password@host:5432/vicaran",
        "confira VICARAN_DATABASE_URL; o PostgreSQL precisa de `uv sync --extra postgres` e de "
        "uma URL como postgresql+psycopg://usuario:senha@host:5432/vicaran",
    ),
    "doctor_sessions_unusable": ("cannot be used", "não pode ser usado"),
    "doctor_sessions_adk": (
        "ADK's {scheme} store (not checked further)",
        "o armazenamento {scheme} do ADK (não verificado além disso)",
    ),
    "doctor_sessions_ok": ("open", "aberto"),
    "doctor_fix_sessions": (
        "check VICARAN_SESSION_DB_URL (now {url}): the server running, the user and password",
        "confira VICARAN_SESSION_DB_URL (hoje {url}): o servidor no ar, o usuário e a senha",
    ),
    # the last line
    "doctor_summary_ok": (
        "Everything the next run needs answers.",
        "Tudo de que a próxima execução precisa responde.",
    ),
    "doctor_summary_warn": (
        (
            "{count} warning above; nothing blocks the next run.",
            "{count} warnings above; nothing blocks the next run.",
        ),
        (
            "{count} aviso acima; nada impede a próxima execução.",
            "{count} avisos acima; nada impede a próxima execução.",
        ),
    ),
    "doctor_summary_fail": (
        "To fix before the next run: {services}.",
        "A corrigir antes da próxima execução: {services}.",
    ),
}
_MESSAGES.update(_DOCTOR)

# Reading the journalist's documents (documents/parse.py and documents/ocr.py)
_DOCUMENT_PROBLEMS: dict[str, tuple[_Text, _Text]] = {
    "document_unsupported": (
        "{name}: Vicaran cannot read this kind of file; it reads PDF, Word (DOCX), HTML, "
        "Markdown and plain-text files, and pages photographed or scanned as PNG, JPEG or TIFF "
        "images.",
        "{name}: o Vicaran não lê este tipo de arquivo; ele lê arquivos PDF, Word (DOCX), HTML, "
        "Markdown e texto simples, e páginas fotografadas ou digitalizadas em imagens PNG, JPEG "
        "ou TIFF.",
    ),
    "document_unreadable_file": (
        "{name} could not be opened ({error}): check the path and the file's permissions.",
        "Não foi possível abrir {name} ({error}): confira o caminho e as permissões do arquivo.",
    ),
    "document_not_regular": (
        "{name} is not a regular file (a pipe, a socket or a device): it was not read.",
        "{name} não é um arquivo comum (um pipe, um socket ou um dispositivo): ele não foi lido.",
    ),
    "document_changed": (
        "{name} changed while it was being added (it is no longer the file found in the "
        "folder): it was not read; add it again.",
        "{name} mudou enquanto era adicionado (não é mais o arquivo encontrado na pasta): ele "
        "não foi lido; adicione-o de novo.",
    ),
    "document_collection_refused": (
        "{name} was not added: this investigation's documents belong to another conversation "
        "(its id was given in another one); start a new investigation to attach it.",
        "{name} não foi adicionado: os documentos desta investigação pertencem a outra conversa "
        "(o id dela foi dado em outra); comece uma nova investigação para anexá-lo.",
    ),
    # why `vicaran docs add` leaves a path out (cli/documents.py)
    "docs_skip_kind": (
        "not a kind of file Vicaran reads",
        "não é um tipo de arquivo que o Vicaran lê",
    ),
    "docs_skip_fifo": (
        "a named pipe (FIFO), not a regular file",
        "um pipe nomeado (FIFO), não um arquivo comum",
    ),
    "docs_skip_socket": ("a socket, not a regular file", "um socket, não um arquivo comum"),
    "docs_skip_device": ("a device, not a regular file", "um dispositivo, não um arquivo comum"),
    "docs_skip_special": ("not a regular file", "não é um arquivo comum"),
    "docs_skip_link_outside": (
        "a link to a file outside the folder: links are followed only inside it",
        "um link para um arquivo fora da pasta: links só são seguidos dentro dela",
    ),
    "docs_skip_link_folder_outside": (
        "a link to a folder outside the folder: links are followed only inside it",
        "um link para uma pasta fora da pasta: links só são seguidos dentro dela",
    ),
    "docs_skip_link_folder_inside": (
        "a link to a folder inside this one: its files are read where they are",
        "um link para uma pasta dentro desta: os arquivos dela são lidos onde estão",
    ),
    "docs_skip_link_loop": (
        "a link that leads back to itself (a loop)",
        "um link que leva de volta a si mesmo (um ciclo)",
    ),
    "docs_skip_link_dangling": (
        "a link to a file that does not exist",
        "um link para um arquivo que não existe",
    ),
    "docs_skip_link_unreadable": (
        "a link that could not be followed ({error})",
        "um link que não pôde ser seguido ({error})",
    ),
    "docs_skip_link_duplicate": (
        "a link to {target}, read under its own name",
        "um link para {target}, lido com o próprio nome",
    ),
    "document_empty": (
        "{name} is empty: there is nothing in it to read.",
        "{name} está vazio: não há nada nele para ler.",
    ),
    "document_too_large": (
        "{name} is {size}, over the limit of {limit}: split it into smaller files or raise "
        "VICARAN_DOCUMENT_MAX_BYTES.",
        "{name} tem {size}, acima do limite de {limit}: divida-o em arquivos menores ou aumente "
        "VICARAN_DOCUMENT_MAX_BYTES.",
    ),
    "request_too_large": (
        "This message is larger than this server accepts ({limit} bytes, "
        "VICARAN_MAX_REQUEST_BYTES): attach files of at most {document} bytes each "
        "(VICARAN_DOCUMENT_MAX_BYTES), or send them in separate messages.",
        "Esta mensagem é maior do que este servidor aceita ({limit} bytes, "
        "VICARAN_MAX_REQUEST_BYTES): anexe arquivos de no máximo {document} bytes cada "
        "(VICARAN_DOCUMENT_MAX_BYTES) ou envie-os em mensagens separadas.",
    ),
    "document_too_many_pages": (
        (
            "{name} has more than {count} page, the limit: split it into smaller files or raise "
            "VICARAN_DOCUMENT_MAX_PAGES.",
            "{name} has more than {count} pages, the limit: split it into smaller files or raise "
            "VICARAN_DOCUMENT_MAX_PAGES.",
        ),
        (
            "{name} tem mais de {count} página, o limite: divida-o em arquivos menores ou aumente "
            "VICARAN_DOCUMENT_MAX_PAGES.",
            "{name} tem mais de {count} páginas, o limite: divida-o em arquivos menores ou "
            "aumente VICARAN_DOCUMENT_MAX_PAGES.",
        ),
    ),
    "document_encrypted": (
        "{name} is protected by a password: open it, save a copy without the password and add "
        "that copy.",
        "{name} está protegido por senha: abra-o, salve uma cópia sem a senha e adicione essa "
        "cópia.",
    ),
    "document_corrupt": (
        "{name} is damaged or incomplete and cannot be read as {kind}: get a fresh copy of the "
        "file (a download may have been cut short).",
        "{name} está danificado ou incompleto e não pode ser lido como {kind}: obtenha uma nova "
        "cópia do arquivo (um download pode ter sido interrompido).",
    ),
    "document_unpacks_too_large": (
        "{name} would unpack to more than {limit}, far beyond an ordinary Word document: it was "
        "not opened.",
        "{name} ocuparia mais de {limit} ao ser descompactado, muito além de um documento Word "
        "comum: ele não foi aberto.",
    ),
    # a file whose reader (a worker process) ran out of time or memory, or died
    "document_parse_timeout": (
        "{name} took longer than {seconds} s to read and was set aside "
        "(VICARAN_PARSE_TIMEOUT_SECONDS): it may be damaged, or built to stall a reader.",
        "{name} levou mais de {seconds} s para ser lido e foi deixado de lado "
        "(VICARAN_PARSE_TIMEOUT_SECONDS): ele pode estar danificado, ou ter sido feito para "
        "travar um leitor.",
    ),
    "document_parse_memory": (
        "{name} needed more than the {limit} MB of memory a reader may use "
        "(VICARAN_PARSE_MEMORY_MB) and was set aside: it may be damaged, or built to exhaust "
        "memory.",
        "{name} precisou de mais do que os {limit} MB de memória que um leitor pode usar "
        "(VICARAN_PARSE_MEMORY_MB) e foi deixado de lado: ele pode estar danificado, ou ter sido "
        "feito para esgotar a memória.",
    ),
    "document_parse_crashed": (
        "{name} stopped the {kind} reader that opened it and was set aside: it may be damaged, "
        "or built to exhaust the {limit} MB of memory a reader may use (VICARAN_PARSE_MEMORY_MB).",
        "{name} derrubou o leitor de {kind} que o abriu e foi deixado de lado: ele pode estar "
        "danificado, ou ter sido feito para esgotar os {limit} MB de memória que um leitor pode "
        "usar (VICARAN_PARSE_MEMORY_MB).",
    ),
    "document_parse_unavailable": (
        "{name} could not be read: no reader process could be started ({detail}).",
        "Não foi possível ler {name}: nenhum processo leitor pôde ser iniciado ({detail}).",
    ),
    "document_image_ocr_missing": (
        "{name} is an image and OCR is not installed: install tesseract-ocr (Debian: apt-get "
        "install tesseract-ocr tesseract-ocr-por), then add it again.",
        "{name} é uma imagem e o OCR não está instalado: instale o tesseract-ocr (Debian: apt-get "
        "install tesseract-ocr tesseract-ocr-por) e adicione-a de novo.",
    ),
    "document_image_unread": (
        "{name} is an image and no text was read from it: {reason}.",
        "{name} é uma imagem e nenhum texto foi lido nela: {reason}.",
    ),
    "document_not_text": (
        "{name} does not look like text (its bytes match no text encoding): if it is a PDF or a "
        "Word file, give it the right extension.",
        "{name} não parece ser texto (seus bytes não correspondem a nenhuma codificação de "
        "texto): se for um PDF ou um arquivo Word, dê a ele a extensão correta.",
    ),
    "page_damaged": (
        "page {page} is damaged and could not be read",
        "a página {page} está danificada e não pôde ser lida",
    ),
    "page_ocr_missing": (
        "page {page} is a scanned image and OCR is not installed: install tesseract-ocr "
        "(Debian: apt-get install tesseract-ocr tesseract-ocr-por)",
        "a página {page} é uma imagem digitalizada e o OCR não está instalado: instale o "
        "tesseract-ocr (Debian: apt-get install tesseract-ocr tesseract-ocr-por)",
    ),
    "page_ocr_no_languages": (
        "page {page} is a scanned image and OCR has no language data: install "
        "tesseract-ocr-por (and tesseract-ocr-eng)",
        "a página {page} é uma imagem digitalizada e o OCR não tem dados de idioma: instale "
        "tesseract-ocr-por (e tesseract-ocr-eng)",
    ),
    "page_ocr_failed": (
        "page {page} is a scanned image and OCR failed on it ({detail})",
        "a página {page} é uma imagem digitalizada e o OCR falhou nela ({detail})",
    ),
    "page_ocr_timeout": (
        "page {page} is a scanned image and OCR took longer than {seconds} s on it",
        "a página {page} é uma imagem digitalizada e o OCR levou mais de {seconds} s nela",
    ),
    "page_ocr_budget": (
        "page {page} is a scanned image and was not read: OCR of this file already took "
        "{seconds} s, the limit (VICARAN_OCR_DOCUMENT_SECONDS)",
        "a página {page} é uma imagem digitalizada e não foi lida: o OCR deste arquivo já levou "
        "{seconds} s, o limite (VICARAN_OCR_DOCUMENT_SECONDS)",
    ),
    "page_ocr_pages_budget": (
        "page {page} is a scanned image and was not read: OCR already read {count} pages of "
        "this file, the limit (VICARAN_OCR_DOCUMENT_PAGES)",
        "a página {page} é uma imagem digitalizada e não foi lida: o OCR já leu {count} páginas "
        "deste arquivo, o limite (VICARAN_OCR_DOCUMENT_PAGES)",
    ),
    "page_ocr_investigation_pages": (
        "page {page} is a scanned image and was not read: OCR already read {count} pages of "
        "this investigation's files, the limit (VICARAN_OCR_INVESTIGATION_PAGES)",
        "a página {page} é uma imagem digitalizada e não foi lida: o OCR já leu {count} páginas "
        "dos arquivos desta investigação, o limite (VICARAN_OCR_INVESTIGATION_PAGES)",
    ),
    "page_ocr_investigation_seconds": (
        "page {page} is a scanned image and was not read: OCR of this investigation's files "
        "already took {seconds} s, the limit (VICARAN_OCR_INVESTIGATION_SECONDS)",
        "a página {page} é uma imagem digitalizada e não foi lida: o OCR dos arquivos desta "
        "investigação já levou {seconds} s, o limite (VICARAN_OCR_INVESTIGATION_SECONDS)",
    ),
    "page_image_too_large": (
        "page {page} is an image of more than {limit} million pixels and was not read",
        "a página {page} é uma imagem de mais de {limit} milhões de pixels e não foi lida",
    ),
    "page_ocr_no_text": (
        "page {page} is an image in which OCR found no text",
        "a página {page} é uma imagem na qual o OCR não encontrou texto",
    ),
    # what one document may index (parse._TextBudget)
    "page_cut_chars": (
        "page {page} was indexed only in part: the document's text reached {limit} characters, "
        "the most indexed from one file (VICARAN_DOCUMENT_MAX_CHARS)",
        "a página {page} foi indexada só em parte: o texto do documento chegou a {limit} "
        "caracteres, o máximo indexado de um arquivo (VICARAN_DOCUMENT_MAX_CHARS)",
    ),
    "page_skipped_chars": (
        "page {page} was not indexed: the document's text reached {limit} characters, the most "
        "indexed from one file (VICARAN_DOCUMENT_MAX_CHARS)",
        "a página {page} não foi indexada: o texto do documento chegou a {limit} caracteres, o "
        "máximo indexado de um arquivo (VICARAN_DOCUMENT_MAX_CHARS)",
    ),
    "page_cut_passages": (
        "page {page} was indexed only in part: the document reached {limit} passages, the most "
        "indexed from one file (VICARAN_DOCUMENT_MAX_PASSAGES)",
        "a página {page} foi indexada só em parte: o documento chegou a {limit} trechos, o "
        "máximo indexado de um arquivo (VICARAN_DOCUMENT_MAX_PASSAGES)",
    ),
    "page_skipped_passages": (
        "page {page} was not indexed: the document reached {limit} passages, the most indexed "
        "from one file (VICARAN_DOCUMENT_MAX_PASSAGES)",
        "a página {page} não foi indexada: o documento chegou a {limit} trechos, o máximo "
        "indexado de um arquivo (VICARAN_DOCUMENT_MAX_PASSAGES)",
    ),
}
_MESSAGES.update(_DOCUMENT_PROBLEMS)

# The gazette search's reasoning log (gazettes/loop.py): strategies, rounds, scores, reads
_GAZETTE_LOG: dict[str, tuple[_Text, _Text]] = {
    "gazette_place": (
        "🏛 Official gazettes of {city} (IBGE {territory}), {period}",
        "🏛 Diários oficiais de {city} (IBGE {territory}), {period}",
    ),
    "gazette_place_unknown": (
        "🏛 {city} is not a Brazilian municipality Querido Diário knows: no gazette searched",
        "🏛 {city} não é um município brasileiro que o Querido Diário conheça: nenhum diário "
        "oficial consultado",
    ),
    "gazette_place_unresolved": (
        "🏛 {note}: searching the gazettes of every city, {period}",
        "🏛 {note}: buscando nos diários oficiais de todas as cidades, {period}",
    ),
    "gazette_no_place": (
        "🏛 The claim names no city: searching the gazettes of every city, {period}",
        "🏛 A alegação não cita cidade: buscando nos diários oficiais de todas as cidades, {period}",
    ),
    "gazette_any_date": ("any date", "qualquer data"),
    "gazette_every_city": ("every city", "todas as cidades"),
    "gazette_strategy_exact": ("Exact search", "Busca exata"),
    "gazette_strategy_broad": ("Broad search", "Busca ampla"),
    "gazette_strategy_contextual": ("Contextual search", "Busca contextual"),
    "gazette_strategy_refined": ("Refined search", "Busca refinada"),
    "gazette_strategy_widened": ("Widened search", "Busca ampliada"),
    "gazette_search": ("🔎 {strategy}: {query}", "🔎 {strategy}: {query}"),
    "gazette_rounds": (("{count} round", "{count} rounds"), ("{count} rodada", "{count} rodadas")),
    "gazette_searches": (
        ("{count} search", "{count} searches"),
        ("{count} busca", "{count} buscas"),
    ),
    "gazette_count": (
        ("{count} gazette", "{count} gazettes"),
        ("{count} diário", "{count} diários"),
    ),
    "gazette_round": (
        (
            "Round {round} ({searches}): {count} gazette found, best score {score} ({best})",
            "Round {round} ({searches}): {count} gazettes found, best score {score} ({best})",
        ),
        (
            "Rodada {round} ({searches}): {count} diário encontrado, melhor pontuação {score} "
            "({best})",
            "Rodada {round} ({searches}): {count} diários encontrados, melhor pontuação {score} "
            "({best})",
        ),
    ),
    "gazette_round_empty": (
        "Round {round} ({searches}): no gazette found",
        "Rodada {round} ({searches}): nenhum diário encontrado",
    ),
    "gazette_sufficient_code": (
        "✓ Enough to read: the best excerpts name “{entity}” (score {score})",
        "✓ Suficiente para ler: os melhores trechos citam “{entity}” (pontuação {score})",
    ),
    "gazette_sufficient_model": ("✓ Enough to read: {reason}", "✓ Suficiente para ler: {reason}"),
    "gazette_insufficient": ("↻ Not enough yet: {reason}", "↻ Ainda insuficiente: {reason}"),
    "gazette_widened": ("↻ Dates widened to {period}", "↻ Período ampliado para {period}"),
    "gazette_judge_failed": (
        "⚠️ Judging the excerpts failed ({error}); the search was widened in code",
        "⚠️ A avaliação dos trechos falhou ({error}); a busca foi ampliada pelo código",
    ),
    "gazette_no_new_searches": (
        "⏹ No new search to try: reading the best gazettes found",
        "⏹ Nenhuma busca nova a tentar: lendo os melhores diários encontrados",
    ),
    "gazette_round_limit": (
        (
            "⏹ {count} round, the limit: reading the best gazettes found",
            "⏹ {count} rounds, the limit: reading the best gazettes found",
        ),
        (
            "⏹ {count} rodada, o limite: lendo os melhores diários encontrados",
            "⏹ {count} rodadas, o limite: lendo os melhores diários encontrados",
        ),
    ),
    "gazette_search_failed": (
        "⚠️ Gazette search failed: {error}",
        "⚠️ A busca nos diários oficiais falhou: {error}",
    ),
    "gazette_read": (
        (
            "📖 Read {title} (score {score}): {chars} characters, {count} passage selected",
            "📖 Read {title} (score {score}): {chars} characters, {count} passages selected",
        ),
        (
            "📖 Lido: {title} (pontuação {score}): {chars} caracteres, {count} trecho selecionado",
            "📖 Lido: {title} (pontuação {score}): {chars} caracteres, {count} trechos "
            "selecionados",
        ),
    ),
    "gazette_read_failed": (
        "⚠️ Could not read {title}: {reason}",
        "⚠️ Não foi possível ler {title}: {reason}",
    ),
    "gazette_no_text": (
        "Querido Diário gives no text for it",
        "o Querido Diário não fornece o texto dele",
    ),
    "gazette_text_unavailable": (
        "its text could not be fetched",
        "não foi possível obter o texto dele",
    ),
    "gazette_quotes_dropped": (
        (
            "⚠️ {count} quote not found in the gazette's text was dropped",
            "⚠️ {count} quotes not found in the gazettes' text were dropped",
        ),
        (
            "⚠️ {count} citação não encontrada no texto do diário foi descartada",
            "⚠️ {count} citações não encontradas no texto dos diários foram descartadas",
        ),
    ),
    "gazette_reading_failed": (
        "⚠️ Reading the gazette passages failed ({error})",
        "⚠️ A leitura dos trechos dos diários falhou ({error})",
    ),
    "gazette_found": (
        (
            "📌 {count} gazette act bears on the claim ({gazettes})",
            "📌 {count} gazette acts bear on the claim ({gazettes})",
        ),
        (
            "📌 {count} ato de diário oficial trata da alegação ({gazettes})",
            "📌 {count} atos de diários oficiais tratam da alegação ({gazettes})",
        ),
    ),
    "gazette_none": (
        "No gazette found: {rounds}, {searches} in Querido Diário for {city}, {period}.",
        "Nenhum diário oficial encontrado: {rounds}, {searches} no Querido Diário para {city}, "
        "{period}.",
    ),
    "gazette_none_relevant": (
        "No gazette act bears on the claim: {gazettes} read after {rounds}, {searches} in "
        "Querido Diário for {city}, {period}.",
        "Nenhum ato de diário oficial trata da alegação: leitura de {gazettes} após {rounds}, "
        "{searches} no Querido Diário para {city}, {period}.",
    ),
}
_MESSAGES.update(_GAZETTE_LOG)


class Phrase(str):
    """A fixed message in English that can be said again in the journalist's language.

    Tools and the model client return it where a `str` is expected (the model and the logs read
    the English); whoever shows it to people words it with `localized`.
    """

    key: str
    values: dict[str, object]

    def __new__(cls, key: str, **values: object) -> Phrase:
        phrase = super().__new__(cls, message(key, ENGLISH, **values))
        phrase.key, phrase.values = key, values
        return phrase

    def __reduce__(self) -> tuple[object, ...]:  # copies and pickles keep the key
        return (_phrase, (self.key, self.values))

    def said_in(self, language: str) -> str:
        return message(self.key, language, **self.values)


def _phrase(key: str, values: dict[str, object]) -> Phrase:
    return Phrase(key, **values)


def localized(value: object, language: str) -> object:
    """`value` in `language` when it can say itself in it (a Phrase, a model error), else as is."""
    said = getattr(value, "said_in", None)
    return said(language) if callable(said) else value


_VERDICT_LABELS = {
    "verified": (("✅", "VERIFIED"), ("✅", "VERIFICADO")),
    "partially_true": (("⚠️", "PARTIALLY TRUE"), ("⚠️", "PARCIALMENTE VERDADEIRO")),
    "misleading": (("🟠", "MISLEADING"), ("🟠", "ENGANOSO")),
    "false": (("❌", "FALSE"), ("❌", "FALSO")),
    "unverified": (("❓", "UNVERIFIED"), ("❓", "NÃO VERIFICADO")),
}


_WORDS = {
    # importance levels, stances and bias bands
    "HIGH": "ALTA",
    "MEDIUM": "MÉDIA",
    "LOW": "BAIXA",
    "Supportive": "Favorável",
    "Neutral": "Neutra",
    "Critical": "Crítica",
    "Low": "baixo",
    "Low-Moderate": "baixo a moderado",
    "Moderate": "moderado",
    "High": "alto",
    "Very High": "muito alto",
    # what gathers a claim's evidence
    "web search": "busca na web",
    "outlet search": "busca nos veículos",
    "page reading": "leitura das páginas",
    "live search": "busca ao vivo",
    "documents": "documentos",
    "official gazettes": "diários oficiais",
}


def word(text: str, language: str) -> str:
    """A single label in the journalist's language."""
    return _WORDS.get(text, text) if is_portuguese(language) else text


def message(key: str, language: str, **values: object) -> str:
    """A fixed message in the journalist's language; a counted one agrees with `count`."""
    english, portuguese = _MESSAGES[key]
    text = portuguese if is_portuguese(language) else english
    if isinstance(text, tuple):
        text = text[0 if values["count"] == 1 else 1]
    return text.format(**{name: localized(value, language) for name, value in values.items()})


def verdict_label(verdict: str, language: str) -> tuple[str, str]:
    """(emoji, label) for a verdict."""
    english, portuguese = _VERDICT_LABELS[verdict]
    return portuguese if is_portuguese(language) else english
