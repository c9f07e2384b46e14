"""Which variables a sandboxed command gets: credentials go, by name or by value, and what
tools need to run stays. Both ways from one table, and live through the Bash tool."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tether.sandbox.environment import is_secret
from tether.tools.registry import ToolOutcome
from tether.tools.run_record import RunRecord, scratch_root

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

WITHHELD = {
    # The measured ones.
    "MYSQL_PWD": "hunter2",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/XYZ",
    "CI_JOB_JWT": "eyJhbGciOi",
    "DATABASE_URL": "postgres://db.example/app?password=hunter2",
    # By name.
    "PGPASSWORD": "x",
    "REDIS_PASS": "x",
    "SMTP_PW": "x",
    "DISCORD_WEBHOOK": "https://discord.example/api/webhooks/1/x",
    "CI_JOB_JWT_V2": "x",
    "SENTRY_DSN": "https://abc@o1.ingest.example/1",
    "OAUTH_CLIENT_ID": "x",
    "BASIC_AUTH_HEADER": "x",
    "RAILS_SESSION_SECRET": "x",
    "SESSION_STORE": "x",
    "BROWSER_COOKIE": "x",
    "DEPLOY_PRIVATE_KEY_PATH": "x",
    "GPG_PASSPHRASE": "x",
    "GH_ENTERPRISE_HOST_TOKEN": "x",
    "GH_HOST": "github.example",
    "GITHUB_PAT": "x",
    "GITLAB_CI_TOKEN": "x",
    "NPM_TOKEN": "x",
    "NPM_REGISTRY_TOKEN": "x",
    "HF_HUB_TOKEN": "x",
    "HUGGINGFACE_HUB_TOKEN": "x",
    "AZURE_STORAGE_CONNECTION_STRING": "x",
    "VAULT_ADDR": "https://vault.example",
    "COSIGN_SIGNING_KEY": "x",
    # By value, whatever the name.
    "REPO_REMOTE": "https://x-access-token:ghp_abc@github.com/o/r.git",
    "MIRROR": "https://ghp_abc@github.com/o/r.git",
    "UPSTREAM_FEED": "https://feed.example/rss?access_token=abc",
    "ARTIFACT": "https://bucket.example/f?X-Amz-Signature=abc&X-Amz-Expires=60",
    "API_ENDPOINT": "https://api.example/v1?api_key=abc",
    "STORAGE": "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==;",
    "SQLSERVER": "Server=db;Database=app;User Id=u;Password=hunter2;",
    # By a token's prefix, whatever the name.
    "UPSTREAM": "ghp_" + "a1B2" * 9,
    "GHO": "gho_" + "a1B2" * 9,
    "FINE_GRAINED": "github_pat_11ABCDEFG0abcdefghij_klmnopqrstuvwxyz",
    "CHAT": "xoxb-1234567890-0987654321-abcdefABCDEF",
    "CHAT_APP": "xapp-1-A0123-456-abcdef",
    "LLM": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "LLM2": "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
    "CLOUD_ID": "AKIAIOSFODNN7EXAMPLE",
    "CLOUD_TEMP": "ASIAIOSFODNN7EXAMPLE",
    "FORGE": "glpat-abcdefghij0123456789",
    "REGISTRY": "npm_" + "abcdef0123" * 4,
    "HUB": "hf_" + "abcdefghij" * 4,
    "PAYMENTS": "sk_live_" + "abcdef0123" * 3,
    "PAYMENTS_RESTRICTED": "rk_live_" + "abcdef0123" * 3,
    "MAPS": "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
    "BEARER": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
    "HEADER": "Bearer ghp_" + "a1B2" * 9,
    "QUOTED": '"sk-ant-api03-abcdefghijklmnopqrstuvwxyz"',
    "PYPI_UPLOAD": "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmFi",
    "SSH_IDENTITY": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk",
    "PEM": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA",
    "PGP_BLOCK": "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    "HUB_PAT": "dckr_pat_abcdefghijklmnopqrstuvwxyz1",
    "RUNNER": "glrt-abcdefghij1234567890",
    "VAULTED": "hvs.CAESIJabcdefghijklmnopqrstuvwxyz0123456789",
    "MAILER": "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789",
    "SHOP": "shpat_0123456789abcdef0123456789abcdef",
    "SLACK_APP": "xapp-1-A0123-456-abcdef",
    "SQUARE": "sq0csp-abcdefghijklmnopqrstuvwxyz0123",
    # A known prefix anywhere in the value, at the start of a word.
    "CLI_ARGS": "--verbose --token=ghp_" + "a1B2" * 9,
    "JSON_CONFIG": '{"token": "ghp_' + "a1B2" * 9 + '"}',
    "KV": "user=bob;token=xoxb-1234567890-0987654321-abcdefABCDEF",
    "LIST": "a,ghp_" + "a1B2" * 9,
    "LINES": "first line\nsk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "NPMRC_LINE": "//registry.npmjs.org/:_authToken=npm_" + "abcdef0123" * 4,
    # Whole name parts.
    "PRIVKEY": "x",
    "PASS": "x",
    "PW": "x",
    "DB_CREDS": "x",
    "KEY": "x",
    "KEY_FILE": "x",
    "HMAC": "x",
}

KEPT = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/u",
    "USER": "u",
    "LOGNAME": "u",
    "SHELL": "/bin/bash",
    "PWD": "/work",
    "OLDPWD": "/",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "xterm",
    "TZ": "UTC",
    "VIRTUAL_ENV": "/work/.venv",
    "GIT_AUTHOR_NAME": "A Person",
    "GIT_AUTHOR_EMAIL": "a@example.org",
    "GIT_COMMITTER_NAME": "A Person",
    "XDG_SESSION_TYPE": "tty",
    "SSH_ASKPASS": "/usr/bin/ssh-askpass",
    "EDITOR": "vi",
    "HTTP_PROXY": "http://proxy.example:3128",
    "PIP_INDEX_URL": "https://pypi.example/simple",
    "DOCS_URL": "https://docs.example/page?lang=en&q=keyboard",
    "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
    "NODE_ENV": "test",
    "JAVA_HOME": "/usr/lib/jvm/default",
    "PYTHONDONTWRITEBYTECODE": "1",
    # Words that start like a token but are none.
    "TZ_NAME": "Asia/Tokyo",
    "LOCALE": "sk-SK",
    "SKETCH": "sketchbook",
    "NPM_LIFECYCLE": "npm_config_cache",
    "DOWNLOADER": "hf_transfer",
    "SHORT": "AKIA",
    "EXIT": "xoxo",
    "LANGUAGE": "en_US:en",
    "TASK": "task-abcdefghijklmnopqrstuvwxyz",
    "KEYBOARD_LAYOUT": "us",
    "PASSENGER_APP_ENV": "production",
    "FOOTPRINT": "small",
    "MONKEY": "banana",
    "DISK_LABEL": "disk-abcdefghijklmnopqrstuvwxyz0123",
    "BANNER": "-----BEGIN PUBLIC KEY-----",
}


@pytest.mark.parametrize(("name", "value"), WITHHELD.items(), ids=list(WITHHELD))
def test_credentials_are_withheld(name: str, value: str) -> None:
    assert is_secret(name, value) is True


@pytest.mark.parametrize(("name", "value"), KEPT.items(), ids=list(KEPT))
def test_what_tools_need_is_kept(name: str, value: str) -> None:
    assert is_secret(name, value) is False


@needs_bwrap
async def test_the_command_gets_the_kept_and_not_the_withheld(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = ("MYSQL_PWD", "SLACK_WEBHOOK_URL", "CI_JOB_JWT", "DATABASE_URL", "MIRROR")
    for name in chosen:
        monkeypatch.setenv(name, WITHHELD[name])
    kept = ("GIT_AUTHOR_NAME", "VIRTUAL_ENV", "PIP_INDEX_URL")
    for name in kept:
        monkeypatch.setenv(name, KEPT[name])
    run = bash_runner(sandboxed_context(boundary))
    names = " ".join((*chosen, *kept))
    outcome = await run(command=f'for n in {names}; do echo "$n=${{!n-unset}}"; done')
    shown = [f"{n}=unset" for n in chosen] + [f"{n}={KEPT[n]}" for n in kept]
    assert outcome == ToolOutcome("\n".join(shown) + "", False)


@needs_bwrap
async def test_token_values_are_withheld_unless_listed(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value that starts like a token goes whatever its name; `sandbox.env` keeps one."""
    for name in ("UPSTREAM", "CHAT", "LLM", "CLOUD_ID", "BEARER"):
        monkeypatch.setenv(name, WITHHELD[name])
    run = bash_runner(sandboxed_context(boundary, env=("LLM",)))
    outcome = await run(
        command='for n in UPSTREAM CHAT LLM CLOUD_ID BEARER; do echo "$n=${!n-unset}"; done'
    )
    assert outcome == ToolOutcome(
        f"UPSTREAM=unset\nCHAT=unset\nLLM={WITHHELD['LLM']}\nCLOUD_ID=unset\nBEARER=unset",
        False,
    )


@needs_bwrap
async def test_tethers_own_variables_are_withheld_unless_listed(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The run's marker (`TETHER_RUN`, added by the Bash tool for the cleanup after a killed
    run) and any other `TETHER_*` go like the rest: bwrap's pid namespace ends what runs
    inside; `sandbox.env` keeps them."""
    monkeypatch.setenv("TETHER_MODEL", "m")
    home = tmp_path / "tether-home"
    record = RunRecord.start(home, scratch_dir=scratch_root(home) / "s1", session_id="s1")
    command = 'echo "run=${TETHER_RUN-unset} model=${TETHER_MODEL-unset}"'
    try:
        for keep, shown in (
            ((), "run=unset model=unset"),
            (("TETHER_RUN", "TETHER_MODEL"), f"run={record.marker} model=m"),
        ):
            ctx = dataclasses.replace(sandboxed_context(boundary, env=keep), run=record)
            outcome = await bash_runner(ctx)(command=command)
            assert outcome == ToolOutcome(shown, False)
    finally:
        record.close()
