"""The cost ledger: every model call, tool call, subagent, task and session, priced, in one
SQLite file under tether's home."""

from tether.ledger.db import LedgerError, LedgerFile, ledger_path
from tether.ledger.meter import CHARS_PER_TOKEN, ConversationMeter, Rates
from tether.ledger.recorder import LedgerRecorder
from tether.ledger.report import (
    GROUPINGS,
    CacheUnknown,
    Grouping,
    Line,
    breakdown,
    cache_unknown,
    parse_since,
    session_ids,
    unpriced,
)
from tether.ledger.writer import LedgerWriter

__all__ = [
    "CHARS_PER_TOKEN",
    "GROUPINGS",
    "CacheUnknown",
    "ConversationMeter",
    "Grouping",
    "LedgerError",
    "LedgerFile",
    "LedgerRecorder",
    "LedgerWriter",
    "Line",
    "Rates",
    "breakdown",
    "cache_unknown",
    "ledger_path",
    "parse_since",
    "session_ids",
    "unpriced",
]
