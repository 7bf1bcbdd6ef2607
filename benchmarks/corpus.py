"""A synthetic, deterministic news story of any size, for the benchmark's search and reader fakes.

`generate(n_sources, n_claims)` writes `n_claims` distinct checkable claim sentences (each holds a
digit) and story articles on distinct domains (a few wire and public broadcasters, most unknown,
i.e. neutral, local outlets). Every story article holds exactly 2 claims among digit-free filler,
so the scripted digest picks exactly those two as key claims. The brief's three searches each
return a different third of the articles, ranked so the first `n_sources` articles are the ones
source_finder finds, whatever the limit (up to 60 = 3 searches x Tavily's 20 results).

Independent evidence: the story articles that state a claim are the pages it is extracted
from, so they never confirm it (DESIGN, Evidence rule). Every other claim is also reported by a
public broadcaster's page (high reliability) that only a search for the claim finds: the source
finder never reads it, round 1 of the fact checker does, so one round suffices.

Second rounds, on purpose: every fifth claim (`records_only`, 20%) is reported by one story
article only; its corroboration is a primary record on an official `.gov` site that only a
search for the claim plus "official records" finds. Round 1 sees nothing independent; the
scripted checker then asks for that refinement, and round 2 finds the record (high reliability).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from tests.fakes.jina import Page
from tests.support.corpus import Article

BRIEF = (
    "Investigate whether Acme Chemicals polluted Riverton's drinking water and what regulators, "
    "courts and residents found."
)
RECORDS_EVERY = 5  # claim k is records-only when k % RECORDS_EVERY == RECORDS_EVERY - 1
RESULTS_PER_QUERY = 20  # Tavily's maximum

CLAIMS = [
    "The Riverton water board recorded 312 lead violations during 2024.",
    "Acme Chemicals discharged 48 tonnes of solvent into Miller Creek last spring.",
    "The county health department logged 140 complaints about tap water on 2024-11-05.",
    "State inspectors found benzene at 7 times the permitted level in plant runoff.",
    "Millbrook Elementary closed its drinking fountains for 21 school days.",
    "Federal prosecutors subpoenaed 9 Acme executives on 2025-02-18.",
    "Riverton General Hospital treated 63 children for skin rashes last winter.",
    "Commercial fishermen reported 2,300 dead trout below the outflow pipe.",
    "The city council approved a 4.5 million dollar filtration upgrade on 2025-03-10.",
    "Groundwater wells near Harlow Road exceeded arsenic limits in 11 samples.",
    "Acme spent 12 million dollars on lobbying the statehouse since 2019.",
    "A Cornell laboratory measured 0.8 micrograms of PFAS per litre in reservoir samples.",
    "Property values along the riverbank fell 17 percent over two years.",
    "Emergency bottled water distribution reached 5,600 households on 2025-01-22.",
    "Insurance claims for plumbing corrosion tripled to 480 filings.",
    "The mayor's office received 3 warnings from federal regulators before acting.",
    "Union workers testified that 14 storage drums leaked behind warehouse six.",
    "Acme paid a settlement of 2.1 million dollars to downstream farmers on 2024-09-30.",
    "Veterinarians documented 35 livestock deaths on dairy pastures near Elm Ford.",
    "Rainfall flooding in April overflowed 2 retention ponds at the chemical site.",
    "Volunteer testers collected 900 kitchen-tap samples across northern neighborhoods.",
    "Pediatric blood tests flagged elevated lead in 27 toddlers at Sunnyside Clinic.",
    "The utility's chief chemist resigned on 2025-04-02 citing falsified logs.",
    "Court filings list 6 previous spills that Acme never disclosed publicly.",
    "Brewery owners shut down 4 taprooms after customers noticed metallic flavors.",
    "Tourism bookings at Lake Corwin dropped by 1,200 reservations this summer.",
    "Environmental lawyers filed a class action representing 850 families on 2025-05-14.",
    "Satellite imagery shows a 3 kilometre discolored plume downstream of the factory.",
    "Municipal auditors discovered 19 missing monthly testing reports.",
    "Church pantries handed out 7,500 gallons of donated spring water.",
    "Wildlife officers counted 41 poisoned herons along the marsh trail.",
    "Acme's quarterly earnings rose 9 percent despite mounting cleanup costs.",
]

FILLER = [
    "Residents gathered at the public library on a cold evening to hear the latest update.",
    "Neighbors described a strange smell drifting across the valley in recent months.",
    "Reporters reviewed inspection letters, meeting minutes and correspondence for this story.",
    "Several families said they now boil every pot of water before cooking dinner.",
    "The company defends its safety practices and says it follows every applicable rule.",
    "Local activists have organized weekly vigils outside the gates of the plant.",
    "Community leaders asked for an independent review of the monitoring program.",
    "The story has drawn attention from regional newspapers and television stations.",
    "Farmers along the river worry about irrigation for the coming growing season.",
    "School administrators sent letters home urging parents to pack bottled drinks.",
    "Outrage grew at a crowded town meeting where residents demanded clear answers.",
    "Engineers consulted for this report said aging pipes make the problem harder to solve.",
    "Shop owners on Main Street say fewer visitors come downtown on weekends.",
    "Officials promised a public dashboard but have not said when it will launch.",
    "Experts caution that a single measurement rarely tells the whole story.",
    "The plant employs many people from surrounding towns and remains a major taxpayer.",
]

HIGH_DOMAINS = {0: "www.reuters.com", 7: "apnews.com", 19: "www.bbc.co.uk", 37: "www.npr.org"}
_PLACES = [
    "riverton", "millbrook", "eastvale", "harborview", "lakeside", "pinecrest", "northfield",
    "stonebridge", "cedarfalls", "brookhaven", "elmford", "corwin",
]  # fmt: skip
_PAPERS = [
    "ledger", "courier", "gazette", "tribune", "herald", "dispatch", "observer", "sentinel",
    "chronicle", "beacon",
]  # fmt: skip
_TLDS = [".com", ".news", ".org"]


@dataclass(frozen=True)
class StoryClaim:
    text: str
    records_only: bool  # corroborated by an official record that only a refined search finds


@dataclass
class Story:
    """The corpus, and the search behaviour of the web around it."""

    claims: list[StoryClaim]
    articles: list[Article]  # story articles in search rank order
    records: dict[str, Article]  # claim text -> the official record that corroborates it
    reports: dict[str, Article]  # claim text -> a broadcaster's independent report of it

    def pages(self) -> dict[str, Page]:
        every = self.articles + list(self.records.values()) + list(self.reports.values())
        return {a.url: a.page() for a in every}

    def claim_in(self, query: str) -> StoryClaim | None:
        folded = _fold(query)
        return next((c for c in self.claims if _fold(c.text) in folded), None)

    def batch_of(self, query: str) -> int:
        """Which third of the story a brief search returns (0-2); 0 for a claim's search too."""
        if self.claim_in(query) is not None:
            return 0
        return 1 if query.endswith("official records") else 2 if query.endswith("response") else 0

    def search(self, query: str, _body: dict[str, Any]) -> list[dict[str, Any]]:
        """FakeTavily override: brief searches get a third of the story, claim searches the claim."""
        claim = self.claim_in(query)
        if claim is None:
            third = self.batch_of(query)
            # a global score, so merged results rank the story in article order
            return [_result(a, a.snippet, i) for i, a in enumerate(self.articles) if i % 3 == third]
        results = [
            _result(a, _sentence_with(a.body, claim.text), i)
            for i, a in enumerate(a for a in self.articles if claim.text in a.body)
        ]
        report = self.reports.get(claim.text)
        if report is not None:  # within the checker's first few results
            results.insert(1, _result(report, _sentence_with(report.body, claim.text), 1))
        record = self.records.get(claim.text)
        if record is not None and query.endswith("official records"):
            results.insert(0, _result(record, _sentence_with(record.body, claim.text), 0))
        return results


