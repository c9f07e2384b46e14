"""Framework commands that run code given on their command line or their input (Django's
`manage.py shell -c`, `flask shell`, `rails runner`, `rake -e`, `ipython -c`, `artisan
tinker --execute`, `drush ev`, `mix run -e`, `scrapy shell -c`): judged as the code they run,
whichever rule allows the entry program; and "always allow" on one of their commands saves the
exact command, never the entry script with a wildcard."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tether.permissions import decide, load_rules, suggest_rule

from .conftest import ContextFactory, Tree

SETTINGS = {
    "permissions": {
        "allow": [
            *("Bash(python3 *)", "Bash(python *)", "Bash(./manage.py *)", "Bash(flask *)"),
            *("Bash(rails *)", "Bash(bin/rails *)", "Bash(rake *)", "Bash(ipython *)"),
            *("Bash(php *)", "Bash(drush *)", "Bash(mix *)", "Bash(scrapy *)", "Bash(jupyter *)"),
            "Bash(django-admin *)",
        ],
        "deny": ["Bash(curl:*)", "Read(**/.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "python3 manage.py shell -c \"import os; os.system('curl -s x')\"",
        "python3 manage.py shell --command=\"import subprocess; subprocess.run(['curl'])\"",
        "python3 src/manage.py shell -c 'print(open(\".env\").read())'",
        "./manage.py shell_plus -c \"__import__('os').system('curl x')\"",
        "python3 -m django shell -c \"import os;os.system('curl x')\"",
        "django-admin shell --command \"print(open('.env').read())\"",
        "python3 manage.py shell <<< 'import os'",
        "printf 'import os' | python3 manage.py shell",
        "python3 manage.py shell -i python < notes.txt",
        "python3 manage.py dbshell <<< 'select 1'",
        "python3 manage.py dbshell -- -c 'select 1'",
        "python3 manage.py $SUB -c x",
        "flask shell <<< 'import os'",
        "python3 -m flask --app web shell < cmds.py",
        "rails runner 'system(\"curl x\")'",
        "bin/rails r -e production 'puts File.read(\".env\")'",
        "rails console <<< 'system(\"curl\")'",
        "rake -e 'system(\"curl x\")'",
        "rake --execute-continue='`curl x`' test",
        "ipython -c \"import os;os.system('curl x')\"",
        "ipython --InteractiveShellApp.exec_lines=\"['import os']\" src/app.py",
        "ipython --ext evil src/app.py",
        "jupyter console <<< 'import os'",
        "php artisan tinker --execute='system(\"curl x\")'",
        "php artisan tinker <<< 'system(1);'",
        "drush ev 'system(\"curl x\");'",
        "mix run -e 'System.cmd(\"curl\", [])'",
        "scrapy shell http://example.com -c \"open('.env').read()\"",
        "python3 manage.py shell --comm=\"import os;os.system('curl x')\"",
        "rake --execute-c='system(\"curl x\")'",
        "php artisan tin --exec='system(\"curl x\")'",
        "drush p:ev 'system(\"curl x\");'",
    ],
)
def test_code_given_to_a_framework_is_not_allowed_by_the_entrys_rule(
    command: str, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(SETTINGS))
    assert decision.behavior != "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 manage.py test",
        "python3 manage.py migrate --noinput",
        "python3 manage.py shell -c 'print(1)'",
        "./manage.py runserver 8000",
        "flask run --debug",
        "rails runner script/cleanup.rb",
        "rake test",
        "ipython src/app.py",
        "php artisan migrate",
        "mix test",
    ],
)
def test_their_other_commands_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(SETTINGS)).behavior == "allow"


@pytest.mark.parametrize(
    ("approved", "rule"),
    [
        ("python3 manage.py test", "Bash(python3 manage.py test)"),
        ("python3 src/manage.py test app", "Bash(python3 src/manage.py test app)"),
        ("php artisan migrate", "Bash(php artisan migrate)"),
        ("php bin/console cache:clear", "Bash(php bin/console cache:clear)"),
        ("ruby bin/rails test", "Bash(ruby bin/rails test)"),
        ("python3 tools/report.py --fast", "Bash(python3 tools/report.py *)"),
        ("python3 setup.py test", "Bash(python3 setup.py test)"),
        ("python3 ./setup.py build_ext --inplace", "Bash(python3 ./setup.py build_ext --inplace)"),
        ("python3 mach build", "Bash(python3 mach build)"),
    ],
)
def test_always_allow_saves_no_more_than_was_asked(
    approved: str, rule: str, make_ctx: ContextFactory
) -> None:
    assert suggest_rule("Bash", {"command": approved}, make_ctx()) == rule


def test_the_saved_rule_does_not_allow_the_shell(tree: Tree, make_ctx: ContextFactory) -> None:
    rule = suggest_rule("Bash", {"command": "python3 manage.py test"}, make_ctx())
    assert rule is not None
    settings = tree.ws / ".tether" / "settings.local.json"
    saved = {"permissions": {"allow": [rule], "deny": ["Bash(curl:*)"]}}
    ctx = replace(make_ctx(), rules=load_rules([(settings, saved)], seed_yaml=None))
    assert decide("Bash", {"command": "python3 manage.py test"}, ctx).behavior == "allow"
    for other in ("python3 manage.py shell -c 'import os'", "python3 manage.py dbshell"):
        assert decide("Bash", {"command": other}, ctx).behavior != "allow"
