"""Fixtures of the store tests."""

from .task_stores import open_store, store, store_url, team

__all__ = ["open_store", "store", "store_url", "team"]
