"""The embedded records store: round trips, idempotent re-saves, links, statuses, threads."""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.support.records import as_json
from vicaran_agent.read_model import InvestigationListItem, InvestigationView, SourceView
from vicaran_agent.schemas import (
    BiasAssessment,
    Claim,
    Evidence,
    InvestigationConfig,
    Mode,
    Source,
    SourceBias,
    TimelineEvent,
    Verdict,
)
from vicaran_agent.storage import Repository, UnknownInvestigationError, get_repository


@pytest.fixture
def repo(records_url: str) -> Iterator[Repository]:
    repository = Repository(records_url)
    yield repository
    repository.close()


def _config(investigation_id: str | None = None, mode: Mode = "detailed") -> InvestigationConfig:
    return InvestigationConfig.for_mode(
        mode,
        investigation_id=investigation_id or str(uuid.uuid4()),
        title="Dam contract",
        brief="Who approved the 2024 dam contract?",
        language="pt",
    )


def _source(n: int, **changes: object) -> Source:
    data: dict[str, object] = {
        "url": f"https://news{n}.example/story",
        "title": f"Story {n}",
        "domain": f"news{n}.example",
        "credibility_score": 4,
        "content_summary": f"Summary {n}",
        "key_claims": [f"claim {n}"],
        "published_at": "2024-03-01",
        "published_at_source": "metadata",
    }
    data.update(changes)
    return Source.model_validate(data)


def _verdict(claim_key: str, claim_id: str | None, evidence_urls: list[str]) -> Verdict:
    return Verdict(
        claim_key=claim_key,
        claim_text=f"text of {claim_key}",
        claim_id=claim_id,
        verdict="partially_true",
        confidence=0.7,
        explanation="Mostly right [1].",
        evidence=[
            Evidence(
                url=url,
                title=f"E{i}",
                publisher="pub",
                reliability="high",
                stance="supports",
                # every other item dated, each by the party that states the date
                published_at=None if i % 2 else f"2024-03-0{i % 9 + 1}",
                published_at_source=None if i % 2 else ("search", "review", "gazette")[i % 3],
            )
            for i, url in enumerate(evidence_urls)
        ],
        sufficient=True,
        queries=["dam contract"],
        iterations=2,
        stop_reason="sufficient",
    )


def _started(repo: Repository) -> str:
    config = _config()
    repo.start_investigation(config)
    return config.investigation_id


