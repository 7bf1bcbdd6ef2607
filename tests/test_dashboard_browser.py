"""The dashboard in a real headless Chromium (Debian's chromium + chromium-driver, via Selenium).

Skipped when the browser is missing, unless VICARAN_REQUIRE_BROWSER=1 (CI), which fails instead.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import uvicorn
from fastapi import FastAPI, Request, Response

from tests.support import wait
from tests.support.store import fresh_repository
from tests.test_dashboard import SUMMARY, XSS, add_findings, source, start
from vicaran_agent.config import forget_settings
from vicaran_agent.server.access import AccessMiddleware
from vicaran_agent.server.dashboard import dashboard_router
from vicaran_agent.storage import Repository

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
POLL_SECONDS = 3
WAIT_SECONDS = 30  # for the page to fetch and render: polls come when the test moves the clock
IMG_XSS = "<img src=x onerror=alert(2)>"
WIDE = 1400  # a laptop-sized window: the list table must fit it
NARROW = 420  # a phone
# The page's timers run on a clock the test moves (`_advance`), installed before its scripts:
# a poll comes when the test says, and "no poll is scheduled" is a fact, not a wait.
PAGE_CLOCK = """
(() => {
  let now = 0, last = 0;
  const timers = new Map();
  const later = window.setTimeout.bind(window);
  window.setTimeout = (fn, delay, ...args) => {
    timers.set(++last, { at: now + Math.max(0, Number(delay) || 0), fn, args });
    return last;
  };
  window.clearTimeout = (id) => { timers.delete(id); };
  window.vicaranClock = {
    pending: () => [...timers.values()].map((t) => t.at - now).sort((a, b) => a - b),
    advance: (ms) => {
      now += ms;
      const due = [...timers].filter(([, t]) => t.at <= now).sort((a, b) => a[1].at - b[1].at);
      for (const [id, t] of due) { timers.delete(id); later(() => t.fn(...t.args), 0); }
      return due.length;
    },
  };
})();
"""
CHROME_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1000",
)


def _require_browser() -> None:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.is_file()]
    if importlib.util.find_spec("selenium") is None:
        missing.append("the selenium package")
    if not missing:
        return
    message = (
        f"browser test needs {', '.join(missing)}: `apt-get install chromium chromium-driver` "
        "and `uv pip install selenium`"
    )
    if os.environ.get("VICARAN_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class LiveServer:
    url: str
    refreshes: list[str] = field(default_factory=list)  # the pages' live refreshes, by path

    def polls(self, investigation_id: str | None = None) -> int:
        """Refreshes of one investigation's page, or of the list's when no id is given."""
        suffix = f"/{investigation_id}" if investigation_id else ""
        return self.refreshes.count(f"/investigations{suffix}")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repository]:
    with fresh_repository(tmp_path, monkeypatch) as repository:
        yield repository


@pytest.fixture
def server(repo: Repository) -> Iterator[LiveServer]:
    """The dashboard served by uvicorn on a free loopback port, in a background thread.

    Behind the access middleware, as `vicaran serve` serves it.
    """
    app = FastAPI()
    app.include_router(dashboard_router())
    app.add_middleware(AccessMiddleware)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    live = LiveServer(f"http://127.0.0.1:{sock.getsockname()[1]}")

    @app.middleware("http")
    async def record(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if request.headers.get("vicaran-fragment") == "main":
            live.refreshes.append(request.url.path)
        return await call_next(request)

    uvicorn_server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=uvicorn_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait.until_sync(lambda: uvicorn_server.started or not thread.is_alive(), "uvicorn to start")
    assert uvicorn_server.started, "uvicorn did not start"
    yield live
    uvicorn_server.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[WebDriver]:
    _require_browser()
    from selenium import webdriver
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def no_downloads(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("Selenium Manager must not run: the driver path is given")

    monkeypatch.setattr(SeleniumManager, "binary_paths", no_downloads)
    monkeypatch.setenv("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in CHROME_ARGS:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with tempfile.TemporaryDirectory(prefix="vicaran-chromium-") as profile:
        options.add_argument(f"--user-data-dir={profile}")
        service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
        driver = webdriver.Chrome(service=service, options=options)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PAGE_CLOCK})
        try:
            yield driver
        finally:
            driver.quit()


def _no_alert(driver: WebDriver) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return
    pytest.fail(f"an alert fired: {text!r}")


def _text(driver: WebDriver, css: str) -> str:
    """The element's visible text, whitespace collapsed.

    Read in one script call: the list re-renders its rows while it polls, so an element found
    first and read after may be gone (a stale reference) on a slow machine.
    """
    from selenium.common.exceptions import NoSuchElementException

    text = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css
    )
    if text is None:
        raise NoSuchElementException(css)
    return " ".join(text.split())


def _wait(driver: WebDriver, condition: Callable[[WebDriver], Any], what: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(
        driver,
        WAIT_SECONDS,
        poll_frequency=0.1,
        ignored_exceptions=(StaleElementReferenceException,),
    ).until(condition, message=what)


def _scheduled(driver: WebDriver) -> list[float]:
    """Seconds from now of every timer the page has set (its polls), soonest first."""
    return [ms / 1000 for ms in driver.execute_script("return window.vicaranClock.pending()")]


def _advance(driver: WebDriver, seconds: float) -> int:
    """Move the page's clock; returns how many of its timers came due (and run)."""
    return int(
        driver.execute_script("return window.vicaranClock.advance(arguments[0])", seconds * 1000)
    )


