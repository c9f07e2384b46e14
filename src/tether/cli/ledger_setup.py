"""A session's costs recorded in the ledger (`tether.ledger`): its events observed from the
start, under its task's id when a worker runs it and its teammate's name when it is one."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from tether.cli.teams_tools import TEAMMATE_ENV
from tether.cli.terminal_text import terminal_safe
from tether.core.session import Session
from tether.ledger import LedgerError, LedgerFile, LedgerRecorder, Rates, ledger_path
from tether.models.catalogue import MODELS, ModelInfo
from tether.teams.board import lent_claims

LEDGER_OFF_ENV = "TETHER_NO_LEDGER"
"""Set (to anything but empty) to record nothing in the ledger."""


def rates_of(info: ModelInfo) -> Rates:
    return Rates(
        info.input_per_mtok,
        info.output_per_mtok,
        info.cache_write_per_mtok,
        info.cache_read_per_mtok,
    )


def attach_ledger(
    session: Session, *, home: Path, env: Mapping[str, str], info: ModelInfo
) -> LedgerRecorder | None:
    """Record `session` in the ledger under `home`; a ledger that cannot be opened is said on
    stderr and the session runs unrecorded."""
    if env.get(LEDGER_OFF_ENV):
        return None

    def warn(message: str) -> None:
        print(f"tether: {terminal_safe(message)}", file=sys.stderr)

    try:
        ledger = LedgerFile(ledger_path(home))
    except LedgerError as e:
        warn(f"{e}; this session's costs are not recorded")
        return None

    def rates_for(model_id: str) -> Rates:
        known = MODELS.get(model_id)
        if known is not None:
            return rates_of(known)
        return rates_of(info) if model_id == info.id else Rates()

    task_id = next(iter(lent_claims(env)), None)
    recorder = LedgerRecorder(
        ledger,
        session_id=session.session_id,
        rates_for=rates_for,
        warn=warn,
        task_id=task_id,
        agent_id=env.get(TEAMMATE_ENV) or "main",
    )
    recorder.started(info.id, str(session.agent.tool_context.workspace), session.messages)
    session.observers.append(recorder.observe)

    async def close() -> None:
        recorder.close()

    session.on_close.append(close)
    return recorder
