"""Schema migrations: databases made before them keep every record; PostgreSQL only on command."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, create_engine, inspect

from tests.fixtures.make_records_6b66a77 import (
    COLLECTION,
    FAILED_ID,
    IDEMPOTENCY,
    INVESTIGATION_ID,
)
from tests.support.databases import records_database
from tests.support.records import as_json
from vicaran_agent import cli
from vicaran_agent.cli import server as cli_server
from vicaran_agent.config import forget_settings
from vicaran_agent.documents.store import DocumentStore
from vicaran_agent.storage import Repository, migrate
from vicaran_agent.storage.migrate import SchemaOutdated
from vicaran_agent.storage.tables import metadata

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "records-6b66a77.json").read_text(encoding="utf-8"))


def _old_database(tmp_path: Path) -> str:
    """A copy of the database file the code of commit 6b66a77 made (no alembic_version)."""
    path = tmp_path / "old" / "vicaran.db"
    path.parent.mkdir()
    path.write_bytes(gzip.decompress((FIXTURES / "records-6b66a77.db.gz").read_bytes()))
    return f"sqlite:///{path}"


def _contains(new: Any, old: Any, where: str = "") -> None:
    """Everything the old read API said is said again (new fields may be added)."""
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for key, value in old.items():
            assert key in new, f"{where}.{key} is gone"
            _contains(new[key], value, f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for index, (a, b) in enumerate(zip(new, old, strict=True)):
            _contains(a, b, f"{where}[{index}]")
    else:
        assert new == old, where


def _same_records(repository: Repository) -> None:
    for investigation_id, expected in EXPECTED["investigations"].items():
        _contains(
            as_json(repository.get_investigation(investigation_id)), expected, investigation_id
        )
    _contains(as_json(repository.list_investigations()), EXPECTED["list"], "list")
    assert repository.get_snapshots(INVESTIGATION_ID) == EXPECTED["snapshots"]
    assert repository.outbox_summary().counts.model_dump() == EXPECTED["outbox"]
    assert list(repository.get_idempotent(IDEMPOTENCY[0]) or ()) == EXPECTED["idempotent"]


def _differences(url_or_engine: Any) -> list[Any]:
    engine = create_engine(url_or_engine) if isinstance(url_or_engine, str) else url_or_engine
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": migrate.include_object}
        )
        return compare_metadata(context, metadata)


def test_a_database_made_before_migrations_keeps_every_record(tmp_path: Path) -> None:
    url = _old_database(tmp_path)
    with create_engine(url).connect() as connection:
        assert not inspect(connection).has_table("alembic_version")
        assert "tokens" not in {
            c["name"] for c in inspect(connection).get_columns("investigations")
        }

    repository = Repository(url)  # SQLite: upgraded as it opens

    assert migrate.current(url) == migrate.head()
    _same_records(repository)
    investigation = as_json(repository.get_investigation(INVESTIGATION_ID))
    assert investigation is not None
    assert [s["origin"] for s in investigation["sources"]] == [
        "web",
        "document",
        "gazette",
        "user_url",
    ]
    assert investigation["sources"][2]["territory_id"] == "2211001"
    assert [e["origin"] for e in investigation["fact_checks"][0]["evidence"]] == [
        "web",
        "document",
        "gazette",
    ]
    assert as_json(repository.get_investigation(FAILED_ID))["status"] == "failed"  # type: ignore[index]
    assert _differences(url) == []  # the same schema as a database made at head
    documents = DocumentStore(url)
    hits = documents.search("licitacao barragem", [COLLECTION])
    assert [[h.document_id, h.page, h.passage_id] for h in hits] == EXPECTED["search"]
    repository.close()


def test_the_new_column_is_added(tmp_path: Path) -> None:
    url = _old_database(tmp_path)
    repository = Repository(url)
    with create_engine(url).connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("investigations")}
    assert "tokens" in columns
    repository.close()


def test_the_date_sources_are_added_to_sources_and_evidence(tmp_path: Path) -> None:
    """0004: where each publication date comes from; the old dates stay, their source unknown."""
    url = _old_database(tmp_path)
    repository = Repository(url)
    with create_engine(url).connect() as connection:
        for table in ("sources", "evidence"):
            columns = {c["name"] for c in inspect(connection).get_columns(table)}
            assert "published_at_source" in columns, table
    data = as_json(repository.get_investigation(INVESTIGATION_ID))
    assert data is not None
    dated = [s for s in data["sources"] if s["published_at"]]
    assert dated and all(s["published_at_source"] is None for s in dated)
    repository.close()


def test_a_database_with_todays_column_added_in_place_is_upgraded(tmp_path: Path) -> None:
    """Made by code that added `tokens` itself (before migrations): stamped, nothing re-added."""
    url = _old_database(tmp_path)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE investigations ADD COLUMN tokens JSON")
    engine.dispose()

    repository = Repository(url)

    assert migrate.current(url) == migrate.head()
    _same_records(repository)
    repository.close()


def test_in_memory_databases_are_made_at_head() -> None:
    repository = Repository("sqlite://")
    assert migrate.current(repository._engine) == migrate.head()
    assert _differences(repository._engine) == []
    repository.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_models_match_the_migrations(backend: str, tmp_path: Path) -> None:
    """A table change without a revision fails here."""
    with records_database(backend, tmp_path, migrated=False) as url:
        migrate.upgrade(url)
        assert _differences(url) == []


def test_db_upgrade_is_idempotent(tmp_path: Path, db_env: Any, capsys: Any) -> None:
    url = db_env(_old_database(tmp_path))

    assert cli.main(["db", "upgrade"]) == 0
    first = capsys.readouterr().out
    assert cli.main(["db", "upgrade"]) == 0
    second = capsys.readouterr().out
    assert cli.main(["db", "status"]) == 0
    status = capsys.readouterr().out

    assert migrate.current(url) == migrate.head()
    assert f"to {migrate.head()}" in first and "upgraded" in first
    assert "up to date" in second
    assert migrate.head() in status and "up to date" in status
    _same_records(Repository(url))


def test_db_status_names_the_command_in_portuguese(
    tmp_path: Path, db_env: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    with records_database("sqlite", tmp_path, migrated=False) as url:
        db_env(url)
        migrate.upgrade(url, migrate.BASELINE)
        monkeypatch.setenv("LANG", "pt_BR.UTF-8")

        assert cli.main(["db", "status"]) == 1

        out = capsys.readouterr().out
        assert "revisão 0001" in out and "`vicaran db upgrade`" in out


# --- PostgreSQL: never migrated implicitly ---------------------------------------------------


@pytest.fixture
def db_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Point VICARAN_DATABASE_URL (and the cached settings) at a URL."""

    def point(url: str) -> str:
        monkeypatch.setenv("VICARAN_DATABASE_URL", url)
        forget_settings()
        return url

    monkeypatch.delenv("LANG", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    yield point
    forget_settings()


def _copy_rows(source_url: str, target_url: str) -> None:
    """Every row of the old SQLite file into a PostgreSQL schema at the baseline (0001)."""
    source, target = create_engine(source_url), create_engine(target_url)
    old, new = MetaData(), MetaData()
    old.reflect(source)
    new.reflect(target)
    with source.connect() as reading, target.begin() as writing:
        for table in new.sorted_tables:
            if table.name == "alembic_version":
                continue
            rows = [dict(row._mapping) for row in reading.execute(old.tables[table.name].select())]
            for row in rows:
                for key, value in row.items():
                    if isinstance(value, datetime) and value.tzinfo is None:
                        row[key] = value.replace(tzinfo=UTC)
            if rows:
                writing.execute(table.insert(), rows)
    source.dispose()
    target.dispose()


def test_postgres_records_at_the_baseline_survive_the_upgrade(tmp_path: Path) -> None:
    with records_database("postgresql", tmp_path, migrated=False) as url:
        migrate.upgrade(url, migrate.BASELINE)
        _copy_rows(_old_database(tmp_path), url)
        with pytest.raises(SchemaOutdated):
            Repository(url)

        assert migrate.upgrade(url) == (migrate.BASELINE, migrate.head())

        repository = Repository(url)
        _same_records(repository)
        hits = DocumentStore(url).search("licitacao barragem", [COLLECTION])
        assert {h.document_id for h in hits} == {row[0] for row in EXPECTED["search"]}


@pytest.mark.parametrize("revision", [None, migrate.BASELINE])
def test_postgres_is_never_migrated_implicitly(
    revision: str | None, tmp_path: Path, db_env: Any, capsys: Any
) -> None:
    with records_database("postgresql", tmp_path, migrated=False) as url:
        db_env(url)
        if revision:
            migrate.upgrade(url, revision)

        with pytest.raises(SchemaOutdated) as raised:
            Repository(url)
        assert "`vicaran db upgrade`" in str(raised.value)
        assert "VICARAN_DATABASE_URL" in str(raised.value)
        assert migrate.current(url) == revision  # nothing migrated

        assert cli.main(["db", "status"]) == 1
        assert "`vicaran db upgrade`" in capsys.readouterr().out
        assert cli.main(["db", "upgrade"]) == 0
        assert cli.main(["db", "upgrade"]) == 0
        assert migrate.current(url) == migrate.head()
        Repository(url).close()


def test_serve_refuses_an_outdated_postgres_schema_before_binding(
    tmp_path: Path, db_env: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bind(host: str, port: int) -> None:
        raise AssertionError("serve bound a port on an outdated schema")

    monkeypatch.setattr(cli_server, "listen", bind)
    with records_database("postgresql", tmp_path, migrated=False) as url:
        db_env(url)
        migrate.upgrade(url, migrate.BASELINE)

        assert cli.main(["serve", "--port", "0"]) == 1

        error = capsys.readouterr().err
        assert "`vicaran db upgrade`" in error and "0001" in error


def test_other_commands_name_the_upgrade_on_an_outdated_postgres_schema(
    tmp_path: Path, db_env: Any, capsys: Any
) -> None:
    with records_database("postgresql", tmp_path, migrated=False) as url:
        db_env(url)

        assert cli.main(["outbox", "status"]) == 1

        error = capsys.readouterr().err
        assert "`vicaran db upgrade`" in error and "Traceback" not in error


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_upgrades_migrate_once(backend: str, tmp_path: Path) -> None:
    """Two replicas (or a server and a command) upgrading one database at the same moment."""
    with records_database(backend, tmp_path, migrated=False) as url:
        migrate.status(url)  # the SQLite file exists
        barrier = threading.Barrier(4)
        results: list[Any] = []

        def run() -> None:
            barrier.wait()
            try:
                results.append(migrate.upgrade(url)[1])
            except Exception as error:  # noqa: BLE001 - the assertion shows it
                results.append(error)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        assert results == [migrate.head()] * 4
        assert _differences(url) == []


def test_the_revision_files_names_are_alembics_history() -> None:
    """A store at head is recognised without Alembic, from the files' names: they must be
    Alembic's own history, one line of it (a branch or a misnamed file fails here)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory(str(migrate.SCRIPT_LOCATION))
    assert migrate.head() == scripts.get_current_head()
    history = [script.revision for script in scripts.walk_revisions()]
    assert list(migrate._revisions()) == history[::-1]
