"""The journalist's documents: parsed locally, split into passages, indexed, searched, followed.

Nothing here sends document text anywhere: passages reach only the configured model, in prompts.
"""
