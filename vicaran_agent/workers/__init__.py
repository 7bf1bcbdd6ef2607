"""Untrusted parsing in capped worker processes: the pool, the starter and its workers."""
