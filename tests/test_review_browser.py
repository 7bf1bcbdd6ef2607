"""An editor reviews a verdict from its card on the dashboard, in Chromium (skipped without it)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from tests.support import wait
from tests.support.store import fresh_repository
from tests.test_dashboard import trust_investigation
from tests.test_dashboard_browser import _wait, browser  # noqa: F401  (the fixture)
from vicaran_agent.server.app import build_server
from vicaran_agent.storage import Repository


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


@pytest.fixture
def served(repo: Repository) -> Iterator[str]:
    """The whole server without ADK's app, as `vicaran serve` builds it, on a loopback port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(build_server(with_adk=False), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait.until_sync(lambda: server.started or not thread.is_alive(), "uvicorn to start")
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def test_an_editor_changes_a_verdict_from_its_card(repo, served, browser) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    iid, _ = trust_investigation(repo)
    browser.get(f"{served}/investigations/{iid}#fact-checks")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    card = browser.find_element(By.CSS_SELECTOR, "#fact-checks li.card.check")
    card.find_element(By.CSS_SELECTOR, "details.review summary").click()
    form = card.find_element(By.CSS_SELECTOR, "form.review-form")
    Select(form.find_element(By.NAME, "action")).select_by_value("change")
    Select(form.find_element(By.NAME, "verdict")).select_by_value("false")
    form.find_element(By.NAME, "reviewer").send_keys("Ana")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    status = form.find_element(By.CSS_SELECTOR, ".review-status")
    _wait(browser, lambda _: "needs a note" in status.text, "the refusal said on the card")
    form.find_element(By.NAME, "note").send_keys("The signature is forged.")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    _wait(
        browser,
        lambda d: "Changed by Ana" in d.find_element(By.ID, "fact-checks").text,
        "the decision on the card after the page is read again",
    )
    (check, *_) = repo.get_investigation(iid).fact_checks
    assert check.review.status == "changed" and check.review.verdict_after == "false"
    assert check.verdict == "verified"  # the machine's verdict is never changed