def _poll(driver: WebDriver) -> None:
    """One polling interval passes: the page's next poll (scheduled once the previous one has
    been answered) runs."""
    _wait(driver, lambda d: _scheduled(d) == [POLL_SECONDS], "a poll to be scheduled")
    assert _advance(driver, POLL_SECONDS) == 1


def _open_tab(driver: WebDriver, key: str) -> None:
    """Click a tab; exactly its panel is then shown."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, f"tab-{key}").click()
    assert driver.find_element(By.ID, f"tab-{key}").get_attribute("aria-selected") == "true"
    shown = [p.get_attribute("id") for p in driver.find_elements(By.CSS_SELECTOR, ".panel")]
    assert [k for k in shown if driver.find_element(By.ID, k).is_displayed()] == [key]


def _width_ratio(driver: WebDriver, css: str) -> float:
    """How much of its track a bar fills (0..1), as laid out."""
    return float(
        driver.execute_script(
            "const f = document.querySelector(arguments[0]);"
            "return f.getBoundingClientRect().width / f.parentElement.getBoundingClientRect().width;",
            css,
        )
    )


def _resize(driver: WebDriver, width: int) -> None:
    """Make the page's viewport exactly `width` CSS pixels wide."""
    driver.set_window_size(width, 1000)
    inner = int(driver.execute_script("return window.innerWidth"))
    if inner != width:
        driver.set_window_size(2 * width - inner, 1000)
    assert driver.execute_script("return window.innerWidth") == width


def _assert_no_horizontal_overflow(driver: WebDriver, where: str) -> None:
    """Neither the page nor any table scrolls sideways."""
    overflow = driver.execute_script(
        "const out = [];"
        "const doc = document.documentElement;"
        "if (doc.scrollWidth > window.innerWidth) out.push(['page', doc.scrollWidth, innerWidth]);"
        "for (const w of document.querySelectorAll('.table-wrap')) {"
        "  if (w.offsetParent && w.scrollWidth > w.clientWidth)"
        "    out.push(['table', w.scrollWidth, w.clientWidth]);"
        "}"
        "return out;"
    )
    assert overflow == [], (where, overflow)