def test_full_investigation_round_trip(repo: Repository) -> None:
    config = _config()
    iid = config.investigation_id
    repo.start_investigation(config)
    sources = [
        _source(1, is_user_provided=True, origin="user_url"),
        _source(2, credibility_score=2),
        _source(3, is_reachable=False, unreachable_reason="HTTP 404", published_at=None),
    ]
    source_ids = repo.save_sources(iid, sources)
    s1, s2, s3 = (source_ids[s.url] for s in sources)
    claims = [
        Claim(
            key="C1",
            claim_text="The mayor signed the contract in March 2024.",
            importance=0.9,
            entities=["Mayor"],
            source_ids=[s1, s2],
        ),
        Claim(key="C2", claim_text="It cost R$10m.", importance=0.4, source_ids=[s2]),
    ]
    claim_ids = repo.save_claims(iid, claims)
    verdict = _verdict("C1", claim_ids["C1"], ["https://a.example", "https://b.example"])
    verdict.source_ids = [s1]
    fact_check_ids = repo.save_verdicts(iid, [verdict])
    bias = BiasAssessment(
        overall_bias_score=3.5,
        coverage={"supportive": 1, "neutral": 1, "critical": 0},
        coverage_pct={"supportive": 50.0, "neutral": 50.0, "critical": 0.0},
        per_source=[SourceBias(url=sources[0].url, source_id=s1, bias_score=6, stance="critical")],
        recommendation="Seek the council's side.",
    )
    repo.save_bias(iid, bias)
    event_ids = repo.save_timeline(
        iid, [TimelineEvent(event_date="2024-03-01", event_text="Signed", source_ids=[s1])]
    )
    repo.finish_investigation(iid, "completed", summary="# Report\nSigned [1].")

    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert data["id"] == iid
    assert (data["title"], data["brief"], data["mode"], data["language"]) == (
        config.title,
        config.brief,
        "detailed",
        "pt",
    )
    assert data["status"] == "completed"
    assert data["summary"] == "# Report\nSigned [1]."
    assert data["overall_bias_score"] == 3.5
    assert datetime.fromisoformat(data["completed_at"]).utcoffset() is not None

    assert [s["id"] for s in data["sources"]] == [s1, s2, s3]
    for saved, original in zip(data["sources"], sources, strict=True):
        # an address with no separate display form is shown as is; the publisher is the domain
        assert Source.model_validate(saved) == original.model_copy(
            update={
                "source_id": saved["id"],
                "display_url": original.display_url or original.url,
                "publisher": original.publisher or original.domain,
            }
        )
    assert data["sources"][2]["is_reachable"] is False
    assert data["sources"][2]["unreachable_reason"] == "HTTP 404"
    # a date is saved with who states it; no date, no source
    assert [(s["published_at"], s["published_at_source"]) for s in data["sources"]] == [
        ("2024-03-01", "metadata"),
        ("2024-03-01", "metadata"),
        (None, None),
    ]

    assert [c["key"] for c in data["claims"]] == ["C1", "C2"]
    c1 = data["claims"][0]
    assert c1["id"] == claim_ids["C1"]
    assert c1["source_ids"] == [s1, s2]
    assert c1["entities"] == ["Mayor"]
    assert c1["importance"] == 0.9

    [check] = data["fact_checks"]
    assert check["id"] == fact_check_ids["C1"]
    assert check["claim_id"] == claim_ids["C1"]
    assert check["source_ids"] == [s1]
    assert [(e["published_at"], e["published_at_source"]) for e in check["evidence"]] == [
        ("2024-03-01", "search"),
        (None, None),
    ]
    restored = Verdict.model_validate({**check, "claim_text": verdict.claim_text})
    shown = [e.model_copy(update={"display_url": e.display_url or e.url}) for e in verdict.evidence]
    assert restored == verdict.model_copy(update={"fact_check_id": check["id"], "evidence": shown})

    assert data["bias"] == {
        "overall_bias_score": 3.5,
        "coverage": bias.coverage,
        "coverage_pct": bias.coverage_pct,
        "recommendation": "Seek the council's side.",
        "per_source": [
            {
                "source_id": s1,
                "url": sources[0].url,
                "bias_score": 6.0,
                "stance": "critical",
                "indicators": [],
            }
        ],
        "unrated": 0,
    }
    assert [e["id"] for e in data["timeline"]] == event_ids
    assert data["timeline"][0]["source_ids"] == [s1]
    assert data["timeline"][0]["event_text"] == "Signed"


def test_resaving_returns_the_same_ids_without_duplicates(repo: Repository) -> None:
    iid = _started(repo)
    sources = [_source(1), _source(2)]
    first = repo.save_sources(iid, sources)
    second = repo.save_sources(iid, [_source(2, title="Updated"), *sources[:1], _source(3)])
    assert second[sources[0].url] == first[sources[0].url]
    assert second[sources[1].url] == first[sources[1].url]
    assert len(set(second.values())) == 3

    claims = [Claim(key="C1", claim_text="a", importance=0.5)]
    claim_ids = repo.save_claims(iid, claims)
    assert repo.save_claims(iid, claims) == claim_ids
    verdicts = [_verdict("C1", claim_ids["C1"], ["https://a.example"])]
    fact_check_ids = repo.save_verdicts(iid, verdicts)
    assert repo.save_verdicts(iid, verdicts) == fact_check_ids

    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert len(data["sources"]) == 3
    assert [s["url"] for s in data["sources"]] == [s.url for s in [*sources, _source(3)]]
    assert data["sources"][1]["title"] == "Updated"
    assert len(data["claims"]) == 1
    assert len(data["fact_checks"]) == 1
    [listed] = as_json(repo.list_investigations())
    assert (listed["source_count"], listed["claim_count"], listed["fact_check_count"]) == (3, 1, 1)


