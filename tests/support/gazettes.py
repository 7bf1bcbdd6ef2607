"""Golden gazette scenarios (seed 002) as offline fixtures: cities, gazettes and what to expect.

    with FakeQueridoDiario() as fake:            # serves CITIES and GAZETTES below
        scenario = SCENARIOS["porto_alegre_flood"]
        fake.txt_url(scenario.decisive[0].path)  # the gazette the loop must read

The texts are in tests/fixtures/gazettes/{territory_id}/{date}/{checksum}.txt (the real path shape of
`txt_url`), written to agree with what seed 002 reports from the live API: the territory ids, the
named contracts and companies, Decreto 22.647, Edital 02/2022, matrícula 113.079 and padrão 4130,
the two real txt_url paths (Rio 2024-05-14, Curitiba 2024-04-18). Everything else — values,
process numbers, people's names, the other checksums, the routine acts — is invented for tests.
Each edition holds several acts, the decisive one among unrelated ones; related-but-not-decisive
gazettes (other dates, other acts, neighbouring cities) make ranking matter, and routine editions
(`routine_gazettes`, generated) give broad queries many hits.

IBGE codes: the scenario cities' are real; those of the homonyms are as best known (fixture data).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from tests.fakes.querido_diario import FakeCity, FakeGazette

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gazettes"
REAL_FILES_HOST = "https://data.queridodiario.ok.org.br"  # where the two real paths live

CITIES: list[FakeCity] = [
    FakeCity("4314902", "Porto Alegre", "RS", availability_date="2015-01-02"),
    FakeCity("3304557", "Rio de Janeiro", "RJ", availability_date="2006-01-02"),
    FakeCity("3106200", "Belo Horizonte", "MG", availability_date="2014-01-02"),
    FakeCity("4106902", "Curitiba", "PR", availability_date="2015-01-05"),
    FakeCity(
        "3550308",
        "São Paulo",
        "SP",
        publication_urls=("https://diariooficial.prefeitura.sp.gov.br",),
        availability_date="2015-01-02",
    ),
    FakeCity("1303908", "São Paulo de Olivença", "AM", level="0"),
    FakeCity("4304606", "Canoas", "RS"),
    FakeCity("3303302", "Niterói", "RJ"),
    FakeCity("3118601", "Contagem", "MG"),
    FakeCity("4125506", "São José dos Pinhais", "PR"),
    FakeCity("2201903", "Bom Jesus", "PI", level="1"),
    FakeCity("4302303", "Bom Jesus", "RS", level="1"),
    FakeCity("4202578", "Bom Jesus", "SC", level="0"),
    FakeCity("1501402", "Belém", "PA"),
    FakeCity("2502003", "Belém", "PB", level="0"),
    FakeCity("3545803", "Santa Bárbara d'Oeste", "SP", level="1"),
    FakeCity("4315602", "Rio Grande", "RS"),
    FakeCity("1200401", "Rio Branco", "AC"),
]

# (path below FIXTURES, edition, extra edition)
_EDITIONS: list[tuple[str, str, bool]] = [
    # Porto Alegre (scenario 1) and a neighbour
    ("4314902/2024-05-03/1064aabcfd7f243978dd841a047a531d741ef04b.txt", "7276", True),
    ("4314902/2024-05-17/4ecd782eef2b362c5e8002a32c86332710315a0a.txt", "7286", False),
    ("4314902/2024-06-11/8d18df3c30e111459dec8e9277a7d7c7bb92ac23.txt", "7303", False),
    ("4314902/2024-04-12/370aeab66c34db2e854087e1edc2d5f4701bde4b.txt", "7259", False),
    ("4314902/2024-06-20/0a4cbeae22aa38c5a38291885d3c137519447b47.txt", "7310", False),
    ("4314902/2024-07-01/c4584fd6c64377c675df4ade062c76057cc48573.txt", "7317", False),
    ("4314902/2023-09-15/780fced28ca20c19cd0021907b8fdacc86d9e7aa.txt", "7114", False),
    ("4304606/2024-05-22/989be44e7d1fdd70cc3b89c8fb7a4b69b8d84688.txt", "2911", False),
    # Rio de Janeiro (scenario 2) and a neighbour
    ("3304557/2024-05-14/8b2cb5ceefd60b30d7b4352db186ff10a2bdf336.txt", "35", False),
    ("3304557/2024-02-20/a6a067e4447f34ebf7850beb2c4f750319847dd1.txt", "232", False),
    ("3304557/2024-08-27/bce4ca43c9e0154307282765524dc1486da7258c.txt", "112", False),
    ("3304557/2024-10-08/b9a3620385178b7ca17a00bedec1b09ffe000444.txt", "141", False),
    ("3304557/2024-03-12/61be3d3f43e5287513060bab1485c3b551544168.txt", "245", False),
    ("3304557/2023-11-21/794138420512ffada6fbe829bf166aa6cd391d58.txt", "168", False),
    ("3304557/2024-07-16/0600a7eec8d6e85c7bbf322c81df0b21c0bd4541.txt", "79", False),
    ("3303302/2024-06-04/3004e7bf26a0b83a8deba35c3400c723565b5a26.txt", "5122", False),
    # Belo Horizonte (scenario 3) and a neighbour
    ("3106200/2022-06-14/37441e2093585b8c1109112391997b4354679b3b.txt", "6291", False),
    ("3106200/2024-03-12/df384b2f505b0ad88f16d394c592eac2c7bbea3b.txt", "6845", False),
    ("3106200/2024-06-25/14877a9b96e48dc81b0777eb6dbe8942fb109708.txt", "6915", False),
    ("3106200/2024-09-10/a2e67d998a5c6699903aec3db4281032865d2184.txt", "6966", False),
    ("3106200/2024-04-16/0d19d60a56ad1af833d0c4e46b28423dbeecce92.txt", "6870", False),
    ("3106200/2024-08-06/7e8cb57d8ea3ef1d2363023bf83841231230e440.txt", "6942", False),
    ("3118601/2024-05-09/2a21988a379344eea2c9fc1133739d785d4526e9.txt", "1402", False),
    # Curitiba (scenario 4) and a neighbour
    ("4106902/2024-04-18/f236e7a372015829a44b72044627b5880131ec3f.txt", "74", False),
    ("4106902/2024-07-09/5cdd9e465c81290bcd3f249dccad41a1cd5506a8.txt", "128", False),
    ("4106902/2023-10-05/c3e80660a8f0eb025145b569b457557287872478.txt", "190", False),
    ("4106902/2024-05-23/2ab7f1621b51deba6b1671da95df2b75150277a4.txt", "97", False),
    ("4106902/2024-09-03/f517d23f8fb9f1072923d8958e5448d27c203e96.txt", "168", False),
    ("4125506/2024-04-25/45c85c2e188622adec061f20a202aa23cd6d28a5.txt", "4410", False),
    # São Paulo (scenario 5: nothing about the claim)
    ("3550308/2024-03-05/308919feaec038af7b39e6802ffa4222bec62c00.txt", "43", False),
    ("3550308/2024-08-20/f7ec41752a581d73ab2bd48b6e5e7fd626a6e5f2.txt", "157", False),
]


def text_of(path: str) -> str:
    return (FIXTURES / path).read_text(encoding="utf-8")


def _edition(path: str, edition: str, extra: bool) -> FakeGazette:
    territory_id, day, name = path.split("/")
    return FakeGazette(
        territory_id=territory_id,
        date=day,
        text=text_of(path),
        checksum=name.removesuffix(".txt"),
        edition=edition,
        is_extra_edition=extra,
    )


WRITTEN: list[FakeGazette] = [_edition(*row) for row in _EDITIONS]


# --- routine editions (generated, deterministic) --------------------------------------------

_HEADERS = {
    "4314902": "DIÁRIO OFICIAL DE PORTO ALEGRE\nÓrgão de Divulgação Oficial do Município\n"
    "Edição {edition} | {weekday}, {long_date}",
    "3304557": "DIÁRIO OFICIAL DO MUNICÍPIO DO RIO DE JANEIRO\nNº {edition} • Rio de Janeiro, "
    "{weekday}, {long_date}",
    "3106200": "DIÁRIO OFICIAL DO MUNICÍPIO - DOM\nBelo Horizonte | Edição N.: {edition} | {short}",
    "4106902": "DIÁRIO OFICIAL ELETRÔNICO\nATOS DO MUNICÍPIO DE CURITIBA\nNº {edition} | "
    "Publicação Diária | {weekday}, {long_date}",
    "3550308": "DIÁRIO OFICIAL DA CIDADE DE SÃO PAULO\nNúmero {edition} | São Paulo, {weekday}, "
    "{long_date}",
}
_BODIES = {
    "4314902": [
        "SECRETARIA MUNICIPAL DE ADMINISTRAÇÃO E PATRIMÔNIO",
        "SECRETARIA MUNICIPAL DE OBRAS E INFRAESTRUTURA",
        "SECRETARIA MUNICIPAL DE EDUCAÇÃO",
        "DEPARTAMENTO MUNICIPAL DE ÁGUA E ESGOTOS",
    ],
    "3304557": [
        "SECRETARIA MUNICIPAL DE FAZENDA E PLANEJAMENTO",
        "SECRETARIA MUNICIPAL DE CONSERVAÇÃO",
        "SECRETARIA MUNICIPAL DE EDUCAÇÃO",
        "SECRETARIA MUNICIPAL DE CULTURA",
    ],
    "3106200": [
        "SECRETARIA MUNICIPAL DE PLANEJAMENTO, ORÇAMENTO E GESTÃO",
        "SECRETARIA MUNICIPAL DE OBRAS E INFRAESTRUTURA",
        "SECRETARIA MUNICIPAL DE EDUCAÇÃO",
        "SECRETARIA MUNICIPAL DE CULTURA",
    ],
    "4106902": [
        "SECRETARIA MUNICIPAL DE ADMINISTRAÇÃO E DE GESTÃO DE PESSOAL",
        "SECRETARIA MUNICIPAL DE OBRAS PÚBLICAS",
        "SECRETARIA MUNICIPAL DA EDUCAÇÃO",
        "SECRETARIA MUNICIPAL DO MEIO AMBIENTE",
    ],
    "3550308": [
        "SECRETARIA MUNICIPAL DAS SUBPREFEITURAS",
        "SECRETARIA MUNICIPAL DE GESTÃO",
        "SECRETARIA MUNICIPAL DE EDUCAÇÃO",
        "SECRETARIA MUNICIPAL DE CULTURA",
    ],
}
_FIRST = ["Ana", "Bruno", "Carla", "Diego", "Elaine", "Fábio", "Gisele", "Henrique", "Isabel"]
_FIRST += ["Jonas", "Karina", "Leandro", "Mônica", "Nelson", "Olívia", "Paulo", "Rita", "Sérgio"]
_LAST = ["Almeida", "Barros", "Cardoso", "Duarte", "Esteves", "Falcão", "Guimarães", "Hoffmann"]
_LAST += ["Jardim", "Leite", "Macedo", "Nogueira", "Queiroz", "Sampaio", "Tavares", "Vieira"]
_STREETS = ["Rua das Acácias", "Avenida Brasil", "Rua Sete de Setembro", "Rua Tiradentes"]
_STREETS += ["Avenida dos Andradas", "Rua Marechal Deodoro", "Travessa São Jorge"]
_CAREERS = ["Professor", "Assistente Administrativo", "Engenheiro Civil", "Fiscal de Tributos"]
_CAREERS += ["Agente Comunitário de Saúde", "Arquiteto", "Contador"]
_ACTS = [
    "PORTARIA Nº {n}\nConcede férias regulamentares a {name}, matrícula {mat}, no período de "
    "{day} a {day2}.",
    "PORTARIA Nº {n}\nNomeia {name} para exercer o cargo em comissão de Assessor Técnico.",
    "PORTARIA Nº {n}\nExonera, a pedido, {name} do cargo em comissão de Chefe de Divisão.",
    "EXTRATO DE TERMO ADITIVO\nContrato nº {n}/{year}. Objeto: prorrogação, por mais 12 meses, do "
    "contrato de manutenção predial das unidades da secretaria. Contratada: {company}.",
    "AVISO DE LICITAÇÃO\nPREGÃO ELETRÔNICO Nº {n}/{year}\nObjeto: aquisição de material de "
    "expediente e suprimentos de informática. Abertura das propostas em {day2}.",
    "RESULTADO DE LICITAÇÃO\nCONCORRÊNCIA ELETRÔNICA Nº {n}/{year}\nObjeto: pavimentação e "
    "drenagem da {street}. Vencedora: {company}, com o valor global de R$ {value}.",
    "EDITAL DE NOTIFICAÇÃO Nº {n}/{year}\nNotifica os responsáveis pelos imóveis situados na "
    "{street} para a regularização do passeio público no prazo de 30 dias.",
    "APOSENTADORIA\nConcede aposentadoria voluntária a {name}, matrícula {mat}, ocupante do cargo "
    "de Agente Administrativo, com proventos integrais.",
    "EXTRATO DE TERMO DE COLABORAÇÃO Nº {n}/{year}\nObjeto: oficinas culturais para jovens, em "
    "parceria com a Associação Cultural {last}.",
    "DECRETO Nº {n}\nNOMEIA, em caráter efetivo, em virtude de habilitação em concurso público, "
    "{name} para o cargo de {career}.",
    "LICENÇA AMBIENTAL Nº {n}/{year}\nConcede licença de operação a {company} para oficina "
    "mecânica na {street}.",
]
_WEEKDAYS = ["Segunda-feira", "Terça-feira", "Quarta-feira", "Quinta-feira", "Sexta-feira"]
_MONTHS = ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto"]
_MONTHS += ["setembro", "outubro", "novembro", "dezembro"]


def routine_gazettes(per_city: int = 14, seed: int = 2024) -> list[FakeGazette]:
    """Editions of everyday acts (appointments, holidays, unrelated tenders) for the scenario
    cities across 2024, none about the scenarios' subjects: broad queries find many gazettes."""
    taken = {(g.territory_id, g.date) for g in WRITTEN}
    found: list[FakeGazette] = []
    for territory_id, header in _HEADERS.items():
        rng = random.Random(f"{seed}:{territory_id}")
        days: set[date] = set()
        while len(days) < per_city:
            day = date(2024, 1, 2) + timedelta(days=rng.randrange(360))
            if day.weekday() < 5 and (territory_id, day.isoformat()) not in taken:
                days.add(day)
        for number, day in enumerate(sorted(days), start=1):
            edition = str(9000 + number)
            lines = [
                header.format(
                    edition=edition,
                    weekday=_WEEKDAYS[day.weekday()],
                    long_date=f"{day.day} de {_MONTHS[day.month - 1]} de {day.year}",
                    short=f"{day.day}/{day.month}/{day.year}",
                ),
                "",
            ]
            for act in rng.sample(_ACTS, 5):
                lines += [rng.choice(_BODIES[territory_id]), "", _fill(act, rng, day), ""]
            found.append(
                FakeGazette(territory_id, day.isoformat(), "\n".join(lines), edition=edition)
            )
    return found


