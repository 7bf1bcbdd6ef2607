/* Vicaran dashboard: tabs, and a live refresh every 3 s while something runs: an
   investigation's page while it runs, the list while any investigation runs.
   The server renders the first view. Every value from the API is written here through
   textContent / createElement only; `summary_html` (already sanitized by the server's Markdown
   renderer) is parsed with DOMParser into an inert document, never assigned to innerHTML. */
(() => {
  "use strict";

  const POLL_MS = 3000;
  const LIVE = "Live: refreshing every 3 s";
  const RUNNING = new Set(["planning", "in_progress"]);
  const STATUS = {
    planning: "Planning", in_progress: "In progress", completed: "Completed",
    partial: "Partial", failed: "Failed", interrupted: "Interrupted",
  };
  const VERDICT = {
    verified: "Verified", partially_true: "Partially true", misleading: "Misleading",
    false: "False", unverified: "Unverified",
  };
  const CREDIBILITY = {
    5: "High credibility", 4: "Good credibility", 3: "Medium credibility",
    2: "Low credibility", 1: "Very low credibility",
  };
  const PRECISION = { day: "exact day", month: "month only", year: "year only" };
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December"];
  const STANCES = ["supportive", "neutral", "critical"];
  const SCALE = "on a scale from 0 (balanced) to 10 (one-sided)";
  const LIST_COLUMNS = [["Investigation", ""], ["Status", ""], ["Mode", ""], ["Sources", "n"],
    ["Claims", "n"], ["Fact-checks", "n"], ["Last update", ""], ["Data", ""]];
  const QUALITY = {
    factual_accuracy: "Factual accuracy", citation_correctness: "Citation correctness",
    plan_coverage: "Plan coverage", structure: "Structure", relevance: "Relevance",
  };

  document.documentElement.classList.add("js");
  const root = document.getElementById("investigation");

  // --- small DOM helpers ----------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== "") node.append(child);
    }
    return node;
  }

  const own = (table, key) => (Object.hasOwn(table, key) ? table[key] : null);
  const cap = (text) => {
    const s = String(text ?? "");
    return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  };
  const known = (value) => (/^[a-z_]{1,20}$/.test(String(value)) ? String(value) : "unknown");
  const pct = (value, scale = 1) => {
    const n = Number(value) * scale;
    return Number.isFinite(n) ? Math.max(0, Math.min(100, n)) : 0;
  };
  const empty = (text) => el("p", { class: "empty" }, text);
  const sentence = (text) => String(text).charAt(0).toUpperCase() + String(text).slice(1);
  const oneLine = (text) => String(text ?? "").split(/\s+/).filter(Boolean).join(" ");
  const whole = (value) => (Number.isInteger(value) ? String(value)
    : Number.isFinite(value) ? String(Math.trunc(value)) : "—");

  function badge(kind, value, labels) {
    const label = own(labels, value);
    return el("span", { class: `badge ${kind}-${label ? value : "unknown"}` },
      label || value || "Unknown");
  }

  function time(iso) {
    if (!iso) return "—";
    return el("time", { datetime: iso }, `${iso.slice(0, 16).replace("T", " ")} UTC`);
  }

  function link(url, text) {
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(url).protocol);
    } catch {
      ok = false;
    }
    return ok ? el("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, text)
      : document.createTextNode(text);
  }

  // A link to the text Vicaran read (mirrors _snapshot in dashboard.py).
  function snapshot(sha) {
    if (!/^[0-9a-f]{64}$/.test(String(sha ?? ""))) return null;
    return [" ", el("a", { class: "snap", href: `${root.dataset.api}/snapshots/${sha}`,
      target: "_blank", rel: "noopener noreferrer", title: "The text Vicaran read" }, "snapshot")];
  }

  // A document has no web address (mirrors export.is_document, page_text, document_label).
  const isDocument = (item) => item.origin === "document"
    || String(item.url ?? "").startsWith("doc://");

  function pageText(item) {
    return Number.isInteger(item.page) && item.page > 0 ? `p. ${item.page}` : "";
  }

  function documentLabel(item) {
    const title = oneLine(item.title) || oneLine(item.publisher) || "Document";
    const page = pageText(item);
    return page ? `📄 ${title}, ${page}` : `📄 ${title}`;
  }

  // `📄 <title>, p. N`, linked to the passage Vicaran read (mirrors _document_link).
  function documentLink(item) {
    const label = documentLabel(item);
    const sha = String(item.content_sha256 ?? "");
    if (!/^[0-9a-f]{64}$/.test(sha)) return document.createTextNode(label);
    return el("a", { class: "doc", href: `${root.dataset.api}/snapshots/${sha}`, target: "_blank",
      rel: "noopener noreferrer", title: "The passage Vicaran read" }, label);
  }

  // An official gazette is public (mirrors export.is_gazette, gazette_day, gazette_label,
  // gazette_facts).
  const isGazette = (item) => item.origin === "gazette";

  function gazetteDay(item) {
    const text = oneLine(item.gazette_date || item.published_at);
    const day = /^[0-9]{4}-[0-9]{2}-[0-9]{2}/.exec(text);
    return day ? day[0] : text;
  }

  function gazetteLabel(item) {
    let title = oneLine(item.title);
    const day = gazetteDay(item);
    if (!title) {
      const territory = oneLine(item.territory_id);
      title = territory ? `Diário Oficial (IBGE ${territory})` : "Diário Oficial";
    }
    if (day && !title.includes(day)) title = `${title} — ${day}`;
    return `📰 ${title}`;
  }

  function gazetteFacts(item) {
    const facts = [];
    const day = gazetteDay(item);
    if (day) facts.push(`Gazette of ${day}`);
    const territory = oneLine(item.territory_id);
    if (territory) facts.push(`IBGE territory ${territory}`);
    return facts;
  }

  // Who states a publication date (mirrors schemas.DATE_SOURCE_LABELS).
  const DATE_SOURCES = {
    metadata: "page metadata",
    search: "search service",
    review: "fact-check",
    document: "document",
    gazette: "gazette",
  };

  // When an item was published, and who says so, or that it is unknown (mirrors _dated in
  // dashboard.py and export.published_fact).
  function dated(item) {
    if (isGazette(item)) return gazetteFacts(item);
    if (!item.published_at) return ["Publication date unknown"];
    const label = Object.hasOwn(DATE_SOURCES, item.published_at_source)
      ? DATE_SOURCES[item.published_at_source] : "";
    const day = oneLine(item.published_at);
    return [label ? `Published ${day} (${label})` : `Published ${day}`];
  }

  // A link to a gazette's full text (mirrors _full_text in dashboard.py).
  function fullText(s) {
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(s.txt_url).protocol);
    } catch {
      ok = false;
    }
    if (!ok) return null;
    return [" ", el("a", { class: "snap", href: s.txt_url, target: "_blank",
      rel: "noopener noreferrer", title: "The gazette's full text, as Querido Diário gives it" },
    "full text")];
  }

  // Mirrors _source_name in dashboard.py.
  const sourceName = (s) => (isDocument(s) ? documentLabel(s)
    : isGazette(s) ? gazetteLabel(s) : s.display_url || s.url);

  function day(iso) {
    return el("time", { datetime: iso }, String(iso).slice(0, 10));
  }

  // A 0-1 share as a whole percentage (mirrors export._percent).
  function percent(value) {
    const n = Number(value);
    if (value === null || value === undefined || value === "" || !Number.isFinite(n)) return null;
    return `${Math.round(Math.max(0, Math.min(1, n)) * 100)}%`;
  }

  // Mirrors export.relevance_text.
  function relevanceText(s) {
    const score = percent(s.relevance);
    const reason = oneLine(s.relevance_reason);
    if (s.relevant === false) {
      return `Set aside: off-topic${score ? ` (relevance ${score})` : ""}${reason ? `: ${reason}` : ""}`;
    }
    return score ? `Relevance ${score}` : "";
  }

  // Mirrors export.independence.
  function independence(item) {
    if (item.independent !== false) return "Independent";
    const note = oneLine(item.independence_note);
    return note ? `Not independent: ${note}` : "Not independent";
  }

  function bar(percent, kind) {
    const fill = el("span", { class: `bar-fill ${kind || ""}`.trim() });
    fill.style.width = `${percent.toFixed(1)}%`;
    return el("span", { class: "bar", "aria-hidden": "true" }, fill);
  }

  function stars(score) {
    const v = Math.max(1, Math.min(5, Math.trunc(Number(score) || 1)));
    const label = `Credibility ${v} of 5: ${CREDIBILITY[v]}`;
    return el("span", { class: "stars", role: "img", "aria-label": label, title: label },
      "★".repeat(v), el("span", { class: "stars-off" }, "★".repeat(5 - v)));
  }

  function refs(ids, ctx) {
    const links = (ids || []).filter((id) => ctx.numbers.has(id)).map((id) => {
      const n = ctx.numbers.get(id);
      return el("a", { href: `#source-${n}`, class: "cite", title: ctx.titles.get(id) }, `[${n}]`);
    });
    if (!links.length) return null;
    const p = el("p", { class: "refs" }, "Sources: ");
    links.forEach((a, i) => p.append(...(i ? [" ", a] : [a])));
    return p;
  }

  function eventDate(value, precision) {
    const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(value || "");
    if (!m) return [value, null];
    const [, year, month, day] = m;
    if (!month || precision === "year" || +month < 1 || +month > 12) return [year, year];
    const name = MONTHS[+month - 1];
    if (!day || precision === "month") return [`${name} ${year}`, `${year}-${month}`];
    return [`${+day} ${name} ${year}`, `${year}-${month}-${day}`];
  }

  const scoreLabel = (s) => (s < 2 ? "Low" : s < 4 ? "Low-Moderate" : s < 6 ? "Moderate"
    : s < 8 ? "High" : "Very High");
  const sourcesCount = (n) => (n === 1 ? "1 source" : `${n} sources`);

  // Mirrors host_of in tools/urls.py: lowercase, no port, brackets, final dot or leading www.
  function hostOf(url) {
    let host = "";
    try {
      host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
    } catch {
      return "";
    }
    while (host.startsWith("www.") && host.slice(4).includes(".")) host = host.slice(4);
    return host;
  }

  // Mirrors publisher_name in dashboard.py: the publisher when it says more than the host.
  function publisherName(publisher, host) {
    const text = String(publisher ?? "").trim();
    const lowered = text.toLowerCase();
    const h = String(host).toLowerCase();
    return !text || lowered === h || h.endsWith(`.${lowered}`) ? "" : text;
  }

  // --- the list page, refreshed while any investigation runs (mirrors _list_row) ----------

  function listRow(item) {
    const id = encodeURIComponent(item.id);
    const count = (value) => String(Math.trunc(Number(value) || 0));
    const cells = [
      el("a", { href: `/investigations/${id}` }, item.title || "Untitled"),
      badge("status", item.status, STATUS),
      cap(item.mode),
      count(item.source_count),
      count(item.claim_count),
      count(item.fact_check_count),
      time(item.updated_at),
      el("a", { href: `/api/investigations/${id}` }, "JSON"),
    ];
    return el("tr", { "data-id": item.id }, cells.map((cell, i) => el("td",
      { "data-label": LIST_COLUMNS[i][0], class: LIST_COLUMNS[i][1] || null }, cell)));
  }

  function listPage(main) {
    const live = document.getElementById("list-live");
    let shown = "";
    async function poll() {
      try {
        const response = await fetch(main.dataset.api, {
          headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin",
        });
        if (response.status === 401) {
          live.textContent = "Live updates stopped: access token needed.";
          return;
        }
        if (response.ok) {
          const items = await response.json();
          const body = main.querySelector("tbody");
          const signature = JSON.stringify(items);
          if (body && signature !== shown) body.replaceChildren(...items.map(listRow));
          shown = signature;
          if (!items.some((item) => RUNNING.has(item.status))) {
            live.textContent = "";
            main.dataset.running = "false";
            return;
          }
          live.textContent = LIVE;
        }
      } catch {
        live.textContent = "Connection lost, retrying…";
      }
      window.setTimeout(poll, POLL_MS);
    }
    if (main.dataset.running === "true") window.setTimeout(poll, POLL_MS);
  }

  if (!root) {
    const list = document.getElementById("investigations");
    if (list) listPage(list);
    return;
  }

  // --- panels (mirror the server's renderers in dashboard.py) ---------------------------

  function sources(inv) {
    if (!inv.sources.length) return empty("No sources yet.");
    const list = el("ol", { class: "cards" }, inv.sources.map((s, i) => {
      const url = s.display_url || s.url;
      const doc = isDocument(s);
      const host = doc ? "" : s.domain || hostOf(url);
      const name = (doc ? s.publisher || s.domain : "") || publisherName(s.publisher, host);
      const aside = s.relevant === false;
      const meta = [stars(s.credibility_score)];
      if (name) meta.push(el("span", { class: "publisher" }, name));
      if (!doc) meta.push(el("span", { class: "domain" }, host));
      meta.push(...dated(s).map((fact) => el("span", {}, fact)));
      if (s.retrieved_at) meta.push(el("span", {}, "Retrieved ", day(s.retrieved_at)));
      if (s.is_user_provided) meta.push(el("span", { class: "tag" }, "Provided by you"));
      const relevance = relevanceText(s);
      if (relevance && !aside) meta.push(el("span", {}, relevance));
      const reach = s.is_reachable !== false
        ? el("p", { class: "reach reach-ok" }, "Read successfully")
        : el("p", { class: "reach reach-bad" },
          `Not reachable: ${s.unreachable_reason || "no reason given"}`);
      return el("li", { class: aside ? "card source set-aside" : "card source", id: `source-${i + 1}` },
        el("div", { class: "card-head" }, el("span", { class: "num" }, String(i + 1)),
          el("h3", { class: "card-title" }, doc ? documentLink(s)
            : link(url, isGazette(s) ? gazetteLabel(s) : s.title || url)),
          doc ? null : snapshot(s.content_sha256), isGazette(s) && !doc ? fullText(s) : null),
        el("p", { class: "meta" }, meta),
        aside ? el("p", { class: "aside-note" }, relevance) : null,
        s.content_summary ? el("p", { class: "text" }, s.content_summary) : null,
        reach);
    }));
    const asideCount = inv.sources.filter((s) => s.relevant === false).length;
    if (!asideCount) return list;
    const out = document.createDocumentFragment();
    out.append(el("p", { class: "panel-note" }, `${asideCount} of ${inv.sources.length} sources `
      + "set aside as off-topic: saved, but not used for claims, bias or the timeline."), list);
    return out;
  }

  // A small link from a claim's card to its own page (mirrors _claim_page_link).
  function claimPage(id, number) {
    if (!number) return null;
    const href = `/investigations/${encodeURIComponent(id)}/claims/${number}`;
    const title = "This claim's own page, with its ClaimReview";
    return [" ", el("a", { class: "snap", href, title }, "claim page")];
  }

  function claims(inv, ctx) {
    if (!inv.claims.length) return empty("No claims yet.");
    const verdicts = new Map(inv.fact_checks.map((c) => [c.claim_id, c.verdict]));
    const numbers = new Map(inv.fact_checks.map((c, i) => [c.claim_id, i + 1]));
    return el("ol", { class: "cards" }, inv.claims.map((c) => {
      const importance = pct(c.importance, 100);
      const verdict = verdicts.get(c.id);
      return el("li", { class: "card claim", id: `claim-${c.key}` },
        el("div", { class: "card-head" }, el("span", { class: "num" }, c.key),
          el("h3", { class: "card-title" }, c.claim_text), claimPage(inv.id, numbers.get(c.id))),
        el("p", { class: "meta" },
          el("span", { class: "metric" }, "Importance ", bar(importance),
            ` ${Math.round(importance)}%`),
          verdict ? badge("verdict", verdict, VERDICT) : null,
          c.origin === "brief" ? el("span", { class: "tag" }, "From your brief") : null),
        refs(c.source_ids, ctx));
    }));
  }

  function evidence(item) {
    const url = item.display_url || item.url;
    const doc = isDocument(item);
    const publisher = doc ? item.publisher
      : publisherName(item.publisher, hostOf(url)) || hostOf(url);
    const facts = dated(item);
    if (item.query) facts.push(`found by: ${item.query}`);
    const name = isGazette(item) ? gazetteLabel(item) : item.title || url;
    const heading = doc ? [documentLink(item)] : [link(url, name), snapshot(item.content_sha256)];
    return el("li", {}, ...heading,
      publisher ? [" ", el("span", { class: "muted" }, publisher)] : null,
      el("span", { class: "tags" },
        el("span", { class: `tag stance-${known(item.stance)}` }, cap(item.stance)),
        el("span", { class: `tag rel-${known(item.reliability)}` },
          `${cap(item.reliability)} reliability`),
        el("span", { class: `tag ${item.independent !== false ? "ind-yes" : "ind-no"}` },
          independence(item)),
        item.rating ? el("span", { class: "tag" }, `Rated: ${item.rating}`) : null),
      item.quote ? el("blockquote", { class: "quote" }, item.quote) : null,
      item.stance_note ? el("p", { class: "note" }, sentence(item.stance_note)) : null,
      item.snippet && !item.quote ? el("p", { class: "snippet" }, item.snippet) : null,
      facts.length ? el("p", { class: "evidence-meta" }, facts.join(" · ")) : null);
  }

  // The verdict's reasoning log, folded (mirrors _reasoning in dashboard.py).
  function reasoning(lines) {
    if (!lines || !lines.length) return null;
    const steps = lines.length === 1 ? "1 step" : `${lines.length} steps`;
    return el("details", { class: "reasoning" },
      el("summary", {}, `How this verdict was reached: ${steps}`),
      el("ol", { class: "reasoning-log" }, lines.map((line) => el("li", {}, String(line)))));
  }

  // "Claim 2/5": a check named by its claim's number, as the chat names it (mirrors claim_of).
  function claimOf(inv, check) {
    const number = inv.claims.findIndex((claim) => claim.id === check.claim_id) + 1;
    return number ? `Claim ${number}/${inv.claims.length}` : "Claim";
  }

  function checks(inv, ctx) {
    if (!inv.fact_checks.length) return empty("No fact-checks yet.");
    return el("ol", { class: "cards" }, inv.fact_checks.map((c, i) => {
      const confidence = pct(c.confidence, 100);
      return el("li", { class: "card check" },
        el("div", { class: "card-head" }, el("span", { class: "num" }, claimOf(inv, c)),
          badge("verdict", c.verdict, VERDICT),
          el("h3", { class: "card-title" }, c.claim_text), claimPage(inv.id, i + 1)),
        el("p", { class: "meta" }, el("span", { class: "metric" }, "Confidence ",
          bar(confidence), ` ${Math.round(confidence)}%`),
        c.as_of ? el("span", {}, `Checked on ${c.as_of}`) : null),
        el("p", { class: "text" }, c.explanation || ""),
        c.evidence.length ? [el("h4", { class: "sub" }, "Evidence"),
          el("ol", { class: "evidence" }, c.evidence.map(evidence))] : null,
        reasoning(c.reasoning),
        refs(c.source_ids, ctx));
    }));
  }

  function bias(inv, ctx) {
    const b = inv.bias;
    if (!b) {
      return empty(RUNNING.has(inv.status) ? "No bias assessment yet."
        : "No source could be rated, so there is no bias score.");
    }
    const score = Number(b.overall_bias_score) || 0;
    const rows = STANCES.map((stance) => {
      const share = pct((b.coverage_pct || {})[stance]);
      const count = Math.trunc(Number((b.coverage || {})[stance]) || 0);
      return el("div", { class: "bar-row" }, el("span", { class: "bar-label" }, cap(stance)),
        bar(share, `stance-${stance}`),
        el("span", { class: "bar-value" }, `${Math.round(share)}% · ${sourcesCount(count)}`));
    });
    const unrated = Math.trunc(Number(b.unrated) || 0);
    const rated = STANCES.reduce((sum, s) => sum + Math.trunc(Number((b.coverage || {})[s]) || 0), 0);
    const over = unrated > 0 ? ` over ${rated} rated sources (${unrated} not rated)` : "";
    const out = document.createDocumentFragment();
    out.append(el("div", { class: "bias-grid" },
      el("div", { class: "stat" }, el("p", { class: "stat-label" }, "Overall bias score"),
        el("p", { class: "stat-value" }, score.toFixed(1), el("span", {}, " / 10")),
        el("p", { class: "stat-note" }, `${scoreLabel(score)} bias, ${SCALE}`),
        bar(pct(score, 10), "scale"),
        el("p", { class: "scale-ends", "aria-hidden": "true" },
          el("span", {}, "0"), el("span", {}, "10"))),
      el("figure", { class: "coverage" }, el("figcaption", {}, `Coverage balance${over}`), rows)));
    if (b.recommendation) out.append(el("p", { class: "recommendation" }, b.recommendation));
    if (inv.mode === "detailed" && (b.per_source || []).length) {
      const urls = new Map(inv.sources.map((s) => [s.id, sourceName(s)]));
      const body = b.per_source.map((row) => {
        const n = ctx.numbers.get(row.source_id);
        const score10 = pct(row.bias_score, 10) / 10;
        return el("tr", {},
          el("td", {}, n ? [el("a", { href: `#source-${n}`, class: "cite" }, `[${n}]`), " "]
            : null, urls.get(row.source_id) || row.url),
          el("td", {}, cap(row.stance || "neutral")),
          el("td", { class: "score" }, bar(score10 * 10), ` ${score10.toFixed(1)}`),
          el("td", {}, (row.indicators || []).join(", ")));
      });
      const head = el("tr", {}, ["Source", "Stance", "Bias score", "Indicators"]
        .map((h) => el("th", { scope: "col" }, h)));
      out.append(el("h3", { class: "sub" }, "Per source"), el("div", { class: "table-wrap" },
        el("table", { class: "list" }, el("thead", {}, head), el("tbody", {}, body))));
    }
    return out;
  }

  function timeline(inv, ctx) {
    if (!inv.timeline.length) {
      return empty(inv.mode === "quick" ? root.dataset.timelineSkipped : "No events yet.");
    }
    return el("ol", { class: "timeline" }, inv.timeline.map((item) => {
      const [shown, machine] = eventDate(item.event_date, item.date_precision);
      const when = machine ? el("time", { datetime: machine }, shown) : shown;
      return el("li", { class: "event" },
        el("p", { class: "event-date" }, when, " ",
          el("span", { class: "tag" }, own(PRECISION, item.date_precision) || item.date_precision)),
        el("p", { class: "text" }, item.event_text), refs(item.source_ids, ctx));
    }));
  }

  // The "Report check" box (mirrors _quality in dashboard.py).
  function quality(q) {
    if (!q) return null;
    const scores = q.scores || {};
    const rows = Object.entries(QUALITY).map(([key, label]) => el("div", { class: "bar-row" },
      el("span", { class: "bar-label" }, label), bar(pct(scores[key])),
      el("span", { class: "bar-value" }, whole(scores[key]))));
    const scored = Number.isFinite(q.overall);
    const audit = `${whole(q.audited || 0)} cited sentences checked against their sources`
      + ` · ${whole(q.unsupported || 0)} unsupported · ${whole(q.removed || 0)} removed`
      + ` · ${q.rewrites ? "Rewritten once" : "Not rewritten"}`;
    const problems = (q.problems || []).map((p) => el("li", {}, String(p)));
    return el("section", { class: "quality", "aria-labelledby": "quality-title" },
      el("h3", { class: "sub", id: "quality-title" }, "Report check"),
      el("div", { class: "bias-grid" },
        el("div", { class: "stat" }, el("p", { class: "stat-label" }, "Overall quality"),
          el("p", { class: "stat-value" }, whole(q.overall), el("span", {}, " / 100")),
          el("p", { class: "stat-note" }, scored ? `Rewrite threshold ${whole(q.threshold)}`
            : "The quality check could not run.")),
        el("div", { class: "coverage" }, rows)),
      el("p", { class: "audit" }, audit),
      problems.length ? [el("h4", { class: "sub" }, "Problems found"),
        el("ul", { class: "problems" }, problems)] : null);
  }

  // The "Model use" box (mirrors _tokens in dashboard.py).
  function tokens(t) {
    if (!t) return null;
    const n = (v) => Math.round(Number(v) || 0).toLocaleString("en-US");
    const usd = (v) => (Number(v) || 0).toFixed(4);
    const unpriced = (t.unpriced_models || []).length;
    const line = `${n(t.input)} tokens in · ${n(t.output)} out`
      + (t.cached ? ` (${n(t.cached)} cached)` : "") + ` · ≈ US$ ${usd(t.cost_usd)}`
      + (unpriced ? ` (no price set for ${unpriced} model${unpriced === 1 ? "" : "s"}:`
        + " VICARAN_MODEL_PRICES)" : "");
    const rows = Object.entries(t.per_stage || {}).map(([stage, use]) => el("tr", {},
      el("th", { scope: "row" }, stage.replaceAll("_", " ")), el("td", {}, n(use.input)),
      el("td", {}, n(use.output)), el("td", {}, n(use.cached)), el("td", {}, `$${usd(use.cost_usd)}`)));
    return el("section", { class: "tokens", "aria-labelledby": "tokens-title" },
      el("h3", { class: "sub", id: "tokens-title" }, "Model use"),
      el("p", { class: "audit" }, `${line} (estimated)`),
      el("table", { class: "tokens-table" },
        el("thead", {}, el("tr", {}, ["Stage", "Input", "Output", "Cached", "Cost (USD)"]
          .map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows)));
  }

  function summary(inv) {
    const out = document.createDocumentFragment();
    if (!inv.summary_html) {
      out.append(empty("The summary is written when the investigation finishes."));
    } else {
      const parsed = new DOMParser().parseFromString(inv.summary_html, "text/html");
      out.append(el("div", { class: "prose" }, [...parsed.body.childNodes]));
    }
    const box = quality(inv.quality);
    if (box) out.append(box);
    const use = tokens(inv.tokens);
    if (use) out.append(use);
    return out;
  }

  // --- rendering ------------------------------------------------------------------------

  const seen = {};

  function panel(key, data, build) {
    const signature = JSON.stringify(data);
    if (seen[key] === signature) return;
    seen[key] = signature;
    root.querySelector(`[data-body="${key}"]`).replaceChildren(build());
  }

  function render(inv) {
    const ctx = {
      numbers: new Map(inv.sources.map((s, i) => [s.id, i + 1])),
      titles: new Map(inv.sources.map((s) => [s.id, s.title || s.domain])),
    };
    const title = inv.title || "Untitled investigation";
    document.getElementById("inv-title").textContent = title;
    document.title = `${title} · Vicaran`;
    document.getElementById("inv-status").replaceChildren(badge("status", inv.status, STATUS));
    document.getElementById("inv-mode").textContent = `${cap(inv.mode)} mode`;
    document.getElementById("inv-updated").replaceChildren(time(inv.updated_at));
    document.getElementById("inv-brief").textContent = inv.brief || "";
    let notice = null;
    if (inv.status === "partial" && inv.partial_reason) {
      notice = el("p", { class: "notice" }, `Partial: ${inv.partial_reason}`);
    } else if (inv.status === "failed" && inv.error) {
      notice = el("p", { class: "notice notice-failed" }, `Failed: ${inv.error}`);
    }
    document.getElementById("inv-notice").replaceChildren(...(notice ? [notice] : []));
    root.dataset.status = inv.status;
    const counts = { sources: inv.sources, claims: inv.claims, "fact-checks": inv.fact_checks,
      timeline: inv.timeline };
    for (const [key, list] of Object.entries(counts)) {
      const badgeEl = root.querySelector(`[data-count="${key}"]`);
      if (badgeEl) badgeEl.textContent = String(list.length);
    }
    const src = inv.sources;
    panel("sources", src, () => sources(inv));
    panel("claims", [inv.claims, inv.fact_checks, src], () => claims(inv, ctx));
    panel("fact-checks", [inv.fact_checks, src], () => checks(inv, ctx));
    panel("bias", [inv.bias, inv.mode, src, RUNNING.has(inv.status)], () => bias(inv, ctx));
    panel("timeline", [inv.timeline, inv.mode, src], () => timeline(inv, ctx));
    panel("summary", [inv.summary_html, inv.quality], () => summary(inv));
  }

  // --- tabs -----------------------------------------------------------------------------

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

  // --- polling --------------------------------------------------------------------------

  const live = document.getElementById("inv-live");

  async function poll() {
    try {
      const response = await fetch(root.dataset.api, {
        headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin",
      });
      if (response.status === 401 || response.status === 404) {
        live.textContent = response.status === 401
          ? "Live updates stopped: access token needed." : "Live updates stopped: not found.";
        return;
      }
      if (response.ok) {
        const inv = await response.json();
        render(inv);
        if (!RUNNING.has(inv.status)) {
          live.textContent = "";
          return;
        }
        live.textContent = LIVE;
      }
    } catch {
      live.textContent = "Connection lost, retrying…";
    }
    window.setTimeout(poll, POLL_MS);
  }

  if (RUNNING.has(root.dataset.status)) window.setTimeout(poll, POLL_MS);
})();
