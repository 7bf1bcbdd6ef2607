"""The claim-memory benchmark runs (small) and says what it measured; recall is checked here,
the time is the benchmark's to print."""

from __future__ import annotations

from benchmarks import memory
from tests.support.bench import bench_figures


def test_the_benchmark_recalls_exactly_the_restated_claims() -> None:
    figures = bench_figures("benchmarks.memory", "--claims", "400", "--lookups", "30")
    assert figures["claims"] == 400 and figures["lookups"] == 30
    assert figures["recalled"] == figures["restated"] == 3
    assert figures["p95_ms"] >= figures["median_ms"] > 0
    (speed, recall) = memory.targets(figures)
    assert recall[1] is True and "3 recalled of 3 restated" in recall[2]
    assert speed[0].startswith("claim memory p95 <= 50 ms")
