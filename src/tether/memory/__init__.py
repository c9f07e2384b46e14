"""Semantic memory: what the model chose to remember about a project, found again by meaning
and by words (see README.md). Nothing here is imported before memory is used."""
