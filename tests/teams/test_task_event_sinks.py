"""Every task lifecycle event, whoever makes it (a worker, `tether tasks add|retry|rm`, a claim
that finds a lease expired), takes one path: the event log and the webhooks of the settings in
force (the user's here), in the same records."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.observe.sink_server import SinkServer
from tether.observe.records import read_records
from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store
from tether.testing import FakeModelServer
from tether.testing.workers import done_text, task_answers

from .workers import add_tasks, finish, start_worker, tether


def _changes_logged() -> list[tuple[str | None, str, str]]:
    records = read_records(Path(os.environ["TETHER_HOME"]))
    return [
        (r.task_id, r.payload["change"], r.payload["status"])
        for r in records
        if r.kind == "task_changed"
    ]


def _changes_posted(sink: SinkServer) -> list[tuple[str | None, str, str]]:
    bodies = [json.loads(r.body) for r in sink.received]
    return [
        (b["task_id"], b["payload"]["change"], b["payload"]["status"])
        for b in bodies
        if b["kind"] == "task_changed"
    ]


def test_every_task_change_reaches_the_log_and_the_webhooks_whoever_makes_it(
    repo: Path, model_env: FakeModelServer
) -> None:
    home = Path(os.environ["TETHER_HOME"])
    sink = SinkServer()
    try:
        hook = {"url": sink.url, "events": ["task_changed"]}
        (home / "settings.json").write_text(json.dumps({"webhooks": [hook]}))
        add_tasks(repo, [], "first", "second", "third")
        store = open_task_store(None, project=repo)
        try:
            failed = store.claim_next("someone")
            assert failed is not None
            assert failed.task_id == "1"
            store.fail(failed, "broke")
            # A claimer that dies: its lease runs out before anyone looks again.
            assert store.claim_next("dead", lease_s=0.001) is not None
            store.create(NewTask(subject="fourth"))
        finally:
            store.close()
        tether(repo, "tasks", "retry", "1")
        tether(repo, "tasks", "rm", "4")
        model_env.responder = task_answers(done_text)
        code, _, err = finish(start_worker(repo, "--until-idle"))
        assert code == 0, err
        logged = _changes_logged()
        # The store's own steps above (no process of tether's) are in neither.
        assert logged[:5] == [
            ("1", "created", "pending"),
            ("2", "created", "pending"),
            ("3", "created", "pending"),
            ("1", "retried", "pending"),
            ("4", "removed", "pending"),
        ]
        assert ("2", "lease_expired", "pending") in logged[5:]
        assert sorted(c for c in logged if c[1] == "completed") == [
            ("1", "completed", "completed"),
            ("2", "completed", "completed"),
            ("3", "completed", "completed"),
        ]
        # Posted side by side, they may come in any order (each body's `seq` gives its
        # process's order).
        assert sorted(_changes_posted(sink), key=repr) == sorted(logged, key=repr)
    finally:
        sink.stop()


def test_a_webhook_setting_the_tasks_command_cannot_use_is_named_and_off(
    repo: Path, model_env: FakeModelServer
) -> None:
    del model_env
    home = Path(os.environ["TETHER_HOME"])
    (home / "settings.json").write_text(json.dumps({"webhooks": [{"url": "ftp://x"}]}))
    from tether.testing.cli_runner import run_cli_process

    done = run_cli_process(["tasks", "add", "one"], env=dict(os.environ), cwd=repo, timeout_s=60)
    # Named, and off: the task is added all the same (as a run goes on with such a webhook).
    assert (done.exit_code, done.stdout) == (0, "1\n")
    assert done.stderr == (
        'tether: settings key "webhooks[0].url" must be an http:// or https:// URL '
        "(expected an http:// or https:// URL); this webhook is off\n"
    )
