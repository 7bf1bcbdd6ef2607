"""The documents benchmark runs end to end at a small scale, and its targets read its figures."""

from __future__ import annotations

from pathlib import Path

from benchmarks import documents


def test_the_documents_benchmark_runs_small(tmp_path: Path) -> None:
    figures = documents.run(pages=60, passages=600, query_count=10, workdir=tmp_path)

    assert figures["pages"] == 60
    assert figures["passages"] >= 600
    assert figures["queries"] == 10 and figures["queries_without_hits"] < 10
    assert figures["search_p95_ms"] >= figures["search_p50_ms"] > 0
    assert figures["peak_rss_mib"] > 0
    assert any("pages/s" in line for line in documents.lines(figures))
    met = {label: ok for label, ok, _ in documents.targets(figures)}
    assert not met["document search p95 <= 50 ms at 100,000 passages"]  # not 100,000 passages
