"""Links follow the server: `vicaran serve --port P` (`make run PORT=P`) → every link Vicaran
gives to itself names port P.

These tests check the settings, what `vicaran serve` and a headless run say about the address
their links name, and the dashboard's links to a report's snapshots.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.support.store import dashboard_client, fresh_repository, panel
from tests.test_dashboard import trust_investigation
from vicaran_agent import cli
from vicaran_agent.config import Settings, get_settings
from vicaran_agent.storage import Repository

ROOT = Path(__file__).resolve().parent.parent
RETIRED = "http://127.0.0.1:8000"  # what .env.example shipped, and `make run` copied to .env


def test_make_run_passes_its_port_to_vicaran_serve() -> None:
    """`make run PORT=8123` serves on 8123, so the test above covers what it links."""
    dry_run = subprocess.run(
        ["make", "-n", "run", "PORT=8123"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    (serve,) = [line for line in dry_run.stdout.splitlines() if "vicaran serve" in line]
    assert serve.endswith("vicaran serve --host 127.0.0.1 --port 8123")


# --- the address links name -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8123, "http://127.0.0.1:8123"),
        ("localhost", 8100, "http://localhost:8100"),
        ("10.1.2.3", 80, "http://10.1.2.3:80"),
        ("::1", 8123, "http://[::1]:8123"),
        ("[::1]", 8123, "http://[::1]:8123"),
        ("fe80::1", 8123, "http://[fe80::1]:8123"),
        # Bound to every interface: the address that reaches it from its own machine, which the
        # Host check answers by default.
        ("0.0.0.0", 8123, "http://127.0.0.1:8123"),
        ("::", 8123, "http://[::1]:8123"),
    ],
)
def test_links_name_the_address_the_server_is_bound_to(env, host: str, port: int, url: str):
    assert Settings(_env_file=None).serving_at(host, port) == url  # type: ignore[call-arg]


def test_env_example_leaves_the_public_url_to_the_server(env):
    example = ROOT / ".env.example"
    settings = Settings(_env_file=example)  # type: ignore[call-arg]
    assert settings.serving_at("127.0.0.1", 8123) == "http://127.0.0.1:8123"
    assert re.search(r"^# VICARAN_PUBLIC_URL=", example.read_text(), re.M)


@pytest.mark.parametrize("retired", [RETIRED, RETIRED + "/"])
def test_the_retired_default_is_taken_as_unset_and_said_so(env, retired: str):
    settings = Settings(_env_file=None, vicaran_public_url=retired)  # type: ignore[call-arg]
    assert settings.serving_at("127.0.0.1", 8123) == "http://127.0.0.1:8123"
    (notice,) = cli.serve_notices(settings, "127.0.0.1", 8123)
    assert notice.startswith(f"VICARAN_PUBLIC_URL={RETIRED} ")
    assert "http://127.0.0.1:8123" in notice and "\n" not in notice
    # Served where it says, it is right: nothing to say.
    assert cli.serve_notices(settings, "127.0.0.1", 8000) == []
    # Any other address is the operator's: kept, and nothing said.
    chosen = Settings(_env_file=None, vicaran_public_url="http://localhost:8000/")  # type: ignore[call-arg]
    assert chosen.serving_at("127.0.0.1", 8123) == "http://localhost:8000"
    assert cli.serve_notices(chosen, "0.0.0.0", 8123) == []


def test_a_server_on_every_interface_says_what_its_links_name(env):
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    (notice,) = cli.serve_notices(settings, "0.0.0.0", 8123)
    assert "http://127.0.0.1:8123" in notice and "VICARAN_PUBLIC_URL" in notice
    assert cli.serve_notices(settings, "127.0.0.1", 8123) == []


@pytest.mark.parametrize("value", ["vicaran.example.org", "ftp://vicaran.example.org", "http://"])
def test_a_public_url_that_is_not_an_address_is_refused(env, value: str):
    with pytest.raises(ValidationError, match="VICARAN_PUBLIC_URL must be"):
        Settings(_env_file=None, vicaran_public_url=value)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("configured", "base"),
    [(None, RETIRED), (RETIRED, RETIRED), ("https://vicaran.example.org/", None)],
    ids=["unset", "retired", "set"],
)
async def test_a_headless_run_says_which_address_its_links_assume(
    env, capsys: pytest.CaptureFixture[str], configured: str | None, base: str | None
):
    if configured:
        env.set(VICARAN_PUBLIC_URL=configured)
    iid = "5d1c2b3a-0f9e-4d8c-b7a6-112233445566"
    brief = "Did Acme Chemicals pollute Riverton's drinking water?"
    code = await asyncio.to_thread(cli.main, ["investigate", brief, "--yes", "--id", iid])
    assert code == 0
    *_, label, link = capsys.readouterr().out.rstrip().splitlines()
    assert link == get_settings().investigation_url(iid)
    if base is None:
        assert link == f"https://vicaran.example.org/investigations/{iid}"
        assert label == "Open it in the dashboard (`make run` or `vicaran serve`):"
    else:
        assert link == f"{base}/investigations/{iid}"
        assert "by default" in label and "VICARAN_PUBLIC_URL" in label


# --- the dashboard ----------------------------------------------------------------------------

PUBLIC = "https://vicaran.example.org"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch, "VICARAN_PUBLIC_URL") as repository:
        monkeypatch.setenv("VICARAN_PUBLIC_URL", PUBLIC + "/")
        get_settings.cache_clear()
        yield repository


async def test_the_dashboard_links_a_reports_snapshots_on_this_server(repo: Repository):
    """A report written while the server was elsewhere (a headless run, another port) links
    its snapshots here: the dashboard's links are paths on the server that shows them."""
    iid, _ = trust_investigation(repo)
    investigation = repo.get_investigation(iid) or {}
    sha = investigation["sources"][0]["content_sha256"]
    written = f"{RETIRED}/api/investigations/{iid}/snapshots/{sha}"
    repo.finish_investigation(
        iid, "completed", summary=f"# Dam contract\n\n- [1] **Story 1** — [snapshot]({written})"
    )
    async with dashboard_client() as client:
        page = (await client.get(f"/investigations/{iid}")).text
    summary = panel(page, "summary")
    assert f'href="/api/investigations/{iid}/snapshots/{sha}"' in summary
    assert RETIRED not in page
