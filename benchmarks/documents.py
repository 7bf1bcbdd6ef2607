"""Documents at scale, in its own process; prints its figures, then one JSON object on stdout.

    uv run python -m benchmarks.documents [--pages 2000] [--passages 100000] [--queries 200]

1. Text PDFs: `--pages` pages of generated report text (fpdf2, in 50-page files, made by worker
   processes; not timed), each file read with `parse_file` through the parse pool (a worker
   process parses it, as `vicaran docs add` and attachments do; the pool is started first, not
   timed) and indexed with `store.add`: indexing pages/s, and what the pool costs a file (the
   time from handing a file to a worker to having its pages back, less the worker's parsing:
   sending the bytes, sending the pages back, waking up); then each file parsed again in this
   process and in the pool, in turn (not timed as indexing): what the pool costs a file in wall
   time against parsing in-process, as before the pool. When PDF parsing is not available (a
   PDF does not come back page by page), the same pages are indexed as text files instead, and
   the output says so.
2. Passages: more generated documents (pages of text made in memory) through `store.add` until
   the collection holds `--passages` passages.
3. Search: `--queries` varied queries over the whole collection (claim-like: stretches of a
   passage, a collection-wide word with rarer ones, numbers, accents, punctuation, single words;
   limit 8), and as many searches within one document; p50/p95 ms of each.
Peak RSS is this process's (the PDF generators and the parse pool's workers are other
processes; the workers' growth while parsing is given apart).

The text: words of 4-11 letters drawn Zipf-Mandelbrot (p ~ 1/(rank + 200), as content words
after the ~200 commonest), interleaved with English and Portuguese stop words, numbers, each
document's own topic words and one word every document of the collection shares (a collection
about one city): the shapes real document text gives a full-text index.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import itertools
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

os.environ["ADK_DISABLE_LOAD_DOTENV"] = "1"

from vicaran_agent.documents.model import PageText, ParsedDocument
from vicaran_agent.documents.query import STOP_WORDS

PAGES_PER_PDF = 50
WORDS_PER_PAGE = 300  # about 2,000 characters: a page of a dense report
LINE_CHARS = 110
COLLECTION = "bench"
CITY = "maceió"  # in every document: the collection is about one city
TARGETS = {"pages_per_s": 50.0, "search_p95_ms": 50.0, "peak_rss_mib": 400.0}


class Text:
    """Deterministic report-like text (see the module docstring)."""

    def __init__(self, seed: int = 7) -> None:
        rng = random.Random(seed)
        letters = "abcdefghijlmnoprstuvz"
        words = ("".join(rng.choices(letters, k=rng.randint(4, 11))) for _ in range(70_000))
        self.content = list(dict.fromkeys(words))[:60_000]
        self.accented = {w: w.replace("ca", "çã", 1) for w in self.content[:4000:7]}
        self.cumulative = list(itertools.accumulate(1 / (rank + 200) for rank in range(60_000)))
        self.stops = sorted(STOP_WORDS)

    def words(self, rng: random.Random, topic: list[str], count: int) -> list[str]:
        out: list[str] = []
        content = rng.choices(self.content, cum_weights=self.cumulative, k=count)
        for i in range(count):
            x = rng.random()
            if x < 0.42:
                out.append(rng.choice(self.stops))
            elif x < 0.46:
                out.append(rng.choice(topic))
            elif x < 0.47:
                out.append(CITY)
            elif x < 0.50:
                out.append(
                    f"{rng.randint(1, 9999)}" if x < 0.49 else f"R$ {rng.randint(1, 999)},00"
                )
            else:
                out.append(self.accented.get(content[i], content[i]))
        return out

    def page(self, rng: random.Random, topic: list[str]) -> str:
        words = self.words(rng, topic, WORDS_PER_PAGE)
        sentences = [
            " ".join(words[i : i + 15]).capitalize() + "." for i in range(0, len(words), 15)
        ]
        return "\n\n".join(" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5))

    def topic(self, rng: random.Random) -> list[str]:
        return rng.sample(self.content[:3000], 5)


@functools.cache
def _text() -> Text:
    return Text()


def _pdf_pages(seed: int, pages: int) -> list[str]:
    rng = random.Random(seed)
    text = _text()
    topic = text.topic(rng)
    return [text.page(rng, topic) for _ in range(pages)]


def _write_pdf(job: tuple[Path, int, int]) -> Path:
    """One PDF of `pages` generated pages (run in a worker process)."""
    from fpdf import FPDF

    path, seed, pages = job
    pdf = FPDF()
    pdf.set_font("helvetica", size=8)
    pdf.set_auto_page_break(auto=False)
    for body in _pdf_pages(seed, pages):
        pdf.add_page()
        y = 12.0
        for paragraph in body.split("\n\n"):
            for line in textwrap.wrap(paragraph, LINE_CHARS):
                pdf.text(10, y, line)  # lines wrapped here: much faster than multi_cell
                y += 3.6
            y += 2.0
    pdf.output(str(path))
    return path


def _write_text(job: tuple[Path, int, int]) -> Path:
    """The same pages as a text file, one page per form feed (when PDFs cannot be parsed)."""
    path, seed, pages = job
    path = path.with_suffix(".txt")
    path.write_text("\n\f\n".join(_pdf_pages(seed, pages)), encoding="utf-8")
    return path


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def queries(text: Text, passages: list[str], count: int, rng: random.Random) -> list[str]:
    """Varied searches: mostly claim-like, some single words, accents and punctuation."""
    found: list[str] = []
    for i in range(count):
        kind = i % 5
        if kind in (0, 1):  # a stretch of a passage, as a claim quotes a document
            words = rng.choice(passages).split()
            start = rng.randrange(max(1, len(words) - 12))
            found.append(" ".join(words[start : start + rng.randint(5, 12)]))
        elif kind == 2:  # a claim: the city, rarer words, a figure
            words = text.words(rng, text.topic(rng), rng.randint(4, 9))
            found.append(f"{CITY.capitalize()} " + " ".join(words) + f" {rng.randint(1, 99)}%")
        elif kind == 3:  # one or two words, accents stripped or not, with punctuation
            word = rng.choice(list(text.accented.values()) + text.content[:5000])
            found.append(rng.choice([word, word.upper(), f'"{word}"', f"{word}: {CITY}?"]))
        else:  # what a model may write: quotes, operators, parentheses
            words = rng.choices(text.content[:20000], k=3)
            found.append(f'{words[0]} AND ("{words[1]}" OR -{words[2]}*) NEAR(x)')
    return found


def run(pages: int, passages: int, query_count: int, workdir: Path) -> dict[str, Any]:
    from sqlalchemy import text as sql

    from vicaran_agent.documents import parse
    from vicaran_agent.documents.pool import parse_file
    from vicaran_agent.documents.store import DocumentStore
    from vicaran_agent.storage import get_repository
    from vicaran_agent.workers.parsing import parse_pool

    database_url = f"sqlite:///{workdir / 'documents.db'}"
    store = DocumentStore(database_url)
    text = _text()
    rng = random.Random(11)
    files = [
        (workdir / f"report-{n:03d}.pdf", n, min(PAGES_PER_PDF, pages - n * PAGES_PER_PDF))
        for n in range((pages + PAGES_PER_PDF - 1) // PAGES_PER_PDF)
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as makers:
        made = list(makers.map(_write_pdf, files))
    generated_s = time.perf_counter() - started
    pool = parse_pool()  # after the makers: they are forked, and the pool has a thread
    pool.wait_ready(120)
    as_pdf = parse_file(made[0]).page_count == files[0][2]
    if not as_pdf:
        made = [_write_text(job) for job in files]
    print(
        f"documents: {pages} pages in {len(made)} {'PDFs' if as_pdf else 'text files'} "
        f"(generated in {generated_s:.1f} s, not counted)"
        + ("" if as_pdf else " - PDF PARSING NOT AVAILABLE: the same pages indexed as text files"),
        file=sys.stderr,
    )

    before = dataclasses.replace(pool.stats)
    started = time.perf_counter()
    indexed_pages = 0
    for path in made:
        outcome = store.add(parse_file(path), COLLECTION)
        indexed_pages += outcome.document.page_count
    if not as_pdf:  # a text file is one page to the parser: count the pages it holds
        indexed_pages = pages
    index_s = time.perf_counter() - started
    parsed_files = max(1, pool.stats.tasks - before.tasks)
    pool_cost_ms = (pool.stats.overhead_seconds - before.overhead_seconds) / parsed_files * 1000
    sent_kib = (pool.stats.bytes_sent - before.bytes_sent) / parsed_files / 1024
    received_kib = (pool.stats.bytes_received - before.bytes_received) / parsed_files / 1024
    pdf_passages = sum(d.passages for d in store.documents(COLLECTION))
    # the same files parsed again, in this process (as before the pool) and in the pool, in
    # turn (either first, file by file): what the pool costs a file, in wall time
    took = {"local": 0.0, "pooled": 0.0}
    for number, path in enumerate(made):
        ways = [("local", parse.parse_file), ("pooled", parse_file)]
        for way, parser in ways if number % 2 else ways[::-1]:
            began = time.perf_counter()
            parser(path)
            took[way] += time.perf_counter() - began

    passages_s = 0.0
    total = pdf_passages
    n = 0
    while total < passages:
        doc_rng = random.Random(1000 + n)
        topic = text.topic(doc_rng)
        body = [PageText(p, text.page(doc_rng, topic)) for p in range(1, 101)]
        data = "\f".join(p.text for p in body).encode()
        parsed = ParsedDocument(
            file_name=f"generated-{n:04d}.txt",
            kind="text",
            sha256=hashlib.sha256(data).hexdigest(),
            size_bytes=len(data),
            title=f"Generated report {n}",
            page_count=len(body),
            pages=body,
            language="pt",
        )
        started = time.perf_counter()  # the store's work only, not making up the text
        total += store.add(parsed, COLLECTION).document.passages
        passages_s += time.perf_counter() - started
        n += 1

    sample = get_repository(database_url).read(
        lambda session: list(
            session.scalars(
                sql("SELECT text FROM passages WHERE id % 97 = 0 ORDER BY id LIMIT 400")
            )
        )
    )
    asked = queries(text, sample, query_count, rng)
    documents = store.documents(COLLECTION)
    store.search("warm up", [COLLECTION])
    latencies, scoped, empty = [], [], 0
    for query in asked:
        began = time.perf_counter()
        hits = store.search(query, [COLLECTION], limit=8)
        latencies.append((time.perf_counter() - began) * 1000)
        empty += not hits
        document = rng.choice(documents)
        began = time.perf_counter()
        store.best_passages(document.document_id, query, 3)
        scoped.append((time.perf_counter() - began) * 1000)
    get_repository(database_url).close()
    size = (workdir / "documents.db").stat().st_size
    return {
        "pages": indexed_pages,
        "pdf_files": len(made) if as_pdf else 0,
        "as_pdf": as_pdf,
        "pdf_generation_s": round(generated_s, 1),
        "index_s": round(index_s, 2),
        "pages_per_s": round(indexed_pages / index_s, 1),
        "pool_workers": pool.size,
        "pool_cost_ms_per_file": round(pool_cost_ms, 2),
        "pool_sent_kib_per_file": round(sent_kib, 1),
        "pool_received_kib_per_file": round(received_kib, 1),
        "pool_share_of_index_time": round(pool_cost_ms * parsed_files / 1000 / index_s, 4),
        "in_process_parse_ms_per_file": round(took["local"] / len(made) * 1000, 1),
        "pool_parse_ms_per_file": round(took["pooled"] / len(made) * 1000, 1),
        "pool_peak_growth_mib": pool.stats.peak_growth_mb,
        "pdf_passages": pdf_passages,
        "passages": total,
        "documents": len(documents),
        "passages_index_s": round(passages_s, 1),
        "passages_per_s": round((total - pdf_passages) / passages_s) if passages_s else 0,
        "queries": len(asked),
        "queries_without_hits": empty,
        "search_p50_ms": round(statistics.median(latencies), 1),
        "search_p95_ms": round(_percentile(latencies, 95), 1),
        "search_max_ms": round(max(latencies), 1),
        "scoped_p50_ms": round(statistics.median(scoped), 1),
        "scoped_p95_ms": round(_percentile(scoped, 95), 1),
        "database_mib": round(size / 2**20, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def lines(r: dict[str, Any]) -> list[str]:
    """The figures as people read them."""
    source = f"{r['pdf_files']} text PDFs" if r["as_pdf"] else "text files (PDF parsing missing)"
    return [
        f"indexing: {r['pages']:,} pages from {source} in {r['index_s']:.1f} s = "
        f"{r['pages_per_s']:.0f} pages/s ({r['pdf_passages']:,} passages)",
        f"parse pool ({r['pool_workers']} worker processes): {r['pool_cost_ms_per_file']:.1f} ms "
        f"a file beyond parsing (sending {r['pool_sent_kib_per_file']:.0f} KiB of file, "
        f"{r['pool_received_kib_per_file']:.0f} KiB of pages back) = "
        f"{100 * r['pool_share_of_index_time']:.1f}% of the indexing time; the workers grew by "
        f"{r['pool_peak_growth_mib']:.0f} MiB at most",
        f"a file parsed in this process {r['in_process_parse_ms_per_file']:.0f} ms, in the "
        f"parse pool {r['pool_parse_ms_per_file']:.0f} ms: the pool costs "
        f"{r['pool_parse_ms_per_file'] - r['in_process_parse_ms_per_file']:+.0f} ms a file "
        f"({PAGES_PER_PDF} pages) in wall time",
        f"indexing: {r['passages'] - r['pdf_passages']:,} more passages in "
        f"{r['passages_index_s']:.1f} s = {r['passages_per_s']:,} passages/s",
        f"search over {r['passages']:,} passages ({r['documents']} documents, "
        f"{r['database_mib']:.0f} MiB database): p50 {r['search_p50_ms']:.1f} ms, "
        f"p95 {r['search_p95_ms']:.1f} ms, max {r['search_max_ms']:.1f} ms "
        f"({r['queries']} queries, {r['queries_without_hits']} without hits)",
        f"search within one document (best_passages): p50 {r['scoped_p50_ms']:.1f} ms, "
        f"p95 {r['scoped_p95_ms']:.1f} ms",
        f"peak RSS {r['peak_rss_mib']:.0f} MiB",
    ]


def targets(r: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(target, met, what was measured)."""
    pdf_note = "" if r["as_pdf"] else " (text files: PDF parsing missing)"
    return [
        (
            f"document indexing >= {TARGETS['pages_per_s']:.0f} pages/s (text PDFs)",
            r["as_pdf"] and r["pages_per_s"] >= TARGETS["pages_per_s"],
            f"{r['pages_per_s']:.0f} pages/s{pdf_note}",
        ),
        (
            f"document search p95 <= {TARGETS['search_p95_ms']:.0f} ms at 100,000 passages",
            r["passages"] >= 100_000 and r["search_p95_ms"] <= TARGETS["search_p95_ms"],
            f"{r['search_p95_ms']:.1f} ms at {r['passages']:,} passages",
        ),
        (
            f"documents peak RSS <= {TARGETS['peak_rss_mib']:.0f} MiB",
            r["peak_rss_mib"] <= TARGETS["peak_rss_mib"],
            f"{r['peak_rss_mib']:.0f} MiB",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vicaran-documents-") as workdir:
        result = run(args.pages, args.passages, args.queries, Path(workdir))
    for line in lines(result):
        print(line, file=sys.stderr)
    for target, met, detail in targets(result):
        print(f"  {'PASS' if met else 'FAIL'}  {target}: {detail}", file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
