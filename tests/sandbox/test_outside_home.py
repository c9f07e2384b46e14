"""Credential stores that the usual variables move out of the home are hidden where they
point, as the home's deny list hides them in the home; the variables that name nothing but
credentials are withheld."""

from __future__ import annotations

import os
import pwd
import shlex
from pathlib import Path

import pytest

from tether.sandbox import SECRETS_IN_HOME
from tether.sandbox.environment import is_secret
from tether.sandbox.outside_home import passwd_home_secrets, passwd_homes, relocated_secrets

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

SENTINELS = {
    "kube/one": "KUBECONFIG",
    "kube/two": "KUBECONFIG",
    "aws/creds": "AWS_SHARED_CREDENTIALS_FILE",
    "aws/conf": "AWS_CONFIG_FILE",
    "netrc": "NETRC",
    "docker/config.json": "DOCKER_CONFIG",
    "gnupg/private-keys-v1.d/k.key": "GNUPGHOME",
    "gcp.json": "GOOGLE_APPLICATION_CREDENTIALS",
    "gcloud/credentials.db": "CLOUDSDK_CONFIG",
    "azure/msal_token_cache.json": "AZURE_CONFIG_DIR",
    "xdg/gh/hosts.yml": "XDG_CONFIG_HOME",
    "cargo/credentials.toml": "CARGO_HOME",
    "cargo/credentials": "CARGO_HOME",
    "ghdir/hosts.yml": "GH_CONFIG_DIR",
    "npm/npmrc": "NPM_CONFIG_USERCONFIG",
}


def environment(base: Path) -> dict[str, str]:
    """The variables, each pointing at its place under `base`."""
    places = {
        "KUBECONFIG": f"{base}/kube/one:{base}/kube/two",
        "AWS_SHARED_CREDENTIALS_FILE": f"{base}/aws/creds",
        "AWS_CONFIG_FILE": f"{base}/aws/conf",
        "NETRC": f"{base}/netrc",
        "DOCKER_CONFIG": f"{base}/docker",
        "GNUPGHOME": f"{base}/gnupg",
        "GOOGLE_APPLICATION_CREDENTIALS": f"{base}/gcp.json",
        "CLOUDSDK_CONFIG": f"{base}/gcloud",
        "AZURE_CONFIG_DIR": f"{base}/azure",
        "XDG_CONFIG_HOME": f"{base}/xdg",
        "CARGO_HOME": f"{base}/cargo",
        "GH_CONFIG_DIR": f"{base}/ghdir",
        "NPM_CONFIG_USERCONFIG": f"{base}/npm/npmrc",
    }
    return {"PATH": "/usr/bin:/bin", **places}


