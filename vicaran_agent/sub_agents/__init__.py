"""The pipeline stages."""
