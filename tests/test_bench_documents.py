"""The documents benchmark runs end to end at a small scale and prints what it measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import documents


def test_the_documents_benchmark_runs_small_and_prints_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = documents.run(pages=60, passages=600, query_count=10, workdir=tmp_path)
    assert figures["pages"] == 60
    assert figures["passages"] >= 600
    assert figures["queries"] == 10 and figures["queries_without_hits"] < 10
    assert figures["search_p95_ms"] >= figures["search_p50_ms"] > 0
    assert figures["peak_rss_mib"] > 0

    capsys.readouterr()  # (the run's progress lines)
    monkeypatch.setattr(documents, "run", lambda *args: figures)  # measured once, above
    assert documents.main(["--pages", "60", "--passages", "600", "--queries", "10"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == figures  # the figures, for `make bench`'s JSON
    lines, verdicts = err.splitlines()[:-3], err.splitlines()[-3:]
    assert lines == documents.lines(figures)
    search = next(line for line in lines if line.startswith("search over"))
    assert f"search over {figures['passages']:,} passages" in search
    assert f"p50 {figures['search_p50_ms']:.1f} ms, p95 {figures['search_p95_ms']:.1f} ms" in search
    assert any(f"{figures['pages_per_s']:.0f} pages/s" in line for line in lines)
    # each target, judged and printed with the figure it was judged on
    judged = documents.targets(figures)
    assert verdicts == [f"  {'PASS' if met else 'FAIL'}  {t}: {d}" for t, met, d in judged]
    details = [detail for _, _, detail in judged]
    assert f"{figures['search_p95_ms']:.1f} ms at {figures['passages']:,} passages" in details
    assert f"{figures['peak_rss_mib']:.0f} MiB" in details
