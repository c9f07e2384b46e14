"""Programs that reach hosts by ssh through lists, URLs or configured remotes: parallel
shells (`pdsh -w`, `pssh -H`, a group or hosts file: any host), duplicity's ssh-family URLs
(`sftp://`, `pexpect+scp://`, rsync over ssh), rclone's `:sftp:` backends and named remotes
(whose type lives in a configuration tether does not read), and podman's remote daemons
(`--url ssh://`, `--remote`): a rule denying ssh (or any Bash deny rule, for a remote daemon)
holds for them in every mode."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

PROGRAMS = ("pdsh", "pdcp", "clush", "pssh", "parallel-ssh", "duplicity", "rclone", "podman")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in PROGRAMS],
        "deny": ["Bash(ssh *)", "Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "pdsh -w h uptime",
        "pdsh -w 'h[1-3]' uptime",
        "pdsh -w u@h,g uptime",
        "pdsh -g all uptime",
        "pdsh -a uptime",
        "pdcp -w h src/a /tmp/a",
        "clush -w h uptime",
        "clush --nodes=h uptime",
        "pssh -H h uptime",
        "parallel-ssh -h hosts.txt uptime",
        "duplicity src sftp://h/x",
        "duplicity src scp://u@h/x",
        "duplicity src pexpect+scp://h/x",
        "duplicity src paramiko+sftp://h/x",
        "duplicity src rsync://u@h/x",
        "duplicity restore SFTP://h/x out",
        "rclone ls sftp-remote:",
        "rclone copy src backup:dir",
        "rclone copy src :sftp,host=h:/x",
        "rclone sync --dry-run src :sftp:/x",
        "podman --url ssh://h ps",
        "podman --url=ssh://u@h/run/podman.sock run alpine true",
        "podman --remote ps",
        "podman -r ps",
    ],
)
def test_programs_reaching_hosts_by_ssh_meet_its_rules(
    command: str, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        # (a local place outside the workspace is a write there: test_rclone_paths)
        "rclone copy src backup",
        "rclone copy src :local:backup",
        "rclone version",
        "rclone config show",
        "duplicity src file:///tmp/x",
        "podman ps",
        "podman --url unix:///run/podman/podman.sock ps",
    ],
)
def test_local_places_reach_no_host(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


MORE = ("sem", "parallel", "unison", "lftp", "restic", "virsh", "xpra", "sshuttle", "fab")
MORE_RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in (*MORE, "pyinfra", "salt-ssh", "rdiff-backup")],
        "deny": ["Bash(ssh *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "sem -S h echo 1",
        "PARALLEL='-S h' parallel echo ::: 1",
        "unison myprofile",
        "lftp -f script.lftp",
        "restic --repository-file repo.txt snapshots",
        "RESTIC_REPOSITORY_FILE=repo.txt restic snapshots",
        "virsh -c qemu+ssh://h/system list",
        "virsh --connect=qemu+libssh2://h/system list",
        "xpra attach ssh://h/",
        "xpra attach ssh:h:7",
        "sshuttle -r u@h 0/0",
        "fab -H h deploy",
        "pyinfra h exec -- id",
        "salt-ssh '*' test.ping",
        "rdiff-backup . h::/x",
    ],
)
def test_more_programs_reaching_hosts_by_ssh_meet_its_rules(
    command: str, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(MORE_RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "parallel echo ::: 1",
        "unison a b",
        "virsh -c qemu:///system list",
        "xpra start :100",
        "rdiff-backup src /tmp/b",
        "pyinfra @local exec -- id",
        "restic -r /tmp/repo snapshots",
    ],
)
def test_local_uses_of_them_reach_no_host(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(MORE_RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


SSHUTTLE_RULES = {
    "permissions": {"allow": ["Bash(sshuttle *)", "Bash(ssh ok *)"], "deny": ["Bash(ssh h *)"]}
}


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("sshuttle -r h 0/0", "deny"),
        ("sshuttle -rh 0/0", "deny"),
        ("sshuttle -vr u@h:22 0/0", "deny"),
        ("sshuttle --rem=u:pw@h 0/0", "deny"),
        ("sshuttle -r ok 0/0", "allow"),
        ("sshuttle --remote u@ok:2222 10.0.0.0/8", "allow"),
        ("sshuttle -vv -r ok -x 10.1.0.0/16 0/0", "allow"),
        ("sshuttle -r ok @more-args.txt", "deny"),
    ],
)
def test_sshuttle_reaches_the_host_its_own_grammar_names(
    command: str, behavior: str, make_ctx: ContextFactory
) -> None:
    """sshuttle's `-r` takes a value (`-rHOST`, `-vr HOST`, `--rem=HOST`): the host is judged
    as `ssh HOST`, not any host, so a rule allowing ssh to it holds; an argument file may
    name any host, the denied one too."""
    verdict = decide("Bash", {"command": command}, make_ctx(SSHUTTLE_RULES))
    assert verdict.behavior == behavior, (command, verdict.reason)
