"""Vicaran's own web server: ADK's dev UI and API, the callback API and the dashboard."""
