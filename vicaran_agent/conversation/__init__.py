"""The conversation with the journalist before the pipeline runs: their messages read by code
(`messages`), the plan (`planning`), files sent while planning (`attachments`), the approval gate
(`gate`) and the orchestrator's callbacks that tie them together (`turns`); the fixed names of
the protocol in `protocol`."""
