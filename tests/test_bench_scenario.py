"""The investigation benchmark (`make bench`'s scenarios) runs and reports what it measured."""

from __future__ import annotations

from tests.support.bench import bench_figures


def test_a_quick_scenario_runs_and_reports_its_figures():
    """One scenario, as `make bench` runs each (its own process, its own fakes), at a tiny
    latency: it completes, the newsroom gets every record, and the figures are there."""
    # a small story (what the bench measures at full size is its own run's business)
    figures = bench_figures(
        "benchmarks.scenario",
        *("--mode", "quick", "--latency", "0.02", "--sources", "6", "--claims", "3"),
        timeout=300,
    )
    assert figures["status"] == "completed" and figures["verdicts"] == figures["claims"] > 0
    assert figures["outbox"] == {
        "pending": 0,
        "delivered": figures["outbox"]["delivered"],
        "failed": 0,
    }
    assert figures["newsroom_types"]["INVESTIGATION_COMPLETE"] == 1
    # every source read is kept in the web archive (archiving is on by default)
    assert figures["pages_archived"] >= figures["sources_readable"] > 0
    assert figures["archive_bytes"] > 0