def _fill(act: str, rng: random.Random, day: date) -> str:
    name = " ".join([rng.choice(_FIRST), *rng.sample(_LAST, 2)])
    return act.format(
        n=f"{rng.randrange(100, 2000)}",
        year=day.year,
        name=name,
        mat=f"{rng.randrange(60, 120)}.{rng.randrange(100, 999)}",
        day=day.strftime("%d/%m/%Y"),
        day2=(day + timedelta(days=rng.randrange(10, 40))).strftime("%d/%m/%Y"),
        company=f"{rng.choice(_LAST)} {rng.choice(['Engenharia', 'Serviços', 'Comércio'])} Ltda.",
        street=rng.choice(_STREETS),
        value=f"{rng.randrange(100, 9000)}.{rng.randrange(100, 999)},{rng.randrange(10, 99)}",
        last=rng.choice(_LAST),
        career=rng.choice(_CAREERS),
    )


GAZETTES: list[FakeGazette] = WRITTEN + routine_gazettes()


# --- the scenarios --------------------------------------------------------------------------


@dataclass(frozen=True)
class Decisive:
    """A gazette that settles the claim, and its act, verbatim."""

    path: str  # below the files host: {territory_id}/{date}/{checksum}.txt
    act: str  # the decisive act, as the gazette text has it
    marks: tuple[str, ...]  # short phrases of the act that must reach the judge

    @property
    def date(self) -> str:
        return self.path.split("/")[1]

    @property
    def territory_id(self) -> str:
        return self.path.split("/")[0]


