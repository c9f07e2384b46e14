"""A board task's change is in the event log by the time the store step that made it returns:
a process killed right after it (a worker SIGKILLed between recording a completion and
anything else) leaves no task the board says completed without its event."""

from __future__ import annotations

from pathlib import Path

from tether.cli.board_events import observed_store
from tether.observe.records import read_records
from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store


def test_each_change_is_written_before_its_step_returns(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"TETHER_HOME": str(home), "HOME": str(tmp_path)}
    (tmp_path / "project").mkdir()
    opened = open_task_store(None, project=tmp_path / "project")
    store, close = observed_store(opened, "worker-1@here", project=tmp_path / "project", env=env)
    try:
        seen: list[list[str]] = []

        def logged() -> list[str]:
            return [
                str(r.payload["change"]) for r in read_records(home) if r.kind == "task_changed"
            ]

        store.create(NewTask(subject="one"))
        seen.append(logged())
        claim = store.claim_next("worker-1@here")
        assert claim is not None
        seen.append(logged())
        store.complete(claim, "done")
        seen.append(logged())  # read at once: nothing waited for the writer
        assert seen == [
            ["created"],
            ["created", "claimed"],
            ["created", "claimed", "completed"],
        ]
    finally:
        store.close()
        close()
