"""Code a framework, server or task runner runs besides the workspace's: an app spec that is a
call (`flask --app 'mod:f(...)'`, `FLASK_APP`, `gunicorn 'mod:make(...)'`) is that Python code;
a configuration, task file or application directory outside the workspace is code no rule has
seen (asked, whatever rule allows the interpreter)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {
    "permissions": {
        "allow": ["Bash(python3:*)", "Bash(node:*)", "Bash(flask:*)", "Bash(gunicorn:*)"],
        "deny": ["Bash(wget:*)", "Read(**/.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        'python3 -m flask -A \'subprocess:check_output(["wget", "x"])\' routes',
        "flask --ap='subprocess:run(\"wget x\", shell=True)' run",
        "FLASK_APP='subprocess:getstatusoutput(\"wget x\")' flask routes",
        "env FLASK_APP='subprocess:Popen(\"wget x\", shell=True)' python3 -m flask run",
        'python3 -m gunicorn -w 2 \'subprocess:call(["wget", "x"])\'',
        "python3 -m hypercorn 'os:popen(\"wget x\")'",
        "python3 -m uvicorn --factory 'subprocess:getoutput(\"cat .env\")'",
    ],
)
def test_an_app_spec_call_is_judged_as_its_code(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m flask --app {outside}/site.py routes",
        "flask -A {outside}/pkg/wsgi:app run",
        "FLASK_APP={outside}/site.py python3 -m flask routes",
        "python3 manage.py migrate --pythonpath {outside} --settings site_settings",
        "python3 -m django check --pythonpath={outside}",
        "python3 -m gunicorn -c {outside}/conf.py app:app",
        "python3 -m gunicorn --chdir {outside} app:app",
        "python3 -m uvicorn --app-dir {outside} app:app",
        "python3 -m papermill {outside}/run.ipynb out.ipynb",
        "python3 -m streamlit run {outside}/dash.py",
        "python3 -m streamlit run https://example.com/dash.py",
        "python3 -m scrapy runspider {outside}/spider.py",
        "python3 -m alembic --config {outside}/alembic.ini upgrade head",
        "python3 -m nox --force-python {outside}/python",
        "python3 -m doit --file {outside}/dodo.py",
        "python3 -m doit -d {outside}",
        "python3 -m poethepoet --root {outside} build",
        "python3 -m SCons --sconstruct={outside}/SConstruct",
        "python3 -m snakemake --snakefile {outside}/Snakefile",
        "python3 -m mkdocs serve --config-file {outside}/mkdocs.yml",
        "python3 -m prospector --profile-path {outside}",
        "node --openssl-config {outside}/openssl.cnf src/app.js",
    ],
)
def test_code_from_outside_the_workspace_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m flask --app src/app.py routes",
        "FLASK_APP=src.app python3 -m flask run --debug",
        "python3 -m gunicorn -w 4 -b 127.0.0.1:8000 src.app:app",
        "python3 -m uvicorn src.app:app --reload",
        "python3 manage.py migrate --settings project.settings",
        "python3 -m mkdocs build -f mkdocs.yml",
        "python3 -m doit -f dodo.py",
        "python3 -m streamlit run src/app.py",
        "python3 -m nox --force-python 3.12",
    ],
)
def test_the_workspace_s_own_stays_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
