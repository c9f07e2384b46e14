"""Credentials that lie outside the home: hidden in the sandbox like the home's deny list.

Two kinds. Credential stores that the usual variables move out of the home (CI images set
`CARGO_HOME`, `XDG_CONFIG_HOME`, `DOCKER_CONFIG`, `KUBECONFIG` routinely): each variable
stands for a place of the home (`RELOCATING`), and what the deny list (`SECRETS_IN_HOME`)
hides at or in that place is hidden where the variable points, the way `TETHER_HOME` and
`CLAUDE_CONFIG_DIR` are followed. A variable that only names credentials (`NETRC`,
`GNUPGHOME`...) is withheld from the command too: it would only say where they were.

And root's own secrets in /etc (`ROOT_SECRETS`): as root the command's uid is root's outside,
so the owner bits of `/etc/shadow` or a host key let it read them; file modes guard them only
from other users. They are hidden when tether runs as root (for anyone else the modes hold).
"""

from __future__ import annotations

import glob
import os
import pwd
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

from tether.slotted import Slotted


class Relocating(Slotted):
    """A variable that moves a place of the home elsewhere."""

    __slots__ = ("is_list", "only_credentials", "place", "variable")
    variable: Final[str]
    place: Final[str | None]
    """The place of the home it stands for (`.docker`, `.aws/credentials`); None: a file
    that is a credential wherever it is, with no place in the home the deny list names (an
    age key, a vault password file, a client certificate's key): hidden where it points."""
    only_credentials: Final[bool]
    """It names nothing but credentials: withheld from the command as well."""
    is_list: Final[bool]
    """A `:`-separated list of paths (`KUBECONFIG`)."""

    def __init__(
        self, variable: str, place: str | None, only_credentials: bool, is_list: bool = False
    ) -> None:
        self.variable = variable
        self.place = place
        self.only_credentials = only_credentials
        self.is_list = is_list


RELOCATING: tuple[Relocating, ...] = (
    Relocating("XDG_CONFIG_HOME", ".config", False),
    Relocating("XDG_DATA_HOME", ".local/share", False),
    Relocating("XDG_CACHE_HOME", ".cache", False),
    Relocating("CARGO_HOME", ".cargo", False),
    Relocating("GRADLE_USER_HOME", ".gradle", False),
    Relocating("HF_HOME", ".cache/huggingface", False),
    Relocating("KUBECONFIG", ".kube/config", True, is_list=True),
    Relocating("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials", True),
    Relocating("AWS_CONFIG_FILE", ".aws/config", True),
    Relocating("AWS_WEB_IDENTITY_TOKEN_FILE", ".aws/web-identity-token", True),
    Relocating("NETRC", ".netrc", True),
    Relocating("DOCKER_CONFIG", ".docker", True),
    Relocating("REGISTRY_AUTH_FILE", ".docker/config.json", True),
    Relocating("GNUPGHOME", ".gnupg", True),
    Relocating("PASSWORD_STORE_DIR", ".password-store", True),
    Relocating("GOOGLE_APPLICATION_CREDENTIALS", ".config/gcloud/credentials.json", True),
    Relocating("CLOUDSDK_CONFIG", ".config/gcloud", True),
    Relocating("AZURE_CONFIG_DIR", ".azure", True),
    Relocating("OCI_CLI_CONFIG_FILE", ".oci/config", True),
    Relocating("GH_CONFIG_DIR", ".config/gh", True),
    Relocating("NPM_CONFIG_USERCONFIG", ".npmrc", True),
    Relocating("npm_config_userconfig", ".npmrc", True),
    Relocating("PIP_CONFIG_FILE", ".config/pip/pip.conf", True),
    Relocating("PGPASSFILE", ".pgpass", True),
    Relocating("BOTO_CONFIG", ".boto", True),
    Relocating("TF_CLI_CONFIG_FILE", ".terraformrc", True),
    Relocating("KAGGLE_CONFIG_DIR", ".kaggle", True),
    Relocating("PULUMI_HOME", ".pulumi", True),
    Relocating("HF_TOKEN_PATH", ".cache/huggingface/token", True),
    Relocating("CLAUDE_CONFIG_DIR", ".claude", True),
    Relocating("MYSQL_TEST_LOGIN_FILE", ".mylogin.cnf", True),
    Relocating("RCLONE_CONFIG", ".config/rclone/rclone.conf", True),
    Relocating("POETRY_CONFIG_DIR", ".config/pypoetry", False),
    Relocating("DOCKER_CERT_PATH", ".docker", True),
    Relocating("COMPOSER_HOME", ".composer", False),
    Relocating("DATABRICKS_CONFIG_FILE", ".databrickscfg", True),
    Relocating("S3CMD_CONFIG", ".s3cfg", True),
    Relocating("SBT_CREDENTIALS", ".sbt/.credentials", True),
    Relocating("TELEPORT_HOME", ".tsh", True),
    Relocating("VAGRANT_HOME", ".vagrant.d", False),
    Relocating("DBT_PROFILES_DIR", ".dbt", False),
    Relocating("HELM_REGISTRY_CONFIG", ".config/helm/registry/config.json", True),
    Relocating("KUBE_CONFIG_PATH", ".kube/config", True),
    Relocating("VAULT_CONFIG_PATH", ".vault-token", True),
    Relocating("GIT_CONFIG_GLOBAL", None, False),
    *(
        Relocating(name, None, True)
        for name in (
            "SOPS_AGE_KEY_FILE",
            "SOPS_AGE_SSH_PRIVATE_KEY_FILE",
            "ANSIBLE_VAULT_PASSWORD_FILE",
            "PGSERVICEFILE",
            "CONDARC",
            "OP_CONFIG_DIR",
            "GOOGLE_GHA_CREDS_PATH",
            "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
            "AZURE_CLIENT_CERTIFICATE_PATH",
            "AZURE_FEDERATED_TOKEN_FILE",
            "VAULT_CLIENT_KEY",
            "PIP_CLIENT_CERT",
            "GIT_SSL_KEY",
            "GIT_SSL_CERT",
            "KRB5_KTNAME",
            "KRB5_CLIENT_KTNAME",
            "BUNDLE_USER_CONFIG",
        )
    ),
)
"""Variables that move a place of the home (what the tool reads there instead). A variable
that names more than credentials (`XDG_CONFIG_HOME`, `CARGO_HOME`: tools need it to run) is
passed; what the deny list hides in its place is hidden where it points. The last group name
credential files that have no place in the home's deny list (an age key for sops, Ansible's
vault password file, libpq's service file with its passwords, conda's rc with channel tokens,
client certificates' keys, keytabs): hidden where they point, whole."""

