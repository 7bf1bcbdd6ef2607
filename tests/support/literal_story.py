"""The literal-model scenario's story: an agency's notice, a wire report of it, the company's
reply, residents' complaints and the city's own count. Fictional, served by the Tavily and Jina
Reader fakes (`serve`); `make test-live` runs the same briefs against Gemini (tests/test_live.py).

- The EPA's own notice finds that Halvorsen Chemical exceeded its lead limits by 312%; a wire
  report relays it ("according to the EPA"); the company disputes it. The EPA's notice decides
  what the EPA found; whether the plant really exceeded its limits needs evidence from someone
  other than the EPA.
- Residents say tap-water complaints rose 40%; the city's health department counted them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.adk.plugins import BasePlugin

from tests.support.conversation import Conversation
from tests.support.corpus import Article, pages, search_results

if TYPE_CHECKING:
    from tests.conftest import Services

EPA_NOTICE = Article(
    "https://www.epa.gov/enforcement/halvorsen-chemical-millbrook-notice-of-violation",
    "Notice of Violation: Halvorsen Chemical, Millbrook plant",
    "The Environmental Protection Agency (EPA) found that Halvorsen Chemical exceeded its "
    "permitted lead discharge limits by 312% at its Millbrook plant in the fourth quarter of "
    "2024. The agency issued this notice of violation to the company in January and ordered it "
    "to submit a corrective plan. The finding rests on discharge monitoring reports the company "
    "filed with the agency.",
    "2025-01-15",
)
WIRE_REPORT = Article(
    "https://www.reuters.com/business/environment/halvorsen-millbrook-lead-limits/",
    "Halvorsen Chemical exceeded lead limits at Millbrook plant, EPA says",
    "Halvorsen Chemical exceeded its permitted lead discharge limits by 312% at its Millbrook "
    "plant in the fourth quarter of 2024, according to the Environmental Protection Agency (EPA). "
    "The company said it was reviewing the notice. Millbrook draws its drinking water from the "
    "river below the plant.",
    "2025-01-16",
)
COMPANY_REPLY = Article(
    "https://www.halvorsenchem.com/news/millbrook-statement",
    "Halvorsen Chemical statement on Millbrook",
    "Halvorsen Chemical disputes the finding that its Millbrook plant exceeded lead discharge "
    "limits by 312%. The company says a faulty sensor inflated its monitoring reports and that "
    "it will contest the notice. Halvorsen says it has always cooperated with regulators.",
    "2025-01-20",
)
RESIDENTS = Article(
    "https://medium.com/@millbrookwater/tap-water-complaints",
    "Millbrook residents are fed up with their tap water",
    "Complaints about tap water in Millbrook rose 40% in 2024, according to the Millbrook Clean "
    "Water Coalition. The coalition blames Halvorsen Chemical and wants the state to test private "
    "wells. Members describe brown water and unanswered letters.",
    None,
)
CITY_COUNT = Article(
    "https://www.millbrook.gov/health/tap-water-complaints-annual-report",
    "Tap water complaints: annual report of the Millbrook health department",
    "Complaints about tap water in Millbrook rose 40% in 2024: the health department received "
    "252 complaints, against 180 the year before. The department has not linked the increase to "
    "any single cause. It will publish its next report in the spring.",
    "2025-02-03",
)
STORY = [EPA_NOTICE, WIRE_REPORT, COMPANY_REPLY, RESIDENTS, CITY_COUNT]

BRIEF = (
    "Quick Search. Investigate what the EPA found about Halvorsen Chemical's lead discharges at "
    "its Millbrook plant in late 2024. Check whether complaints about tap water in Millbrook rose "
    "40% in 2024, as activists say."
)
BRIEF_PT = (
    "Busca rápida. Investigue o que a EPA concluiu sobre os despejos de chumbo da Halvorsen "
    "Chemical na fábrica de Millbrook no fim de 2024."
)
BRIEFS = {"en": BRIEF, "pt-BR": BRIEF_PT}


def serve(services: Services) -> None:
    """Every search finds the story; every page of it reads."""
    services.tavily.results = search_results(STORY)
    services.tavily.overrides = None
    services.jina.pages.update(pages(STORY))


async def investigate(brief: str, *plugins: BasePlugin) -> tuple[dict[str, Any], str]:
    """One run of `brief`, approved as planned: (its final state, its last message)."""
    conversation = Conversation(plugins=plugins)
    await conversation.send(brief)
    events = await conversation.send("APPROVED")
    return await conversation.state(), conversation.texts(events)[-1]
