"""The investigation benchmark (`make bench`'s scenarios) runs and reports what it measured."""

from __future__ import annotations

from benchmarks.critical_path import median_run, story_name, story_runs, story_targets, waterfall
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


def test_the_batches_story_runs_and_its_waterfall_shows_each_row():
    """The second story (issue 27): its brief searches answer one after another, the pages come
    in batches, and the waterfall draws a row per model task and per service."""
    figures = bench_figures(
        "benchmarks.scenario",
        *("--story", "batches", "--mode", "quick", "--latency", "0.05"),
        *("--sources", "6", "--claims", "3"),
        timeout=300,
    )
    assert figures["story"] == "batches" and figures["status"] == "completed"
    assert figures["sources"] == 6  # the limit, out of the 6 + 30 pages the searches return
    tavily = sorted(
        (start, end) for service, start, end in figures["http_spans"] if service == "tavily"
    )
    # the brief's three searches come first; batch k answers (k + 1) * 0.4*L after it is asked
    # (a lower bound: a loaded machine only makes them longer)
    durations = sorted(end - start for start, end in tavily[:3])
    step = 0.4 * 0.05
    assert [round(d / step, 1) >= k + 0.9 for k, d in enumerate(durations)] == [True] * 3
    drawn = waterfall("quick", figures).splitlines()
    rows = {line.split(" x")[0].strip() for line in drawn[2:]}
    assert {"model SearchPlan", "model SourceDigest", "http tavily", "http jina"} <= rows
    assert all(set(line.split()[-1]) <= {"#", "."} for line in drawn[2:])


def test_the_story_target_is_held_by_the_median_of_three():
    def run(wall: float) -> dict:
        return {"wall_s": wall / 2, "wall_per_L": wall}

    results = {story_name("quick", n + 1): run(w) for n, w in enumerate((11.0, 13.5, 11.8))}
    results[story_name("detailed", 1)] = run(9.0)  # one of three: not a median of three
    (quick, detailed) = story_targets(results)
    assert quick[1] is True and "11.8*L" in quick[2]  # one slow run does not fail it
    assert detailed[1] is False
    assert median_run(story_runs(results, "quick"))["wall_per_L"] == 11.8
