"""App servers, frameworks and task queues load code and configuration from the files their
options name (server_options.py): a Python configuration, a logging configuration that calls
factories, a PasteDeploy file, an env file naming the application, a directory put on
`sys.path`. From outside the workspace that is code no rule has seen: asked, in every spelling
the program's option parser takes."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

SERVERS = ["gunicorn", "uvicorn", "hypercorn", "granian", "flask", "celery", "dramatiq", "rq"]
ALLOW = [f"Bash({name} *)" for name in SERVERS] + ["Bash(python3 *)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Bash(curl *)", "Read(**/.env)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "gunicorn -Rcfile:{outside}/conf.py web:app",
        "gunicorn --conf=file:{outside}/conf.py web:app",
        "gunicorn --log-config-j {outside}/logging.json web:app",
        "gunicorn --pythonpath src,{outside} web:app",
        "python3 -m gunicorn --paster={outside}/deploy.ini",
        "hypercorn -c file:{outside}/h.py web:app",
        "python3 -m hypercorn --log-con toml:{outside}/log.toml web:app",
        "uvicorn --app-dir {outside} web:app",
        "granian --interface asgi --log-config {outside}/log.json web:app",
        "flask -e {outside}/vars.env routes",
        "python3 -m celery --config {outside}/celeryconf.py -A proj worker",
        "dramatiq --path {outside} tasks",
        "rq worker -P {outside} default",
    ],
)
def test_server_configuration_from_outside_asks(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)
    assert "outside the workspace" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "gunicorn -c gunicorn.conf.py web:app",
        "gunicorn -c python:deploy.gunicorn web:app",
        "gunicorn -bunix:/run/web.sock -w 4 web:app",
        "gunicorn --log-config-dict '{\"version\": 1}' web:app",
        "uvicorn --log-config log.yaml --reload web:app",
        "hypercorn --config config/app.toml web:app",
        "celery --config celeryconfig -A proj worker",
        "rq worker -c settings default",
        "flask --app web routes",
    ],
)
def test_workspace_configuration_stays_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_a_logging_dictionary_factory_is_judged_as_code(make_ctx: ContextFactory) -> None:
    command = (
        "gunicorn --log-config-dict "
        '\'{"version": 1, "handlers": {"h": {"()": "os.abort"}}}\' web:app'
    )
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", verdict.reason


def test_a_logging_dictionary_that_is_no_json_is_not_seen(make_ctx: ContextFactory) -> None:
    verdict = decide(
        "Bash", {"command": 'gunicorn --log-config-dict "$LOGS" web:app'}, make_ctx(RULES)
    )
    assert verdict.behavior != "allow", verdict.reason
    assert "not seen" in verdict.reason


@pytest.mark.parametrize(
    ("env_file", "command"),
    [
        (".flaskenv", "flask routes"),
        ("api/.flaskenv", "cd api && python3 -m flask shell"),
        ("vars/dev.env", "flask --env-file vars/dev.env run"),
    ],
)
def test_flask_app_from_an_env_file_is_judged_as_its_code(
    env_file: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.ws / "api").mkdir()
    path = tree.ws / env_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('# dev\nexport FLASK_APP=\'subprocess:check_call(["curl", "-I", "x"])\'\n')
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", verdict.reason
    assert "FLASK_APP" in verdict.reason


def test_flask_app_from_an_env_file_that_is_a_module_stays_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.ws / ".flaskenv").write_text("FLASK_APP=web:create_app\nFLASK_DEBUG=1\n")
    verdict = decide("Bash", {"command": "flask run"}, make_ctx(RULES))
    assert verdict.behavior == "allow", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "export GUNICORN_CMD_ARGS='--paste /x/app.ini'; gunicorn",
        "GUNICORN_CMD_ARGS='--bind 0 -c /x/conf.py' gunicorn web:app",
        "UVICORN_LOG_CONFIG=/x/log.ini uvicorn web:app",
        "env GRANIAN_WORKING_DIR=/x granian web:app",
    ],
)
def test_server_options_set_through_the_environment_are_asked(
    command: str, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": [*ALLOW, "Bash(export *)", "Bash(env *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "ask", (command, verdict.reason)