def _screenshot(driver: WebDriver, name: str) -> Path:
    """The whole page as a test artifact."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    width = int(driver.execute_script("return window.innerWidth"))
    driver.set_window_size(driver.get_window_size()["width"], max(600, height + 120))
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path))
    _resize(driver, width)
    return path


def test_live_dashboard(repo: Repository, server: LiveServer, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    iid = start(repo)
    first = source(1, title=XSS)
    ids = repo.save_sources(iid, [first])
    add_findings(repo, iid, [ids[first.url]])

    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations/{iid}")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    # The injected title is visible text, no script ran and none was inserted.
    _no_alert(browser)
    assert _text(browser, "#source-1 .card-title") == XSS
    assert browser.title == "Dam contract · Vicaran"
    assert browser.find_elements(By.CSS_SELECTOR, "main script") == []
    assert _text(browser, "#inv-status") == "In progress"
    assert _text(browser, "#inv-live") == "Live: refreshing every 3 s"
    _open_tab(browser, "sources")

    # A new source appears at the next poll, without a reload.
    assert _scheduled(browser) == [POLL_SECONDS]
    browser.execute_script("window.vicaranNoReload = true;")
    second = source(
        2,
        title=IMG_XSS,
        credibility_score=2,
        url="https://citynews.example.com/story",
        domain="citynews.example.com",
        publisher="example.com",
    )
    browser.execute_script(
        "document.querySelector('[data-body=\"fact-checks\"]').firstChild.dataset.kept = 1;"
    )
    repo.save_sources(iid, [second])
    _poll(browser)
    _wait(
        browser,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#sources li.card")) == 2,
        "the second source to appear",
    )
    # Only what changed was moved in: the fact-checks panel is the same element as before.
    assert browser.find_elements(By.CSS_SELECTOR, "[data-body='fact-checks'] > [data-kept]")
    assert browser.execute_script("return window.vicaranNoReload === true")
    assert _text(browser, "#source-2 .card-title") == IMG_XSS
    assert browser.find_elements(By.CSS_SELECTOR, "#sources img") == []
    assert _text(browser, '[data-count="sources"]') == "2"
    # The page's host, as the script renders it too.
    assert _text(browser, "#source-2 .domain") == "citynews.example.com"
    assert browser.find_elements(By.CSS_SELECTOR, "#source-2 .publisher") == []
    _no_alert(browser)
    assert server.polls(iid) >= 1

    # Fact-checks: verdict, confidence, evidence with its link, reliability and stance.
    _open_tab(browser, "fact-checks")
    assert _text(browser, "#fact-checks .badge") == "Partially true"
    assert "Confidence 70%" in _text(browser, "#fact-checks .meta")
    evidence = browser.find_element(By.CSS_SELECTOR, "#fact-checks .evidence a")
    assert evidence.text == "Signed contract"
    assert evidence.get_attribute("href") == "https://records.example/contract"
    assert "High reliability" in _text(browser, "#fact-checks .evidence")
    assert "Supports" in _text(browser, "#fact-checks .evidence")

    # Bias: the score, coverage bars laid out at their share, the per-source table.
    _open_tab(browser, "bias")
    assert _text(browser, "#bias .stat-value") == "3.5 / 10"
    assert _text(browser, "#bias .stat-note") == (
        "Low-Moderate bias, on a scale from 0 (balanced) to 10 (one-sided)"
    )
    assert _text(browser, "#bias .scale-ends") == "0 10"
    values = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#bias .bar-value")]
    assert values == ["50% · 1 source", "50% · 1 source", "0% · 0 sources"]
    assert _width_ratio(browser, "#bias .bar-fill.stance-supportive") == pytest.approx(0.5, 0.02)
    assert _width_ratio(browser, "#bias .bar-fill.stance-critical") == 0
    assert "loaded language" in _text(browser, "#bias table")

    # Completion: shown in place, the selected tab kept, and polling stops.
    repo.finish_investigation(iid, "completed", summary=SUMMARY)
    _poll(browser)
    _wait(browser, lambda d: _text(d, "#inv-status") == "Completed", "the final status")
    calls_at_completion = server.polls(iid)
    assert browser.find_element(By.ID, "tab-bias").get_attribute("aria-selected") == "true"
    assert browser.find_element(By.ID, "bias").is_displayed()
    assert _text(browser, "#inv-live") == ""

    # Summary: rendered Markdown whose citations jump to the numbered source.
    _open_tab(browser, "summary")
    assert _text(browser, "#summary .prose h3") == "Dam contract"
    assert _text(browser, "#summary .prose strong") == "signed"
    browser.find_element(By.CSS_SELECTOR, '#summary a.cite[href="#source-2"]').click()
    assert browser.find_element(By.ID, "tab-sources").get_attribute("aria-selected") == "true"
    target = browser.find_element(By.ID, "source-2")
    assert target.is_displayed() and "highlight" in (target.get_attribute("class") or "")
    assert browser.execute_script("return location.hash") == "#source-2"

    _assert_no_horizontal_overflow(browser, "detail page")
    _open_tab(browser, "bias")
    _screenshot(browser, "dashboard-detail.png")

    assert _scheduled(browser) == [], "polling went on after completion"
    assert _advance(browser, 2 * POLL_SECONDS + 1) == 0
    assert server.polls(iid) == calls_at_completion
    _no_alert(browser)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []

    # What the refreshes moved in is what the server renders: a fresh load shows the same.
    keys = ("sources", "claims", "fact-checks", "bias", "timeline", "summary")
    refreshed = {key: _panel_view(browser, key) for key in keys}
    head = _text(browser, ".inv-head")
    browser.get(f"{server.url}/investigations/{iid}")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    assert {key: _panel_view(browser, key) for key in keys} == refreshed
    assert _text(browser, ".inv-head") == head


def _status_of(driver: WebDriver, investigation_id: str) -> str:
    return _text(driver, f'tr[data-id="{investigation_id}"] .badge')


def test_list_page_refreshes_by_itself_and_fits(
    repo: Repository, server: LiveServer, browser: WebDriver
) -> None:
    from selenium.webdriver.common.by import By

    done = start(repo, title="Port tender: who won the 2023 concession and at what price?")
    repo.finish_investigation(done, "completed", summary=SUMMARY)
    running = start(
        repo, title="Did XYZ Corp bribe building inspectors in the eastern districts in 2019?"
    )
    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    assert _status_of(browser, running) == "In progress"
    assert _text(browser, "#list-live") == "Live: refreshing every 3 s"
    _assert_no_horizontal_overflow(browser, f"list at {WIDE} px")
    _screenshot(browser, "dashboard-list.png")

    # The store changes while the page is open: the row follows, without a reload.
    browser.execute_script("window.vicaranNoReload = true;")
    repo.save_sources(running, [source(1)])
    _poll(browser)
    _wait(
        browser,
        lambda d: _text(d, f'tr[data-id="{running}"] td[data-label="Sources"]') == "1",
        "the new source count",
    )
    repo.finish_investigation(running, "completed", summary=SUMMARY)
    _poll(browser)
    _wait(browser, lambda d: _status_of(d, running) == "Completed", "the new status")
    assert browser.execute_script("return window.vicaranNoReload === true"), "the page reloaded"
    assert _text(browser, "#list-live") == ""
    assert _status_of(browser, done) == "Completed"
    link = browser.find_element(By.CSS_SELECTOR, f'tr[data-id="{running}"] td a')
    assert link.get_attribute("href") == f"{server.url}/investigations/{running}"
    _no_alert(browser)

    # Nothing runs any more: the polling stops.
    calls = server.polls()
    assert _scheduled(browser) == [], "the list was polled after every run finished"
    assert _advance(browser, 2 * POLL_SECONDS + 1) == 0
    assert server.polls() == calls
    _assert_no_horizontal_overflow(browser, f"list at {WIDE} px, refreshed")

    # A phone: every row is a card, nothing scrolls sideways.
    _resize(browser, NARROW)
    _assert_no_horizontal_overflow(browser, f"list at {NARROW} px")
    shown_as = browser.execute_script(
        "return [...document.querySelectorAll('.list tbody tr')]"
        ".map((row) => getComputedStyle(row).display)"
    )
    assert shown_as == ["block", "block"]  # cards, not table rows
    _screenshot(browser, "dashboard-list-narrow.png")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_list_page_without_a_running_investigation_does_not_poll(
    repo: Repository, server: LiveServer, browser: WebDriver
) -> None:
    done = start(repo)
    repo.finish_investigation(done, "completed", summary=SUMMARY)
    browser.get(f"{server.url}/investigations")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    assert _scheduled(browser) == []  # no poll is coming
    assert _advance(browser, POLL_SECONDS + 1) == 0
    assert server.polls() == 0
    assert _text(browser, "#list-live") == ""


def test_quick_investigation_page(repo: Repository, server: LiveServer, browser: WebDriver) -> None:
    iid = start(repo, title="Porto: licitação", mode="quick", language="pt-BR")
    ids = repo.save_sources(
        iid,
        [
            source(
                1,
                url="https://citynews.example.com/porto",
                domain="citynews.example.com",
                publisher="example.com",
            )
        ],
    )
    add_findings(repo, iid, list(ids.values()))
    repo.save_timeline(iid, [])
    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations/{iid}#timeline")
    skipped = (
        "Etapa pulada na Busca Rápida: a linha do tempo só é montada na Investigação Detalhada."
    )
    assert _text(browser, "#timeline .empty") == skipped
    assert _text(browser, "#inv-status") == "Em andamento"  # the page is in the run's language
    assert browser.find_element("css selector", "html").get_attribute("lang") == "pt-BR"
    _poll(browser)
    # Answered (the next poll is scheduled only then): a poll still in flight would read the
    # finished run below and stop the polling before the test's next one.
    _wait(browser, lambda d: _scheduled(d) == [POLL_SECONDS], "the poll to be answered")
    assert server.polls(iid) >= 1
    repo.finish_investigation(iid, "completed", summary=SUMMARY)
    _poll(browser)
    _wait(browser, lambda d: _text(d, "#inv-status") == "Concluída", "the final status")
    assert _text(browser, "#timeline .empty") == skipped
    _assert_no_horizontal_overflow(browser, "quick detail page")
    _screenshot(browser, "dashboard-quick.png")
    _open_tab(browser, "sources")
    assert _text(browser, "#source-1 .domain") == "citynews.example.com"
    _screenshot(browser, "dashboard-quick-sources.png")


def test_token_page_is_styled(
    repo: Repository,
    server: LiveServer,
    browser: WebDriver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VICARAN_DASHBOARD_TOKEN", "s3cret-dashboard-token")
    forget_settings()
    browser.get(f"{server.url}/investigations")
    assert _text(browser, "h1") == "Access token needed"
    background = browser.execute_script(
        "return getComputedStyle(document.querySelector('.topbar')).backgroundColor"
    )
    assert background == "rgb(15, 27, 45)"  # the dashboard's top bar, not an unstyled page
    page = f"{server.url}/investigations - "  # the page itself is a 401, as it should be
    errors = [
        e
        for e in browser.get_log("browser")
        if e["level"] == "SEVERE" and not e["message"].startswith(page)
    ]
    assert errors == []  # nothing refused: no stylesheet behind the token, no CSP violation


def _panel_view(driver: WebDriver, key: str) -> tuple[str, list[str | None]]:
    """A panel's text (hidden parts included) and the addresses it links to."""
    return driver.execute_script(
        "const body = document.querySelector(`[data-body='${arguments[0]}']`);"
        "return [body.textContent, [...body.querySelectorAll('a')]"
        ".map((a) => a.getAttribute('href'))];",
        key,
    )


