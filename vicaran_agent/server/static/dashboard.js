/* Vicaran dashboard: tabs, and a live refresh every 3 s while something runs: an
   investigation's page while it runs, the list while any investigation runs.
   The server renders every view (server/views.py, templates/dashboard/). A refresh asks the
   server for the page's <main> again (the `Vicaran-Fragment` header), parses it with DOMParser
   into an inert document and moves in the parts whose HTML changed; no HTML is assigned to the
   page as a string and nothing is rendered here. */
(() => {
  "use strict";

  const POLL_MS = 3000;
  const RUNNING = new Set(["planning", "in_progress"]);

  document.documentElement.classList.add("js");

  // The page's <main> as the server renders it now; null when the server said no (`live`
  // then says why) and "lost" when it could not be reached.
  async function fresh(main, live) {
    try {
      const response = await fetch(location.pathname, {
        headers: { Accept: "text/html", "Vicaran-Fragment": "main" },
        cache: "no-store",
        credentials: "same-origin",
      });
      if (response.status === 401 || response.status === 404) {
        live.textContent = (response.status === 401 ? main.dataset.stoppedToken : main.dataset.stoppedMissing) || "";
        return null;
      }
      if (!response.ok) return "lost";
      const doc = new DOMParser().parseFromString(await response.text(), "text/html");
      return doc.getElementById(main.id) || "lost";
    } catch {
      return "lost";
    }
  }

  // What the server last sent for each part the refresh replaces (the page may since have
  // changed it: a highlighted card, an open fold), so that only news replaces a part.
  const served = new Map();
  const remember = (part) => part && served.set(part, part.cloneNode(true));

  // Replace `target`'s children with `source`'s when the server's have changed.
  function swap(target, source) {
    if (!target || !source || served.get(target)?.isEqualNode(source)) return;
    served.set(target, source.cloneNode(true));
    target.replaceChildren(...[...source.childNodes].map((n) => document.importNode(n, true)));
  }

  // Poll while `running(next)` says so; `apply(next)` moves the news in.
  function refresh(main, live, running, apply) {
    async function poll() {
      const next = await fresh(main, live);
      if (next === null) return;
      if (next === "lost") {
        live.textContent = main.dataset.lost || "";
      } else {
        apply(next);
        if (!running(next)) {
          live.textContent = "";
          return;
        }
        live.textContent = next.querySelector(`#${live.id}`)?.textContent ?? "";
      }
      window.setTimeout(poll, POLL_MS);
    }
    window.setTimeout(poll, POLL_MS);
  }

  const root = document.getElementById("investigation");

  if (!root) {
    const list = document.getElementById("investigations");
    if (list && list.dataset.running === "true") {
      const live = document.getElementById("list-live");
      remember(list.querySelector(".list-body"));
      refresh(list, live, (next) => next.dataset.running === "true", (next) => {
        swap(list.querySelector(".list-body"), next.querySelector(".list-body"));
        list.dataset.running = next.dataset.running;
      });
    }
    return;
  }

  // --- tabs -----------------------------------------------------------------------------

  const HEAD = ["inv-title", "inv-status", "inv-mode", "inv-updated", "inv-brief", "inv-notice"];
  for (const id of HEAD) remember(document.getElementById(id));
  for (const body of root.querySelectorAll("[data-body]")) remember(body);

  const tabs = [...root.querySelectorAll(".tab")];
  const panels = new Map(tabs.map((t) => [t.dataset.panel, document.getElementById(t.dataset.panel)]));
  root.querySelector(".tabs").setAttribute("role", "tablist");
  for (const tab of tabs) {
    tab.setAttribute("role", "tab");
    tab.setAttribute("aria-controls", tab.dataset.panel);
    const section = panels.get(tab.dataset.panel);
    section.setAttribute("role", "tabpanel");
    section.setAttribute("aria-labelledby", tab.id);
    section.tabIndex = 0;
  }

  function select(key, focus) {
    const chosen = panels.has(key) ? key : tabs[0].dataset.panel;
    for (const tab of tabs) {
      const on = tab.dataset.panel === chosen;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      panels.get(tab.dataset.panel).hidden = !on;
      if (on && focus) tab.focus();
    }
  }

  // Open the panel holding a numbered source (#source-N) or a claim (#claim-KEY) and
  // highlight it.
  function showCard(id) {
    select(id.startsWith("claim-") ? "claims" : "sources");
    const target = document.getElementById(id);
    if (!target) return;
    for (const old of root.querySelectorAll(".highlight")) old.classList.remove("highlight");
    target.classList.add("highlight");
    history.replaceState(null, "", `#${id}`);
    target.scrollIntoView({ block: "center" });
  }

  function fromHash() {
    const key = decodeURIComponent(location.hash.slice(1));
    if (/^(source-\d+|claim-[A-Za-z0-9_-]+)$/.test(key)) showCard(key);
    else select(key);
  }

  root.addEventListener("click", (event) => {
    const cite = event.target.closest('a[href^="#source-"]');
    const tab = event.target.closest(".tab");
    if (cite) {
      event.preventDefault();
      showCard(cite.getAttribute("href").slice(1));
    } else if (tab) {
      event.preventDefault();
      select(tab.dataset.panel);
      history.replaceState(null, "", `#${tab.dataset.panel}`);
    }
  });

  root.querySelector(".tabs").addEventListener("keydown", (event) => {
    const at = tabs.indexOf(document.activeElement);
    const moves = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 };
    if (at < 0 || !(event.key in moves)) return;
    event.preventDefault();
    const next = tabs[(moves[event.key] + tabs.length) % tabs.length];
    select(next.dataset.panel, true);
    history.replaceState(null, "", `#${next.dataset.panel}`);
  });

  window.addEventListener("hashchange", fromHash);
  fromHash();

  // --- the editor's review of a verdict -------------------------------------------------

  // Sent as JSON to the form's review address; the page is read again to show the decision.
  root.addEventListener("submit", async (event) => {
    const form = event.target.closest("form.review-form");
    if (!form) return;
    event.preventDefault();
    const said = form.querySelector(".review-status");
    const data = Object.fromEntries(new FormData(form));
    if (data.action !== "change") delete data.verdict;
    try {
      const response = await fetch(form.dataset.review, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        credentials: "same-origin",
        body: JSON.stringify(data),
      });
      if (response.ok) {
        location.reload();
        return;
      }
      const answer = await response.json().catch(() => ({}));
      said.textContent = answer.error || `HTTP ${response.status}`;
    } catch {
      said.textContent = root.dataset.lost || "";
    }
  });

  // --- the live refresh -----------------------------------------------------------------

  // The header's parts (the live line is the poll's own), the tab counts, the changed panels.

  function apply(next) {
    for (const id of HEAD) swap(document.getElementById(id), next.querySelector(`#${id}`));
    document.title = `${document.getElementById("inv-title").textContent} · Vicaran`;
    for (const count of root.querySelectorAll("[data-count]")) {
      const now = next.querySelector(`[data-count="${count.dataset.count}"]`);
      if (now) count.textContent = now.textContent;
    }
    for (const body of root.querySelectorAll("[data-body]")) {
      swap(body, next.querySelector(`[data-body="${body.dataset.body}"]`));
    }
    root.dataset.status = next.dataset.status;
  }

  if (RUNNING.has(root.dataset.status)) {
    const live = document.getElementById("inv-live");
    refresh(root, live, (next) => RUNNING.has(next.dataset.status), apply);
  }
})();