ROOT_SECRETS: tuple[str, ...] = (
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
    "/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private", "/etc/pki/tls/private",
    "/etc/letsencrypt/archive", "/etc/letsencrypt/keys", "/etc/ssh/ssh_host_*_key",
)  # fmt: skip
"""root's secrets outside its home (globs): password hashes and their backups, sudo's rules,
the host's TLS and ssh private keys. `/etc/passwd`, `/etc/group`, the public host keys and
`ssh_config` stay readable: `getent`, `id` and the ssh client need them."""

NEVER_HIDDEN = tuple(
    Path(p) for p in ("/", "/usr", "/etc", "/opt", "/var", "/bin", "/lib", "/home", "/root", "/tmp")
)
"""Places a variable may name that are never covered whole (`XDG_CONFIG_HOME=/etc`): too much
of the system would go with them."""


def relocated_secrets(
    environ: Mapping[str, str], secrets: Iterable[str], keep: Iterable[Path]
) -> list[Path]:
    """What to hide where the `RELOCATING` variables of `environ` point: for each, the home's
    credential places (`secrets`, relative to the home) at or in its place, at the same
    relative path; the whole target when its place lies in a credential place (`.kube/config`
    in `.kube`). Never `NEVER_HIDDEN`, nor a place that is or holds one of `keep` (the
    writable roots: covering them would hide the workspace)."""
    places = tuple(secrets)
    kept = tuple(keep)
    found: list[Path] = []
    for entry in RELOCATING:
        value = environ.get(entry.variable, "")
        for named in value.split(":") if entry.is_list else [value]:
            named = named.removeprefix("FILE:")  # Kerberos' keytab names: FILE:/path
            if not named.startswith("/"):
                continue
            target = Path(os.path.abspath(named))
            hidden = [""] if entry.place is None else _hidden_in(entry.place, places)
            for relative in hidden:
                path = target / relative if relative else target
                if path not in NEVER_HIDDEN and not any(k.is_relative_to(path) for k in kept):
                    found.append(path)
    return list(dict.fromkeys(found))


def _hidden_in(place: str, secrets: tuple[str, ...]) -> list[str]:
    """Relative to `place`, what the deny list hides there: "" for the whole of it."""
    if any(place == s or place.startswith(s + "/") for s in secrets):
        return [""]
    prefix = place + "/"
    return [s[len(prefix) :] for s in secrets if s.startswith(prefix)]


def only_credentials(name: str) -> bool:
    """Whether `name` is a variable that names nothing but credentials (withheld)."""
    return name in _ONLY_CREDENTIALS


_ONLY_CREDENTIALS = frozenset(e.variable for e in RELOCATING if e.only_credentials)


def root_secrets() -> list[Path]:
    """`ROOT_SECRETS` present here when tether runs as root; none otherwise."""
    if os.geteuid() != 0:
        return []
    return [Path(p) for pattern in ROOT_SECRETS for p in sorted(glob.glob(pattern))]


OTHER_HOME_SECRETS: tuple[str, ...] = (".gitconfig",)
"""Besides the deny list, hidden in a home of the user that is not `$HOME`: git's user config
(credential helpers, tokens in `url.*.insteadOf`). In `$HOME` it is hidden with the rest of
the home, and the identity it holds is passed in the environment."""


def passwd_homes(home: Path, uid: int | None = None) -> list[Path]:
    """The homes the passwd database names for `uid` (the process's real uid by default)
    besides `home`, resolved: with `HOME` set elsewhere (a CI job, a container, `sudo -E`)
    the user's own home is still where its tools keep credentials, and its owner bits let the
    command read them."""
    uid = os.getuid() if uid is None else uid
    try:
        entries = [e for e in pwd.getpwall() if e.pw_uid == uid]
    except OSError:
        return []
    found: list[Path] = []
    for entry in entries:
        if not entry.pw_dir.startswith("/"):
            continue
        place = Path(os.path.realpath(entry.pw_dir))
        if place != home:
            found.append(place)
    return list(dict.fromkeys(found))


def passwd_home_secrets(home: Path, secrets: Iterable[str], keep: Iterable[Path]) -> list[Path]:
    """What to hide in `passwd_homes`: the credential places of a home (`secrets`, relative)
    and `OTHER_HOME_SECRETS`, but never a place that is or holds one of `keep` (the writable
    roots)."""
    kept = tuple(keep)
    relatives = (*secrets, *OTHER_HOME_SECRETS)
    found: list[Path] = []
    for other in passwd_homes(home):
        # Only a root in that home can be in one of its places: the others are not compared
        # with each of its hundred places (at every start with HOME elsewhere: a CI job, a
        # container, the Agent SDK's own tests).
        inside = [k for k in kept if k.is_relative_to(other)]
        places = (other / relative for relative in relatives)
        found += (p for p in places if not any(k.is_relative_to(p) for k in inside))
    return found