@dataclass(frozen=True)
class Scenario:
    number: int
    key: str
    claim: str  # as seed 002 gives it (its author left out the accents)
    city: str
    state: str
    territory_id: str
    since: str
    until: str
    # what the seed saw live: (querystring, total_gazettes); offline totals are smaller
    seed_queries: tuple[tuple[str, int], ...]
    decisive: tuple[Decisive, ...]  # the first must be among the gazettes read
    related: tuple[str, ...]  # paths of related but not decisive gazettes (distractors)
    classification: str  # the seed's expected classification
    verdicts: tuple[str, ...]  # Vicaran verdicts that count as right (the first is the best)
    expectation: str  # what the pipeline should do, per the seed


def _act(path: str, start: str, end: str) -> str:
    """The text of `path` from `start` to the end of `end` (both must be there)."""
    text = text_of(path)
    begin = text.index(start)
    return text[begin : text.index(end, begin) + len(end)]


_PA = "4314902/2024-05-17/4ecd782eef2b362c5e8002a32c86332710315a0a.txt"
_PA_JUNE = "4314902/2024-06-11/8d18df3c30e111459dec8e9277a7d7c7bb92ac23.txt"
_PA_DECREE = "4314902/2024-05-03/1064aabcfd7f243978dd841a047a531d741ef04b.txt"
_RIO = "3304557/2024-05-14/8b2cb5ceefd60b30d7b4352db186ff10a2bdf336.txt"
_RIO_FEB = "3304557/2024-02-20/a6a067e4447f34ebf7850beb2c4f750319847dd1.txt"
_RIO_AUG = "3304557/2024-08-27/bce4ca43c9e0154307282765524dc1486da7258c.txt"
_BH = "3106200/2024-03-12/df384b2f505b0ad88f16d394c592eac2c7bbea3b.txt"
_BH_REVOKED = "3106200/2024-09-10/a2e67d998a5c6699903aec3db4281032865d2184.txt"
_BH_NAMED = "3106200/2024-08-06/7e8cb57d8ea3ef1d2363023bf83841231230e440.txt"
_CWB = "4106902/2024-04-18/f236e7a372015829a44b72044627b5880131ec3f.txt"
_CWB_JULY = "4106902/2024-07-09/5cdd9e465c81290bcd3f249dccad41a1cd5506a8.txt"

