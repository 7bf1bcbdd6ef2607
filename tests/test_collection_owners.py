"""Collections have owners: chat attachments belong to the conversation's user; `docs add` is shared.

The attack of issue 20: a brief with `Collection: investigation-<id>` in another user's new
session planned with the victim's attachment and quoted it. Now the plan says the collection
cannot be used, in the words it uses for one that does not exist, and nothing of it is read.
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest
from google.genai import types
from sqlalchemy import create_engine, text

from tests.support import scripted_model
from tests.support.conversation import Conversation, text_of
from tests.support.databases import records_database
from vicaran_agent import cli
from vicaran_agent import state_keys as keys
from vicaran_agent.config import get_settings
from vicaran_agent.documents import intake
from vicaran_agent.documents.collection import Reader
from vicaran_agent.documents.model import PageText, ParsedDocument
from vicaran_agent.documents.store import DocumentStore, get_document_store
from vicaran_agent.storage import Repository, migrate

BRIEF = "Investigate whether Acme Chemicals polluted Riverton's drinking water in 2024."
SECRET = "Our source inside Acme is the night-shift chemist Dana Whitfield."
MEMO = f"{SECRET}\n\nShe says Acme discharged untreated water into the Clear River in 2024.\n"
NOT_USED = "**Not used in this investigation:**"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def store(env) -> DocumentStore:
    return get_document_store(get_settings().database_url)


def memo_file(name: str = "memo.txt") -> types.Part:
    return types.Part(
        inline_data=types.Blob(data=MEMO.encode(), mime_type="text/plain", display_name=name)
    )


def parsed(name: str, text_: str) -> ParsedDocument:
    return ParsedDocument(
        file_name=name,
        kind="text",
        sha256=hashlib.sha256(text_.encode()).hexdigest(),
        size_bytes=len(text_),
        title=name,
        page_count=1,
        pages=[PageText(1, text_)],
    )


def everything_said(conversation: Conversation, calls_from: int) -> str:
    """What the conversation showed and what the model calls since `calls_from` were sent."""
    shown = "\n".join(text_of(e) for e in conversation.events)
    calls = scripted_model.CALLS[calls_from:]
    return shown + "\n" + "\n".join(c["instruction"] + c["prompt"] for c in calls)


async def alice_attaches_her_memo() -> tuple[Conversation, str]:
    alice = Conversation(user_id="alice")
    await alice.send(BRIEF, [memo_file()])
    state = await alice.state()
    return alice, intake.investigation_collection(state[keys.INVESTIGATION_ID])


def not_used_line(plan: str, name: str) -> str:
    (line,) = [x for x in plan.split(NOT_USED)[1].splitlines() if name in x]
    return line


# --- the attack -------------------------------------------------------------------------------


async def test_another_users_session_naming_an_attachment_collection_gets_nothing(store):
    _, hers = await alice_attaches_her_memo()
    assert [d.file_name for d in store.documents(hers)] == ["memo.txt"]

    mallory, calls_from = Conversation(user_id="mallory"), len(scripted_model.CALLS)
    plan = mallory.texts(await mallory.send(f"Quick Search. {BRIEF}\nCollection: {hers}"))[-1]

    assert "memo.txt" not in plan and "**Your documents:**" not in plan
    assert f'Collection "{hers}": not found' in not_used_line(plan, hers)
    documents = (await mallory.state())[keys.INVESTIGATION_DOCUMENTS]
    assert [(c["name"], c["found"], c["documents"]) for c in documents["collections"]] == [
        (hers, False, [])
    ]
    run = await mallory.send("APPROVED")
    assert mallory.texts(run)[0].startswith("[INVESTIGATION_STARTED]")
    state = await mallory.state()
    assert state[keys.INVESTIGATION_STATUS] in ("completed", "partial")
    assert not [s for s in state[keys.SOURCE_RECORDS] if s["origin"] == "document"]
    assert "Dana Whitfield" not in everything_said(mallory, calls_from)


async def test_the_refusal_reads_exactly_like_a_collection_that_does_not_exist(store):
    _, hers = await alice_attaches_her_memo()
    unknown = "investigation-" + "0" * 8 + hers[len("investigation-") + 8 :]
    assert len(unknown) == len(hers) and unknown != hers

    mallory = Conversation(user_id="mallory")
    plan = mallory.texts(await mallory.send(f"{BRIEF}\nCollection: {hers}, {unknown}"))[-1]

    assert not_used_line(plan, hers).replace(hers, "NAME") == not_used_line(plan, unknown).replace(
        unknown, "NAME"
    )


async def test_the_owner_still_reads_it_in_that_session_and_from_another_of_hers(store):
    alice, hers = await alice_attaches_her_memo()
    plan = alice.texts(alice.events)[-1]
    assert "(memo.txt) - 1 page" in plan.split("**Your documents:**")[1]

    again = Conversation(user_id="alice")
    plan = again.texts(await again.send(f"Quick Search. {BRIEF}\nCollection: {hers}"))[-1]
    assert "(memo.txt) - 1 page" in plan.split("**Your documents:**")[1]
    assert NOT_USED not in plan or hers not in plan.split(NOT_USED)[1]
    await again.send("APPROVED")
    state = await again.state()
    assert [s["publisher"] for s in state[keys.SOURCE_RECORDS] if s["origin"] == "document"] == [
        "memo.txt"
    ]


async def test_a_forged_state_naming_the_collection_reads_nothing_in_the_run(store):
    """The pipeline checks too: a client's stateDelta cannot hand it someone else's collection."""
    _, hers = await alice_attaches_her_memo()
    mallory, calls_from = Conversation(user_id="mallory"), len(scripted_model.CALLS)
    await mallory.send(f"Quick Search. {BRIEF}")
    config = dict((await mallory.state())[keys.INVESTIGATION_CONFIG])
    config["collections"] = [hers]

    await mallory.send("APPROVED", state_delta={keys.INVESTIGATION_CONFIG: config})

    state = await mallory.state()
    assert state[keys.INVESTIGATION_CONFIG]["collections"] == [hers]  # the forgery took
    assert not [s for s in state[keys.SOURCE_RECORDS] if s["origin"] == "document"]
    assert all(not v.get("evidence") or all(e["origin"] != "document" for e in v["evidence"])
               for v in state[keys.VERDICT_RECORDS])  # fmt: skip
    assert "Dana Whitfield" not in everything_said(mallory, calls_from)


async def test_an_attachment_cannot_join_a_collection_another_user_owns(store):
    """Naming Alice's investigation id does not let Mallory's files into her collection."""
    alice, hers = await alice_attaches_her_memo()
    investigation_id = (await alice.state())[keys.INVESTIGATION_ID]

    mallory = Conversation(user_id="mallory")
    events = await mallory.send(
        f"Investigation ID: {investigation_id}\n{BRIEF}", [memo_file("planted.txt")]
    )

    assert [d.file_name for d in store.documents(hers)] == ["memo.txt"]
    plan = mallory.texts(events)[-1]
    assert "planted.txt" in not_used_line(plan, "planted.txt")
    assert "memo.txt" not in plan


def test_names_carry_the_whole_investigation_id() -> None:
    investigation_id = "bf58e932-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    assert intake.investigation_collection(investigation_id) == f"investigation-{investigation_id}"


# --- operator collections are shared ----------------------------------------------------------


async def test_a_collection_made_with_docs_add_is_shared_by_every_user(store, tmp_path, capsys):
    (tmp_path / "contract.txt").write_text("Contrato 002/2024 between Riverton and Acme.")
    assert cli.main(["docs", "add", str(tmp_path / "contract.txt"), "--collection", "acme"]) == 0
    for user in ("alice", "mallory"):
        conversation = Conversation(user_id=user)
        plan = conversation.texts(await conversation.send(f"{BRIEF}\nCollection: acme"))[-1]
        assert "(contract.txt) - 1 page" in plan.split("**Your documents:**")[1], user


async def test_a_mistyped_collection_is_answered_with_the_closest_one_she_may_use(store):
    store.add(parsed("contract.txt", "Contrato 002/2024 between Riverton and Acme."), "acme-files")
    _, hers = await alice_attaches_her_memo()
    near_hers = hers[:-1] + ("0" if hers[-1] != "0" else "1")

    mallory = Conversation(user_id="mallory")
    sent = f"{BRIEF}\nCollection: Acme files, {near_hers}"
    plan = mallory.texts(await mallory.send(sent))[-1]

    assert 'Did you mean "acme-files"? Then write `Collection: acme-files`' in plan
    assert "Did you mean" not in not_used_line(plan, near_hers)  # hers is never offered
    assert hers not in plan


def test_the_store_says_which_collections_a_reader_may_use(store) -> None:
    store.add(parsed("shared.txt", "shared"), "shared")
    alice = Reader("alice", "11111111-1111-4111-8111-111111111111")
    store.add(parsed("a.txt", "alice's"), "investigation-a", owner=alice)
    assert set(store.collections()) == {"shared", "investigation-a"}  # the operator: all
    assert set(store.collections(alice)) == {"shared", "investigation-a"}
    assert set(store.collections(Reader("mallory", alice.investigation_id))) == {"shared"}
    with pytest.raises(Exception, match="belong"):
        store.add(parsed("b.txt", "mallory's"), "investigation-a", owner=Reader("mallory"))
    with pytest.raises(Exception, match="belong"):  # an operator collection is not a chat's
        store.add(parsed("c.txt", "planted"), "shared", owner=alice)
    # the operator may add to any collection; it keeps its owner
    store.add(parsed("d.txt", "operator's"), "investigation-a")
    (owned,) = [c for c in store.collection_owners() if c.name == "investigation-a"]
    assert (owned.owner, owned.investigation_id, owned.documents) == (
        "alice",
        alice.investigation_id,
        2,
    )


# --- the operator's view ------------------------------------------------------------------------


async def test_docs_list_shows_every_collection_with_its_owner(store, tmp_path, capsys):
    (tmp_path / "contract.txt").write_text("Contrato 002/2024 between Riverton and Acme.")
    cli.main(["docs", "add", str(tmp_path / "contract.txt"), "--collection", "acme"])
    _, hers = await alice_attaches_her_memo()
    capsys.readouterr()

    assert cli.main(["docs", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()

    assert lines[0].split()[:3] == ["collection", "owner", "title"]
    (memo,) = [line for line in lines if "memo.txt" in line]
    assert memo.startswith(hers[:30]) and "alice" in memo
    (contract,) = [line for line in lines if "contract.txt" in line]
    assert "operator (shared)" in contract
    assert cli.main(["docs", "list", "--collection", hers]) == 0
    assert "memo.txt" in capsys.readouterr().out


# --- collections made before owners were kept ---------------------------------------------------


KNOWN = "c0ffee01-2b3f-4c5d-8e9f-0a1b2c3d4e5f"  # an investigation of its own prefix


def _old_database_with_attachments(tmp_path: Path) -> str:
    """The 6b66a77a database with attachment collections named the old way: of an investigation
    with a record (KNOWN), of two records sharing the prefix (6b66a77a), of none (deadbeef)."""
    path = tmp_path / "old" / "vicaran.db"
    path.parent.mkdir()
    path.write_bytes(gzip.decompress((FIXTURES / "records-6b66a77.db.gz").read_bytes()))
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO investigations (id, title, brief, mode, language, status, created_at,"
                " updated_at) VALUES (:id, 't', 'b', 'quick', 'en', 'completed',"
                " '2026-11-01 00:00:00', '2026-11-01 00:00:00')"
            ),
            {"id": KNOWN},
        )
        for name in ("investigation-c0ffee01", "investigation-6b66a77a", "investigation-deadbeef"):
            connection.execute(
                text(
                    "INSERT INTO collections (name, reliability, created_at) "
                    "VALUES (:name, 'neutral', '2026-11-01 00:00:00')"
                ),
                {"name": name},
            )
    engine.dispose()
    return url


def test_old_attachment_collections_are_kept_for_their_investigation_only(tmp_path) -> None:
    url = _old_database_with_attachments(tmp_path)
    Repository(url).close()  # opening it upgrades it
    assert migrate.current(url) == migrate.head()

    documents = DocumentStore(url)
    owners = {c.name: (c.owner, c.investigation_id) for c in documents.collection_owners()}
    assert owners == {
        "contracts": (None, None),  # the operator's, shared
        "investigation-c0ffee01": (None, KNOWN),  # the one investigation it can be
        "investigation-6b66a77a": (None, "6b66a77a"),  # two could: no conversation's
        "investigation-deadbeef": (None, "deadbeef"),  # none: no conversation's
    }

    assert set(documents.collections(Reader("anyone", KNOWN))) == {
        "contracts",
        "investigation-c0ffee01",
    }
    guess = KNOWN[:8] + "-0000-4000-8000-000000000000"  # what the old name gives away
    for reader in (Reader("anyone", guess), Reader("anyone", "deadbeef"), Reader("anyone")):
        assert set(documents.collections(reader)) == {"contracts"}
    assert len(documents.collections()) == 4  # the operator sees them all


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_owner_columns_are_added_once(backend: str, tmp_path: Path) -> None:
    with records_database(backend, tmp_path) as url:
        migrate.upgrade(url)  # again: nothing to add
        engine = create_engine(url)
        with engine.connect() as connection:
            columns = {
                row[0]
                for row in connection.execute(
                    text(
                        "SELECT column_name FROM information_schema.columns "
                        "WHERE table_name = 'collections'"
                    )
                    if backend == "postgresql"
                    else text("SELECT name FROM pragma_table_info('collections')")
                )
            }
        engine.dispose()
        assert {"owner", "investigation_id"} <= columns