def test_claim_source_links(repo: Repository) -> None:
    iid = _started(repo)
    other = _started(repo)
    ids = repo.save_sources(iid, [_source(1), _source(2), _source(3)])
    foreign = repo.save_sources(other, [_source(1)])
    s1, s2, s3 = ids.values()
    claim = Claim(
        key="C1",
        claim_text="a",
        importance=0.5,
        source_ids=[s1, "no-such-id", foreign[_source(1).url], s1],
        source_urls=[_source(2).url, "https://unknown.example"],
    )
    claim_ids = repo.save_claims(iid, [claim])

    def links() -> list[str]:
        data = as_json(repo.get_investigation(iid))
        assert data is not None
        return data["claims"][0]["source_ids"]

    assert links() == [s1, s2]
    relinked = claim.model_copy(update={"source_ids": [s3], "source_urls": []})
    assert repo.save_claims(iid, [relinked]) == claim_ids
    assert links() == [s3]


def test_verdicts_link_to_claims_and_keep_evidence_order(repo: Repository) -> None:
    iid = _started(repo)
    other = _started(repo)
    claim_ids = repo.save_claims(
        iid,
        [
            Claim(key="C1", claim_text="one", importance=0.5),
            Claim(key="C2", claim_text="two", importance=0.5),
        ],
    )
    foreign_claim = repo.save_claims(other, [Claim(key="C9", claim_text="x", importance=0.1)])
    urls = [f"https://e{i}.example" for i in range(4)]
    saved = repo.save_verdicts(
        iid,
        [
            _verdict("C1", claim_ids["C1"], urls),
            _verdict("C2", None, urls[:1]),  # found by key
            _verdict("C7", "missing-claim-id", urls),
            _verdict("C9", foreign_claim["C9"], urls),
        ],
    )
    assert set(saved) == {"C1", "C2"}

    def checks() -> dict[str, dict]:
        data = as_json(repo.get_investigation(iid))
        assert data is not None
        return {check["claim_id"]: check for check in data["fact_checks"]}

    assert [e["url"] for e in checks()[claim_ids["C1"]]["evidence"]] == urls
    assert checks()[claim_ids["C2"]]["id"] == saved["C2"]

    again = repo.save_verdicts(iid, [_verdict("C1", claim_ids["C1"], urls[::-1][:2])])
    assert again["C1"] == saved["C1"]
    assert [e["url"] for e in checks()[claim_ids["C1"]]["evidence"]] == [urls[3], urls[2]]
    other_data = as_json(repo.get_investigation(other))
    assert other_data is not None and other_data["fact_checks"] == []


def test_timeline_is_replaced_and_read_chronologically(repo: Repository) -> None:
    iid = _started(repo)
    s1 = repo.save_sources(iid, [_source(1)])[_source(1).url]
    events = [
        TimelineEvent(event_date="2024-05-02", event_text="Audit", source_ids=[s1, "bogus"]),
        TimelineEvent(event_date="2023", date_precision="year", event_text="Tender"),
        TimelineEvent(
            event_date="2024-03",
            date_precision="month",
            event_text="Signed",
            source_urls=[_source(1).url],
        ),
    ]
    ids = repo.save_timeline(iid, events)
    assert len(set(ids)) == 3
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert [e["event_text"] for e in data["timeline"]] == ["Tender", "Signed", "Audit"]
    by_text = {e["event_text"]: e for e in data["timeline"]}
    assert [by_text[e.event_text]["id"] for e in events] == ids
    assert by_text["Audit"]["source_ids"] == [s1]
    assert by_text["Signed"]["source_ids"] == [s1]
    assert by_text["Tender"]["date_precision"] == "year"

    assert repo.save_timeline(iid, events) == ids  # idempotent
    replaced = repo.save_timeline(
        iid, [events[0], TimelineEvent(event_date="2025", event_text="X")]
    )
    assert replaced[0] == ids[0]
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert [e["event_text"] for e in data["timeline"]] == ["Audit", "X"]
    assert repo.save_timeline(iid, []) == []
    data = as_json(repo.get_investigation(iid))
    assert data is not None and data["timeline"] == []


