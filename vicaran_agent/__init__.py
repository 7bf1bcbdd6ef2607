"""Vicaran: an investigation assistant for journalists, built on Google's ADK."""

from . import agent

__all__ = ["agent"]
