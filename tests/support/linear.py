"""Linear-time guards that load cannot break.

A cost is this thread's CPU time (`time.thread_time`: other processes do not count), compared
as a ratio to a benign input of the same size measured in the same test, with no absolute floor.
Each measurement repeats a call until it has taken a few milliseconds of CPU, so timer resolution
and a stray cache miss do not decide the ratio. A backtracking regex or a quadratic scan misses
by orders of magnitude, not by the slack.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

SLACK = 20  # how many times a benign input of the same size a hostile one may cost
MEASURE_SECONDS = 0.005  # CPU time one measurement lasts at least (a quick call is repeated)
MAX_REPEATS = 200


def cpu_seconds(call: Callable[[Any], object], value: Any, repeats: int = 1) -> float:
    """This thread's CPU time for `repeats` calls of `call(value)` (the garbage collector off:
    its pauses depend on the whole process's heap, not on the input)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.thread_time()
        for _ in range(repeats):
            call(value)
        return time.thread_time() - started
    finally:
        if enabled:
            gc.enable()


def per_call(call: Callable[[Any], object], value: Any) -> float:
    """CPU seconds of one call, from enough calls to last about MEASURE_SECONDS."""
    once = cpu_seconds(call, value)
    repeats = min(MAX_REPEATS, int(MEASURE_SECONDS / max(once, 1e-6)))
    if repeats <= 1:
        return once
    return cpu_seconds(call, value, repeats) / repeats


def cost_ratio(
    call: Callable[[Any], object], benign: Any, hostile: Any, *, runs: int = 3, slack=SLACK
) -> tuple[float, float]:
    """(hostile cost, benign cost) per call. Past the bound, both are measured again, up to
    `runs` times in all, and each keeps its least (a second look before failing); far past
    it (ten times), not again."""
    baseline = per_call(call, benign)
    spent = per_call(call, hostile)
    for _ in range(runs - 1):
        if spent <= slack * baseline or spent > 10 * slack * baseline:
            break
        baseline = min(baseline, per_call(call, benign))
        spent = min(spent, per_call(call, hostile))
    return spent, baseline


def assert_linear(
    call: Callable[[Any], object], benign: Any, hostile: Any, *, runs: int = 3, slack=SLACK
) -> None:
    """`call(hostile)` costs at most `slack` times `call(benign)` (inputs of the same size)."""
    spent, baseline = cost_ratio(call, benign, hostile, runs=runs, slack=slack)
    assert spent <= slack * baseline, (
        f"{spent * 1000:.2f} ms of CPU for the hostile input, {baseline * 1000:.3f} ms for a "
        f"benign one: {spent / baseline:.1f} times, more than {slack}"
    )
