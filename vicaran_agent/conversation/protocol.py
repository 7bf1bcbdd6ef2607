"""The conversation's fixed names: the plan's marker, the pipeline's agent, the orchestrator's page
tool, how many refused transfers a turn may see, the statuses of a finished run."""

from __future__ import annotations

PLAN_MARKER = "[PLAN_APPROVAL_REQUIRED]"
PIPELINE_NAME = "investigation_pipeline"
ANALYZE_SOURCE = "analyze_source"
MAX_REFUSALS = 2
FINISHED = ("completed", "partial", "failed")