_SCENARIOS = [
    Scenario(
        number=1,
        key="porto_alegre_flood",
        claim="A Prefeitura de Porto Alegre firmou contratos emergenciais com empresas privadas "
        "para limpeza urbana apos as enchentes de maio de 2024.",
        city="Porto Alegre",
        state="RS",
        territory_id="4314902",
        since="2024-05-01",
        until="2024-07-31",
        seed_queries=(('"contrato emergencial"', 20), ('"estado de calamidade"', 49)),
        decisive=(
            Decisive(
                _PA,
                _act(
                    _PA,
                    "EXTRATO DO CONTRATO EMERGENCIAL 002/2024",
                    "assinatura: 10 de maio de 2024.",
                ),
                ("CONTRATO EMERGENCIAL 002/2024", "LOCAR VEÍCULOS E EQUIPAMENTOS LTDA"),
            ),
            Decisive(
                _PA_JUNE,
                _act(_PA_JUNE, "EXTRATO DO CONTRATO EMERGENCIAL 004/2024", "6 de junho de 2024."),
                ("AGUIAR SERVIÇOS LTDA", "MECANICAPINA LTDA", "FG SOLUÇÕES AMBIENTAIS LTDA"),
            ),
            Decisive(
                _PA_DECREE,
                _act(_PA_DECREE, "DECRETO Nº 22.647", "prazo máximo de 1 (um) ano."),
                ("DECRETO Nº 22.647", "estado de calamidade pública"),
            ),
        ),
        related=(
            "4314902/2024-04-12/370aeab66c34db2e854087e1edc2d5f4701bde4b.txt",  # before the flood
            "4314902/2024-06-20/0a4cbeae22aa38c5a38291885d3c137519447b47.txt",  # shelters
            "4314902/2024-07-01/c4584fd6c64377c675df4ade062c76057cc48573.txt",  # decree amended
            "4314902/2023-09-15/780fced28ca20c19cd0021907b8fdacc86d9e7aa.txt",  # 2023 cyclone
            "4304606/2024-05-22/989be44e7d1fdd70cc3b89c8fb7a4b69b8d84688.txt",  # Canoas
        ),
        classification="Trustworthy",
        verdicts=("verified",),
        expectation="find the emergency contracts and the calamity decree; confirm the claim",
    ),
    Scenario(
        number=2,
        key="rio_medicamentos",
        claim="A Prefeitura do Rio de Janeiro realizou licitacoes para aquisicao de medicamentos "
        "para hospitais municipais em 2024.",
        city="Rio de Janeiro",
        state="RJ",
        territory_id="3304557",
        since="2024-01-01",
        until="2024-12-31",
        seed_queries=(('"licitacao" + "medicamentos"', 239),),
        decisive=(
            Decisive(
                _RIO,
                _act(_RIO, "AVISO DE HOMOLOGAÇÃO E ADJUDICAÇÃO", "Item 06 fracassado."),
                ("LEMAN MEDICAMENTOS LTDA", "ANJOMEDI", "ANTIBIÓTICOS DO BRASIL LTDA"),
            ),
            Decisive(
                _RIO_FEB,
                _act(_RIO_FEB, "PREGÃO ELETRÔNICO SMS Nº 0098/2024", "Data da sessão pública"),
                ("PREGÃO ELETRÔNICO SMS Nº 0098/2024", "hospitais municipais"),
            ),
            Decisive(
                _RIO_AUG,
                _act(_RIO_AUG, "EXTRATO DA ATA DE REGISTRO DE PREÇOS", "Validade: 12 meses."),
                ("ATA DE REGISTRO DE PREÇOS Nº 215/2024", "LEMAN MEDICAMENTOS LTDA"),
            ),
        ),
        related=(
            "3304557/2024-03-12/61be3d3f43e5287513060bab1485c3b551544168.txt",  # school food
            "3304557/2023-11-21/794138420512ffada6fbe829bf166aa6cd391d58.txt",  # 2023 tender
            "3304557/2024-07-16/0600a7eec8d6e85c7bbf322c81df0b21c0bd4541.txt",  # no tender
            "3303302/2024-06-04/3004e7bf26a0b83a8deba35c3400c723565b5a26.txt",  # Niterói
        ),
        classification="Trustworthy",
        verdicts=("verified",),
        expectation="abundant evidence: confirm after the first round, without refinement",
    ),
    Scenario(
        number=3,
        key="bh_guarda_municipal",
        claim="A Prefeitura de Belo Horizonte realizou concurso publico para a Guarda Municipal "
        "em 2024.",
        city="Belo Horizonte",
        state="MG",
        territory_id="3106200",
        since="2024-01-01",
        until="2024-12-31",
        seed_queries=(('"concurso publico" + "guarda municipal"', 77),),
        decisive=(
            Decisive(
                _BH,
                _act(_BH, "CONVOCAÇÃO\nCONCURSO PÚBLICO - EDITAL 02/2022", "Juliana Alves Pimenta"),
                ("EDITAL 02/2022", "homologado em 14 de julho de 2023"),
            ),
            Decisive(
                _BH_REVOKED,
                _act(_BH_REVOKED, "Torna sem efeito", "no prazo legal."),
                ("Torna sem efeito a nomeação", "Edital 02/2022"),
            ),
            Decisive(
                _BH_NAMED,
                _act(_BH_NAMED, "O Prefeito de Belo Horizonte", "Mariana Salgado Couto"),
                ("Concurso Público regido pelo Edital 02/2022",),
            ),
        ),
        related=(
            "3106200/2022-06-14/37441e2093585b8c1109112391997b4354679b3b.txt",  # the 2022 edital
            "3106200/2024-04-16/0d19d60a56ad1af833d0c4e46b28423dbeecce92.txt",  # 2024, other job
            "3106200/2024-06-25/14877a9b96e48dc81b0777eb6dbe8942fb109708.txt",  # progressions
            "3118601/2024-05-09/2a21988a379344eea2c9fc1133739d785d4526e9.txt",  # Contagem, 2024
        ),
        classification="Trustworthy but / Arguable",
        verdicts=("partially_true", "misleading"),
        expectation="tell 'realizou concurso' (a new exam) from 'convocou aprovados' of the 2022 "
        "exam (Edital 02/2022): no new concurso for the Guarda was opened in 2024",
    ),
    Scenario(
        number=4,
        key="curitiba_enfermeiros",
        claim="A Prefeitura de Curitiba nomeou enfermeiros aprovados em concurso publico em 2024.",
        city="Curitiba",
        state="PR",
        territory_id="4106902",
        since="2024-01-01",
        until="2024-12-31",
        seed_queries=(('"concurso publico" + "enfermeiro"', 129),),
        decisive=(
            Decisive(
                _CWB,
                _act(_CWB, "DECRETO Nº 591", "classificação 45º."),
                ("Matrícula 113.079", "padrão 4130", "área de atuação Enfermeiro"),
            ),
            Decisive(
                _CWB_JULY,
                _act(_CWB_JULY, "DECRETO Nº 1.006", "classificação 47º."),
                ("Matrícula 113.544", "área de atuação Enfermeiro"),
            ),
        ),
        related=(
            "4106902/2023-10-05/c3e80660a8f0eb025145b569b457557287872478.txt",  # 2023 nurses
            "4106902/2024-05-23/2ab7f1621b51deba6b1671da95df2b75150277a4.txt",  # technicians
            "4106902/2024-09-03/f517d23f8fb9f1072923d8958e5448d27c203e96.txt",  # a resignation
            "4125506/2024-04-25/45c85c2e188622adec061f20a202aa23cd6d28a5.txt",  # São José
        ),
        classification="Trustworthy",
        verdicts=("verified",),
        expectation="clear evidence with named nurses, registration numbers and salary pattern",
    ),
    Scenario(
        number=5,
        key="sao_paulo_alien_invasion",
        claim="Houve invasao alienigena registrada no diario oficial de Sao Paulo em 2024.",
        city="Sao Paulo",
        state="SP",
        territory_id="3550308",
        since="2024-01-01",
        until="2024-12-31",
        seed_queries=(),  # the seed says only: total_gazettes 0, an empty list
        decisive=(),
        related=(),
        classification="Unverifiable",
        verdicts=("unverified",),
        expectation="try every strategy (3 rounds), then say plainly that no gazette was found",
    ),
]