def test_status_transitions(repo: Repository) -> None:
    config = _config()
    iid = config.investigation_id
    assert repo.get_status(iid) is None
    assert as_json(repo.get_investigation(iid)) is None
    repo.start_investigation(config)
    assert repo.get_status(iid) == "in_progress"

    repo.finish_investigation(iid, "partial", summary="draft", partial_reason="2 sources failed")
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert (data["status"], data["partial_reason"], data["summary"]) == (
        "partial",
        "2 sources failed",
        "draft",
    )
    assert data["completed_at"] is not None

    repo.start_investigation(config.model_copy(update={"title": "Renamed"}))
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert (data["status"], data["partial_reason"], data["completed_at"]) == (
        "in_progress",
        None,
        None,
    )
    assert data["title"] == "Renamed"
    assert data["summary"] == "draft"

    repo.finish_investigation(iid, "failed", error="model timeout")
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert (data["status"], data["error"], data["summary"]) == ("failed", "model timeout", "draft")

    repo.finish_investigation(iid, "completed", summary="final")
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert (data["status"], data["error"], data["partial_reason"], data["summary"]) == (
        "completed",
        None,
        None,
        "final",
    )
    with pytest.raises(ValueError):
        repo.finish_investigation(iid, "in_progress")  # type: ignore[arg-type]
    assert repo.get_status(iid) == "completed"


def test_saves_for_an_unknown_investigation_raise(repo: Repository) -> None:
    iid = str(uuid.uuid4())
    bias = BiasAssessment(overall_bias_score=1, coverage={}, coverage_pct={})
    calls = [
        lambda: repo.save_sources(iid, [_source(1)]),
        lambda: repo.save_claims(iid, [Claim(key="C1", claim_text="a", importance=1)]),
        lambda: repo.save_verdicts(iid, [_verdict("C1", None, [])]),
        lambda: repo.save_bias(iid, bias),
        lambda: repo.save_timeline(iid, [TimelineEvent(event_date="2024", event_text="x")]),
        lambda: repo.finish_investigation(iid, "completed"),
    ]
    for call in calls:
        with pytest.raises(UnknownInvestigationError) as raised:
            call()
        assert isinstance(raised.value, KeyError)
    assert as_json(repo.get_investigation(iid)) is None
    assert as_json(repo.list_investigations()) == []


def test_save_bias_upserts_and_resolves_source_ids(repo: Repository) -> None:
    iid = _started(repo)
    s1 = repo.save_sources(iid, [_source(1)])[_source(1).url]
    per_source = [
        SourceBias(url=_source(1).url, bias_score=2, indicators=["loaded words"]),
        SourceBias(url="https://gone.example", source_id="bogus", bias_score=9),
    ]
    repo.save_bias(
        iid,
        BiasAssessment(overall_bias_score=4, coverage={}, coverage_pct={}, per_source=per_source),
    )
    repo.save_bias(iid, BiasAssessment(overall_bias_score=7, coverage={}, coverage_pct={}))
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert data["overall_bias_score"] == 7
    assert data["bias"]["overall_bias_score"] == 7
    assert data["bias"]["per_source"] == []

    repo.save_bias(
        iid,
        BiasAssessment(overall_bias_score=4, coverage={}, coverage_pct={}, per_source=per_source),
    )
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert [p["source_id"] for p in data["bias"]["per_source"]] == [s1, None]
    assert data["bias"]["per_source"][0]["indicators"] == ["loaded words"]


