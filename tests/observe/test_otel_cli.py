"""OpenTelemetry over the wire: `tether -p` against the fake model, its metrics and spans sent
over OTLP/HTTP to a receiver in the test, decoded with the protocol's protobuf classes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.agents.conftest import MAIN, Router
from tests.teams.workers import add_tasks, finish, start_worker
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process
from tether.testing.workers import task_answers

from .otlp import Span, points, spans, total
from .sink_server import SinkServer

MAIN_USAGE = {
    "input_tokens": 120,
    "output_tokens": 30,
    "cache_read_input_tokens": 400,
    "cache_creation_input_tokens": 50,
}
SUB_USAGE = {
    "input_tokens": 70,
    "output_tokens": 9,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}


def _env(receiver: SinkServer | str, **more: str) -> dict[str, str]:
    base = receiver if isinstance(receiver, str) else receiver.url.rsplit("/", 1)[0]
    return {
        **os.environ,
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": base,
        "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20t0ken,x-team=core",
        **more,
    }


def _run(workspace: Path, env: dict[str, str], *argv: str) -> CliResult:
    return run_cli_process(
        ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", *argv],
        env=env,
        cwd=workspace,
    )


def _by_id(found: list[Span]) -> dict[str, Span]:
    return {s.span_id: s for s in found}


def test_a_session_with_a_subagent_exports_metrics_and_linked_spans(
    fake_model: FakeModelServer, model_env: object, workspace: Path, sink_server: SinkServer
) -> None:
    (workspace / "notes.txt").write_text("the key is 7\n")
    routes = Router()
    routes.add(
        MAIN,
        reply(
            tool_use(
                "Task", description="find the key", prompt="find-key: read notes.txt",
                subagent_type="Explore",
            ),
            usage=MAIN_USAGE,
        ),
        reply(text("The key is 7."), usage=MAIN_USAGE),
    )  # fmt: skip
    routes.add(
        "find-key",
        reply(tool_use("Read", file_path="notes.txt"), usage=SUB_USAGE),
        reply(text("7"), usage=SUB_USAGE),
    )
    routes.install(fake_model)
    result = _run(workspace, _env(sink_server), "-p", "what is the key?", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert "telemetry" not in result.stderr, result.stderr
    session_id = json.loads(result.stdout)["session_id"]
    received = sink_server.received
    assert {r.path for r in received} == {"/v1/traces", "/v1/metrics"}
    assert all(r.headers["authorization"] == "Bearer t0ken" for r in received)
    assert all(r.headers["x-team"] == "core" for r in received)
    assert all(r.headers["content-type"] == "application/x-protobuf" for r in received)

    found = spans(received)
    ids = _by_id(found)
    [turn] = [s for s in found if s.name == "invoke_agent main"]
    assert turn.parent_id == ""
    assert turn.attributes["session.id"] == session_id
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.resource["service.name"] == "tether"
    assert {s.trace_id for s in found} == {turn.trace_id}  # one turn, one trace

    chats = [s for s in found if s.name.startswith("chat ")]
    assert len(chats) == 4
    main_chats = [s for s in chats if s.parent_id == turn.span_id]
    assert len(main_chats) == 2
    for chat in main_chats:
        a = chat.attributes
        assert a["gen_ai.operation.name"] == "chat"
        assert a["gen_ai.provider.name"] == a["gen_ai.system"] == "anthropic"
        assert a["gen_ai.request.model"] == a["gen_ai.response.model"]
        assert a["gen_ai.usage.output_tokens"] == 30
        assert a["gen_ai.usage.cache_read.input_tokens"] == 400
        assert a["gen_ai.usage.cache_creation.input_tokens"] == 50
        assert a["gen_ai.usage.input_tokens"] == 120 + 400 + 50
        assert chat.start_ns <= chat.end_ns
    assert sorted(c.attributes["gen_ai.response.finish_reasons"] for c in main_chats) == [
        ("end_turn",),
        ("tool_use",),
    ]

    [task_call] = [s for s in found if s.name == "execute_tool Task"]
    assert task_call.parent_id == turn.span_id
    assert task_call.attributes["gen_ai.tool.name"] == "Task"
    assert task_call.attributes["decision"] == "accept"
    [subagent] = [s for s in found if s.name == "invoke_agent Explore"]
    assert subagent.parent_id == task_call.span_id
    child = subagent.attributes["gen_ai.agent.id"]
    assert subagent.attributes["gen_ai.tool.call.id"] == task_call.attributes["gen_ai.tool.call.id"]
    [read] = [s for s in found if s.name == "execute_tool Read"]
    assert read.parent_id == subagent.span_id
    assert read.attributes["tether.agent.id"] == child
    sub_chats = [s for s in chats if s.parent_id == subagent.span_id]
    assert [c.attributes["gen_ai.usage.input_tokens"] for c in sub_chats] == [70, 70]
    for span in found:  # every child within its parent
        parent = ids.get(span.parent_id)
        if parent is not None:
            assert parent.start_ns <= span.start_ns <= span.end_ns <= parent.end_ns, span.name

    got = points(received)
    assert total(got, "tether.session.count", **{"session.id": session_id}) == 1
    model = main_chats[0].attributes["gen_ai.response.model"]
    for kind, field in [
        ("input", "input_tokens"),
        ("output", "output_tokens"),
        ("cacheRead", "cache_read_input_tokens"),
        ("cacheCreation", "cache_creation_input_tokens"),
    ]:
        want = 2 * MAIN_USAGE[field] + 2 * SUB_USAGE[field]
        assert total(got, "tether.token.usage", type=kind) == want, kind
        assert total(got, "tether.token.usage", type=kind, model=model) == want
    assert total(got, "tether.token.usage", **{"tether.agent.id": child}) == 2 * (70 + 9)
    assert {p.unit for p in got if p.metric == "tether.token.usage"} == {"tokens"}
    cost = json.loads(result.stdout)["total_cost_usd"]
    assert abs(total(got, "tether.cost.usage") - cost) < 1e-9
    assert total(got, "tether.active_time.total", type="cli") > 0


def test_a_workers_tasks_are_traces_of_their_own(
    tmp_path: Path, model_env: FakeModelServer, sink_server: SinkServer
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main"], cwd=repo, check=True)
    model_env.responder = task_answers(
        lambda task_id, _: reply(text(f"done {task_id}"), usage=SUB_USAGE)
    )
    add_tasks(repo, [], "first", "second")
    env = _env(sink_server, OTEL_METRICS_INCLUDE_VERSION="true")
    code, _, err = finish(start_worker(repo, "--until-idle", "--trust-workspace", env=env))
    assert code == 0, err
    assert "telemetry" not in err, err

    found = spans(sink_server.received)
    ids = _by_id(found)
    tasks = [s for s in found if s.name == "tether.task"]
    assert sorted(s.attributes["tether.task.id"] for s in tasks) == ["1", "2"]
    assert all(s.parent_id == "" for s in tasks)
    assert len({s.trace_id for s in tasks}) == 2  # a task is a trace
    for task in tasks:
        task_id = task.attributes["tether.task.id"]
        [turn] = [
            s for s in found if s.name.startswith("invoke_agent") and s.trace_id == task.trace_id
        ]
        assert turn.parent_id == task.span_id
        assert turn.attributes["tether.task.id"] == task_id
        [chat] = [s for s in found if s.name.startswith("chat ") and s.trace_id == task.trace_id]
        assert ids[chat.parent_id] == turn
        assert chat.attributes["gen_ai.usage.input_tokens"] == SUB_USAGE["input_tokens"]
        assert task.start_ns <= turn.start_ns <= turn.end_ns <= task.end_ns

    got = points(sink_server.received)
    for task_id in ("1", "2"):
        assert total(got, "tether.token.usage", type="output", **{"tether.task.id": task_id}) == 9
        assert total(got, "tether.session.count", **{"tether.task.id": task_id}) == 1
    assert {p.attributes.get("app.version") for p in got} != {None}


def test_a_dead_collector_never_holds_up_the_session(
    fake_model: FakeModelServer, model_env: object, workspace: Path, sink_server: SinkServer
) -> None:
    # The collector takes every request and never answers; exports are due every millisecond
    # while the turn runs and each may wait a minute: the turn ends all the same, and the exit
    # gives them its few seconds and says what was not taken.
    sink_server.hold()
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    env = _env(
        sink_server,
        OTEL_BSP_SCHEDULE_DELAY="1",
        OTEL_METRIC_EXPORT_INTERVAL="1",
        OTEL_EXPORTER_OTLP_TIMEOUT="60000",
    )
    result = _run(workspace, env, "-p", "say hi")
    sink_server.release()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "done"
    assert "telemetry: the collector did not take everything before exit" in result.stderr


def test_a_collector_that_refuses_connections_costs_nothing_but_a_line(
    fake_model: FakeModelServer, model_env: object, workspace: Path, refused_port: int
) -> None:
    fake_model.script(reply(text("done")))
    env = {
        **os.environ,
        "TETHER_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{refused_port}",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "500",
    }
    result = _run(workspace, env, "-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "done"
    # the SDK's retries and failures kept off the terminal: one line of tether's says them
    [said] = result.stderr.splitlines()
    assert said.startswith("tether: telemetry: "), said
    assert "export problems" in said


def test_the_endpoints_secrets_never_reach_the_terminal_in_the_sdks_errors(
    fake_model: FakeModelServer, model_env: object, workspace: Path, refused_port: int
) -> None:
    fake_model.script(reply(text("done")))
    env = {
        **os.environ,
        "TETHER_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",  # its exporter's error quotes the URL it was given
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://e:S3KRET@127.0.0.1:{refused_port}?t=Q-S3KRET#a",
    }
    result = _run(workspace, env, "-p", "hi")
    assert result.exit_code == 0, result.stderr
    # the SDK's error is said, tether's words whole (the user name `e` and fragment `a` are
    # not cut out of every word)...
    assert result.stderr.startswith("tether: telemetry: "), result.stderr
    assert "export problems (first: " in result.stderr, result.stderr
    assert "S3KRET" not in result.stderr  # ...without the query or password it quotes


def test_bad_telemetry_variables_are_named_before_the_session_starts(
    fake_model: FakeModelServer, model_env: object, workspace: Path
) -> None:
    cases = {
        "OTEL_METRICS_EXPORTER": ("jaeger", "tether exports otlp, console or none"),
        "OTEL_METRIC_EXPORT_INTERVAL": ("soon", "expected a whole number of milliseconds"),
        "OTEL_EXPORTER_OTLP_HEADERS": ("Authorization", "'Authorization' is not key=value"),
        "OTEL_EXPORTER_OTLP_ENDPOINT": ("collector:4318", "expected an http:// or https:// URL"),
        "OTEL_EXPORTER_OTLP_TIMEOUT": ("99999999999999999999", "expected at most 2147483647"),
    }
    for name, (value, said) in cases.items():
        env = {**_env("http://127.0.0.1:9"), name: value}
        result = _run(workspace, env, "-p", "hi")
        assert result.exit_code != 0, name
        assert f"{name}={value!r}" in result.stderr or f"{name}: " in result.stderr, result.stderr
        assert said in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    spaced = {**_env("http://127.0.0.1:1/ x")}
    result = _run(workspace, spaced, "-p", "hi")
    assert result.exit_code != 0
    assert "holds no spaces" in result.stderr, result.stderr
    assert fake_model.requests == []


def test_what_tether_cannot_export_is_said_once_and_the_session_runs(
    fake_model: FakeModelServer, model_env: object, workspace: Path, sink_server: SinkServer
) -> None:
    # Claude Code's quick start: grpc (its package is not installed here), logs exported.
    fake_model.script(reply(text("done")))
    quick_start = {
        **_env("http://127.0.0.1:9"),
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
        "OTEL_LOGS_EXPORTER": "otlp",
    }
    result = _run(workspace, quick_start, "-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "done"
    assert result.stderr.splitlines() == [
        "tether: telemetry: OTEL_LOGS_EXPORTER='otlp': tether exports metrics and traces, "
        "not logs or events",
        "tether: telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs "
        "opentelemetry-exporter-otlp-proto-grpc installed "
        "(pip install opentelemetry-exporter-otlp-proto-grpc), or use http/protobuf; "
        "metrics and traces not exported that way",
    ]
    # prometheus for metrics: traces still go over OTLP
    fake_model.script(reply(text("done")))
    result = _run(workspace, _env(sink_server, OTEL_METRICS_EXPORTER="prometheus"), "-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        "tether: telemetry: OTEL_METRICS_EXPORTER=prometheus: tether serves no Prometheus "
        "endpoint; metrics not exported that way"
    ]
    assert "invoke_agent main" in [s.name for s in spans(sink_server.received)]
    assert {r.path for r in sink_server.received} == {"/v1/traces"}


def test_telemetry_without_the_sdk_installed_is_one_clear_line(
    fake_model: FakeModelServer, model_env: object, workspace: Path
) -> None:
    # The SDK made unimportable in the child, as on an install without tether[otel].
    code = (
        "import runpy, sys; sys.modules['opentelemetry.sdk'] = None; "
        "sys.argv = ['tether', *sys.argv[1:]]; runpy.run_module('tether', run_name='__main__')"
    )
    env = {**os.environ, "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "otlp"}
    done = subprocess.run(
        [sys.executable, "-c", code, "--cwd", str(workspace), "-p", "hi"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert "telemetry is enabled but the OpenTelemetry SDK is not installed" in line
    assert "pip install 'tether[otel]'" in line
    assert fake_model.requests == []


def test_lines_commits_and_edit_decisions_are_counted(
    fake_model: FakeModelServer, model_env: object, workspace: Path, sink_server: SinkServer
) -> None:
    subprocess.run(["git", "init", "--quiet"], cwd=workspace, check=True)
    commit = "git add -A && git -c user.name=t -c user.email=t@e commit --quiet -m add"
    fake_model.script(
        reply(tool_use("Write", file_path="app.py", content="a = 1\nb = 2\nc = 3\n")),
        reply(tool_use("Edit", file_path="app.py", old_string="b = 2\n", new_string="")),
        reply(tool_use("Bash", command=commit)),
        reply(text("done")),
    )
    env = _env(sink_server)
    result = run_cli_process(
        ["--cwd", str(workspace), "--permission-mode", "dontAsk",
         "--allowedTools", "Write", "Bash", "-p", "add app.py"],
        env=env, cwd=workspace,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    got = points(sink_server.received)
    write = {"tool_name": "Write", "decision": "accept", "source": "config", "language": "Python"}
    assert total(got, "tether.code_edit_tool.decision", **write) == 1
    edit = {"tool_name": "Edit", "decision": "reject", "source": "config", "language": "Python"}
    assert total(got, "tether.code_edit_tool.decision", **edit) == 1
    assert total(got, "tether.lines_of_code.count", type="added") == 3
    assert total(got, "tether.lines_of_code.count", type="removed") == 0
    assert total(got, "tether.commit.count") == 1
    assert total(got, "tether.pull_request.count") == 0
    found = spans(sink_server.received)
    [denied] = [s for s in found if s.name == "execute_tool Edit"]
    assert denied.attributes["decision"] == "reject"
    assert denied.attributes["success"] is False


def test_with_telemetry_off_nothing_of_opentelemetry_is_imported(
    fake_model: FakeModelServer, model_env: object, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    code = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules\n"
        "    if m.startswith(('opentelemetry', 'tether.observe.otel_'))), file=sys.stderr))\n"
        "sys.argv = ['tether', *sys.argv[1:]]\n"
        "runpy.run_module('tether', run_name='__main__')\n"
    )
    env = {**os.environ, "OTEL_METRICS_EXPORTER": "otlp", "OTEL_TRACES_EXPORTER": "otlp"}
    env.pop("CLAUDE_CODE_ENABLE_TELEMETRY", None)
    env.pop("TETHER_ENABLE_TELEMETRY", None)
    done = subprocess.run(
        [sys.executable, "-c", code, "--cwd", str(workspace), "-p", "hi",
         "--permission-mode", "bypassPermissions"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_telemetry_turned_on_by_the_settings_env_as_claude_codes_is(
    fake_model: FakeModelServer, model_env: object, workspace: Path, sink_server: SinkServer
) -> None:
    variables = _env(sink_server)
    settings_env = {k: v for k, v in variables.items() if k not in os.environ}
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.local.json").write_text(json.dumps({"env": settings_env}))
    fake_model.script(reply(text("done"), usage=SUB_USAGE))
    result = _run(workspace, dict(os.environ), "-p", "hi", "--trust-workspace")
    assert result.exit_code == 0, result.stderr
    got = points(sink_server.received)
    assert total(got, "tether.token.usage", type="input") == SUB_USAGE["input_tokens"]
    assert "invoke_agent main" in [s.name for s in spans(sink_server.received)]