@needs_bwrap
async def test_relocated_credential_stores_read_as_empty(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each sentinel unreadable; cargo's programs beside its credentials readable; the
    variables that only point at credentials withheld, the others passed."""
    base = boundary.outside
    for relative in [*SENTINELS, "cargo/bin/tool"]:
        (base / relative).parent.mkdir(parents=True, exist_ok=True)
        (base / relative).write_text(f"SENTINEL {relative}\n")
    boundary.hand_over()
    environ = environment(base)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    run = bash_runner(sandboxed_context(boundary, environ))
    outcome = await run(
        command="cat " + " ".join(str(base / r) for r in SENTINELS) + " 2>/dev/null; "
        f"cat {base}/cargo/bin/tool; "
        "env | cut -d= -f1 | grep -E '^(KUBECONFIG|NETRC|GNUPGHOME|DOCKER_CONFIG|"
        "XDG_CONFIG_HOME|CARGO_HOME|GH_CONFIG_DIR|NPM_CONFIG_USERCONFIG|CLOUDSDK_CONFIG)$' | sort"
    )
    assert outcome.content.splitlines() == [
        "SENTINEL cargo/bin/tool",
        "CARGO_HOME",
        "XDG_CONFIG_HOME",
    ], outcome.content


def test_what_the_deny_list_hides_is_followed_to_where_a_variable_points() -> None:
    environ = {
        "CARGO_HOME": "/srv/cargo",
        "XDG_DATA_HOME": "/srv/data",
        "XDG_CACHE_HOME": "/srv/cache",
        "KUBECONFIG": "/srv/k1:relative:/srv/k2",
        "GNUPGHOME": "/srv/gpg",
    }
    assert relocated_secrets(environ, SECRETS_IN_HOME, keep=()) == [
        Path("/srv/data/keyrings"),
        Path("/srv/data/fish"),
        Path("/srv/data/recently-used.xbel"),
        Path("/srv/data/com.vercel.cli"),
        Path("/srv/cache/huggingface/token"),
        Path("/srv/cache/huggingface/stored_tokens"),
        Path("/srv/cargo/credentials"),
        Path("/srv/cargo/credentials.toml"),
        Path("/srv/k1"),
        Path("/srv/k2"),
        Path("/srv/gpg"),
    ]


def test_a_variable_naming_a_system_place_or_a_writable_root_hides_nothing_of_it() -> None:
    environ = {
        "XDG_CONFIG_HOME": "/etc",
        "DOCKER_CONFIG": "/",
        "GNUPGHOME": "/srv/work",
        "NETRC": "/srv/work/project",
        "AZURE_CONFIG_DIR": "/srv/work/project/.azure",
    }
    found = relocated_secrets(environ, SECRETS_IN_HOME, keep=(Path("/srv/work/project"),))
    assert found == [Path("/srv/work/project/.azure")]


@pytest.mark.parametrize(
    ("name", "withheld"),
    [
        ("GNUPGHOME", True),
        ("NETRC", True),
        ("AWS_CONFIG_FILE", True),
        ("PGPASSFILE", True),
        ("npm_config_userconfig", True),
        ("XDG_CONFIG_HOME", False),
        ("CARGO_HOME", False),
        ("GRADLE_USER_HOME", False),
    ],
)
def test_variables_that_only_point_at_credentials_are_withheld(name: str, withheld: bool) -> None:
    assert is_secret(name, "/srv/somewhere") is withheld


def _passwd_home() -> Path:
    return Path(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))


def test_the_passwd_home_is_a_home_whatever_home_says(tmp_path: Path) -> None:
    real = _passwd_home()
    assert real in passwd_homes(tmp_path)
    assert real not in passwd_homes(real)
    hidden = passwd_home_secrets(tmp_path, SECRETS_IN_HOME, keep=())
    assert {real / ".ssh", real / ".config", real / ".tether", real / ".gitconfig"} <= set(hidden)
    # A writable root in one of them is not covered.
    assert real / ".config" not in passwd_home_secrets(
        tmp_path, SECRETS_IN_HOME, keep=(real / ".config" / "project",)
    )


@needs_bwrap
async def test_the_passwd_homes_credentials_are_hidden_with_home_elsewhere(
    boundary: Layout,
) -> None:
    """HOME is the layout's; the credential places that exist in the home the passwd database
    names for this uid (root's /root here) read as empty inside. Nothing is written there:
    what the machine has is read."""
    if boundary.unprivileged:
        pytest.skip("bwrap runs as another user, whose passwd home is not this process's")
    real = _passwd_home()
    present = [
        real / p
        for p in (*SECRETS_IN_HOME, ".gitconfig")
        if ((real / p).is_file() and (real / p).stat().st_size)
        or ((real / p).is_dir() and any((real / p).iterdir()))
    ]
    if not present:
        pytest.skip(f"no credential place with content in {real}")
    run = bash_runner(sandboxed_context(boundary))
    listed = " ".join(shlex.quote(str(p)) for p in present)
    outcome = await run(
        command=f'for p in {listed}; do if [ -d "$p" ]; then ls -A "$p"; '
        'else cat "$p"; fi; done 2>&1; echo end'
    )
    assert outcome.content == "end"
