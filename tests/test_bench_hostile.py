"""The hostile documents benchmark's figures read as its targets say (the run itself is minutes
long: `uv run python -m benchmarks.hostile`)."""

from __future__ import annotations

from typing import Any

from benchmarks import hostile


def figures(peak_mib: int, slowest_s: float, alone_s: float) -> dict[str, Any]:
    one = {"file": "one-stream.pdf", "bytes": 296_214, "seconds": alone_s, "status": "added"}
    one |= {"reason": "", "pages": 2000, "passages": 12_578, "pages_not_read": 1950}
    return {
        "alone": {"files": [one | {"ocr_pages": 0}]},
        "served": {
            "server_alive": True,
            "plan_s": 45.0,
            "statuses": {"drawing.pdf": "unreadable", "epa-memo.md": "added"},
            "ocr_seconds_used": 30.0,
            "tree_peak_rss_mib": peak_mib,
            "tree_peak_pss_mib": peak_mib - 80,
            "server_peak_rss_mib": 378,
            "peak_processes": 5,
            "healthz_answers": 600,
            "healthz_problems": [],
            "slowest_healthz_s": slowest_s,
        },
    }


def test_the_targets_hold_the_server_and_its_parsers_to_1_5_gb_and_health_to_1_s() -> None:
    met = [ok for _, ok, _ in hostile.targets(figures(1394, 0.7, 6.7))]
    assert met == [True, True, True]
    met = [ok for _, ok, _ in hostile.targets(figures(1600, 1.2, 75.0))]
    assert met == [False, False, False]
    text = "\n".join(hostile.lines(figures(1394, 0.7, 6.7)))
    assert "RSS 1,394 MiB summed" in text and "1,950 pages not read" in text
