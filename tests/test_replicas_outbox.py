"""Several replicas on one records database: the outbox is delivered once, callbacks stored once.

Replicas are subprocesses (each its own engine and connections) on each backend of the matrix;
PostgreSQL skips with the reason when VICARAN_TEST_POSTGRES_URL is not set.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
import sys
import threading
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.engine import make_url

from tests.fakes.newsroom import FakeNewsroom
from tests.support.callback_server import ROOT, CallbackServer
from tests.support.databases import BACKENDS, records_database
from tests.support.wait import until, until_sync
from vicaran_agent.delivery import Deliverer
from vicaran_agent.storage import Repository
from vicaran_agent.storage.outbox import enqueue
from vicaran_agent.storage.rows import OutboxRow
from vicaran_agent.storage.tables import utcnow

pytestmark = pytest.mark.timeout(240)

SECRET = "replica-secret-0123"

# One delivering replica: says it is ready, waits for the go file, then delivers until
# nothing is pending (so both replicas start delivering together).
_DELIVER = (
    "import asyncio, pathlib, sys, time\n"
    "from vicaran_agent.delivery import Deliverer\n"
    "pathlib.Path(sys.argv[2]).touch()\n"
    "go = pathlib.Path(sys.argv[1])\n"
    "while not go.exists():\n"
    "    time.sleep(0.01)\n"
    "async def main():\n"
    "    deliverer = Deliverer(backoff_base=0.01, backoff_max=0.05)\n"
    "    while deliverer.repository.outbox_summary().counts.pending:\n"
    "        await deliverer.deliver_due()\n"
    "        await asyncio.sleep(0.02)\n"
    "asyncio.run(main())\n"
)


def _environment(database_url: str, **extra: str) -> dict[str, str]:
    variables = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VICARAN_", "CALLBACK_", "AGENT_", "TAVILY_", "JINA_"))
    }
    return variables | {
        "VICARAN_DATABASE_URL": database_url,
        "ADK_DISABLE_LOAD_DOTENV": "1",
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def _record(kind: str, n: int) -> dict[str, Any]:
    if kind == "SOURCE_FOUND":
        return {
            "url": f"https://example.com/{n}",
            "credibility_score": 3,
            "is_user_provided": False,
        }
    return {"event_date": "2024", "event_text": f"event {n}", "source_id": None}


def _queue(repository: Repository, investigations: int, records: int) -> dict[str, list[str]]:
    """Per investigation, its keys in queue order; the types alternate (each record its own run)."""
    order: dict[str, list[str]] = {}

    def op(session: Any) -> None:
        for i in range(investigations):
            investigation_id = str(uuid.uuid4())
            for n in range(records):
                kind = ("SOURCE_FOUND", "TIMELINE_EVENT")[n % 2]
                enqueue(session, investigation_id, kind, f"{i}-{n}", _record(kind, n))
                order.setdefault(investigation_id, []).append(
                    f"vicaran:{investigation_id}:{kind}:{i}-{n}"
                )

    repository.write(op)
    return order


def test_two_delivering_replicas_send_each_record_once_in_order(
    records_url: str, tmp_path: Path
) -> None:
    repository = Repository(records_url)
    try:
        order = _queue(repository, investigations=8, records=8)
    finally:
        repository.close()
    go = tmp_path / "go"
    with FakeNewsroom(latency=0.05) as newsroom:
        environment = _environment(
            records_url, CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET=SECRET
        )
        logs = [tmp_path / f"replica-{n}.log" for n in range(2)]
        replicas = []
        for log in logs:
            with log.open("wb") as out:
                replicas.append(
                    subprocess.Popen(
                        [sys.executable, "-c", _DELIVER, str(go), f"{log}.ready"],
                        cwd=ROOT,
                        env=environment,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )

        def ready() -> bool:
            assert all(r.poll() is None for r in replicas), [log.read_text() for log in logs]
            return all(Path(f"{log}.ready").exists() for log in logs)

        until_sync(ready, "the replicas to start", 120)
        go.touch()
        for replica, log in zip(replicas, logs, strict=True):
            assert replica.wait(timeout=180) == 0, log.read_text()
        received = [r for r in newsroom.requests if r.method == "POST"]
    sent = Counter(r.header("idempotency-key") for r in received)
    expected = [key for keys in order.values() for key in keys]
    assert sorted(sent) == sorted(expected)
    assert [key for key, n in sent.items() if n != 1] == []  # each record sent exactly once
    by_key = {r.header("idempotency-key"): r for r in received}
    for keys in order.values():
        for earlier, later in itertools.pairwise(keys):
            # A record is sent only after the one before it in its investigation was answered.
            assert by_key[earlier].ended is not None
            assert by_key[later].started >= by_key[earlier].ended, (earlier, later)


async def test_a_dead_replicas_claim_expires_and_a_live_claim_is_respected(
    records_url: str, env: Any
) -> None:
    repository = Repository(records_url)
    try:
        order = _queue(repository, investigations=2, records=2)
        (dead, dead_next), (live, _live_next) = order.values()

        def claim(session: Any) -> None:
            for key, until in ((dead, -60), (live, 600)):
                row = session.query(OutboxRow).filter_by(idempotency_key=key).one()
                row.claimed_by = "gone-replica"
                row.claimed_until = utcnow() + timedelta(seconds=until)

        repository.write(claim)
        with FakeNewsroom() as newsroom:
            env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET=SECRET)
            await Deliverer(repository=repository).deliver_due(now_only=False)
            sent = [r.header("idempotency-key") for r in newsroom.requests]
    finally:
        repository.close()
    # The dead replica's rows go (its lease ran out); nothing of the live claim's investigation
    # goes, not even the record after the claimed one.
    assert sorted(sent) == sorted([dead, dead_next])
    assert sent.index(dead) < sent.index(dead_next)


async def test_a_deliverer_stopped_mid_send_leaves_its_rows_to_the_next(
    records_url: str, env: Any
) -> None:
    repository = Repository(records_url)
    try:
        ((key,),) = _queue(repository, investigations=1, records=1).values()
        with FakeNewsroom(latency=30) as newsroom:
            env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET=SECRET)
            stopped = asyncio.create_task(Deliverer(repository=repository).deliver_due())
            await until(lambda: bool(newsroom.requests), "the first delivery")
            stopped.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await stopped
            newsroom.latency = 0
            assert await Deliverer(repository=repository).deliver_due() == 1
            sent = [r.header("idempotency-key") for r in newsroom.requests]
        assert repository.outbox_summary().counts.delivered == 1
    finally:
        repository.close()
    assert sent == [key, key]  # the stopped send may have landed: its key makes it harmless


async def test_a_deliverer_stopped_while_claiming_leaves_its_rows_to_the_next(
    records_url: str, env: Any
) -> None:
    """The claim commits in its thread even when the deliverer is stopped while it runs."""
    repository = Repository(records_url)
    claiming, finish = threading.Event(), threading.Event()
    claim = repository.outbox_claim

    def slow_claim(*args: Any, **kwargs: Any) -> Any:
        claiming.set()
        finish.wait(10)
        return claim(*args, **kwargs)

    try:
        _queue(repository, investigations=1, records=1)
        with FakeNewsroom() as newsroom:
            env.set(CALLBACK_API_URL=newsroom.url + "/api/agent-callback", AGENT_SECRET=SECRET)
            repository.outbox_claim = slow_claim  # type: ignore[method-assign]
            task = asyncio.create_task(Deliverer(repository=repository).deliver_due())
            await asyncio.to_thread(claiming.wait, 10)
            task.cancel()
            finish.set()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            assert await Deliverer(repository=repository).deliver_due() == 1
        assert repository.outbox_summary().counts.delivered == 1
    finally:
        repository.close()


def _claims_interleaved(a: Repository, b: Repository, hook: str) -> tuple[list[Any], Any]:
    """(A's claims, B's claim): B claims, and A claims at B's FOR UPDATE statement (`hook`:
    before or after the statement runs)."""
    claimed_by_a: list[Any] = []

    def a_claims(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "FOR UPDATE" in statement and not claimed_by_a:
            claimed_by_a.append(a.outbox_claim("replica-a", None, 600))

    event.listen(b._engine, hook, a_claims)
    return claimed_by_a, b.outbox_claim("replica-b", None, 600)


def test_a_claim_committed_between_a_read_and_its_lock_is_not_taken_twice(
    records_url: str,
) -> None:
    """Replica B reads the heads, then replica A claims them and commits before B locks them."""
    if records_url.startswith("sqlite"):
        pytest.skip("SQLite's one writer serializes claims: this interleaving cannot happen")
    a, b = Repository(records_url), Repository(records_url)
    try:
        order = _queue(a, investigations=3, records=1)
        claimed_by_a, claimed_by_b = _claims_interleaved(a, b, "before_cursor_execute")
    finally:
        a.close()
        b.close()
    assert sorted(d.idempotency_key for d in claimed_by_a[0]) == sorted(
        keys[0] for keys in order.values()
    )
    assert claimed_by_b == []


def test_a_replica_never_waits_for_rows_another_is_claiming(records_url: str) -> None:
    """While B holds its claim's row locks, A's claim skips those rows instead of waiting."""
    if records_url.startswith("sqlite"):
        pytest.skip("SQLite has no row locks: its one writer serializes claims")
    url = make_url(records_url)
    impatient = url.update_query_dict(
        {"options": f"{url.query['options']} -c lock_timeout=3000"}
    ).render_as_string(hide_password=False)
    a, b = Repository(impatient), Repository(records_url)
    try:
        order = _queue(a, investigations=3, records=1)
        claimed_by_a, claimed_by_b = _claims_interleaved(a, b, "after_cursor_execute")
    finally:
        a.close()
        b.close()
    assert claimed_by_a == [[]]
    assert sorted(d.idempotency_key for d in claimed_by_b) == sorted(
        keys[0] for keys in order.values()
    )


# --- the callback API: idempotency across two server processes ----------------------------------


@pytest.fixture(scope="module", params=BACKENDS)
def two_servers(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[CallbackServer]]:
    """Two callback servers on one records database of the backend, for the whole module: each
    test writes an investigation of its own (a fresh id), so nothing needs resetting."""
    folder = tmp_path_factory.mktemp("replicas")
    with records_database(request.param, folder) as records_url:
        servers = []
        try:
            for n in range(2):  # one after the other: each creates the tables it finds missing
                (folder / f"s{n}").mkdir()
                server = CallbackServer(folder / f"s{n}", secret=SECRET)
                server.database_url = records_url
                servers.append(server.start())
            yield servers
        finally:
            for server in servers:
                server.stop()


async def _warm(
    http: httpx.AsyncClient, servers: list[CallbackServer], investigation_id: str
) -> None:
    """Both servers have their store open (a cold one would lose every race by its start-up)."""
    for server in servers:
        read = await http.get(
            f"http://127.0.0.1:{server.port}/api/investigations/{investigation_id}"
        )
        assert read.status_code == 200, read.text


async def _post(
    http: httpx.AsyncClient, url: str, type_: str, investigation_id: str, data: dict[str, Any],
    key: str | None = None,
) -> httpx.Response:  # fmt: skip
    headers = {"X-Agent-Secret": SECRET} | ({"Idempotency-Key": key} if key else {})
    body = {"type": type_, "investigation_id": investigation_id, "data": data}
    return await http.post(url, json=body, headers=headers)


async def test_fifty_concurrent_replays_across_two_servers_store_one_record(
    two_servers: list[CallbackServer],
) -> None:
    investigation_id = str(uuid.uuid4())
    urls = [s.url for s in two_servers]
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        started = await _post(
            http, urls[0], "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"}
        )
        assert started.status_code == 200, started.text
        await _warm(http, two_servers, investigation_id)
        data = {"claim_text": "Replayed fifty times.", "source_ids": []}
        replies = await asyncio.gather(
            *(
                _post(http, urls[n % 2], "CLAIM_EXTRACTED", investigation_id, data, key="replay")
                for n in range(50)
            )
        )
        assert {r.status_code for r in replies} == {200}
        assert len({r.text for r in replies}) == 1  # every reply is the original answer
        claims = two_servers[1].investigation(investigation_id)["claims"]  # type: ignore[index]
        assert [c["id"] for c in claims] == [replies[0].json()["claim_id"]]

        # The same key with another body: 409 on either server, nothing new stored.
        other = {"claim_text": "Another claim.", "source_ids": []}
        refused = await asyncio.gather(
            *(
                _post(http, urls[n % 2], "CLAIM_EXTRACTED", investigation_id, other, key="replay")
                for n in range(10)
            )
        )
        assert {r.status_code for r in refused} == {409}
    assert len(two_servers[0].investigation(investigation_id)["claims"]) == 1  # type: ignore[index]


async def test_two_bodies_racing_for_one_key_one_wins_the_other_is_409(
    two_servers: list[CallbackServer],
) -> None:
    investigation_id = str(uuid.uuid4())
    urls = [s.url for s in two_servers]
    bodies = [{"claim_text": f"Body {b}.", "source_ids": []} for b in "AB"]
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=100)) as http:
        await _post(http, urls[1], "INVESTIGATION_STARTED", investigation_id, {"mode": "quick"})
        await _warm(http, two_servers, investigation_id)
        replies = await asyncio.gather(
            *(
                _post(http, urls[n % 2], "CLAIM_EXTRACTED", investigation_id, bodies[n // 2 % 2],
                      key="contested")
                for n in range(40)
            )
        )  # fmt: skip
    per_body: dict[int, set[tuple[int, str]]] = defaultdict(set)
    for n, reply in enumerate(replies):
        per_body[n // 2 % 2].add((reply.status_code, reply.text))
    (claim,) = two_servers[0].investigation(investigation_id)["claims"]  # type: ignore[index]
    winner = 0 if claim["claim_text"] == "Body A." else 1
    ((status, text),) = per_body[winner]
    assert status == 200 and f'"{claim["id"]}"' in text
    assert {status for status, _ in per_body[1 - winner]} == {409}
