"""Webhooks of a session run by the CLI against the fake model: every event delivered by the
time it exits, a slow endpoint never holding up the turn, bad settings named precisely."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.teams.workers import add_tasks, finish, start_worker
from tether.observe.records import read_records
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.workers import task_answers

from .sink_server import SinkServer

Run = Callable[..., CliResult]


def _settings(workspace: Path, data: dict[str, Any]) -> None:
    (workspace / ".tether").mkdir(exist_ok=True)
    (workspace / ".tether" / "settings.local.json").write_text(json.dumps(data))


def test_every_event_reaches_the_webhook_before_exit(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    _settings(workspace, {"webhooks": [{"url": sink_server.url}]})
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    result = tether("-p", "say hi", "--trust-workspace")
    assert result.exit_code == 0, result.stderr
    records = read_records(Path(os.environ["TETHER_HOME"]))
    received = sink_server.in_order()
    stream = json.loads(received[0].body)["stream"]
    logged = [r.to_json(seq=n, stream=stream).encode() for n, r in enumerate(records, 1)]
    assert [r.body for r in received] == logged
    assert "webhook" not in result.stderr, result.stderr


def test_a_continued_session_is_numbered_apart(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    """The same session continued by a second process: its records are a new stream, so no
    (stream, seq) comes twice (by session and seq, two records were numbered 1)."""
    _settings(workspace, {"webhooks": [{"url": sink_server.url}]})
    fake_model.script(reply(text("one")), reply(text("two")))
    assert tether("-p", "first", "--trust-workspace").exit_code == 0
    assert tether("-p", "-c", "second", "--trust-workspace").exit_code == 0
    bodies = [json.loads(r.body) for r in sink_server.received]
    keys = [(b["stream"], b["seq"]) for b in bodies]
    assert len(set(keys)) == len(keys)
    assert len({b["session_id"] for b in bodies}) == 1  # one session, two streams
    assert len({b["stream"] for b in bodies}) == 2
    for stream in {b["stream"] for b in bodies}:  # each numbered from 1 without a gap
        numbers = sorted(b["seq"] for b in bodies if b["stream"] == stream)
        assert numbers == list(range(1, len(numbers) + 1))


def test_a_slow_endpoint_gets_every_event_before_exit(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    # An endpoint taking a second an answer, six events: one at a time it got what fitted in
    # the 3 s given at exit ("5 of 6 events not delivered"); side by side, all of them.
    _settings(workspace, {"webhooks": [{"url": sink_server.url, "events": ["tool_finished"]}]})
    sink_server.delay_s = 1.0
    fake_model.script(
        *(reply(tool_use("Bash", command=f"echo {n}")) for n in range(6)), reply(text("done"))
    )
    result = tether("-p", "run them", "--trust-workspace")
    assert result.exit_code == 0, result.stderr
    assert "webhook" not in result.stderr, result.stderr
    bodies = [json.loads(r.body) for r in sink_server.in_order()]
    assert [(b["kind"], b["seq"]) for b in bodies] == [("tool_finished", n) for n in range(1, 7)]


def test_a_slow_endpoint_never_holds_up_the_turn(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    _settings(
        workspace,
        # A timeout longer than any run: a request held is never tried again (on a busy
        # machine a run took over the 5 s default, and the first record was posted twice).
        {
            "webhooks": [
                {
                    "url": sink_server.url,
                    "events": ["tool_started", "tool_finished"],
                    "timeout": 120,
                }
            ]
        },
    )
    sink_server.hold()  # not one answer until the run is over
    fake_model.script(
        reply(tool_use("Bash", command="echo one")),
        reply(tool_use("Bash", command="echo two")),
        reply(text("done")),
    )
    result = tether("-p", "run both", "--trust-workspace", "--output-format", "json")
    assert sink_server.answered == 0
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["result"] == "done"
    # Both tools ran and the turn ended while the first event was still waiting for an answer.
    records = list(read_records(Path(os.environ["TETHER_HOME"])))
    kinds = [r.kind for r in records]
    assert kinds.count("tool_finished") == 2
    assert "turn_finished" in kinds
    # The four on their way at once, none answered: sent, so they may have arrived (they
    # were said "not sent before exit"); then the last record, telling the receiver so.
    bodies = [json.loads(r.body) for r in sink_server.in_order()]
    assert [b["kind"] for b in bodies] == ["tool_started", "tool_finished"] * 2 + [
        "webhook_dropped"
    ], [(b["seq"], b["kind"], b["ts"]) for b in bodies]
    host = sink_server.url.removesuffix("/hook")
    message = f"webhook {host}: 4 of 4 events sent, unanswered at exit: may have arrived"
    assert f"tether: {message}" in result.stderr
    assert records[-1].kind == "webhook_dropped"
    assert records[-1].payload == {"message": message}
    assert bodies[-1]["seq"] == 5
    assert bodies[-1]["payload"] == {
        "message": message,
        "offered": 4,
        "lost": {},
        "first_seq": None,
        "last_seq": None,
        "unanswered": [1, 2, 3, 4],
    }
    sink_server.release()


def test_a_webhook_that_cannot_be_used_is_named_and_off_and_the_run_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    """A monitoring sink never holds up the agent: a wrong webhook (a `secretEnv` not set, as
    in a CI run without secrets; a typo) is warned about, naming its entry and key, and is
    off; the good one beside it is sent to. (A number out of its range skips its whole file,
    as every such number does: tests/config/test_settings_keys.py.)"""
    cases = [
        (
            {"webhooks": {"url": "x"}},
            'settings key "webhooks" must be a list of objects; no webhook is on',
        ),
        ({"webhooks": [{"url": "ftp://x"}]}, '"webhooks[0].url" must be an http:// or https://'),
        (
            {"webhooks": [{"url": "http://127.0.0.1:99999/w"}]},
            '"webhooks[0].url" must be an http:// or https:// URL (Port out of range 0-65535)',
        ),
        (
            {"webhooks": [{"url": "http://127.0.0.1:abc/w"}]},
            '"webhooks[0].url" must be an http:// or https:// URL (Port could not be cast',
        ),
        (
            {"webhooks": [{"url": "http://127.0.0.1:9/", "events": ["tool_done"]}]},
            "\"webhooks[0].events\": 'tool_done' is not an event kind (known: block_completed,",
        ),
        (
            {"webhooks": [{"url": "http://127.0.0.1:9/", "format": "xml"}]},
            '"webhooks[0].format" must be "json" or "slack", not \'xml\'',
        ),
        (
            {"webhooks": [{"url": "http://127.0.0.1:9/", "secretEnv": "NO_SUCH_SECRET_VAR"}]},
            '"webhooks[0].secretEnv" names NO_SUCH_SECRET_VAR, which is not set',
        ),
        (
            {"webhooks": [{"url": "http://127.0.0.1:9/", "retries": 3}]},
            '"webhooks[0]" has unknown field(s) retries',
        ),
    ]
    for settings, message in cases:
        webhooks = settings["webhooks"]
        if isinstance(webhooks, list):  # a good webhook beside the bad one
            settings = {"webhooks": [{"url": f"{sink_server.url}/good"}, *webhooks]}
            message = message.replace("webhooks[0]", "webhooks[1]")
        _settings(workspace, settings)
        sink_server.received.clear()
        fake_model.script(reply(text("ran")))
        result = tether("-p", "hi", "--trust-workspace")
        assert (result.exit_code, result.stdout) == (0, "ran\n"), (settings, result.stderr)
        [warning] = [line for line in result.stderr.splitlines() if "webhook" in line]
        assert message in warning, (settings, result.stderr)
        off = "; this webhook is off" if isinstance(webhooks, list) else "; no webhook is on"
        assert warning.endswith(off), warning
        paths = {received.path.rsplit("/", 1)[-1] for received in sink_server.received}
        assert paths == ({"good"} if isinstance(webhooks, list) else set()), settings


def test_an_untrusted_workspace_sends_nothing_to_its_webhooks(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    _settings(workspace, {"webhooks": [{"url": sink_server.url}]})
    fake_model.script(reply(text("done")))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert sink_server.received == []


def test_a_workers_sessions_share_its_webhooks_until_it_exits(
    tmp_path: Path, model_env: FakeModelServer, sink_server: SinkServer
) -> None:
    # The sinks are the process's: a task's session ending does not wait for them (each end
    # gave them 3 s, so a worker with a dead endpoint took 3 s more per task); the worker's
    # exit does, and says once what they lost, for every task together.
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main"], cwd=repo, check=True)
    _settings(repo, {"webhooks": [{"url": sink_server.url, "events": ["turn_finished"]}]})
    sink_server.hold()
    model_env.responder = task_answers(lambda task_id, _: reply(text(f"done {task_id}")))
    add_tasks(repo, [], "first", "second")
    code, _, err = finish(start_worker(repo, "--until-idle", "--trust-workspace"))
    sink_server.release()
    assert code == 0, err
    reports = [line for line in err.splitlines() if "webhook" in line]
    assert len(reports) == 1, err
    assert "2 of 2 events sent, unanswered at exit: may have arrived" in reports[0]


def test_each_of_two_webhooks_tells_its_receiver_what_it_lost_though_one_never_answers(
    fake_model: FakeModelServer, tether: Run, workspace: Path, sink_server: SinkServer
) -> None:
    """Closed one after another, the first endpoint (never answering) took the whole time
    given at exit and the second was never sent its last record; side by side, each is."""
    other = SinkServer()
    try:
        hooks = [
            {"url": s.url, "events": ["tool_finished"], "timeout": 120}
            for s in (sink_server, other)
        ]
        _settings(workspace, {"webhooks": hooks})
        sink_server.hold()  # neither answers until the run is over
        other.hold()
        fake_model.script(
            *(reply(tool_use("Bash", command=f"echo {n}")) for n in range(2)), reply(text("done"))
        )
        result = tether("-p", "run them", "--trust-workspace")
        assert result.exit_code == 0, result.stderr
        for server in (sink_server, other):
            kinds = [json.loads(r.body)["kind"] for r in server.in_order()]
            assert kinds == ["tool_finished"] * 2 + ["webhook_dropped"], (server.url, kinds)
            host = server.url.removesuffix("/hook")
            assert f"webhook {host}: 2 of 2 events sent, unanswered at exit" in result.stderr
    finally:
        other.stop()