SCENARIOS: dict[str, Scenario] = {scenario.key: scenario for scenario in _SCENARIOS}
BY_NUMBER: dict[int, Scenario] = {scenario.number: scenario for scenario in _SCENARIOS}


def gazette_checker(
    claim: Any,
    *,
    settings: Any,
    runtime: Any,
    model: Any,
    client: Any,
    cap: int = 3,
    asked: bool = False,
) -> Any:
    """A fact checker for one claim whose evidence is the official gazettes (no web results in
    the fakes), in Portuguese, as the fact_checker stage sets it up."""
    from vicaran_agent.clients.fact_check_api import FactCheckApi
    from vicaran_agent.factcheck.checker import CheckSettings, ClaimChecker
    from vicaran_agent.factcheck.outlets import outlets_for
    from vicaran_agent.prompts.fact_checker import FACT_CHECKER_INSTRUCTION

    shared = CheckSettings(
        settings=settings,
        model=model,
        instruction=FACT_CHECKER_INSTRUCTION,
        language="pt-BR",
        cap=cap,
        sources=[],
        runtime=runtime,
        factcheck=FactCheckApi(settings),
        outlets=outlets_for("pt-BR", settings),
        gazettes=client,
        gazettes_asked=asked,
    )
    return ClaimChecker(shared, claim)


# The entities a claim extractor names in each claim (the seed gives the claims only).
ENTITIES = {
    "porto_alegre_flood": ["Prefeitura de Porto Alegre", "limpeza urbana", "contrato emergencial"],
    "rio_medicamentos": ["Prefeitura do Rio de Janeiro", "medicamentos", "hospitais municipais"],
    "bh_guarda_municipal": ["Prefeitura de Belo Horizonte", "Guarda Municipal", "concurso público"],
    "curitiba_enfermeiros": ["Prefeitura de Curitiba", "Enfermeiro", "concurso público"],
    "sao_paulo_alien_invasion": ["invasão alienígena"],
}


def scenario_claim(scenario: Scenario) -> Any:
    """The scenario's claim as the claim extractor would give it: text, entities, place, period."""
    from vicaran_agent.schemas import Claim

    return Claim(
        key="C1",
        claim_text=scenario.claim,
        importance=0.9,
        origin="brief",
        entities=ENTITIES[scenario.key],
        city=scenario.city,
        state=scenario.state,
        period_start=scenario.since,
        period_end=scenario.until,
    )