def test_documents_and_the_reasoning_log_render_in_the_browser(
    repo: Repository, server: LiveServer, browser: WebDriver
) -> None:
    """Documents by title and page, no doc:// link, the reasoning log folded and escaped."""
    from selenium.webdriver.common.by import By

    from tests.test_document_records import (
        REASONING,
        document_evidence,
        document_investigation,
        document_source,
    )

    title = f"Anexo II {IMG_XSS}"
    iid = document_investigation(
        repo, source=document_source(title=title), evidence=document_evidence(title=title)
    )
    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations/{iid}#fact-checks")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    keys = ("sources", "fact-checks")
    served = {key: _panel_view(browser, key) for key in keys}
    text, links = served["fact-checks"]
    assert f"📄 {title}, p. 4" in text
    assert not [link for link in links if link and link.startswith("doc:")]

    summary = browser.find_element(By.CSS_SELECTOR, "#fact-checks details.reasoning summary")
    assert summary.text == "How this verdict was reached: 2 steps"
    summary.click()
    steps = browser.find_elements(By.CSS_SELECTOR, "#fact-checks .reasoning-log li")
    assert [step.text for step in steps] == REASONING
    assert browser.find_elements(By.CSS_SELECTOR, "main img, main script") == []
    _no_alert(browser)
    _screenshot(browser, "dashboard-documents.png")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_gazettes_render_in_the_browser(
    repo: Repository, server: LiveServer, browser: WebDriver
) -> None:
    """A gazette by city and date, linked to its public address, its snapshot and full text;
    its evidence with date and territory."""
    from selenium.webdriver.common.by import By

    from tests.test_gazette_records import (
        DATE,
        GAZETTE_URL,
        TERRITORY,
        TXT_URL,
        gazette_evidence,
        gazette_investigation,
        gazette_source,
    )

    title = f"Diário Oficial de Porto Alegre {IMG_XSS}"
    iid = gazette_investigation(
        repo, source=gazette_source(title=title), evidence=gazette_evidence(title=title)
    )
    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations/{iid}#sources")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    keys = ("sources", "fact-checks", "bias")
    served = {key: _panel_view(browser, key) for key in keys}
    label = f"📰 {title} — {DATE}"
    text, links = served["sources"]
    assert label in text and f"Diário de {DATE}" in text and f"território IBGE {TERRITORY}" in text
    assert GAZETTE_URL in links and TXT_URL in links
    assert sum(1 for link in links if link and "/snapshots/" in link) == 1
    text, links = served["fact-checks"]
    assert label in text and f"Diário de {DATE} · território IBGE {TERRITORY}" in text
    assert GAZETTE_URL in links
    heading = browser.find_element(By.CSS_SELECTOR, "#source-1 .card-title a")
    assert (heading.text, heading.get_attribute("href")) == (label, GAZETTE_URL)
    assert browser.find_elements(By.CSS_SELECTOR, "main img, main script") == []
    _no_alert(browser)
    _screenshot(browser, "dashboard-gazettes.png")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_claim_page_links_render_in_the_browser(
    repo: Repository, server: LiveServer, browser: WebDriver
) -> None:
    """The claim and fact-check cards link each checked claim to its own page; a claim not
    checked has none."""

    from vicaran_agent.schemas import Claim

    iid = start(repo)
    ids = repo.save_sources(iid, [source(1)])
    add_findings(repo, iid, list(ids.values()))
    repo.save_claims(iid, [Claim(key="C2", claim_text="Not checked.", importance=0.1)])
    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations/{iid}#claims")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    keys = ("claims", "fact-checks")
    served = {key: _panel_view(browser, key) for key in keys}
    page = f"/investigations/{iid}/claims/1"
    for key in keys:
        assert served[key][1].count(page) == 1, key
    assert f"/investigations/{iid}/claims/2" not in served["claims"][1]
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_dates_render_in_the_browser(
    repo: Repository, server: LiveServer, browser: WebDriver
) -> None:
    """Each date with who states it, and an item with no date says it is unknown."""

    from vicaran_agent.schemas import Claim, Evidence, Verdict

    iid = start(repo)
    sources = [source(1), source(2, published_at=None)]
    ids = repo.save_sources(iid, sources)
    claim_ids = repo.save_claims(
        iid,
        [Claim(key="C1", claim_text="A claim.", importance=0.5, source_ids=[ids[sources[0].url]])],
    )
    dated = {"published_at": "2024-03-02", "published_at_source": "search"}
    evidence = [
        Evidence(url=f"https://e{n}.example/a", reliability="high", stance="context", **values)
        for n, values in enumerate([dated, {}])
    ]
    repo.save_verdicts(
        iid,
        [
            Verdict(
                claim_key="C1",
                claim_text="A claim.",
                claim_id=claim_ids["C1"],
                verdict="unverified",
                confidence=0.2,
                explanation="Not enough.",
                evidence=evidence,
            )
        ],
    )
    _resize(browser, WIDE)
    browser.get(f"{server.url}/investigations/{iid}#sources")
    _wait(browser, lambda d: d.execute_script("return document.documentElement.className"), "js")
    keys = ("sources", "fact-checks")
    served = {key: _panel_view(browser, key) for key in keys}
    text, _ = served["sources"]
    assert "Published 2024-03-01 (page metadata)" in text and "Publication date unknown" in text
    text, _ = served["fact-checks"]
    assert "Published 2024-03-02 (search service)" in text and "Publication date unknown" in text
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
