"""Fixtures of the store tests."""

from .mailbox_stores import mailbox_url, mailboxes, open_mailboxes
from .task_stores import open_store, store, store_url, team

__all__ = ["mailbox_url", "mailboxes", "open_mailboxes", "open_store", "store", "store_url", "team"]