def generate(n_sources: int, n_claims: int) -> Story:
    if not 1 <= n_claims <= len(CLAIMS):
        raise ValueError(f"n_claims must be within 1..{len(CLAIMS)}")
    claims = [
        StoryClaim(text, n_claims > 1 and k % RECORDS_EVERY == RECORDS_EVERY - 1)
        for k, text in enumerate(CLAIMS[:n_claims])
    ]
    normal = [c for c in claims if not c.records_only] or claims
    # Slots: every claim once, then the corroborated ones again and again, two per article.
    need = math.ceil((len(claims) + len(normal)) / 2)
    count = max(n_sources, need)
    slots = [c.text for c in claims]
    while len(slots) < 2 * count:
        slots += [c.text for c in normal]
    articles = [_article(i, slots[2 * i], slots[2 * i + 1]) for i in range(count)]
    records = {c.text: _record(k, c.text) for k, c in enumerate(claims) if c.records_only}
    reports = {c.text: _report(k, c.text) for k, c in enumerate(claims) if not c.records_only}
    return Story(claims, articles, records, reports)


def _domain(i: int) -> str:
    if i in HIGH_DOMAINS:
        return HIGH_DOMAINS[i]
    place = _PLACES[i % len(_PLACES)]
    paper = _PAPERS[(i // len(_PLACES)) % len(_PAPERS)]
    return f"www.{place}{paper}{_TLDS[i // (len(_PLACES) * len(_PAPERS))]}"


def _article(i: int, first: str, second: str) -> Article:
    fill = [FILLER[(i * 3 + j) % len(FILLER)] for j in range(3)]
    body = f"{fill[0]} {first} {fill[1]} {second} {fill[2]}"
    slug = re.sub(r"[^a-z]+", "-", first.lower()).strip("-")[:48]
    title = "Riverton water: " + re.sub(r"\s*\d[\d,.\-]*\s*", " ", first).strip(" .")[:80]
    month, day = 1 + i % 6, 1 + i % 28
    return Article(
        f"https://{_domain(i)}/news/{slug}-a{i}", title, body, f"2025-{month:02d}-{day:02d}"
    )


def _record(k: int, claim: str) -> Article:
    body = (
        "This page reproduces an official inspection record kept by the county clerk. "
        f"{claim} The record was certified by the records office and is open to the public."
    )
    return Article(
        f"https://records.rivertoncounty.gov/inspections/record-{k}",
        "Riverton County official inspection record",
        body,
        "2025-01-31",
    )


def _report(k: int, claim: str) -> Article:
    body = (
        "Our newsroom checked the figures with the agencies involved before publishing. "
        f"{claim} Officials confirmed the number when asked about it this week, and a "
        "spokesperson for the company declined to comment on the record."
    )
    return Article(
        f"https://www.pbs.org/newshour/nation/riverton-water-check-{k}",
        "Riverton water: what the records show",
        body,
        "2025-02-15",
    )


def _result(article: Article, content: str, rank: int) -> dict[str, Any]:
    return {
        "url": article.url,
        "title": article.title,
        "content": content,
        "score": round(0.99 - 0.004 * rank, 3),
        "published_date": article.published,
    }


def _sentence_with(body: str, claim: str) -> str:
    start = body.index(claim)
    before = body.rfind(". ", 0, start)
    return body[before + 2 if before >= 0 else 0 : start + len(claim)]


def _fold(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
