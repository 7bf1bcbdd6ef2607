"""The evidence engine: each claim in its own loop of gathering, judging and the evidence rule."""