def test_concurrent_threads_on_one_database(records_url: str) -> None:
    shared = Repository(records_url)
    separate = Repository(
        records_url
    )  # a second engine on the same database, like a second process
    common = _started(shared)
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def work(repo: Repository, worker: int) -> None:
        try:
            own = _started(repo)
            barrier.wait(timeout=30)
            for round_ in range(15):
                sources = [_source(i) for i in range(5)]
                ids = repo.save_sources(common, sources)
                repo.save_claims(
                    common,
                    [
                        Claim(
                            key=f"W{worker}",
                            claim_text=f"round {round_}",
                            importance=0.5,
                            source_ids=list(ids.values()),
                        )
                    ],
                )
                repo.save_sources(own, [_source(round_)])
                as_json(repo.get_investigation(common))
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [
        threading.Thread(target=work, args=(repo, n))
        for n, repo in enumerate([shared, shared, separate, separate])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        data = as_json(shared.get_investigation(common))
        assert data is not None
        assert len(data["sources"]) == 5
        assert sorted(c["key"] for c in data["claims"]) == ["W0", "W1", "W2", "W3"]
        assert all(len(c["source_ids"]) == 5 for c in data["claims"])
        counts = {i["id"]: i["source_count"] for i in as_json(separate.list_investigations())}
        assert len(counts) == 5
        assert sorted(counts.values()) == [5, 15, 15, 15, 15]
    finally:
        shared.close()
        separate.close()


def test_sqlite_file_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "pragmas.db"
    repo = Repository(f"sqlite:///{path}")
    try:
        with repo._engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    finally:
        repo.close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_output_is_json_serialisable(repo: Repository) -> None:
    iid = _started(repo)
    ids = repo.save_sources(iid, [_source(1)])
    claim_ids = repo.save_claims(
        iid, [Claim(key="C1", claim_text="a", importance=0.3, source_ids=list(ids.values()))]
    )
    repo.save_verdicts(iid, [_verdict("C1", claim_ids["C1"], ["https://e.example"])])
    repo.save_bias(
        iid,
        BiasAssessment(
            overall_bias_score=2, coverage={"neutral": 1}, coverage_pct={"neutral": 100.0}
        ),
    )
    repo.save_timeline(iid, [TimelineEvent(event_date="2024-01-01", event_text="x")])
    repo.finish_investigation(iid, "partial", summary="s", partial_reason="r")
    data = as_json(repo.get_investigation(iid))
    assert data is not None
    assert json.loads(json.dumps(data)) == data
    listing = as_json(repo.list_investigations())
    assert json.loads(json.dumps(listing)) == listing
    for stamp in ("created_at", "updated_at", "completed_at"):
        assert datetime.fromisoformat(data[stamp]).utcoffset() == timedelta(0)


def test_readers_get_typed_read_only_views(repo: Repository) -> None:
    """No reader indexes a dict by string: the records come back as typed views, their
    defaults decided once, and a reader cannot change what it was given."""
    iid = _started(repo)
    ids = repo.save_sources(iid, [_source(1, is_reachable=False, unreachable_reason="HTTP 404")])
    found = repo.get_investigation(iid)
    assert isinstance(found, InvestigationView)
    (source,) = found.sources
    assert isinstance(source, SourceView) and source.id == ids[source.url]
    assert (source.is_reachable, source.relevant, source.display_url) == (False, True, source.url)
    with pytest.raises(ValidationError):
        source.title = "changed"  # type: ignore[misc]
    (item,) = repo.list_investigations()
    assert isinstance(item, InvestigationListItem) and item.source_count == 1
    assert repo.outbox_summary().counts.model_dump() == {"pending": 0, "delivered": 0, "failed": 0}
    assert repo.get_investigation("no-such-investigation") is None


def test_list_investigations_newest_first(repo: Repository) -> None:
    first = _started(repo)
    second = _started(repo)
    repo.save_sources(first, [_source(1), _source(2)])
    listing = as_json(repo.list_investigations())
    assert [i["id"] for i in listing] == [second, first]
    assert listing[1]["source_count"] == 2
    assert listing[0]["source_count"] == 0
    assert listing[0]["status"] == "in_progress"
    assert listing[0]["title"] == "Dam contract"


def test_get_repository_caches_per_url_and_creates_the_directory(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "vicaran.db"
    url = f"sqlite:///{path}"
    repo = get_repository(url)
    try:
        assert path.parent.is_dir()
        assert get_repository(url) is repo
        other = get_repository(f"sqlite:///{tmp_path / 'other.db'}")
        assert other is not repo
        other.close()
        iid = _started(repo)
        reopened = Repository(url)
        assert reopened.get_status(iid) == "in_progress"  # data is on disk
        reopened.close()
    finally:
        repo.close()
    assert get_repository(url) is not repo
    get_repository(url).close()


def test_in_memory_database(tmp_path: Path) -> None:
    repo = Repository("sqlite://")
    try:
        iid = _started(repo)
        assert repo.save_sources(iid, [_source(1)]).keys() == {_source(1).url}
        assert repo.get_status(iid) == "in_progress"
    finally:
        repo.close()


def test_an_older_database_gains_new_columns(tmp_path):
    """A store created before the baseline (no evidence.origin/rating, no migrations) keeps working."""
    import sqlite3

    path = tmp_path / "old.db"
    Repository(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE alembic_version")
        db.execute("ALTER TABLE evidence DROP COLUMN origin")
        db.execute("ALTER TABLE evidence DROP COLUMN rating")
    Repository(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(evidence)")}
    assert {"origin", "rating"} <= columns


def test_a_finished_investigation_is_not_reopened_when_asked_not_to(repo: Repository) -> None:
    from vicaran_agent.storage.repository import InvestigationFinishedError

    iid = _started(repo)
    repo.finish_investigation(iid, "completed", summary="done")
    config = InvestigationConfig.for_mode(
        "quick", investigation_id=iid, title="hijacked", brief="x", language="en"
    )
    with pytest.raises(InvestigationFinishedError):
        repo.start_investigation(config, reopen=False)
    saved = as_json(repo.get_investigation(iid))
    assert saved["status"] == "completed" and saved["title"] != "hijacked"
    repo.start_investigation(config)  # the agent's own restart still may
    assert repo.get_status(iid) == "in_progress"


def test_long_text_from_pages_and_the_model_is_kept_on_every_backend(repo: Repository) -> None:
    """SQLite ignores VARCHAR lengths; PostgreSQL refuses the whole save past them."""
    iid = _started(repo)
    url = "https://news1.example/story?" + "q=" * 1000  # the callback API's limit is 2,048
    publisher = "The Riverton Daily " * 20
    published_at = "Tuesday, the first of March of the year 2024, late in the evening"
    ids = repo.save_sources(
        iid, [_source(1, url=url, publisher=publisher, published_at=published_at)]
    )
    claim_key = "C-" + "acme-chemicals-polluted-the-water-" * 3
    city = "São José do Vale do Rio Preto " * 6
    repo.save_claims(
        iid,
        [
            Claim(
                key=claim_key,
                claim_text="Acme polluted the river.",
                importance=0.5,
                source_ids=list(ids.values()),
                city=city,
            )
        ],
    )
    when = "early spring of 2024, before the first complaints"
    repo.save_timeline(iid, [TimelineEvent(event_date=when, event_text="The plant opened.")])

    data = as_json(repo.get_investigation(iid))
    assert data is not None
    (source,) = data["sources"]
    assert (source["url"], source["publisher"], source["published_at"]) == (
        url,
        publisher,
        published_at,
    )
    (claim,) = data["claims"]
    assert (claim["key"], claim["city"]) == (claim_key, city)
    assert [e["event_date"] for e in data["timeline"]] == [when]


def test_a_reader_is_the_open_repository_else_its_own_closed_with_the_services(
    records_url, monkeypatch
):
    """What only reads (`vicaran export`, `docs`) gets a Core reader when no repository is open,
    shared and closed like the repositories; an open repository serves its reads itself."""
    from vicaran_agent import services
    from vicaran_agent.storage.reads import Reads, get_reader

    repository = Repository(records_url)
    repository.start_investigation(_config("a" * 8 + "-0000-4000-8000-000000000000"))
    reader = get_reader(records_url)
    assert type(reader) is Reads
    assert get_reader(records_url) is reader
    assert [i.id[:8] for i in reader.list_investigations()] == ["a" * 8]
    shared = services.current()
    assert shared.readers == {records_url: reader}
    opened = get_repository(records_url)
    assert get_reader(records_url) is opened
    disposed = []
    monkeypatch.setattr(reader, "dispose", lambda: disposed.append(reader))
    shared.close()
    assert shared.readers == {} and shared.repositories == {}
    assert disposed == [reader]
    repository.close()
