"""One path for the task events a process makes outside a session (`tether worker`'s claims
and results, `tether tasks add|retry|rm`, `tether eval --team` and its workers, the leases
their claims find expired): its board wrapped in `ObservedTasks`, whose events go to the
event log and to the webhooks and OpenTelemetry of the settings in force, as a session's do."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path

from tether.cli.observing import process_events
from tether.cli.settings_in_force import settings_in_force
from tether.config.settings import tether_home
from tether.store.task_store import TaskStore
from tether.teams.task_events import ObservedTasks


def process_name(kind: str) -> str:
    """A process's name on the board and in the event log: `worker-PID@HOST`, `tasks-...`."""
    return f"{kind}-{os.getpid()}@{socket.gethostname()}"


def observed_store(
    store: TaskStore,
    by: str,
    *,
    project: Path,
    env: Mapping[str, str],
    trust_flag: bool = False,
    start: Path | None = None,
) -> tuple[ObservedTasks, Callable[[], None]]:
    """`store`, each change it records told as made by `by`; and what closes the events (call
    it before the process ends: what is queued is written). A `ConfigError` names a bad
    webhook or telemetry setting."""
    settings, in_force = settings_in_force(project, env, trust_flag=trust_flag, start=start)
    record, close = process_events(tether_home(env), by, settings=settings, env=in_force)
    return ObservedTasks(store, by=by, emit=record), close
