"""Credential files that other variables name (an age key for sops, Ansible's vault password,
rclone's and MySQL's login files, libpq's service file, gradle's and poetry's, docker's client
key, conda's rc): hidden where they point, and the variables that name only credentials
withheld."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.sandbox import SECRETS_IN_HOME
from tether.sandbox.environment import is_secret
from tether.sandbox.outside_home import relocated_secrets

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

PLACES = {
    "SOPS_AGE_KEY_FILE": ("sops/keys.txt", "sops/keys.txt"),
    "ANSIBLE_VAULT_PASSWORD_FILE": ("vault-pass", "vault-pass"),
    "RCLONE_CONFIG": ("rclone.conf", "rclone.conf"),
    "MYSQL_TEST_LOGIN_FILE": ("mylogin.cnf", "mylogin.cnf"),
    "PGSERVICEFILE": ("pg_service.conf", "pg_service.conf"),
    "GRADLE_USER_HOME": ("gradle", "gradle/gradle.properties"),
    "POETRY_CONFIG_DIR": ("poetry", "poetry/auth.toml"),
    "DOCKER_CERT_PATH": ("dockercerts", "dockercerts/key.pem"),
    "CONDARC": ("condarc", "condarc"),
    "KRB5_KTNAME": ("FILE:{base}/krb5.keytab", "krb5.keytab"),
    "VAULT_CLIENT_KEY": ("vault-client.key", "vault-client.key"),
    "GIT_CONFIG_GLOBAL": ("gitconfig", "gitconfig"),
}
"""Variable: (its value under the base, the sentinel file below the base)."""


def _value(base: Path, value: str) -> str:
    return value.format(base=base) if "{base}" in value else f"{base}/{value}"


@needs_bwrap
async def test_files_named_by_credential_variables_read_as_empty(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = boundary.outside
    environ = {"PATH": "/usr/bin:/bin"}
    for name, (value, sentinel) in PLACES.items():
        (base / sentinel).parent.mkdir(parents=True, exist_ok=True)
        (base / sentinel).write_text(f"SENTINEL {name}\n")
        environ[name] = _value(base, value)
        monkeypatch.setenv(name, environ[name])
    (base / "gradle/caches").mkdir()
    (base / "gradle/caches/kept").write_text("a cache\n")
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary, environ))
    sentinels = " ".join(str(base / s) for _, s in PLACES.values())
    outcome = await run(
        command=f"cat {sentinels} {base}/gradle/caches/kept 2>/dev/null; "
        "env | cut -d= -f1 | grep -E '^(" + "|".join(PLACES) + ")$' | sort"
    )
    assert outcome.content.splitlines() == [
        "a cache",
        "GIT_CONFIG_GLOBAL",
        "GRADLE_USER_HOME",
        "POETRY_CONFIG_DIR",
    ], outcome.content


def test_a_credential_file_without_a_home_place_is_hidden_whole() -> None:
    environ = {
        "SOPS_AGE_KEY_FILE": "/srv/keys/age.txt",
        "KRB5_KTNAME": "FILE:/srv/krb5.keytab",
        "PGSERVICEFILE": "relative/pg_service.conf",
        "CONDARC": "/srv/work/.condarc",
    }
    found = relocated_secrets(environ, SECRETS_IN_HOME, keep=(Path("/srv/work"),))
    # A file in a writable root is hidden (only a root itself, or one holding it, is not).
    assert set(found) == {
        Path("/srv/work/.condarc"),
        Path("/srv/keys/age.txt"),
        Path("/srv/krb5.keytab"),
    }


@pytest.mark.parametrize(
    ("name", "withheld"),
    [
        ("SOPS_AGE_KEY_FILE", True),
        ("ANSIBLE_VAULT_PASSWORD_FILE", True),
        ("RCLONE_CONFIG", True),
        ("MYSQL_TEST_LOGIN_FILE", True),
        ("PGSERVICEFILE", True),
        ("DOCKER_CERT_PATH", True),
        ("POETRY_CONFIG_DIR", False),
        ("COMPOSER_HOME", False),
    ],
)
def test_variables_naming_only_credential_files_are_withheld(name: str, withheld: bool) -> None:
    assert is_secret(name, "/srv/somewhere") is withheld
