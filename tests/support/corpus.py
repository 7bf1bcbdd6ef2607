"""A small fictional news story, served by the Tavily and Jina Reader fakes."""

from __future__ import annotations

from dataclasses import dataclass

from tests.fakes.jina import Page


@dataclass(frozen=True)
class Article:
    url: str
    title: str
    body: str
    published: str | None = None

    @property
    def snippet(self) -> str:
        return self.body[:300]

    def search_result(self, score: float) -> dict[str, object]:
        result: dict[str, object] = {
            "url": self.url,
            "title": self.title,
            "content": self.snippet,
            "score": score,
        }
        return result

    def page(self) -> Page:
        return Page(
            title=self.title,
            content=f"# {self.title}\n\n{self.body}",
            published_time=self.published,
        )


RIVERTON = [
    Article(
        "https://www.reuters.com/world/us/acme-riverton-lead-2025/",
        "EPA finds Acme Chemicals exceeded lead limits in Riverton",
        "The U.S. Environmental Protection Agency said on 2025-01-15 that Acme Chemicals exceeded "
        "federal lead discharge limits by 312% at its Riverton plant in the fourth quarter of 2024. "
        "The agency filed an enforcement action against the company the same day. Acme said it was "
        "reviewing the findings and would cooperate with regulators. Riverton, a town of 40,000 "
        "people, draws its drinking water from the river downstream of the plant.",
        "2025-01-16",
    ),
    Article(
        "https://apnews.com/article/riverton-acme-epa-enforcement",
        "Riverton residents demand answers after EPA action against Acme",
        "Acme Chemicals exceeded federal lead discharge limits by 312% at its Riverton plant in the "
        "fourth quarter of 2024, according to an EPA enforcement notice issued on 2025-01-15. "
        "Residents filed 140 complaints about tap water in 2024, city records show. State officials "
        "said they were monitoring the situation and would test private wells in the spring.",
        "2025-01-17",
    ),
    Article(
        "https://rivertondaily.com/news/acme-health-complaints",
        "Health complaints rise in Riverton",
        "Health complaints in Riverton increased 28% in 2024, the city health department said on "
        "2025-02-03. The department did not link the rise to the Acme plant but said it had asked "
        "the state for help with a study. Local clinics reported more visits for stomach problems "
        "and skin rashes than in previous years, according to the department's annual report.",
        "2025-02-04",
    ),
    Article(
        "https://www.acmechem.com/press/riverton-response",
        "Acme Chemicals statement on Riverton",
        "Acme Chemicals denies that its Riverton plant poses any risk to residents. The company "
        "said on 2025-01-20 that monitoring errors inflated the readings by 40% and that it has "
        "invested 12 million dollars in filtration since 2022. Acme defends its environmental "
        "record and says it will contest the enforcement action in court.",
        "2025-01-20",
    ),
    Article(
        "https://medium.com/@rivertonvoices/acme-poisoned-us",
        "Acme poisoned our town and nobody cared",
        "Outrage grows in Riverton as residents say Acme poisoned the town's water for 3 years "
        "while officials looked away. This scandal shows how little regulators care about small "
        "towns. Families describe sick children, brown tap water and unanswered letters to the "
        "company and to the state environmental agency over many months.",
        None,
    ),
]

MACEIO = [
    Article(
        "https://g1.globo.com/al/alagoas/noticia/2025/03/10/contrato-merenda-maceio.ghtml",
        "Prefeitura de Maceió assina contrato de merenda de R$ 48 milhões sem licitação",
        "A Prefeitura de Maceió assinou em 2025-03-05 um contrato emergencial de R$ 48 milhões "
        "para fornecimento de merenda escolar sem licitação. O Ministério Público de Alagoas "
        "abriu um procedimento para apurar o caso em 2025-03-08. A prefeitura afirma que a "
        "contratação seguiu a lei e que a emergência foi causada pelo fim do contrato anterior.",
        "2025-03-10",
    ),
    Article(
        "https://www1.folha.uol.com.br/poder/2025/03/maceio-merenda-contrato.shtml",
        "MP investiga contrato de merenda em Maceió",
        "O Ministério Público de Alagoas investiga o contrato de R$ 48 milhões assinado pela "
        "Prefeitura de Maceió em 2025-03-05 para a merenda escolar sem licitação. Segundo o "
        "promotor, o valor é 30% maior do que o contrato anterior. A prefeitura nega "
        "irregularidades e diz que vai colaborar com a investigação do Ministério Público.",
        "2025-03-11",
    ),
    Article(
        "https://www.tribunahoje.com/noticias/politica/2025/03/12/merenda",
        "Vereadores pedem CPI da merenda em Maceió",
        "Vereadores de oposição pediram em 2025-03-12 a abertura de uma CPI para investigar o "
        "contrato de merenda escolar de R$ 48 milhões da Prefeitura de Maceió. O pedido precisa "
        "de 9 assinaturas para ser protocolado na Câmara Municipal, segundo o regimento interno.",
        "2025-03-12",
    ),
]


def search_results(articles: list[Article]) -> list[dict[str, object]]:
    return [a.search_result(round(0.95 - 0.05 * i, 2)) for i, a in enumerate(articles)]


def pages(articles: list[Article]) -> dict[str, Page]:
    return {a.url: a.page() for a in articles}
