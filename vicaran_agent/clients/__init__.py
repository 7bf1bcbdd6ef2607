"""Vicaran's clients of the outside world: guarded HTTP, retries and request budgets; Tavily,
Jina Reader and direct page reading, Fact Check Tools, Querido Diário, live Google Search."""
